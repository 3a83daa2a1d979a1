// What the SQLite Store adds to the conformance contract: files, WAL
// snapshots, the reader pool, a second process on the same file, schema
// versions, nesting, and its choices where store.h leaves room.
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "livechat/metrics.h"
#include "storage/sqlite/sqlite_connection.h"
#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

const std::string kShop = "shop-a";

size_t CountListed(Store& s) {
  ConversationQuery q;
  q.shopId = kShop;
  q.limit = 1000;
  return Get(s, [&](StoreReader& r) { return r.ListConversations(q); }).size();
}

void AddConversation(Store& s, const std::string& id, Millis lastActive = 1000) {
  Put(s, [&](StoreWriter& w) {
    Conversation c = MakeConversation(kShop, id, lastActive);
    return w.InsertConversation(c);
  });
}

TEST_CASE("sqlite: schema version and health") {
  // 1: records, 2: webhooks, 3: customer order, 4: outbox claim indexes, 5: customer counts,
  // 6: store knowledge, 7: storefront visitor sessions, 8: privacy, 9: files, 10: summary jobs,
  // 11: legacy conversations index
  CHECK(SqliteSchemaVersion() == 19);
  MemorySqliteFixture mem;
  CHECK(mem.store().Healthy());
  FileSqliteFixture file;
  CHECK(file.store().Healthy());
}

TEST_CASE("sqlite: a file store can read without waiting while a pooled reader is idle; a memory store never") {
  // livechatd runs a bounded read on an I/O thread only when this says yes:
  // a read that waited for a reader would hold up that thread's connections.
  TempDir dir;
  auto s = OpenOrFail(SqliteOptions{dir.File("idle.db"), 1, 5000});
  CHECK(s->CanReadWithoutWaiting());
  std::promise<void> reading, release;
  std::thread holder([&] {
    Status st = s->Read([&](StoreReader&) -> Status {
      reading.set_value();
      release.get_future().wait();
      return Status::Ok();
    });
    CHECK(st.ok());
  });
  reading.get_future().wait();
  CHECK_FALSE(s->CanReadWithoutWaiting());  // the one reader is taken
  release.set_value();
  holder.join();
  CHECK(s->CanReadWithoutWaiting());
  MemorySqliteFixture mem;
  CHECK_FALSE(mem.store().CanReadWithoutWaiting());  // it reads through the writer
}

TEST_CASE("sqlite: memory statistics can be turned off only before SQLite is in use") {
  // livechatd turns them off first thing (a global mutex around every
  // allocation SQLite makes); once a store is open, the call is refused by
  // SQLite and changes nothing.
  FileSqliteFixture file;
  AddConversation(file.store(), "c1");
  CHECK_FALSE(DisableSqliteMemoryStatistics());
  AddConversation(file.store(), "c2");
  CHECK(CountListed(file.store()) == 2);
}

TEST_CASE("sqlite: the journal spill size can be set only before SQLite is in use") {
  // livechatd sets it first thing (a send's savepoint journal outgrew the
  // 64 KiB default and went to a temporary file); once a store is open,
  // SQLite refuses the call and writes work as before.
  FileSqliteFixture file;
  AddConversation(file.store(), "c1");
  CHECK_FALSE(SetSqliteJournalSpillBytes(kSqliteServerJournalSpillBytes));
  AddConversation(file.store(), "c2");
  CHECK(CountListed(file.store()) == 2);
}

TEST_CASE("sqlite: a statement asked for by text built at a reused address is the one of that text") {
  // The connection remembers statements by where their text was; a text
  // built at run time may come back at the same address with other words.
  TempDir dir;
  auto opened = sqlite::Connection::Open(dir.File("cache.db"), sqlite::Connection::Mode::kReadWrite, 5000, nullptr);
  REQUIRE(opened.ok());
  sqlite::Connection& c = **opened;
  std::string sql;
  sql.reserve(64);
  const char* const at = sql.data();
  for (int i = 0; i < 3; ++i) {
    for (const char* text : {"SELECT 'first'", "SELECT 'other'", "SELECT 'third'"}) {
      sql.assign(text);
      REQUIRE(sql.data() == at);  // the same address every time
      auto st = c.Prepare(sql);
      REQUIRE(st.ok());
      REQUIRE(Value(st->Step()));
      CHECK(st->Text(0) == std::string(text).substr(8, 5));
    }
  }
  // The same text from another address is the same statement's answer too.
  const std::string copy = "SELECT 'other'";
  auto st = c.Prepare(copy);
  REQUIRE(st.ok());
  REQUIRE(Value(st->Step()));
  CHECK(st->Text(0) == "other");
}

TEST_CASE("sqlite: open fails with kInternal for an unusable path") {
  TempDir dir;
  auto r = OpenSqliteStore(SqliteOptions{dir.File("no/such/dir/store.db"), 2, 100});
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInternal);
  CHECK_FALSE(r.error().message.empty());
}

TEST_CASE("sqlite: reopening a file keeps data, schema version and the pg sequence") {
  TempDir dir;
  const SqliteOptions options{dir.File("reopen.db"), 2, 5000};
  std::int64_t firstPg = 0;
  {
    auto s = OpenOrFail(options);
    Put(*s, [&](StoreWriter& w) { return w.InsertShop(MakeShop(kShop)); });
    Conversation c = MakeFullConversation(kShop, "c1");
    Put(*s, [&](StoreWriter& w) { return w.InsertConversation(c); });
    firstPg = *c.pgConvoId;
  }
  auto s = OpenOrFail(options);
  CHECK(s->Healthy());
  CHECK(Get(*s, [&](StoreReader& r) { return r.GetShop(kShop); }).has_value());
  auto c = Get(*s, [&](StoreReader& r) { return r.FindConversation(kShop, "c1"); });
  REQUIRE(c.has_value());
  Conversation expected = MakeFullConversation(kShop, "c1");
  expected.pgConvoId = firstPg;
  CheckSame(*c, expected);
  Conversation next = MakeConversation(kShop, "c2", 1);
  Put(*s, [&](StoreWriter& w) { return w.InsertConversation(next); });
  CHECK(*next.pgConvoId > firstPg);
}

TEST_CASE("sqlite: a Read inside a Write sees the last committed state (file)") {
  FileSqliteFixture fx;
  Store& s = fx.store();
  AddConversation(s, "c1");
  Put(s, [&](StoreWriter& w) -> Status {
    Conversation c2 = MakeConversation(kShop, "c2", 2000);
    LC_RETURN_IF_ERROR(w.InsertConversation(c2));
    CHECK(Value(w.FindConversation(kShop, "c2")).has_value());  // the writer sees its own write
    CHECK(CountListed(s) == 1);                                 // a reader does not, yet
    CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.FindConversation(kShop, "c2"); }).has_value());
    return Status::Ok();
  });
  CHECK(CountListed(s) == 2);
}

TEST_CASE("sqlite: a Read keeps its snapshot while another thread commits") {
  FileSqliteFixture fx;
  Store& s = fx.store();
  AddConversation(s, "c1");
  std::promise<void> readerStarted, writerDone;
  std::future<void> writerDoneF = writerDone.get_future();
  size_t before = 0, after = 0;
  std::thread reader([&] {
    Status st = s.Read([&](StoreReader& r) -> Status {
      ConversationQuery q;
      q.shopId = kShop;
      LC_ASSIGN_OR_RETURN(auto rows, r.ListConversations(q));
      before = rows.size();
      readerStarted.set_value();
      writerDoneF.wait();
      LC_ASSIGN_OR_RETURN(rows, r.ListConversations(q));
      after = rows.size();
      return Status::Ok();
    });
    CHECK(st.ok());
  });
  readerStarted.get_future().wait();
  AddConversation(s, "c2");  // commits while the reader's snapshot is open
  writerDone.set_value();
  reader.join();
  CHECK(before == 1);
  CHECK(after == 1);
  CHECK(CountListed(s) == 2);
}

TEST_CASE("sqlite: nested Reads share one snapshot and do not exhaust the pool") {
  TempDir dir;
  auto s = OpenOrFail(SqliteOptions{dir.File("nested.db"), 1, 5000});
  AddConversation(*s, "c1");
  Status st = s->Read([&](StoreReader&) -> Status {
    return s->Read([&](StoreReader& inner) -> Status {
      LC_ASSIGN_OR_RETURN(auto c, inner.FindConversation(kShop, "c1"));
      CHECK(c.has_value());
      return Status::Ok();
    });
  });
  Ok(st);
}

TEST_CASE("sqlite: concurrent readers and one writer") {
  FileSqliteFixture fx;
  Store& s = fx.store();
  constexpr int kWrites = 100;
  std::vector<std::thread> readers;
  std::vector<int> failures(4, 0), regressions(4, 0);
  std::atomic<bool> done{false};
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&, t] {
      size_t last = 0;
      while (!done.load()) {
        size_t n = 0;
        Status st = s.Read([&](StoreReader& r) -> Status {
          ConversationQuery q;
          q.shopId = kShop;
          q.limit = 1000;
          LC_ASSIGN_OR_RETURN(auto rows, r.ListConversations(q));
          n = rows.size();
          return Status::Ok();
        });
        if (!st.ok()) ++failures[t];
        if (n < last) ++regressions[t];  // committed rows never disappear
        last = n;
      }
    });
  }
  for (int i = 0; i < kWrites; ++i) AddConversation(s, "c" + std::to_string(i), i);
  done = true;
  for (auto& t : readers) t.join();
  for (int t = 0; t < 4; ++t) {
    CHECK(failures[t] == 0);
    CHECK(regressions[t] == 0);
  }
  CHECK(CountListed(s) == kWrites);
}

TEST_CASE("sqlite: a second store on the same file (another process) sees commits and waits for the lock") {
  TempDir dir;
  auto s1 = OpenOrFail(SqliteOptions{dir.File("shared.db"), 2, 5000});
  auto s2 = OpenOrFail(SqliteOptions{dir.File("shared.db"), 2, 100});
  AddConversation(*s1, "c1");
  CHECK(CountListed(*s2) == 1);

  Put(*s1, [&](StoreWriter& w) -> Status {
    Conversation c = MakeConversation(kShop, "c2", 2000);
    LC_RETURN_IF_ERROR(w.InsertConversation(c));
    // s1 holds the file's write lock: s2 gives up after its busy timeout.
    Status st = s2->Write([&](StoreWriter& w2) { return w2.InsertShop(MakeShop("other")); });
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == ErrorCode::kInternal);
    CHECK(CountListed(*s2) == 1);
    return Status::Ok();
  });
  CHECK(CountListed(*s2) == 2);
  Put(*s2, [&](StoreWriter& w) { return w.InsertShop(MakeShop("other")); });
  CHECK(Get(*s1, [&](StoreReader& r) { return r.GetShop("other"); }).has_value());

  // s2's pg ids continue the shared sequence.
  Conversation c3 = MakeConversation(kShop, "c3", 3000);
  Put(*s2, [&](StoreWriter& w) { return w.InsertConversation(c3); });
  auto c2 = Get(*s1, [&](StoreReader& r) { return r.FindConversation(kShop, "c2"); });
  REQUIRE(c2.has_value());
  CHECK(*c3.pgConvoId > *c2->pgConvoId);
}

TEST_CASE_TEMPLATE("sqlite: a nested Write is refused, not deadlocked", StoreFixture, MemorySqliteFixture,
                   FileSqliteFixture) {
  StoreFixture fx;
  Store& s = fx.store();
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertShop(MakeShop(kShop)));
    Status inner = s.Write([&](StoreWriter& w2) { return w2.InsertShop(MakeShop("inner")); });
    REQUIRE_FALSE(inner.ok());
    CHECK(inner.error().code == ErrorCode::kInternal);
    return Status::Ok();
  });
  CHECK(Get(s, [&](StoreReader& r) { return r.GetShop(kShop); }).has_value());
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetShop("inner"); }).has_value());
}

TEST_CASE_TEMPLATE("sqlite: an exception from fn becomes kInternal and rolls back", StoreFixture, MemorySqliteFixture,
                   FileSqliteFixture) {
  StoreFixture fx;
  Store& s = fx.store();
  Status st = s.Write([&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertShop(MakeShop(kShop)));
    throw std::runtime_error("boom");
  });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::kInternal);
  CHECK(st.error().message.find("boom") != std::string::npos);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetShop(kShop); }).has_value());

  st = s.Read([&](StoreReader&) -> Status { throw std::runtime_error("read boom"); });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::kInternal);
  CHECK(s.Healthy());
}

TEST_CASE("sqlite: in memory, a Read inside a Write reads the open transaction; a Write inside a Read is refused") {
  MemorySqliteFixture fx;
  Store& s = fx.store();
  Put(s, [&](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertShop(MakeShop(kShop)));
    CHECK(Get(s, [&](StoreReader& r) { return r.GetShop(kShop); }).has_value());
    return Status::Ok();
  });
  Status st = s.Read(
      [&](StoreReader&) -> Status { return s.Write([&](StoreWriter& w) { return w.InsertShop(MakeShop("inner")); }); });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::kInternal);
}

TEST_CASE("sqlite: two in-memory stores are separate databases") {
  MemorySqliteFixture a, b;
  Put(a.store(), [&](StoreWriter& w) { return w.InsertShop(MakeShop(kShop)); });
  CHECK_FALSE(Get(b.store(), [&](StoreReader& r) { return r.GetShop(kShop); }).has_value());
}

TEST_CASE_TEMPLATE("sqlite: rows of a conversation need the conversation (checked at commit)", StoreFixture,
                   MemorySqliteFixture, FileSqliteFixture) {
  StoreFixture fx;
  Store& s = fx.store();
  Status st = s.Write([&](StoreWriter& w) -> Status {
    Message m = MakeMessage(kShop, "missing", "m1", 1);
    return w.InsertMessage(m);
  });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::kInternal);
  CHECK_FALSE(Get(s, [&](StoreReader& r) { return r.GetMessage(kShop, "missing", "m1"); }).has_value());

  // Order inside one Write does not matter: the check runs at COMMIT.
  Put(s, [&](StoreWriter& w) -> Status {
    Message m = MakeMessage(kShop, "c1", "m1", 1);
    LC_RETURN_IF_ERROR(w.InsertMessage(m));
    Conversation c = MakeConversation(kShop, "c1", 1);
    return w.InsertConversation(c);
  });
  CHECK(Get(s, [&](StoreReader& r) { return r.GetMessage(kShop, "c1", "m1"); }).has_value());
}

TEST_CASE_TEMPLATE("sqlite: migrating a legacy record through UpdateConversation gives it a pg id", StoreFixture,
                   MemorySqliteFixture, FileSqliteFixture) {
  StoreFixture fx;
  Store& s = fx.store();
  Conversation legacy = MakeConversation(kShop, "c-legacy", 100);
  legacy.inNewDatastore = false;
  Put(s, [&](StoreWriter& w) { return w.InsertConversation(legacy); });
  REQUIRE_FALSE(legacy.pgConvoId.has_value());
  CHECK(CountListed(s) == 0);

  legacy.inNewDatastore = true;
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.UpdateConversation(legacy); }) == true);
  auto got = Get(s, [&](StoreReader& r) { return r.FindConversation(kShop, "c-legacy"); });
  REQUIRE(got.has_value());
  REQUIRE(got->pgConvoId.has_value());
  CHECK(CountListed(s) == 1);
  auto byPg = Get(s, [&](StoreReader& r) { return r.FindConversation(kShop, std::to_string(*got->pgConvoId)); });
  REQUIRE(byPg.has_value());
  CHECK(byPg->id == "c-legacy");
}

TEST_CASE("sqlite: revoking twice keeps the first instant") {
  MemorySqliteFixture fx;
  Store& s = fx.store();
  ApiKey k = MakeApiKey(kShop, "k1", 1000);
  Put(s, [&](StoreWriter& w) { return w.InsertApiKey(k); });
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.RevokeApiKey(kShop, "k1", 2000); }) == true);
  CHECK(PutValue(s, [&](StoreWriter& w) { return w.RevokeApiKey(kShop, "k1", 3000); }) == true);
  auto got = Get(s, [&](StoreReader& r) { return r.FindApiKeyByHash(k.keyHash); });
  REQUIRE(got.has_value());
  CHECK(got->revokedAt == std::optional<Millis>(2000));
}

TEST_CASE("sqlite: non-positive limits return nothing") {
  MemorySqliteFixture fx;
  Store& s = fx.store();
  AddConversation(s, "c1");
  ConversationQuery q;
  q.shopId = kShop;
  q.limit = 0;
  CHECK(Get(s, [&](StoreReader& r) { return r.ListConversations(q); }).empty());
  MessageQuery mq;
  mq.shopId = kShop;
  mq.conversationId = "c1";
  mq.limit = -1;
  CHECK(Get(s, [&](StoreReader& r) { return r.ListMessages(mq); }).empty());
}

// Which of SQLite's answers mean "no space" (503, try again) and which a
// broken store (500). SQLITE_IOERR_SHMSIZE comes with system errno 0 from
// SQLite 3.40 when the -shm cannot grow on a full disk.
TEST_CASE("sqlite: a full disk's codes are kUnavailable, whatever part of the database ran out") {
  using sqlite::SqliteError;
  CHECK(SqliteError(nullptr, SQLITE_FULL, "commit").code == ErrorCode::kUnavailable);
  CHECK(SqliteError(nullptr, SQLITE_IOERR_SHMSIZE, "commit").code == ErrorCode::kUnavailable);
  CHECK(SqliteError(nullptr, SQLITE_IOERR_WRITE, "commit").code == ErrorCode::kInternal);  // errno unknown
  CHECK(SqliteError(nullptr, SQLITE_IOERR_SHMMAP, "commit").code == ErrorCode::kInternal);
  CHECK(SqliteError(nullptr, SQLITE_CORRUPT, "step").code == ErrorCode::kInternal);
  CHECK(SqliteError(nullptr, SQLITE_CONSTRAINT_UNIQUE, "step").code == ErrorCode::kInternal);
}

// A full disk is told apart from a broken store: SQLite's SQLITE_FULL (here
// from a real cap on the file, the same code ENOSPC gives) becomes
// kUnavailable, the write changes nothing, reads go on, and the metrics say
// writes are being refused until one commits again.
TEST_CASE("sqlite: a full database refuses writes with kUnavailable and keeps serving reads") {
  TempDir dir;
  MetricsRegistry metrics;
  SqliteOptions o{dir.File("full.db"), 2, 5000};
  o.metrics = &metrics;
  o.maxDatabaseBytes = 1;  // no room beyond the migrated schema
  auto s = OpenOrFail(o);
  Gauge& refusing = metrics.GetGauge(metric::kStoreWritesRefusing, metric::kStoreWritesRefusingHelp);
  Counter& refused = metrics.GetCounter(metric::kStoreWritesUnavailable, metric::kStoreWritesUnavailableHelp);
  Put(*s, [&](StoreWriter& w) { return w.InsertShop(MakeShop(kShop)); });
  auto customer = [&](int i) {
    Customer c = MakeSparseCustomer(kShop, "u" + std::to_string(i));
    c.firstName = std::string(3000, 'x');
    return c;
  };
  // Fill what the cap leaves (the schema's pages have free space) until a
  // write is refused; every write before it committed whole.
  int stored = 0;
  Status st = Status::Ok();
  for (int i = 0; i < 400 && st.ok(); ++i) {
    Customer c = customer(i);
    st = s->Write([&](StoreWriter& w) { return w.InsertCustomer(c); });
    if (st.ok()) ++stored;
  }
  REQUIRE_FALSE(st.ok());
  CHECK(stored > 0);
  CHECK(st.error().code == ErrorCode::kUnavailable);
  CHECK(st.error().message.find("full") != std::string::npos);
  CHECK(refusing.Value() == 1);
  CHECK(refused.Value() == 1);
  // Nothing of the refused write is visible; everything before it is.
  CHECK(Get(*s, [&](StoreReader& r) { return r.CountCustomers(kShop); }) == stored);
  CHECK_FALSE(Get(*s, [&](StoreReader& r) { return r.GetCustomer(kShop, "u" + std::to_string(stored)); })
                  .has_value());
  // A rule's refusal (a duplicate id) neither counts nor clears.
  Status dup = s->Write([&](StoreWriter& w) { return w.InsertCustomer(MakeSparseCustomer(kShop, "u0")); });
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().code == ErrorCode::kInternal);
  CHECK(refusing.Value() == 1);
  CHECK(refused.Value() == 1);
  // Space returns (a deleted row frees its pages): writes commit again and
  // the gauge says so.
  bool deleted = false;
  Put(*s, [&](StoreWriter& w) -> Status {
    auto r = w.DeleteCustomer(kShop, "u0");
    if (!r.ok()) return r.error();
    deleted = *r;
    return Status::Ok();
  });
  CHECK(deleted);
  CHECK(refusing.Value() == 0);
  Put(*s, [&](StoreWriter& w) { return w.InsertCustomer(MakeSparseCustomer(kShop, "after")); });
  CHECK(Get(*s, [&](StoreReader& r) { return r.CountCustomers(kShop); }) == stored);
  CHECK(refused.Value() == 1);
}


// ------------------------------ WAL checkpoints off the commit path

void AddCustomers(Store& s, int from, int count) {
  for (int i = from; i < from + count; ++i) {
    Customer c = MakeSparseCustomer(kShop, "u" + std::to_string(i));
    c.firstName = std::string(2000, 'x');  // about one page a write
    Put(s, [&](StoreWriter& w) { return w.InsertCustomer(c); });
  }
}

SqliteOptions CheckpointOptions(const std::string& path, MetricsRegistry& metrics, int checkpointPages,
                                int writerCheckpointPages) {
  SqliteOptions o{path, 4, 5000};
  o.metrics = &metrics;
  o.checkpointPages = checkpointPages;
  o.writerCheckpointPages = writerCheckpointPages;
  return o;
}

TEST_CASE("sqlite: the WAL is checkpointed by a thread of its own, not by a commit") {
  TempDir dir;
  MetricsRegistry metrics;
  // The writer never checkpoints here.
  auto s = OpenOrFail(CheckpointOptions(dir.File("ckpt.db"), metrics, 20, 1'000'000));
  Counter& background = metrics.GetCounter(metric::kSqliteCheckpointsBackground, "");
  Counter& writer = metrics.GetCounter(metric::kSqliteCheckpointsWriter, "");
  Gauge& walPages = metrics.GetGauge(metric::kSqliteWalPages, "");
  Put(*s, [&](StoreWriter& w) { return w.InsertShop(MakeShop(kShop)); });
  // A Read held open from before the writes keeps the WAL from starting
  // again (it would, whenever a background copy finished between two
  // commits), so the page count after the last commit is all 60 writes'.
  std::promise<void> snapshotTaken, writesDone;
  std::thread holder([&] {
    (void)s->Read([&](StoreReader& r) -> Status {
      auto shop = r.GetShop(kShop);  // the first read fixes the snapshot
      snapshotTaken.set_value();
      writesDone.get_future().wait();
      if (!shop.ok()) return shop.error();
      return Status::Ok();
    });
  });
  snapshotTaken.get_future().wait();
  AddCustomers(*s, 0, 60);
  CHECK(walPages.Value() >= 60);
  writesDone.set_value();
  holder.join();
  // The commits that crossed 20 pages asked the checkpointer; it runs apart
  // from them, so wait for it.
  for (int i = 0; i < 200 && background.Value() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  CHECK(background.Value() >= 1);
  // SQLite's own checkpoint would not have run below 1,000 pages.
  CHECK(writer.Value() == 0);
}

TEST_CASE("sqlite: under a steady stream of writes the WAL stays bounded") {
  TempDir dir;
  MetricsRegistry metrics;
  const SqliteOptions o = CheckpointOptions(dir.File("bounded.db"), metrics, 10, 60);
  auto s = OpenOrFail(o);
  Counter& writer = metrics.GetCounter(metric::kSqliteCheckpointsWriter, "");
  Put(*s, [&](StoreWriter& w) { return w.InsertShop(MakeShop(kShop)); });
  // Eight writers and four readers for 1,200 writes: readers keep old
  // snapshots open and background copies keep chasing new commits, so the
  // WAL would grow without the writer's own checkpoint at 60 pages.
  std::atomic<bool> done{false};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t)
    readers.emplace_back([&] {
      while (!done.load()) (void)CountListed(*s);
    });
  std::vector<std::thread> writers;
  for (int t = 0; t < 8; ++t) writers.emplace_back([&, t] { AddCustomers(*s, t * 1000, 150); });
  for (auto& t : writers) t.join();
  done = true;
  for (auto& t : readers) t.join();
  CHECK(Get(*s, [&](StoreReader& r) { return r.CountCustomers(kShop); }) == 1200);
  CHECK(writer.Value() >= 1);
  // The -wal file never shrinks, so its size is the most it ever held: the
  // bound, plus the commit that crossed it (a batch of up to eight writes,
  // each a row, its index entries and the shop's count), plus those that
  // ran while the checkpoint waited, each frame a page and a 24-byte header.
  // Measured: about 115 frames; without the writer's RESTART, 11 to 29 MB.
  const auto walBytes = std::filesystem::file_size(o.path + "-wal");
  INFO("wal bytes " << walBytes);
  CHECK(walBytes <= 32 + 200 * (4096 + 24));
}


TEST_CASE("sqlite: a reader holding its snapshot long does not hold every commit at the WAL's bound") {
  TempDir dir;
  MetricsRegistry metrics;
  auto s = OpenOrFail(CheckpointOptions(dir.File("held.db"), metrics, 10, 30));
  Put(*s, [&](StoreWriter& w) { return w.InsertShop(MakeShop(kShop)); });
  // A backup's read transaction, open across all the writes: no RESTART can
  // end while it lasts. Each commit past 30 pages that waited the busy
  // timeout (5 s here) would make these 120 writes take minutes; a RESTART
  // waits at most 250 ms a phase, and the next comes only 30 pages later.
  std::promise<void> snapshotTaken, writesDone;
  std::thread holder([&] {
    (void)s->Read([&](StoreReader& r) -> Status {
      auto shop = r.GetShop(kShop);
      snapshotTaken.set_value();
      writesDone.get_future().wait();
      if (!shop.ok()) return shop.error();
      return Status::Ok();
    });
  });
  snapshotTaken.get_future().wait();
  const auto start = std::chrono::steady_clock::now();
  AddCustomers(*s, 0, 120);
  const auto took = std::chrono::steady_clock::now() - start;
  writesDone.set_value();
  holder.join();
  CHECK(Get(*s, [&](StoreReader& r) { return r.CountCustomers(kShop); }) == 120);
  // Measured: about 6 s (a RESTART may wait 250 ms in each of its phases,
  // and one comes every 30 pages). Without the cut wait and the spacing,
  // every commit past the bound waits 5 s: several minutes.
  CHECK(took < std::chrono::seconds(20));
}

TEST_CASE("sqlite: livechat_bm25 scores every catalog row exactly as FTS5's bm25") {
  // The catalog search ranks with livechat_bm25 so that the scope and
  // parent phrases' rows are not counted; it must not change one score.
  TempDir dir;
  const std::string path = dir.File("rank.db");
  {
    auto s = OpenOrFail(SqliteOptions{path, 1, 5000});
    const std::vector<std::string> words = {"merino", "wool", "sweater", "navy", "linen", "shirt"};
    Put(*s, [&](StoreWriter& w) -> Status {
      LC_RETURN_IF_ERROR(w.InsertShop(MakeShop(kShop)));
      LC_RETURN_IF_ERROR(w.InsertShop(MakeShop("shop-b")));
      std::uint32_t seed = 7;
      auto pick = [&] {
        seed = seed * 1103515245u + 12345u;
        return words[(seed >> 16) % words.size()];
      };
      for (int i = 0; i < 40; ++i) {
        // Titles and bodies of different words and lengths, so the rows'
        // scores differ; a second store and kind share the words, so the
        // words' row counts are not the scope's.
        std::string title = pick() + " " + pick();
        std::string body;
        for (int k = 0; k <= i % 7; ++k) body += pick() + " filler ";
        const std::string shop = i % 4 == 3 ? "shop-b" : kShop;
        CatalogItem product{shop, "product", "p" + std::to_string(i), "", title, body, "{}", 1};
        LC_RETURN_IF_ERROR(w.PutCatalogItem(product, {}));
        CatalogItem faq{shop, "product_faq", "f" + std::to_string(i), "p" + std::to_string(i % 3), title + " care",
                        body + " wash", "{}", 1};
        LC_RETURN_IF_ERROR(w.PutCatalogItem(faq, {}));
      }
      return Status::Ok();
    });
  }
  auto opened = sqlite::Connection::Open(path, sqlite::Connection::Mode::kReadOnly, 5000, nullptr);
  REQUIRE(opened.ok());
  sqlite::Connection& c = **opened;
  // The scope and parent tokens as the store wrote them.
  auto tokens = [&](const char* sql) {
    auto st = c.Prepare(sql);
    REQUIRE(st.ok());
    REQUIRE(Value(st->Step()));
    return std::make_pair(st->Text(0), st->Text(1));
  };
  const auto [productScope, noParent] = tokens("SELECT scope, parent FROM catalog_fts WHERE title LIKE 'merino%' LIMIT 1");
  const auto [faqScope, parent] = tokens("SELECT scope, parent FROM catalog_fts WHERE body LIKE '%wash' LIMIT 1");
  (void)noParent;
  struct Case {
    std::string match;
    int filters;
  };
  const std::vector<Case> cases = {
      {"scope : " + productScope + " AND {title body} : (\"merino\" AND \"sweater\")", 1},
      {"scope : " + productScope + " AND {title body} : (\"merino\" OR \"navy\" OR \"shirt\")", 1},
      {"scope : " + productScope + " AND {title body} : (\"wool\")", 1},
      {"scope : " + faqScope + " AND parent : " + parent + " AND {title body} : (\"linen\" OR \"care\")", 2},
  };
  // One livechat_bm25 call per statement: FTS5 keeps a function's
  // statistics per cursor, so a second call in the same statement would
  // reuse the first one's.
  static const char* sql =
      "SELECT rowid, bm25(catalog_fts, 0.0, 0.0, 10.0, 1.0), livechat_bm25(catalog_fts, ?2, 0.0, 0.0, 10.0, 1.0) "
      "FROM catalog_fts WHERE catalog_fts MATCH ?1 ORDER BY rowid";
  for (const auto& k : cases) {
    // The search's own filter count, then every phrase counted (0): both
    // must give bm25's scores.
    for (int filters : {k.filters, 0}) {
      CAPTURE(k.match);
      CAPTURE(filters);
      auto st = c.Prepare(sql);
      REQUIRE(st.ok());
      st->Add(k.match).Add(filters);
      int rows = 0;
      std::vector<double> scores;
      while (Value(st->Step())) {
        ++rows;
        const double bm25 = st->Double(1);
        CHECK(st->Double(2) == bm25);  // exact: the same arithmetic, term by term
        CHECK(bm25 < 0);
        scores.push_back(bm25);
      }
      REQUIRE(rows >= 2);
      std::sort(scores.begin(), scores.end());
      CHECK(scores.front() < scores.back());  // the rows are ranked, not tied
    }
  }
  // A wrong call is an error, not a score.
  auto bad = c.Prepare("SELECT livechat_bm25(catalog_fts) FROM catalog_fts WHERE catalog_fts MATCH 'merino'");
  REQUIRE(bad.ok());
  CHECK_FALSE(bad->Step().ok());
}

}  // namespace
}  // namespace livechat::testing
