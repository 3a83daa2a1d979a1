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
//
// WAL checkpoints run on a Checkpointer thread, not inside a COMMIT: SQLite's
// default copies 1,000 pages into the database file and fsyncs it in the
// thread whose commit crossed the mark, and every write queued behind it
// waits (measured: 13 % of a send's time, and its 183 ms p99 with one sender).
#include "livechat/sqlite_store.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>
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

// Runs PASSIVE checkpoints on a connection of its own when asked. PASSIVE
// neither waits for nor blocks readers and the writer; it copies what no
// reader still needs, and a later request copies the rest.
class Checkpointer {
 public:
  Checkpointer(std::unique_ptr<Connection> conn, Counter* done) : conn_(std::move(conn)), done_(done) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~Checkpointer() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  // Held for the length of each background checkpoint: the writer's own
  // checkpoint takes it, so it waits for one in progress instead of finding
  // the checkpoint lock busy and copying nothing.
  std::mutex& running() { return runningMu_; }

  // Cheap: called from the writer's commit.
  void Request() {
    {
      std::lock_guard lock(mu_);
      if (wanted_) return;
      wanted_ = true;
    }
    cv_.notify_one();
  }

 private:
  void Loop() {
    std::unique_lock lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || wanted_; });
      if (stop_) return;
      wanted_ = false;
      lock.unlock();
      {
        std::lock_guard running(runningMu_);
        int logFrames = 0, copied = 0;
        // SQLITE_BUSY: another connection was checkpointing; the next commit
        // past the mark asks again. Other errors leave the pages in the WAL,
        // where they are as durable; the writer's own checkpoint bounds it.
        if (sqlite3_wal_checkpoint_v2(conn_->handle(), nullptr, SQLITE_CHECKPOINT_PASSIVE, &logFrames, &copied) ==
                SQLITE_OK &&
            done_ != nullptr)
          done_->Inc();
      }
      lock.lock();
    }
  }

  std::unique_ptr<Connection> conn_;
  Counter* done_;
  std::mutex mu_;
  std::mutex runningMu_;
  std::condition_variable cv_;
  bool wanted_ = false;
  bool stop_ = false;
  std::thread thread_;
};

class SqliteStore final : public Store {
 public:
  static Result<std::unique_ptr<Store>> Open(const SqliteOptions& options);
  // The writes still queued commit before the connections close.
  ~SqliteStore() override {
    if (batcher_) batcher_->Stop();
  }

  Status Read(const std::function<Status(StoreReader&)>& fn) override;
  Status Write(const std::function<Status(StoreWriter&)>& fn) override;
  void WriteAsync(std::function<Status(StoreWriter&)> fn, std::function<void(Status)> done) override;
  bool Healthy() override;
  // On a file each reader has a connection of its own, and WAL lets it read
  // while the writer writes: it waits only when every pooled reader is
  // taken. A memory database reads through the writer's connection, so its
  // reads wait for writes.
  bool CanReadWithoutWaiting() const override { return !inMemory_ && idleReaders_.load() > 0; }

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

  // Every write transaction on the writer begins and commits through these:
  // the commit first indexes the messages the transaction inserted. These,
  // and a batch's savepoints, run cached statements (Connection::Run), not
  // SQL parsed again on every write.
  static Status BeginWrite(Connection& conn);
  static Status CommitWrite(Connection& conn);
  static void EndFailedWrite(Connection& conn);  // rolls back what is open
  // A write in a transaction of its own; writeMu_ held.
  Status RunAlone(const std::function<Status(StoreWriter&)>& fn);
  // Several writes in one transaction, each in a savepoint; writeMu_ taken.
  void RunBatch(const std::vector<storage::WriteBatcher::Pending*>& batch);
  Status RunInSavepoint(const std::function<Status(StoreWriter&)>& fn, bool& broken);

  Connection* CheckoutReader();
  void ReturnReader(Connection* conn);

  // sqlite3_wal_hook: runs after each commit of the writer with the WAL's
  // size in pages.
  static int OnWalCommit(void* self, sqlite3* db, const char* dbName, int pages);

  bool inMemory_ = false;
  std::mutex writeMu_;
  std::unique_ptr<Connection> writer_;
  // Declared after writer_ so they close first.
  std::vector<std::unique_ptr<Connection>> readers_;
  std::mutex poolMu_;
  std::condition_variable poolCv_;
  std::vector<Connection*> idle_;
  std::atomic<int> idleReaders_{0};  // idle_.size(), read without poolMu_
  // Declared after writer_ so it closes first: the last connection to close
  // checkpoints what is left and removes the WAL.
  std::unique_ptr<Checkpointer> checkpointer_;
  int checkpointPages_ = 0;
  int writerCheckpointPages_ = 0;
  int nextCheckpointAt_ = 0;  // WAL pages; the writer's (under writeMu_)
  int nextWriterCheckpointAt_ = 0;
  static constexpr int kRestartWaitMillis = 250;
  int lastWalPages_ = 0;
  std::atomic<int> nestedWriters_{0};  // threads in a Read that Write
  Counter* writerCheckpoints_ = nullptr;
  Gauge* walPages_ = nullptr;

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
    store->idleReaders_.store(static_cast<int>(store->idle_.size()));
    if (options.checkpointPages > 0) {
      LC_ASSIGN_OR_RETURN(auto conn,
                          Connection::Open(options.path, Connection::Mode::kReadWrite, options.busyTimeoutMillis, busy));
      Counter* done = options.metrics ? &options.metrics->GetCounter(metric::kSqliteCheckpointsBackground,
                                                                     "WAL checkpoints run off the commit path")
                                      : nullptr;
      store->writerCheckpoints_ =
          options.metrics ? &options.metrics->GetCounter(metric::kSqliteCheckpointsWriter,
                                                         "WAL checkpoints a commit ran itself (the WAL had reached "
                                                         "its bound before the background checkpoints reset it)")
                          : nullptr;
      store->walPages_ = options.metrics ? &options.metrics->GetGauge(metric::kSqliteWalPages,
                                                                   "Pages in the WAL file after the last commit")
                                         : nullptr;
      store->checkpointPages_ = options.checkpointPages;
      store->nextCheckpointAt_ = options.checkpointPages;
      store->writerCheckpointPages_ = std::max(options.writerCheckpointPages, options.checkpointPages);
      store->nextWriterCheckpointAt_ = store->writerCheckpointPages_;
      store->checkpointer_ = std::make_unique<Checkpointer>(std::move(conn), done);
      // Replaces SQLite's automatic checkpoint, itself a WAL hook.
      sqlite3_wal_hook(w.handle(), &SqliteStore::OnWalCommit, self);
    }
  }
  return std::unique_ptr<Store>(std::move(store));
}

int SqliteStore::OnWalCommit(void* self, sqlite3* db, const char* dbName, int pages) {
  auto* store = static_cast<SqliteStore*>(self);
  if (store->walPages_ != nullptr) store->walPages_->Set(pages);
  // Fewer pages than last time: the WAL started again from its beginning.
  if (pages < store->lastWalPages_) {
    store->nextCheckpointAt_ = store->checkpointPages_;
    store->nextWriterCheckpointAt_ = store->writerCheckpointPages_;
  }
  store->lastWalPages_ = pages;
  if (pages >= store->nextWriterCheckpointAt_) {
    // The WAL starts again from its beginning only at a write that finds
    // every frame copied, which background copies chasing a steady stream of
    // commits seldom see (measured: 32,000 pages under 16 senders). So here
    // the writer copies what is left in its own commit; no commit runs
    // meanwhile (it holds writeMu_), and it waits for a background copy in
    // progress rather than find the checkpoint lock busy. RESTART also waits
    // (busy handler) for the readers of older snapshots to finish, which a
    // steady stream of reads otherwise never allows: with four threads
    // reading, a PASSIVE copy here, like SQLite's own default, let the WAL
    // grow without bound (tests/storage/sqlite_store_test.cc). A Write
    // inside a Read, on this thread or waiting on another, holds a snapshot
    // the RESTART would wait for until the busy timeout: then it copies
    // without waiting, and a later commit restarts the WAL.
    //
    // A reader that keeps its snapshot long (a backup, a slow export) would
    // hold every commit here for the busy timeout: the wait is cut to
    // kRestartWaitMillis, and after a RESTART that gave up the next comes
    // only once the WAL has grown by writerCheckpointPages again.
    const bool snapshotHeld = store->FindHeld(false) != nullptr || store->nestedWriters_.load() > 0;
    const int mode = snapshotHeld ? SQLITE_CHECKPOINT_PASSIVE : SQLITE_CHECKPOINT_RESTART;
    std::lock_guard running(store->checkpointer_->running());
    Connection& writer = *store->writer_;
    const int busyTimeout = writer.busyTimeoutMillis();
    writer.setBusyTimeoutMillis(std::min(busyTimeout, kRestartWaitMillis));
    int logFrames = 0, copied = 0;
    const int rc = sqlite3_wal_checkpoint_v2(db, dbName, mode, &logFrames, &copied);
    writer.setBusyTimeoutMillis(busyTimeout);
    if (rc == SQLITE_OK && store->writerCheckpoints_ != nullptr) store->writerCheckpoints_->Inc();
    if (rc == SQLITE_BUSY && !snapshotHeld) store->nextWriterCheckpointAt_ = pages + store->writerCheckpointPages_;
  } else if (pages >= store->nextCheckpointAt_) {
    // Once per checkpointPages new pages: a page that hot rows rewrite is
    // then copied once per batch of commits, not after each.
    store->nextCheckpointAt_ = pages + store->checkpointPages_;
    store->checkpointer_->Request();
  }
  return SQLITE_OK;
}

Connection* SqliteStore::CheckoutReader() {
  std::unique_lock lock(poolMu_);
  poolCv_.wait(lock, [&] { return !idle_.empty(); });
  Connection* conn = idle_.back();
  idle_.pop_back();
  idleReaders_.store(static_cast<int>(idle_.size()));
  return conn;
}

void SqliteStore::ReturnReader(Connection* conn) {
  {
    std::lock_guard lock(poolMu_);
    idle_.push_back(conn);
    idleReaders_.store(static_cast<int>(idle_.size()));
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
    // Counted so that the writer's checkpoint does not wait for this
    // thread's snapshot while this thread waits for the writer (OnWalCommit).
    nestedWriters_.fetch_add(1);
    Status st;
    {
      std::lock_guard lock(writeMu_);
      st = batcher_->RunAlone([&] { return RunAlone(fn); });
    }
    nestedWriters_.fetch_sub(1);
    return st;
  }
  return batcher_->Submit(fn);
}

void SqliteStore::WriteAsync(std::function<Status(StoreWriter&)> fn, std::function<void(Status)> done) {
  // Inside this thread's Read or Write: as Write, on this thread (the rules
  // there say why; a Write inside a Write is refused the same way).
  if (FindHeld() != nullptr) return done(Write(fn));
  batcher_->SubmitAsync(std::move(fn), std::move(done));
}

Status SqliteStore::BeginWrite(Connection& conn) {
  // What a transaction that did not commit left to index is not indexed.
  conn.deferredMessageSearch().clear();
  return conn.Run("BEGIN IMMEDIATE");
}

void SqliteStore::EndFailedWrite(Connection& conn) {
  if (conn.InTransaction()) (void)conn.Exec("ROLLBACK");
  conn.deferredMessageSearch().clear();
}

Status SqliteStore::CommitWrite(Connection& conn) {
  LC_RETURN_IF_ERROR(FlushDeferredMessageSearch(conn));
  return conn.Run("COMMIT");
}

Status SqliteStore::RunAlone(const std::function<Status(StoreWriter&)>& fn) {
  Connection& conn = *writer_;
  // IMMEDIATE takes the file's write lock now (waiting up to busy_timeout for
  // another process), so the transaction cannot fail later on a lock upgrade.
  LC_RETURN_IF_ERROR(BeginWrite(conn));
  Status st;
  {
    HoldGuard guard(this, &conn, true);
    SqliteQueries q(conn);
    st = InvokeGuarded(fn, static_cast<StoreWriter&>(q), "Store::Write");
  }
  if (st.ok()) {
    // COMMIT checks the deferred foreign keys and can fail; the transaction
    // then stays open and must be rolled back.
    st = CommitWrite(conn);
    if (st.ok()) return st;
  }
  EndFailedWrite(conn);
  return st;
}

Status SqliteStore::RunInSavepoint(const std::function<Status(StoreWriter&)>& fn, bool& broken) {
  Connection& conn = *writer_;
  Status began = conn.Run("SAVEPOINT w");
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
  if (!st.ok() && !conn.Run("ROLLBACK TO w").ok()) broken = true;
  // An error SQLite answers by rolling back the whole transaction (a full
  // disk, an I/O error) leaves no savepoint to release: the batch is lost.
  if (!broken && !conn.Run("RELEASE w").ok()) broken = true;
  if (!conn.InTransaction()) broken = true;
  return st;
}

void SqliteStore::RunBatch(const std::vector<storage::WriteBatcher::Pending*>& batch) {
  std::lock_guard lock(writeMu_);
  Connection& conn = *writer_;
  storage::RunInOneTransaction(
      batch, {[&] { return BeginWrite(conn); },
              [&](const storage::WriteBatcher::WriteFn& fn, bool& broken) { return RunInSavepoint(fn, broken); },
              [&] { return CommitWrite(conn); },
              [&] { EndFailedWrite(conn); },
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

bool DisableSqliteMemoryStatistics() { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK; }

bool SetSqliteJournalSpillBytes(int bytes) { return sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, bytes) == SQLITE_OK; }

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
