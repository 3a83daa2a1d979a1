// The PostgreSQL Store: transactions, connections and the listener. The SQL
// itself is in pg_queries.cc and its siblings, the schema in pg_schema.cc.
//
// Writes: one write connection per instance, and every write transaction
// takes one transaction-scoped advisory lock first, so write transactions
// run one at a time across every instance on the database, at READ COMMITTED
// (each statement reads what committed before it). That is what makes a
// read-modify-write (counters, read state, tags) safe without row locks in
// every query, numbers drawn from a sequence commit in the order they were
// drawn (a reader paging by seq never skips a late one), and it can neither
// deadlock nor fail serialization. docs/decisions.md says why this and not
// SERIALIZABLE with retries. Concurrent Writes of one instance share one
// such transaction (storage/common/write_batcher.h), each in a savepoint, so
// the lock and the commit's flush are paid once for all of them.
//
// Reads: a pool of connections, each Read one REPEATABLE READ READ ONLY
// transaction (one snapshot, taken at its first statement, whose round trip
// carries the BEGIN), never waiting for the writer.
//
// Lease and due times: each write transaction reads the database's clock as
// it begins (in the same round trip as BEGIN, after the write lock), a read
// reuses the last reading if it is under a second old (BeginRead), and each
// keeps its distance from the callers' clock on the connection; the shared queries
// store and compare those times on the database's clock through it
// (PgDialect::ToLeaseClock), so every instance measures a lease on one clock
// (docs/decisions.md, "Lease times from the database clock").
//
// Other instances' writes: each write transaction sends NOTIFY
// livechat_conversation with the ids of the conversations it wrote
// (space-separated; ids are UUIDs), in the round trip of its COMMIT and
// delivered at commit; a listener connection hears them and calls
// WatchOtherWriters' callback for those that did not come from this
// instance's own writer.
//
// Round trips: the writer's statements run one after another under the
// write lock, so each round trip on it is paid by every write in turn. A
// batch's first savepoint is opened with BEGIN, each next one with the
// previous write's release, the NOTIFY goes with COMMIT, and the writer
// answers a repeated read of a store's settings from what it read earlier
// in the transaction (pg_connection.h, KeepSettingsReads). A write's event
// and delivery inserts are not waited for: they ride with its next
// statement that waits, its release or its commit (pipeline mode,
// Statement::RunDeferred); a read's COMMIT is read on the connection's next
// use.
#include "livechat/postgres_store.h"

#include <poll.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "storage/common/invoke_guarded.h"
#include "storage/common/write_batcher.h"
#include "storage/postgres/pg_connection.h"
#include "storage/postgres/pg_queries.h"
#include "storage/postgres/pg_schema.h"

namespace livechat {
namespace {

using pg::Connection;
using pg::PgQueries;

// Any constant unique to livechat; every instance takes the same.
const std::string kBeginWrite = std::string("BEGIN ISOLATION LEVEL READ COMMITTED; ") + pg::kWriteLock;
const std::string kBeginRead = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";
constexpr const char* kChannel = "livechat_conversation";

using storage::InvokeGuarded;

constexpr std::int64_t kUnknownSkew = INT64_MIN;
// Two readings of one clock a round trip apart differ by a millisecond now
// and then; a skew measured within this of the one in use keeps it, so that
// a time an instance wrote reads back as written. A clock stepped further
// (NTP) is followed at once.
constexpr std::int64_t kSkewJitterMillis = 5;
// How long a read takes the last measured skew instead of measuring its own.
constexpr std::chrono::milliseconds kReadSkewMillis{1000};

class PostgresStore final : public Store {
 public:
  static Result<std::unique_ptr<Store>> Open(const PostgresOptions& options);
  ~PostgresStore() override;

  Status Read(const std::function<Status(StoreReader&)>& fn) override;
  Status Write(const std::function<Status(StoreWriter&)>& fn) override;
  void WriteAsync(std::function<Status(StoreWriter&)> fn, std::function<void(Status)> done) override;
  bool Healthy() override;
  void WatchOtherWriters(std::function<void(const std::string& conversationId)> changed) override;

 private:
  struct Held {
    const PostgresStore* store;
    Connection* conn;
    bool write;
  };
  static thread_local std::vector<Held> held_;
  class HoldGuard {
   public:
    HoldGuard(const PostgresStore* store, Connection* conn, bool write) { held_.push_back({store, conn, write}); }
    ~HoldGuard() { held_.pop_back(); }
    HoldGuard(const HoldGuard&) = delete;
    HoldGuard& operator=(const HoldGuard&) = delete;
  };
  const Held* FindHeld(bool write) const {
    for (auto it = held_.rbegin(); it != held_.rend(); ++it)
      if (it->store == this && it->write == write) return &*it;
    return nullptr;
  }

  // Begins a write transaction (beginWrite_ or beginBatch_) on `conn` and
  // sets its lease clock skew (pg_connection.h).
  Status Begin(Connection& conn, const std::string& begin);
  // Begins a read: its BEGIN sent ahead of the read's first statement (one
  // round trip for both), so its snapshot is always taken there. The skew
  // is the one measured last, or measured first (a round trip of its own,
  // outside the transaction) when that is older than kReadSkewMillis or the
  // store was given a Clock.
  Status BeginRead(Connection& conn);
  // Keeps `measured` (the database's clock minus the callers') as the skew
  // unless it is within kSkewJitterMillis of the one in use; the skew to use.
  std::int64_t KeepSkew(std::int64_t measured);
  // A broken connection (server restart, network) is replaced before use.
  Status Ensure(std::unique_ptr<Connection>& conn);
  Result<std::unique_ptr<Connection>*> CheckoutReader();
  void ReturnReader(std::unique_ptr<Connection>* conn);
  std::unique_ptr<Connection> OpenListener();
  void Listen(std::unique_ptr<Connection> conn);

  // A write in a transaction of its own; writeMu_ held.
  Status RunAlone(const std::function<Status(StoreWriter&)>& fn);
  // Runs fn on the open transaction; adds the conversations it wrote to
  // `written` if it succeeds.
  Status RunFn(Connection& conn, const std::function<Status(StoreWriter&)>& fn, std::vector<std::string>& written);
  // COMMIT, after the NOTIFY of `written` (one round trip).
  Status Commit(Connection& conn, const std::vector<std::string>& written);
  // Several writes in one transaction, each in a savepoint; writeMu_ taken.
  void RunBatch(const std::vector<storage::WriteBatcher::Pending*>& batch);
  Status RunInSavepoint(Connection& conn, const std::function<Status(StoreWriter&)>& fn, bool& broken);

  std::string url_;
  bool onDatabaseClock_ = true;
  const Clock* clock_ = nullptr;
  // On the database's clock, each ends by reading it.
  std::string beginWrite_;
  // beginWrite_ that also opens the batch's first savepoint.
  std::string beginBatch_;
  // The batch's savepoint "w" is open, for the next write to use (writeMu_).
  bool savepointOpen_ = false;
  // What the batch's writes so far wrote (writeMu_).
  std::vector<std::string> batchWritten_;
  // The skew in use (kUnknownSkew before the first transaction), and when
  // it was last measured (steady_clock ticks since its epoch).
  std::atomic<std::int64_t> skew_{kUnknownSkew};
  std::atomic<std::int64_t> skewMeasuredAt_{0};
  // The store reads the system clock (no Clock given): a skew measured a
  // moment ago still holds. A test's clock may jump at any time.
  bool readsReuseSkew_ = false;
  std::mutex writeMu_;
  std::unique_ptr<Connection> writer_;
  std::atomic<int> writerPid_{0};
  std::unique_ptr<storage::WriteBatcher> batcher_;

  std::mutex poolMu_;
  std::condition_variable poolCv_;
  std::vector<std::unique_ptr<Connection>> readers_;
  std::vector<std::unique_ptr<Connection>*> idle_;

  // The listener runs only while a callback is set.
  std::mutex changedMu_;
  std::function<void(const std::string&)> changed_;
  std::thread listener_;
  std::atomic<bool> stop_{false};
};

thread_local std::vector<PostgresStore::Held> PostgresStore::held_;

Result<std::unique_ptr<Store>> PostgresStore::Open(const PostgresOptions& options) {
  std::unique_ptr<PostgresStore> store(new PostgresStore());
  store->url_ = options.url;
  store->onDatabaseClock_ = options.leaseClock == PostgresOptions::LeaseClock::kDatabase;
  store->clock_ = options.clock != nullptr ? options.clock : Clock::Default();
  store->readsReuseSkew_ = options.clock == nullptr;
  const std::string readClock = store->onDatabaseClock_ ? "; SELECT livechat_now_ms()" : "";
  store->beginWrite_ = kBeginWrite + readClock;
  store->beginBatch_ = kBeginWrite + "; SAVEPOINT w" + readClock;
  PostgresStore* self = store.get();
  store->batcher_ = std::make_unique<storage::WriteBatcher>(
      [self](const std::vector<storage::WriteBatcher::Pending*>& batch) { self->RunBatch(batch); }, options.metrics);
  LC_ASSIGN_OR_RETURN(store->writer_, Connection::Open(options.url));
  LC_RETURN_IF_ERROR(pg::Migrate(*store->writer_));
  store->writerPid_ = store->writer_->BackendPid();
  const int n = options.readers < 1 ? 1 : options.readers;
  for (int i = 0; i < n; ++i) {
    LC_ASSIGN_OR_RETURN(auto reader, Connection::Open(options.url));
    store->readers_.push_back(std::move(reader));
  }
  for (auto& r : store->readers_) store->idle_.push_back(&r);
  return std::unique_ptr<Store>(std::move(store));
}

PostgresStore::~PostgresStore() {
  // The writes still queued commit while the pool is still open.
  if (batcher_) batcher_->Stop();
  WatchOtherWriters(nullptr);
}

Status PostgresStore::Begin(Connection& conn, const std::string& begin) {
  // Only the writer holds the write lock that makes this sound.
  conn.KeepSettingsReads(true);
  if (!onDatabaseClock_) {
    conn.setLeaseClockSkew(0);
    return conn.Exec(begin);
  }
  // The database's clock is read last, once the write lock is held; the
  // callers' clock is read when the answer arrives, so the skew is off by
  // the answer's travel time at most (well under a millisecond on one
  // network, against leases of seconds).
  LC_ASSIGN_OR_RETURN(std::int64_t databaseNow, conn.ExecInt(begin));
  conn.setLeaseClockSkew(KeepSkew(databaseNow - clock_->NowMillis()));
  return Status::Ok();
}

std::int64_t PostgresStore::KeepSkew(std::int64_t measured) {
  std::int64_t skew = skew_.load();
  if (skew == kUnknownSkew || measured > skew + kSkewJitterMillis || measured < skew - kSkewJitterMillis) {
    skew = measured;
    skew_.store(skew);
  }
  skewMeasuredAt_.store(std::chrono::steady_clock::now().time_since_epoch().count());
  return skew;
}

Status PostgresStore::BeginRead(Connection& conn) {
  conn.KeepSettingsReads(false);
  if (!onDatabaseClock_) {
    conn.setLeaseClockSkew(0);
    return conn.SendAhead(kBeginRead.c_str());
  }
  // The writer measures the skew in every transaction; reads alone measure
  // it at most once per kReadSkewMillis. A clock stepped in between is
  // followed by the next measurement, as before by the next transaction.
  // The time first: KeepSkew stores the skew before the time, so a fresh
  // time is never paired with the skew it replaced.
  const std::int64_t measuredAt = skewMeasuredAt_.load();
  std::int64_t skew = skew_.load();
  const std::int64_t age = std::chrono::steady_clock::now().time_since_epoch().count() - measuredAt;
  const bool fresh = readsReuseSkew_ && skew != kUnknownSkew &&
                     age < std::chrono::duration_cast<std::chrono::steady_clock::duration>(kReadSkewMillis).count();
  if (!fresh) {
    // Outside the transaction, so its snapshot is still the first
    // statement's whichever way the skew came.
    LC_ASSIGN_OR_RETURN(std::int64_t databaseNow, conn.ExecInt("SELECT livechat_now_ms()"));
    skew = KeepSkew(databaseNow - clock_->NowMillis());
  }
  conn.setLeaseClockSkew(skew);
  return conn.SendAhead(kBeginRead.c_str());
}

Status PostgresStore::Ensure(std::unique_ptr<Connection>& conn) {
  if (conn && conn->Ok()) return Status::Ok();
  LC_ASSIGN_OR_RETURN(auto fresh, Connection::Open(url_));
  conn = std::move(fresh);
  return Status::Ok();
}

Result<std::unique_ptr<Connection>*> PostgresStore::CheckoutReader() {
  std::unique_lock lock(poolMu_);
  poolCv_.wait(lock, [&] { return !idle_.empty(); });
  std::unique_ptr<Connection>* conn = idle_.back();
  idle_.pop_back();
  return conn;
}

void PostgresStore::ReturnReader(std::unique_ptr<Connection>* conn) {
  {
    std::lock_guard lock(poolMu_);
    idle_.push_back(conn);
  }
  poolCv_.notify_one();
}

Status PostgresStore::Read(const std::function<Status(StoreReader&)>& fn) {
  // A nested Read joins the snapshot this thread already reads from.
  if (const Held* held = FindHeld(false)) {
    PgQueries q(*held->conn);
    return InvokeGuarded(fn, static_cast<StoreReader&>(q), "Store::Read");
  }
  LC_ASSIGN_OR_RETURN(std::unique_ptr<Connection>* slot, CheckoutReader());
  bool committing = false;
  auto run = [&]() -> Status {
    LC_RETURN_IF_ERROR(Ensure(*slot));
    Connection& conn = **slot;
    // The last read's COMMIT, sent without waiting: its answer is read
    // here. A failed one left nothing this read needs; a transaction it
    // left open is rolled back.
    if (!conn.Flush().ok() || conn.InTransaction()) {
      if (conn.Ok()) (void)conn.Exec("ROLLBACK");
      LC_RETURN_IF_ERROR(Ensure(*slot));
    }
    LC_RETURN_IF_ERROR(BeginRead(**slot));
    Status st;
    {
      HoldGuard guard(this, slot->get(), false);
      PgQueries q(**slot);
      st = InvokeGuarded(fn, static_cast<StoreReader&>(q), "Store::Read");
    }
    if (!st.ok()) return st;
    // A read-only transaction's COMMIT changes nothing the caller has
    // read: it is sent, and its answer read when the connection is next
    // used, one round trip off every read (docs/decisions.md).
    Status sent = (*slot)->SendWithoutWaiting("COMMIT");
    committing = sent.ok();
    return Status::Ok();
  };
  Status st = run();
  if (!committing && *slot && (*slot)->Ok() && (*slot)->InTransaction()) (void)(*slot)->Exec("ROLLBACK");
  ReturnReader(slot);
  return st;
}

Status PostgresStore::Write(const std::function<Status(StoreWriter&)>& fn) {
  if (FindHeld(true) != nullptr) return Error{ErrorCode::kInternal, "postgres: Store::Write called inside a Write"};
  if (FindHeld(false) != nullptr) {
    // A Write inside this thread's Read runs here, alone: on a batch
    // leader's thread a nested Read would not join this thread's snapshot.
    std::lock_guard lock(writeMu_);
    return batcher_->RunAlone([&] { return RunAlone(fn); });
  }
  return batcher_->Submit(fn);
}

void PostgresStore::WriteAsync(std::function<Status(StoreWriter&)> fn, std::function<void(Status)> done) {
  // Inside this thread's Read or Write: as Write, on this thread.
  if (FindHeld(true) != nullptr || FindHeld(false) != nullptr) return done(Write(fn));
  batcher_->SubmitAsync(std::move(fn), std::move(done));
}

Status PostgresStore::RunFn(Connection& conn, const std::function<Status(StoreWriter&)>& fn,
                            std::vector<std::string>& written) {
  HoldGuard guard(this, &conn, true);
  PgQueries q(conn);
  Status st = InvokeGuarded(fn, static_cast<StoreWriter&>(q), "Store::Write");
  if (st.ok()) written.insert(written.end(), q.writtenConversations().begin(), q.writtenConversations().end());
  return st;
}

Status PostgresStore::Commit(Connection& conn, const std::vector<std::string>& written) {
  // Delivered to listeners only if the transaction commits, and after it.
  // A payload holds at most 8,000 bytes: ~200 ids each. Sent with what the
  // last write deferred, in one round trip.
  std::vector<std::string> statements;
  for (std::size_t i = 0; i < written.size();) {
    std::string payload;
    for (; i < written.size() && payload.size() + written[i].size() < 7900; ++i) {
      if (!payload.empty()) payload += ' ';
      payload += written[i];
    }
    if (payload.empty()) return Error{ErrorCode::kInternal, "postgres: a conversation id too long to NOTIFY"};
    char* literal = PQescapeLiteral(conn.handle(), payload.data(), payload.size());
    if (literal == nullptr) return Error{ErrorCode::kInternal, "postgres: escape NOTIFY payload"};
    statements.push_back(std::string("SELECT pg_notify('livechat_conversation', ") + literal + ")");
    PQfreemem(literal);
  }
  statements.emplace_back("COMMIT");
  return conn.ExecEach(statements);
}

Status PostgresStore::RunAlone(const std::function<Status(StoreWriter&)>& fn) {
  LC_RETURN_IF_ERROR(Ensure(writer_));
  writerPid_ = writer_->BackendPid();
  writer_->SetDeferring(true);
  Connection& conn = *writer_;
  Status st = Begin(conn, beginWrite_);
  std::vector<std::string> written;
  if (st.ok()) st = RunFn(conn, fn, written);
  if (st.ok()) {
    // COMMIT checks the deferred foreign keys and can fail.
    st = Commit(conn, written);
    if (st.ok()) return st;
  }
  if (conn.Ok() && conn.InTransaction()) (void)conn.Exec("ROLLBACK");
  return st;
}

Status PostgresStore::RunInSavepoint(Connection& conn, const std::function<Status(StoreWriter&)>& fn, bool& broken) {
  if (!savepointOpen_) {
    if (Status began = conn.Exec("SAVEPOINT w"); !began.ok()) {
      broken = true;
      return began;
    }
  }
  savepointOpen_ = false;
  std::vector<std::string> written;
  Status st = RunFn(conn, fn, written);
  // The deferred foreign keys are checked per write (IMMEDIATE checks what
  // is pending), not at the shared COMMIT, so a write that breaks one fails
  // alone, as it would on its own. One round trip, as COMMIT would be, and
  // it opens the next write's savepoint (one left open at COMMIT is
  // released by it).
  if (st.ok()) {
    static const std::vector<std::string> kRelease = {"SET CONSTRAINTS ALL IMMEDIATE", "SET CONSTRAINTS ALL DEFERRED",
                                                      "RELEASE SAVEPOINT w", "SAVEPOINT w"};
    // With what the write deferred (its events, its deliveries), whose
    // errors are its own: a failed one fails this write alone.
    Status checked = conn.ExecEach(kRelease);
    if (checked.ok()) {
      savepointOpen_ = true;
      // Once each: a batch of sends to one conversation names it once.
      for (auto& id : written)
        if (std::find(batchWritten_.begin(), batchWritten_.end(), id) == batchWritten_.end())
          batchWritten_.push_back(std::move(id));
      return st;
    }
    st = checked;
  }
  // An error aborts the transaction up to the savepoint; without a working
  // connection nothing of the batch can commit.
  if (!conn.Ok() || !conn.Exec("ROLLBACK TO SAVEPOINT w; SET CONSTRAINTS ALL DEFERRED; RELEASE SAVEPOINT w").ok())
    broken = true;
  return st;
}

void PostgresStore::RunBatch(const std::vector<storage::WriteBatcher::Pending*>& batch) {
  std::lock_guard lock(writeMu_);
  storage::RunInOneTransaction(
      batch, {[&]() -> Status {
                LC_RETURN_IF_ERROR(Ensure(writer_));
                writerPid_ = writer_->BackendPid();
                writer_->SetDeferring(true);
                batchWritten_.clear();
                Status began = Begin(*writer_, beginBatch_);
                savepointOpen_ = began.ok();
                return began;
              },
              [&](const storage::WriteBatcher::WriteFn& fn, bool& broken) {
                return RunInSavepoint(*writer_, fn, broken);
              },
              [&] { return Commit(*writer_, batchWritten_); },
              [&] {
                if (writer_ && writer_->Ok() && writer_->InTransaction()) (void)writer_->Exec("ROLLBACK");
              },
              [&](const storage::WriteBatcher::WriteFn& fn) { return RunAlone(fn); }});
}

bool PostgresStore::Healthy() {
  // One statement: a read that runs none only sends its BEGIN and COMMIT,
  // which a connection the server has closed still accepts.
  Status st = Read([](StoreReader& r) -> Status {
    auto shop = r.GetShop("");
    if (!shop.ok()) return shop.error();
    return Status::Ok();
  });
  if (!st.ok()) return false;
  std::lock_guard lock(writeMu_);
  if (!Ensure(writer_).ok()) return false;
  auto version = pg::CurrentVersion(*writer_);
  return version.ok() && *version == PostgresSchemaVersion();
}

void PostgresStore::WatchOtherWriters(std::function<void(const std::string& conversationId)> changed) {
  // Stop the running listener first; its callback runs under changedMu_,
  // so once the thread is joined no call is running.
  stop_ = true;
  if (listener_.joinable()) listener_.join();
  stop_ = false;
  {
    std::lock_guard lock(changedMu_);
    changed_ = std::move(changed);
    if (!changed_) return;
  }
  // Listening before this returns: a write committed after it is heard.
  std::unique_ptr<Connection> conn = OpenListener();
  listener_ = std::thread([this, c = std::move(conn)]() mutable { Listen(std::move(c)); });
}

std::unique_ptr<Connection> PostgresStore::OpenListener() {
  auto opened = Connection::Open(url_);
  if (!opened.ok() || !(*opened)->Exec(std::string("LISTEN ") + kChannel).ok()) return nullptr;
  return std::move(opened).value();
}

void PostgresStore::Listen(std::unique_ptr<Connection> conn) {
  while (!stop_) {
    if (!conn || !conn->Ok()) {
      conn = OpenListener();
      if (!conn) {
        // The database is away; the widget's periodic re-read covers the gap.
        for (int i = 0; i < 10 && !stop_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        continue;
      }
    }
    // poll, not select: a busy server's descriptors pass FD_SETSIZE.
    pollfd pfd{PQsocket(conn->handle()), POLLIN, 0};
    if (poll(&pfd, 1, 100) < 0) continue;  // 100 ms: how soon a stop is noticed
    if (PQconsumeInput(conn->handle()) == 0) {
      conn.reset();
      continue;
    }
    while (PGnotify* n = PQnotifies(conn->handle())) {
      const bool own = n->be_pid == writerPid_.load();
      const std::string ids = n->extra != nullptr ? n->extra : "";
      PQfreemem(n);
      if (own) continue;
      std::lock_guard lock(changedMu_);
      for (std::size_t at = 0; at < ids.size();) {
        std::size_t end = ids.find(' ', at);
        if (end == std::string::npos) end = ids.size();
        if (end > at && changed_) changed_(ids.substr(at, end - at));
        at = end + 1;
      }
    }
  }
}

}  // namespace

Result<std::unique_ptr<Store>> OpenPostgresStore(const PostgresOptions& options) {
  try {
    return PostgresStore::Open(options);
  } catch (const std::exception& e) {
    return Error{ErrorCode::kInternal, std::string("postgres: open: ") + e.what()};
  }
}

bool IsPostgresUrl(std::string_view db) {
  return db.rfind("postgresql://", 0) == 0 || db.rfind("postgres://", 0) == 0;
}

}  // namespace livechat
