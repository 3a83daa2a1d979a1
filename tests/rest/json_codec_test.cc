// The JSON forms of the records (livechat/json_codec.h): key sets, presence
// rules, null handling and value encodings.
#include <doctest/doctest.h>

#include "livechat/clock.h"
#include "livechat/json_codec.h"
#include "support/rest_fixture.h"

namespace livechat {
namespace {

using namespace livechat::testing;

constexpr Millis kT0 = 1767225600000;  // 2026-01-01T00:00:00.000Z

TEST_CASE("AppendJsonString escapes what JSON requires and passes UTF-8 through") {
  using namespace std::string_literals;
  const std::string input = "a\"b\\c\n\r\t\b\f\x01\x1f\0/\xC3\xA9"s;
  REQUIRE(input.size() == 16);
  std::string out;
  AppendJsonString(out, input);
  CHECK(out == "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u001f\\u0000/\xC3\xA9\"");
  auto doc = ParseJson("[" + out + "]");
  CHECK(Str(At(doc, 0)) == input);
}

TEST_CASE("Conversation: 28 keys in lists (27 + isRedacted), 32 in detail, nullable keys present as null") {
  Conversation c;
  c.id = "c-1";
  c.shopId = "shop_1";
  auto list = ParseJson(ToJson(c, JsonView::kList));
  auto detail = ParseJson(ToJson(c, JsonView::kDetail));
  CHECK(KeySet(list) == Keys(kConversationListKeys));
  CHECK(KeySet(list).size() == 28);
  CHECK(KeySet(detail) == Keys(kConversationListKeys, kConversationDetailOnlyKeys));
  CHECK(KeySet(detail).size() == 32);
  for (const char* k : {"firestoreId", "pgConvoId", "sessionId", "customerUuid", "customerName", "customerEmail",
                        "memberId", "messageCount", "lastMessage", "lastActive", "createdAt", "updatedAt"}) {
    CAPTURE(k);
    CHECK(At(list, k).IsNull());
  }
  CHECK(At(detail, "customerPhone").IsNull());
  CHECK(At(detail, "memberName").IsNull());
  CHECK(At(detail, "teamId").IsNull());
  REQUIRE(At(detail, "unreadCount").IsInt());
  CHECK(At(detail, "unreadCount").GetInt() == 0);
  CHECK(Str(At(list, "customerType")) == "anonymous");
  CHECK(Str(At(list, "status")) == "open");
  CHECK(Str(At(list, "hidePreChatMessage")) == "");
  CHECK(At(list, "channels").IsArray());
  CHECK(At(list, "tags").IsArray());
  CHECK(At(list, "isCustomerRead").IsTrue());
  CHECK(At(list, "isChatBot").IsFalse());
}

TEST_CASE("Conversation values: pgConvoId as numeric text, lastMessage object, ISO timestamps") {
  Conversation c;
  c.id = "c-1";
  c.firestoreId = "fs123";
  c.pgConvoId = 42;
  c.shopId = "shop_1";
  c.customerEmail = "x@example.com";
  c.memberId = "mem_1";
  c.channels = {"online_store", "email"};
  c.tags = {"vip", "a\"b"};
  c.messageCount = 3;
  c.lastMessage = LastMessage{"hi", "agent", kT0 + 1};
  c.lastActive = kT0 + 1;
  c.createdAt = kT0;
  c.updatedAt = kT0 + 86'400'000 + 3'723'004;
  c.isChatBot = true;
  auto j = ParseJson(ToJson(c, JsonView::kDetail));
  CHECK(Str(At(j, "pgConvoId")) == "42");
  CHECK(Str(At(j, "firestoreId")) == "fs123");
  CHECK(StrList(At(j, "channels")) == std::vector<std::string>{"online_store", "email"});
  CHECK(StrList(At(j, "tags")) == std::vector<std::string>{"vip", "a\"b"});
  REQUIRE(At(j, "messageCount").IsInt64());
  CHECK(At(j, "messageCount").GetInt64() == 3);
  const auto& last = At(j, "lastMessage");
  CHECK(KeySet(last) == std::set<std::string>{"text", "senderType", "createdAt"});
  CHECK(Str(At(last, "text")) == "hi");
  CHECK(Str(At(last, "senderType")) == "agent");
  CHECK(Str(At(last, "createdAt")) == "2026-01-01T00:00:00.001Z");
  CHECK(Str(At(j, "createdAt")) == "2026-01-01T00:00:00.000Z");
  CHECK(Str(At(j, "updatedAt")) == "2026-01-02T01:02:03.004Z");
  CHECK(At(j, "isChatBot").IsTrue());
  // The internal fields never leave the process.
  std::string text = ToJson(c, JsonView::kDetail);
  CHECK(text.find("lastCustomerMessageAt") == std::string::npos);
  CHECK(text.find("inNewDatastore") == std::string::npos);
  CHECK(text.find("\"channel\"") == std::string::npos);
}

TEST_CASE("Message: 19 keys in lists (the 18 list fields + senderType), 21 in detail; nested shapes emitted verbatim") {
  Message m;
  m.id = "m-uuid";
  m.seq = 9;
  m.text = "hello";
  m.senderName = "Ada";
  m.createdAt = kT0;
  auto list = ParseJson(ToJson(m, JsonView::kList));
  auto detail = ParseJson(ToJson(m, JsonView::kDetail));
  CHECK(KeySet(list) == Keys(kMessageListKeys));
  CHECK(KeySet(list).size() == 19);
  CHECK(KeySet(detail) == Keys(kMessageListKeys, {"isDeleted", "contentType"}));
  CHECK(KeySet(detail).size() == 21);
  CHECK(At(detail, "isDeleted").IsFalse());
  CHECK(Str(At(detail, "contentType")) == "text");
  CHECK(At(list, "memberId").IsNull());
  CHECK(At(list, "topic").IsNull());
  CHECK(At(list, "replyMessage").IsNull());
  CHECK(At(list, "files").IsArray());
  CHECK(At(list, "files").Size() == 0);
  CHECK(Str(At(list, "createdAt")) == "2026-01-01T00:00:00.000Z");

  m.chatbotProductsJson = R"([{"id":"p1","title":"Parka","price":12.5}])";
  m.chatbotFaqsJson = R"([{"q":"Ship?","a":"Yes"}])";
  m.filesJson = R"([{"url":"https://x/y.png","name":"y.png"}])";
  m.replyMessageJson = R"({"id":"m-0","text":"earlier"})";
  m.isDeleted = true;
  m.contentType = "file";
  m.topic = "shipping";
  std::string text = ToJson(m, JsonView::kDetail);
  CHECK(text.find(R"("chatbotProducts":[{"id":"p1","title":"Parka","price":12.5}])") != std::string::npos);
  CHECK(text.find(R"("chatbotFaqs":[{"q":"Ship?","a":"Yes"}])") != std::string::npos);
  CHECK(text.find(R"("files":[{"url":"https://x/y.png","name":"y.png"}])") != std::string::npos);
  CHECK(text.find(R"("replyMessage":{"id":"m-0","text":"earlier"})") != std::string::npos);
  auto j = ParseJson(text);
  CHECK(At(j, "isDeleted").IsTrue());
  CHECK(Str(At(j, "contentType")) == "file");
  CHECK(Str(At(j, "topic")) == "shipping");
  // Internal routing fields are not part of the record.
  CHECK(text.find("\"seq\"") == std::string::npos);
  CHECK(text.find("conversationId") == std::string::npos);
  CHECK(text.find("shopId") == std::string::npos);
}

TEST_CASE("Message id falls back to the numeric id when there is no UUID") {
  Message m;
  m.seq = 1234;
  auto j = ParseJson(ToJson(m, JsonView::kList));
  CHECK(Str(At(j, "id")) == "1234");
}

TEST_CASE("Customer: the 30 documented keys and isRedacted, never the channel identity") {
  Customer c;
  c.id = "cu-1";
  c.channelRecipient = "psid-secret";
  c.createdAt = kT0;
  std::string text = ToJson(c);
  auto j = ParseJson(text);
  CHECK(KeySet(j) == Keys(kCustomerKeys));
  CHECK(KeySet(j).size() == 31);
  CHECK(text.find("psid-secret") == std::string::npos);
  CHECK(text.find("channelRecipient") == std::string::npos);
  CHECK(text.find("shopId") == std::string::npos);
  CHECK(At(j, "totalSpent").IsNull());
  CHECK(At(j, "ordersCount").IsNull());
  CHECK(At(j, "lastChatAt").IsNull());
  CHECK(Str(At(j, "createdAt")) == "2026-01-01T00:00:00.000Z");
  CHECK(Str(At(j, "type")) == "anonymous");
  CHECK(At(j, "customAttributes").IsObject());

  c.totalSpent = 0.1;
  c.ordersCount = 7;
  c.senderSeq = 3;
  c.customAttributes = {{"plan", "gold"}, {"quote\"d", "v\n"}};
  c.channels = {"whatsapp"};
  text = ToJson(c);
  CHECK(text.find("\"totalSpent\":0.1,") != std::string::npos);  // shortest round-trip form
  j = ParseJson(text);
  CHECK(At(j, "totalSpent").GetDouble() == 0.1);
  CHECK(At(j, "ordersCount").GetInt64() == 7);
  CHECK(At(j, "senderSeq").GetInt64() == 3);
  CHECK(Str(At(At(j, "customAttributes"), "plan")) == "gold");
  CHECK(Str(At(At(j, "customAttributes"), "quote\"d")) == "v\n");
  c.totalSpent = 1234.5;
  CHECK(ToJson(c).find("\"totalSpent\":1234.5,") != std::string::npos);
  c.totalSpent = 100;
  CHECK(ToJson(c).find("\"totalSpent\":100,") != std::string::npos);
  c.totalSpent = 1e21;
  CHECK(ParseJson(ToJson(c))["totalSpent"].GetDouble() == 1e21);
}

TEST_CASE("Member: exactly 10 keys, fullName computed, never the password hash") {
  Member m;
  m.id = "mem_1";
  m.email = "ada@example.com";
  m.firstName = "Ada";
  m.lastName = "Lovelace";
  m.avatarUrl = "https://a/b.png";
  m.passwordHash = "$argon2id$secret-hash";
  m.createdAt = kT0;
  std::string text = ToJson(m);
  auto j = ParseJson(text);
  CHECK(KeySet(j) == Keys(kMemberKeys));
  CHECK(Str(At(j, "fullName")) == "Ada Lovelace");
  CHECK(Str(At(j, "role")) == "member");
  CHECK(At(j, "active").IsTrue());
  CHECK(At(j, "enableAwayMode").IsNull());
  CHECK(text.find("argon2id") == std::string::npos);
  CHECK(text.find("password") == std::string::npos);

  Member bare;
  bare.email = "x@example.com";
  bare.enableAwayMode = false;
  auto b = ParseJson(ToJson(bare));
  CHECK(Str(At(b, "fullName")) == "x@example.com");
  CHECK(At(b, "firstName").IsNull());
  CHECK(At(b, "enableAwayMode").IsFalse());
}

TEST_CASE("Note and Attribute: five keys each") {
  Note n{"n1", "shop", "conv", "call back", true, kT0, kT0 + 1000};
  auto nj = ParseJson(ToJson(n));
  CHECK(KeySet(nj) == Keys(kNoteKeys));
  CHECK(At(nj, "isUpdated").IsTrue());
  CHECK(Str(At(nj, "updatedAt")) == "2026-01-01T00:00:01.000Z");
  Attribute a{"a1", "shop", "conv", "orderNumber", "1042", kT0, kT0};
  auto aj = ParseJson(ToJson(a));
  CHECK(KeySet(aj) == Keys(kAttributeKeys));
  CHECK(Str(At(aj, "value")) == "1042");
}

TEST_CASE("The records whose shape the spec leaves open") {
  auto page = ParseJson(ToJson(BrowsedPage{"https://s/p", std::nullopt, kT0}));
  CHECK(KeySet(page) == std::set<std::string>{"url", "title", "viewedAt"});
  CHECK(At(page, "title").IsNull());

  auto summary = ParseJson(ToJson(Summary{"c1", "Asked about shipping.", "extractive", kT0}));
  CHECK(KeySet(summary) == std::set<std::string>{"conversationId", "text", "summarizer", "generatedAt"});

  auto tag = ParseJson(ToJson(TagCount{"vip", 3}));
  CHECK(KeySet(tag) == std::set<std::string>{"name", "conversationCount"});
  CHECK(At(tag, "conversationCount").GetInt64() == 3);

  auto typing = ParseJson(ToJson(TypingState{"c1", "mem_1", true, kT0}));
  CHECK(KeySet(typing) == std::set<std::string>{"conversationId", "memberId", "active", "updatedAt"});

  Shop s{"shop_1", "app_1", "Store", Plan::kPlus, true, true, kT0};
  auto shop = ParseJson(ToJson(s));
  CHECK(KeySet(shop) == std::set<std::string>{"id", "appId", "name", "plan", "autoAssign", "installed", "createdAt"});
  CHECK(Str(At(shop, "plan")) == "plus");

  Event e{"ev-1", "shop_1", "conversation.tags_updated", std::nullopt, kT0, R"({"tags":["a"]})"};
  std::string text = EventEnvelopeJson(e);
  auto env = ParseJson(text);
  CHECK(KeySet(env) == std::set<std::string>{"eventId", "type", "shopId", "conversationId", "occurredAt", "data"});
  CHECK(At(env, "conversationId").IsNull());
  CHECK(text.find(R"("data":{"tags":["a"]})") != std::string::npos);
}

TEST_CASE("ApiKey public view: slugs, legacy flag, never the hash") {
  ApiKey k;
  k.id = "key_1";
  k.name = "CRM";
  k.keyHash = "deadbeefhash";
  k.prefix = "sk_abcd";
  k.permissions = kPermReadConversations | kPermReadCustomers;
  k.createdAt = kT0;
  k.activeFrom = kT0;
  std::string text = ToJson(k);
  auto j = ParseJson(text);
  CHECK(KeySet(j) ==
        std::set<std::string>{"id", "name", "prefix", "permissions", "legacy", "createdAt", "activeFrom", "revokedAt"});
  CHECK(StrList(At(j, "permissions")) == std::vector<std::string>{"read_conversations", "read_customers"});
  CHECK(At(j, "legacy").IsFalse());
  CHECK(At(j, "revokedAt").IsNull());
  CHECK(text.find("deadbeefhash") == std::string::npos);

  k.legacy = true;
  k.revokedAt = kT0 + 5;
  auto legacy = ParseJson(ToJson(k));
  CHECK(At(legacy, "legacy").IsTrue());
  CHECK(At(legacy, "permissions").Size() == 0);
  CHECK(Str(At(legacy, "revokedAt")) == "2026-01-01T00:00:00.005Z");
}

}  // namespace
}  // namespace livechat
