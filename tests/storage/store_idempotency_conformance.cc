// Idempotency-Key records (IdempotencyReads, IdempotencyWrites in
// livechat/store/idempotency.h): every Store keeps them the same way. What
// matches and how long a record lives are ChatService's rules
// (tests/core/idempotency_test.cc); here only the store's part: a record per
// (shop, scope, key), replaced whole, deleted, purged oldest first once expired.
#include <string>

#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

IdempotencyRecord Running(const std::string& shop, const std::string& scope, const std::string& key, Millis at) {
  IdempotencyRecord r;
  r.shopId = shop;
  r.scope = scope;
  r.key = key;
  r.fingerprint = std::string(64, 'f');
  r.done = false;
  r.createdAt = at;
  r.leaseUntil = at + 60'000;
  r.expiresAt = at + 86'400'000;
  return r;
}

std::optional<IdempotencyRecord> Find(Store& s, const std::string& shop, const std::string& scope,
                                      const std::string& key) {
  return Get(s, [&](StoreReader& r) { return r.GetIdempotencyRecord(shop, scope, key); });
}

void CheckSame(const IdempotencyRecord& a, const IdempotencyRecord& b) {
  CHECK(a.shopId == b.shopId);
  CHECK(a.scope == b.scope);
  CHECK(a.key == b.key);
  CHECK(a.fingerprint == b.fingerprint);
  CHECK(a.done == b.done);
  CHECK(a.status == b.status);
  CHECK(a.contentType == b.contentType);
  CHECK(a.body == b.body);
  CHECK(a.createdAt == b.createdAt);
  CHECK(a.leaseUntil == b.leaseUntil);
  CHECK(a.expiresAt == b.expiresAt);
}

bool Delete(Store& s, const std::string& shop, const std::string& scope, const std::string& key) {
  bool deleted = false;
  Put(s, [&](StoreWriter& w) -> Status {
    auto r = w.DeleteIdempotencyRecord(shop, scope, key);
    if (!r.ok()) return r.error();
    deleted = *r;
    return Status::Ok();
  });
  return deleted;
}

std::int64_t Purge(Store& s, Millis now, int limit) {
  std::int64_t purged = -1;
  Put(s, [&](StoreWriter& w) -> Status {
    auto r = w.PurgeIdempotencyRecords(now, limit);
    if (!r.ok()) return r.error();
    purged = *r;
    return Status::Ok();
  });
  return purged;
}

}  // namespace

STORE_TEST("idempotency: a running record, then its kept answer, round-trip whole; absent is nullopt") {
  StoreFixture fx;
  Store& s = fx.store();
  CHECK_FALSE(Find(s, "shop-a", "key:k1", "order-7").has_value());
  IdempotencyRecord r = Running("shop-a", "key:k1", "order-7", 1'767'225'600'000);
  Put(s, [&](StoreWriter& w) { return w.PutIdempotencyRecord(r); });
  auto got = Find(s, "shop-a", "key:k1", "order-7");
  REQUIRE(got.has_value());
  CheckSame(*got, r);
  // The first request finished: the same record now keeps its answer.
  r.done = true;
  r.status = 201;
  r.contentType = "application/json; charset=utf-8";
  r.body = R"({"data":{"text":"Grüße, 你好 🙂"}})";
  r.leaseUntil = 0;
  Put(s, [&](StoreWriter& w) { return w.PutIdempotencyRecord(r); });
  got = Find(s, "shop-a", "key:k1", "order-7");
  REQUIRE(got.has_value());
  CheckSame(*got, r);
}

STORE_TEST("idempotency: shop, scope and key each name a different record") {
  StoreFixture fx;
  Store& s = fx.store();
  IdempotencyRecord a = Running("shop-a", "key:k1", "x", 1000);
  IdempotencyRecord otherShop = Running("shop-b", "key:k1", "x", 2000);
  IdempotencyRecord otherScope = Running("shop-a", "member:m1", "x", 3000);
  IdempotencyRecord otherKey = Running("shop-a", "key:k1", "X", 4000);  // keys are case-sensitive
  Put(s, [&](StoreWriter& w) -> Status {
    for (const auto* r : {&a, &otherShop, &otherScope, &otherKey}) LC_RETURN_IF_ERROR(w.PutIdempotencyRecord(*r));
    return Status::Ok();
  });
  for (const auto* r : {&a, &otherShop, &otherScope, &otherKey}) {
    auto got = Find(s, r->shopId, r->scope, r->key);
    REQUIRE(got.has_value());
    CHECK(got->createdAt == r->createdAt);
  }
  // Deleting one leaves the others; a second delete finds nothing.
  CHECK(Delete(s, "shop-a", "key:k1", "x"));
  CHECK_FALSE(Delete(s, "shop-a", "key:k1", "x"));
  CHECK_FALSE(Find(s, "shop-a", "key:k1", "x").has_value());
  CHECK(Find(s, "shop-b", "key:k1", "x").has_value());
  CHECK(Find(s, "shop-a", "member:m1", "x").has_value());
  CHECK(Find(s, "shop-a", "key:k1", "X").has_value());
  // Another shop cannot delete a shop's record.
  CHECK_FALSE(Delete(s, "shop-b", "member:m1", "x"));
  CHECK(Find(s, "shop-a", "member:m1", "x").has_value());
}

STORE_TEST("idempotency: purge removes expired records across shops, oldest first, at most `limit`") {
  StoreFixture fx;
  Store& s = fx.store();
  auto put = [&](const std::string& shop, const std::string& key, Millis expiresAt) {
    IdempotencyRecord r = Running(shop, "key:k1", key, 1000);
    r.expiresAt = expiresAt;
    Put(s, [&](StoreWriter& w) { return w.PutIdempotencyRecord(r); });
  };
  put("shop-a", "e1", 5000);
  put("shop-b", "e2", 6000);
  put("shop-a", "e3", 7000);
  put("shop-b", "edge", 8000);   // expires exactly at `now`: expired
  put("shop-a", "live", 8001);
  CHECK(Purge(s, 8000, 2) == 2);  // the two oldest
  CHECK_FALSE(Find(s, "shop-a", "key:k1", "e1").has_value());
  CHECK_FALSE(Find(s, "shop-b", "key:k1", "e2").has_value());
  CHECK(Find(s, "shop-a", "key:k1", "e3").has_value());
  CHECK(Purge(s, 8000, 100) == 2);
  CHECK_FALSE(Find(s, "shop-a", "key:k1", "e3").has_value());
  CHECK_FALSE(Find(s, "shop-b", "key:k1", "edge").has_value());
  CHECK(Find(s, "shop-a", "key:k1", "live").has_value());
  CHECK(Purge(s, 8000, 100) == 0);
}

}  // namespace livechat::testing
