// Migrations applied to an existing file: a database left at an older schema
// version is brought up to date on open, with derived data backfilled.
#include <sqlite3.h>

#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

std::int64_t CountOf(Store& s, const std::string& shop) {
  return Get(s, [&](StoreReader& r) { return r.CountCustomers(shop); });
}

// Puts the file back to schema version 4 (before the customer counters and
// the later migrations).
void DowngradeToV4(const std::string& path) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db,
                        "DROP TRIGGER customers_count_insert; DROP TRIGGER customers_count_delete; "
                        "DROP TABLE shop_customer_counts; DROP TABLE visitor_sessions; PRAGMA user_version = 4;",
                        nullptr, nullptr, &err);
  CHECK_MESSAGE(rc == SQLITE_OK, (err ? err : ""));
  sqlite3_free(err);
  sqlite3_close(db);
}

}  // namespace

TEST_CASE("sqlite migration 5: customer counts are backfilled, then kept by every insert") {
  TempDir dir;
  const SqliteOptions options{dir.File("migrate.db"), 2, 5000};
  {
    auto s = OpenOrFail(options);
    Put(*s, [&](StoreWriter& w) -> Status {
      LC_RETURN_IF_ERROR(w.InsertShop(MakeShop("shop-a")));
      LC_RETURN_IF_ERROR(w.InsertShop(MakeShop("shop-b")));
      for (int i = 0; i < 3; ++i) LC_RETURN_IF_ERROR(w.InsertCustomer(MakeSparseCustomer("shop-a", "a" + std::to_string(i))));
      for (int i = 0; i < 2; ++i) LC_RETURN_IF_ERROR(w.InsertCustomer(MakeSparseCustomer("shop-b", "b" + std::to_string(i))));
      return Status::Ok();
    });
    CHECK(CountOf(*s, "shop-a") == 3);
    CHECK(CountOf(*s, "shop-b") == 2);
  }
  DowngradeToV4(options.path);
  auto s = OpenOrFail(options);
  CHECK(s->Healthy());
  CHECK(CountOf(*s, "shop-a") == 3);
  CHECK(CountOf(*s, "shop-b") == 2);
  CHECK(CountOf(*s, "shop-none") == 0);
  Put(*s, [&](StoreWriter& w) { return w.InsertCustomer(MakeSparseCustomer("shop-a", "a9")); });
  CHECK(CountOf(*s, "shop-a") == 4);
  // A rolled-back insert leaves the count as it was.
  Status failed = s->Write([&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertCustomer(MakeSparseCustomer("shop-b", "b9")));
    return MakeError(ErrorCode::kInternal, "abort");
  });
  CHECK_FALSE(failed.ok());
  CHECK(CountOf(*s, "shop-b") == 2);
}

}  // namespace livechat::testing
