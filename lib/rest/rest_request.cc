#include "rest/rest_request.h"

#include "http/json_body.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cctype>
#include <limits>

namespace livechat::rest {

struct JsonBody::Doc {
  rapidjson::Document value;
};

JsonBody::JsonBody(std::unique_ptr<Doc> doc) : doc_(std::move(doc)) {}
JsonBody::~JsonBody() = default;
JsonBody::JsonBody(JsonBody&&) noexcept = default;
JsonBody& JsonBody::operator=(JsonBody&&) noexcept = default;

namespace {

Error Invalid(std::string message) { return MakeError(ErrorCode::kInvalidParams, std::move(message)); }

}  // namespace

Result<std::optional<JsonBody>> JsonBody::FromRequest(const HttpRequest& req, BodyRule rule, std::size_t maxBytes) {
  if (rule == BodyRule::kNone) return std::optional<JsonBody>();
  if (rule == BodyRule::kOptional && req.body.empty()) return std::optional<JsonBody>();
  auto doc = std::make_unique<Doc>();
  const JsonBodyCheck check = http::ReadJsonBody(req, maxBytes, doc->value);
  switch (check.status) {
    case JsonBodyStatus::kOk:
      break;
    case JsonBodyStatus::kTooLarge:
      return MakeError(ErrorCode::kPayloadTooLarge, "request body is " + std::to_string(req.body.size()) +
                                                        " bytes; the limit is " + std::to_string(maxBytes) + " bytes");
    case JsonBodyStatus::kUnsupportedMediaType:
      return MakeError(ErrorCode::kUnsupportedMediaType, "Content-Type must be application/json");
    case JsonBodyStatus::kEmpty:
      return Invalid("request body is empty; expected a JSON object");
    case JsonBodyStatus::kNotUtf8:
      return Invalid("request body is not valid UTF-8");
    case JsonBodyStatus::kMalformedJson:
      return Invalid("request body is not valid JSON: " + check.parseError + " (at byte " +
                     std::to_string(check.parseOffset) + ")");
  }
  if (!doc->value.IsObject()) return Invalid("request body must be a JSON object");
  return std::optional<JsonBody>(JsonBody(std::move(doc)));
}

bool JsonBody::Has(const char* field) const { return doc_->value.HasMember(field); }

bool JsonBody::IsNull(const char* field) const {
  auto it = doc_->value.FindMember(field);
  return it != doc_->value.MemberEnd() && it->value.IsNull();
}

Result<std::optional<std::string>> JsonBody::OptString(const char* field) const {
  auto it = doc_->value.FindMember(field);
  if (it == doc_->value.MemberEnd() || it->value.IsNull()) return std::optional<std::string>();
  if (!it->value.IsString()) return Invalid(std::string(field) + " must be a string");
  std::string s(it->value.GetString(), it->value.GetStringLength());
  // An escaped lone surrogate ("\udc00") decodes to bytes that are not UTF-8.
  if (!IsValidUtf8(s)) return Invalid(std::string(field) + " is not valid UTF-8");
  return std::optional<std::string>(std::move(s));
}

Result<std::optional<bool>> JsonBody::OptBool(const char* field) const {
  auto it = doc_->value.FindMember(field);
  if (it == doc_->value.MemberEnd() || it->value.IsNull()) return std::optional<bool>();
  if (!it->value.IsBool()) return Invalid(std::string(field) + " must be a boolean");
  return std::optional<bool>(it->value.GetBool());
}

Result<std::optional<std::int64_t>> JsonBody::OptInt(const char* field) const {
  auto it = doc_->value.FindMember(field);
  if (it == doc_->value.MemberEnd() || it->value.IsNull()) return std::optional<std::int64_t>();
  if (!it->value.IsInt64()) return Invalid(std::string(field) + " must be a whole number");
  return std::optional<std::int64_t>(it->value.GetInt64());
}

Result<std::optional<std::vector<std::string>>> JsonBody::OptStringArray(const char* field) const {
  auto it = doc_->value.FindMember(field);
  if (it == doc_->value.MemberEnd() || it->value.IsNull()) return std::optional<std::vector<std::string>>();
  LC_ASSIGN_OR_RETURN(auto v, StringArray(field));
  return std::optional<std::vector<std::string>>(std::move(v));
}

Result<std::optional<std::string>> JsonBody::OptObjectJson(const char* field) const {
  auto it = doc_->value.FindMember(field);
  if (it == doc_->value.MemberEnd() || it->value.IsNull()) return std::optional<std::string>();
  if (!it->value.IsObject()) return Invalid(std::string(field) + " must be a JSON object");
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  it->value.Accept(w);
  return std::optional<std::string>(std::string(buf.GetString(), buf.GetSize()));
}

Result<std::vector<std::string>> JsonBody::StringArray(const char* field) const {
  auto it = doc_->value.FindMember(field);
  if (it == doc_->value.MemberEnd() || !it->value.IsArray())
    return Invalid(std::string(field) + " must be an array of strings");
  std::vector<std::string> out;
  for (const auto& v : it->value.GetArray()) {
    if (!v.IsString()) return Invalid(std::string(field) + " must be an array of strings");
    std::string s(v.GetString(), v.GetStringLength());
    if (!IsValidUtf8(s)) return Invalid(std::string(field) + " contains a string that is not valid UTF-8");
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

// Digits with an optional leading '-'. Out-of-range values saturate: a huge
// limit is still "a whole number", which ChatService clamps to its maximum.
std::optional<std::int64_t> ParseWholeNumber(std::string_view s) {
  bool negative = false;
  if (!s.empty() && s.front() == '-') {
    negative = true;
    s.remove_prefix(1);
  }
  if (s.empty()) return std::nullopt;
  std::int64_t value = 0;
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    int digit = c - '0';
    if (value > (kMax - digit) / 10) {
      value = kMax;
    } else {
      value = value * 10 + digit;
    }
  }
  return negative ? -value : value;
}

}  // namespace

Result<PageRequest> PageFromQuery(const ParsedTarget& t) {
  PageRequest page;
  if (auto limit = t.Query("limit")) {
    auto n = ParseWholeNumber(*limit);
    if (!n) return Invalid("limit must be a whole number of 1 or more");
    page.limit = *n;
  }
  // An empty cursor ("cursor=") is what a client sends for the first page.
  if (auto cursor = t.Query("cursor"); cursor && !cursor->empty()) page.cursor = *cursor;
  return page;
}

Result<ConversationFilter> FilterFromQuery(const ParsedTarget& t) {
  ConversationFilter f;
  f.status = t.Query("status");
  f.channel = t.Query("channel");
  f.assigneeId = t.Query("assigneeId");
  if (auto isRead = t.Query("isRead")) {
    if (*isRead == "true") {
      f.isRead = true;
    } else if (*isRead == "false") {
      f.isRead = false;
    } else {
      return Invalid("isRead must be true or false");
    }
  }
  if (auto isStarred = t.Query("isStarred")) {
    if (*isStarred != "true" && *isStarred != "false") return Invalid("isStarred must be true or false");
    f.isStarred = *isStarred == "true";
  }
  f.tags = t.QueryAll("tag");
  f.customerUuid = t.Query("customerUuid");
  f.email = t.Query("email");
  return f;
}

}  // namespace livechat::rest
