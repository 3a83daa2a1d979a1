// Store conformance, customers (CustomerReads, CustomerWrites in
// livechat/store/conversations.h). Every Store must pass it.
#include <string>
#include <vector>

#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

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

}  // namespace
}  // namespace livechat::testing
