#include "core/csv.h"

#include <fmt/format.h>

namespace livechat::internal {

Result<std::vector<std::vector<std::string>>> ParseCsv(std::string_view text, std::size_t maxRows) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  std::size_t i = 0;
  const std::size_t n = text.size();
  auto row = [&] { return records.size() + 1; };
  auto endRecord = [&]() -> Status {
    record.push_back(std::move(field));
    field.clear();
    if (records.size() > maxRows)
      return MakeError(ErrorCode::kInvalidParams,
                       fmt::format("the file has more than {} rows after the header row (the limit); split it", maxRows));
    records.push_back(std::move(record));
    record.clear();
    return Status::Ok();
  };
  while (i < n) {
    if (text[i] == '"') {
      // A quoted field: runs to the quote not doubled.
      if (!field.empty())
        return MakeError(ErrorCode::kInvalidParams,
                         fmt::format("row {}: a quote inside an unquoted field; quote the whole field", row()));
      ++i;
      bool closed = false;
      while (i < n) {
        if (text[i] == '"') {
          if (i + 1 < n && text[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          closed = true;
          break;
        }
        field += text[i++];
      }
      if (!closed) return MakeError(ErrorCode::kInvalidParams, fmt::format("row {}: a quoted field is not closed", row()));
      if (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
        return MakeError(ErrorCode::kInvalidParams,
                         fmt::format("row {}: text after a closing quote; double quotes inside a field (\"\")", row()));
      continue;
    }
    char c = text[i];
    if (c == ',') {
      record.push_back(std::move(field));
      field.clear();
      ++i;
    } else if (c == '\r' || c == '\n') {
      i += (c == '\r' && i + 1 < n && text[i + 1] == '\n') ? 2 : 1;
      LC_RETURN_IF_ERROR(endRecord());
    } else {
      field += c;
      ++i;
    }
  }
  // Text without a final line break still ends its last record.
  if (!field.empty() || !record.empty() || (n > 0 && text[n - 1] == '"')) LC_RETURN_IF_ERROR(endRecord());
  return records;
}

}  // namespace livechat::internal
