// Storefront visitor sessions (migration 6): every Store keeps them the same way.
#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

VisitorSession MakeVisitor(const std::string& shop, const std::string& id, const std::string& tokenHash) {
  VisitorSession v;
  v.id = id;
  v.shopId = shop;
  v.tokenHash = tokenHash;
  v.stateJson = R"({"locale":"pt-BR"})";
  v.createdAt = 1000;
  v.lastSeenAt = 1000;
  return v;
}

}  // namespace

STORE_TEST("visitor sessions: insert, find across shops by token hash, update, other shop untouched") {
  StoreFixture fx;
  Store& s = fx.store();
  VisitorSession a = MakeVisitor(kShopA, "v1", "hash-a");
  VisitorSession b = MakeVisitor(kShopB, "v1", "hash-b");  // the same id in another shop is another row
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertVisitorSession(a));
    return w.InsertVisitorSession(b);
  });

  auto got = Get(s, [&](StoreReader& r) { return r.FindVisitorSession("hash-a"); });
  REQUIRE(got.has_value());
  CHECK(got->id == "v1");
  CHECK(got->shopId == kShopA);
  CHECK(got->tokenHash == "hash-a");
  CHECK_FALSE(got->customerId.has_value());
  CHECK_FALSE(got->conversationId.has_value());
  CHECK(got->stateJson == R"({"locale":"pt-BR"})");
  CHECK(got->createdAt == 1000);
  CHECK_FALSE(got->endedAt.has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindVisitorSession("hash-x"); }).has_value());

  // A token hash is unique across shops.
  Status dup = s.Write([&](StoreWriter& w) -> Status { return w.InsertVisitorSession(MakeVisitor(kShopB, "v2", "hash-a")); });
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().code == ErrorCode::kInternal);

  a.customerId = "cust-1";
  a.conversationId = "conv-1";
  a.stateJson = "{}";
  a.lastSeenAt = 2000;
  a.endedAt = 2500;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateVisitorSession(a); }) == true);
  got = Get(s, [&](StoreReader& r) { return r.FindVisitorSession("hash-a"); });
  REQUIRE(got.has_value());
  CHECK(got->customerId == "cust-1");
  CHECK(got->conversationId == "conv-1");
  CHECK(got->stateJson == "{}");
  CHECK(got->lastSeenAt == 2000);
  CHECK(got->endedAt == 2500);

  // Shop B's row with the same id did not move.
  auto other = Get(s, [&](StoreReader& r) { return r.FindVisitorSession("hash-b"); });
  REQUIRE(other.has_value());
  CHECK_FALSE(other->customerId.has_value());
  CHECK(other->lastSeenAt == 1000);

  // An update naming a session of no shop changes nothing.
  VisitorSession ghost = MakeVisitor("shop-none", "v1", "hash-z");
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateVisitorSession(ghost); }) == false);
}

}  // namespace livechat::testing
