#include "core/login_throttle.h"

#include <algorithm>
#include <tuple>

namespace livechat {

LoginThrottle::LoginThrottle(const Clock& clock, const Limits& limits)
    : clock_(clock),
      firstDelay_(limits.loginFirstDelayMillis),
      maxDelay_(limits.loginMaxDelayMillis),
      forgetAfter_(limits.loginForgetAfterMillis),
      maxKeys_(std::max<std::size_t>(1, limits.loginTrackedKeysMax)),
      accounts_{limits.loginFreeFailuresPerAccount, {}},
      addresses_{limits.loginFreeFailuresPerAddress, {}} {}

LoginThrottle::Attempt LoginThrottle::Begin(const std::string& account, const std::string& address) {
  const std::int64_t now = clock_.MonotonicMillis();
  std::lock_guard<std::mutex> lock(mu_);
  Attempt a;
  const std::int64_t accountWait = WaitLocked(accounts_, account, now);
  const std::int64_t addressWait = WaitLocked(addresses_, address, now);
  if (accountWait > 0 || addressWait > 0) {
    a.refusedBy = accountWait >= addressWait ? Scope::kAccount : Scope::kAddress;
    a.retryAfterMillis = std::max(accountWait, addressWait);
    return a;
  }
  a.allowed = true;
  a.account = CountFailureLocked(accounts_, account, now);
  a.address = CountFailureLocked(addresses_, address, now);
  return a;
}

void LoginThrottle::Finish(const Attempt& attempt, Outcome outcome) {
  if (!attempt.allowed || outcome == Outcome::kWrongPassword) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (outcome == Outcome::kRightPassword)
    accounts_.entries.erase(attempt.account.key);
  else
    TakeBackLocked(accounts_, attempt.account);
  // The address keeps its other failures: signing in to an account of one's
  // own must not buy more guesses at everyone else's.
  TakeBackLocked(addresses_, attempt.address);
}

std::size_t LoginThrottle::TrackedAccounts() const {
  std::lock_guard<std::mutex> lock(mu_);
  return accounts_.entries.size();
}

std::size_t LoginThrottle::TrackedAddresses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return addresses_.entries.size();
}

std::int64_t LoginThrottle::WaitLocked(Table& t, const std::string& key, std::int64_t now) {
  auto it = t.entries.find(key);
  if (it == t.entries.end()) return 0;
  const Entry& e = it->second;
  if (now - e.last >= forgetAfter_) {
    t.entries.erase(it);
    return 0;
  }
  if (e.failures < t.free) return 0;
  // Doubling stops at the cap, so any failure count is safe from overflow.
  std::int64_t delay = firstDelay_;
  for (int extra = e.failures - t.free; extra > 0 && delay < maxDelay_; --extra) delay *= 2;
  delay = std::min(delay, maxDelay_);
  return std::max<std::int64_t>(0, e.last + delay - now);
}

LoginThrottle::Attempt::Counted LoginThrottle::CountFailureLocked(Table& t, const std::string& key,
                                                                   std::int64_t now) {
  auto it = t.entries.find(key);
  if (it == t.entries.end()) {
    if (t.entries.size() >= maxKeys_) MakeRoomLocked(t, now);
    it = t.entries.emplace(key, Entry{}).first;
  }
  Entry& e = it->second;
  Attempt::Counted c{key, ++seq_, e.last};
  ++e.failures;
  e.last = now;
  e.seq = c.seq;
  return c;
}

void LoginThrottle::TakeBackLocked(Table& t, const Attempt::Counted& c) {
  auto it = t.entries.find(c.key);
  if (it == t.entries.end()) return;  // forgotten or evicted meanwhile
  Entry& e = it->second;
  if (--e.failures <= 0) {
    t.entries.erase(it);
    return;
  }
  // The wait runs from the last real failure, unless a later one has moved it since.
  if (e.seq == c.seq) e.last = c.lastBefore;
}

void LoginThrottle::MakeRoomLocked(Table& t, std::int64_t now) {
  for (auto it = t.entries.begin(); it != t.entries.end();) {
    if (now - it->second.last >= forgetAfter_)
      it = t.entries.erase(it);
    else
      ++it;
  }
  if (t.entries.size() < maxKeys_) return;
  // A flood of one-off keys then only pushes out other one-off keys: an
  // account under attack has the most failures and stays throttled.
  auto victim = std::min_element(t.entries.begin(), t.entries.end(), [](const auto& a, const auto& b) {
    return std::tie(a.second.failures, a.second.last) < std::tie(b.second.failures, b.second.last);
  });
  t.entries.erase(victim);
}

}  // namespace livechat
