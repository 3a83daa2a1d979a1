// The Store conformance suite: the contract of include/livechat/store.h as
// tests against the abstract interface. Every Store must pass it; each test
// runs once per fixture listed in STORE_TEST (store_fixtures.h).
//
// Each section below names the interfaces (livechat/store/*.h) it checks.
// The other interfaces have files of their own: store_webhooks_conformance
// (WebhookSubscription*, DeliveryQueue*), store_knowledge_conformance
// (Knowledge*), store_visitor_sessions_conformance (VisitorSession*),
// store_files_conformance (FileRecord*), store_summary_jobs_conformance
// (SummaryJob*), store_privacy_conformance (Compliance* and the contact
// lookups and deletes redaction needs), store_idempotency_conformance
// (Idempotency*).
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

const std::string kShopA = "shop-a";
const std::string kShopB = "shop-b";

ConversationQuery Query(const std::string& shopId, int limit = 100) {
  ConversationQuery q;
  q.shopId = shopId;
  q.limit = limit;
  return q;
}

std::vector<std::string> ListIds(Store& s, const ConversationQuery& q) {
  return Ids(Get(s, [&](StoreReader& r) { return r.ListConversations(q); }));
}

MessageQuery Messages(const std::string& shopId, const std::string& conversationId) {
  MessageQuery q;
  q.shopId = shopId;
  q.conversationId = conversationId;
  q.limit = 100;
  return q;
}

std::vector<std::string> MessageIds(Store& s, const MessageQuery& q) {
  return Ids(Get(s, [&](StoreReader& r) { return r.ListMessages(q); }));
}

// Inserts bare conversations (already listed, pg assigned by the store).
void AddConversations(Store& s, const std::string& shopId, const std::vector<std::string>& ids) {
  Put(s, [&](StoreWriter& w) -> Status {
    Millis t = 1000;
    for (const auto& id : ids) {
      Conversation c = MakeConversation(shopId, id, t++);
      LC_RETURN_IF_ERROR(w.InsertConversation(c));
    }
    return Status::Ok();
  });
}

void CheckInternalError(const Status& st) {
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::kInternal);
}

// ------------------------------ shops (ShopReads, ShopWrites)

STORE_TEST("shops: round trip, lookup by app id, update, duplicate") {
  StoreFixture fx;
  Store& s = fx.store();
  Shop a = MakeShop(kShopA);
  Put(s, [&](StoreWriter& w) { return w.InsertShop(a); });

  auto got = Get(s, [&](StoreReader& r) { return r.GetShop(kShopA); });
  REQUIRE(got.has_value());
  CheckSame(*got, a);
  auto byApp = Get(s, [&](StoreReader& r) { return r.GetShopByAppId("app-shop-a"); });
  REQUIRE(byApp.has_value());
  CheckSame(*byApp, a);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetShop("missing"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetShopByAppId(kShopA); }).has_value());

  a.appId = "app-renamed";
  a.name = "Renamed";
  a.plan = Plan::kBasic;
  a.autoAssign = false;
  a.installed = true;
  a.createdAt = 5;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateShop(a); }) == true);
  got = Get(s, [&](StoreReader& r) { return r.GetShop(kShopA); });
  REQUIRE(got.has_value());
  CheckSame(*got, a);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetShopByAppId("app-shop-a"); }).has_value());
  CHECK(Get(s, [&](StoreReader& r) { return r.GetShopByAppId("app-renamed"); }).has_value());

  Shop ghost = MakeShop("ghost");
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateShop(ghost); }) == false);
  CheckInternalError(s.Write([&](StoreWriter& w) { return w.InsertShop(a); }));
}

STORE_TEST("shops: every plan round-trips") {
  StoreFixture fx;
  Store& s = fx.store();
  for (Plan p : {Plan::kFree, Plan::kBasic, Plan::kPro, Plan::kPlus}) {
    Shop shop = MakeShop("shop-" + std::string(PlanName(p)));
    shop.plan = p;
    Put(s, [&](StoreWriter& w) { return w.InsertShop(shop); });
    auto got = Get(s, [&](StoreReader& r) { return r.GetShop(shop.id); });
    REQUIRE(got.has_value());
    CHECK(got->plan == p);
  }
}

// ------------------------------ API keys (ApiKeyReads, ApiKeyWrites)

STORE_TEST("api keys: round trip, cross-shop hash lookup, createdAt order, revoke") {
  StoreFixture fx;
  Store& s = fx.store();
  ApiKey k1 = MakeApiKey(kShopA, "k1", 2000);
  ApiKey k2 = MakeApiKey(kShopA, "k2", 1000);
  k2.legacy = true;
  k2.permissions = 0;
  k2.revokedAt = 3000;
  k2.lastUsedAt = 2500;
  ApiKey kb = MakeApiKey(kShopB, "k1", 1500);  // same id, other shop
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertApiKey(k1));
    LC_RETURN_IF_ERROR(w.InsertApiKey(k2));
    return w.InsertApiKey(kb);
  });

  auto found = Get(s, [&](StoreReader& r) { return r.FindApiKeyByHash(k2.keyHash); });
  REQUIRE(found.has_value());
  CheckSame(*found, k2);
  found = Get(s, [&](StoreReader& r) { return r.FindApiKeyByHash(kb.keyHash); });
  REQUIRE(found.has_value());
  CheckSame(*found, kb);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindApiKeyByHash("nope"); }).has_value());

  auto listA = Get(s, [&](StoreReader& r) { return r.ListApiKeys(kShopA); });
  REQUIRE(listA.size() == 2);
  CheckSame(listA[0], k2);
  CheckSame(listA[1], k1);
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListApiKeys(kShopB); })) == std::vector<std::string>{"k1"});

  CHECK(PutValue(s, [&](StoreWriter& w) { return w.RevokeApiKey(kShopA, "k1", 4000); }) == true);
  found = Get(s, [&](StoreReader& r) { return r.FindApiKeyByHash(k1.keyHash); });
  REQUIRE(found.has_value());
  CHECK(found->revokedAt == std::optional<Millis>(4000));
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.RevokeApiKey(kShopB, "k2", 4000); }) == false);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.RevokeApiKey("shop-c", "k1", 4000); }) == false);
  found = Get(s, [&](StoreReader& r) { return r.FindApiKeyByHash(kb.keyHash); });
  REQUIRE(found.has_value());
  CHECK_FALSE(found->revokedAt.has_value());

  ApiKey sameHash = MakeApiKey(kShopA, "k3", 5000);
  sameHash.keyHash = k1.keyHash;
  CheckInternalError(s.Write([&](StoreWriter& w) { return w.InsertApiKey(sameHash); }));
  CheckInternalError(s.Write([&](StoreWriter& w) { return w.InsertApiKey(k1); }));
}

// ------------------------------ members (MemberAndSessionReads, MemberAndSessionWrites)

STORE_TEST("members: round trip with unset optionals, createdAt order, email lookup across shops") {
  StoreFixture fx;
  Store& s = fx.store();
  Member m1 = MakeMember(kShopA, "m1", 2000);
  Member m2;
  m2.id = "m2";
  m2.shopId = kShopA;
  m2.email = "plain@example.com";
  m2.createdAt = 1000;
  Member m3 = MakeMember(kShopA, "m3", 3000);
  m3.enableAwayMode = true;
  Member mb = MakeMember(kShopB, "m1", 1500);  // same email as m1, other shop
  Put(s, [&](StoreWriter& w) -> Status {
    for (const Member* m : {&m1, &m2, &m3, &mb}) LC_RETURN_IF_ERROR(w.InsertMember(*m));
    return Status::Ok();
  });

  auto got = Get(s, [&](StoreReader& r) { return r.GetMember(kShopA, "m2"); });
  REQUIRE(got.has_value());
  CheckSame(*got, m2);
  CHECK_FALSE(got->firstName.has_value());
  CHECK_FALSE(got->enableAwayMode.has_value());
  got = Get(s, [&](StoreReader& r) { return r.GetMember(kShopA, "m1"); });
  REQUIRE(got.has_value());
  CheckSame(*got, m1);
  CHECK(got->enableAwayMode == std::optional<bool>(false));

  auto list = Get(s, [&](StoreReader& r) { return r.ListMembers(kShopA); });
  CHECK(Ids(list) == std::vector<std::string>{"m2", "m1", "m3"});
  REQUIRE(list.size() == 3);
  CheckSame(list[2], m3);

  auto byEmail = Get(s, [&](StoreReader& r) { return r.FindMembersByEmail("M1@example.com"); });
  REQUIRE(byEmail.size() == 2);
  CheckSame(byEmail[0], mb);  // createdAt 1500
  CheckSame(byEmail[1], m1);  // createdAt 2000
  CHECK(Get(s, [&](StoreReader& r) { return r.FindMembersByEmail("nobody@example.com"); }).empty());

  m2.email = "new@example.com";
  m2.firstName = "New";
  m2.lastName = "Name";
  m2.avatarUrl = "https://a/b.png";
  m2.role = "admin";
  m2.active = false;
  m2.enableAwayMode = true;
  m2.passwordHash = "hash";
  m2.createdAt = 900;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateMember(m2); }) == true);
  got = Get(s, [&](StoreReader& r) { return r.GetMember(kShopA, "m2"); });
  REQUIRE(got.has_value());
  CheckSame(*got, m2);
  CheckInternalError(s.Write([&](StoreWriter& w) { return w.InsertMember(m1); }));
}

// ------------------------------ customers (CustomerReads, CustomerWrites)

STORE_TEST("customers: full and sparse round trip, email lookup, update") {
  StoreFixture fx;
  Store& s = fx.store();
  Customer full = MakeFullCustomer(kShopA, "cu-full");
  Customer sparse = MakeSparseCustomer(kShopA, "cu-sparse");
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertCustomer(full));
    return w.InsertCustomer(sparse);
  });

  auto got = Get(s, [&](StoreReader& r) { return r.GetCustomer(kShopA, "cu-full"); });
  REQUIRE(got.has_value());
  CheckSame(*got, full);
  got = Get(s, [&](StoreReader& r) { return r.GetCustomer(kShopA, "cu-sparse"); });
  REQUIRE(got.has_value());
  CheckSame(*got, sparse);
  CHECK(got->channels.empty());
  CHECK(got->customAttributes.empty());
  CHECK_FALSE(got->totalSpent.has_value());

  got = Get(s, [&](StoreReader& r) { return r.FindCustomerByEmail(kShopA, "zoe.quinn@EXAMPLE.com"); });
  REQUIRE(got.has_value());
  CHECK(got->id == "cu-full");
  CHECK_FALSE(
      Get(s, [&](StoreReader& r) { return r.FindCustomerByEmail(kShopB, "zoe.quinn@example.com"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindCustomerByEmail(kShopA, ""); }).has_value());

  // Update sets every field, and clears them again.
  Customer filled = MakeFullCustomer(kShopA, "cu-sparse");
  filled.email = "other@example.com";
  filled.totalSpent = 0.0;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateCustomer(filled); }) == true);
  got = Get(s, [&](StoreReader& r) { return r.GetCustomer(kShopA, "cu-sparse"); });
  REQUIRE(got.has_value());
  CheckSame(*got, filled);
  Customer cleared = MakeSparseCustomer(kShopA, "cu-full");
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateCustomer(cleared); }) == true);
  got = Get(s, [&](StoreReader& r) { return r.GetCustomer(kShopA, "cu-full"); });
  REQUIRE(got.has_value());
  CheckSame(*got, cleared);
  CheckInternalError(s.Write([&](StoreWriter& w) { return w.InsertCustomer(full); }));
}

// ------------------------------ conversations (ConversationReads, ConversationWrites)

STORE_TEST("conversations: full and sparse round trip; pgConvoId assigned on insert") {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation full = MakeFullConversation(kShopA, "c-full");
  Conversation sparse;
  sparse.id = "c-sparse";
  sparse.shopId = kShopA;
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertConversation(full));
    return w.InsertConversation(sparse);
  });
  REQUIRE(full.pgConvoId.has_value());
  REQUIRE(sparse.pgConvoId.has_value());
  CHECK(*full.pgConvoId > 0);
  CHECK(*sparse.pgConvoId > *full.pgConvoId);

  auto got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "c-full"); });
  REQUIRE(got.has_value());
  CheckSame(*got, full);
  got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "c-sparse"); });
  REQUIRE(got.has_value());
  CheckSame(*got, sparse);
  CHECK_FALSE(got->lastMessage.has_value());
  CHECK_FALSE(got->lastActive.has_value());
  CHECK(got->tags.empty());

  // A migrated record keeps the pg id it brings.
  Conversation migrated = MakeConversation(kShopA, "c-migrated", 50);
  migrated.pgConvoId = 9000;
  Put(s, [&](StoreWriter& w) { return w.InsertConversation(migrated); });
  CHECK(migrated.pgConvoId == std::optional<std::int64_t>(9000));
  got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "9000"); });
  REQUIRE(got.has_value());
  CHECK(got->id == "c-migrated");
  CheckInternalError(s.Write([&](StoreWriter& w) { return w.InsertConversation(full); }));
}

STORE_TEST("conversations: FindConversation by id, firestoreId and pgConvoId, within the shop only") {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation c = MakeFullConversation(kShopA, "c1");
  Put(s, [&](StoreWriter& w) { return w.InsertConversation(c); });
  const std::string pg = std::to_string(*c.pgConvoId);

  for (const std::string& form : {std::string("c1"), std::string("fs-c1"), pg}) {
    CAPTURE(form);
    auto got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, form); });
    REQUIRE(got.has_value());
    CHECK(got->id == "c1");
    CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindConversation(kShopB, form); }).has_value());
  }
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "nope"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "987654321"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, ""); }).has_value());
  CHECK_FALSE(
      Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "99999999999999999999999"); }).has_value());
}

STORE_TEST("conversations: legacy records are found but never listed and have no pgConvoId") {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation legacy = MakeConversation(kShopA, "c-legacy", 5000);
  legacy.inNewDatastore = false;
  legacy.firestoreId = "legacy-fs";
  Conversation listed = MakeConversation(kShopA, "c-new", 1000);
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertConversation(legacy));
    return w.InsertConversation(listed);
  });
  CHECK_FALSE(legacy.pgConvoId.has_value());

  for (const char* form : {"c-legacy", "legacy-fs"}) {
    auto got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, form); });
    REQUIRE(got.has_value());
    CheckSame(*got, legacy);
  }
  CHECK(ListIds(s, Query(kShopA)) == std::vector<std::string>{"c-new"});
  ConversationQuery q = Query(kShopA);
  q.status = "open";
  CHECK(ListIds(s, q) == std::vector<std::string>{"c-new"});
}

STORE_TEST("conversations: legacy records in import order, counted per shop, and migrated by an update") {
  StoreFixture fx;
  Store& s = fx.store();
  std::vector<Conversation> legacy;
  for (const char* id : {"l-b", "l-a", "l-c"}) {
    Conversation c = MakeConversation(kShopA, id, 100);
    c.inNewDatastore = false;
    c.firestoreId = std::string("fs-") + id;
    legacy.push_back(c);
  }
  Conversation other = MakeConversation(kShopB, "l-other", 100);
  other.inNewDatastore = false;
  Conversation listed = MakeConversation(kShopA, "c-new", 1000);
  Put(s, [&](StoreWriter& w) -> Status {
    for (Conversation& c : legacy) LC_RETURN_IF_ERROR(w.InsertConversation(c));
    LC_RETURN_IF_ERROR(w.InsertConversation(other));
    return w.InsertConversation(listed);
  });
  auto ids = [&](int limit) {
    std::vector<std::string> out;
    for (const auto& c : Get(s, [&](StoreReader& r) { return r.ListLegacyConversations(kShopA, limit); }))
      out.push_back(c.id);
    return out;
  };
  CHECK(ids(10) == std::vector<std::string>{"l-b", "l-a", "l-c"});  // insertion order, not id order
  CHECK(ids(2) == std::vector<std::string>{"l-b", "l-a"});
  CHECK(ids(0).empty());
  CHECK(Get(s, [&](StoreReader& r) { return r.CountLegacyConversations(kShopA); }) == 3);
  CHECK(Get(s, [&](StoreReader& r) { return r.CountLegacyConversations(kShopB); }) == 1);
  CHECK(Get(s, [&](StoreReader& r) { return r.CountLegacyConversations("no-such-shop"); }) == 0);

  Conversation moved = legacy[1];
  moved.inNewDatastore = true;
  Put(s, [&](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(bool ok, w.UpdateConversation(moved));
    return ok ? Status::Ok() : Status(Error{ErrorCode::kInternal, "no row"});
  });
  CHECK(ids(10) == std::vector<std::string>{"l-b", "l-c"});
  CHECK(Get(s, [&](StoreReader& r) { return r.CountLegacyConversations(kShopA); }) == 2);
  auto got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "l-a"); });
  REQUIRE(got.has_value());
  CHECK(got->inNewDatastore);
  REQUIRE(got->pgConvoId.has_value());
  CHECK(ListIds(s, Query(kShopA)) == std::vector<std::string>{"c-new", "l-a"});
}

STORE_TEST("conversations: UpdateConversation writes every column except tags") {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation c = MakeFullConversation(kShopA, "c1");
  Put(s, [&](StoreWriter& w) { return w.InsertConversation(c); });
  const std::vector<std::string> originalTags = c.tags;

  Conversation u = c;
  u.firestoreId.reset();
  u.sessionId = "sess-2";
  u.customerUuid.reset();
  u.customerName = "Other";
  u.customerEmail.reset();
  u.customerType = "customer";
  u.status = "open";
  u.isChatBot = false;
  u.hasChatBot = false;
  u.isRead = false;
  u.isCustomerRead = true;
  u.isOnline = false;
  u.isBlock = false;
  u.isStarred = false;
  u.hasFirstMsg = false;
  u.hidePreChatMessage = "";
  u.memberId.reset();
  u.channel = "email";
  u.channels = {"email"};
  u.tags = {"ignored-by-update"};
  u.messageCount.reset();
  u.lastMessage.reset();
  u.lastActive = 42;
  u.createdAt.reset();
  u.updatedAt = 43;
  u.lastCustomerMessageAt.reset();
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateConversation(u); }) == true);

  auto got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "c1"); });
  REQUIRE(got.has_value());
  Conversation expected = u;
  expected.tags = originalTags;
  CheckSame(*got, expected);
  CHECK(Get(s, [&](StoreReader& r) { return r.ListTagCatalog(kShopA); }).size() == originalTags.size());

  Conversation other = u;
  other.shopId = kShopB;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateConversation(other); }) == false);
  Conversation missing = u;
  missing.id = "c-missing";
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateConversation(missing); }) == false);
}

// ------------------------------ list order and paging (ConversationReads)

STORE_TEST("conversations: list order lastActive DESC, pgConvoId DESC; keyset pages of 100,100,50") {
  StoreFixture fx;
  Store& s = fx.store();
  std::vector<Conversation> all;
  Put(s, [&](StoreWriter& w) -> Status {
    for (int i = 0; i < 250; ++i) {
      // A scrambled lastActive shared by runs of three: order is not
      // insertion order, and ties must fall back to pgConvoId.
      Millis lastActive = 1'000'000 + ((i * 37) % 250 / 3) * 1000;
      Conversation c = MakeConversation(kShopA, "c" + std::to_string(i), lastActive);
      LC_RETURN_IF_ERROR(w.InsertConversation(c));
      all.push_back(c);
    }
    return Status::Ok();
  });
  std::sort(all.begin(), all.end(), [](const Conversation& a, const Conversation& b) {
    if (*a.lastActive != *b.lastActive) return *a.lastActive > *b.lastActive;
    return *a.pgConvoId > *b.pgConvoId;
  });

  std::vector<std::string> seen;
  std::vector<size_t> pageSizes;
  ConversationQuery q = Query(kShopA, 100);
  for (int page = 0; page < 10; ++page) {
    auto rows = Get(s, [&](StoreReader& r) { return r.ListConversations(q); });
    if (rows.empty()) break;
    pageSizes.push_back(rows.size());
    for (const auto& c : rows) seen.push_back(c.id);
    q.after = ConversationKey{*rows.back().lastActive, *rows.back().pgConvoId};
  }
  CHECK(pageSizes == std::vector<size_t>{100, 100, 50});
  CHECK(Ids(all) == seen);
  CHECK(std::set<std::string>(seen.begin(), seen.end()).size() == 250);
}

STORE_TEST("conversations: keyset position is exclusive and ties continue by pgConvoId") {
  StoreFixture fx;
  Store& s = fx.store();
  // Same lastActive for all three: the order is pgConvoId DESC.
  Put(s, [&](StoreWriter& w) -> Status {
    for (const char* id : {"a", "b", "c"}) {
      Conversation c = MakeConversation(kShopA, id, 777);
      LC_RETURN_IF_ERROR(w.InsertConversation(c));
    }
    return Status::Ok();
  });
  CHECK(ListIds(s, Query(kShopA)) == std::vector<std::string>{"c", "b", "a"});
  auto b = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "b"); });
  REQUIRE(b.has_value());
  ConversationQuery q = Query(kShopA);
  q.after = ConversationKey{777, *b->pgConvoId};
  CHECK(ListIds(s, q) == std::vector<std::string>{"a"});
  q.after = ConversationKey{778, 0};
  CHECK(ListIds(s, q) == std::vector<std::string>{"c", "b", "a"});
  q.after = ConversationKey{777, 0};
  CHECK(ListIds(s, q).empty());
}

STORE_TEST("conversations: a missing lastActive sorts as 0") {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation none;
  none.id = "no-activity";
  none.shopId = kShopA;
  Conversation some = MakeConversation(kShopA, "active", 5);
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertConversation(none));
    return w.InsertConversation(some);
  });
  CHECK(ListIds(s, Query(kShopA)) == std::vector<std::string>{"active", "no-activity"});
  ConversationQuery q = Query(kShopA);
  q.after = ConversationKey{5, *some.pgConvoId};
  CHECK(ListIds(s, q) == std::vector<std::string>{"no-activity"});
}

// ------------------------------ filters (ConversationReads)

struct FilterSet {
  std::string id;
  std::string status;
  std::string channel;
  std::optional<std::string> memberId;
  bool isRead;
  std::vector<std::string> tags;
  std::string customerUuid;
  std::optional<std::string> email;
  Millis lastActive;
};

// c1..c5 listed in shop A (order by lastActive: c5, c4, c3, c2, c1), a legacy
// twin of c4 and a shop-B record that must never appear.
void AddFilterData(Store& s) {
  const std::vector<FilterSet> rows = {
      {"c1", "open", "online_store", "m1", false, {"vip"}, "u1", "Ann@Example.com", 100},
      {"c2", "resolved", "email", std::nullopt, true, {"vip", "refund"}, "u1", "ann@example.com", 200},
      {"c3", "open", "whatsapp", "m2", true, {"refund"}, "u2", "bob@example.com", 300},
      {"c4", "open", "online_store", std::nullopt, false, {}, "u2", std::nullopt, 400},
      {"c5", "resolved", "online_store", "m1", true, {"other"}, "u3", "ANN@EXAMPLE.COM", 500},
  };
  Put(s, [&](StoreWriter& w) -> Status {
    for (const auto& r : rows) {
      Conversation c = MakeConversation(kShopA, r.id, r.lastActive);
      c.status = r.status;
      c.channel = r.channel;
      c.memberId = r.memberId;
      c.isRead = r.isRead;
      c.tags = r.tags;
      c.customerUuid = r.customerUuid;
      c.customerEmail = r.email;
      LC_RETURN_IF_ERROR(w.InsertConversation(c));
    }
    Conversation legacy = MakeConversation(kShopA, "c-legacy", 600);
    legacy.inNewDatastore = false;
    legacy.customerUuid = "u2";
    legacy.tags = {"vip"};
    LC_RETURN_IF_ERROR(w.InsertConversation(legacy));
    Conversation foreign = MakeConversation(kShopB, "c-b", 700);
    foreign.customerUuid = "u1";
    foreign.tags = {"vip"};
    foreign.memberId = "m1";
    foreign.customerEmail = "ann@example.com";
    return w.InsertConversation(foreign);
  });
}

using Ids_ = std::vector<std::string>;

STORE_TEST("conversations: each filter alone") {
  StoreFixture fx;
  Store& s = fx.store();
  AddFilterData(s);
  ConversationQuery q = Query(kShopA);
  CHECK(ListIds(s, q) == Ids_{"c5", "c4", "c3", "c2", "c1"});

  SUBCASE("status") {
    q.status = "open";
    CHECK(ListIds(s, q) == Ids_{"c4", "c3", "c1"});
    q.status = "resolved";
    CHECK(ListIds(s, q) == Ids_{"c5", "c2"});
  }
  SUBCASE("channel") {
    q.channel = "online_store";
    CHECK(ListIds(s, q) == Ids_{"c5", "c4", "c1"});
    q.channel = "whatsapp";
    CHECK(ListIds(s, q) == Ids_{"c3"});
    q.channel = "facebook";
    CHECK(ListIds(s, q).empty());
  }
  SUBCASE("assigneeId") {
    q.assigneeId = "m1";
    CHECK(ListIds(s, q) == Ids_{"c5", "c1"});
  }
  SUBCASE("unassignedOnly") {
    q.unassignedOnly = true;
    CHECK(ListIds(s, q) == Ids_{"c4", "c2"});
  }
  SUBCASE("isRead") {
    q.isRead = true;
    CHECK(ListIds(s, q) == Ids_{"c5", "c3", "c2"});
    q.isRead = false;
    CHECK(ListIds(s, q) == Ids_{"c4", "c1"});
  }
  SUBCASE("tagsAny") {
    q.tagsAny = {"vip"};
    CHECK(ListIds(s, q) == Ids_{"c2", "c1"});
    q.tagsAny = {"refund", "other"};
    CHECK(ListIds(s, q) == Ids_{"c5", "c3", "c2"});
    q.tagsAny = {"vip", "refund"};  // c2 carries both and appears once
    CHECK(ListIds(s, q) == Ids_{"c3", "c2", "c1"});
    q.tagsAny = {"VIP"};  // tags match exactly
    CHECK(ListIds(s, q).empty());
    q.tagsAny = {"none"};
    CHECK(ListIds(s, q).empty());
  }
  SUBCASE("customerUuid") {
    q.customerUuid = "u2";
    CHECK(ListIds(s, q) == Ids_{"c4", "c3"});
  }
  SUBCASE("email, case-insensitive") {
    q.email = "aNN@example.COM";
    CHECK(ListIds(s, q) == Ids_{"c5", "c2", "c1"});
    q.email = "bob@example.com";
    CHECK(ListIds(s, q) == Ids_{"c3"});
  }
  SUBCASE("excludeId") {
    q.excludeId = "c3";
    CHECK(ListIds(s, q) == Ids_{"c5", "c4", "c2", "c1"});
  }
  SUBCASE("limit") {
    q.limit = 2;
    CHECK(ListIds(s, q) == Ids_{"c5", "c4"});
    q.limit = 1;
    CHECK(ListIds(s, q) == Ids_{"c5"});
  }
  SUBCASE("other shop sees only its own") {
    CHECK(ListIds(s, Query(kShopB)) == Ids_{"c-b"});
    CHECK(ListIds(s, Query("shop-c")).empty());
  }
}

STORE_TEST("conversations: filters combined, with keyset continuation") {
  StoreFixture fx;
  Store& s = fx.store();
  AddFilterData(s);
  ConversationQuery q = Query(kShopA);

  SUBCASE("status + isRead") {
    q.status = "open";
    q.isRead = false;
    CHECK(ListIds(s, q) == Ids_{"c4", "c1"});
  }
  SUBCASE("related: customerUuid + excludeId") {
    q.customerUuid = "u1";
    q.excludeId = "c1";
    CHECK(ListIds(s, q) == Ids_{"c2"});
  }
  SUBCASE("tagsAny + status") {
    q.tagsAny = {"vip", "refund"};
    q.status = "open";
    CHECK(ListIds(s, q) == Ids_{"c3", "c1"});
  }
  SUBCASE("channel + assignee + status") {
    q.channel = "online_store";
    q.assigneeId = "m1";
    q.status = "resolved";
    CHECK(ListIds(s, q) == Ids_{"c5"});
  }
  SUBCASE("unassignedOnly + tagsAny") {
    q.unassignedOnly = true;
    q.tagsAny = {"refund"};
    CHECK(ListIds(s, q) == Ids_{"c2"});
  }
  SUBCASE("email + tagsAny + after, paged by one") {
    q.email = "ann@example.com";
    q.tagsAny = {"vip", "other"};
    q.limit = 1;
    std::vector<std::string> seen;
    for (int i = 0; i < 5; ++i) {
      auto rows = Get(s, [&](StoreReader& r) { return r.ListConversations(q); });
      if (rows.empty()) break;
      REQUIRE(rows.size() == 1);
      seen.push_back(rows[0].id);
      q.after = ConversationKey{*rows[0].lastActive, *rows[0].pgConvoId};
    }
    CHECK(seen == Ids_{"c5", "c2", "c1"});
  }
  SUBCASE("every filter at once") {
    q.status = "open";
    q.channel = "online_store";
    q.assigneeId = "m1";
    q.isRead = false;
    q.tagsAny = {"vip"};
    q.customerUuid = "u1";
    q.email = "ANN@example.com";
    q.excludeId = "c2";
    CHECK(ListIds(s, q) == Ids_{"c1"});
    q.excludeId = "c1";
    CHECK(ListIds(s, q).empty());
  }
}

// ------------------------------ tags (ConversationReads, ConversationWrites)

STORE_TEST("tags: insert writes them, replace rewrites list, filter and catalog") {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation c1 = MakeConversation(kShopA, "c1", 100);
  c1.tags = {"zeta", "alpha"};
  Conversation c2 = MakeConversation(kShopA, "c2", 200);
  c2.tags = {"alpha", "beta"};
  Conversation cb = MakeConversation(kShopB, "c1", 300);  // same id, other shop
  cb.tags = {"alpha", "foreign"};
  Put(s, [&](StoreWriter& w) -> Status {
    for (Conversation* c : {&c1, &c2, &cb}) LC_RETURN_IF_ERROR(w.InsertConversation(*c));
    return Status::Ok();
  });

  auto catalog = Get(s, [&](StoreReader& r) { return r.ListTagCatalog(kShopA); });
  REQUIRE(catalog.size() == 3);
  CHECK(catalog[0].name == "alpha");
  CHECK(catalog[0].conversationCount == 2);
  CHECK(catalog[1].name == "beta");
  CHECK(catalog[1].conversationCount == 1);
  CHECK(catalog[2].name == "zeta");
  CHECK(catalog[2].conversationCount == 1);
  CHECK(Get(s, [&](StoreReader& r) { return r.ListTagCatalog("shop-c"); }).empty());

  // Order of insertion is kept; duplicates collapse to the first.
  Put(s, [&](StoreWriter& w) { return w.ReplaceConversationTags(kShopA, "c1", {"gamma", "beta", "gamma"}); });
  auto got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "c1"); });
  REQUIRE(got.has_value());
  CHECK(got->tags == std::vector<std::string>{"gamma", "beta"});
  got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopB, "c1"); });
  REQUIRE(got.has_value());
  CHECK(got->tags == std::vector<std::string>{"alpha", "foreign"});

  ConversationQuery q = Query(kShopA);
  q.tagsAny = {"zeta"};
  CHECK(ListIds(s, q).empty());
  q.tagsAny = {"beta"};
  CHECK(ListIds(s, q) == Ids_{"c2", "c1"});

  catalog = Get(s, [&](StoreReader& r) { return r.ListTagCatalog(kShopA); });
  REQUIRE(catalog.size() == 3);
  CHECK(catalog[0].name == "alpha");
  CHECK(catalog[0].conversationCount == 1);
  CHECK(catalog[1].name == "beta");
  CHECK(catalog[1].conversationCount == 2);
  CHECK(catalog[2].name == "gamma");
  CHECK(catalog[2].conversationCount == 1);

  Put(s, [&](StoreWriter& w) { return w.ReplaceConversationTags(kShopA, "c1", {}); });
  got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "c1"); });
  REQUIRE(got.has_value());
  CHECK(got->tags.empty());
  CHECK(Get(s, [&](StoreReader& r) { return r.ListTagCatalog(kShopA); }).size() == 2);

  // Another shop's conversation (or none) cannot be tagged through this shop.
  Status st = s.Write([&](StoreWriter& w) { return w.ReplaceConversationTags(kShopA, "c-missing", {"x"}); });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::kNotFound);
  st = s.Write([&](StoreWriter& w) { return w.ReplaceConversationTags("shop-c", "c1", {"x"}); });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::kNotFound);
  CHECK(Get(s, [&](StoreReader& r) { return r.ListTagCatalog("shop-c"); }).empty());
}

// ------------------------------ messages (MessageReads, MessageWrites)

STORE_TEST("messages: seq order, direction, afterSeq, deleted, notes, limit, GetMessage") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversations(s, kShopA, {"c1", "c2"});
  Message m1 = MakeFullMessage(kShopA, "c1", "m1");
  Message m2 = MakeMessage(kShopA, "c1", "m2", 2000);
  m2.isNote = true;
  Message m3 = MakeMessage(kShopA, "c1", "m3", 3000);
  m3.isDeleted = true;
  Message m4 = MakeMessage(kShopA, "c1", "m4", 4000);
  Message m5 = MakeMessage(kShopA, "c1", "m5", 5000);
  Message other = MakeMessage(kShopA, "c2", "m-other", 1500);
  Put(s, [&](StoreWriter& w) -> Status {
    for (Message* m : {&m1, &m2, &m3, &other, &m4, &m5}) LC_RETURN_IF_ERROR(w.InsertMessage(*m));
    return Status::Ok();
  });
  CHECK(m1.seq > 0);
  CHECK(m2.seq > m1.seq);
  CHECK(m3.seq > m2.seq);
  CHECK(m4.seq > other.seq);
  CHECK(m5.seq > m4.seq);

  MessageQuery q = Messages(kShopA, "c1");
  CHECK(MessageIds(s, q) == Ids_{"m1", "m2", "m4", "m5"});
  q.includeDeleted = true;
  CHECK(MessageIds(s, q) == Ids_{"m1", "m2", "m3", "m4", "m5"});
  q.includeDeleted = false;
  q.includeNotes = false;
  CHECK(MessageIds(s, q) == Ids_{"m1", "m4", "m5"});
  q.includeNotes = true;
  q.descending = true;
  CHECK(MessageIds(s, q) == Ids_{"m5", "m4", "m2", "m1"});
  q.afterSeq = m4.seq;
  CHECK(MessageIds(s, q) == Ids_{"m2", "m1"});
  q.includeDeleted = true;
  CHECK(MessageIds(s, q) == Ids_{"m3", "m2", "m1"});
  q.descending = false;
  q.includeDeleted = false;
  q.afterSeq = m2.seq;
  CHECK(MessageIds(s, q) == Ids_{"m4", "m5"});
  q.afterSeq = m5.seq;
  CHECK(MessageIds(s, q).empty());
  q.afterSeq.reset();
  q.limit = 2;
  CHECK(MessageIds(s, q) == Ids_{"m1", "m2"});
  q.descending = true;
  CHECK(MessageIds(s, q) == Ids_{"m5", "m4"});
  CHECK(MessageIds(s, Messages(kShopA, "c2")) == Ids_{"m-other"});
  CHECK(MessageIds(s, Messages(kShopB, "c1")).empty());

  // Every field round-trips, through the list and through GetMessage.
  auto listed = Get(s, [&](StoreReader& r) { return r.ListMessages(Messages(kShopA, "c1")); });
  REQUIRE_FALSE(listed.empty());
  CheckSame(listed[0], m1);
  auto got = Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c1", "m1"); });
  REQUIRE(got.has_value());
  CheckSame(*got, m1);

  got = Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c1", "m3"); });
  REQUIRE(got.has_value());
  CHECK(got->isDeleted);
  got = Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c1", std::to_string(m3.seq)); });
  REQUIRE(got.has_value());
  CHECK(got->id == "m3");
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c2", "m1"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c2", std::to_string(m1.seq)); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetMessage(kShopB, "c1", "m1"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c1", "999999"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c1", "m9"); }).has_value());
}

STORE_TEST("messages: UpdateMessage rewrites the record within its shop") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversations(s, kShopA, {"c1"});
  Message m = MakeMessage(kShopA, "c1", "m1", 1000);
  Put(s, [&](StoreWriter& w) { return w.InsertMessage(m); });

  Message u = MakeFullMessage(kShopA, "c1", "m1");
  u.seq = m.seq;
  u.isDeleted = true;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateMessage(u); }) == true);
  auto got = Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c1", "m1"); });
  REQUIRE(got.has_value());
  CheckSame(*got, u);
  CHECK(MessageIds(s, Messages(kShopA, "c1")).empty());

  Message foreign = u;
  foreign.shopId = kShopB;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateMessage(foreign); }) == false);
  CheckInternalError(s.Write([&](StoreWriter& w) { return w.InsertMessage(m); }));
}

// ------------------------------ notes, attributes (NoteReads, NoteWrites, AttributeReads, AttributeWrites)

STORE_TEST("notes: insert, list in createdAt order, get, update, delete") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversations(s, kShopA, {"c1", "c2"});
  Note n1{"n1", kShopA, "c1", "call back", false, 2000, 2000};
  Note n2{"n2", kShopA, "c1", "refund sent", false, 1000, 1000};
  Note n3{"n3", kShopA, "c2", "other conversation", false, 500, 500};
  Put(s, [&](StoreWriter& w) -> Status {
    for (const Note* n : {&n1, &n2, &n3}) LC_RETURN_IF_ERROR(w.InsertNote(*n));
    return Status::Ok();
  });

  auto list = Get(s, [&](StoreReader& r) { return r.ListNotes(kShopA, "c1"); });
  REQUIRE(list.size() == 2);
  CheckSame(list[0], n2);
  CheckSame(list[1], n1);
  auto got = Get(s, [&](StoreReader& r) { return r.GetNote(kShopA, "c1", "n1"); });
  REQUIRE(got.has_value());
  CheckSame(*got, n1);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetNote(kShopA, "c2", "n1"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetNote(kShopB, "c1", "n1"); }).has_value());

  n1.text = "called";
  n1.isUpdated = true;
  n1.updatedAt = 9000;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateNote(n1); }) == true);
  got = Get(s, [&](StoreReader& r) { return r.GetNote(kShopA, "c1", "n1"); });
  REQUIRE(got.has_value());
  CheckSame(*got, n1);
  Note foreign = n1;
  foreign.shopId = kShopB;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateNote(foreign); }) == false);

  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteNote(kShopB, "c1", "n1"); }) == false);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteNote(kShopA, "c2", "n1"); }) == false);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteNote(kShopA, "c1", "n1"); }) == true);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteNote(kShopA, "c1", "n1"); }) == false);
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListNotes(kShopA, "c1"); })) == Ids_{"n2"});
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListNotes(kShopA, "c2"); })) == Ids_{"n3"});
}

STORE_TEST("attributes: insert, list, get, find by name, update, delete") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversations(s, kShopA, {"c1", "c2"});
  Attribute a1{"a1", kShopA, "c1", "plan", "gold", 1000, 1000};
  Attribute a2{"a2", kShopA, "c1", "order", "#1001", 2000, 2500};
  Attribute a3{"a3", kShopA, "c2", "plan", "silver", 500, 500};
  Put(s, [&](StoreWriter& w) -> Status {
    for (const Attribute* a : {&a2, &a1, &a3}) LC_RETURN_IF_ERROR(w.InsertAttribute(*a));
    return Status::Ok();
  });

  auto list = Get(s, [&](StoreReader& r) { return r.ListAttributes(kShopA, "c1"); });
  REQUIRE(list.size() == 2);
  CheckSame(list[0], a1);
  CheckSame(list[1], a2);
  auto got = Get(s, [&](StoreReader& r) { return r.GetAttribute(kShopA, "c1", "a2"); });
  REQUIRE(got.has_value());
  CheckSame(*got, a2);
  got = Get(s, [&](StoreReader& r) { return r.FindAttributeByName(kShopA, "c1", "plan"); });
  REQUIRE(got.has_value());
  CheckSame(*got, a1);
  got = Get(s, [&](StoreReader& r) { return r.FindAttributeByName(kShopA, "c2", "plan"); });
  REQUIRE(got.has_value());
  CheckSame(*got, a3);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindAttributeByName(kShopA, "c1", "missing"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindAttributeByName(kShopB, "c1", "plan"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetAttribute(kShopA, "c2", "a1"); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetAttribute(kShopB, "c1", "a1"); }).has_value());

  a1.name = "tier";
  a1.value = "platinum";
  a1.updatedAt = 7000;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateAttribute(a1); }) == true);
  got = Get(s, [&](StoreReader& r) { return r.FindAttributeByName(kShopA, "c1", "tier"); });
  REQUIRE(got.has_value());
  CheckSame(*got, a1);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindAttributeByName(kShopA, "c1", "plan"); }).has_value());
  Attribute foreign = a1;
  foreign.shopId = kShopB;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateAttribute(foreign); }) == false);

  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteAttribute(kShopB, "c1", "a1"); }) == false);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteAttribute(kShopA, "c1", "a1"); }) == true);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.DeleteAttribute(kShopA, "c1", "a1"); }) == false);
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListAttributes(kShopA, "c1"); })) == Ids_{"a2"});
}

// ------------------------------ browsed pages, summary, typing (ActivityReads, ActivityWrites)

STORE_TEST("browsed pages: keep-most-recent pruning, newest first, since and limit") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversations(s, kShopA, {"c1", "c2"});
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertBrowsedPage(kShopA, "c2", BrowsedPage{"https://shop/c2", std::nullopt, 10}, 50));
    for (int i = 0; i < 60; ++i) {
      BrowsedPage p{"https://shop/p" + std::to_string(i), "Page " + std::to_string(i), 1000 + i * 10};
      LC_RETURN_IF_ERROR(w.InsertBrowsedPage(kShopA, "c1", p, 50));
    }
    return Status::Ok();
  });

  auto pages = Get(s, [&](StoreReader& r) { return r.ListBrowsedPages(kShopA, "c1", 0, 100); });
  REQUIRE(pages.size() == 50);
  CHECK(pages.front().url == "https://shop/p59");
  CHECK(pages.front().title == std::optional<std::string>("Page 59"));
  CHECK(pages.front().viewedAt == 1590);
  CHECK(pages.back().url == "https://shop/p10");
  CHECK(pages.back().viewedAt == 1100);
  for (size_t i = 1; i < pages.size(); ++i) CHECK(pages[i - 1].viewedAt > pages[i].viewedAt);

  pages = Get(s, [&](StoreReader& r) { return r.ListBrowsedPages(kShopA, "c1", 1500, 100); });
  REQUIRE(pages.size() == 10);
  CHECK(pages.back().viewedAt == 1500);
  pages = Get(s, [&](StoreReader& r) { return r.ListBrowsedPages(kShopA, "c1", 0, 3); });
  REQUIRE(pages.size() == 3);
  CHECK(pages[2].url == "https://shop/p57");

  // Pruning one conversation never touches another's pages.
  pages = Get(s, [&](StoreReader& r) { return r.ListBrowsedPages(kShopA, "c2", 0, 100); });
  REQUIRE(pages.size() == 1);
  CHECK(pages[0].url == "https://shop/c2");
  CHECK_FALSE(pages[0].title.has_value());
  CHECK(Get(s, [&](StoreReader& r) { return r.ListBrowsedPages(kShopB, "c1", 0, 100); }).empty());

  // A smaller keep prunes down to it.
  Put(s, [&](StoreWriter& w) {
    return w.InsertBrowsedPage(kShopA, "c1", BrowsedPage{"https://shop/last", std::nullopt, 2000}, 2);
  });
  pages = Get(s, [&](StoreReader& r) { return r.ListBrowsedPages(kShopA, "c1", 0, 100); });
  REQUIRE(pages.size() == 2);
  CHECK(pages[0].url == "https://shop/last");
  CHECK(pages[1].url == "https://shop/p59");
}

STORE_TEST("summary and typing: upserts") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversations(s, kShopA, {"c1"});
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetSummary(kShopA, "c1"); }).has_value());
  Put(s, [&](StoreWriter& w) { return w.PutSummary(kShopA, Summary{"c1", "first", "extractive", 100}); });
  Put(s, [&](StoreWriter& w) { return w.PutSummary(kShopA, Summary{"c1", "second", "llm", 200}); });
  auto sum = Get(s, [&](StoreReader& r) { return r.GetSummary(kShopA, "c1"); });
  REQUIRE(sum.has_value());
  CHECK(sum->conversationId == "c1");
  CHECK(sum->text == "second");
  CHECK(sum->summarizer == "llm");
  CHECK(sum->generatedAt == 200);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetSummary(kShopB, "c1"); }).has_value());

  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.PutTyping(kShopA, TypingState{"c1", "m1", true, 100}));
    LC_RETURN_IF_ERROR(w.PutTyping(kShopA, TypingState{"c1", "m2", false, 200}));
    return w.PutTyping(kShopA, TypingState{"c1", "m1", false, 300});
  });
  auto typing = Get(s, [&](StoreReader& r) { return r.ListTyping(kShopA, "c1"); });
  std::sort(typing.begin(), typing.end(),
            [](const TypingState& a, const TypingState& b) { return a.memberId < b.memberId; });
  REQUIRE(typing.size() == 2);
  CHECK(typing[0].conversationId == "c1");
  CHECK(typing[0].memberId == "m1");
  CHECK(typing[0].active == false);
  CHECK(typing[0].updatedAt == 300);
  CHECK(typing[1].memberId == "m2");
  CHECK(typing[1].updatedAt == 200);
  CHECK(Get(s, [&](StoreReader& r) { return r.ListTyping(kShopB, "c1"); }).empty());
}

// ------------------------------ sessions, events (MemberAndSessionReads/Writes, OutboxReads/Writes)

STORE_TEST("sessions: insert, get across shops by token hash, delete") {
  StoreFixture fx;
  Store& s = fx.store();
  AdminSession a{"tok-hash-1", kShopA, "m1", 1000, 2000};
  Put(s, [&](StoreWriter& w) { return w.InsertSession(a); });
  auto got = Get(s, [&](StoreReader& r) { return r.GetSession("tok-hash-1"); });
  REQUIRE(got.has_value());
  CHECK(got->tokenHash == a.tokenHash);
  CHECK(got->shopId == a.shopId);
  CHECK(got->memberId == a.memberId);
  CHECK(got->createdAt == 1000);
  CHECK(got->expiresAt == 2000);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetSession("tok-hash-2"); }).has_value());
  CheckInternalError(s.Write([&](StoreWriter& w) { return w.InsertSession(a); }));
  Put(s, [&](StoreWriter& w) { return w.DeleteSession("tok-hash-1"); });
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetSession("tok-hash-1"); }).has_value());
  Put(s, [&](StoreWriter& w) { return w.DeleteSession("tok-hash-1"); });  // deleting nothing is fine
}

STORE_TEST("events: oldest first, per shop, limit") {
  StoreFixture fx;
  Store& s = fx.store();
  Event e1{"e1", kShopA, "message.created", "c1", 1000, R"({"text":"hi \"there\""})"};
  Event e2{"e2", kShopA, "customer.created", std::nullopt, 1001, "{}"};
  Event eb{"eb", kShopB, "message.created", "c9", 1002, "{}"};
  Event e3{"e3", kShopA, "conversation.assigned", "c1", 1003, R"({"memberId":"m1"})"};
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.AppendEvent(e1));
    LC_RETURN_IF_ERROR(w.AppendEvent(e2));
    return w.AppendEvent(eb);
  });
  Put(s, [&](StoreWriter& w) { return w.AppendEvent(e3); });

  auto events = Get(s, [&](StoreReader& r) { return r.ListEvents(kShopA, 10); });
  REQUIRE(events.size() == 3);
  CheckSame(events[0], e1);
  CheckSame(events[1], e2);
  CheckSame(events[2], e3);
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListEvents(kShopA, 2); })) == Ids_{"e1", "e2"});
  CHECK(Ids(Get(s, [&](StoreReader& r) { return r.ListEvents(kShopB, 10); })) == Ids_{"eb"});
  CheckInternalError(s.Write([&](StoreWriter& w) { return w.AppendEvent(e1); }));
}

// ------------------------------ transactions (Store::Write)

STORE_TEST("write: an error from fn rolls back everything it wrote") {
  StoreFixture fx;
  Store& s = fx.store();
  AddConversations(s, kShopA, {"c1"});
  Status st = s.Write([&](StoreWriter& w) -> Status {
    Message m = MakeMessage(kShopA, "c1", "m1", 1000);
    LC_RETURN_IF_ERROR(w.InsertMessage(m));
    LC_RETURN_IF_ERROR(w.AppendEvent(Event{"e1", kShopA, "message.created", "c1", 1000, "{}"}));
    Conversation c2 = MakeConversation(kShopA, "c2", 2000);
    LC_RETURN_IF_ERROR(w.InsertConversation(c2));
    LC_RETURN_IF_ERROR(w.ReplaceConversationTags(kShopA, "c1", {"t"}));
    // The writer sees its own uncommitted work.
    LC_ASSIGN_OR_RETURN(auto seen, w.GetMessage(kShopA, "c1", "m1"));
    if (!seen) return Error{ErrorCode::kInternal, "own write not visible"};
    return Error{ErrorCode::kConflict, "changed my mind"};
  });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::kConflict);
  CHECK(st.error().message == "changed my mind");

  CHECK(MessageIds(s, Messages(kShopA, "c1")).empty());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetMessage(kShopA, "c1", "m1"); }).has_value());
  CHECK(Get(s, [&](StoreReader& r) { return r.ListEvents(kShopA, 10); }).empty());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "c2"); }).has_value());
  CHECK(Get(s, [&](StoreReader& r) { return r.ListTagCatalog(kShopA); }).empty());
  CHECK(ListIds(s, Query(kShopA)) == Ids_{"c1"});

  // The store stays usable after a rollback.
  Put(s, [&](StoreWriter& w) {
    Message m = MakeMessage(kShopA, "c1", "m1", 1000);
    return w.InsertMessage(m);
  });
  CHECK(MessageIds(s, Messages(kShopA, "c1")) == Ids_{"m1"});
}

STORE_TEST("write: a failed statement inside fn fails the whole write") {
  StoreFixture fx;
  Store& s = fx.store();
  Put(s, [&](StoreWriter& w) { return w.InsertShop(MakeShop(kShopA)); });
  Status st = s.Write([&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertShop(MakeShop(kShopB)));
    return w.InsertShop(MakeShop(kShopA));  // duplicate
  });
  CheckInternalError(st);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetShop(kShopB); }).has_value());
}

// ------------------------------ shop scoping sweep (every interface above)

STORE_TEST("scoping: nothing of shop A is visible or writable through shop B") {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation c = MakeFullConversation(kShopA, "c1");
  Message m = MakeFullMessage(kShopA, "c1", "m1");
  Member member = MakeMember(kShopA, "m1", 1000);
  Customer customer = MakeFullCustomer(kShopA, "cu1");
  Note note{"n1", kShopA, "c1", "note", false, 1, 1};
  Attribute attr{"a1", kShopA, "c1", "plan", "gold", 1, 1};
  ApiKey key = MakeApiKey(kShopA, "k1", 1000);
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertShop(MakeShop(kShopA)));
    LC_RETURN_IF_ERROR(w.InsertConversation(c));
    LC_RETURN_IF_ERROR(w.InsertMessage(m));
    LC_RETURN_IF_ERROR(w.InsertMember(member));
    LC_RETURN_IF_ERROR(w.InsertCustomer(customer));
    LC_RETURN_IF_ERROR(w.InsertNote(note));
    LC_RETURN_IF_ERROR(w.InsertAttribute(attr));
    LC_RETURN_IF_ERROR(w.InsertApiKey(key));
    LC_RETURN_IF_ERROR(w.InsertBrowsedPage(kShopA, "c1", BrowsedPage{"https://x", std::nullopt, 5}, 50));
    LC_RETURN_IF_ERROR(w.PutSummary(kShopA, Summary{"c1", "sum", "x", 1}));
    LC_RETURN_IF_ERROR(w.PutTyping(kShopA, TypingState{"c1", "m1", true, 1}));
    return w.AppendEvent(Event{"e1", kShopA, "message.created", "c1", 1, "{}"});
  });

  Status st = s.Read([&](StoreReader& r) -> Status {
    const std::string pg = std::to_string(*c.pgConvoId);
    CHECK_FALSE(Value(r.GetShop(kShopB)).has_value());
    CHECK(Value(r.ListApiKeys(kShopB)).empty());
    CHECK_FALSE(Value(r.GetMember(kShopB, "m1")).has_value());
    CHECK(Value(r.ListMembers(kShopB)).empty());
    CHECK_FALSE(Value(r.GetCustomer(kShopB, "cu1")).has_value());
    CHECK_FALSE(Value(r.FindCustomerByEmail(kShopB, *customer.email)).has_value());
    for (const std::string& form : {std::string("c1"), *c.firestoreId, pg})
      CHECK_FALSE(Value(r.FindConversation(kShopB, form)).has_value());
    CHECK(Value(r.ListConversations(Query(kShopB))).empty());
    CHECK(Value(r.ListMessages(Messages(kShopB, "c1"))).empty());
    CHECK_FALSE(Value(r.GetMessage(kShopB, "c1", "m1")).has_value());
    CHECK_FALSE(Value(r.GetMessage(kShopB, "c1", std::to_string(m.seq))).has_value());
    CHECK(Value(r.ListTagCatalog(kShopB)).empty());
    CHECK(Value(r.ListNotes(kShopB, "c1")).empty());
    CHECK_FALSE(Value(r.GetNote(kShopB, "c1", "n1")).has_value());
    CHECK(Value(r.ListAttributes(kShopB, "c1")).empty());
    CHECK_FALSE(Value(r.GetAttribute(kShopB, "c1", "a1")).has_value());
    CHECK_FALSE(Value(r.FindAttributeByName(kShopB, "c1", "plan")).has_value());
    CHECK(Value(r.ListBrowsedPages(kShopB, "c1", 0, 50)).empty());
    CHECK_FALSE(Value(r.GetSummary(kShopB, "c1")).has_value());
    CHECK(Value(r.ListTyping(kShopB, "c1")).empty());
    CHECK(Value(r.ListEvents(kShopB, 50)).empty());
    return Status::Ok();
  });
  Ok(st);

  auto asB = [](auto record) {
    record.shopId = kShopB;
    return record;
  };
  st = s.Write([&](StoreWriter& w) -> Status {
    CHECK(Value(w.UpdateMember(asB(member))) == false);
    CHECK(Value(w.UpdateCustomer(asB(customer))) == false);
    CHECK(Value(w.UpdateConversation(asB(c))) == false);
    CHECK(Value(w.UpdateMessage(asB(m))) == false);
    CHECK(Value(w.UpdateNote(asB(note))) == false);
    CHECK(Value(w.DeleteNote(kShopB, "c1", "n1")) == false);
    CHECK(Value(w.UpdateAttribute(asB(attr))) == false);
    CHECK(Value(w.DeleteAttribute(kShopB, "c1", "a1")) == false);
    CHECK(Value(w.RevokeApiKey(kShopB, "k1", 5)) == false);
    return Status::Ok();
  });
  Ok(st);

  // Shop A's records are untouched by the attempts.
  auto gotC = Get(s, [&](StoreReader& r) { return r.FindConversation(kShopA, "c1"); });
  REQUIRE(gotC.has_value());
  CheckSame(*gotC, c);
  CHECK(Get(s, [&](StoreReader& r) { return r.GetNote(kShopA, "c1", "n1"); }).has_value());
  CHECK(Get(s, [&](StoreReader& r) { return r.GetAttribute(kShopA, "c1", "a1"); }).has_value());
  auto gotKey = Get(s, [&](StoreReader& r) { return r.FindApiKeyByHash(key.keyHash); });
  REQUIRE(gotKey.has_value());
  CHECK_FALSE(gotKey->revokedAt.has_value());
}

}  // namespace
}  // namespace livechat::testing
