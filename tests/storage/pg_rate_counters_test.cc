// The limits' counters in PostgreSQL: two instances (two counter objects on
// one database, as two livechatd would hold) count each key once.
#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "store_fixtures.h"

namespace livechat::testing {
namespace {

std::unique_ptr<Store> Migrated(const PgTestDatabase& db) {
  PostgresOptions options;
  options.url = db.url();
  options.readers = 1;
  auto r = OpenPostgresStore(options);
  if (!r.ok()) FAIL("OpenPostgresStore: " << r.error().message);
  return std::move(r).value();
}

TEST_CASE("postgres counters: a request window is shared by two instances, N allowed and N+1 refused") {
  PgTestDatabase db;
  auto store = Migrated(db);
  auto a = OpenPostgresRateWindows(db.url(), 60'000);
  auto b = OpenPostgresRateWindows(db.url(), 60'000);
  auto r1 = a->Hit("key:k1", 3);
  CHECK(r1.allowed);
  CHECK(r1.limit == 3);
  CHECK(r1.remaining == 2);
  CHECK(r1.resetInMillis == 60'000);
  auto r2 = b->Hit("key:k1", 3);
  CHECK(r2.allowed);
  CHECK(r2.remaining == 1);
  CHECK(r2.resetInMillis <= 60'000);
  CHECK(r2.resetInMillis > 55'000);
  auto r3 = a->Hit("key:k1", 3);
  CHECK(r3.allowed);
  CHECK(r3.remaining == 0);
  auto r4 = b->Hit("key:k1", 3);
  CHECK_FALSE(r4.allowed);
  CHECK(r4.remaining == 0);
  // Another key has its own window.
  CHECK(b->Hit("key:k2", 3).remaining == 2);
  CHECK(db.Query("SELECT count FROM rate_windows WHERE key = 'key:k1'") == "4");
}

TEST_CASE("postgres counters: HitBoth counts the address, then the key only if the address allowed it") {
  PgTestDatabase db;
  auto store = Migrated(db);
  auto a = OpenPostgresRateWindows(db.url(), 60'000);
  auto b = OpenPostgresRateWindows(db.url(), 60'000);
  auto r1 = a->HitBoth("ip:1", 2, "key:k", 3);
  CHECK(r1.first.allowed);
  CHECK(r1.first.remaining == 1);
  CHECK(r1.first.resetInMillis == 60'000);
  REQUIRE(r1.second.has_value());
  CHECK(r1.second->allowed);
  CHECK(r1.second->limit == 3);
  CHECK(r1.second->remaining == 2);
  auto r2 = b->HitBoth("ip:1", 2, "key:k", 3);
  CHECK(r2.first.remaining == 0);
  REQUIRE(r2.second.has_value());
  CHECK(r2.second->remaining == 1);
  // The address's third: refused, and the key is not counted.
  auto r3 = a->HitBoth("ip:1", 2, "key:k", 3);
  CHECK_FALSE(r3.first.allowed);
  CHECK_FALSE(r3.second.has_value());
  CHECK(db.Query("SELECT count FROM rate_windows WHERE key = 'ip:1'") == "3");
  CHECK(db.Query("SELECT count FROM rate_windows WHERE key = 'key:k'") == "2");
  // From other addresses: the key's third allowed (N), its fourth refused (N+1).
  auto r4 = b->HitBoth("ip:2", 2, "key:k", 3);
  REQUIRE(r4.second.has_value());
  CHECK(r4.second->allowed);
  CHECK(r4.second->remaining == 0);
  auto r5 = a->HitBoth("ip:3", 2, "key:k", 3);
  CHECK(r5.first.allowed);
  REQUIRE(r5.second.has_value());
  CHECK_FALSE(r5.second->allowed);
  CHECK(r5.second->remaining == 0);
  CHECK(db.Query("SELECT count FROM rate_windows WHERE key = 'key:k'") == "4");
}

TEST_CASE("postgres counters: a closed window opens again; Take does not count refusals; Return gives back") {
  PgTestDatabase db;
  auto store = Migrated(db);
  auto a = OpenPostgresRateWindows(db.url(), 200);
  auto b = OpenPostgresRateWindows(db.url(), 200);
  CHECK(a->Hit("ip:1", 1).allowed);
  CHECK_FALSE(b->Hit("ip:1", 1).allowed);
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  CHECK(b->Hit("ip:1", 1).allowed);

  auto t1 = a->Take("visitor-start:1", 2);
  auto t2 = b->Take("visitor-start:1", 2);
  CHECK(t1.allowed);
  CHECK(t2.allowed);
  auto t3 = a->Take("visitor-start:1", 2);
  CHECK_FALSE(t3.allowed);
  CHECK(db.Query("SELECT count FROM rate_windows WHERE key = 'visitor-start:1'") == "2");
  // The second start failed after all: its place comes back, on either instance.
  a->Return("visitor-start:1", t2.at);
  CHECK(db.Query("SELECT count FROM rate_windows WHERE key = 'visitor-start:1'") == "1");
  CHECK(b->Take("visitor-start:1", 2).allowed);
}

TEST_CASE("postgres counters: concurrent hits from two instances are each counted once") {
  PgTestDatabase db;
  auto store = Migrated(db);
  auto a = OpenPostgresRateWindows(db.url(), 60'000);
  auto b = OpenPostgresRateWindows(db.url(), 60'000);
  std::atomic<int> allowed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    RateWindows& w = t % 2 == 0 ? *a : *b;
    threads.emplace_back([&w, &allowed] {
      for (int i = 0; i < 25; ++i)
        if (w.Hit("key:busy", 120).allowed) ++allowed;
    });
  }
  for (auto& th : threads) th.join();
  CHECK(allowed.load() == 120);
  CHECK(db.Query("SELECT count FROM rate_windows WHERE key = 'key:busy'") == "200");
}

// Each of many concurrent calls takes a place of its own, as if it had been
// counted alone: a place given twice, or a call counted twice, shows here.
TEST_CASE("postgres counters: concurrent HitBoth calls from two instances each take their own place") {
  PgTestDatabase db;
  auto store = Migrated(db);
  auto a = OpenPostgresRateWindows(db.url(), 60'000);
  auto b = OpenPostgresRateWindows(db.url(), 60'000);
  constexpr int kThreads = 8, kCalls = 40, kAddressLimit = 60, kKeyLimit = 150;
  std::mutex mu;
  std::map<std::string, std::vector<int>> addressRemaining;  // allowed calls' remaining, per address
  std::vector<int> keyRemaining;                               // allowed calls' remaining for the key
  int keyRefused = 0, addressRefused = 0, keyCountedAfterRefusal = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    RateWindows& w = t % 2 == 0 ? *a : *b;
    const std::string address = "ip:" + std::to_string(t % 4);
    threads.emplace_back([&, address] {
      for (int i = 0; i < kCalls; ++i) {
        auto r = w.HitBoth(address, kAddressLimit, "key:hot", kKeyLimit);
        std::lock_guard lock(mu);
        if (!r.first.allowed) {
          ++addressRefused;
          if (r.second) ++keyCountedAfterRefusal;
          continue;
        }
        addressRemaining[address].push_back(r.first.remaining);
        REQUIRE(r.second.has_value());
        if (r.second->allowed) keyRemaining.push_back(r.second->remaining);
        else ++keyRefused;
      }
    });
  }
  for (auto& th : threads) th.join();
  // Each address: 80 calls, 60 allowed with remaining 59..0 once each.
  CHECK(addressRefused == 4 * (2 * kCalls - kAddressLimit));
  CHECK(keyCountedAfterRefusal == 0);
  REQUIRE(addressRemaining.size() == 4);
  std::vector<int> expected(kAddressLimit);
  for (int i = 0; i < kAddressLimit; ++i) expected[i] = i;
  // Not a structured binding: CHECK_MESSAGE captures it in a lambda, which
  // clang 14 refuses for a binding.
  for (auto& entry : addressRemaining) {
    const std::string& address = entry.first;
    std::vector<int>& remaining = entry.second;
    std::sort(remaining.begin(), remaining.end());
    CHECK_MESSAGE(remaining == expected, address);
    CHECK(db.Query("SELECT count FROM rate_windows WHERE key = '" + address + "'") == std::to_string(2 * kCalls));
  }
  // The key: 240 calls the addresses allowed, 150 allowed with 149..0 once each.
  std::sort(keyRemaining.begin(), keyRemaining.end());
  std::vector<int> expectedKey(kKeyLimit);
  for (int i = 0; i < kKeyLimit; ++i) expectedKey[i] = i;
  CHECK(keyRemaining == expectedKey);
  CHECK(keyRefused == 4 * kAddressLimit - kKeyLimit);
  CHECK(db.Query("SELECT count FROM rate_windows WHERE key = 'key:hot'") == std::to_string(4 * kAddressLimit));
}

TEST_CASE("postgres counters: a key with quotes, backslashes, commas and braces is counted under itself") {
  PgTestDatabase db;
  auto store = Migrated(db);
  auto a = OpenPostgresRateWindows(db.url(), 60'000);
  const std::string odd = "key:a\"b\\c,{d} e";
  CHECK(a->Hit(odd, 2).remaining == 1);
  auto both = a->HitBoth("ip:\"1\"", 5, odd, 2);
  CHECK(both.first.remaining == 4);
  REQUIRE(both.second.has_value());
  CHECK(both.second->allowed);
  CHECK(both.second->remaining == 0);
  CHECK_FALSE(a->Hit(odd, 2).allowed);
  CHECK(db.Query("SELECT count(*) FROM rate_windows") == "2");
  CHECK(db.Query("SELECT count FROM rate_windows WHERE key = 'key:a\"b\\c,{d} e'") == "3");
  CHECK(db.Query("SELECT count FROM rate_windows WHERE key = 'ip:\"1\"'") == "1");
}

TEST_CASE("postgres counters: a cost bucket drains across instances and refills with time") {
  PgTestDatabase db;
  auto store = Migrated(db);
  auto a = OpenPostgresCostBuckets(db.url(), 100, 10);
  auto b = OpenPostgresCostBuckets(db.url(), 100, 10);
  auto c1 = a->Take("key:k", 60);
  CHECK(c1.allowed);
  CHECK(c1.left == doctest::Approx(40).epsilon(0.01));
  auto c2 = b->Take("key:k", 60);
  CHECK_FALSE(c2.allowed);
  CHECK(c2.left >= 40.0);
  CHECK(c2.left < 45.0);
  auto c3 = b->Take("key:k", 40);
  CHECK(c3.allowed);
  CHECK(c3.left < 5.0);
  // 10 tokens a second: after 1.1 s about 11 are back.
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  auto c4 = a->Take("key:k", 10);
  CHECK(c4.allowed);
  CHECK_FALSE(b->Take("key:k", 10).allowed);
  // Another key starts full.
  CHECK(a->Take("key:other", 100).allowed);
}

}  // namespace
}  // namespace livechat::testing

namespace livechat::testing {
namespace {

TEST_CASE("postgres MCP sessions: opened on one instance, found and ended on another; eviction per store") {
  PgTestDatabase db;
  auto store = Migrated(db);
  auto a = OpenPostgresMcpSessions(db.url());
  auto b = OpenPostgresMcpSessions(db.url());
  a->Open("s1", McpSession{"shop-a", "2025-06-18"}, 2);
  auto found = b->Find("s1", "shop-a");
  REQUIRE(found.has_value());
  CHECK(found->shopId == "shop-a");
  CHECK(found->version == "2025-06-18");
  // Another store's session is unknown, as a missing one is.
  CHECK_FALSE(b->Find("s1", "shop-b").has_value());
  b->End("s1", "shop-b");  // not its own: nothing ends
  CHECK(a->Find("s1", "shop-a").has_value());
  b->End("s1", "shop-a");
  CHECK_FALSE(a->Find("s1", "shop-a").has_value());

  // At most 2 per store: the third forgets the store's oldest only.
  a->Open("o1", McpSession{"shop-other", "2025-03-26"}, 2);
  a->Open("s2", McpSession{"shop-a", "2025-03-26"}, 2);
  b->Open("s3", McpSession{"shop-a", "2025-03-26"}, 2);
  a->Open("s4", McpSession{"shop-a", "2025-03-26"}, 2);
  CHECK_FALSE(b->Find("s2", "shop-a").has_value());
  CHECK(b->Find("s3", "shop-a").has_value());
  CHECK(b->Find("s4", "shop-a").has_value());
  CHECK(b->Find("o1", "shop-other").has_value());
}

}  // namespace
}  // namespace livechat::testing
