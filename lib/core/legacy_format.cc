#include "core/legacy_format.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <unordered_set>

#include <fmt/format.h>

#include "livechat/base/ascii.h"
#include "livechat/base/utf8.h"
#include "livechat/clock.h"

namespace livechat::internal {
namespace {

using rapidjson::Value;

Error Bad(const std::string& path, const std::string& what) {
  return Error{ErrorCode::kInvalidParams, path + ": " + what};
}

const Value* Member(const Value& obj, const char* name) {
  auto it = obj.FindMember(name);
  if (it == obj.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

// An optional string field, trimmed; blank is the same as absent.
Result<std::optional<std::string>> OptText(const Value& obj, const char* name, const std::string& path, int max) {
  const Value* v = Member(obj, name);
  if (v == nullptr) return std::optional<std::string>();
  const std::string at = path + "." + name;
  if (!v->IsString()) return Bad(at, "must be a string");
  std::string_view s(v->GetString(), v->GetStringLength());
  if (!IsValidUtf8(s)) return Bad(at, "must be valid UTF-8");
  s = Trim(s);
  if (Utf8Length(s) > static_cast<std::size_t>(max)) return Bad(at, fmt::format("must be at most {} characters", max));
  if (s.empty()) return std::optional<std::string>();
  return std::optional<std::string>(std::string(s));
}

Result<std::optional<Millis>> OptTime(const Value& obj, const char* name, const std::string& path) {
  const Value* v = Member(obj, name);
  if (v == nullptr) return std::optional<Millis>();
  std::optional<Millis> t;
  if (v->IsString()) t = ParseIso8601(std::string_view(v->GetString(), v->GetStringLength()));
  if (!t) return Bad(path + "." + name, "must be an ISO 8601 time like \"2024-05-02T09:15:00Z\"");
  return t;
}

Result<std::string> OneOf(const Value& obj, const char* name, const std::string& path,
                          std::initializer_list<const char*> values, const char* fallback) {
  const Value* v = Member(obj, name);
  if (v == nullptr) {
    if (fallback != nullptr) return std::string(fallback);
    return Bad(path + "." + name, "is required");
  }
  if (v->IsString()) {
    std::string_view s(v->GetString(), v->GetStringLength());
    for (const char* ok : values)
      if (s == ok) return std::string(ok);
  }
  std::string list;
  for (const char* ok : values) list += (list.empty() ? "" : ", ") + std::string(ok);
  return Bad(path + "." + name, "must be one of " + list);
}

// The older datastore's document ids: letters, digits, '_' and '-'. An id of
// digits only would be read as a pgConvoId by every `{id}` path, so it is
// refused rather than silently shadowed.
Status CheckFirestoreId(const Value* v, const std::string& path) {
  if (v == nullptr) return Bad(path, "is required");
  if (!v->IsString()) return Bad(path, "must be a string");
  std::string_view s(v->GetString(), v->GetStringLength());
  if (s.empty() || s.size() > 128) return Bad(path, "must be 1 to 128 characters");
  bool digitsOnly = true;
  for (char ch : s) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
                    ch == '-';
    if (!ok) return Bad(path, "may contain only letters, digits, '_' and '-'");
    if (ch < '0' || ch > '9') digitsOnly = false;
  }
  if (digitsOnly) return Bad(path, "must not be digits only (it would be read as a pgConvoId)");
  return Status::Ok();
}

std::string DefaultSenderName(const std::string& senderType, const LegacyConversation& c) {
  if (senderType == "customer") return c.customerName.value_or("Customer");
  if (senderType == "bot") return "AI assistant";
  if (senderType == "system") return "System";
  return "Agent";
}

Result<LegacyMessage> ParseMessage(const Value& v, const std::string& path, const LegacyConversation& c,
                                   const LegacyLimits& limits) {
  if (!v.IsObject()) return Bad(path, "must be an object");
  LegacyMessage m;
  const Value* text = Member(v, "text");
  if (text == nullptr) return Bad(path + ".text", "is required");
  if (!text->IsString()) return Bad(path + ".text", "must be a string");
  std::string_view t(text->GetString(), text->GetStringLength());
  if (!IsValidUtf8(t)) return Bad(path + ".text", "must be valid UTF-8");
  if (Trim(t).empty()) return Bad(path + ".text", "must not be blank");
  if (Utf8Length(t) > static_cast<std::size_t>(limits.messageTextMax))
    return Bad(path + ".text", fmt::format("must be at most {} characters", limits.messageTextMax));
  m.text = std::string(t);
  LC_ASSIGN_OR_RETURN(m.senderType, OneOf(v, "senderType", path, {"customer", "agent", "bot", "system"}, nullptr));
  LC_ASSIGN_OR_RETURN(auto name, OptText(v, "senderName", path, 255));
  m.senderName = name ? *name : DefaultSenderName(m.senderType, c);
  if (const Value* note = Member(v, "isNote")) {
    if (!note->IsBool()) return Bad(path + ".isNote", "must be true or false");
    m.isNote = note->GetBool();
  }
  if (m.isNote && m.senderType != "agent") return Bad(path + ".isNote", "only an agent's message can be a note");
  LC_ASSIGN_OR_RETURN(auto at, OptTime(v, "createdAt", path));
  if (!at) return Bad(path + ".createdAt", "is required");
  m.createdAt = *at;
  return m;
}

Result<LegacyConversation> ParseConversation(const Value& v, const std::string& path, const LegacyLimits& limits) {
  if (!v.IsObject()) return Bad(path, "must be an object");
  LegacyConversation c;
  LC_RETURN_IF_ERROR(CheckFirestoreId(Member(v, "id"), path + ".id"));
  c.firestoreId = Member(v, "id")->GetString();
  LC_ASSIGN_OR_RETURN(c.status, OneOf(v, "status", path, {"open", "resolved"}, "resolved"));
  LC_ASSIGN_OR_RETURN(
      c.channel, OneOf(v, "channel", path, {"online_store", "email", "facebook", "instagram", "whatsapp"}, "online_store"));
  LC_ASSIGN_OR_RETURN(c.sessionId, OptText(v, "sessionId", path, 255));
  if (const Value* customer = Member(v, "customer")) {
    const std::string at = path + ".customer";
    if (!customer->IsObject()) return Bad(at, "must be an object");
    LC_ASSIGN_OR_RETURN(c.customerName, OptText(*customer, "name", at, 255));
    LC_ASSIGN_OR_RETURN(c.customerEmail, OptText(*customer, "email", at, 254));
    if (c.customerEmail && c.customerEmail->find('@') == std::string::npos)
      return Bad(at + ".email", "must be an email address");
    LC_ASSIGN_OR_RETURN(c.customerPhone, OptText(*customer, "phone", at, 64));
  }
  if (const Value* tags = Member(v, "tags")) {
    if (!tags->IsArray()) return Bad(path + ".tags", "must be an array of strings");
    if (tags->Size() > limits.tagsMax) return Bad(path + ".tags", fmt::format("must have at most {} tags", limits.tagsMax));
    for (rapidjson::SizeType i = 0; i < tags->Size(); ++i) {
      const std::string at = fmt::format("{}.tags[{}]", path, i);
      const Value& tag = (*tags)[i];
      if (!tag.IsString()) return Bad(at, "must be a string");
      std::string_view s(tag.GetString(), tag.GetStringLength());
      if (!IsValidUtf8(s)) return Bad(at, "must be valid UTF-8");
      s = Trim(s);
      if (s.empty() || Utf8Length(s) > static_cast<std::size_t>(limits.tagMax))
        return Bad(at, fmt::format("must be 1 to {} characters", limits.tagMax));
      if (std::find(c.tags.begin(), c.tags.end(), s) == c.tags.end()) c.tags.emplace_back(s);
    }
  }
  const Value* messages = Member(v, "messages");
  if (messages != nullptr && !messages->IsArray()) return Bad(path + ".messages", "must be an array");
  if (messages != nullptr) {
    if (messages->Size() > limits.maxMessagesPerConversation)
      return Bad(path + ".messages", fmt::format("must have at most {} messages", limits.maxMessagesPerConversation));
    for (rapidjson::SizeType i = 0; i < messages->Size(); ++i) {
      LC_ASSIGN_OR_RETURN(auto m, ParseMessage((*messages)[i], fmt::format("{}.messages[{}]", path, i), c, limits));
      c.messages.push_back(std::move(m));
    }
  }
  std::stable_sort(c.messages.begin(), c.messages.end(),
                   [](const LegacyMessage& a, const LegacyMessage& b) { return a.createdAt < b.createdAt; });
  LC_ASSIGN_OR_RETURN(auto created, OptTime(v, "createdAt", path));
  if (created) {
    c.createdAt = *created;
    if (!c.messages.empty() && c.messages.front().createdAt < c.createdAt)
      return Bad(path + ".createdAt", "must not be later than the conversation's first message");
  } else if (!c.messages.empty()) {
    c.createdAt = c.messages.front().createdAt;
  } else {
    return Bad(path + ".createdAt", "is required when the conversation has no messages");
  }
  return c;
}

}  // namespace

Result<std::vector<LegacyConversation>> ParseLegacyExport(std::string_view json, const LegacyLimits& limits) {
  if (json.size() > limits.maxBytes)
    return Error{ErrorCode::kInvalidParams,
                 fmt::format("the file is {} bytes; the limit is {} bytes: split the export", json.size(), limits.maxBytes)};
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError())
    return Error{ErrorCode::kInvalidParams, fmt::format("not valid JSON at byte {}: {}", doc.GetErrorOffset(),
                                                        rapidjson::GetParseError_En(doc.GetParseError()))};
  if (!doc.IsObject()) return Error{ErrorCode::kInvalidParams, "the file must be a JSON object with \"conversations\""};
  const Value* list = Member(doc, "conversations");
  if (list == nullptr || !list->IsArray()) return Bad("conversations", "is required and must be an array");
  if (list->Size() > limits.maxConversations)
    return Bad("conversations", fmt::format("must have at most {} conversations: split the export", limits.maxConversations));
  std::vector<LegacyConversation> out;
  out.reserve(list->Size());
  std::unordered_set<std::string> seen;
  for (rapidjson::SizeType i = 0; i < list->Size(); ++i) {
    const std::string path = fmt::format("conversations[{}]", i);
    LC_ASSIGN_OR_RETURN(auto c, ParseConversation((*list)[i], path, limits));
    if (!seen.insert(c.firestoreId).second) return Bad(path + ".id", "\"" + c.firestoreId + "\" appears twice in the file");
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace livechat::internal
