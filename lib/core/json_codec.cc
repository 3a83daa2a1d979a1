#include "livechat/json_codec.h"

#include "core/catalog_format.h"
#include "livechat/base/json_writer.h"
#include "livechat/clock.h"

namespace livechat {
namespace {

std::string StringMapJson(const std::map<std::string, std::string>& m) {
  std::string out;
  AppendJsonStringMap(out, m);
  return out;
}

}  // namespace

void AppendJson(std::string& out, const Conversation& c, JsonView view) {
  const bool detail = view == JsonView::kDetail;
  JsonObject w(out);
  w.Str("id", c.id).Str("firestoreId", c.firestoreId);
  if (c.pgConvoId) {
    w.IntText("pgConvoId", *c.pgConvoId);
  } else {
    w.Null("pgConvoId");
  }
  w.Str("shopId", c.shopId)
      .Str("sessionId", c.sessionId)
      .Str("customerUuid", c.customerUuid)
      .Str("customerName", c.customerName)
      .Str("customerEmail", c.customerEmail);
  if (detail) w.Null("customerPhone");  // spec: never carries data
  w.Str("customerType", c.customerType)
      .Str("status", c.status)
      .Bool("isChatBot", c.isChatBot)
      .Bool("hasChatBot", c.hasChatBot)
      .Bool("isRead", c.isRead)
      .Bool("isCustomerRead", c.isCustomerRead)
      .Bool("isOnline", c.isOnline)
      .Bool("isBlock", c.isBlock)
      .Bool("isStarred", c.isStarred)
      .Bool("hasFirstMsg", c.hasFirstMsg)
      .Str("hidePreChatMessage", c.hidePreChatMessage)
      .Str("memberId", c.memberId);
  if (detail) w.Null("memberName").Null("teamId");
  w.Strings("channels", c.channels).Strings("tags", c.tags).Int("messageCount", c.messageCount);
  if (detail) w.Int("unreadCount", std::int64_t{0});
  if (c.lastMessage) {
    JsonObject m(w, "lastMessage");
    m.Str("text", c.lastMessage->text).Str("senderType", c.lastMessage->senderType);
    m.Time("createdAt", c.lastMessage->createdAt).End();
  } else {
    w.Null("lastMessage");
  }
  w.Time("lastActive", c.lastActive).Time("createdAt", c.createdAt).Time("updatedAt", c.updatedAt);
  // Not in the spec's table: the label a redacted contact's conversations
  // carry (spec rule 8), so a reader can tell cleared fields from unknown ones.
  w.Bool("isRedacted", c.redactedAt.has_value()).End();
}

std::string ToJson(const Conversation& c, JsonView view) {
  std::string out;
  AppendJson(out, c, view);
  return out;
}

void AppendJson(std::string& out, const Message& m, JsonView view) {
  JsonObject w(out);
  // Spec: "message UUID, or numeric id when no UUID exists".
  if (m.id.empty()) {
    w.IntText("id", m.seq);
  } else {
    w.Str("id", m.id);
  }
  w.Str("text", m.text)
      .Str("senderName", m.senderName)
      // Not in the spec's 20-field table, but the spec says a message
      // "carries a senderType value in webhook payloads and reads".
      .Str("senderType", m.senderType)
      .Str("memberId", m.memberId)
      .Bool("isAdmin", m.isAdmin)
      .Bool("isAutomated", m.isAutomated)
      .Bool("isBot", m.isBot)
      .Bool("isNote", m.isNote)
      .Bool("isFirst", m.isFirst)
      .Bool("isTransfer", m.isTransfer)
      .Bool("isQuickReplyMsg", m.isQuickReplyMsg)
      .Bool("isAskBotMessage", m.isAskBotMessage);
  if (view == JsonView::kDetail) w.Bool("isDeleted", m.isDeleted).Str("contentType", m.contentType);
  w.Str("topic", m.topic)
      .Raw("chatbotProducts", m.chatbotProductsJson, "[]")
      .Raw("chatbotFaqs", m.chatbotFaqsJson, "[]")
      .Raw("files", m.filesJson, "[]")
      .Raw("replyMessage", m.replyMessageJson.value_or(""), "null")
      .Time("createdAt", m.createdAt)
      .End();
}

std::string ToJson(const Message& m, JsonView view) {
  std::string out;
  AppendJson(out, m, view);
  return out;
}

std::string ToJson(const Customer& c) {
  return JsonObject()
      .Str("id", c.id)
      .Str("shopifyId", c.shopifyId)
      .Str("name", c.name)
      .Str("firstName", c.firstName)
      .Str("lastName", c.lastName)
      .Str("email", c.email)
      .Str("phone", c.phone)
      .Str("type", c.type)
      .Strings("channels", c.channels)
      .Strings("tags", c.tags)
      .Str("note", c.note)
      .Raw("customAttributes", StringMapJson(c.customAttributes), "{}")
      .Str("address1", c.address1)
      .Str("address2", c.address2)
      .Str("city", c.city)
      .Str("zip", c.zip)
      .Str("country", c.country)
      .Str("countryCode", c.countryCode)
      .Int("ordersCount", c.ordersCount)
      .Double("totalSpent", c.totalSpent)
      .Str("ipAddress", c.ipAddress)
      .Str("ipLocation", c.ipLocation)
      .Str("browser", c.browser)
      .Str("browserVersion", c.browserVersion)
      .Str("os", c.os)
      .Str("deviceType", c.deviceType)
      .Int("senderSeq", c.senderSeq)
      .Time("lastChatAt", c.lastChatAt)
      .Time("createdAt", c.createdAt)
      .Time("updatedAt", c.updatedAt)
      .Bool("isRedacted", c.redactedAt.has_value())
      .Done();
}

std::string ToJson(const Member& m) {
  return JsonObject()
      .Str("id", m.id)
      .Str("email", m.email)
      .Str("firstName", m.firstName)
      .Str("lastName", m.lastName)
      .Str("fullName", MemberFullName(m))
      .Str("avatarUrl", m.avatarUrl)
      .Str("role", m.role)
      .Bool("active", m.active)
      .Bool("enableAwayMode", m.enableAwayMode)
      .Time("createdAt", m.createdAt)
      .Done();
}

std::string ToJson(const Note& n) {
  return JsonObject()
      .Str("id", n.id)
      .Str("text", n.text)
      .Bool("isUpdated", n.isUpdated)
      .Time("createdAt", n.createdAt)
      .Time("updatedAt", n.updatedAt)
      .Done();
}

std::string ToJson(const Attribute& a) {
  return JsonObject()
      .Str("id", a.id)
      .Str("name", a.name)
      .Str("value", a.value)
      .Time("createdAt", a.createdAt)
      .Time("updatedAt", a.updatedAt)
      .Done();
}

std::string ToJson(const BrowsedPage& p) {
  return JsonObject().Str("url", p.url).Str("title", p.title).Time("viewedAt", p.viewedAt).Done();
}

std::string ToJson(const Summary& s) {
  return JsonObject()
      .Str("conversationId", s.conversationId)
      .Str("text", s.text)
      .Str("summarizer", s.summarizer)
      .Time("generatedAt", s.generatedAt)
      .Done();
}

std::string ToJson(const FileRecord& f) {
  return JsonObject()
      .Str("id", f.id)
      .Str("kind", f.kind)
      .Str("name", f.name)
      .Int("size", f.size)
      .Str("contentType", f.contentType)
      .Str("sha256", f.sha256)
      .Str("conversationId", f.conversationId)
      .Str("messageId", f.messageId)
      .Str("uploaderType", f.uploaderType)
      .Str("uploaderId", f.uploaderId)
      .Time("createdAt", f.createdAt)
      .Done();
}

std::string ToJson(const TagCount& t) {
  return JsonObject().Str("name", t.name).Int("conversationCount", t.conversationCount).Done();
}

std::string ToJson(const TypingState& t) {
  return JsonObject()
      .Str("conversationId", t.conversationId)
      .Str("memberId", t.memberId)
      .Bool("active", t.active)
      .Time("updatedAt", t.updatedAt)
      .Done();
}

std::string ToJson(const ApiKey& k) {
  // A legacy key has no permission list: it passes every check, said by `legacy`.
  return JsonObject()
      .Str("id", k.id)
      .Str("name", k.name)
      .Str("prefix", k.prefix)
      .Strings("permissions", k.legacy ? std::vector<std::string>{} : PermissionSlugs(k.permissions))
      .Bool("legacy", k.legacy)
      .Time("createdAt", k.createdAt)
      .Time("activeFrom", k.activeFrom)
      .Time("revokedAt", k.revokedAt)
      .Done();
}

std::string ToJson(const Shop& s) {
  return JsonObject()
      .Str("id", s.id)
      .Str("appId", s.appId)
      .Str("name", s.name)
      .Str("plan", PlanName(s.plan))
      .Bool("autoAssign", s.autoAssign)
      .Bool("installed", s.installed)
      .Time("createdAt", s.createdAt)
      .Done();
}

std::string EventEnvelopeJson(const Event& e) {
  return JsonObject()
      .Str("eventId", e.id)
      .Str("type", e.type)
      .Str("shopId", e.shopId)
      .Str("conversationId", e.conversationId)
      .Time("occurredAt", e.occurredAt)
      .Raw("data", e.dataJson, "{}")
      .Done();
}

std::string FeedEventJson(const Event& e, const std::string& cursor) {
  return JsonObject()
      .Str("id", e.id)
      .Str("type", e.type)
      .Str("conversationId", e.conversationId)
      .Time("createdAt", e.occurredAt)
      .Raw("data", e.dataJson, "{}")
      .Str("cursor", cursor)
      .Done();
}

std::string ToJson(const WebhookSubscription& s) {
  JsonObject w;
  w.Str("id", s.id)
      .Str("shopId", s.shopId)
      .Str("url", s.url)
      .Strings("events", s.events)
      .Bool("isActive", s.isActive)
      .Str("secret", s.secret)
      .Raw("metadata", s.metadataJson, "{}")
      .Time("createdAt", s.createdAt)
      .Time("updatedAt", s.updatedAt);
  if (s.lastDeliveryAt) {
    w.Time("lastDeliveryAt", s.lastDeliveryAt)
        .Str("lastDeliveryStatus", s.lastDeliveryStatus)
        .Int("lastDeliveryStatusCode",
             s.lastDeliveryStatusCode ? std::optional<std::int64_t>(*s.lastDeliveryStatusCode) : std::nullopt)
        .Str("lastDeliveryError", s.lastDeliveryError);
  }
  w.Str("signatureFormat", s.signatureFormat);
  if (s.previousSecretExpiresAt) w.Time("previousSecretExpiresAt", s.previousSecretExpiresAt);
  return w.Done();
}

std::string ToJson(const WebhookDelivery& d) {
  return JsonObject()
      .Str("id", d.id)
      .Str("subscriptionId", d.subscriptionId)
      .Str("eventId", d.eventId)
      .Str("state", d.state)
      .Int("attempts", std::int64_t{d.attempts})
      .Time("nextAttemptAt", d.nextAttemptAt)
      .Time("lastAttemptAt", d.lastAttemptAt)
      .Time("createdAt", d.createdAt)
      .Done();
}

std::string ToJson(const DeliveryAttempt& a) {
  return JsonObject()
      .Str("deliveryId", a.deliveryId)
      .Str("eventId", a.eventId)
      .Str("eventType", a.eventType)
      .Int("attempt", std::int64_t{a.attempt})
      .Time("at", a.at)
      .Int("statusCode", a.statusCode ? std::optional<std::int64_t>(*a.statusCode) : std::nullopt)
      .Str("error", a.error)
      .Int("durationMs", a.durationMillis)
      .Str("outcome", a.outcome)
      .Done();
}

std::string ToJson(const AiSettings& s) { return internal::AiSettingsJson(s); }

std::string ToJson(const ChannelIntegration& i) {
  return JsonObject()
      .Str("channel", i.channel)
      .Bool("connected", i.connected)
      .Time("updatedAt", i.updatedAt ? std::optional<Millis>(i.updatedAt) : std::nullopt)
      .Done();
}

std::string ToJson(const PlatformRequest& r) {
  return JsonObject()
      .Str("id", r.id)
      .Str("storeId", r.shopId)
      .Str("topic", r.topic)
      .Str("deliveryId", r.deliveryId)
      .Time("receivedAt", r.receivedAt)
      .Str("outcome", r.outcome)
      .Raw("changes", r.changesJson, "{}")
      .Str("message", r.message)
      .Done();
}

std::string ToJson(const DataRequest& d, bool withExport) {
  JsonObject w;
  w.Str("id", d.id)
      .Str("storeId", d.shopId)
      .Raw("customer", d.customerJson, "{}")
      .Time("receivedAt", d.receivedAt)
      .Int("contacts", d.contacts);
  if (withExport) w.Raw("export", d.exportJson, "{}");
  return w.Done();
}

}  // namespace livechat
