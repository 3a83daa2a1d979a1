// One SQLite connection with its prepared-statement cache, and the small
// helpers every query uses. Every SQLite return code becomes an
// Error{kInternal, ...} here, so nothing above this file sees a raw code.
//
// A Connection is not thread-safe: the store hands it to one thread at a time.
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <array>
#include <unordered_map>
#include <vector>

#include "livechat/metrics.h"
#include "livechat/result.h"

namespace livechat::sqlite {

// kInternal with SQLite's own message and code, prefixed by what was attempted.
Error SqliteError(sqlite3* db, int rc, std::string_view what);

class Statement;

class Connection {
 public:
  enum class Mode { kReadWrite, kReadOnly };

  // Opens `path` and applies the per-connection settings (busy timeout,
  // foreign keys, synchronous=NORMAL).
  // `busyRetries` (optional) counts each wait for another connection's lock.
  static Result<std::unique_ptr<Connection>> Open(const std::string& path, Mode mode, int busyTimeoutMillis,
                                                  Counter* busyRetries = nullptr);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs SQL without parameters or results (pragmas, DDL, BEGIN/COMMIT).
  Status Exec(const char* sql);

  // The cached statement for `sql`, prepared on first use. The returned
  // Statement resets the statement when it goes out of scope, so two live
  // Statements must not share one SQL text.
  Result<Statement> Prepare(std::string_view sql);

  // Runs the cached statement for `sql`, which returns no rows: for what
  // runs on every request (a read's BEGIN and COMMIT), parsed once per
  // connection instead of on every call as Exec does.
  Status Run(std::string_view sql);

  // A single integer from a query such as "PRAGMA user_version".
  Result<std::int64_t> QueryInt(const char* sql);

  bool InTransaction() const { return sqlite3_get_autocommit(db_) == 0; }
  std::int64_t LastInsertRowid() const { return sqlite3_last_insert_rowid(db_); }
  int Changes() const { return sqlite3_changes(db_); }
  sqlite3* handle() const { return db_; }
  // How long a call waits for another connection's lock before SQLITE_BUSY.
  int busyTimeoutMillis() const { return busyTimeoutMillis_; }
  void setBusyTimeoutMillis(int millis) { busyTimeoutMillis_ = millis; }
  // The seqs of messages this write transaction inserted, indexed for search
  // just before its COMMIT (FlushDeferredMessageSearch, sqlite_queries.cc).
  std::vector<std::int64_t>& deferredMessageSearch() { return deferredMessageSearch_; }

 private:
  explicit Connection(sqlite3* db) : db_(db) {}
  // SQLite's own busy_timeout handler, plus a count of the retries.
  static int OnBusy(void* self, int priorCalls);

  sqlite3* db_;
  int busyTimeoutMillis_ = 0;
  std::vector<std::int64_t> deferredMessageSearch_;
  Counter* busyRetries_ = nullptr;
  std::chrono::steady_clock::time_point busySince_{};
  struct SqlHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  // Keyed by SQL text; the statements live as long as the connection.
  std::unordered_map<std::string, sqlite3_stmt*, SqlHash, std::equal_to<>> cache_;
  // The statements asked for lately, by where their text was: nearly all SQL
  // is a static string, asked for again from the same address, and checking
  // the text against the cached key (one memcmp) costs less than hashing it
  // again (a request prepares several statements of a few hundred bytes).
  // A text built at run time that lands at a reused address only misses.
  struct Recent {
    const char* data = nullptr;
    std::size_t size = 0;
    const std::string* sql = nullptr;  // the cache_ key: nodes never move
    sqlite3_stmt* stmt = nullptr;
  };
  std::array<Recent, 64> recent_{};
};

// A borrowed, cached statement. Binding is positional in call order (Add) or
// by name (Named); the first failure is remembered and reported by Step/Run,
// so call sites bind without checking each call.
class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  Statement(Statement&& o) noexcept : db_(o.db_), stmt_(o.stmt_), next_(o.next_), bindRc_(o.bindRc_) {
    o.stmt_ = nullptr;
  }
  Statement& operator=(Statement&&) = delete;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  Statement& Add(std::string_view v);
  Statement& Add(const std::string& v) { return Add(std::string_view(v)); }
  Statement& Add(const char* v) { return Add(std::string_view(v)); }
  Statement& Add(std::int64_t v);
  Statement& Add(int v) { return Add(static_cast<std::int64_t>(v)); }
  Statement& Add(bool v) { return Add(static_cast<std::int64_t>(v ? 1 : 0)); }
  Statement& Add(double v);
  Statement& AddNull();
  template <typename T>
  Statement& Add(const std::optional<T>& v) {
    return v ? Add(*v) : AddNull();
  }

  // Binds `:name` if the SQL has it; a missing name is a programming error
  // reported as kInternal.
  template <typename T>
  Statement& Named(const char* name, const T& v) {
    int idx = sqlite3_bind_parameter_index(stmt_, name);
    if (idx == 0) {
      if (bindRc_ == SQLITE_OK) bindRc_ = SQLITE_RANGE;
      return *this;
    }
    next_ = idx;
    return Add(v);
  }

  // true: a row is ready; false: done.
  Result<bool> Step();
  // Steps to completion, for statements that return no rows.
  Status Run();
  // As Run: SQLite has no round trip to save (PostgreSQL's may report the
  // error with the transaction's next statement; pg_connection.h).
  Status RunDeferred() { return Run(); }

  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  // SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL.
  int Type(int col) const { return sqlite3_column_type(stmt_, col); }
  std::string Text(int col) const;
  // The same text without a copy, valid until the next Step or reset.
  std::string_view TextView(int col) const;
  std::int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  bool Bool(int col) const { return sqlite3_column_int64(stmt_, col) != 0; }
  double Double(int col) const { return sqlite3_column_double(stmt_, col); }
  std::optional<std::string> OptText(int col) const;
  std::optional<std::int64_t> OptInt(int col) const;
  std::optional<bool> OptBool(int col) const;
  std::optional<double> OptDouble(int col) const;

 private:
  Statement& Record(int rc);

  sqlite3* db_;
  sqlite3_stmt* stmt_;
  int next_ = 1;
  int bindRc_ = SQLITE_OK;
};

}  // namespace livechat::sqlite
