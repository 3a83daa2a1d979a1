// AuthService::Login under throttling: what a refused attempt answers, that
// the right password is refused too while the account waits, that an unknown
// email is answered exactly like a known one, and the sign-in metrics.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "core_fixture.h"

namespace livechat {
namespace {

using test::CoreFixture;

constexpr const char* kIp = "203.0.113.7";

void AddAdmin(CoreFixture& f) {
  auto m = f.service->directory().CreateMember(
      f.sys, {"admin@shop.test", std::string("Ad"), std::string("Min"), "admin", std::string("s3cret-pass"), true,
              std::nullopt});
  REQUIRE(m.ok());
}

// Code and message of one attempt, the wait when refused (-1 when not refused).
struct Answer {
  std::string code;
  std::string message;
  Millis wait = -1;
  bool operator==(const Answer&) const = default;
};

Answer Try(CoreFixture& f, const std::string& email, const std::string& password, const std::string& ip = kIp) {
  Millis wait = -1;
  auto r = f.service->auth().Login(email, password, std::nullopt, ip, &wait);
  if (r.ok()) return {"OK", "", wait};
  return {std::string(ErrorCodeName(r.error().code)), r.error().message, wait};
}

TEST_CASE("login: after 5 wrong passwords even the right one is refused with RATE_LIMITED until the wait ends") {
  CoreFixture f;
  AddAdmin(f);
  for (int i = 0; i < 5; ++i) {
    CAPTURE(i);
    CHECK(Try(f, "admin@shop.test", "wrong-" + std::to_string(i)) ==
          Answer{"UNAUTHENTICATED", "wrong email or password", -1});
  }
  CHECK(Try(f, "admin@shop.test", "s3cret-pass") ==
        Answer{"RATE_LIMITED", "too many failed sign-ins: try again in 1 s", 1'000});
  // The email's case does not make a new account to guess at.
  CHECK(Try(f, "ADMIN@Shop.Test", "s3cret-pass").code == "RATE_LIMITED");
  f.clock.Advance(400);
  CHECK(Try(f, "admin@shop.test", "s3cret-pass") ==
        Answer{"RATE_LIMITED", "too many failed sign-ins: try again in 1 s", 600});
  f.clock.Advance(600);
  CHECK(Try(f, "admin@shop.test", "wrong-5").code == "UNAUTHENTICATED");
  CHECK(Try(f, "admin@shop.test", "s3cret-pass") ==
        Answer{"RATE_LIMITED", "too many failed sign-ins: try again in 2 s", 2'000});
  f.clock.Advance(2'000);
  CHECK(Try(f, "admin@shop.test", "s3cret-pass").code == "OK");
  // The success cleared the account: five free failures again.
  for (int i = 0; i < 5; ++i) CHECK(Try(f, "admin@shop.test", "wrong").code == "UNAUTHENTICATED");
  CHECK(Try(f, "admin@shop.test", "wrong").wait == 1'000);
}

TEST_CASE("login: an unknown email gets exactly the answers a known one gets") {
  CoreFixture f;
  AddAdmin(f);
  auto walk = [&](const std::string& email, const std::string& ip) {
    std::vector<Answer> out;
    for (int i = 0; i < 7; ++i) out.push_back(Try(f, email, "guess-" + std::to_string(i), ip));
    f.clock.Advance(1'000);
    out.push_back(Try(f, email, "guess-7", ip));
    out.push_back(Try(f, email, "guess-8", ip));
    return out;
  };
  const Millis start = f.clock.NowMillis();
  auto known = walk("admin@shop.test", "198.51.100.1");
  f.clock.Set(start);
  auto unknown = walk("nobody@shop.test", "198.51.100.2");
  CHECK(known == unknown);
  CHECK(known[5] == Answer{"RATE_LIMITED", "too many failed sign-ins: try again in 1 s", 1'000});
  CHECK(known[7].code == "UNAUTHENTICATED");
  CHECK(known[8].wait == 2'000);
}

// Argon2id costs tens of milliseconds: an email no member has must cost one
// check too, or the time of a 401 says whether the account exists.
TEST_CASE("login: a wrong password costs the same hash check whether or not the email is a member's") {
  CoreFixture f;
  AddAdmin(f);
  auto fastest = [&](const std::string& email) {
    double best = 1e9;
    for (int i = 0; i < 3; ++i) {
      f.clock.Advance(3'600'000);  // past any wait
      auto t0 = std::chrono::steady_clock::now();
      CHECK(Try(f, email, "wrong", "198.51.100." + std::to_string(i)).code == "UNAUTHENTICATED");
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return best;
  };
  const double known = fastest("admin@shop.test");
  const double unknown = fastest("nobody@shop.test");
  CAPTURE(known);
  CAPTURE(unknown);
  // Generous: the machine may be busy; without the stand-in check the ratio is ~1/1000.
  CHECK(unknown > known / 4);
}

TEST_CASE("login: failures and throttled attempts are counted in the metrics by scope") {
  MetricsRegistry metrics;
  Limits limits;
  limits.loginFreeFailuresPerAddress = 6;
  CoreFixture f(limits, Plan::kPro, false, &metrics);
  AddAdmin(f);
  auto failures = [&] { return metrics.GetCounter(metric::kLoginFailures, metric::kLoginFailuresHelp).Value(); };
  auto throttled = [&](const char* scope) {
    return metrics.GetCounter(metric::kLoginThrottled, metric::kLoginThrottledHelp, {{"scope", scope}}).Value();
  };
  // Registered at start, so a scrape shows them at zero.
  const std::string text = metrics.RenderPrometheusText();
  CHECK(text.find("livechat_login_failures_total 0\n") != std::string::npos);
  CHECK(text.find("livechat_login_throttled_total{scope=\"account\"} 0\n") != std::string::npos);
  CHECK(text.find("livechat_login_throttled_total{scope=\"address\"} 0\n") != std::string::npos);

  for (int i = 0; i < 5; ++i) CHECK(Try(f, "admin@shop.test", "wrong").code == "UNAUTHENTICATED");
  CHECK(failures() == 5);
  CHECK(Try(f, "admin@shop.test", "s3cret-pass").code == "RATE_LIMITED");
  CHECK(Try(f, "admin@shop.test", "wrong").code == "RATE_LIMITED");
  CHECK(throttled("account") == 2);
  CHECK(throttled("address") == 0);
  CHECK(failures() == 5);  // refused unchecked: not a failure

  CHECK(Try(f, "other@shop.test", "wrong").code == "UNAUTHENTICATED");  // the address's 6th
  CHECK(Try(f, "third@shop.test", "wrong").code == "RATE_LIMITED");
  CHECK(throttled("address") == 1);
  CHECK(failures() == 6);
  // Bad input is not an attempt.
  CHECK(Try(f, "", "x").code == "INVALID_PARAMS");
  CHECK(failures() == 6);
}

}  // namespace
}  // namespace livechat
