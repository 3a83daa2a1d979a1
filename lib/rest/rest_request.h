// Request parsing for the REST adapter: the body rules (size, media type,
// UTF-8, JSON object), typed access to body fields, and query parameters.
// Only shapes and types are checked here; values are ChatService's business.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "livechat/chat_service.h"
#include "livechat/http.h"
#include "livechat/result.h"

namespace livechat::rest {

enum class BodyRule : std::uint8_t {
  kNone,      // GET / DELETE: any body is ignored
  kRequired,  // a JSON object must be sent
  kOptional,  // may be empty (no media type needed); when sent, the same rules apply
};

// A parsed JSON object body. Field accessors treat an absent key and a JSON
// null alike unless stated, and name the field in their error.
class JsonBody {
 public:
  ~JsonBody();
  JsonBody(JsonBody&&) noexcept;
  JsonBody& operator=(JsonBody&&) noexcept;

  // 413 over maxBytes; 415 without application/json; 400 for invalid UTF-8,
  // malformed JSON, or a value that is not an object. An empty body is 400
  // under kRequired and an empty optional under kOptional.
  static Result<std::optional<JsonBody>> FromRequest(const HttpRequest& req, BodyRule rule, std::size_t maxBytes);

  bool Has(const char* field) const;
  bool IsNull(const char* field) const;
  Result<std::optional<std::string>> OptString(const char* field) const;
  Result<std::optional<bool>> OptBool(const char* field) const;
  // Absent or null: empty optional; present: a whole number (no fraction).
  Result<std::optional<std::int64_t>> OptInt(const char* field) const;
  // Required: an array whose every element is a string.
  Result<std::vector<std::string>> StringArray(const char* field) const;
  // Absent or null: empty optional; present: an array of strings.
  Result<std::optional<std::vector<std::string>>> OptStringArray(const char* field) const;
  // Absent or null: empty optional; present: a JSON object, re-serialized compactly.
  Result<std::optional<std::string>> OptObjectJson(const char* field) const;

 private:
  struct Doc;
  explicit JsonBody(std::unique_ptr<Doc> doc);
  std::unique_ptr<Doc> doc_;
};

// `limit` and `cursor` of a paginated endpoint. A limit that is not an integer
// is INVALID_PARAMS; its range is checked (and clamped) by ChatService.
Result<PageRequest> PageFromQuery(const ParsedTarget& t);
// The list filters of GET /chat/conversations.
Result<ConversationFilter> FilterFromQuery(const ParsedTarget& t);

}  // namespace livechat::rest
