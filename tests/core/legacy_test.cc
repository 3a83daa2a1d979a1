// Conversations from the older chat system: import, reads by firestoreId,
// rule 5 (not listed until migrated), migration into the newer datastore.
#include <doctest/doctest.h>

#include <string>

#include "core/legacy_format.h"
#include "core_fixture.h"
#include "livechat/clock.h"

namespace livechat::test {
namespace {

constexpr const char* kExport = R"J({"conversations": [
  {"id": "0Kd7a9x2mQpL4vT8sRzB", "createdAt": "2024-05-02T09:15:00Z", "status": "resolved",
   "customer": {"name": "Ada Lovelace", "email": "ada@example.com"}, "tags": ["returns", "vip", "returns"],
   "messages": [
     {"senderType": "customer", "text": "Can I return the scarf?", "createdAt": "2024-05-02T09:15:00Z"},
     {"senderType": "agent", "senderName": "Sam", "isNote": true, "text": "label sent", "createdAt": "2024-05-02T09:18:00Z"},
     {"senderType": "agent", "senderName": "Sam", "text": "Label emailed.", "createdAt": "2024-05-02T09:17:30Z"}]},
  {"id": "9fQe1Lw0cXbN3sUa7YhK", "status": "open", "channel": "email",
   "customer": {"name": "Grace Hopper", "email": "GRACE@example.com"},
   "messages": [
     {"senderType": "customer", "text": "Where is order 1042?", "createdAt": "2024-06-11T14:00:00+02:00"},
     {"senderType": "bot", "text": "It shipped.", "createdAt": "2024-06-11T14:00:04+02:00"}]}
]})J";

std::string Export(const std::string& conversationJson) {
  return std::string(R"J({"conversations": [)J") + conversationJson + "]}";
}

std::string ErrorOf(CoreFixture& f, const std::string& json) {
  auto r = f.service->legacy().ImportLegacy(f.sys, json);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInvalidParams);
  return r.error().message;
}

}  // namespace

TEST_CASE("ParseIso8601: the forms an export uses, and refusals") {
  CHECK(ParseIso8601("2024-05-02T09:15:00Z") == 1714641300000);
  CHECK(ParseIso8601("2024-05-02T09:15:00.250Z") == 1714641300250);
  CHECK(ParseIso8601("2024-05-02T09:15:00.2509Z") == 1714641300250);
  CHECK(ParseIso8601("2024-05-02T11:15:00+02:00") == 1714641300000);
  CHECK(ParseIso8601("2024-02-29T00:00:00Z") == 1709164800000);
  CHECK(ParseIso8601(FormatIso8601(1767225600123)) == 1767225600123);
  CHECK_FALSE(ParseIso8601("2023-02-29T00:00:00Z"));
  CHECK_FALSE(ParseIso8601("2024-05-02 09:15:00Z"));
  CHECK_FALSE(ParseIso8601("2024-05-02T09:15:00"));
  CHECK_FALSE(ParseIso8601("2024-13-02T09:15:00Z"));
  CHECK_FALSE(ParseIso8601("2024-05-02T24:00:00Z"));
  CHECK_FALSE(ParseIso8601("2024-05-02T09:15:00.Z"));
  CHECK_FALSE(ParseIso8601("1969-12-31T23:59:59Z"));
}

TEST_CASE("legacy import: reachable by firestoreId with their messages, source firestore, not listed") {
  CoreFixture f;
  Conversation live = f.Inbound("online_store", "a new conversation", std::string("grace@example.com"));
  auto imported = f.service->legacy().ImportLegacy(f.sys, kExport);
  REQUIRE(imported.ok());
  CHECK(imported->imported == 2);
  CHECK(imported->skipped == 0);
  CHECK(imported->messages == 5);
  CHECK(imported->contactsCreated == 1);  // grace@ is the live conversation's contact (case-insensitive)

  Principal p = f.Auth(f.key);
  auto read = f.service->conversations().GetConversation(p, "0Kd7a9x2mQpL4vT8sRzB");
  REQUIRE(read.ok());
  const Conversation& c = read->conversation;
  CHECK(read->source == "firestore");
  CHECK(c.firestoreId == std::optional<std::string>("0Kd7a9x2mQpL4vT8sRzB"));
  CHECK_FALSE(c.pgConvoId.has_value());
  CHECK(c.status == "resolved");
  CHECK(c.channel == "online_store");
  CHECK(c.customerName == std::optional<std::string>("Ada Lovelace"));
  CHECK(c.tags == std::vector<std::string>{"returns", "vip"});
  CHECK(c.messageCount == 3);
  CHECK(c.createdAt == 1714641300000);
  CHECK(c.lastActive == 1714641480000);  // the note, sorted last, is activity too
  REQUIRE(c.lastMessage.has_value());
  CHECK(c.lastMessage->text == "Label emailed.");  // notes are never the preview
  // The app-wide id reads the same record.
  auto byId = f.service->conversations().GetConversation(p, c.id);
  REQUIRE(byId.ok());
  CHECK(byId->conversation.firestoreId == c.firestoreId);

  auto messages = f.service->conversations().ListMessages(p, "0Kd7a9x2mQpL4vT8sRzB", {}, std::nullopt);
  REQUIRE(messages.ok());
  REQUIRE(messages->items.size() == 3);
  CHECK(messages->items[0].text == "Can I return the scarf?");
  CHECK(messages->items[0].isFirst);
  CHECK(messages->items[0].senderType == "customer");
  CHECK(messages->items[0].senderName == "Ada Lovelace");
  CHECK(messages->items[1].text == "Label emailed.");
  CHECK(messages->items[1].isAdmin);
  CHECK(messages->items[2].isNote);
  auto one = f.service->conversations().GetMessage(p, "0Kd7a9x2mQpL4vT8sRzB", messages->items[1].id);
  REQUIRE(one.ok());
  CHECK(one->createdAt == 1714641450000);

  auto bot = f.service->conversations().ListMessages(p, "9fQe1Lw0cXbN3sUa7YhK", {}, std::nullopt);
  REQUIRE(bot.ok());
  REQUIRE(bot->items.size() == 2);
  CHECK(bot->items[1].isBot);
  CHECK(bot->items[1].senderName == "AI assistant");
  CHECK(bot->items[0].createdAt == 1718107200000);  // +02:00 read as UTC

  // Rule 5: the list covers the newer datastore only.
  auto list = f.service->conversations().ListConversations(p, {}, {});
  REQUIRE(list.ok());
  REQUIRE(list->items.size() == 1);
  CHECK(list->items[0].id == live.id);
  // The customer's conversation list follows the same rule.
  auto mine = f.service->directory().ListCustomerConversations(p, *live.customerUuid, {});
  REQUIRE(mine.ok());
  CHECK(mine->items.size() == 1);
  // No webhook events for history.
  auto events = f.service->feed().ListEvents(f.sys, 100);
  REQUIRE(events.ok());
  for (const Event& e : *events) CHECK(e.conversationId != c.id);
}

TEST_CASE("legacy import: loading the same file again skips what is there") {
  CoreFixture f;
  REQUIRE(f.service->legacy().ImportLegacy(f.sys, kExport).ok());
  auto again = f.service->legacy().ImportLegacy(f.sys, kExport);
  REQUIRE(again.ok());
  CHECK(again->imported == 0);
  CHECK(again->skipped == 2);
  CHECK(again->messages == 0);
  CHECK(again->contactsCreated == 0);
  auto legacy = f.service->legacy().MigrateLegacy(f.sys, 1);
  REQUIRE(legacy.ok());
  CHECK(legacy->remaining == 1);  // two imported once, not four
}

TEST_CASE("legacy import: one bad record refuses the whole file, naming it") {
  CoreFixture f;
  const std::string good = R"J({"id": "okRecord1", "createdAt": "2024-01-01T00:00:00Z"})J";
  CHECK(ErrorOf(f, Export(good + R"J(, {"id": "12345", "createdAt": "2024-01-01T00:00:00Z"})J")) ==
        "conversations[1].id: must not be digits only (it would be read as a pgConvoId)");
  CHECK(ErrorOf(f, Export(R"J({"id": "a/b", "createdAt": "2024-01-01T00:00:00Z"})J")) ==
        "conversations[0].id: may contain only letters, digits, '_' and '-'");
  CHECK(ErrorOf(f, Export(good + "," + good)) == "conversations[1].id: \"okRecord1\" appears twice in the file");
  CHECK(ErrorOf(f, Export(R"J({"id": "x1", "messages": [{"senderType": "customer", "text": "hi",
      "createdAt": "yesterday"}]})J")) ==
        "conversations[0].messages[0].createdAt: must be an ISO 8601 time like \"2024-05-02T09:15:00Z\"");
  CHECK(ErrorOf(f, Export(R"J({"id": "x1", "messages": [{"senderType": "robot", "text": "hi",
      "createdAt": "2024-01-01T00:00:00Z"}]})J")) ==
        "conversations[0].messages[0].senderType: must be one of customer, agent, bot, system");
  CHECK(ErrorOf(f, Export(R"J({"id": "x1"})J")) ==
        "conversations[0].createdAt: is required when the conversation has no messages");
  CHECK(ErrorOf(f, Export(R"J({"id": "x1", "createdAt": "2024-01-01T00:00:00Z", "status": "closed"})J")) ==
        "conversations[0].status: must be one of open, resolved");
  CHECK(ErrorOf(f, Export(R"J({"id": "x1", "createdAt": "2024-01-01T00:00:00Z", "customer": {"email": "nope"}})J")) ==
        "conversations[0].customer.email: must be an email address");
  CHECK(ErrorOf(f, R"J({"conversations": {}})J") == "conversations: is required and must be an array");
  CHECK(ErrorOf(f, "{\"conversations\": [] } trailing").rfind("not valid JSON at byte", 0) == 0);
  // Nothing of the refused files was written.
  auto left = f.service->legacy().MigrateLegacy(f.sys, std::nullopt);
  REQUIRE(left.ok());
  CHECK(left->migrated == 0);
  CHECK(left->remaining == 0);
  // Operator only.
  auto byKey = f.service->legacy().ImportLegacy(f.Auth(f.key), Export(good));
  REQUIRE_FALSE(byKey.ok());
  CHECK(byKey.error().code == ErrorCode::kForbidden);
}

TEST_CASE("legacy import: message text at 5000 characters is taken, 5001 refused") {
  CoreFixture f;
  auto withText = [](const std::string& text) {
    return Export(R"J({"id": "long1", "messages": [{"senderType": "customer", "createdAt": "2024-01-01T00:00:00Z",
        "text": ")J" + text + "\"}]}");
  };
  CHECK(ErrorOf(f, withText(std::string(5001, 'a'))) ==
        "conversations[0].messages[0].text: must be at most 5000 characters");
  auto ok = f.service->legacy().ImportLegacy(f.sys, withText(std::string(5000, 'a')));
  REQUIRE(ok.ok());
  CHECK(ok->messages == 1);
}

TEST_CASE("legacy export limits: conversations and messages per conversation at N and N+1") {
  internal::LegacyLimits limits;
  limits.maxConversations = 2;
  limits.maxMessagesPerConversation = 2;
  auto numbered = [&](int i) { return std::string(R"J({"id": "c)J") + std::to_string(i) + R"J(", "createdAt": "2024-01-01T00:00:00Z"})J"; };
  CHECK(internal::ParseLegacyExport(Export(numbered(1) + "," + numbered(2)), limits).ok());
  auto three = internal::ParseLegacyExport(Export(numbered(1) + "," + numbered(2) + "," + numbered(3)), limits);
  REQUIRE_FALSE(three.ok());
  CHECK(three.error().message == "conversations: must have at most 2 conversations: split the export");
  const std::string msg = R"J({"senderType": "customer", "text": "hi", "createdAt": "2024-01-01T00:00:00Z"})J";
  CHECK(internal::ParseLegacyExport(Export(R"J({"id": "m1", "messages": [)J" + msg + "," + msg + "]}"), limits).ok());
  auto over = internal::ParseLegacyExport(Export(R"J({"id": "m1", "messages": [)J" + msg + "," + msg + "," + msg + "]}"),
                                          limits);
  REQUIRE_FALSE(over.ok());
  CHECK(over.error().message == "conversations[0].messages: must have at most 2 messages");
  limits.maxBytes = 10;
  auto big = internal::ParseLegacyExport("{\"conversations\":[]}", limits);
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().message == "the file is 20 bytes; the limit is 10 bytes: split the export");
}

TEST_CASE("migrate: legacy conversations move to the newer datastore, get a pgConvoId and are listed") {
  CoreFixture f;
  f.Inbound("online_store", "live one");
  REQUIRE(f.service->legacy().ImportLegacy(f.sys, kExport).ok());
  Principal p = f.Auth(f.key);

  auto first = f.service->legacy().MigrateLegacy(f.sys, 1);
  REQUIRE(first.ok());
  CHECK(first->migrated == 1);
  CHECK(first->remaining == 1);
  auto moved = f.service->conversations().GetConversation(p, "0Kd7a9x2mQpL4vT8sRzB");  // imported first, migrated first
  REQUIRE(moved.ok());
  CHECK(moved->source == "postgresql");
  REQUIRE(moved->conversation.pgConvoId.has_value());
  CHECK(moved->conversation.firestoreId == std::optional<std::string>("0Kd7a9x2mQpL4vT8sRzB"));
  // Every id form reaches it now, the numeric one included.
  auto byPg = f.service->conversations().GetConversation(p, std::to_string(*moved->conversation.pgConvoId));
  REQUIRE(byPg.ok());
  CHECK(byPg->conversation.id == moved->conversation.id);
  auto list = f.service->conversations().ListConversations(p, {}, {});
  REQUIRE(list.ok());
  CHECK(list->items.size() == 2);

  auto rest = f.service->legacy().MigrateLegacy(f.sys, std::nullopt, 1);  // batches of one
  REQUIRE(rest.ok());
  CHECK(rest->migrated == 1);
  CHECK(rest->remaining == 0);
  list = f.service->conversations().ListConversations(p, {}, {});
  REQUIRE(list.ok());
  REQUIRE(list->items.size() == 3);
  // Newest activity first: the live one (2026), the email one (2024-06), the return (2024-05).
  CHECK(list->items[1].firestoreId == std::optional<std::string>("9fQe1Lw0cXbN3sUa7YhK"));
  CHECK(list->items[2].firestoreId == std::optional<std::string>("0Kd7a9x2mQpL4vT8sRzB"));
  auto messages = f.service->conversations().ListMessages(p, *list->items[2].firestoreId, {}, std::nullopt);
  REQUIRE(messages.ok());
  CHECK(messages->items.size() == 3);

  auto nothing = f.service->legacy().MigrateLegacy(f.sys, std::nullopt);
  REQUIRE(nothing.ok());
  CHECK(nothing->migrated == 0);
  CHECK(nothing->remaining == 0);
  // New conversations are in the newer datastore from the start.
  Conversation fresh = f.Inbound("online_store", "after the migration");
  CHECK(fresh.pgConvoId.has_value());
  auto freshRead = f.service->conversations().GetConversation(p, fresh.id);
  REQUIRE(freshRead.ok());
  CHECK(freshRead->source == "postgresql");

  auto bad = f.service->legacy().MigrateLegacy(f.sys, 0);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().code == ErrorCode::kInvalidParams);
}

TEST_CASE("legacy records are per store: another store's firestoreId is not found") {
  CoreFixture f;
  REQUIRE(f.service->legacy().ImportLegacy(f.sys, kExport).ok());
  auto other = f.service->directory().CreateShop({"Other", Plan::kPro, false});
  REQUIRE(other.ok());
  auto key = f.service->directory().CreateApiKey(Principal::System(other->id), {"k", kPermReadConversations, false});
  REQUIRE(key.ok());
  auto read = f.service->conversations().GetConversation(f.Auth(key->secret), "0Kd7a9x2mQpL4vT8sRzB");
  REQUIRE_FALSE(read.ok());
  CHECK(read.error().code == ErrorCode::kNotFound);
  auto migrated = f.service->legacy().MigrateLegacy(Principal::System(other->id), std::nullopt);
  REQUIRE(migrated.ok());
  CHECK(migrated->migrated == 0);
  // The same export may be loaded into the other store too.
  auto again = f.service->legacy().ImportLegacy(Principal::System(other->id), kExport);
  REQUIRE(again.ok());
  CHECK(again->imported == 2);
}

}  // namespace livechat::test

namespace livechat::test {

TEST_CASE("legacy import: id length, tags per conversation and tag length at N and N+1") {
  CoreFixture f;
  auto withId = [](const std::string& id) {
    return std::string(R"J({"conversations": [{"id": ")J") + id + R"J(", "createdAt": "2024-01-01T00:00:00Z"}]})J";
  };
  CHECK(ErrorOf(f, withId(std::string(129, 'a'))) == "conversations[0].id: must be 1 to 128 characters");
  CHECK(f.service->legacy().ImportLegacy(f.sys, withId(std::string(128, 'a')))->imported == 1);

  auto withTags = [](int count, std::size_t length) {
    std::string tags;
    for (int i = 0; i < count; ++i) {
      std::string tag = std::to_string(i);
      tag += std::string(length - tag.size(), 't');
      tags += (i ? ",\"" : "\"") + tag + "\"";
    }
    return std::string(R"J({"conversations": [{"id": "tags)J") + std::to_string(count) + "x" + std::to_string(length) +
           R"J(", "createdAt": "2024-01-01T00:00:00Z", "tags": [)J" + tags + "]}]}";
  };
  CHECK(ErrorOf(f, withTags(101, 5)) == "conversations[0].tags: must have at most 100 tags");
  CHECK(f.service->legacy().ImportLegacy(f.sys, withTags(100, 5))->imported == 1);
  CHECK(ErrorOf(f, withTags(1, 101)) == "conversations[0].tags[0]: must be 1 to 100 characters");
  CHECK(f.service->legacy().ImportLegacy(f.sys, withTags(1, 100))->imported == 1);
  auto read = f.service->conversations().GetConversation(f.sys, "tags100x5");
  REQUIRE(read.ok());
  CHECK(read->conversation.tags.size() == 100);
}

}  // namespace livechat::test
