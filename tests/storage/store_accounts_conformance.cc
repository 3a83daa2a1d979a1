// Store conformance, accounts (livechat/store/accounts.h): shops, API keys,
// members and their admin sessions. Every Store must pass it.
#include <string>
#include <vector>

#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

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

// ------------------------------ admin sessions (MemberAndSessionReads, MemberAndSessionWrites)

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

}  // namespace
}  // namespace livechat::testing
