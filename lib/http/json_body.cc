#include "http/json_body.h"

#include <rapidjson/error/en.h>

#include <cctype>

namespace livechat {
namespace {

constexpr std::string_view kOws = " \t";

std::string_view Trim(std::string_view v) {
  const auto first = v.find_first_not_of(kOws);
  if (first == std::string_view::npos) return {};
  return v.substr(first, v.find_last_not_of(kOws) - first + 1);
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

// The next ';'-separated piece of `rest`, skipping ';' inside a quoted-string.
std::string_view NextPiece(std::string_view& rest) {
  bool quoted = false;
  for (std::size_t i = 0; i < rest.size(); ++i) {
    const char c = rest[i];
    if (quoted && c == '\\') {
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ';' && !quoted) {
      const std::string_view piece = rest.substr(0, i);
      rest.remove_prefix(i + 1);
      return piece;
    }
  }
  const std::string_view piece = rest;
  rest = {};
  return piece;
}

// A parameter value: a token, or a quoted-string with its escapes undone.
std::string ParamValue(std::string_view v) {
  if (v.size() < 2 || v.front() != '"' || v.back() != '"') return std::string(v);
  std::string out;
  for (std::size_t i = 1; i + 1 < v.size(); ++i) {
    if (v[i] == '\\' && i + 2 < v.size()) ++i;
    out += v[i];
  }
  return out;
}

}  // namespace

bool IsJsonMediaType(std::optional<std::string_view> contentType) {
  if (!contentType) return false;
  std::string_view rest = *contentType;
  if (!EqualsIgnoreCase(Trim(NextPiece(rest)), "application/json")) return false;
  while (!rest.empty()) {
    const std::string_view param = Trim(NextPiece(rest));
    if (param.empty()) continue;  // "application/json;" : RFC 9110 allows empty parameters
    const auto eq = param.find('=');
    if (eq == std::string_view::npos || eq == 0) return false;
    if (EqualsIgnoreCase(param.substr(0, eq), "charset") && !EqualsIgnoreCase(ParamValue(param.substr(eq + 1)), "utf-8"))
      return false;
  }
  return true;
}

JsonBodyCheck http::ReadJsonBody(const HttpRequest& req, std::size_t maxBytes, rapidjson::Document& out) {
  JsonBodyCheck check;
  if (req.body.size() > maxBytes) {
    check.status = JsonBodyStatus::kTooLarge;
  } else if (const auto type = req.Header("content-type"); !IsJsonMediaType(type)) {
    check.status = JsonBodyStatus::kUnsupportedMediaType;
  } else if (req.body.empty()) {
    check.status = JsonBodyStatus::kEmpty;
    check.parseError = rapidjson::GetParseError_En(rapidjson::kParseErrorDocumentEmpty);
  } else if (!IsValidUtf8(req.body)) {
    check.status = JsonBodyStatus::kNotUtf8;
  } else {
    out.Parse<rapidjson::kParseValidateEncodingFlag | rapidjson::kParseIterativeFlag>(req.body.data(), req.body.size());
    if (out.HasParseError()) {
      check.status = JsonBodyStatus::kMalformedJson;
      check.parseError = rapidjson::GetParseError_En(out.GetParseError());
      check.parseOffset = out.GetErrorOffset();
    }
  }
  return check;
}

JsonBodyCheck CheckJsonBody(const HttpRequest& req, std::size_t maxBytes) {
  rapidjson::Document doc;
  return http::ReadJsonBody(req, maxBytes, doc);
}

}  // namespace livechat
