// What the PostgreSQL Store adds to the conformance contract: versioned
// migrations run once by concurrent instances, a newer schema refused,
// snapshots, nesting, and hearing other instances' writes (LISTEN/NOTIFY).
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "livechat/metrics.h"
#include "livechat/open_store.h"
#include "store_fixtures.h"
#include "store_records.h"
#include "storage/postgres/pg_connection.h"

namespace livechat::testing {
namespace {

const std::string kShop = "shop-a";

std::unique_ptr<Store> OpenPg(const PgTestDatabase& db, int readers = 2) {
  PostgresOptions options;
  options.url = db.url();
  options.readers = readers;
  auto r = OpenPostgresStore(options);
  if (!r.ok()) FAIL("OpenPostgresStore: " << r.error().message);
  return std::move(r).value();
}

// A connection of the test's own on the migrated database.
std::unique_ptr<pg::Connection> OpenConnection(const PgTestDatabase& db) {
  auto opened = pg::Connection::Open(db.url());
  if (!opened.ok()) FAIL("Connection::Open: " << opened.error().message);
  return std::move(opened).value();
}

void AddConversation(Store& s, const std::string& id, Millis lastActive = 1000) {
  Put(s, [&](StoreWriter& w) {
    Conversation c = MakeConversation(kShop, id, lastActive);
    return w.InsertConversation(c);
  });
}

// Collects the ids a WatchOtherWriters callback hears.
struct Heard {
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::string> ids;
  void Add(const std::string& id) {
    std::lock_guard lock(mu);
    ids.push_back(id);
    cv.notify_all();
  }
  bool WaitFor(const std::string& id, std::chrono::milliseconds within) {
    std::unique_lock lock(mu);
    return cv.wait_for(lock, within, [&] { return std::find(ids.begin(), ids.end(), id) != ids.end(); });
  }
  std::vector<std::string> Snapshot() {
    std::lock_guard lock(mu);
    return ids;
  }
};

TEST_CASE("postgres: schema version and health") {
  PgTestDatabase db;
  auto store = OpenPg(db);
  CHECK(PostgresSchemaVersion() == 12);
  CHECK(db.Query("SELECT string_agg(version::text, ',' ORDER BY version) FROM livechat_schema") == "1,2,3,4,5,6,7,8,9,10,11,12");
  CHECK(store->Healthy());
}

TEST_CASE("postgres: two instances starting together on an empty database migrate it once") {
  PgTestDatabase db;
  std::vector<std::future<Result<std::unique_ptr<Store>>>> opening;
  for (int i = 0; i < 4; ++i) {
    opening.push_back(std::async(std::launch::async, [&] {
      PostgresOptions options;
      options.url = db.url();
      options.readers = 1;
      return OpenPostgresStore(options);
    }));
  }
  std::vector<std::unique_ptr<Store>> stores;
  for (auto& f : opening) {
    auto r = f.get();
    REQUIRE_MESSAGE(r.ok(), (r.ok() ? "" : r.error().message));
    stores.push_back(std::move(r).value());
  }
  CHECK(db.Query("SELECT count(*) FROM livechat_schema") == "12");
  // Every instance serves: a write on one is read on another.
  AddConversation(*stores[0], "c1");
  auto found = Get(*stores[3], [](StoreReader& r) { return r.FindConversation(kShop, "c1"); });
  REQUIRE(found.has_value());
  CHECK(found->pgConvoId == std::optional<std::int64_t>(1));
}

TEST_CASE("postgres: a database migrated by a newer build is refused with a clear message") {
  PgTestDatabase db;
  { auto store = OpenPg(db); }
  db.Exec("INSERT INTO livechat_schema (version, applied_at) VALUES (99, 0)");
  PostgresOptions options;
  options.url = db.url();
  auto r = OpenPostgresStore(options);
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == ErrorCode::kInternal);
  CHECK(r.error().message ==
        "postgres: the database's schema version 99 is newer than this build's 12; run a livechat build at least as "
        "new as the one that migrated it");
}

TEST_CASE("postgres migration 9: the words of a version 8 database fill the search vocabulary") {
  PgTestDatabase db;
  {
    auto store = OpenPg(db);
    Put(*store, [&](StoreWriter& w) -> Status {
      Conversation c = MakeConversation(kShop, "c1", 1000);
      c.customerName = "Ada Lovelace";
      LC_RETURN_IF_ERROR(w.InsertConversation(c));
      Message m = MakeMessage(kShop, "c1", "m1", 1000);
      m.text = "The parcel arrived DAMAGED";
      return w.InsertMessage(m);
    });
  }
  // Back to version 8: no vocabulary and no triggers keeping one (and none
  // of the later migrations).
  db.Exec("DROP FUNCTION livechat_search_lexemes() CASCADE; DROP TABLE conversation_search_lexemes; "
          "DROP FUNCTION livechat_rate_count_both; DROP FUNCTION livechat_rate_hit; "
          "DROP FUNCTION livechat_conversation_row_version() CASCADE; ALTER TABLE conversations DROP COLUMN row_version; "
          "ALTER TABLE messages DROP COLUMN row_version; "
          "DELETE FROM livechat_schema WHERE version >= 9");
  auto store = OpenPg(db);
  CHECK(db.Query("SELECT string_agg(lexeme, ' ' ORDER BY lexeme) FROM conversation_search_lexemes") ==
        "ada arrived damaged lovelace parcel the");
  ConversationQuery q;
  q.shopId = kShop;
  ConversationSearch search;
  search.words = {"damaged", "parc"};
  auto hits = Get(*store, [&](StoreReader& r) { return r.SearchConversations(q, search); });
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].conversation.id == "c1");
  CHECK(hits[0].source == "message");
  search.words = {"love"};
  hits = Get(*store, [&](StoreReader& r) { return r.SearchConversations(q, search); });
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].source == "header");
  // And kept from now on, by the statement that indexes a text.
  Put(*store, [&](StoreWriter& w) {
    Message m = MakeMessage(kShop, "c1", "m2", 1001);
    m.text = "Refund requested";
    return w.InsertMessage(m);
  });
  CHECK(db.Query("SELECT string_agg(lexeme, ' ' ORDER BY lexeme) FROM conversation_search_lexemes") ==
        "ada arrived damaged lovelace parcel refund requested the");
}

TEST_CASE("postgres: an unreachable server fails to open with kUnavailable and the server's message") {
  PostgresOptions options;
  options.url = "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2";
  auto r = OpenPostgresStore(options);
  REQUIRE_FALSE(r.ok());
  // Retry later, not "broken": the server may be starting or restarting.
  CHECK(r.error().code == ErrorCode::kUnavailable);
  CHECK(r.error().message.rfind("postgres: connect: ", 0) == 0);
  CHECK(r.error().message.find("127.0.0.1") != std::string::npos);
}

// The server's own "disk full" (SQLSTATE 53100, raised here by a trigger
// in the real server, as PostgreSQL raises it when it cannot extend a file)
// is kUnavailable: the write changes nothing, reads go on, the metrics say
// writes are refused until one commits again.
TEST_CASE("postgres: a full disk (SQLSTATE 53100) refuses writes with kUnavailable; reads go on") {
  PgTestDatabase db;
  MetricsRegistry metrics;
  PostgresOptions options;
  options.url = db.url();
  options.readers = 2;
  options.metrics = &metrics;
  auto opened = OpenPostgresStore(options);
  REQUIRE_MESSAGE(opened.ok(), (opened.ok() ? "" : opened.error().message));
  std::unique_ptr<Store> s = std::move(opened).value();
  Gauge& refusing = metrics.GetGauge(metric::kStoreWritesRefusing, metric::kStoreWritesRefusingHelp);
  Counter& refused = metrics.GetCounter(metric::kStoreWritesUnavailable, metric::kStoreWritesUnavailableHelp);
  Put(*s, [&](StoreWriter& w) { return w.InsertShop(MakeShop(kShop)); });
  Put(*s, [&](StoreWriter& w) { return w.InsertCustomer(MakeSparseCustomer(kShop, "u1")); });
  db.Exec(
      "CREATE FUNCTION full_disk() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
      "RAISE EXCEPTION 'could not extend file: No space left on device' USING ERRCODE = 'disk_full'; END $$; "
      "CREATE TRIGGER full_disk BEFORE INSERT ON customers FOR EACH ROW EXECUTE FUNCTION full_disk()");
  Status st = s->Write([&](StoreWriter& w) { return w.InsertCustomer(MakeSparseCustomer(kShop, "u2")); });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::kUnavailable);
  CHECK(st.error().message.find("[SQLSTATE 53100]") != std::string::npos);
  CHECK(refusing.Value() == 1);
  CHECK(refused.Value() == 1);
  CHECK(Get(*s, [&](StoreReader& r) { return r.CountCustomers(kShop); }) == 1);
  CHECK_FALSE(Get(*s, [&](StoreReader& r) { return r.GetCustomer(kShop, "u2"); }).has_value());
  // Another SQLSTATE stays kInternal, and does not clear the gauge.
  db.Exec("CREATE OR REPLACE FUNCTION full_disk() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
          "RAISE EXCEPTION 'broken' USING ERRCODE = 'data_corrupted'; END $$");
  st = s->Write([&](StoreWriter& w) { return w.InsertCustomer(MakeSparseCustomer(kShop, "u2")); });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().code == ErrorCode::kInternal);
  CHECK(refusing.Value() == 1);
  // Space returns: the same write commits and the gauge clears.
  db.Exec("DROP TRIGGER full_disk ON customers");
  Put(*s, [&](StoreWriter& w) { return w.InsertCustomer(MakeSparseCustomer(kShop, "u2")); });
  CHECK(refusing.Value() == 0);
  CHECK(refused.Value() == 1);
  CHECK(Get(*s, [&](StoreReader& r) { return r.CountCustomers(kShop); }) == 2);
}

TEST_CASE("postgres: OpenStore picks the backend from the setting, and the description hides the password") {
  PgTestDatabase db;
  auto r = OpenStore(StoreConfig{db.url(), 1, nullptr});
  REQUIRE(r.ok());
  AddConversation(**r, "c1");
  CHECK(db.Query("SELECT id FROM conversations") == "c1");
  CHECK(DescribeDatabase("postgresql://app:s3cret@db.internal:5432/chat?sslmode=require") ==
        "postgresql postgresql://app:***@db.internal:5432/chat?sslmode=require");
  CHECK(DescribeDatabase("postgres://db/chat?user=app&password=s3cret&sslmode=verify-full") ==
        "postgresql postgres://db/chat?user=app&password=***&sslmode=verify-full");
  CHECK(DescribeDatabase("/var/lib/livechat/livechat.db") == "sqlite /var/lib/livechat/livechat.db");
  CHECK(IsPostgresUrl("postgresql://x"));
  CHECK(IsPostgresUrl("postgres://x"));
  CHECK_FALSE(IsPostgresUrl("postgresql.db"));
}

TEST_CASE("postgres: a Read keeps its snapshot while another instance commits") {
  PgTestDatabase db;
  auto a = OpenPg(db);
  auto b = OpenPg(db);
  AddConversation(*a, "c1");
  std::promise<void> readStarted, wrote;
  std::future<size_t> later = std::async(std::launch::async, [&] {
    size_t before = 0, after = 0;
    Status st = a->Read([&](StoreReader& r) -> Status {
      ConversationQuery q;
      q.shopId = kShop;
      LC_ASSIGN_OR_RETURN(auto first, r.ListConversations(q));
      before = first.size();
      readStarted.set_value();
      wrote.get_future().wait();
      LC_ASSIGN_OR_RETURN(auto second, r.ListConversations(q));
      after = second.size();
      return Status::Ok();
    });
    if (!st.ok() || before != 1) return size_t{999};
    return after;
  });
  readStarted.get_future().wait();
  AddConversation(*b, "c2");
  wrote.set_value();
  CHECK(later.get() == 1);
  ConversationQuery q;
  q.shopId = kShop;
  CHECK(Get(*a, [&](StoreReader& r) { return r.ListConversations(q); }).size() == 2);
}

// A read's BEGIN is sent ahead of its first statement (pg_store.cc,
// BeginRead): a read that runs no statement, or fails or throws before its
// first, must leave its one connection ready and no transaction open.
TEST_CASE("postgres: reads that run nothing, fail or throw first leave their connection ready") {
  PgTestDatabase db;
  auto store = OpenPg(db, /*readers=*/1);
  // The write measures the clock's skew, so the reads below, well within a
  // second of it, reuse it (the store reads the system clock); either way
  // each sends its BEGIN ahead.
  AddConversation(*store, "c1");
  ConversationQuery q;
  q.shopId = kShop;
  CHECK(store->Read([](StoreReader&) { return Status::Ok(); }).ok());
  CHECK(store->Read([](StoreReader&) { return Status::Ok(); }).ok());
  Status failed = store->Read([](StoreReader&) -> Status { return Error{ErrorCode::kNotFound, "nothing here"}; });
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().message == "nothing here");
  Status thrown = store->Read([](StoreReader&) -> Status { throw std::runtime_error("boom"); });
  REQUIRE_FALSE(thrown.ok());
  CHECK(thrown.error().message == "exception in Store::Read: boom");
  CHECK(Get(*store, [&](StoreReader& r) { return r.ListConversations(q); }).size() == 1);
  // A read that fails after its statement ran: the next read on the connection
  // works. (A statement the server refuses: the Connection test below.)
  Status bad = store->Read([](StoreReader& r) -> Status {
    LC_ASSIGN_OR_RETURN(auto m, r.GetMessage(kShop, "c1", "no-such-message"));
    if (m) return Error{ErrorCode::kInternal, "found a message that is not there"};
    return Error{ErrorCode::kConflict, "after a read"};
  });
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message == "after a read");
  AddConversation(*store, "c2");
  CHECK(Get(*store, [&](StoreReader& r) { return r.ListConversations(q); }).size() == 2);
  // Every transaction those reads began has ended (the last COMMIT was sent
  // without waiting: given a moment to arrive).
  std::string open;
  for (int i = 0; i < 100; ++i) {
    open = db.Query("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state LIKE "
                    "'idle in transaction%'");
    if (open == "0") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  CHECK(open == "0");
}

TEST_CASE("postgres: a BEGIN sent ahead is read with the next statement, whose error a failed BEGIN becomes") {
  PgTestDatabase db;
  auto store = OpenPg(db);
  auto conn = OpenConnection(db);
  pg::Connection& c = *conn;
  // Prepared first: preparing waits, which would read the BEGIN on its own.
  REQUIRE(c.Prepare("SELECT 1 / (?1 - 1)").ok());
  REQUIRE(c.Prepare("SELECT 41 + 1").ok());
  const char* begin = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY";

  // The first statement fails on the server: its own error, in an open transaction.
  REQUIRE(c.SendAhead(begin).ok());
  auto divide = c.Prepare("SELECT 1 / (?1 - 1)");
  REQUIRE(divide.ok());
  divide->Add(1);
  auto row = divide->Step();
  REQUIRE_FALSE(row.ok());
  CHECK(row.error().message.find("division by zero") != std::string::npos);
  CHECK(c.InTransaction());
  REQUIRE(c.Exec("ROLLBACK").ok());
  CHECK_FALSE(c.InTransaction());

  // BEGIN, a statement and COMMIT sent without waiting: the answer, then a
  // connection out of its transaction once the COMMIT is read.
  REQUIRE(c.SendAhead(begin).ok());
  auto answer = c.QueryInt("SELECT 41 + 1");
  REQUIRE(answer.ok());
  CHECK(*answer == 42);
  CHECK(c.InTransaction());
  REQUIRE(c.SendWithoutWaiting("COMMIT").ok());
  REQUIRE(c.Flush().ok());
  CHECK_FALSE(c.InTransaction());

  // A BEGIN the server refuses fails the statement read with it.
  REQUIRE(c.SendAhead("BEGIN ISOLATION LEVEL NONSENSE").ok());
  auto refused = c.QueryInt("SELECT 41 + 1");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("NONSENSE") != std::string::npos);
  CHECK_FALSE(c.InTransaction());
  auto again = c.QueryInt("SELECT 41 + 1");
  REQUIRE(again.ok());
  CHECK(*again == 42);
}

TEST_CASE("postgres: a nested Write is refused; an exception rolls back") {
  PgTestDatabase db;
  auto store = OpenPg(db);
  Status st = store->Write([&](StoreWriter&) { return store->Write([](StoreWriter&) { return Status::Ok(); }); });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message == "postgres: Store::Write called inside a Write");
  st = store->Write([&](StoreWriter& w) -> Status {
    Conversation c = MakeConversation(kShop, "c1", 1);
    LC_RETURN_IF_ERROR(w.InsertConversation(c));
    throw std::runtime_error("boom");
  });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message == "exception in Store::Write: boom");
  CHECK(db.Query("SELECT count(*) FROM conversations") == "0");
  // The writer is usable after both.
  AddConversation(*store, "c2");
  CHECK(db.Query("SELECT count(*) FROM conversations") == "1");
}

TEST_CASE("postgres: a deferred statement's error fails the statement that waits next, and COMMIT") {
  PgTestDatabase db;
  auto store = OpenPg(db);
  auto conn = OpenConnection(db);
  pg::Connection& c = *conn;
  auto insert = [&](const std::string& key) {
    auto st = c.Prepare("INSERT INTO rate_windows (key, start_ms, count) VALUES (?1, 0, 0)");
    REQUIRE(st.ok());
    st->Add(key);
    return st->RunDeferred();
  };
  auto count = [&] { return db.Query("SELECT count(*) FROM rate_windows"); };

  // Not deferring: RunDeferred waits, and reports its own error.
  REQUIRE(c.Exec("BEGIN").ok());
  REQUIRE(insert("a").ok());
  Status dup = insert("a");
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().message.find("duplicate key") != std::string::npos);
  // The aborted transaction's COMMIT answers ROLLBACK, not an error: it is one.
  Status aborted = c.ExecEach({"COMMIT"});
  REQUIRE_FALSE(aborted.ok());
  CHECK(aborted.error().message == "postgres: COMMIT rolled back an aborted transaction");
  CHECK_FALSE(c.InTransaction());

  // Prepared once here: preparing waits too, and would report the error.
  REQUIRE(c.Prepare("SELECT count(*) FROM rate_windows").ok());
  c.SetDeferring(true);
  // Sent, not waited for: the duplicate is reported by the next statement
  // that waits, and the transaction is aborted.
  REQUIRE(c.Exec("BEGIN").ok());
  REQUIRE(insert("b").ok());
  REQUIRE(insert("b").ok());
  auto read = c.Prepare("SELECT count(*) FROM rate_windows");
  REQUIRE(read.ok());
  auto row = read->Step();
  REQUIRE_FALSE(row.ok());
  CHECK(row.error().message.find("duplicate key") != std::string::npos);
  REQUIRE(c.Exec("ROLLBACK").ok());
  CHECK(count() == "0");

  // COMMIT of a transaction a deferred statement aborted would end as a
  // ROLLBACK and say nothing: it fails with the deferred error, by Exec and
  // by ExecEach alike; the ROLLBACK after it runs.
  REQUIRE(c.Exec("BEGIN").ok());
  REQUIRE(insert("c").ok());
  REQUIRE(insert("c").ok());
  Status commit = c.Exec("COMMIT");
  REQUIRE_FALSE(commit.ok());
  CHECK(commit.error().message.find("duplicate key") != std::string::npos);
  CHECK(c.InTransaction());
  REQUIRE(c.Exec("ROLLBACK").ok());
  REQUIRE(c.Exec("BEGIN").ok());
  REQUIRE(insert("d").ok());
  REQUIRE(insert("d").ok());
  commit = c.ExecEach({"SELECT 1", "COMMIT"});
  REQUIRE_FALSE(commit.ok());
  CHECK(commit.error().message.find("duplicate key") != std::string::npos);
  REQUIRE(c.Exec("ROLLBACK").ok());
  CHECK(count() == "0");

  // Deferred rows that succeed commit with ExecEach's COMMIT, one round trip.
  REQUIRE(c.Exec("BEGIN").ok());
  REQUIRE(insert("e").ok());
  REQUIRE(insert("f").ok());
  REQUIRE(c.ExecEach({"SAVEPOINT w", "RELEASE SAVEPOINT w", "COMMIT"}).ok());
  CHECK_FALSE(c.InTransaction());
  CHECK(db.Query("SELECT string_agg(key, ',' ORDER BY key) FROM rate_windows") == "e,f");

  // A COMMIT sent without waiting is read by the next use.
  REQUIRE(c.Exec("BEGIN").ok());
  REQUIRE(insert("g").ok());
  REQUIRE(c.SendWithoutWaiting("COMMIT").ok());
  REQUIRE(c.Flush().ok());
  CHECK_FALSE(c.InTransaction());
  CHECK(count() == "3");
  REQUIRE(c.Exec("BEGIN").ok());
  REQUIRE(c.SendWithoutWaiting("COMMIT").ok());
  auto after = c.Prepare("SELECT count(*) FROM rate_windows");
  REQUIRE(after.ok());
  auto got = after->Step();
  REQUIRE((got.ok() && *got));
  CHECK(after->Int(0) == 3);
  CHECK_FALSE(c.InTransaction());
}

TEST_CASE("postgres: a write whose event cannot be stored fails whole, and the next write commits") {
  PgTestDatabase db;
  auto store = OpenPg(db);
  Put(*store, [](StoreWriter& w) { return w.AppendEvent(Event{"e1", kShop, "message.created", "c0", 1, "{}"}); });
  Status st = store->Write([](StoreWriter& w) -> Status {
    Conversation c = MakeConversation(kShop, "c1", 1);
    LC_RETURN_IF_ERROR(w.InsertConversation(c));
    return w.AppendEvent(Event{"e1", kShop, "message.created", "c1", 2, "{}"});  // the id is taken
  });
  REQUIRE_FALSE(st.ok());
  CHECK(st.error().message.find("duplicate key") != std::string::npos);
  CHECK(db.Query("SELECT count(*) FROM conversations") == "0");
  CHECK(db.Query("SELECT count(*) FROM events") == "1");
  // The writer goes on.
  AddConversation(*store, "c2");
  Put(*store, [](StoreWriter& w) { return w.AppendEvent(Event{"e2", kShop, "message.created", "c2", 3, "{}"}); });
  CHECK(db.Query("SELECT string_agg(id, ',' ORDER BY id) FROM events") == "e1,e2");
  CHECK(db.Query("SELECT count(*) FROM conversations") == "1");
}

TEST_CASE("postgres: another instance hears each written conversation within 200 ms, its own writes not") {
  PgTestDatabase db;
  auto a = OpenPg(db);
  auto b = OpenPg(db);
  Heard heardByB, heardByA;
  b->WatchOtherWriters([&](const std::string& id) { heardByB.Add(id); });
  a->WatchOtherWriters([&](const std::string& id) { heardByA.Add(id); });
  // The listener connects asynchronously; a first write proves it listens.
  AddConversation(*a, "warmup");
  REQUIRE(heardByB.WaitFor("warmup", std::chrono::seconds(5)));

  const auto start = std::chrono::steady_clock::now();
  AddConversation(*a, "c1");
  REQUIRE(heardByB.WaitFor("c1", std::chrono::milliseconds(200)));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::milliseconds(200));

  // A rolled-back write is never announced.
  Status st = a->Write([&](StoreWriter& w) -> Status {
    Conversation c = MakeConversation(kShop, "rolled-back", 1);
    LC_RETURN_IF_ERROR(w.InsertConversation(c));
    return Error{ErrorCode::kConflict, "no"};
  });
  CHECK_FALSE(st.ok());
  AddConversation(*a, "c2");
  REQUIRE(heardByB.WaitFor("c2", std::chrono::seconds(2)));
  auto ids = heardByB.Snapshot();
  CHECK(std::find(ids.begin(), ids.end(), "rolled-back") == ids.end());
  // A message write names its conversation too.
  Put(*a, [](StoreWriter& w) {
    Message m = MakeMessage(kShop, "c1", "m1", 5);
    return w.InsertMessage(m);
  });
  CHECK(heardByB.WaitFor("c1", std::chrono::seconds(2)));
  // One transaction's ids travel together (space-separated, at most ~7,900
  // bytes a NOTIFY): a write of 250 conversations, 9,249 bytes of ids, is
  // heard in full.
  Put(*a, [](StoreWriter& w) -> Status {
    for (int i = 0; i < 250; ++i) {
      Conversation c = MakeConversation(kShop, "bulk-" + std::string(30, 'x') + "-" + std::to_string(i), 1);
      LC_RETURN_IF_ERROR(w.InsertConversation(c));
    }
    return Status::Ok();
  });
  REQUIRE(heardByB.WaitFor("bulk-" + std::string(30, 'x') + "-249", std::chrono::seconds(2)));
  ids = heardByB.Snapshot();
  for (int i = 0; i < 250; ++i) {
    const std::string id = "bulk-" + std::string(30, 'x') + "-" + std::to_string(i);
    CHECK_MESSAGE(std::count(ids.begin(), ids.end(), id) == 1, id);
  }
  // A heard nothing of its own.
  CHECK(heardByA.Snapshot().empty());

  // After WatchOtherWriters(nullptr) nothing more is called.
  b->WatchOtherWriters(nullptr);
  const size_t before = heardByB.Snapshot().size();
  AddConversation(*a, "c3");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(heardByB.Snapshot().size() == before);
}

// The writer's kept settings reads (pg_connection.h, KeepSettingsReads): a
// repeated read is answered from the first, and every statement that may
// change a settings table, whatever its spelling, makes the next read go to
// the database. Each rename below is read back: a statement taken for
// harmless would leave the old name.
TEST_CASE("postgres: the writer keeps a settings read until a statement may change it") {
  PgTestDatabase db;
  auto store = OpenPg(db);
  Put(*store, [](StoreWriter& w) -> Status {
    LC_RETURN_IF_ERROR(w.InsertShop(MakeShop(kShop)));
    Conversation c = MakeConversation(kShop, "c1", 1);
    return w.InsertConversation(c);
  });
  auto opened = pg::Connection::Open(db.url());
  REQUIRE(opened.ok());
  pg::Connection& c = **opened;
  c.KeepSettingsReads(true);
  REQUIRE(c.Exec("BEGIN").ok());
  auto name = [&]() -> std::string {
    auto st = c.Prepare("SELECT name FROM shops WHERE id = ?1");
    REQUIRE(st.ok());
    st->Add(kShop);
    auto row = st->Step();
    REQUIRE((row.ok() && *row));
    return st->Text(0);
  };
  auto run = [&](const std::string& sql) {
    CAPTURE(sql);
    auto st = c.Prepare(sql);
    REQUIRE(st.ok());
    if (sql.find("?1") != std::string::npos) st->Add(kShop);
    REQUIRE(st->Run().ok());
  };
  CHECK(name() == "Shop " + kShop);
  CHECK(c.keptHits() == 0);
  CHECK(name() == "Shop " + kShop);
  CHECK(c.keptHits() == 1);
  // These leave it: another table's write, another read, a savepoint.
  run("UPDATE conversations SET status = status WHERE shop_id = ?1");
  run("INSERT INTO rate_windows (key, start_ms, count) VALUES (?1, 0, 0)");
  CHECK(name() == "Shop " + kShop);
  CHECK(c.keptHits() == 2);
  REQUIRE(c.Exec("SAVEPOINT a; RELEASE SAVEPOINT a").ok());
  CHECK(name() == "Shop " + kShop);
  CHECK(c.keptHits() == 3);

  int n = 0;
  for (std::string write : {"UPDATE shops SET name = ?2 WHERE id = ?1", "UPDATE\n  shops SET name = ?2 WHERE id = ?1",
                            "update Shops set name = ?2 where id = ?1", "UPDATE ONLY shops SET name = ?2 WHERE id = ?1",
                            "UPDATE public.shops SET name = ?2 WHERE id = ?1",
                            "UPDATE \"shops\" SET name = ?2 WHERE id = ?1",
                            "WITH x AS (UPDATE shops SET name = ?2 WHERE id = ?1 RETURNING 1) SELECT count(*) FROM x",
                            "INSERT INTO shops AS s (id, app_id, name, plan, auto_assign, installed, created_at) "
                            "SELECT id, app_id, ?2, plan, auto_assign, installed, created_at FROM shops WHERE id = ?1 "
                            "ON CONFLICT (id) DO UPDATE SET name = excluded.name"}) {
    CAPTURE(write);
    const std::string renamed = "renamed " + std::to_string(++n);
    auto st = c.Prepare(write);
    REQUIRE(st.ok());
    st->Add(kShop).Add(renamed);
    REQUIRE(st->Run().ok());
    const std::int64_t hits = c.keptHits();
    CHECK(name() == renamed);
    CHECK(c.keptHits() == hits);  // read from the database
    CHECK(name() == renamed);
    CHECK(c.keptHits() == hits + 1);  // and kept again
  }
  // Raw SQL: anything but savepoints and constraint timing forgets.
  REQUIRE(c.Exec("SAVEPOINT b; UPDATE shops SET name = 'by exec' WHERE id = 'shop-a'").ok());
  CHECK(name() == "by exec");
  // A rollback to a savepoint undoes a rename that was read back inside it.
  REQUIRE(c.Exec("SAVEPOINT s").ok());
  run("UPDATE shops SET name = 'undone' WHERE id = ?1");
  CHECK(name() == "undone");
  REQUIRE(c.Exec("ROLLBACK TO SAVEPOINT s").ok());
  CHECK(name() == "by exec");
  // A read that computes, joins or nests is never kept.
  const std::int64_t hits = c.keptHits();
  for (int i = 0; i < 2; ++i) {
    auto st = c.Prepare("SELECT name || (SELECT count(*) FROM conversations WHERE shop_id = ?1) FROM shops WHERE id = ?1");
    REQUIRE(st.ok());
    st->Add(kShop);
    REQUIRE(st->Run().ok());
  }
  CHECK(c.keptHits() == hits);
  REQUIRE(c.Exec("COMMIT").ok());

  using K = pg::Connection::Kind;
  CHECK(pg::Connection::KindOf("SELECT id, name FROM shops WHERE id = $1") == K::kSettingsRead);
  CHECK(pg::Connection::KindOf("SELECT id FROM members WHERE shop_id = $1 ORDER BY created_at, id") ==
        K::kSettingsRead);
  CHECK(pg::Connection::KindOf("SELECT name FROM shops\nJOIN conversations c ON true") == K::kLeaves);
  CHECK(pg::Connection::KindOf("SELECT name FROM shops s, conversations c") == K::kLeaves);
  CHECK(pg::Connection::KindOf("SELECT name FROM public.shops") == K::kLeaves);
  CHECK(pg::Connection::KindOf("INSERT INTO messages (id) VALUES ($1)") == K::kLeaves);
  CHECK(pg::Connection::KindOf("INSERT INTO \"members\" (id) VALUES ($1)") == K::kForgets);
  CHECK(pg::Connection::KindOf("DELETE FROM conversations WHERE id = $1") == K::kForgets);
  CHECK(pg::Connection::KindOf("TRUNCATE messages") == K::kForgets);
  CHECK(pg::Connection::ExecLeaves("SET CONSTRAINTS ALL IMMEDIATE; RELEASE SAVEPOINT w; SAVEPOINT w"));
  CHECK_FALSE(pg::Connection::ExecLeaves("SAVEPOINT w; DELETE FROM members"));
  CHECK_FALSE(pg::Connection::ExecLeaves("ROLLBACK TO SAVEPOINT w"));
}

}  // namespace

// What an instance of an older build still serving during a rolling
// upgrade, or SQL by hand, writes: statements that do not set row_version.
// The schema's triggers give the row a new one anyway.
TEST_CASE("postgres: a conversation row written without its version gets a new one from the triggers") {
  PgTestDatabase db;
  auto store = OpenPg(db);
  Conversation c = MakeConversation(kShop, "c1", 100);
  Put(*store, [&](StoreWriter& w) { return w.InsertConversation(c); });
  auto version = [&](const std::string& id) {
    return db.Query("SELECT row_version FROM conversations WHERE id = '" + id + "'");
  };
  auto listed = Get(*store, [&](StoreReader& r) { return r.ListConversationVersions(Query(kShop)); });
  REQUIRE(listed.has_value());
  REQUIRE(listed->size() == 1);
  const std::string before = version("c1");
  CHECK(before == std::to_string((*listed)[0].version));
  CHECK(before != "0");
  db.Exec("UPDATE conversations SET status = 'resolved' WHERE id = 'c1'");
  const std::string after = version("c1");
  CHECK(after != before);
  CHECK(after != "0");
  db.Exec("UPDATE conversations SET is_read = 1, row_version = " + after + " WHERE id = 'c1'");
  CHECK(version("c1") != after);
  db.Exec(
      "INSERT INTO conversations (rid, shop_id, id, pg_convo_id, customer_type, status, is_chat_bot, has_chat_bot, "
      "is_read, is_customer_read, is_online, is_block, is_starred, has_first_msg, hide_pre_chat_message, channel, "
      "channels_json, tags_json, last_active, in_new_datastore) VALUES (500, '" + std::string(kShop) +
      "', 'by-hand', 500, 'guest', 'open', 0, 0, 0, 0, 0, 0, 0, 0, '', "
      "'online_store', '[]', '[]', 200, 1)");
  CHECK(version("by-hand") != "0");

  // Messages the same.
  Message m = MakeMessage(kShop, "c1", "m1", 100);
  Put(*store, [&](StoreWriter& w) { return w.InsertMessage(m); });
  auto messageVersion = [&](const std::string& id) {
    return db.Query("SELECT row_version FROM messages WHERE id = '" + id + "'");
  };
  const std::string mBefore = messageVersion("m1");
  CHECK(mBefore != "0");
  db.Exec("UPDATE messages SET text = 'changed by hand' WHERE id = 'm1'");
  CHECK(messageVersion("m1") != mBefore);
  CHECK(messageVersion("m1") != "0");
}

}  // namespace livechat::testing
