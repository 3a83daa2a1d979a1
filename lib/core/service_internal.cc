#include "core/service_internal.h"

#include <fmt/format.h>

#include "livechat/base/ascii.h"
#include "livechat/base/utf8.h"

namespace livechat::internal {

Status Require(const Principal& p, Permission perm) {
  if (p.Has(perm)) return Status::Ok();
  return MakeError(ErrorCode::kForbidden,
                   fmt::format("this API key lacks the \"{}\" permission", PermissionDisplayName(perm)));
}

Status RequireReadConversations(const Principal& p) {
  if (p.Has(kPermReadConversations) || p.Has(kPermManageConversations)) return Status::Ok();
  return MakeError(ErrorCode::kForbidden,
                   "this API key lacks the \"Read conversations\" permission (or \"Manage conversations\")");
}

Status RequireSystem(const Principal& p) {
  if (p.kind == Principal::Kind::kSystem) return Status::Ok();
  return MakeError(ErrorCode::kForbidden, "this operation is for the store operator only");
}

Result<int> ResolveLimit(const std::optional<std::int64_t>& limit, int def, int max) {
  if (!limit) return def;
  if (*limit < 1) return Invalid("limit must be a whole number of 1 or more");
  return static_cast<int>(std::min<std::int64_t>(*limit, max));
}

Status CheckText(const std::optional<std::string>& v, std::string_view field, int max, bool allowEmpty) {
  if (!v) return Invalid(fmt::format("{} is required", field));
  if (!IsValidUtf8(*v)) return Invalid(fmt::format("{} must be valid UTF-8", field));
  // JSON carries it as \u0000, but PostgreSQL text cannot hold it, and C
  // strings, logs and terminals would cut the text at it.
  if (v->find('\0') != std::string::npos) return Invalid(fmt::format("{} must not contain NUL (U+0000)", field));
  if (!allowEmpty && Trim(*v).empty()) return Invalid(fmt::format("{} must not be empty", field));
  std::size_t n = Utf8Length(*v);
  if (n > static_cast<std::size_t>(max))
    return Invalid(fmt::format("{} must be at most {} characters (got {})", field, max, n));
  return Status::Ok();
}

Result<Conversation> LoadConversation(StoreReader& r, const std::string& shopId, const std::string& id) {
  LC_ASSIGN_OR_RETURN(auto found, r.FindConversation(shopId, id));
  if (!found) return NotFound("conversation");
  return std::move(*found);
}

Result<std::string> LoadConversationId(StoreReader& r, const std::string& shopId, const std::string& id) {
  LC_ASSIGN_OR_RETURN(auto found, r.FindConversationId(shopId, id));
  if (!found) return NotFound("conversation");
  return std::move(*found);
}

Result<Member> LoadActiveMember(StoreReader& r, const std::string& shopId, const std::optional<std::string>& memberId,
                                std::string_view field) {
  if (!memberId || memberId->empty()) return Invalid(fmt::format("{} is required", field));
  LC_ASSIGN_OR_RETURN(auto m, r.GetMember(shopId, *memberId));
  if (!m || !m->active)
    return Invalid(fmt::format("{} \"{}\" is not an active member of this store (see GET /chat/members)", field,
                               *memberId));
  return std::move(*m);
}

std::string MessageEventData(const Message& m, const std::string* filesJson) {
  JsonObject o;
  o.Str("messageId", m.id).Str("text", m.text).Str("senderType", m.senderType).Str("memberId", m.memberId);
  // Only file messages carry these, so the payload of a text message is what it always was.
  if (m.contentType == "file") o.Str("contentType", m.contentType).Raw("files", filesJson ? *filesJson : m.filesJson);
  return o.Str("createdAt", FormatIso8601(m.createdAt)).Done();
}

}  // namespace livechat::internal
