#include <doctest/doctest.h>

#include "core/rate_limiter.h"
#include "core_fixture.h"

namespace livechat {

TEST_CASE("rate limiter: N allowed, N+1 refused, fixed window from the first request") {
  ManualClock clock;
  RateLimiter rl(clock, 60'000);
  for (int i = 1; i <= 120; ++i) {
    auto o = rl.Hit("k", 120);
    REQUIRE(o.allowed);
    CHECK(o.remaining == 120 - i);
    CHECK(o.limit == 120);
  }
  auto refused = rl.Hit("k", 120);
  CHECK_FALSE(refused.allowed);
  CHECK(refused.remaining == 0);
  CHECK(refused.resetInMillis == 60'000);

  // Calls while blocked do not move the window: it still ends 60 s after the first request.
  clock.Advance(59'999);
  auto still = rl.Hit("k", 120);
  CHECK_FALSE(still.allowed);
  CHECK(still.resetInMillis == 1);
  clock.Advance(1);
  auto fresh = rl.Hit("k", 120);
  CHECK(fresh.allowed);
  CHECK(fresh.remaining == 119);
  CHECK(fresh.resetInMillis == 60'000);
}

TEST_CASE("rate limiter: Take counts only accepted calls; Return gives a place back within its window") {
  ManualClock clock;
  RateLimiter rl(clock, 60'000);
  // Refused later (Return): never counted, and the window never opened.
  for (int i = 0; i < 4; ++i) {
    auto o = rl.Take("k", 3);
    REQUIRE(o.allowed);
    rl.Return("k", o.at);
    clock.Advance(1'000);
  }
  for (int i = 1; i <= 3; ++i) {
    auto o = rl.Take("k", 3);
    REQUIRE(o.allowed);
    CHECK(o.remaining == 3 - i);
    CHECK(o.resetInMillis == 60'000);
  }
  for (int i = 0; i < 5; ++i) {  // refused by the window: not counted either
    auto refused = rl.Take("k", 3);
    CHECK_FALSE(refused.allowed);
    CHECK(refused.remaining == 0);
  }
  clock.Advance(60'000);
  auto fresh = rl.Take("k", 3);
  CHECK(fresh.allowed);
  CHECK(fresh.remaining == 2);
  // A call of the closed window gives nothing back to this one.
  rl.Return("k", fresh.at - 1);
  CHECK(rl.Take("k", 3).remaining == 1);
}

TEST_CASE("rate limiter: keys are counted independently") {
  ManualClock clock;
  RateLimiter rl(clock, 60'000);
  for (int i = 0; i < 3; ++i) CHECK(rl.Hit("a", 3).allowed);
  CHECK_FALSE(rl.Hit("a", 3).allowed);
  CHECK(rl.Hit("b", 3).allowed);
}

TEST_CASE("ChatService::CheckRateLimit: per key 120 and per IP 300 by default") {
  test::CoreFixture f;
  auto p = f.Auth(f.key);
  for (int i = 0; i < 120; ++i) REQUIRE(f.service->auth().CheckRateLimit(*p.keyId, "203.0.113.7").allowed);
  auto d = f.service->auth().CheckRateLimit(*p.keyId, "203.0.113.7");
  CHECK_FALSE(d.allowed);
  CHECK(d.limit == 120);
  CHECK(d.remaining == 0);
  // The same IP without a key still has 300 - 121 left in its own window.
  auto ipOnly = f.service->auth().CheckRateLimit("", "203.0.113.7");
  CHECK(ipOnly.allowed);
  CHECK(ipOnly.limit == 300);
  CHECK(ipOnly.remaining == 300 - 122);
  // After the window, the key is allowed again.
  f.clock.Advance(60'000);
  auto again = f.service->auth().CheckRateLimit(*p.keyId, "203.0.113.7");
  CHECK(again.allowed);
  CHECK(again.remaining == 119);
}

TEST_CASE("ChatService::CheckRateLimit: the per-IP limit is a setting") {
  Limits l;
  l.rateLimitPerIp = 5;
  test::CoreFixture f(l);
  for (int i = 0; i < 5; ++i) REQUIRE(f.service->auth().CheckRateLimit("", "198.51.100.1").allowed);
  auto d = f.service->auth().CheckRateLimit("", "198.51.100.1");
  CHECK_FALSE(d.allowed);
  CHECK(d.limit == 5);
  CHECK(f.service->auth().CheckRateLimit("", "198.51.100.2").allowed);
}

}  // namespace livechat
