// One PostgreSQL connection (libpq) with its prepared-statement cache, and the
// Statement every query uses. It mirrors the SQLite connection's shape, so a
// query reads the same on both backends: bind in order (Add) or by name
// (Named), Step through rows, read columns by index. Every libpq failure
// becomes an Error{kInternal, ...} here, so nothing above sees a PGresult.
//
// Parameters and results travel as text: the server parses each parameter as
// the type its use implies, so the SQL must say the type where the use does
// not (`$1::text IS NULL`). A Connection is not thread-safe: the store hands
// it to one thread at a time.
#pragma once

#include <libpq-fe.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "livechat/result.h"

namespace livechat::pg {

class Statement;

class Connection {
 public:
  // Connects to `url` (a libpq connection URI) and sets the session's time
  // zone to UTC.
  static Result<std::unique_ptr<Connection>> Open(const std::string& url);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs SQL without parameters (DDL, BEGIN/COMMIT, several statements).
  // Waits for the deferred statements first and fails with the first of
  // their errors, unless `sql` is a ROLLBACK, which then runs anyway.
  Status Exec(const std::string& sql);

  // Runs each statement (one SQL command each, no parameters) after the
  // deferred ones, all in one round trip: libpq's pipeline mode. The first
  // error stops the rest (the server skips them). COMMIT, a savepoint's
  // release, a NOTIFY: what a write ends with.
  Status ExecEach(const std::vector<std::string>& statements);

  // Deferred statements (Statement::RunDeferred) are sent and not waited
  // for: their results are read with the next statement that waits (or
  // Flush), in the same round trip. Only the write connection defers (the
  // store turns it on); elsewhere RunDeferred is Run.
  void SetDeferring(bool on) { deferring_ = on; }
  // Reads the results of what was sent and not yet read: the deferred
  // statements' first error, if any. Leaves pipeline mode.
  Status Flush();
  // Sends `sql` (one command, no parameters) and returns at once; its
  // result is read by the next Flush, whatever waits next. A read
  // transaction's COMMIT: its snapshot is done with, its answer changes
  // nothing the caller has.
  Status SendWithoutWaiting(const char* sql);
  // Sends `sql` (one command, no parameters) ahead of the next statement
  // and returns at once: its result is read with that statement's, in the
  // same round trip, and its error fails that statement. A read's BEGIN.
  Status SendAhead(const char* sql);

  // The cached prepared statement for `sql`, prepared on first use. `sql`
  // may name its parameters the SQLite way (`?1`, `?`, `:name`): they are
  // rewritten to `$n` once, when prepared.
  Result<Statement> Prepare(std::string_view sql);

  // A single integer from a parameterless query.
  Result<std::int64_t> QueryInt(const std::string& sql);
  // Runs SQL like Exec (several statements); the integer in the first
  // column of the last statement's first row.
  Result<std::int64_t> ExecInt(const std::string& sql);

  // The database's clock minus the store's callers' clock, in milliseconds,
  // as measured when the current transaction began, or for a read up to a
  // second before (pg_store.cc, BeginRead); 0 when the
  // store takes the callers' times as they are. Lease and due times cross
  // the store's boundary through it (PgDialect::ToLeaseClock).
  std::int64_t leaseClockSkew() const { return leaseClockSkew_; }
  void setLeaseClockSkew(std::int64_t skew) { leaseClockSkew_ = skew; }

  // What a statement may do to the kept settings reads (KeepSettingsReads):
  // a one-table read of a settings table is kept; an INSERT or UPDATE of any
  // other table and any other SELECT leave them (the schema's triggers write
  // only search tables and counts); anything else forgets them.
  enum class Kind { kForgets, kSettingsRead, kLeaves };

  // The writer keeps what it read of a store's settings (shops, members,
  // channel integrations, webhook subscriptions) for the rest of its
  // transaction and answers the same read again from it, until a statement
  // that may change a settings table runs (or any ROLLBACK, BEGIN, COMMIT).
  // Sound only because the write transaction holds the write lock every
  // writer on the database takes (pg_store.cc): no other writer can change
  // those rows under it. A batch of sends then reads the store's settings
  // once, not once per send, each read a round trip.
  void KeepSettingsReads(bool on) {
    keepSettings_ = on;
    kept_.clear();
  }
  // Reads answered from what was kept, since the connection opened.
  std::int64_t keptHits() const { return keptHits_; }
  // How a statement's text treats the kept reads (pg_connection.cc).
  static Kind KindOf(std::string_view sql);
  static bool ExecLeaves(std::string_view sql);

  // False once the server connection is lost; the store then reconnects.
  // Also false once a pipeline lost its place (the store replaces it).
  bool Ok() const { return !broken_ && PQstatus(conn_) == CONNECTION_OK; }
  bool InTransaction() const { return PQtransactionStatus(conn_) != PQTRANS_IDLE; }
  // Rows changed by the last statement run through a Statement and waited
  // for (not a deferred one).
  std::int64_t Changes() const { return changes_; }
  // The backend's process id (NOTIFY names its sender by it).
  int BackendPid() const { return PQbackendPID(conn_); }
  PGconn* handle() const { return conn_; }

 private:
  friend class Statement;
  struct Prepared {
    Kind kind = Kind::kForgets;
    std::string name;
    // For each `$n`, the parameter name it was written as (empty: positional).
    std::vector<std::string> names;
  };
  explicit Connection(PGconn* conn) : conn_(conn) {}

  // Forgets the kept reads unless `kind` leaves them.
  void Touch(Kind kind) {
    if (kind == Kind::kForgets) kept_.clear();
  }

  // Enters pipeline mode if not in it; false (and the error) if libpq refuses.
  Status EnterPipeline();
  // Sends `sql` (one command, no parameters) in the pipeline, counted as
  // pending, with no sync.
  Status SendCommand(const char* sql);
  // Sends `prepared` with `params` in the pipeline, counted as pending.
  Status SendPrepared(const Prepared& prepared, const std::vector<const char*>& params);
  // Sends the sync if not sent, then reads every pending result up to it:
  // the first `pending_` are the deferred statements' (their first error
  // goes to `deferredError`), those of the statements sent after them to
  // `rest`, one slot each, in order (null for one the server skipped after
  // an error). Leaves pipeline mode.
  Status ReadPipeline(std::optional<Error>& deferredError, std::vector<PGresult*>* rest);

  PGconn* conn_;
  bool deferring_ = false;
  // Deferred statements sent, results not read; and whether the sync that
  // ends them was sent (SendWithoutWaiting sends it).
  std::size_t pending_ = 0;
  bool syncSent_ = false;
  bool broken_ = false;
  bool keepSettings_ = false;
  // Statement name and parameters -> result.
  std::unordered_map<std::string, std::shared_ptr<PGresult>> kept_;
  std::int64_t keptHits_ = 0;
  std::int64_t changes_ = 0;
  std::int64_t leaseClockSkew_ = 0;
  int nextName_ = 0;
  struct SqlHash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, Prepared, SqlHash, std::equal_to<>> cache_;
};

// kInternal with the server's message (and SQLSTATE), prefixed by what was
// attempted.
Error PgError(PGconn* conn, const PGresult* res, std::string_view what);

// The SQLSTATE of a failed statement's error, e.g. "40001"; empty if none.
std::string_view SqlState(const Error& e);

// A prepared statement being bound and run. The first failure while binding
// is remembered and reported by Step/Run, so call sites bind without checking
// each call.
class Statement {
 public:
  Statement(Connection* conn, const Connection::Prepared* prepared);
  Statement(Statement&& o) noexcept;
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

  // Binds `:name`; a name the SQL does not have is reported as kInternal.
  template <typename T>
  Statement& Named(const char* name, const T& v) {
    if (!Seek(name)) return *this;
    return Add(v);
  }

  // Runs the statement on the first call; true: a row is ready; false: done.
  Result<bool> Step();
  // Runs a statement that returns no rows (or ignores them).
  Status Run();
  // As Run, but on a deferring connection (Connection::SetDeferring) it is
  // sent and not waited for: an error is reported by the transaction's next
  // statement that waits, which then fails with it (the transaction is
  // aborted by it either way). For writes whose outcome the caller does not
  // branch on: an event, a delivery row. Changes() does not count it.
  Status RunDeferred();

  bool IsNull(int col) const { return PQgetisnull(res_, row_, col) != 0; }
  std::string Text(int col) const;
  // The same text without a copy, valid until the next Step.
  std::string_view TextView(int col) const;
  std::int64_t Int(int col) const;
  bool Bool(int col) const;
  double Double(int col) const;
  std::optional<std::string> OptText(int col) const;
  std::optional<std::int64_t> OptInt(int col) const;
  std::optional<bool> OptBool(int col) const;
  std::optional<double> OptDouble(int col) const;

 private:
  bool Seek(const char* name);
  Statement& Set(std::optional<std::string> v);
  Status Execute(bool defer = false);
  std::string KeptKey() const;

  Connection* conn_;
  const Connection::Prepared* prepared_;
  std::vector<std::optional<std::string>> values_;
  std::size_t next_ = 0;
  std::string bindError_;
  PGresult* res_ = nullptr;
  // Set when res_ is a kept result (Connection::KeepSettingsReads), shared
  // with the connection's map; res_ is then not cleared by this statement.
  std::shared_ptr<PGresult> kept_;
  int row_ = -1;
  bool ran_ = false;
};

}  // namespace livechat::pg
