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

void Exec(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
  CHECK_MESSAGE(rc == SQLITE_OK, (err ? err : ""));
  sqlite3_free(err);
  sqlite3_close(db);
}

// Removes what version 8 (privacy and platform requests) added.
constexpr const char* kUndoV8 =
    "DROP TABLE channel_integrations; DROP TABLE platform_requests; DROP TABLE data_requests; "
    "DROP INDEX customers_shopify; DROP INDEX conversations_customer_all; DROP INDEX visitor_sessions_customer; "
    "DROP INDEX admin_sessions_shop; ALTER TABLE customers DROP COLUMN redacted_at; "
    "ALTER TABLE conversations DROP COLUMN redacted_at; PRAGMA user_version = 7;";

// Removes what versions 6 (store knowledge), 7 (visitor sessions) and 8 added.
constexpr const char* kUndoV6 =
    "DROP TABLE channel_integrations; DROP TABLE platform_requests; DROP TABLE data_requests; "
    "DROP INDEX customers_shopify; DROP INDEX conversations_customer_all; "
    "DROP INDEX admin_sessions_shop; ALTER TABLE customers DROP COLUMN redacted_at; "
    "ALTER TABLE conversations DROP COLUMN redacted_at; "
    "DROP TABLE visitor_sessions; DROP TABLE catalog_fts; DROP TABLE catalog_keys; DROP TABLE catalog_items; "
    "DROP TABLE shop_documents; PRAGMA user_version = 5;";

// Puts the file back to schema version 4 (before the customer counters).
void DowngradeToV4(const std::string& path) {
  Exec(path, kUndoV6);
  sqlite3* db = nullptr;
  REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
  char* err = nullptr;
  int rc = sqlite3_exec(db,
                        "DROP TRIGGER customers_count_insert; DROP TRIGGER customers_count_delete; "
                        "DROP TABLE shop_customer_counts; PRAGMA user_version = 4;",
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

TEST_CASE("sqlite migrations 6 and 7: a version 5 file gains the store-knowledge and visitor tables and keeps its data") {
  TempDir dir;
  const SqliteOptions options{dir.File("migrate6.db"), 2, 5000};
  {
    auto s = OpenOrFail(options);
    Put(*s, [&](StoreWriter& w) { return w.InsertShop(MakeShop("shop-a")); });
  }
  Exec(options.path, kUndoV6);
  auto s = OpenOrFail(options);
  CHECK(s->Healthy());
  CHECK(Get(s.operator*(), [&](StoreReader& r) { return r.GetShop("shop-a"); }).has_value());
  CatalogItem item{"shop-a", "knowledge", "k1", "", "How long does shipping take?", "Three days.", "{}", 1};
  Put(*s, [&](StoreWriter& w) { return w.PutCatalogItem(item, {"k-one"}); });
  auto hits = Get(*s, [&](StoreReader& r) { return r.SearchCatalog("shop-a", "knowledge", {"shipping"}, 5); });
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].item.id == "k1");
}

TEST_CASE("sqlite migration 8: a version 7 file gains the redaction columns and privacy tables, keeps its data") {
  TempDir dir;
  const SqliteOptions options{dir.File("migrate8.db"), 2, 5000};
  Customer c = MakeSparseCustomer("shop-a", "cu-1");
  {
    auto s = OpenOrFail(options);
    Put(*s, [&](StoreWriter& w) -> Status {
      LC_RETURN_IF_ERROR(w.InsertShop(MakeShop("shop-a")));
      return w.InsertCustomer(c);
    });
  }
  Exec(options.path, kUndoV8);
  auto s = OpenOrFail(options);
  CHECK(s->Healthy());
  auto got = Get(*s, [&](StoreReader& r) { return r.GetCustomer("shop-a", "cu-1"); });
  REQUIRE(got.has_value());
  CHECK_FALSE(got->redactedAt.has_value());
  Put(*s, [&](StoreWriter& w) { return w.PutChannelIntegration({"shop-a", "email", false, 1}); });
  CHECK(Get(*s, [&](StoreReader& r) { return r.ListChannelIntegrations("shop-a"); }).size() == 1);
}

}  // namespace livechat::testing
