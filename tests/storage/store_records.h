// Sample records for the conformance suite: a Full variant with every field
// set (every optional present, non-empty vectors and maps, odd characters),
// a Sparse one with every optional empty, and field-by-field comparisons.
#pragma once

#include <doctest/doctest.h>

#include <string>

#include "livechat/model.h"
#include "store_fixtures.h"

namespace livechat::testing {

inline Shop MakeShop(const std::string& id) {
  Shop s;
  s.id = id;
  s.appId = "app-" + id;
  s.name = "Shop " + id;
  s.plan = Plan::kPro;
  s.autoAssign = true;
  s.installed = false;
  s.createdAt = 1767225600123;
  return s;
}

inline void CheckSame(const Shop& a, const Shop& b) {
  CHECK(a.id == b.id);
  CHECK(a.appId == b.appId);
  CHECK(a.name == b.name);
  CHECK(a.plan == b.plan);
  CHECK(a.autoAssign == b.autoAssign);
  CHECK(a.installed == b.installed);
  CHECK(a.createdAt == b.createdAt);
}

inline ApiKey MakeApiKey(const std::string& shopId, const std::string& id, Millis createdAt) {
  ApiKey k;
  k.id = id;
  k.shopId = shopId;
  k.name = "Key " + id;
  k.keyHash = "hash-" + shopId + "-" + id;
  k.prefix = "sk_ab12";
  k.permissions = kPermReadConversations | kPermManageKnowledge;
  k.legacy = false;
  k.createdAt = createdAt;
  k.activeFrom = createdAt + 30000;
  return k;
}

inline void CheckSame(const ApiKey& a, const ApiKey& b) {
  CHECK(a.id == b.id);
  CHECK(a.shopId == b.shopId);
  CHECK(a.name == b.name);
  CHECK(a.keyHash == b.keyHash);
  CHECK(a.prefix == b.prefix);
  CHECK(a.permissions == b.permissions);
  CHECK(a.legacy == b.legacy);
  CHECK(a.createdAt == b.createdAt);
  CHECK(a.activeFrom == b.activeFrom);
  CHECK(a.revokedAt == b.revokedAt);
  CHECK(a.lastUsedAt == b.lastUsedAt);
}

inline Member MakeMember(const std::string& shopId, const std::string& id, Millis createdAt) {
  Member m;
  m.id = id;
  m.shopId = shopId;
  m.email = id + "@Example.COM";
  m.firstName = "Ana";
  m.lastName = "O'Neil";
  m.avatarUrl = "https://cdn.example.com/" + id + ".png";
  m.role = "admin";
  m.active = false;
  m.enableAwayMode = false;  // set-but-false must not read back as unset
  m.passwordHash = "$argon2id$v=19$m=65536,t=2,p=1$c2FsdA$aGFzaA";
  m.createdAt = createdAt;
  return m;
}

inline void CheckSame(const Member& a, const Member& b) {
  CHECK(a.id == b.id);
  CHECK(a.shopId == b.shopId);
  CHECK(a.email == b.email);
  CHECK(a.firstName == b.firstName);
  CHECK(a.lastName == b.lastName);
  CHECK(a.avatarUrl == b.avatarUrl);
  CHECK(a.role == b.role);
  CHECK(a.active == b.active);
  CHECK(a.enableAwayMode == b.enableAwayMode);
  CHECK(a.passwordHash == b.passwordHash);
  CHECK(a.createdAt == b.createdAt);
}

inline Customer MakeFullCustomer(const std::string& shopId, const std::string& id) {
  Customer c;
  c.id = id;
  c.shopId = shopId;
  c.shopifyId = "gid://shopify/Customer/42";
  c.name = "Zoë \"Z\" Quinn";
  c.firstName = "Zoë";
  c.lastName = "Quinn";
  c.email = "Zoe.Quinn@Example.com";
  c.phone = "+44 20 7946 0000";
  c.type = "customer";
  c.channels = {"online_store", "whatsapp"};
  c.tags = {"vip", "back\\slash", "line\nbreak"};
  c.note = "prefers email";
  c.customAttributes = {{"plan", "gold"}, {"quote\"key", "tab\tvalue"}, {"empty", ""}};
  c.address1 = "1 High St";
  c.address2 = "Flat 2";
  c.city = "London";
  c.zip = "N1 9GU";
  c.country = "United Kingdom";
  c.countryCode = "GB";
  c.ordersCount = 7;
  c.totalSpent = 1234.5;
  c.ipAddress = "203.0.113.9";
  c.ipLocation = "London, GB";
  c.browser = "Firefox";
  c.browserVersion = "128.0";
  c.os = "Linux";
  c.deviceType = "desktop";
  c.senderSeq = 3;
  c.lastChatAt = 1767225700000;
  c.createdAt = 1767225600000;
  c.updatedAt = 1767225800000;
  c.channelRecipient = "+447700900000";
  c.redactedAt = 1767225900000;
  return c;
}

inline Customer MakeSparseCustomer(const std::string& shopId, const std::string& id) {
  Customer c;
  c.id = id;
  c.shopId = shopId;
  c.createdAt = 1767225600000;
  return c;
}

inline void CheckSame(const Customer& a, const Customer& b) {
  CHECK(a.id == b.id);
  CHECK(a.shopId == b.shopId);
  CHECK(a.shopifyId == b.shopifyId);
  CHECK(a.name == b.name);
  CHECK(a.firstName == b.firstName);
  CHECK(a.lastName == b.lastName);
  CHECK(a.email == b.email);
  CHECK(a.phone == b.phone);
  CHECK(a.type == b.type);
  CHECK(a.channels == b.channels);
  CHECK(a.tags == b.tags);
  CHECK(a.note == b.note);
  CHECK(a.customAttributes == b.customAttributes);
  CHECK(a.address1 == b.address1);
  CHECK(a.address2 == b.address2);
  CHECK(a.city == b.city);
  CHECK(a.zip == b.zip);
  CHECK(a.country == b.country);
  CHECK(a.countryCode == b.countryCode);
  CHECK(a.ordersCount == b.ordersCount);
  CHECK(a.totalSpent == b.totalSpent);
  CHECK(a.ipAddress == b.ipAddress);
  CHECK(a.ipLocation == b.ipLocation);
  CHECK(a.browser == b.browser);
  CHECK(a.browserVersion == b.browserVersion);
  CHECK(a.os == b.os);
  CHECK(a.deviceType == b.deviceType);
  CHECK(a.senderSeq == b.senderSeq);
  CHECK(a.lastChatAt == b.lastChatAt);
  CHECK(a.createdAt == b.createdAt);
  CHECK(a.updatedAt == b.updatedAt);
  CHECK(a.channelRecipient == b.channelRecipient);
  CHECK(a.redactedAt == b.redactedAt);
}

// A listed conversation with only the required fields; pgConvoId unset so
// the store assigns it.
inline Conversation MakeConversation(const std::string& shopId, const std::string& id, Millis lastActive) {
  Conversation c;
  c.id = id;
  c.shopId = shopId;
  c.lastActive = lastActive;
  return c;
}

inline Conversation MakeFullConversation(const std::string& shopId, const std::string& id) {
  Conversation c;
  c.id = id;
  c.shopId = shopId;
  c.firestoreId = "fs-" + id;
  c.sessionId = "sess-" + id;
  c.customerUuid = "cust-" + id;
  c.customerName = "Zoë Quinn";
  c.customerEmail = "Zoe@Example.com";
  c.customerType = "guest";
  c.status = "resolved";
  c.isChatBot = true;
  c.hasChatBot = true;
  c.isRead = true;
  c.isCustomerRead = false;
  c.isOnline = true;
  c.isBlock = true;
  c.isStarred = true;
  c.hasFirstMsg = true;
  c.hidePreChatMessage = "by-admin";
  c.memberId = "member-1";
  c.channel = "instagram";
  c.channels = {"instagram", "email"};
  c.tags = {"zeta", "alpha", "mid \"quoted\""};  // insertion order, not sorted
  c.messageCount = 12;
  c.lastMessage = LastMessage{"see you \"soon\"", "agent", 1767225690000};
  c.lastActive = 1767225690000;
  c.createdAt = 1767225600000;
  c.updatedAt = 1767225695000;
  c.lastCustomerMessageAt = 1767225680000;
  c.inNewDatastore = true;
  c.redactedAt = 1767225699000;
  return c;
}

inline void CheckSame(const Conversation& a, const Conversation& b) {
  CHECK(a.id == b.id);
  CHECK(a.firestoreId == b.firestoreId);
  CHECK(a.pgConvoId == b.pgConvoId);
  CHECK(a.shopId == b.shopId);
  CHECK(a.sessionId == b.sessionId);
  CHECK(a.customerUuid == b.customerUuid);
  CHECK(a.customerName == b.customerName);
  CHECK(a.customerEmail == b.customerEmail);
  CHECK(a.customerType == b.customerType);
  CHECK(a.status == b.status);
  CHECK(a.isChatBot == b.isChatBot);
  CHECK(a.hasChatBot == b.hasChatBot);
  CHECK(a.isRead == b.isRead);
  CHECK(a.isCustomerRead == b.isCustomerRead);
  CHECK(a.isOnline == b.isOnline);
  CHECK(a.isBlock == b.isBlock);
  CHECK(a.isStarred == b.isStarred);
  CHECK(a.hasFirstMsg == b.hasFirstMsg);
  CHECK(a.hidePreChatMessage == b.hidePreChatMessage);
  CHECK(a.memberId == b.memberId);
  CHECK(a.channel == b.channel);
  CHECK(a.channels == b.channels);
  CHECK(a.tags == b.tags);
  CHECK(a.messageCount == b.messageCount);
  REQUIRE(a.lastMessage.has_value() == b.lastMessage.has_value());
  if (a.lastMessage) {
    CHECK(a.lastMessage->text == b.lastMessage->text);
    CHECK(a.lastMessage->senderType == b.lastMessage->senderType);
    CHECK(a.lastMessage->createdAt == b.lastMessage->createdAt);
  }
  CHECK(a.lastActive == b.lastActive);
  CHECK(a.createdAt == b.createdAt);
  CHECK(a.updatedAt == b.updatedAt);
  CHECK(a.lastCustomerMessageAt == b.lastCustomerMessageAt);
  CHECK(a.inNewDatastore == b.inNewDatastore);
  CHECK(a.redactedAt == b.redactedAt);
}

inline Message MakeMessage(const std::string& shopId, const std::string& conversationId, const std::string& id,
                           Millis createdAt) {
  Message m;
  m.id = id;
  m.shopId = shopId;
  m.conversationId = conversationId;
  m.text = "text of " + id;
  m.senderName = "Visitor";
  m.createdAt = createdAt;
  return m;
}

inline Message MakeFullMessage(const std::string& shopId, const std::string& conversationId, const std::string& id) {
  Message m;
  m.id = id;
  m.shopId = shopId;
  m.conversationId = conversationId;
  m.text = "Hello \"world\"\n\tÜñíçødé";
  m.senderName = "Agent Smith";
  m.senderType = "agent";
  m.memberId = "member-1";
  m.isAdmin = true;
  m.isAutomated = true;
  m.isBot = true;
  m.isNote = false;
  m.isFirst = true;
  m.isTransfer = true;
  m.isQuickReplyMsg = true;
  m.isAskBotMessage = true;
  m.isDeleted = false;
  m.contentType = "file";
  m.topic = "shipping";
  m.chatbotProductsJson = R"([{"id":"p1","title":"Mug"}])";
  m.chatbotFaqsJson = R"([{"q":"Where?","a":"Here"}])";
  m.filesJson = R"([{"url":"https://cdn.example.com/a.pdf"}])";
  m.replyMessageJson = R"({"id":"m0","text":"hi"})";
  m.createdAt = 1767225601000;
  return m;
}

inline void CheckSame(const Message& a, const Message& b) {
  CHECK(a.id == b.id);
  CHECK(a.seq == b.seq);
  CHECK(a.conversationId == b.conversationId);
  CHECK(a.shopId == b.shopId);
  CHECK(a.text == b.text);
  CHECK(a.senderName == b.senderName);
  CHECK(a.senderType == b.senderType);
  CHECK(a.memberId == b.memberId);
  CHECK(a.isAdmin == b.isAdmin);
  CHECK(a.isAutomated == b.isAutomated);
  CHECK(a.isBot == b.isBot);
  CHECK(a.isNote == b.isNote);
  CHECK(a.isFirst == b.isFirst);
  CHECK(a.isTransfer == b.isTransfer);
  CHECK(a.isQuickReplyMsg == b.isQuickReplyMsg);
  CHECK(a.isAskBotMessage == b.isAskBotMessage);
  CHECK(a.isDeleted == b.isDeleted);
  CHECK(a.contentType == b.contentType);
  CHECK(a.topic == b.topic);
  CHECK(a.chatbotProductsJson == b.chatbotProductsJson);
  CHECK(a.chatbotFaqsJson == b.chatbotFaqsJson);
  CHECK(a.filesJson == b.filesJson);
  CHECK(a.replyMessageJson == b.replyMessageJson);
  CHECK(a.createdAt == b.createdAt);
}

inline void CheckSame(const Note& a, const Note& b) {
  CHECK(a.id == b.id);
  CHECK(a.shopId == b.shopId);
  CHECK(a.conversationId == b.conversationId);
  CHECK(a.text == b.text);
  CHECK(a.isUpdated == b.isUpdated);
  CHECK(a.createdAt == b.createdAt);
  CHECK(a.updatedAt == b.updatedAt);
}

inline void CheckSame(const Attribute& a, const Attribute& b) {
  CHECK(a.id == b.id);
  CHECK(a.shopId == b.shopId);
  CHECK(a.conversationId == b.conversationId);
  CHECK(a.name == b.name);
  CHECK(a.value == b.value);
  CHECK(a.createdAt == b.createdAt);
  CHECK(a.updatedAt == b.updatedAt);
}

inline void CheckSame(const Event& a, const Event& b) {
  CHECK(a.id == b.id);
  CHECK(a.shopId == b.shopId);
  CHECK(a.type == b.type);
  CHECK(a.conversationId == b.conversationId);
  CHECK(a.occurredAt == b.occurredAt);
  CHECK(a.dataJson == b.dataJson);
}

template <typename T>
std::vector<std::string> Ids(const std::vector<T>& records) {
  std::vector<std::string> out;
  for (const auto& r : records) out.push_back(r.id);
  return out;
}


// Helpers the conformance files share.
inline const std::string kShopA = "shop-a";
inline const std::string kShopB = "shop-b";

inline ConversationQuery Query(const std::string& shopId, int limit = 100) {
  ConversationQuery q;
  q.shopId = shopId;
  q.limit = limit;
  return q;
}

inline std::vector<std::string> ListIds(Store& s, const ConversationQuery& q) {
  return Ids(Get(s, [&](StoreReader& r) { return r.ListConversations(q); }));
}

inline MessageQuery Messages(const std::string& shopId, const std::string& conversationId) {
  MessageQuery q;
  q.shopId = shopId;
  q.conversationId = conversationId;
  q.limit = 100;
  return q;
}

inline std::vector<std::string> MessageIds(Store& s, const MessageQuery& q) {
  return Ids(Get(s, [&](StoreReader& r) { return r.ListMessages(q); }));
}

// Inserts bare conversations (already listed, pg assigned by the store).
inline void AddConversations(Store& s, const std::string& shopId, const std::vector<std::string>& ids) {
  Put(s, [&](StoreWriter& w) -> Status {
    Millis t = 1000;
    for (const auto& id : ids) {
      Conversation c = MakeConversation(shopId, id, t++);
      LC_RETURN_IF_ERROR(w.InsertConversation(c));
    }
    return Status::Ok();
  });
}

inline void CheckInternalError(const Status& st) {
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::kInternal);
}

using Ids_ = std::vector<std::string>;

}  // namespace livechat::testing
