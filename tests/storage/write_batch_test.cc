// Group commit (storage/common/write_batcher.h): writes that queue while
// another runs are committed together in one transaction, yet each keeps its
// own outcome: one write's error, exception or broken foreign key undoes that
// write alone. Run on a SQLite file, SQLite in memory and PostgreSQL. The
// transaction count fails if batching is removed; the per-write outcomes
// fail if the savepoints are.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "livechat/metrics.h"
#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

const std::string kShop = "shop-a";

// A store opened with a metrics registry, on each backend.
template <bool kFile>
struct SqliteBatchStore {
  TempDir dir;
  MetricsRegistry metrics;
  std::unique_ptr<Store> store;
  SqliteBatchStore() {
    SqliteOptions o{kFile ? dir.File("store.db") : ":memory:", 2, 5000};
    o.metrics = &metrics;
    store = OpenOrFail(o);
  }
};
using FileBatchStore = SqliteBatchStore<true>;
using MemoryBatchStore = SqliteBatchStore<false>;
struct PgBatchStore {
  PgTestDatabase db;
  MetricsRegistry metrics;
  std::unique_ptr<Store> store;
  PgBatchStore() {
    PostgresOptions o;
    o.url = db.url();
    o.readers = 2;
    o.metrics = &metrics;
    auto r = OpenPostgresStore(o);
    if (!r.ok()) FAIL("OpenPostgresStore: " << r.error().message);
    store = std::move(r).value();
  }
};

std::uint64_t Count(MetricsRegistry& m, std::string_view name) {
  return m.GetCounter(name, "").Value();
}

// Waits (bounded) until `n` writes have been asked for in all.
void AwaitSubmitted(MetricsRegistry& m, std::uint64_t n) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (Count(m, metric::kStoreWrites) < n && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE(Count(m, metric::kStoreWrites) == n);
}

bool HasMessage(Store& s, const std::string& conv, const std::string& id) {
  return Get(s, [&](StoreReader& r) { return r.GetMessage(kShop, conv, id); }).has_value();
}

// Conversation "c1" with a message count of 0, for writes that count.
void PutCountedConversation(Store& s) {
  Put(s, [](StoreWriter& w) {
    Conversation c = MakeConversation(kShop, "c1", 1);
    c.messageCount = 0;
    return w.InsertConversation(c);
  });
}

TEST_CASE_TEMPLATE("group commit: writes queued behind a running one commit together, each with its own outcome",
                   Fx, FileBatchStore, MemoryBatchStore, PgBatchStore) {
  Fx fx;
  Store& s = *fx.store;
  Put(s, [](StoreWriter& w) {
    Conversation c = MakeConversation(kShop, "c1", 1);
    c.inNewDatastore = true;
    return w.InsertConversation(c);
  });
  const std::uint64_t writes0 = Count(fx.metrics, metric::kStoreWrites);
  const std::uint64_t txns0 = Count(fx.metrics, metric::kStoreWriteTransactions);
  REQUIRE(writes0 == 1);
  REQUIRE(txns0 == 1);

  // The first write holds its transaction open until released.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto first = std::async(std::launch::async, [&] {
    return s.Write([&](StoreWriter& w) -> Status {
      Message m = MakeMessage(kShop, "c1", "m0", 1);
      LC_RETURN_IF_ERROR(w.InsertMessage(m));
      released.wait();
      return Status::Ok();
    });
  });
  AwaitSubmitted(fx.metrics, writes0 + 1);

  auto insert = [&](const std::string& conv, const std::string& id) {
    return [&s, conv, id] {
      return s.Write([&](StoreWriter& w) -> Status {
        Message m = MakeMessage(kShop, conv, id, 1);
        return w.InsertMessage(m);
      });
    };
  };
  std::vector<std::future<Status>> queued;
  queued.push_back(std::async(std::launch::async, insert("c1", "m1")));
  // Writes, then refuses: its message must not survive.
  queued.push_back(std::async(std::launch::async, [&s] {
    return s.Write([&](StoreWriter& w) -> Status {
      Message m = MakeMessage(kShop, "c1", "m2", 1);
      LC_RETURN_IF_ERROR(w.InsertMessage(m));
      return Error{ErrorCode::kConflict, "refused after writing"};
    });
  }));
  // A message of a conversation that does not exist: the deferred foreign
  // key fails, for this write only.
  queued.push_back(std::async(std::launch::async, insert("missing", "m3")));
  queued.push_back(std::async(std::launch::async, insert("c1", "m4")));
  // Throws after writing.
  queued.push_back(std::async(std::launch::async, [&s] {
    return s.Write([&](StoreWriter& w) -> Status {
      Message m = MakeMessage(kShop, "c1", "m5", 1);
      LC_RETURN_IF_ERROR(w.InsertMessage(m));
      throw std::runtime_error("boom");
    });
  }));
  queued.push_back(std::async(std::launch::async, insert("c1", "m6")));
  AwaitSubmitted(fx.metrics, writes0 + 7);
  release.set_value();

  CHECK(first.get().ok());
  std::vector<Status> out;
  for (auto& f : queued) out.push_back(f.get());
  CHECK(out[0].ok());
  REQUIRE_FALSE(out[1].ok());
  CHECK(out[1].error().code == ErrorCode::kConflict);
  CHECK(out[1].error().message == "refused after writing");
  REQUIRE_FALSE(out[2].ok());
  CHECK(out[2].error().code == ErrorCode::kInternal);
  CHECK(out[3].ok());
  REQUIRE_FALSE(out[4].ok());
  CHECK(out[4].error().code == ErrorCode::kInternal);
  CHECK(out[4].error().message == "exception in Store::Write: boom");
  CHECK(out[5].ok());

  CHECK(HasMessage(s, "c1", "m0"));
  CHECK(HasMessage(s, "c1", "m1"));
  CHECK_FALSE(HasMessage(s, "c1", "m2"));
  CHECK_FALSE(HasMessage(s, "missing", "m3"));
  CHECK(HasMessage(s, "c1", "m4"));
  CHECK_FALSE(HasMessage(s, "c1", "m5"));
  CHECK(HasMessage(s, "c1", "m6"));
  // The first write alone, then the six that queued behind it in one.
  CHECK(Count(fx.metrics, metric::kStoreWrites) == writes0 + 7);
  CHECK(Count(fx.metrics, metric::kStoreWriteTransactions) == txns0 + 2);
  // Each committed message has a number of its own, after the first's.
  auto seqOf = [&](const std::string& id) {
    return Get(s, [&](StoreReader& r) { return r.GetMessage(kShop, "c1", id); })->seq;
  };
  const std::set<std::int64_t> seqs{seqOf("m1"), seqOf("m4"), seqOf("m6")};
  CHECK(seqs.size() == 3);
  CHECK(*seqs.begin() > seqOf("m0"));
  // The search index holds the committed messages and none undone (SQLite
  // indexes a batch's messages at its COMMIT, after every savepoint), each
  // once: a message's text is "text of <id>".
  auto found = [&](const std::string& id) {
    ConversationQuery q;
    q.shopId = kShop;
    ConversationSearch search;
    search.words = {id};
    auto hits = Get(s, [&](StoreReader& r) { return r.SearchConversations(q, search); });
    std::vector<std::string> texts;
    for (const auto& h : hits) texts.push_back(h.source + ":" + h.conversation.id + ":" + h.text);
    return texts;
  };
  for (const char* id : {"m0", "m1", "m4", "m6"})
    CHECK_MESSAGE(found(id) == std::vector<std::string>{std::string("message:c1:text of ") + id}, id);
  for (const char* id : {"m2", "m3", "m5"}) CHECK_MESSAGE(found(id).empty(), id);
}

TEST_CASE_TEMPLATE("group commit: 16 threads of read-modify-writes lose no update and share transactions", Fx,
                   FileBatchStore, MemoryBatchStore, PgBatchStore) {
  Fx fx;
  Store& s = *fx.store;
  PutCountedConversation(s);
  constexpr int kThreads = 16, kEach = 40;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        Status st = s.Write([&](StoreWriter& w) -> Status {
          LC_ASSIGN_OR_RETURN(auto c, w.FindConversation(kShop, "c1"));
          if (!c) return Error{ErrorCode::kNotFound, "gone"};
          c->messageCount = c->messageCount.value_or(0) + 1;
          // A write that takes a moment, as a real one does: without it an
          // in-memory write is so short that on a loaded machine the threads
          // can take turns and never meet (seen once: 641 of 641 alone).
          std::this_thread::sleep_for(std::chrono::microseconds(200));
          LC_ASSIGN_OR_RETURN(bool matched, w.UpdateConversation(*c));
          return matched ? Status::Ok() : Status(Error{ErrorCode::kNotFound, "gone"});
        });
        if (!st.ok()) ++failures;
      }
    });
  for (auto& th : threads) th.join();
  CHECK(failures.load() == 0);
  auto c = Get(s, [&](StoreReader& r) { return r.FindConversation(kShop, "c1"); });
  REQUIRE(c.has_value());
  CHECK(c->messageCount == kThreads * kEach);
  CHECK(Count(fx.metrics, metric::kStoreWrites) == 1 + kThreads * kEach);
  // Sixteen writers, each sleeping inside its write, always find one running.
  CHECK(Count(fx.metrics, metric::kStoreWriteTransactions) < 1 + kThreads * kEach);
}

// Store::WriteAsync: the caller is not held; `done` gets each write's own
// outcome after the commit that holds it. Mixed with blocking writes from
// other threads, every write is answered exactly once and none is lost.
TEST_CASE_TEMPLATE("group commit: writes handed over without waiting are answered after their commit", Fx,
                   FileBatchStore, MemoryBatchStore, PgBatchStore) {
  Fx fx;
  Store& s = *fx.store;
  PutCountedConversation(s);
  const std::uint64_t txns0 = Count(fx.metrics, metric::kStoreWriteTransactions);
  // A blocking write holds the writer until released, so the handed-over
  // writes queue behind it and share transactions.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto first = std::async(std::launch::async, [&] {
    return s.Write([&](StoreWriter& w) -> Status {
      Message m = MakeMessage(kShop, "c1", "first", 1);
      LC_RETURN_IF_ERROR(w.InsertMessage(m));
      released.wait();
      return Status::Ok();
    });
  });
  AwaitSubmitted(fx.metrics, 2);

  constexpr int kAsync = 40;
  std::mutex mu;
  std::condition_variable cv;
  std::vector<int> answers(kAsync, 0);  // times each done was called
  std::vector<Status> outcomes(kAsync);
  std::vector<bool> visibleAtDone(kAsync, false);
  int answered = 0;
  const auto caller = std::this_thread::get_id();
  std::atomic<int> answeredOnCaller{0};
  for (int i = 0; i < kAsync; ++i) {
    const std::string id = "a" + std::to_string(i);
    s.WriteAsync(
        [id, i](StoreWriter& w) -> Status {
          Message m = MakeMessage(kShop, "c1", id, 1);
          LC_RETURN_IF_ERROR(w.InsertMessage(m));
          // Every seventh writes, then refuses: undone, alone.
          if (i % 7 == 3) return Error{ErrorCode::kConflict, "refused " + id};
          return Status::Ok();
        },
        [&, id, i](Status st) {
          if (std::this_thread::get_id() == caller) ++answeredOnCaller;
          // Called after the COMMIT: a reader of its own already sees it.
          const bool seen = HasMessage(s, "c1", id);
          std::lock_guard lock(mu);
          ++answers[i];
          outcomes[i] = std::move(st);
          visibleAtDone[i] = seen;
          ++answered;
          cv.notify_all();
        });
  }
  // The caller returned from every WriteAsync while the writer was held.
  {
    std::lock_guard lock(mu);
    CHECK(answered == 0);
  }
  CHECK(answeredOnCaller.load() == 0);
  release.set_value();
  REQUIRE(first.get().ok());
  {
    std::unique_lock lock(mu);
    REQUIRE(cv.wait_for(lock, std::chrono::seconds(20), [&] { return answered == kAsync; }));
  }
  int refused = 0;
  for (int i = 0; i < kAsync; ++i) {
    const std::string id = "a" + std::to_string(i);
    CHECK_MESSAGE(answers[i] == 1, id);
    if (i % 7 == 3) {
      ++refused;
      REQUIRE_FALSE(outcomes[i].ok());
      CHECK(outcomes[i].error().code == ErrorCode::kConflict);
      CHECK(outcomes[i].error().message == "refused " + id);
      CHECK_FALSE(visibleAtDone[i]);
      CHECK_FALSE(HasMessage(s, "c1", id));
    } else {
      CHECK_MESSAGE(outcomes[i].ok(), id);
      CHECK_MESSAGE(visibleAtDone[i], id);
      CHECK(HasMessage(s, "c1", id));
    }
  }
  CHECK(refused == 6);
  CHECK(Count(fx.metrics, metric::kStoreWrites) == 2 + kAsync);
  // The first write, then the forty in batches of at most kMaxBatch (64):
  // one transaction after the first, since all queued while it ran.
  CHECK(Count(fx.metrics, metric::kStoreWriteTransactions) == txns0 + 2);
}

TEST_CASE_TEMPLATE("group commit: a handed-over write's answer that waits for a write is refused, not left waiting",
                   Fx, FileBatchStore, MemoryBatchStore, PgBatchStore) {
  Fx fx;
  Store& s = *fx.store;
  PutCountedConversation(s);
  auto insert = [](std::string id) {
    return [id](StoreWriter& w) -> Status {
      Message m = MakeMessage(kShop, "c1", id, 1);
      return w.InsertMessage(m);
    };
  };
  // The batch that calls `done` still holds the lead: a Write waiting there
  // would wait for itself, and every later write behind it.
  std::promise<std::pair<Status, Status>> answered;
  s.WriteAsync(insert("outer"), [&](Status st) {
    Status inner = s.Write(insert("inner"));
    answered.set_value({std::move(st), std::move(inner)});
  });
  auto outcome = answered.get_future();
  REQUIRE(outcome.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  auto [outer, inner] = outcome.get();
  CHECK(outer.ok());
  REQUIRE_FALSE(inner.ok());
  CHECK(inner.error().code == ErrorCode::kInternal);
  CHECK(inner.error().message == "store: a handed-over write's done callback may not wait for a write");
  CHECK(HasMessage(s, "c1", "outer"));
  CHECK_FALSE(HasMessage(s, "c1", "inner"));

  // The store goes on: a write that waits commits, and a `done` may hand
  // over another write, answered in its turn.
  REQUIRE(s.Write(insert("after")).ok());
  std::promise<Status> chained;
  s.WriteAsync(insert("first"), [&](Status) { s.WriteAsync(insert("second"), [&](Status st) { chained.set_value(st); }); });
  auto second = chained.get_future();
  REQUIRE(second.wait_for(std::chrono::seconds(20)) == std::future_status::ready);
  CHECK(second.get().ok());
  CHECK(HasMessage(s, "c1", "after"));
  CHECK(HasMessage(s, "c1", "first"));
  CHECK(HasMessage(s, "c1", "second"));
}

TEST_CASE_TEMPLATE("group commit: handed-over and waiting writers together lose no update", Fx, FileBatchStore,
                   MemoryBatchStore, PgBatchStore) {
  Fx fx;
  Store& s = *fx.store;
  PutCountedConversation(s);
  auto increment = [](StoreWriter& w) -> Status {
    LC_ASSIGN_OR_RETURN(auto c, w.FindConversation(kShop, "c1"));
    if (!c) return Error{ErrorCode::kNotFound, "gone"};
    c->messageCount = c->messageCount.value_or(0) + 1;
    LC_ASSIGN_OR_RETURN(bool matched, w.UpdateConversation(*c));
    return matched ? Status::Ok() : Status(Error{ErrorCode::kNotFound, "gone"});
  };
  constexpr int kThreads = 8, kEach = 50;
  std::atomic<int> ok{0}, failed{0}, pending{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        if ((t + i) % 2 == 0) {
          ++pending;
          s.WriteAsync(increment, [&](Status st) {
            ++(st.ok() ? ok : failed);
            --pending;
          });
        } else {
          Status st = s.Write(increment);
          ++(st.ok() ? ok : failed);
        }
      }
    });
  for (auto& th : threads) th.join();
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (pending.load() > 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  REQUIRE(pending.load() == 0);
  CHECK(failed.load() == 0);
  CHECK(ok.load() == kThreads * kEach);
  auto c = Get(s, [&](StoreReader& r) { return r.FindConversation(kShop, "c1"); });
  REQUIRE(c.has_value());
  CHECK(c->messageCount == kThreads * kEach);
}

TEST_CASE("group commit: writes handed over and still queued commit before a SQLite store closes") {
  TempDir dir;
  const std::string path = dir.File("store.db");
  std::atomic<int> answered{0}, committed{0};
  {
    std::unique_ptr<Store> s = OpenOrFail(SqliteOptions{path, 2, 5000});
    Put(*s, [](StoreWriter& w) {
      Conversation c = MakeConversation(kShop, "c1", 1);
      return w.InsertConversation(c);
    });
    for (int i = 0; i < 100; ++i)
      s->WriteAsync(
          [i](StoreWriter& w) {
            Message m = MakeMessage(kShop, "c1", "q" + std::to_string(i), 1);
            return w.InsertMessage(m);
          },
          [&](Status st) {
            ++answered;
            if (st.ok()) ++committed;
          });
    // Closed at once: the store's destructor waits for the queue.
  }
  CHECK(answered.load() == 100);
  CHECK(committed.load() == 100);
  std::unique_ptr<Store> again = OpenOrFail(SqliteOptions{path, 2, 5000});
  for (int i = 0; i < 100; ++i) CHECK_MESSAGE(HasMessage(*again, "c1", "q" + std::to_string(i)), i);
}

// On PostgreSQL the writer answers a repeated read of a store's settings
// from what it read earlier in the transaction (pg_connection.h). These
// writes share one transaction and each must still read what the ones
// before it left: a change made by an earlier write, and not a change a
// refused write made and undid. Fails on PostgreSQL if a settings write or a
// rollback to a savepoint does not forget what was kept.
TEST_CASE_TEMPLATE("group commit: a write reads the settings an earlier write of its transaction changed", Fx,
                   FileBatchStore, MemoryBatchStore, PgBatchStore) {
  Fx fx;
  Store& s = *fx.store;
  Put(s, [](StoreWriter& w) -> Status {
    Shop shop = MakeShop(kShop);
    shop.autoAssign = false;
    LC_RETURN_IF_ERROR(w.InsertShop(shop));
    return w.InsertMember(MakeMember(kShop, "mem1", 1));
  });
  const std::uint64_t writes0 = Count(fx.metrics, metric::kStoreWrites);
  const std::uint64_t txns0 = Count(fx.metrics, metric::kStoreWriteTransactions);

  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  auto first = std::async(std::launch::async, [&] {
    return s.Write([&](StoreWriter&) -> Status {
      released.wait();
      return Status::Ok();
    });
  });
  AwaitSubmitted(fx.metrics, writes0 + 1);

  struct Seen {
    bool autoAssign = false;
    std::string firstName;
  };
  // Reads the shop and the member twice (the second read may be the kept
  // one) and reports what the second read saw.
  auto look = [&s](Seen& seen) {
    return s.Write([&](StoreWriter& w) -> Status {
      for (int i = 0; i < 2; ++i) {
        LC_ASSIGN_OR_RETURN(auto shop, w.GetShop(kShop));
        LC_ASSIGN_OR_RETURN(auto member, w.GetMember(kShop, "mem1"));
        if (!shop || !member) return Error{ErrorCode::kNotFound, "gone"};
        seen = Seen{shop->autoAssign, member->firstName.value_or("")};
      }
      return Status::Ok();
    });
  };
  auto rename = [&s](const std::string& name, bool autoAssign, bool refuse) {
    return s.Write([&, name, autoAssign, refuse](StoreWriter& w) -> Status {
      LC_ASSIGN_OR_RETURN(auto foundShop, w.GetShop(kShop));
      LC_ASSIGN_OR_RETURN(auto foundMember, w.GetMember(kShop, "mem1"));
      if (!foundShop || !foundMember) return Error{ErrorCode::kNotFound, "gone"};
      Shop shop = *foundShop;
      Member member = *foundMember;
      shop.autoAssign = autoAssign;
      member.firstName = name;
      LC_ASSIGN_OR_RETURN(bool shopMatched, w.UpdateShop(shop));
      LC_ASSIGN_OR_RETURN(bool memberMatched, w.UpdateMember(member));
      if (!shopMatched || !memberMatched) return Error{ErrorCode::kNotFound, "gone"};
      // Read back inside this write: what it wrote, kept or not.
      LC_ASSIGN_OR_RETURN(auto again, w.GetMember(kShop, "mem1"));
      if (!again || again->firstName != name) return Error{ErrorCode::kInternal, "own change not read back"};
      if (refuse) return Error{ErrorCode::kConflict, "refused after writing"};
      return Status::Ok();
    });
  };
  // Queued one by one, so the batch runs them in this order.
  Seen before, after, afterRefused;
  std::vector<std::future<Status>> queued;
  queued.push_back(std::async(std::launch::async, [&] { return look(before); }));
  AwaitSubmitted(fx.metrics, writes0 + 2);
  queued.push_back(std::async(std::launch::async, [&] { return rename("Bea", true, false); }));
  AwaitSubmitted(fx.metrics, writes0 + 3);
  queued.push_back(std::async(std::launch::async, [&] { return look(after); }));
  AwaitSubmitted(fx.metrics, writes0 + 4);
  queued.push_back(std::async(std::launch::async, [&] { return rename("Cid", false, true); }));
  AwaitSubmitted(fx.metrics, writes0 + 5);
  queued.push_back(std::async(std::launch::async, [&] { return look(afterRefused); }));
  AwaitSubmitted(fx.metrics, writes0 + 6);
  release.set_value();

  CHECK(first.get().ok());
  std::vector<Status> out;
  for (auto& f : queued) out.push_back(f.get());
  CHECK(out[0].ok());
  CHECK(out[1].ok());
  CHECK(out[2].ok());
  REQUIRE_FALSE(out[3].ok());
  CHECK(out[3].error().message == "refused after writing");
  CHECK(out[4].ok());
  // The five queued writes shared one transaction.
  CHECK(Count(fx.metrics, metric::kStoreWriteTransactions) == txns0 + 2);
  CHECK_FALSE(before.autoAssign);
  CHECK(before.firstName == "Ana");
  CHECK(after.autoAssign);
  CHECK(after.firstName == "Bea");
  CHECK(afterRefused.autoAssign);
  CHECK(afterRefused.firstName == "Bea");
}

}  // namespace
}  // namespace livechat::testing
