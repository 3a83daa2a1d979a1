// The SQLite Store: transactions, connections and threads. The SQL itself is
// in sqlite_queries.cc, the schema in sqlite_schema.cc.
//
// A file database runs in WAL mode with one write connection (behind
// writeMu_) and a pool of read-only connections, so readers never wait for
// the writer and each Read sees the snapshot taken at its first query. A
// ":memory:" database exists only inside its one connection, so there reads
// and writes share it under writeMu_.
//
// Concurrent Writes are committed together (storage/common/write_batcher.h):
// one transaction, each write in a savepoint of its own.
#include "livechat/sqlite_store.h"

#include <condition_variable>
#include <exception>
#include <filesystem>
#include <mutex>
#include <utility>
#include <vector>

#include "storage/common/invoke_guarded.h"
#include "storage/common/write_batcher.h"
#include "storage/sqlite/sqlite_connection.h"
#include "storage/sqlite/sqlite_queries.h"
#include "storage/sqlite/sqlite_schema.h"

namespace livechat {
namespace {

using sqlite::Connection;
using sqlite::SqliteQueries;

using storage::InvokeGuarded;

class SqliteStore final : public Store {
 public:
  static Result<std::unique_ptr<Store>> Open(const SqliteOptions& options);

  Status Read(const std::function<Status(StoreReader&)>& fn) override;
  Status Write(const std::function<Status(StoreWriter&)>& fn) override;
  bool Healthy() override;

 private:
  // What this thread holds of which store, so that nesting neither deadlocks
  // on a mutex nor opens a second transaction on one connection.
  struct Held {
    const SqliteStore* store;
    Connection* conn;
    bool write;
  };
  static thread_local std::vector<Held> held_;
  class HoldGuard {
   public:
    HoldGuard(const SqliteStore* store, Connection* conn, bool write) { held_.push_back({store, conn, write}); }
    ~HoldGuard() { held_.pop_back(); }
    HoldGuard(const HoldGuard&) = delete;
    HoldGuard& operator=(const HoldGuard&) = delete;
  };
  // The innermost hold of this store, optionally only of one kind.
  const Held* FindHeld() const {
    for (auto it = held_.rbegin(); it != held_.rend(); ++it)
      if (it->store == this) return &*it;
    return nullptr;
  }
  const Held* FindHeld(bool write) const {
    for (auto it = held_.rbegin(); it != held_.rend(); ++it)
      if (it->store == this && it->write == write) return &*it;
    return nullptr;
  }

  // Runs fn on a connection inside a read transaction (or inside the
  // transaction this thread already has on it).
  Status WithReadConnection(const std::function<Status(Connection&)>& fn);
  Status RunRead(Connection& conn, const std::function<Status(Connection&)>& fn);

  // A write in a transaction of its own; writeMu_ held.
  Status RunAlone(const std::function<Status(StoreWriter&)>& fn);
  // Several writes in one transaction, each in a savepoint; writeMu_ taken.
  void RunBatch(const std::vector<storage::WriteBatcher::Pending*>& batch);
  Status RunInSavepoint(const std::function<Status(StoreWriter&)>& fn, bool& broken);

  Connection* CheckoutReader();
  void ReturnReader(Connection* conn);

  bool inMemory_ = false;
  std::mutex writeMu_;
  std::unique_ptr<Connection> writer_;
  // Declared after writer_ so they close first.
  std::vector<std::unique_ptr<Connection>> readers_;
  std::mutex poolMu_;
  std::condition_variable poolCv_;
  std::vector<Connection*> idle_;

  // Set by Open (it needs the options' metrics).
  std::unique_ptr<storage::WriteBatcher> batcher_;
};

thread_local std::vector<SqliteStore::Held> SqliteStore::held_;

Result<std::unique_ptr<Store>> SqliteStore::Open(const SqliteOptions& options) {
  std::unique_ptr<SqliteStore> store(new SqliteStore());
  store->inMemory_ = options.path == ":memory:";
  SqliteStore* self = store.get();
  store->batcher_ = std::make_unique<storage::WriteBatcher>(
      [self](const std::vector<storage::WriteBatcher::Pending*>& batch) { self->RunBatch(batch); }, options.metrics);
  Counter* busy = options.metrics ? &options.metrics->GetCounter(metric::kSqliteBusyRetries,
                                                                 "Waits for another connection's SQLite lock")
                                  : nullptr;
  LC_ASSIGN_OR_RETURN(store->writer_,
                      Connection::Open(options.path, Connection::Mode::kReadWrite, options.busyTimeoutMillis, busy));
  Connection& w = *store->writer_;
  if (!store->inMemory_) {
    // WAL is a property of the file; a database that cannot switch (e.g. on
    // a filesystem without shared memory) would silently lose reader
    // concurrency, so refuse it.
    LC_ASSIGN_OR_RETURN(sqlite::Statement st, w.Prepare("PRAGMA journal_mode = WAL"));
    LC_ASSIGN_OR_RETURN(bool row, st.Step());
    std::string mode = row ? st.Text(0) : "";
    if (mode != "wal")
      return Error{ErrorCode::kInternal, "sqlite: cannot enable WAL on " + options.path + " (" + mode + ")"};
  }
  LC_RETURN_IF_ERROR(sqlite::Migrate(w));
  if (options.maxDatabaseBytes > 0) {
    // After migrating, so the schema itself is never what hits the cap.
    // SQLite keeps the cap at least the current size.
    LC_ASSIGN_OR_RETURN(std::int64_t pageSize, w.QueryInt("PRAGMA page_size"));
    const std::int64_t pages = (options.maxDatabaseBytes + pageSize - 1) / pageSize;
    LC_RETURN_IF_ERROR(w.Exec(("PRAGMA max_page_count = " + std::to_string(pages)).c_str()));
  }
  if (!store->inMemory_) {
    int n = options.readers < 1 ? 1 : options.readers;
    for (int i = 0; i < n; ++i) {
      LC_ASSIGN_OR_RETURN(auto reader,
                          Connection::Open(options.path, Connection::Mode::kReadOnly, options.busyTimeoutMillis, busy));
      store->idle_.push_back(reader.get());
      store->readers_.push_back(std::move(reader));
    }
  }
  return std::unique_ptr<Store>(std::move(store));
}

Connection* SqliteStore::CheckoutReader() {
  std::unique_lock lock(poolMu_);
  poolCv_.wait(lock, [&] { return !idle_.empty(); });
  Connection* conn = idle_.back();
  idle_.pop_back();
  return conn;
}

void SqliteStore::ReturnReader(Connection* conn) {
  {
    std::lock_guard lock(poolMu_);
    idle_.push_back(conn);
  }
  poolCv_.notify_one();
}

Status SqliteStore::RunRead(Connection& conn, const std::function<Status(Connection&)>& fn) {
  // Deferred: the snapshot is fixed by the first read and held to COMMIT.
  LC_RETURN_IF_ERROR(conn.Run("BEGIN"));
  Status st;
  {
    HoldGuard guard(this, &conn, false);
    st = InvokeGuarded(fn, conn, "Store::Read");
  }
  Status end = conn.Run("COMMIT");
  if (!end.ok() && conn.InTransaction()) (void)conn.Exec("ROLLBACK");
  if (!st.ok()) return st;
  return end;
}

Status SqliteStore::WithReadConnection(const std::function<Status(Connection&)>& fn) {
  // A nested Read joins the snapshot this thread already reads from (taking
  // a second reader could exhaust the pool and wait forever). On a memory
  // database a Read inside a Write reads the open write transaction: there
  // is no other connection to read from.
  if (const Held* held = inMemory_ ? FindHeld() : FindHeld(false)) return InvokeGuarded(fn, *held->conn, "Store::Read");
  if (inMemory_) {
    std::lock_guard lock(writeMu_);
    return RunRead(*writer_, fn);
  }
  // On a file, a Read inside this thread's Write takes a reader and so sees
  // the last committed state, as any other thread would.
  Connection* conn = CheckoutReader();
  Status st = RunRead(*conn, fn);
  ReturnReader(conn);
  return st;
}

Status SqliteStore::Read(const std::function<Status(StoreReader&)>& fn) {
  return WithReadConnection([&](Connection& conn) -> Status {
    SqliteQueries q(conn);
    return fn(q);
  });
}

Status SqliteStore::Write(const std::function<Status(StoreWriter&)>& fn) {
  if (const Held* held = FindHeld()) {
    if (held->write) return Error{ErrorCode::kInternal, "sqlite: Store::Write called inside a Write"};
    if (inMemory_) return Error{ErrorCode::kInternal, "sqlite: Store::Write inside a Read of an in-memory store"};
    // A Write inside this thread's Read runs here, alone: in a batch it
    // would run on the leader's thread, where a nested Read could not join
    // this thread's snapshot and could wait for a reader this thread holds.
    std::lock_guard lock(writeMu_);
    return batcher_->RunAlone([&] { return RunAlone(fn); });
  }
  return batcher_->Submit(fn);
}

Status SqliteStore::RunAlone(const std::function<Status(StoreWriter&)>& fn) {
  Connection& conn = *writer_;
  // IMMEDIATE takes the file's write lock now (waiting up to busy_timeout for
  // another process), so the transaction cannot fail later on a lock upgrade.
  LC_RETURN_IF_ERROR(conn.Exec("BEGIN IMMEDIATE"));
  Status st;
  {
    HoldGuard guard(this, &conn, true);
    SqliteQueries q(conn);
    st = InvokeGuarded(fn, static_cast<StoreWriter&>(q), "Store::Write");
  }
  if (st.ok()) {
    // COMMIT checks the deferred foreign keys and can fail; the transaction
    // then stays open and must be rolled back.
    st = conn.Exec("COMMIT");
    if (st.ok()) return st;
  }
  if (conn.InTransaction()) (void)conn.Exec("ROLLBACK");
  return st;
}

Status SqliteStore::RunInSavepoint(const std::function<Status(StoreWriter&)>& fn, bool& broken) {
  Connection& conn = *writer_;
  Status began = conn.Exec("SAVEPOINT w");
  if (!began.ok()) {
    broken = true;
    return began;
  }
  Status st;
  {
    HoldGuard guard(this, &conn, true);
    SqliteQueries q(conn);
    st = InvokeGuarded(fn, static_cast<StoreWriter&>(q), "Store::Write");
  }
  // The deferred foreign keys are checked per write, not at the shared
  // COMMIT, so a write that breaks one fails alone, as it would on its own.
  int pending = 0, highwater = 0;
  if (st.ok() && sqlite3_db_status(conn.handle(), SQLITE_DBSTATUS_DEFERRED_FKS, &pending, &highwater, 0) == SQLITE_OK &&
      pending != 0)
    st = Error{ErrorCode::kInternal, "sqlite: FOREIGN KEY constraint failed"};
  if (!st.ok() && !conn.Exec("ROLLBACK TO w").ok()) broken = true;
  // An error SQLite answers by rolling back the whole transaction (a full
  // disk, an I/O error) leaves no savepoint to release: the batch is lost.
  if (!broken && !conn.Exec("RELEASE w").ok()) broken = true;
  if (!conn.InTransaction()) broken = true;
  return st;
}

void SqliteStore::RunBatch(const std::vector<storage::WriteBatcher::Pending*>& batch) {
  std::lock_guard lock(writeMu_);
  Connection& conn = *writer_;
  storage::RunInOneTransaction(
      batch, {[&] { return conn.Exec("BEGIN IMMEDIATE"); },
              [&](const storage::WriteBatcher::WriteFn& fn, bool& broken) { return RunInSavepoint(fn, broken); },
              [&] { return conn.Exec("COMMIT"); },
              [&] {
                if (conn.InTransaction()) (void)conn.Exec("ROLLBACK");
              },
              [&](const storage::WriteBatcher::WriteFn& fn) { return RunAlone(fn); }});
}

bool SqliteStore::Healthy() {
  Status st = WithReadConnection([](Connection& conn) -> Status {
    LC_ASSIGN_OR_RETURN(std::int64_t version, conn.QueryInt("PRAGMA user_version"));
    if (version != SqliteSchemaVersion())
      return Error{ErrorCode::kInternal, "sqlite: schema version " + std::to_string(version)};
    return Status::Ok();
  });
  return st.ok();
}

}  // namespace

Result<std::unique_ptr<Store>> OpenSqliteStore(const SqliteOptions& options) {
  try {
    return SqliteStore::Open(options);
  } catch (const std::exception& e) {
    return Error{ErrorCode::kInternal, std::string("sqlite: open: ") + e.what()};
  }
}

Status BackupSqliteDatabase(const std::string& path, const std::string& to) {
  if (to.empty()) return Error{ErrorCode::kInvalidParams, "give the backup file a path"};
  std::error_code ec;
  if (std::filesystem::exists(to, ec))
    return Error{ErrorCode::kInvalidParams, "the backup file " + to + " already exists; choose a new path"};
  if (!std::filesystem::exists(path, ec)) return Error{ErrorCode::kNotFound, "no database at " + path};
  // SQLite's online backup API, all pages in one step: that step holds one
  // read transaction, so the copy is the database as committed at that
  // instant while other connections keep writing (WAL). VACUUM INTO would
  // compact, but SQLite 3.40 miscounts generated columns in it. The copy is
  // written beside its final name and renamed, so a failed run never leaves
  // a file that looks like a backup.
  const std::string partial = to + ".partial";
  std::filesystem::remove(partial, ec);
  try {
    LC_ASSIGN_OR_RETURN(auto src, Connection::Open(path, Connection::Mode::kReadOnly, 5000));
    sqlite3* dst = nullptr;
    int rc = sqlite3_open_v2(partial.c_str(), &dst, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
    Status st = Status::Ok();
    if (rc != SQLITE_OK) {
      st = sqlite::SqliteError(dst, rc, "open " + partial);
    } else if (sqlite3_backup* b = sqlite3_backup_init(dst, "main", src->handle(), "main"); b == nullptr) {
      st = sqlite::SqliteError(dst, sqlite3_errcode(dst), "backup");
    } else {
      sqlite3_busy_timeout(dst, 5000);
      rc = sqlite3_backup_step(b, -1);
      const int finished = sqlite3_backup_finish(b);
      if (rc != SQLITE_DONE) st = sqlite::SqliteError(dst, rc, "backup");
      else if (finished != SQLITE_OK) st = sqlite::SqliteError(dst, finished, "backup");
    }
    sqlite3_close(dst);
    if (st.ok()) {
      std::filesystem::rename(partial, to, ec);
      if (ec) st = Error{ErrorCode::kInternal, "cannot rename " + partial + " to " + to + ": " + ec.message()};
    }
    if (!st.ok()) std::filesystem::remove(partial, ec);
    return st;
  } catch (const std::exception& e) {
    std::filesystem::remove(partial, ec);
    return Error{ErrorCode::kInternal, std::string("sqlite: backup: ") + e.what()};
  }
}

}  // namespace livechat
