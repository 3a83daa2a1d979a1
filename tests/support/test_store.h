// The store a suite's fixtures run on: a private in-memory SQLite database,
// or, when LIVECHAT_TEST_BACKEND=postgres (the *_pg entries of ctest), a
// fresh PostgreSQL database of its own, dropped with the store. The same
// tests thus check both backends. The suites drive time with a ManualClock,
// so the PostgreSQL store takes their lease and due times as they are
// (PostgresOptions::LeaseClock::kCaller); the database's clock, the
// production default, is checked by tests/storage/pg_lease_clock_test.cc
// and by every e2e test that starts livechatd on PostgreSQL.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include "livechat/postgres_store.h"
#include "livechat/sqlite_store.h"
#include "support/pg_database.h"

namespace livechat::testing {

inline bool TestOnPostgres() {
  const char* backend = std::getenv("LIVECHAT_TEST_BACKEND");
  return backend != nullptr && std::string(backend) == "postgres";
}

// A PostgreSQL store that owns its throwaway database.
class OwningPgStore final : public Store {
 public:
  OwningPgStore(std::unique_ptr<PgTestDatabase> db, std::unique_ptr<Store> inner)
      : db_(std::move(db)), inner_(std::move(inner)) {}
  Status Read(const std::function<Status(StoreReader&)>& fn) override { return inner_->Read(fn); }
  Status Write(const std::function<Status(StoreWriter&)>& fn) override { return inner_->Write(fn); }
  void WriteAsync(std::function<Status(StoreWriter&)> fn, std::function<void(Status)> done) override {
    inner_->WriteAsync(std::move(fn), std::move(done));
  }
  bool Healthy() override { return inner_->Healthy(); }
  void WatchOtherWriters(std::function<void(const std::string&)> changed) override {
    inner_->WatchOtherWriters(std::move(changed));
  }
  const PgTestDatabase& database() const { return *db_; }

 private:
  std::unique_ptr<PgTestDatabase> db_;  // declared first: dropped after the store closes
  std::unique_ptr<Store> inner_;
};

// `sqlitePath` (optional): a SQLite file instead of a memory database.
inline Result<std::unique_ptr<Store>> OpenTestStore(const std::string& sqlitePath = ":memory:") {
  if (!TestOnPostgres()) return OpenSqliteStore(SqliteOptions{sqlitePath, 1, 5000});
  auto db = std::make_unique<PgTestDatabase>();
  PostgresOptions options;
  options.url = db->url();
  options.readers = 2;
  options.leaseClock = PostgresOptions::LeaseClock::kCaller;
  auto opened = OpenPostgresStore(options);
  if (!opened.ok()) return opened.take_error();
  return std::unique_ptr<Store>(std::make_unique<OwningPgStore>(std::move(db), std::move(opened).value()));
}

// A second store on the database `first` (from OpenTestStore(sqlitePath))
// is on: the same SQLite file, or the same PostgreSQL database. It stands
// for another process or instance: its own connections and snapshots.
inline Result<std::unique_ptr<Store>> OpenSecondTestStore(Store& first, const std::string& sqlitePath) {
  if (!TestOnPostgres()) return OpenSqliteStore(SqliteOptions{sqlitePath, 1, 5000});
  PostgresOptions options;
  options.url = static_cast<OwningPgStore&>(first).database().url();
  options.readers = 1;
  options.leaseClock = PostgresOptions::LeaseClock::kCaller;
  return OpenPostgresStore(options);
}

}  // namespace livechat::testing
