// LoginThrottle on a ManualClock: free failures, the doubling wait and its
// cap, what a success clears, the per-address limit, forgetting, the memory cap.
#include <doctest/doctest.h>

#include <string>

#include "core/login_throttle.h"

namespace livechat {
namespace {

using Scope = LoginThrottle::Scope;
using Outcome = LoginThrottle::Outcome;

// `times` attempts that Begin() allows and whose password then fails.
void Fail(LoginThrottle& t, const std::string& account, const std::string& address, int times = 1) {
  for (int i = 0; i < times; ++i) {
    auto a = t.Begin(account, address);
    REQUIRE(a.allowed);
    t.Finish(a, Outcome::kWrongPassword);
  }
}

Limits AccountOnly() {
  Limits l;
  l.loginFreeFailuresPerAddress = 1'000'000;
  return l;
}

// A throttle on a manual clock whose address limit is out of the way.
struct AccountThrottle {
  ManualClock clock;
  LoginThrottle t{clock, AccountOnly()};
};

TEST_CASE_FIXTURE(AccountThrottle,
                  "login throttle: 5 failures are free, the 6th attempt waits 1 s; refusals are not counted") {
  Fail(t, "acct", "203.0.113.7", 5);
  auto refused = t.Begin("acct", "203.0.113.7");
  CHECK_FALSE(refused.allowed);
  CHECK(refused.refusedBy == Scope::kAccount);
  CHECK(refused.retryAfterMillis == 1'000);
  // From another address too: the account is what is being guessed.
  CHECK(t.Begin("acct", "198.51.100.9").retryAfterMillis == 1'000);
  clock.Advance(999);
  for (int i = 0; i < 10; ++i) CHECK(t.Begin("acct", "203.0.113.7").retryAfterMillis == 1);
  clock.Advance(1);
  // Ten refusals later the wait still ends 1 s after the 5th failure.
  auto sixth = t.Begin("acct", "203.0.113.7");
  CHECK(sixth.allowed);
  CHECK(sixth.refusedBy == Scope::kNone);
  CHECK(sixth.retryAfterMillis == 0);
  t.Finish(sixth, Outcome::kWrongPassword);
  CHECK(t.Begin("acct", "203.0.113.7").retryAfterMillis == 2'000);
}

TEST_CASE_FIXTURE(AccountThrottle, "login throttle: 4 failures leave the next attempt free") {
  Fail(t, "acct", "203.0.113.7", 4);
  CHECK(t.Begin("acct", "203.0.113.7").allowed);
}

TEST_CASE_FIXTURE(AccountThrottle, "login throttle: the wait doubles with each further failure up to 15 minutes") {
  Fail(t, "acct", "ip", 5);
  const std::int64_t expected[] = {1'000,   2'000,   4'000,   8'000,   16'000,  32'000,  64'000,
                                   128'000, 256'000, 512'000, 900'000, 900'000, 900'000};
  for (std::int64_t wait : expected) {
    CAPTURE(wait);
    CHECK(t.Begin("acct", "ip").retryAfterMillis == wait);
    clock.Advance(wait - 1);
    CHECK(t.Begin("acct", "ip").retryAfterMillis == 1);
    clock.Advance(1);
    Fail(t, "acct", "ip");
  }
  // A hundred failures on, still the cap (no overflow of the doubling).
  for (int i = 0; i < 100; ++i) {
    clock.Advance(900'000);
    Fail(t, "acct", "ip");
  }
  CHECK(t.Begin("acct", "ip").retryAfterMillis == 900'000);
}

TEST_CASE_FIXTURE(AccountThrottle, "login throttle: the right password clears the account's failures") {
  Fail(t, "acct", "ip", 5);
  clock.Advance(1'000);
  auto right = t.Begin("acct", "ip");
  REQUIRE(right.allowed);
  t.Finish(right, Outcome::kRightPassword);
  CHECK(t.TrackedAccounts() == 0);
  Fail(t, "acct", "ip", 5);
  CHECK(t.Begin("acct", "ip").retryAfterMillis == 1'000);
}

TEST_CASE_FIXTURE(AccountThrottle,
                  "login throttle: an attempt counts from Begin, so concurrent guesses cannot all pass") {
  Fail(t, "acct", "ip", 4);
  auto fifth = t.Begin("acct", "ip");
  REQUIRE(fifth.allowed);
  // Not finished yet: the next one already waits.
  auto concurrent = t.Begin("acct", "ip");
  CHECK_FALSE(concurrent.allowed);
  CHECK(concurrent.retryAfterMillis == 1'000);
  SUBCASE("a storage error takes the attempt back") {
    t.Finish(fifth, Outcome::kNotChecked);
    Fail(t, "acct", "ip");  // the 5th failure
    CHECK(t.Begin("acct", "ip").retryAfterMillis == 1'000);
  }
  SUBCASE("the right password clears the account") {
    t.Finish(fifth, Outcome::kRightPassword);
    CHECK(t.Begin("acct", "ip").allowed);
  }
}

TEST_CASE("login throttle: 20 failures per address across accounts, then the address waits") {
  ManualClock clock;
  LoginThrottle t(clock, Limits{});
  for (int i = 0; i < 20; ++i) Fail(t, "user" + std::to_string(i), "203.0.113.7");
  auto refused = t.Begin("user20", "203.0.113.7");
  CHECK_FALSE(refused.allowed);
  CHECK(refused.refusedBy == Scope::kAddress);
  CHECK(refused.retryAfterMillis == 1'000);
  // The accounts themselves are not throttled from elsewhere.
  CHECK(t.Begin("user20", "198.51.100.9").allowed);

  clock.Advance(1'000);
  // Signing in to an account of one's own does not clear the address ...
  auto own = t.Begin("mine", "203.0.113.7");
  REQUIRE(own.allowed);
  t.Finish(own, Outcome::kRightPassword);
  // ... nor count against it: the wait still runs from the 20th failure, so it is over.
  Fail(t, "user21", "203.0.113.7");
  auto after21 = t.Begin("user22", "203.0.113.7");
  CHECK(after21.refusedBy == Scope::kAddress);
  CHECK(after21.retryAfterMillis == 2'000);
}

TEST_CASE("login throttle: when both wait, the longer wait is reported") {
  ManualClock clock;
  Limits l;
  l.loginFreeFailuresPerAccount = 5;
  l.loginFreeFailuresPerAddress = 6;
  LoginThrottle t(clock, l);
  Fail(t, "acct", "ip", 5);
  clock.Advance(1'000);
  Fail(t, "acct", "ip");  // account: 6 failures, 2 s; address: 6 failures, 1 s
  auto both = t.Begin("acct", "ip");
  CHECK(both.refusedBy == Scope::kAccount);
  CHECK(both.retryAfterMillis == 2'000);
  auto other = t.Begin("other", "ip");
  CHECK(other.refusedBy == Scope::kAddress);
  CHECK(other.retryAfterMillis == 1'000);
}

TEST_CASE_FIXTURE(AccountThrottle, "login throttle: failures are forgotten 24 hours after the last one") {
  Fail(t, "acct", "ip", 5);
  SUBCASE("24 h - 1 ms: still remembered") {
    clock.Advance(24 * 3600'000 - 1);
    Fail(t, "acct", "ip");  // the 6th failure
    CHECK(t.Begin("acct", "ip").retryAfterMillis == 2'000);
  }
  SUBCASE("24 h: five free failures again") {
    clock.Advance(24 * 3600'000);
    Fail(t, "acct", "ip", 5);
    CHECK(t.Begin("acct", "ip").retryAfterMillis == 1'000);
  }
}

TEST_CASE("login throttle: a flood of accounts stays within the key cap and keeps the throttled one") {
  ManualClock clock;
  Limits l = AccountOnly();
  l.loginTrackedKeysMax = 3;
  LoginThrottle t(clock, l);
  Fail(t, "target", "203.0.113.7", 5);
  for (int i = 0; i < 1000; ++i) Fail(t, "random" + std::to_string(i), "198.51.100." + std::to_string(i % 250));
  CHECK(t.TrackedAccounts() == 3);
  CHECK(t.TrackedAddresses() == 3);
  auto target = t.Begin("target", "192.0.2.1");
  CHECK_FALSE(target.allowed);
  CHECK(target.retryAfterMillis == 1'000);

  // Forgotten keys make room first: after a day the one new key is alone.
  clock.Advance(24 * 3600'000);
  Fail(t, "late", "192.0.2.2");
  CHECK(t.TrackedAccounts() == 1);
  CHECK(t.TrackedAddresses() == 1);
}

}  // namespace
}  // namespace livechat
