// Privacy records (ComplianceReads, ComplianceWrites): channel integrations,
// the platform requests' audit trail, data requests, and the lookups and
// deletes of the other interfaces that redaction needs.
#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

PlatformRequest MakeRequest(const std::string& shop, const std::string& id, const std::string& key,
                            const std::string& outcome, Millis at) {
  PlatformRequest r;
  r.id = id;
  r.shopId = shop;
  r.topic = "customers_redact";
  r.requestKey = key;
  r.receivedAt = at;
  r.outcome = outcome;
  r.changesJson = R"({"contacts":1})";
  return r;
}

}  // namespace

STORE_TEST("privacy: contacts by platform id, a contact's conversations (legacy too), delete contact") {
  StoreFixture fx;
  Store& s = fx.store();
  Customer a = MakeSparseCustomer(kShopA, "cu-1");
  a.shopifyId = "7001";
  Customer a2 = MakeSparseCustomer(kShopA, "cu-2");
  a2.shopifyId = "7001";
  a2.createdAt = a.createdAt + 1;
  Customer b = MakeSparseCustomer(kShopB, "cu-1");
  b.shopifyId = "7001";
  b.email = "same@example.com";
  a.email = "Same@Example.com";
  a2.email = "same@example.com";
  Conversation listed = MakeConversation(kShopA, "conv-1", 100);
  listed.customerUuid = "cu-1";
  Conversation legacy = MakeConversation(kShopA, "conv-2", 200);
  legacy.customerUuid = "cu-1";
  legacy.inNewDatastore = false;
  legacy.firestoreId = "fs-2";
  Conversation other = MakeConversation(kShopB, "conv-3", 300);
  other.customerUuid = "cu-1";
  Put(s, [&](StoreWriter& w) -> Status {
    for (const auto* c : {&a, &a2, &b}) LC_RETURN_IF_ERROR(w.InsertCustomer(*c));
    for (auto* c : {&listed, &legacy, &other}) LC_RETURN_IF_ERROR(w.InsertConversation(*c));
    return Status::Ok();
  });
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.FindCustomersByShopifyId(kShopA, "7001"); })) ==
        std::vector<std::string>{"cu-1", "cu-2"});
  CHECK(Get(s, [&](StoreReader& r) { return r.FindCustomersByShopifyId(kShopA, "7002"); }).empty());
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListCustomersByEmail(kShopA, "SAME@example.com"); })) ==
        std::vector<std::string>{"cu-1", "cu-2"});
  CHECK(Get(s, [&](StoreReader& r) { return r.ListCustomersByEmail(kShopA, "other@example.com"); }).empty());
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListConversationsOfCustomer(kShopA, "cu-1"); })) ==
        std::vector<std::string>{"conv-1", "conv-2"});

  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteCustomer(kShopA, "cu-1"); }) == true);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteCustomer(kShopA, "cu-1"); }) == false);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetCustomer(kShopA, "cu-1"); }).has_value());
  CHECK(Get(s, [&](StoreReader& r) { return r.GetCustomer(kShopB, "cu-1"); }).has_value());
}

STORE_TEST("privacy: contacts by phone compare PhoneKey forms; on WhatsApp the recipient is the number") {
  StoreFixture fx;
  Store& s = fx.store();
  struct Row {
    std::string shop, id;
    std::optional<std::string> phone, recipient;
    std::vector<std::string> channels;
  };
  const std::vector<Row> rows = {
      {kShopA, "cu-1", "+1 (555) 010-0000", std::nullopt, {}},
      {kShopA, "cu-2", "0015550100000", std::nullopt, {}},
      {kShopA, "cu-3", std::nullopt, "15550100000", {"online_store", "whatsapp"}},
      {kShopA, "cu-4", std::nullopt, "15550100000", {"facebook"}},  // a page-scoped id, not a phone
      {kShopA, "cu-5", "+1 555 010 0001", std::nullopt, {}},
      {kShopA, "cu-6", "555-010-0000", std::nullopt, {}},  // no country code: another number
      {kShopA, "cu-7", "call 15550100000", std::nullopt, {}},
      {kShopB, "cu-1", "+15550100000", std::nullopt, {}},
  };
  Put(s, [&](StoreWriter& w) -> Status {
    Millis at = 1767225600000;
    for (const Row& row : rows) {
      Customer c = MakeSparseCustomer(row.shop, row.id);
      c.phone = row.phone;
      c.channelRecipient = row.recipient;
      c.channels = row.channels;
      c.createdAt = ++at;
      LC_RETURN_IF_ERROR(w.InsertCustomer(c));
    }
    return Status::Ok();
  });
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListCustomersByPhone(kShopA, "15550100000"); })) ==
        std::vector<std::string>{"cu-1", "cu-2", "cu-3"});
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListCustomersByPhone(kShopA, "15550100001"); })) ==
        std::vector<std::string>{"cu-5"});
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListCustomersByPhone(kShopA, "5550100000"); })) ==
        std::vector<std::string>{"cu-6"});
  CHECK(Get(s, [&](StoreReader& r) { return r.ListCustomersByPhone(kShopA, ""); }).empty());
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListCustomersByPhone(kShopB, "15550100000"); })) ==
        std::vector<std::string>{"cu-1"});
}

STORE_TEST("privacy: a contact's events by data.customerId; the data rewritten in place, per store") {
  StoreFixture fx;
  Store& s = fx.store();
  Event created{"ev-1", kShopA, "customer.created", std::nullopt, 1000,
                R"({"customerId":"cu-1","email":"wanda@example.com","phone":"+15550100000"})"};
  Event conversation{"ev-2", kShopA, "conversation.created", "conv-1", 1001,
                     R"({"type":"guest","customerId":"cu-1","channel":"whatsapp"})"};
  Event message{"ev-3", kShopA, "message.created", "conv-1", 1002, R"({"messageId":"m1","text":"cu-1"})"};
  Event another{"ev-4", kShopA, "customer.created", std::nullopt, 1003, R"({"customerId":"cu-10"})"};
  Event elsewhere{"ev-5", kShopB, "customer.created", std::nullopt, 1004, R"({"customerId":"cu-1"})"};
  Event malformed{"ev-6", kShopA, "customer.created", std::nullopt, 1005, R"({"customerId":"cu-1")"};
  Put(s, [&](StoreWriter& w) -> Status {
    for (const auto* e : {&created, &conversation, &message, &another, &elsewhere, &malformed})
      LC_RETURN_IF_ERROR(w.AppendEvent(*e));
    return Status::Ok();
  });
  auto mine = Get(s, [&](StoreReader& r) { return r.ListEventsOfCustomer(kShopA, "cu-1"); });
  REQUIRE(mine.size() == 2);
  CheckSame(mine[0], created);
  CheckSame(mine[1], conversation);
  CHECK(Get(s, [&](StoreReader& r) { return r.ListEventsOfCustomer(kShopA, "cu-9"); }).empty());

  const std::string redacted = R"({"customerId":"cu-1","email":null,"phone":null})";
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateEventData(kShopA, "ev-1", redacted); }) == true);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateEventData(kShopA, "ev-5", redacted); }) == false);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateEventData(kShopA, "ev-none", redacted); }) == false);
  Event expected = created;
  expected.dataJson = redacted;
  auto after = Get(s, [&](StoreReader& r) { return r.GetEvent(kShopA, "ev-1"); });
  REQUIRE(after.has_value());
  CheckSame(*after, expected);  // id, type, conversation and time as they were
  auto all = Get(s, [&](StoreReader& r) { return r.ListEvents(kShopA, 10); });
  CHECK(Ids(all) == std::vector<std::string>{"ev-1", "ev-2", "ev-3", "ev-4", "ev-6"});  // the outbox order kept
  CheckSame(*Get(s, [&](StoreReader& r) { return r.GetEvent(kShopB, "ev-5"); }), elsewhere);
}

STORE_TEST("privacy: visitor sessions of a contact, browsed pages and admin sessions deleted per store") {
  StoreFixture fx;
  Store& s = fx.store();
  VisitorSession v1{"v1", kShopA, "h1", "cu-1", std::nullopt, "{}", 10, 10, std::nullopt};
  VisitorSession v2{"v2", kShopA, "h2", "cu-2", std::nullopt, "{}", 20, 20, std::nullopt};
  VisitorSession v3{"v3", kShopB, "h3", "cu-1", std::nullopt, "{}", 30, 30, std::nullopt};
  Conversation c = MakeConversation(kShopA, "conv-1", 100);
  Put(s, [&](StoreWriter& w) -> Status {
    for (const auto* v : {&v1, &v2, &v3}) LC_RETURN_IF_ERROR(w.InsertVisitorSession(*v));
    LC_RETURN_IF_ERROR(w.InsertConversation(c));
    LC_RETURN_IF_ERROR(w.InsertBrowsedPage(kShopA, "conv-1", {"https://a.test/1", "One", 1}, 50));
    LC_RETURN_IF_ERROR(w.InsertBrowsedPage(kShopA, "conv-1", {"https://a.test/2", std::nullopt, 2}, 50));
    LC_RETURN_IF_ERROR(w.InsertSession({"t1", kShopA, "m1", 1, 99}));
    LC_RETURN_IF_ERROR(w.InsertSession({"t2", kShopA, "m2", 1, 99}));
    LC_RETURN_IF_ERROR(w.InsertSession({"t3", kShopA, "m2", 1, 99}));
    return w.InsertSession({"t4", kShopB, "m1", 1, 99});
  });
  auto mine = Get(s, [&](StoreReader& r) { return r.ListVisitorSessionsOfCustomer(kShopA, "cu-1"); });
  REQUIRE(mine.size() == 1);
  CHECK(mine[0].id == "v1");
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteBrowsedPages(kShopA, "conv-1"); }) == 2);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteBrowsedPages(kShopA, "conv-1"); }) == 0);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteSessions(kShopA, "m2"); }) == 2);
  CHECK(Get(s, [&](StoreReader& r) { return r.GetSession("t1"); }).has_value());
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteSessions(kShopA, ""); }) == 1);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetSession("t1"); }).has_value());
  CHECK(Get(s, [&](StoreReader& r) { return r.GetSession("t4"); }).has_value());  // another store's
}

STORE_TEST("privacy: members deleted one by one, another store's untouched") {
  StoreFixture fx;
  Store& s = fx.store();
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertMember(MakeMember(kShopA, "m1", 1)));
    return w.InsertMember(MakeMember(kShopB, "m1", 1));
  });
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteMember(kShopA, "m1"); }) == true);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteMember(kShopA, "m1"); }) == false);
  CHECK(Get(s, [&](StoreReader& r) { return r.ListMembers(kShopA); }).empty());
  CHECK(Get(s, [&](StoreReader& r) { return r.ListMembers(kShopB); }).size() == 1);
}

STORE_TEST("privacy: channel integrations are upserted per store and channel") {
  StoreFixture fx;
  Store& s = fx.store();
  CHECK(Get(s, [&](StoreReader& r) { return r.ListChannelIntegrations(kShopA); }).empty());
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.PutChannelIntegration({kShopA, "whatsapp", false, 5}));
    LC_RETURN_IF_ERROR(w.PutChannelIntegration({kShopA, "email", false, 6}));
    LC_RETURN_IF_ERROR(w.PutChannelIntegration({kShopA, "email", true, 7}));
    return w.PutChannelIntegration({kShopB, "email", false, 8});
  });
  auto rows = Get(s, [&](StoreReader& r) { return r.ListChannelIntegrations(kShopA); });
  REQUIRE(rows.size() == 2);
  CHECK(rows[0].channel == "email");
  CHECK(rows[0].connected);
  CHECK(rows[0].updatedAt == 7);
  CHECK(rows[1].channel == "whatsapp");
  CHECK_FALSE(rows[1].connected);
  CHECK(rows[1].shopId == kShopA);
}

STORE_TEST("privacy: the audit trail finds the first applied request by key, lists newest first") {
  StoreFixture fx;
  Store& s = fx.store();
  PlatformRequest refused = MakeRequest(kShopA, "p1", "k", "refused", 100);
  refused.message = "still installed";
  PlatformRequest applied = MakeRequest(kShopA, "p2", "k", "applied", 200);
  applied.deliveryId = "wh-1";
  PlatformRequest replay = MakeRequest(kShopA, "p3", "k", "replay", 200);
  PlatformRequest elsewhere = MakeRequest(kShopB, "p4", "k", "applied", 300);
  Put(s, [&](StoreWriter& w) -> Status {
    for (const auto* r : {&refused, &applied, &replay, &elsewhere}) LC_RETURN_IF_ERROR(w.InsertPlatformRequest(*r));
    return Status::Ok();
  });
  auto found = Get(s, [&](StoreReader& r) { return r.FindPlatformRequest(kShopA, "k"); });
  REQUIRE(found.has_value());
  CHECK(found->id == "p2");
  CHECK(found->deliveryId == "wh-1");
  CHECK(found->changesJson == R"({"contacts":1})");
  CHECK(found->receivedAt == 200);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindPlatformRequest(kShopA, "other"); }).has_value());
  auto all = Get(s, [&](StoreReader& r) { return r.ListPlatformRequests(kShopA, 10); });
  CHECK(Ids(all) == std::vector<std::string>{"p3", "p2", "p1"});
  CHECK(all[2].message == "still installed");
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListPlatformRequests(kShopA, 1); })) ==
        std::vector<std::string>{"p3"});
  Status dup = s.Write([&](StoreWriter& w) { return w.InsertPlatformRequest(refused); });
  CHECK(dup.error().code == ErrorCode::kInternal);
}

STORE_TEST("privacy: data requests are unique per store and id, listed newest first") {
  StoreFixture fx;
  Store& s = fx.store();
  DataRequest d1{"dr-1", kShopA, R"({"id":"7001"})", 100, 1, R"({"contacts":[]})"};
  DataRequest d2{"dr-2", kShopA, "{}", 200, 0, "{}"};
  DataRequest other{"dr-1", kShopB, "{}", 300, 0, "{}"};
  Put(s, [&](StoreWriter& w) -> Status {
    for (const auto* d : {&d1, &d2, &other}) LC_RETURN_IF_ERROR(w.InsertDataRequest(*d));
    return Status::Ok();
  });
  auto got = Get(s, [&](StoreReader& r) { return r.GetDataRequest(kShopA, "dr-1"); });
  REQUIRE(got.has_value());
  CHECK(got->customerJson == R"({"id":"7001"})");
  CHECK(got->contacts == 1);
  CHECK(got->exportJson == R"({"contacts":[]})");
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListDataRequests(kShopA); })) ==
        std::vector<std::string>{"dr-2", "dr-1"});
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetDataRequest(kShopA, "dr-3"); }).has_value());
  Status dup = s.Write([&](StoreWriter& w) { return w.InsertDataRequest(d1); });
  CHECK(dup.error().code == ErrorCode::kInternal);
}

}  // namespace livechat::testing
