// RFC 4180 CSV: fields separated by commas, records by CRLF or LF; a field
// in double quotes may hold commas, line breaks and doubled quotes ("").
// No I/O: text in, rows out.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "livechat/result.h"

namespace livechat::internal {

// The records of `text` (a UTF-8 BOM is skipped; a final line break ends
// the last record rather than starting an empty one). The first record is
// the header; at most `maxRows` records may follow it (more is
// INVALID_PARAMS naming the limit). A stray quote
// inside an unquoted field, text after a closing quote, or an unclosed quote
// is INVALID_PARAMS naming the record (1-based, the header is record 1).
Result<std::vector<std::vector<std::string>>> ParseCsv(std::string_view text, std::size_t maxRows);

}  // namespace livechat::internal
