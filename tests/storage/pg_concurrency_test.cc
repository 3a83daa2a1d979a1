// Correct under concurrent writers: two PostgreSQL store instances (two
// livechatd processes, as far as the database can tell) and many threads.
// Each case fails if the store's write lock (pg_store.cc) is removed: the
// read-modify-writes lose updates, max(rid)+1 draws duplicates, and a reader
// paging by seq skips a row whose lower seq committed late.
#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store_fixtures.h"
#include "store_records.h"

namespace livechat::testing {
namespace {

const std::string kShop = "shop-a";

std::unique_ptr<Store> OpenPg(const PgTestDatabase& db) {
  PostgresOptions options;
  options.url = db.url();
  options.readers = 4;
  auto r = OpenPostgresStore(options);
  if (!r.ok()) FAIL("OpenPostgresStore: " << r.error().message);
  return std::move(r).value();
}

TEST_CASE("postgres concurrency: read-modify-writes on two instances lose no update") {
  PgTestDatabase db;
  auto a = OpenPg(db);
  auto b = OpenPg(db);
  Put(*a, [](StoreWriter& w) {
    Conversation c = MakeConversation(kShop, "c1", 1);
    c.messageCount = 0;
    return w.InsertConversation(c);
  });
  constexpr int kThreads = 8, kEach = 25;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    Store& s = t % 2 == 0 ? *a : *b;
    threads.emplace_back([&s, &failures, t] {
      for (int i = 0; i < kEach; ++i) {
        Status st = s.Write([&](StoreWriter& w) -> Status {
          LC_ASSIGN_OR_RETURN(auto c, w.FindConversation(kShop, "c1"));
          if (!c) return Error{ErrorCode::kNotFound, "gone"};
          c->messageCount = c->messageCount.value_or(0) + 1;
          c->isRead = (t + i) % 2 == 0;
          // Widen the window between the read and the write.
          std::this_thread::yield();
          LC_ASSIGN_OR_RETURN(bool matched, w.UpdateConversation(*c));
          return matched ? Status::Ok() : Status(Error{ErrorCode::kNotFound, "gone"});
        });
        if (!st.ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures.load() == 0);
  auto c = Get(*b, [](StoreReader& r) { return r.FindConversation(kShop, "c1"); });
  REQUIRE(c.has_value());
  CHECK(c->messageCount == std::optional<std::int64_t>(kThreads * kEach));
}

TEST_CASE("postgres concurrency: conversations created on two instances get distinct pgConvoIds") {
  PgTestDatabase db;
  auto a = OpenPg(db);
  auto b = OpenPg(db);
  constexpr int kThreads = 8, kEach = 20;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    Store& s = t % 2 == 0 ? *a : *b;
    threads.emplace_back([&s, &failures, t] {
      for (int i = 0; i < kEach; ++i) {
        Status st = s.Write([&](StoreWriter& w) {
          Conversation c = MakeConversation(kShop, "c-" + std::to_string(t) + "-" + std::to_string(i), 1000 + i);
          return w.InsertConversation(c);
        });
        if (!st.ok()) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  CHECK(failures.load() == 0);
  CHECK(db.Query("SELECT count(DISTINCT pg_convo_id) FROM conversations") == std::to_string(kThreads * kEach));
  CHECK(db.Query("SELECT max(pg_convo_id) FROM conversations") == std::to_string(kThreads * kEach));
}

TEST_CASE("postgres concurrency: a reader paging by seq never skips a committed message") {
  PgTestDatabase db;
  auto a = OpenPg(db);
  auto b = OpenPg(db);
  Put(*a, [](StoreWriter& w) {
    Conversation c = MakeConversation(kShop, "c1", 1);
    return w.InsertConversation(c);
  });
  constexpr int kThreads = 6, kEach = 40;
  std::atomic<int> failures{0};
  std::atomic<bool> done{false};
  std::vector<std::thread> writers;
  for (int t = 0; t < kThreads; ++t) {
    Store& s = t % 2 == 0 ? *a : *b;
    writers.emplace_back([&s, &failures, t] {
      for (int i = 0; i < kEach; ++i) {
        Status st = s.Write([&](StoreWriter& w) -> Status {
          Message m = MakeMessage(kShop, "c1", "m-" + std::to_string(t) + "-" + std::to_string(i), 1);
          LC_RETURN_IF_ERROR(w.InsertMessage(m));
          // Hold the transaction open a little after drawing the seq: a
          // later seq from the other instance could commit first without
          // the write lock.
          if (i % 3 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
          return Status::Ok();
        });
        if (!st.ok()) ++failures;
      }
    });
  }
  // The storefront's poll: everything after the last seq it saw.
  std::set<std::int64_t> seen;
  std::int64_t last = 0;
  auto poll = [&] {
    MessageQuery q;
    q.shopId = kShop;
    q.conversationId = "c1";
    q.afterSeq = last;
    q.limit = 1000;
    for (const Message& m : Get(*b, [&](StoreReader& r) { return r.ListMessages(q); })) {
      seen.insert(m.seq);
      last = std::max(last, m.seq);
    }
  };
  std::thread reader([&] {
    while (!done) poll();
  });
  for (auto& th : writers) th.join();
  done = true;
  reader.join();
  poll();
  CHECK(failures.load() == 0);
  MessageQuery all;
  all.shopId = kShop;
  all.conversationId = "c1";
  all.limit = 10000;
  auto stored = Get(*a, [&](StoreReader& r) { return r.ListMessages(all); });
  REQUIRE(stored.size() == static_cast<size_t>(kThreads * kEach));
  std::set<std::int64_t> expected;
  for (const Message& m : stored) expected.insert(m.seq);
  CHECK(seen == expected);
}

}  // namespace
}  // namespace livechat::testing
