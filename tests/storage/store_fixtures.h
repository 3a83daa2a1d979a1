// Fixtures for the Store conformance suite: every STORE_TEST runs once per
// Store implementation listed in STORE_TEST (SQLite in memory, a SQLite file,
// a fresh PostgreSQL database). A new Store
// joins by adding a fixture type with a `Store& store()` and listing it there.
#pragma once

#include <doctest/doctest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "livechat/postgres_store.h"
#include "livechat/sqlite_store.h"
#include "livechat/store.h"
#include "support/pg_database.h"
#include "support/temp_dir.h"

namespace doctest {
template <typename T>
struct StringMaker<std::optional<T>> {
  static String convert(const std::optional<T>& v) {
    if (!v) return "nullopt";
    return StringMaker<T>::convert(*v);
  }
};
template <>
struct StringMaker<std::vector<std::string>> {
  static String convert(const std::vector<std::string>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", \"" : "\"") + v[i] + "\"";
    return (s + "]").c_str();
  }
};
template <>
struct StringMaker<std::map<std::string, std::string>> {
  static String convert(const std::map<std::string, std::string>& m) {
    std::string s = "{";
    for (const auto& [k, v] : m) s += (s.size() > 1 ? ", " : "") + k + ": " + v;
    return (s + "}").c_str();
  }
};
}  // namespace doctest

namespace livechat::testing {

inline std::unique_ptr<Store> OpenOrFail(const SqliteOptions& options) {
  auto r = OpenSqliteStore(options);
  if (!r.ok()) FAIL("OpenSqliteStore(" << options.path << "): " << r.error().message);
  return std::move(r).value();
}

// A private in-memory database: the quickest Store under test.
class MemorySqliteFixture {
 public:
  MemorySqliteFixture() : store_(OpenOrFail(SqliteOptions{":memory:", 4, 5000})) {}
  Store& store() { return *store_; }

 private:
  std::unique_ptr<Store> store_;
};

// A WAL file with a reader pool: exercises the connections the memory
// database shares.
class FileSqliteFixture {
 public:
  FileSqliteFixture() : store_(OpenOrFail(SqliteOptions{dir_.File("store.db"), 2, 5000})) {}
  Store& store() { return *store_; }

 private:
  TempDir dir_;  // declared first: outlives the store
  std::unique_ptr<Store> store_;
};

// A fresh PostgreSQL database on the test server, with a reader pool. The
// conformance tests pass lease and due times of their own (a lease from 200
// to 260), so the store takes them as they are; pg_lease_clock_test.cc
// checks the production default, the database's clock.
class PostgresFixture {
 public:
  PostgresFixture() {
    PostgresOptions options;
    options.url = db_.url();
    options.readers = 2;
    options.leaseClock = PostgresOptions::LeaseClock::kCaller;
    auto r = OpenPostgresStore(options);
    if (!r.ok()) FAIL("OpenPostgresStore(" << options.url << "): " << r.error().message);
    store_ = std::move(r).value();
  }
  Store& store() { return *store_; }
  const PgTestDatabase& database() const { return db_; }

 private:
  PgTestDatabase db_;  // declared first: dropped after the store closes
  std::unique_ptr<Store> store_;
};

#define STORE_TEST(name)                                                           \
  TEST_CASE_TEMPLATE(name, StoreFixture, ::livechat::testing::MemorySqliteFixture, \
                     ::livechat::testing::FileSqliteFixture, ::livechat::testing::PostgresFixture)

// ---- Result helpers: a failure names the storage error and stops the test ----

inline void Ok(const Status& st) {
  if (!st.ok()) FAIL("unexpected error: " << st.error().message);
}

template <typename T>
T Value(Result<T> r) {
  if (!r.ok()) FAIL("unexpected error: " << r.error().message);
  return std::move(r).value();
}

// Runs `f(StoreReader&) -> Result<T>` in a Read and returns the value.
template <typename F>
auto Get(Store& store, F f) {
  using R = decltype(f(std::declval<StoreReader&>()));
  using T = std::decay_t<decltype(std::declval<R&>().value())>;
  std::optional<T> out;
  Status st = store.Read([&](StoreReader& r) -> Status {
    R v = f(r);
    if (!v.ok()) return v.take_error();
    out = std::move(v).value();
    return Status::Ok();
  });
  if (!st.ok()) FAIL("Read failed: " << st.error().message);
  return std::move(*out);
}

// Runs `f(StoreWriter&) -> Status` in a Write that must commit.
template <typename F>
void Put(Store& store, F f) {
  Status st = store.Write([&](StoreWriter& w) -> Status { return f(w); });
  if (!st.ok()) FAIL("Write failed: " << st.error().message);
}

// Runs `f(StoreWriter&) -> Result<T>` in a Write that must commit; returns the value.
template <typename F>
auto PutValue(Store& store, F f) {
  using R = decltype(f(std::declval<StoreWriter&>()));
  using T = std::decay_t<decltype(std::declval<R&>().value())>;
  std::optional<T> out;
  Status st = store.Write([&](StoreWriter& w) -> Status {
    R v = f(w);
    if (!v.ok()) return v.take_error();
    out = std::move(v).value();
    return Status::Ok();
  });
  if (!st.ok()) FAIL("Write failed: " << st.error().message);
  return std::move(*out);
}

}  // namespace livechat::testing
