// Spec rules 7-9 through ChatService: platform requests (uninstall, customer
// redact, data request, shop redact) with their audit trail, channel
// integrations, and the admin inbox's contact delete.
#include <doctest/doctest.h>

#include "livechat/shopping.h"
#include "core_fixture.h"
#include "livechat/json_codec.h"

namespace livechat {

using test::CoreFixture;

namespace {

template <typename T>
T Must(Result<T> r) {
  REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
  return std::move(r).value();
}
void Must(Status s) { REQUIRE_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message)); }

PlatformRequestInput Request(const char* topic, std::string digest) {
  PlatformRequestInput in;
  in.topic = topic;
  in.bodyDigest = std::move(digest);
  return in;
}

PlatformRequestInput Redact(std::optional<std::string> id, std::optional<std::string> email,
                            std::vector<std::string> orders, std::string digest) {
  PlatformRequestInput in = Request(platform_topic::kCustomersRedact, std::move(digest));
  in.customerId = std::move(id);
  in.customerEmail = std::move(email);
  in.orders = std::move(orders);
  return in;
}

constexpr const char* kOrders = R"({"orders":[
  {"id":"ord_1","orderNumber":"#1001","email":"casey@example.com","customerName":"Casey Customer"},
  {"id":"ord_2","orderNumber":"#1002","email":"casey@example.com"},
  {"id":"ord_3","orderNumber":"#1003","email":"other@example.com"}]})";

// A contact with every personal field set, two conversations (one legacy,
// never listed), a browsed page, a note, an attribute and an agent reply.
struct Casey {
  Customer customer;
  Conversation first, legacy;
};

Casey MakeCasey(CoreFixture& f) {
  Casey c;
  c.first = f.Inbound("online_store", "Where is my order #1001?", "casey@example.com");
  InboundMessageInput old;
  old.customerEmail = "casey@example.com";
  old.text = "An older question";
  old.legacy = true;
  c.legacy = Must(f.service->conversations().ReceiveInbound(f.sys, old));
  Must(f.service->conversations().RecordBrowsedPage(f.sys, c.first.id, {"https://shop.test/p/1", "Parka", f.clock.NowMillis()}));
  Must(f.service->annotations().CreateNote(f.sys, c.first.id, std::string("VIP, be nice")));
  Must(f.service->annotations().UpsertAttribute(f.sys, c.first.id, std::string("orderNumber"), std::string("1001")));
  SendMessageInput reply;
  reply.memberId = f.agent.id;
  reply.text = "It ships tomorrow.";
  Must(f.service->conversations().SendMessage(f.sys, c.first.id, reply));
  Must(f.store->Write([&](StoreWriter& w) -> Status {
    auto cu = w.GetCustomer(f.shop.id, *c.first.customerUuid);
    if (!cu.ok()) return cu.take_error();
    Customer x = **cu;
    x.shopifyId = "7001";
    x.phone = "+15550100";
    x.address1 = "1 Main St";
    x.city = "Springfield";
    x.ipAddress = "198.51.100.4";
    x.browser = "Firefox";
    x.note = "likes parkas";
    x.customAttributes = {{"size", "M"}};
    x.tags = {"vip"};
    auto ok = w.UpdateCustomer(x);
    return ok.ok() ? Status::Ok() : ok.take_error();
  }));
  c.customer = Must(f.service->directory().GetCustomer(f.sys, *c.first.customerUuid));
  Must(f.service->knowledge().ImportCatalog(f.sys, kOrders));
  return c;
}

// A data request naming the customer by email or phone.
void RecordDataRequest(CoreFixture& f, const std::string& id, std::optional<std::string> email,
                       std::optional<std::string> phone = std::nullopt) {
  PlatformRequestInput dr = Request(platform_topic::kCustomersDataRequest, "dr");
  dr.customerEmail = std::move(email);
  dr.customerPhone = std::move(phone);
  dr.dataRequestId = id;
  Must(f.service->privacy().ApplyPlatformRequest(f.sys, dr));
}

std::vector<Message> AllMessages(CoreFixture& f, const std::string& conversationId) {
  return Must(f.service->conversations().ListMessages(f.sys, conversationId, {100, std::nullopt}, std::nullopt)).items;
}

}  // namespace

TEST_CASE("customer redact: personal fields cleared, conversations labelled with history kept, orders deleted") {
  CoreFixture f;
  Casey casey = MakeCasey(f);
  Conversation bystander = f.Inbound("email", "Unrelated", "someone@example.com");
  f.clock.Advance(60'000);

  auto rec = Must(f.service->privacy().ApplyPlatformRequest(f.sys, Redact("7001", std::nullopt, {"ord_1", "#1002", "9999"}, "d1")));
  CHECK(rec.outcome == "applied");
  CHECK(rec.topic == "customers_redact");
  CHECK(rec.changesJson ==
        R"({"contacts":1,"conversations":2,"messages":2,"browsedPages":1,"visitorSessions":0,"webhookEvents":1,"orders":2})");

  Customer after = Must(f.service->directory().GetCustomer(f.sys, casey.customer.id));
  CHECK(after.redactedAt == f.clock.NowMillis());
  for (const auto* field : {&after.shopifyId, &after.name, &after.firstName, &after.lastName, &after.email,
                            &after.phone, &after.note, &after.address1, &after.city, &after.ipAddress, &after.browser})
    CHECK_FALSE(field->has_value());
  CHECK(after.customAttributes.empty());
  CHECK(after.tags.empty());
  CHECK(after.createdAt == casey.customer.createdAt);
  CHECK(after.channels == casey.customer.channels);
  const std::string json = ToJson(after);
  CHECK(json.find("\"isRedacted\":true") != std::string::npos);
  CHECK(json.find("casey") == std::string::npos);

  for (const std::string& id : {casey.first.id, casey.legacy.id}) {
    CAPTURE(id);
    Conversation c = Must(f.service->conversations().GetConversation(f.sys, id)).conversation;
    CHECK(c.redactedAt == f.clock.NowMillis());
    CHECK_FALSE(c.customerName.has_value());
    CHECK_FALSE(c.customerEmail.has_value());
    CHECK(c.customerUuid == casey.customer.id);  // still the (redacted) contact's
  }
  // History kept under the label: every message, the customer's without their name.
  auto msgs = AllMessages(f, casey.first.id);
  REQUIRE(msgs.size() == 2);
  CHECK(msgs[0].text == "Where is my order #1001?");
  CHECK(msgs[0].senderName == "Redacted");
  CHECK(msgs[1].senderName == "Alex Agent");
  CHECK(Must(f.service->annotations().ListNotes(f.sys, casey.first.id)).size() == 1);
  CHECK(Must(f.service->annotations().ListAttributes(f.sys, casey.first.id)).size() == 1);
  CHECK(Must(f.service->conversations().ListBrowsedPages(f.sys, casey.first.id)).empty());
  // Orders named (by id and by number) are gone; the unnamed one stays.
  CHECK(f.service->knowledge().GetCatalogItem(f.sys, "order", "ord_1").error().code == ErrorCode::kNotFound);
  CHECK(f.service->knowledge().GetCatalogItem(f.sys, "order", "ord_2").error().code == ErrorCode::kNotFound);
  CHECK(f.service->knowledge().GetCatalogItem(f.sys, "order", "ord_3").ok());
  // Another contact is untouched.
  Conversation other = Must(f.service->conversations().GetConversation(f.sys, bystander.id)).conversation;
  CHECK(other.customerEmail == "someone@example.com");
  CHECK_FALSE(other.redactedAt.has_value());

  SUBCASE("the same request again changes nothing and is recorded as a replay") {
    f.clock.Advance(1000);
    auto again =
        Must(f.service->privacy().ApplyPlatformRequest(f.sys, Redact("7001", std::nullopt, {"ord_1", "#1002", "9999"}, "d1")));
    CHECK(again.outcome == "replay");
    CHECK(again.changesJson == "{}");
    CHECK(*again.message == "same request as " + rec.id + ": nothing left to change");
    CHECK(Must(f.service->directory().GetCustomer(f.sys, casey.customer.id)).redactedAt == f.clock.NowMillis() - 1000);
    auto audit = Must(f.service->privacy().ListPlatformRequests(f.sys, 10));
    REQUIRE(audit.size() == 2);
    CHECK(audit[0].outcome == "replay");
    CHECK(audit[1].id == rec.id);
  }
  SUBCASE("a different request for the same contact finds nothing left to change") {
    auto byEmail = Must(f.service->privacy().ApplyPlatformRequest(f.sys, Redact(std::nullopt, "casey@example.com", {}, "d2")));
    CHECK(byEmail.outcome == "applied");
    CHECK(byEmail.changesJson ==
          R"({"contacts":0,"conversations":0,"messages":0,"browsedPages":0,"visitorSessions":0,"webhookEvents":0,"orders":0})");
  }
}

TEST_CASE("customer redact by email reaches every contact with that address, and only this store's") {
  CoreFixture f;
  Conversation first = f.Inbound("online_store", "Hello", "twin@example.com");
  Customer twin = Must(f.service->directory().GetCustomer(f.sys, *first.customerUuid));
  twin.id = "cu-twin";
  twin.email = "TWIN@example.com";
  twin.createdAt += 1;
  Must(f.store->Write([&](StoreWriter& w) { return w.InsertCustomer(twin); }));
  auto otherShop = Must(f.service->directory().CreateShop({"Other", Plan::kPro, false}));
  InboundMessageInput in;
  in.customerEmail = "twin@example.com";
  in.text = "Elsewhere";
  Conversation theirs = Must(f.service->conversations().ReceiveInbound(Principal::System(otherShop.id), in));

  auto rec = Must(f.service->privacy().ApplyPlatformRequest(f.sys, Redact(std::nullopt, "twin@example.com", {}, "t1")));
  CHECK(rec.changesJson ==
        R"({"contacts":2,"conversations":1,"messages":1,"browsedPages":0,"visitorSessions":0,"webhookEvents":1,"orders":0})");
  CHECK(Must(f.service->directory().GetCustomer(f.sys, *first.customerUuid)).redactedAt.has_value());
  CHECK(Must(f.service->directory().GetCustomer(f.sys, "cu-twin")).redactedAt.has_value());
  Customer kept = Must(f.service->directory().GetCustomer(Principal::System(otherShop.id), *theirs.customerUuid));
  CHECK_FALSE(kept.redactedAt.has_value());
  CHECK(kept.email == "twin@example.com");
}

TEST_CASE("customer redact removes the contact's loyalty account, whatever the case of either email") {
  CoreFixture f;
  Must(f.service->knowledge().ImportCatalog(f.sys, R"({"loyalty":{"accounts":[
    {"email":"Sam.Shopper@Example.com","points":120},{"email":"other@example.com","points":5}]}})"));
  // The import, the lookup and the redaction name an account by one rule (core/shopping.h).
  const std::string id = LoyaltyAccountId("SAM.shopper@example.COM");
  REQUIRE(f.service->knowledge().GetCatalogItem(f.sys, catalog_kind::kLoyaltyAccount, id).ok());
  f.Inbound("online_store", "Points?", "sam.SHOPPER@example.com");
  auto rec = Must(f.service->privacy().ApplyPlatformRequest(f.sys, Redact(std::nullopt, "sam.shopper@example.com", {}, "l1")));
  CHECK(rec.changesJson.find(R"("loyaltyAccounts":1)") != std::string::npos);
  auto gone =
      f.service->knowledge().GetCatalogItem(f.sys, catalog_kind::kLoyaltyAccount, LoyaltyAccountId("Sam.Shopper@Example.com"));
  REQUIRE_FALSE(gone.ok());
  CHECK(gone.error().code == ErrorCode::kNotFound);
  CHECK(f.service->knowledge().GetCatalogItem(f.sys, catalog_kind::kLoyaltyAccount, "other@example.com").ok());
}

TEST_CASE("customer redact ends the contact's storefront sessions and empties their state") {
  CoreFixture f;
  VisitorStart start = Must(f.service->storefront().StartVisitorSession(f.shop.appId, "198.51.100.7"));
  VisitorIdentity who;
  who.email = "widget@example.com";
  who.name = "Wendy Widget";
  Customer c = Must(f.service->storefront().VisitorIdentify(start.session, who));
  VisitorSession s = Must(f.service->storefront().AuthenticateVisitor(f.shop.appId, start.token));
  Must(f.service->storefront().VisitorSetState(s, "locale", R"("pt-BR")"));
  Must(f.service->storefront().VisitorSendMessage(s, "Hi from the widget"));

  auto rec = Must(f.service->privacy().ApplyPlatformRequest(f.sys, Redact(std::nullopt, "widget@example.com", {}, "w1")));
  CHECK(rec.changesJson ==
        R"({"contacts":1,"conversations":1,"messages":1,"browsedPages":0,"visitorSessions":1,"webhookEvents":1,"orders":0})");
  auto denied = f.service->storefront().AuthenticateVisitor(f.shop.appId, start.token);
  REQUIRE_FALSE(denied.ok());
  CHECK(denied.error().code == ErrorCode::kUnauthenticated);
  std::vector<VisitorSession> sessions;
  Must(f.store->Read([&](StoreReader& r) -> Status {
    auto rows = r.ListVisitorSessionsOfCustomer(f.shop.id, c.id);
    if (!rows.ok()) return rows.take_error();
    sessions = *rows;
    return Status::Ok();
  }));
  REQUIRE(sessions.size() == 1);
  CHECK(sessions[0].stateJson == "{}");
  CHECK(sessions[0].endedAt == f.clock.NowMillis());
}

TEST_CASE("customer redact: bad input changes nothing and records nothing; unknown store is NOT_FOUND") {
  CoreFixture f;
  Casey casey = MakeCasey(f);
  auto none = f.service->privacy().ApplyPlatformRequest(f.sys, Redact(std::nullopt, std::string(""), {}, "d"));
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == ErrorCode::kInvalidParams);
  auto wrongTopic = f.service->privacy().ApplyPlatformRequest(f.sys, Request("shop_update", "d"));
  CHECK(wrongTopic.error().code == ErrorCode::kInvalidParams);
  auto elsewhere = f.service->privacy().ApplyPlatformRequest(Principal::System("shop_nope"), Redact("7001", {}, {}, "d"));
  CHECK(elsewhere.error().code == ErrorCode::kNotFound);
  auto apiKey = f.service->privacy().ApplyPlatformRequest(f.Auth(f.key), Redact("7001", {}, {}, "d"));
  CHECK(apiKey.error().code == ErrorCode::kForbidden);
  CHECK(Must(f.service->privacy().ListPlatformRequests(f.sys, 10)).empty());
  CHECK_FALSE(Must(f.service->directory().GetCustomer(f.sys, casey.customer.id)).redactedAt.has_value());
  CHECK(f.service->privacy().ListPlatformRequests(f.sys, 0).error().code == ErrorCode::kInvalidParams);
  CHECK(f.service->privacy().ListPlatformRequests(f.sys, 1000).ok());
  CHECK(f.service->privacy().ListPlatformRequests(f.sys, 1001).error().code == ErrorCode::kInvalidParams);
}

TEST_CASE("app uninstalled: sessions end, login refused, channels disconnected, API keys keep working") {
  CoreFixture f;
  CreateMemberInput admin{"admin@shop.test", "Ann", "Admin", "admin", std::string("long enough password"), true,
                          std::nullopt};
  Must(f.service->directory().CreateMember(f.sys, admin));
  auto login = Must(f.service->auth().Login("admin@shop.test", "long enough password", std::nullopt, "203.0.113.7"));
  CHECK(f.service->auth().AuthenticateSession(login.token).ok());
  Conversation email = f.Inbound("email", "Hello by email", "mail@example.com");
  Conversation web = f.Inbound("online_store", "Hello on the site");
  SendMessageInput reply;
  reply.memberId = f.agent.id;
  reply.text = "Hi!";
  Must(f.service->conversations().SendMessage(f.sys, email.id, reply));  // connected by default

  PlatformRequestInput in = Request(platform_topic::kAppUninstalled, "u1");
  in.deliveryId = "wh-1";
  auto rec = Must(f.service->privacy().ApplyPlatformRequest(f.sys, in));
  CHECK(rec.outcome == "applied");
  CHECK(rec.deliveryId == "wh-1");
  CHECK(rec.changesJson == R"({"sessions":1,"channelsDisconnected":4,"uninstalled":1})");
  CHECK_FALSE(Must(f.service->directory().GetShop(f.shop.id)).installed);

  CHECK(f.service->auth().AuthenticateSession(login.token).error().code == ErrorCode::kUnauthenticated);
  auto refused = f.service->auth().Login("admin@shop.test", "long enough password", std::nullopt, "203.0.113.7");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::kForbidden);
  CHECK(f.service->auth().AuthenticateApiKey(f.key).ok());  // rule 9: keys are not revoked

  for (const auto& i : Must(f.service->privacy().ListChannelIntegrations(f.sys))) {
    CAPTURE(i.channel);
    CHECK_FALSE(i.connected);
  }
  auto blocked = f.service->conversations().SendMessage(f.sys, email.id, reply);
  REQUIRE_FALSE(blocked.ok());
  CHECK(blocked.error().code == ErrorCode::kChannelUnavailable);
  CHECK(blocked.error().message.find("email integration is disconnected") != std::string::npos);
  const auto before = AllMessages(f, email.id).size();
  SendMessageInput note = reply;
  note.isNote = true;
  CHECK(f.service->conversations().SendMessage(f.sys, email.id, note).ok());  // notes go nowhere: allowed
  CHECK(AllMessages(f, email.id).size() == before + 1);
  CHECK(f.service->conversations().SendMessage(f.sys, web.id, reply).ok());  // the widget is the app itself

  SUBCASE("the same delivery again is a replay; a reinstall and a reconnect bring replies back") {
    PlatformRequestInput again = Request(platform_topic::kAppUninstalled, "other body");
    again.deliveryId = "wh-1";
    CHECK(Must(f.service->privacy().ApplyPlatformRequest(f.sys, again)).outcome == "replay");

    CHECK(Must(f.service->privacy().SetShopInstalled(f.sys, true)).installed);
    CHECK(f.service->auth().Login("admin@shop.test", "long enough password", std::nullopt, "203.0.113.7").ok());
    CHECK(f.service->conversations().SendMessage(f.sys, email.id, reply).error().code == ErrorCode::kChannelUnavailable);
    auto i = Must(f.service->privacy().SetChannelIntegration(f.sys, "email", true));
    CHECK(i.connected);
    CHECK(i.updatedAt == f.clock.NowMillis());
    CHECK(f.service->conversations().SendMessage(f.sys, email.id, reply).ok());
    CHECK(f.service->privacy().SetChannelIntegration(f.sys, "online_store", false).error().code == ErrorCode::kInvalidParams);
  }
}

TEST_CASE("customer data request: assembled into an export at once, idempotent by data request id") {
  CoreFixture f;
  Casey casey = MakeCasey(f);
  PlatformRequestInput in = Request(platform_topic::kCustomersDataRequest, "q1");
  in.customerId = "7001";
  in.customerEmail = "casey@example.com";
  in.orders = {"ord_1", "5555"};
  in.dataRequestId = "dr-9";
  auto rec = Must(f.service->privacy().ApplyPlatformRequest(f.sys, in));
  CHECK(rec.outcome == "applied");
  CHECK(rec.changesJson == R"({"dataRequests":1,"contacts":1})");

  DataRequest d = Must(f.service->privacy().GetDataRequest(f.sys, "dr-9"));
  CHECK(d.contacts == 1);
  CHECK(d.customerJson == R"({"id":"7001","email":"casey@example.com","phone":null})");
  for (const char* piece : {"\"dataRequestId\":\"dr-9\"", "\"email\":\"casey@example.com\"", "\"shopifyId\":\"7001\"",
                            "Where is my order #1001?", "An older question", "It ships tomorrow.", "VIP, be nice",
                            "\"name\":\"orderNumber\"", "https://shop.test/p/1", "\"customAttributes\":{\"size\":\"M\"}",
                            "\"orderNumber\":\"#1001\"", "\"ordersNotHeld\":[\"5555\"]"}) {
    CAPTURE(piece);
    CHECK(d.exportJson.find(piece) != std::string::npos);
  }
  CHECK(d.exportJson.find("#1003") == std::string::npos);  // not requested
  CHECK(Must(f.service->privacy().ListDataRequests(f.sys)).size() == 1);

  in.bodyDigest = "a different body";
  auto again = Must(f.service->privacy().ApplyPlatformRequest(f.sys, in));
  CHECK(again.outcome == "replay");
  CHECK(Must(f.service->privacy().ListDataRequests(f.sys)).size() == 1);
  CHECK(f.service->privacy().GetDataRequest(f.sys, "dr-10").error().code == ErrorCode::kNotFound);
  in.dataRequestId.reset();
  CHECK(f.service->privacy().ApplyPlatformRequest(f.sys, in).error().code == ErrorCode::kInvalidParams);
}

TEST_CASE("shop redact: refused while installed (recorded), then removes members and sessions") {
  CoreFixture f;
  auto refused = Must(f.service->privacy().ApplyPlatformRequest(f.sys, Request(platform_topic::kShopRedact, "s1")));
  CHECK(refused.outcome == "refused");
  CHECK(refused.message->find("still installed") != std::string::npos);
  CHECK(Must(f.service->directory().ListMembers(f.sys)).size() == 1);

  Must(f.service->privacy().ApplyPlatformRequest(f.sys, Request(platform_topic::kAppUninstalled, "u1")));
  // The refused request was not applied, so the same one now is.
  auto applied = Must(f.service->privacy().ApplyPlatformRequest(f.sys, Request(platform_topic::kShopRedact, "s1")));
  CHECK(applied.outcome == "applied");
  CHECK(applied.changesJson == R"({"members":1,"sessions":0,"files":0})");
  CHECK(Must(f.service->directory().ListMembers(f.sys)).empty());
  CHECK(f.service->directory().GetMember(f.sys, f.agent.id).error().code == ErrorCode::kNotFound);
  CHECK(f.service->auth().AuthenticateApiKey(f.key).ok());
  auto audit = Must(f.service->privacy().ListPlatformRequests(f.sys, 10));
  REQUIRE(audit.size() == 3);
  CHECK(audit[0].outcome == "applied");
  CHECK(audit[2].outcome == "refused");
  CHECK(Must(f.service->privacy().ApplyPlatformRequest(f.sys, Request(platform_topic::kShopRedact, "s1"))).outcome ==
        "replay");
}

TEST_CASE("contact delete: admin session or operator only; conversations kept, detached and redacted") {
  CoreFixture f;
  Casey casey = MakeCasey(f);
  auto byKey = f.service->privacy().DeleteCustomer(f.Auth(f.key), casey.customer.id);
  REQUIRE_FALSE(byKey.ok());
  CHECK(byKey.error().code == ErrorCode::kForbidden);
  CHECK(f.service->directory().GetCustomer(f.sys, casey.customer.id).ok());

  Principal admin;
  admin.kind = Principal::Kind::kAdminSession;
  admin.shopId = f.shop.id;
  admin.memberId = f.agent.id;
  Must(f.service->privacy().DeleteCustomer(admin, casey.customer.id));
  CHECK(f.service->directory().GetCustomer(f.sys, casey.customer.id).error().code == ErrorCode::kNotFound);
  Conversation c = Must(f.service->conversations().GetConversation(f.sys, casey.first.id)).conversation;
  CHECK_FALSE(c.customerUuid.has_value());
  CHECK_FALSE(c.customerEmail.has_value());
  CHECK(c.redactedAt.has_value());
  CHECK(AllMessages(f, casey.first.id).size() == 2);
  CHECK(f.service->privacy().DeleteCustomer(admin, casey.customer.id).error().code == ErrorCode::kNotFound);
  Principal otherStore = admin;
  otherStore.shopId = Must(f.service->directory().CreateShop({"Other", Plan::kPro, false})).id;
  Conversation mine = f.Inbound("online_store", "Mine", "mine@example.com");
  CHECK(f.service->privacy().DeleteCustomer(otherStore, *mine.customerUuid).error().code == ErrorCode::kNotFound);
}

}  // namespace livechat

namespace livechat::test {

TEST_CASE("replays: a repeated body is applied again when it still has work (reinstall, a returning customer)") {
  CoreFixture f;
  // The same uninstall body after a reinstall uninstalls again.
  auto first = Must(f.service->privacy().ApplyPlatformRequest(f.sys, Request(platform_topic::kAppUninstalled, "same")));
  CHECK(first.outcome == "applied");
  auto replay = Must(f.service->privacy().ApplyPlatformRequest(f.sys, Request(platform_topic::kAppUninstalled, "same")));
  CHECK(replay.outcome == "replay");
  Must(f.service->privacy().SetShopInstalled(f.sys, true));
  CHECK(Must(f.service->directory().GetShop(f.shop.id)).installed);
  auto again = Must(f.service->privacy().ApplyPlatformRequest(f.sys, Request(platform_topic::kAppUninstalled, "same")));
  CHECK(again.outcome == "applied");
  CHECK_FALSE(Must(f.service->directory().GetShop(f.shop.id)).installed);

  // A customer redacted, who comes back with the same email, is redacted
  // again by the same request body; once done it is a replay.
  f.Inbound("online_store", "hello", std::string("back@example.com"));
  auto redact = Redact(std::nullopt, std::string("back@example.com"), {}, "redact-back");
  CHECK(Must(f.service->privacy().ApplyPlatformRequest(f.sys, redact)).outcome == "applied");
  CHECK(Must(f.service->privacy().ApplyPlatformRequest(f.sys, redact)).outcome == "replay");
  Conversation back = f.Inbound("online_store", "me again", std::string("back@example.com"));
  auto returned = Must(f.service->privacy().ApplyPlatformRequest(f.sys, redact));
  CHECK(returned.outcome == "applied");
  CHECK(returned.changesJson.find(R"("contacts":1)") != std::string::npos);
  CHECK(Must(f.service->directory().GetCustomer(f.sys, *back.customerUuid)).redactedAt.has_value());
}

TEST_CASE("replays: a shop redact repeated after a reinstall is refused, not replayed") {
  CoreFixture f;
  Must(f.service->privacy().ApplyPlatformRequest(f.sys, Request(platform_topic::kAppUninstalled, "u")));
  CHECK(Must(f.service->privacy().ApplyPlatformRequest(f.sys, Request(platform_topic::kShopRedact, "s"))).outcome == "applied");
  Must(f.service->privacy().SetShopInstalled(f.sys, true));
  auto member = Must(f.service->directory().CreateMember(f.sys, {"new@shop.test", "New", "Agent", "member", std::nullopt, true,
                                                      std::nullopt}));
  auto late = Must(f.service->privacy().ApplyPlatformRequest(f.sys, Request(platform_topic::kShopRedact, "s")));
  CHECK(late.outcome == "refused");
  CHECK(Must(f.service->directory().GetMember(f.sys, member.id)).id == member.id);
}

TEST_CASE("customer redact empties the stored exports of earlier data requests about that customer") {
  CoreFixture f;
  Casey casey = MakeCasey(f);
  f.Inbound("online_store", "someone else", std::string("other@example.com"));
  RecordDataRequest(f, "dr-casey", "casey@example.com");
  RecordDataRequest(f, "dr-other", "other@example.com");
  CHECK(Must(f.service->privacy().GetDataRequest(f.sys, "dr-casey")).exportJson.find(casey.customer.id) != std::string::npos);

  auto rec = Must(f.service->privacy().ApplyPlatformRequest(f.sys, Redact(std::nullopt, std::string("casey@example.com"), {}, "r")));
  CHECK(rec.changesJson.find(R"("dataRequests":1)") != std::string::npos);
  auto redacted = Must(f.service->privacy().GetDataRequest(f.sys, "dr-casey"));
  CHECK(redacted.exportJson == R"({"redacted":true})");
  CHECK(redacted.customerJson == "{}");
  auto other = Must(f.service->privacy().GetDataRequest(f.sys, "dr-other"));
  CHECK(other.exportJson.find("other@example.com") != std::string::npos);
}

}  // namespace livechat::test

namespace livechat::test {

namespace {

Conversation InboundByPhone(CoreFixture& f, const std::string& channel, std::optional<std::string> phone,
                            std::optional<std::string> recipient, const std::string& text) {
  InboundMessageInput in;
  in.channel = channel;
  in.customerName = "Wanda Whatsapp";
  in.customerPhone = std::move(phone);
  in.channelRecipient = std::move(recipient);
  in.text = text;
  return Must(f.service->conversations().ReceiveInbound(f.sys, in));
}

PlatformRequestInput RedactPhone(std::string phone, std::string digest) {
  PlatformRequestInput in = Redact(std::nullopt, std::nullopt, {}, std::move(digest));
  in.customerPhone = std::move(phone);
  return in;
}

// customer.created as a read of the redacted contact shows it.
std::string RedactedCreatedData(const std::string& customerId) {
  return R"({"customerId":")" + customerId +
         R"(","email":null,"firstName":null,"lastName":null,"phone":null,"tags":[],"ordersCount":null,"totalSpent":null})";
}

std::vector<Event> StoredEvents(CoreFixture& f, const std::string& type) {
  std::vector<Event> out;
  Must(f.store->Read([&](StoreReader& r) -> Status {
    auto all = r.ListEvents(f.shop.id, 1000);
    if (!all.ok()) return all.take_error();
    for (auto& e : *all)
      if (e.type == type) out.push_back(std::move(e));
    return Status::Ok();
  }));
  return out;
}

}  // namespace

TEST_CASE("PhoneKey: digits of one number compare equal; no country is guessed; 7 to 15 digits") {
  CHECK(PhoneKey("+1 (555) 010-0000") == "15550100000");
  CHECK(PhoneKey("15550100000") == "15550100000");
  CHECK(PhoneKey(" +1.555.010.0000") == "15550100000");
  CHECK(PhoneKey("0015550100000") == "15550100000");  // 00: the international prefix
  CHECK(PhoneKey("555-010-0000") == "5550100000");    // no country code: another number
  CHECK(PhoneKey("1234567") == "1234567");            // 7 digits
  CHECK(PhoneKey("123456").empty());                  // 6
  CHECK(PhoneKey("+123456789012345") == "123456789012345");  // 15
  CHECK(PhoneKey("+1234567890123456").empty());              // 16
  CHECK(PhoneKey("555-CALL-NOW").empty());
  CHECK(PhoneKey("1+5550100000").empty());
  CHECK(PhoneKey("+1 555 010 0000 ext 12").empty());
  CHECK(PhoneKey("").empty());
  CHECK(PhoneKey("   ").empty());
}

TEST_CASE("customer redact by phone reaches a contact known only by its phone (WhatsApp), not another number") {
  CoreFixture f;
  Conversation wanda = InboundByPhone(f, "whatsapp", "+1 (555) 010-0000", std::nullopt, "Hola");
  // Known only by its WhatsApp id: on WhatsApp that is the number.
  Conversation byId = InboundByPhone(f, "whatsapp", std::nullopt, "15550100000", "Oi");
  Conversation other = InboundByPhone(f, "whatsapp", "+1 (555) 010-0001", std::nullopt, "Hello");
  // On Messenger the recipient is a page-scoped id, not a phone.
  Conversation messenger = InboundByPhone(f, "facebook", std::nullopt, "15550100000", "Hey");

  auto rec = Must(f.service->privacy().ApplyPlatformRequest(f.sys, RedactPhone("15550100000", "p1")));
  CHECK(rec.outcome == "applied");
  CHECK(rec.changesJson ==
        R"({"contacts":2,"conversations":2,"messages":2,"browsedPages":0,"visitorSessions":0,"webhookEvents":2,"orders":0})");
  Customer gone = Must(f.service->directory().GetCustomer(f.sys, *wanda.customerUuid));
  CHECK(gone.redactedAt == f.clock.NowMillis());
  CHECK_FALSE(gone.phone.has_value());
  CHECK_FALSE(gone.name.has_value());
  CHECK(Must(f.service->directory().GetCustomer(f.sys, *byId.customerUuid)).redactedAt == f.clock.NowMillis());
  CHECK(AllMessages(f, wanda.id)[0].senderName == "Redacted");
  Customer kept = Must(f.service->directory().GetCustomer(f.sys, *other.customerUuid));
  CHECK_FALSE(kept.redactedAt.has_value());
  CHECK(kept.phone == "+1 (555) 010-0001");
  CHECK(kept.name == "Wanda Whatsapp");
  CHECK_FALSE(Must(f.service->directory().GetCustomer(f.sys, *messenger.customerUuid)).redactedAt.has_value());

  SUBCASE("the same request in another format finds nothing left") {
    auto again = Must(f.service->privacy().ApplyPlatformRequest(f.sys, RedactPhone("+1 (555) 010-0000", "p2")));
    CHECK(again.changesJson ==
          R"({"contacts":0,"conversations":0,"messages":0,"browsedPages":0,"visitorSessions":0,"webhookEvents":0,"orders":0})");
  }
  SUBCASE("a data request by phone in another format finds the contact with the other number only") {
    PlatformRequestInput dr = Request(platform_topic::kCustomersDataRequest, "dr");
    dr.customerPhone = "+15550100001";
    dr.dataRequestId = "dr-phone";
    CHECK(Must(f.service->privacy().ApplyPlatformRequest(f.sys, dr)).changesJson == R"({"dataRequests":1,"contacts":1})");
    DataRequest d = Must(f.service->privacy().GetDataRequest(f.sys, "dr-phone"));
    CHECK(d.exportJson.find(kept.id) != std::string::npos);
    CHECK(d.exportJson.find(gone.id) == std::string::npos);
  }
}

TEST_CASE("customer redact matches by every identifier the request carries; a phone that is no number") {
  CoreFixture f;
  Conversation byEmail = f.Inbound("online_store", "Hi", std::string("casey@example.com"));
  Conversation byPhone = InboundByPhone(f, "whatsapp", "+44 20 7946 0000", std::nullopt, "Hello");
  Conversation neither = InboundByPhone(f, "whatsapp", "+44 20 7946 0001", std::nullopt, "Hello");

  // Alone, a phone that is no number names nobody: refused, nothing changed or recorded.
  for (const char* junk : {"call me after 5", "123456", "+1234567890123456"}) {
    CAPTURE(junk);
    auto refused = f.service->privacy().ApplyPlatformRequest(f.sys, RedactPhone(junk, "j"));
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::kInvalidParams);
    CHECK(refused.error().message ==
          "customer.phone is not a phone number: 7 to 15 digits, optionally with a leading + and spaces, - ( ) . "
          "between them; or send customer.id or customer.email");
  }
  auto nothing = f.service->privacy().ApplyPlatformRequest(f.sys, Redact(std::nullopt, std::string(""), {}, "n"));
  CHECK(nothing.error().message == "customer.id, customer.email or customer.phone is required");
  CHECK(Must(f.service->privacy().ListPlatformRequests(f.sys, 10)).empty());
  CHECK_FALSE(Must(f.service->directory().GetCustomer(f.sys, *byPhone.customerUuid)).redactedAt.has_value());

  // Beside an email such a phone is recorded and matches nobody.
  Conversation dana = f.Inbound("online_store", "Hi", std::string("dana@example.com"));
  PlatformRequestInput withJunk = Redact(std::nullopt, std::string("dana@example.com"), {}, "d");
  withJunk.customerPhone = "call me after 5";
  CHECK(Must(f.service->privacy().ApplyPlatformRequest(f.sys, withJunk)).changesJson ==
        R"({"contacts":1,"conversations":1,"messages":1,"browsedPages":0,"visitorSessions":0,"webhookEvents":1,"orders":0})");
  CHECK(Must(f.service->directory().GetCustomer(f.sys, *dana.customerUuid)).redactedAt.has_value());

  // Email and phone: the contacts of each are redacted.
  PlatformRequestInput both = Redact(std::nullopt, std::string("casey@example.com"), {}, "b");
  both.customerPhone = "00442079460000";
  auto rec = Must(f.service->privacy().ApplyPlatformRequest(f.sys, both));
  CHECK(rec.changesJson ==
        R"({"contacts":2,"conversations":2,"messages":2,"browsedPages":0,"visitorSessions":0,"webhookEvents":2,"orders":0})");
  CHECK(Must(f.service->directory().GetCustomer(f.sys, *byEmail.customerUuid)).redactedAt.has_value());
  CHECK(Must(f.service->directory().GetCustomer(f.sys, *byPhone.customerUuid)).redactedAt.has_value());
  CHECK_FALSE(Must(f.service->directory().GetCustomer(f.sys, *neither.customerUuid)).redactedAt.has_value());
}

TEST_CASE("customer redact rewrites the contact's stored customer.created to the redacted form, same id and type") {
  CoreFixture f;
  Conversation wanda = InboundByPhone(f, "whatsapp", "+1 (555) 010-0000", std::nullopt, "Hola");
  Conversation other = InboundByPhone(f, "whatsapp", "+1 (555) 010-0001", std::nullopt, "Hello");
  auto before = StoredEvents(f, "customer.created");
  REQUIRE(before.size() == 2);
  const std::string otherData = before[1].dataJson;
  CHECK(before[0].dataJson == R"({"customerId":")" + *wanda.customerUuid +
                                  R"(","email":null,"firstName":"Wanda","lastName":"Whatsapp",)"
                                  R"("phone":"+1 (555) 010-0000","tags":[],"ordersCount":0,"totalSpent":0})");
  const auto messagesBefore = StoredEvents(f, "message.created");
  const auto conversationsBefore = StoredEvents(f, "conversation.created");
  f.clock.Advance(1000);

  Must(f.service->privacy().ApplyPlatformRequest(f.sys, RedactPhone("+15550100000", "p")));
  auto after = StoredEvents(f, "customer.created");
  REQUIRE(after.size() == 2);
  CHECK(after[0].id == before[0].id);
  CHECK(after[0].occurredAt == before[0].occurredAt);
  CHECK_FALSE(after[0].conversationId.has_value());
  // What a read of the redacted contact shows: personal fields null, no tags.
  CHECK(after[0].dataJson == RedactedCreatedData(*wanda.customerUuid));
  const std::string read = ToJson(Must(f.service->directory().GetCustomer(f.sys, *wanda.customerUuid)));
  for (const char* field : {R"("email":null)", R"("firstName":null)", R"("lastName":null)", R"("phone":null)",
                            R"("tags":[])", R"("ordersCount":null)", R"("totalSpent":null)"}) {
    CAPTURE(field);
    CHECK(read.find(field) != std::string::npos);
  }
  CHECK(after[1].dataJson == otherData);  // another contact's
  // Message and conversation events carry nothing the redact clears: as fired.
  auto messagesAfter = StoredEvents(f, "message.created");
  auto conversationsAfter = StoredEvents(f, "conversation.created");
  REQUIRE(messagesAfter.size() == messagesBefore.size());
  for (std::size_t i = 0; i < messagesAfter.size(); ++i) CHECK(messagesAfter[i].dataJson == messagesBefore[i].dataJson);
  REQUIRE(conversationsAfter.size() == conversationsBefore.size());
  for (std::size_t i = 0; i < conversationsAfter.size(); ++i)
    CHECK(conversationsAfter[i].dataJson == conversationsBefore[i].dataJson);

  SUBCASE("a contact deleted from the admin inbox has its event redacted too") {
    Principal admin;
    admin.kind = Principal::Kind::kAdminSession;
    admin.shopId = f.shop.id;
    admin.memberId = f.agent.id;
    Must(f.service->privacy().DeleteCustomer(admin, *other.customerUuid));
    CHECK(StoredEvents(f, "customer.created")[1].dataJson == RedactedCreatedData(*other.customerUuid));
  }
}

TEST_CASE("customer redact by phone empties an earlier data request that named the phone in another format") {
  CoreFixture f;
  RecordDataRequest(f, "dr-nobody", std::nullopt, "+1 (555) 010-0000");
  RecordDataRequest(f, "dr-other", std::nullopt, "+1 (555) 010-0001");
  auto rec = Must(f.service->privacy().ApplyPlatformRequest(f.sys, RedactPhone("15550100000", "r")));
  CHECK(rec.changesJson.find(R"("dataRequests":1)") != std::string::npos);
  auto redacted = Must(f.service->privacy().GetDataRequest(f.sys, "dr-nobody"));
  CHECK(redacted.customerJson == "{}");
  CHECK(redacted.exportJson == R"({"redacted":true})");
  CHECK(Must(f.service->privacy().GetDataRequest(f.sys, "dr-other")).customerJson ==
        R"({"id":null,"email":null,"phone":"+1 (555) 010-0001"})");
}

}  // namespace livechat::test
