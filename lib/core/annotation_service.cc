// AnnotationService: tags, checklist notes and custom attributes of a conversation.
#include <fmt/format.h>

#include <algorithm>

#include "core/service_internal.h"
#include "livechat/base/ascii.h"
#include "livechat/base/utf8.h"
#include "livechat/chat_service.h"

namespace livechat {

using namespace internal;

namespace {

Event TagsEvent(Random& random, const Conversation& c, Millis now) {
  return Event{random.TimeOrderedUuid(now), c.shopId, "conversation.tags_updated", c.id, now,
               JsonObject().Strings("tags", c.tags).Done()};
}

// Writes the conversation's new tag list and its tags_updated event.
Result<std::vector<std::string>> SaveTags(StoreWriter& w, Random& random, Conversation& c, Millis now) {
  c.updatedAt = now;
  LC_RETURN_IF_ERROR(w.ReplaceConversationTags(c.shopId, c.id, c.tags));
  LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(c));
  if (!ok) return NotFound("conversation");
  LC_RETURN_IF_ERROR(EmitEvent(w, random, TagsEvent(random, c, now)));
  return c.tags;
}

}  // namespace

Result<std::vector<TagCount>> AnnotationService::ListTagCatalog(const Principal& p) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  return ReadValue<std::vector<TagCount>>(ctx_.store(), [&](StoreReader& r) { return r.ListTagCatalog(p.shopId); });
}

Result<std::vector<std::string>> AnnotationService::AddTags(const Principal& p, const std::string& id,
                                                      const std::vector<std::string>& tags) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  // Spec: tags over 100 characters are dropped from the request; blank ones
  // carry nothing and are dropped too. If none remain the call is refused.
  std::vector<std::string> kept;
  for (const auto& t : tags) {
    if (!IsValidUtf8(t)) return Invalid("tags must be valid UTF-8");
    std::string_view trimmed = Trim(t);
    if (trimmed.empty() || Utf8Length(trimmed) > static_cast<std::size_t>(ctx_.limits().tagMax)) continue;
    kept.emplace_back(trimmed);
  }
  if (kept.empty())
    return Invalid(fmt::format("no valid tags: each tag must be 1 to {} characters", ctx_.limits().tagMax));
  const Millis now = ctx_.clock->NowMillis();
  auto out = WriteValue<std::vector<std::string>>(ctx_.store(), [&](StoreWriter& w) -> Result<std::vector<std::string>> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    bool changed = false;
    for (auto& t : kept) {
      if (std::find(c.tags.begin(), c.tags.end(), t) != c.tags.end()) continue;
      c.tags.push_back(std::move(t));
      changed = true;
    }
    if (!changed) return c.tags;  // nothing new: no write, no event
    return SaveTags(w, *ctx_.random, c, now);
  });
  if (out.ok()) ctx_.NotifyEventsQueued();
  return out;
}

Result<std::vector<std::string>> AnnotationService::ReplaceTags(const Principal& p, const std::string& id,
                                                          const std::vector<std::string>& tags) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  constexpr std::size_t kToolTagMax = 50, kToolTagsKept = 100;  // spec, Limits: tool update_tags
  std::vector<std::string> kept;
  for (const auto& t : tags) {
    if (!IsValidUtf8(t)) return Invalid("tags must be valid UTF-8");
    std::string cut = TruncateUtf8(Trim(t), kToolTagMax);
    std::string_view trimmed = Trim(cut);
    if (trimmed.empty() || std::find(kept.begin(), kept.end(), trimmed) != kept.end()) continue;
    kept.emplace_back(trimmed);
    if (kept.size() == kToolTagsKept) break;
  }
  const Millis now = ctx_.clock->NowMillis();
  auto out = WriteValue<std::vector<std::string>>(ctx_.store(), [&](StoreWriter& w) -> Result<std::vector<std::string>> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    if (c.tags == kept) return c.tags;  // unchanged: no write, no event
    c.tags = kept;
    return SaveTags(w, *ctx_.random, c, now);
  });
  if (out.ok()) ctx_.NotifyEventsQueued();
  return out;
}

Result<std::vector<std::string>> AnnotationService::RemoveTag(const Principal& p, const std::string& id,
                                                        const std::string& tag) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  const Millis now = ctx_.clock->NowMillis();
  auto out = WriteValue<std::vector<std::string>>(ctx_.store(), [&](StoreWriter& w) -> Result<std::vector<std::string>> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    auto it = std::find(c.tags.begin(), c.tags.end(), tag);
    if (it == c.tags.end()) return c.tags;  // absent: a no-op, so the call is idempotent
    c.tags.erase(it);
    return SaveTags(w, *ctx_.random, c, now);
  });
  if (out.ok()) ctx_.NotifyEventsQueued();
  return out;
}

Result<std::vector<Note>> AnnotationService::ListNotes(const Principal& p, const std::string& id) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  return ReadValue<std::vector<Note>>(ctx_.store(), [&](StoreReader& r) -> Result<std::vector<Note>> {
    LC_ASSIGN_OR_RETURN(std::string conversationId, LoadConversationId(r, p.shopId, id));
    return r.ListNotes(p.shopId, conversationId);
  });
}

Result<Note> AnnotationService::CreateNote(const Principal& p, const std::string& id, const std::optional<std::string>& text) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  LC_RETURN_IF_ERROR(CheckText(text, "text", ctx_.limits().noteTextMax));
  const Millis now = ctx_.clock->NowMillis();
  return WriteValue<Note>(ctx_.store(), [&](StoreWriter& w) -> Result<Note> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    Note n{ctx_.random->Uuid(), p.shopId, c.id, *text, false, now, now};
    LC_RETURN_IF_ERROR(w.InsertNote(n));
    return n;
  });
}

Result<Note> AnnotationService::UpdateNote(const Principal& p, const std::string& id, const std::string& noteId,
                                     const std::optional<std::string>& text) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  LC_RETURN_IF_ERROR(CheckText(text, "text", ctx_.limits().noteTextMax));
  const Millis now = ctx_.clock->NowMillis();
  return WriteValue<Note>(ctx_.store(), [&](StoreWriter& w) -> Result<Note> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    LC_ASSIGN_OR_RETURN(auto n, w.GetNote(p.shopId, c.id, noteId));
    if (!n) return NotFound("note");
    if (n->text == *text) return std::move(*n);  // unchanged text is not an edit
    n->text = *text;
    n->isUpdated = true;
    n->updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateNote(*n));
    if (!ok) return NotFound("note");
    return std::move(*n);
  });
}

Status AnnotationService::DeleteNote(const Principal& p, const std::string& id, const std::string& noteId) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  return ctx_.store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    LC_ASSIGN_OR_RETURN(bool ok, w.DeleteNote(p.shopId, c.id, noteId));
    if (!ok) return NotFound("note");
    return Status::Ok();
  });
}

Result<std::vector<Attribute>> AnnotationService::ListAttributes(const Principal& p, const std::string& id) {
  LC_RETURN_IF_ERROR(RequireReadConversations(p));
  return ReadValue<std::vector<Attribute>>(ctx_.store(), [&](StoreReader& r) -> Result<std::vector<Attribute>> {
    LC_ASSIGN_OR_RETURN(std::string conversationId, LoadConversationId(r, p.shopId, id));
    return r.ListAttributes(p.shopId, conversationId);
  });
}

Result<Attribute> AnnotationService::UpsertAttribute(const Principal& p, const std::string& id,
                                               const std::optional<std::string>& name,
                                               const std::optional<std::string>& value, bool* created) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  LC_RETURN_IF_ERROR(CheckText(name, "name", ctx_.limits().attributeNameMax));
  LC_RETURN_IF_ERROR(CheckText(value, "value", ctx_.limits().attributeValueMax, /*allowEmpty=*/true));
  const Millis now = ctx_.clock->NowMillis();
  bool made = false;
  auto out = WriteValue<Attribute>(ctx_.store(), [&](StoreWriter& w) -> Result<Attribute> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    LC_ASSIGN_OR_RETURN(auto existing, w.FindAttributeByName(p.shopId, c.id, *name));
    if (existing) {
      if (existing->value == *value) return std::move(*existing);
      existing->value = *value;
      existing->updatedAt = now;
      LC_ASSIGN_OR_RETURN(bool ok, w.UpdateAttribute(*existing));
      if (!ok) return NotFound("attribute");
      return std::move(*existing);
    }
    Attribute a{ctx_.random->Uuid(), p.shopId, c.id, *name, *value, now, now};
    LC_RETURN_IF_ERROR(w.InsertAttribute(a));
    made = true;
    return a;
  });
  if (created) *created = out.ok() && made;
  return out;
}

Result<Attribute> AnnotationService::UpdateAttribute(const Principal& p, const std::string& id,
                                               const std::string& attributeId,
                                               const std::optional<std::string>& name,
                                               const std::optional<std::string>& value) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  if (!name && !value) return Invalid("send name, value, or both");
  if (name) LC_RETURN_IF_ERROR(CheckText(name, "name", ctx_.limits().attributeNameMax));
  if (value) LC_RETURN_IF_ERROR(CheckText(value, "value", ctx_.limits().attributeValueMax, /*allowEmpty=*/true));
  const Millis now = ctx_.clock->NowMillis();
  return WriteValue<Attribute>(ctx_.store(), [&](StoreWriter& w) -> Result<Attribute> {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    LC_ASSIGN_OR_RETURN(auto a, w.GetAttribute(p.shopId, c.id, attributeId));
    if (!a) return NotFound("attribute");
    if (name && *name != a->name) {
      LC_ASSIGN_OR_RETURN(auto clash, w.FindAttributeByName(p.shopId, c.id, *name));
      if (clash) return Invalid(fmt::format("an attribute named \"{}\" already exists on this conversation", *name));
      a->name = *name;
    }
    if (value) a->value = *value;
    a->updatedAt = now;
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateAttribute(*a));
    if (!ok) return NotFound("attribute");
    return std::move(*a);
  });
}

Status AnnotationService::DeleteAttribute(const Principal& p, const std::string& id, const std::string& attributeId) {
  LC_RETURN_IF_ERROR(Require(p, kPermManageConversations));
  return ctx_.store().Write([&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(auto c, LoadConversation(w, p.shopId, id));
    LC_ASSIGN_OR_RETURN(bool ok, w.DeleteAttribute(p.shopId, c.id, attributeId));
    if (!ok) return NotFound("attribute");
    return Status::Ok();
  });
}

}  // namespace livechat
