#include "core/rate_limiter.h"

#include <algorithm>

namespace livechat {

RateLimiter::Outcome RateLimiter::Hit(const std::string& key, int limit) { return Count(key, limit, true); }

RateLimiter::Outcome RateLimiter::Take(const std::string& key, int limit) { return Count(key, limit, false); }

RateLimiter::Outcome RateLimiter::Count(const std::string& key, int limit, bool countRefused) {
  const std::int64_t now = clock_.MonotonicMillis();
  std::lock_guard<std::mutex> lock(mu_);
  // Expired windows are dropped in bulk once per window length, so memory is
  // bounded by the number of distinct callers in one window.
  if (now - lastSweep_ >= window_) SweepLocked(now);
  auto [it, inserted] = windows_.try_emplace(key, Window{now, 0});
  Window& w = it->second;
  if (!inserted && (now - w.start >= window_ || w.count == 0)) w = Window{now, 0};
  const bool allowed = w.count < limit;
  if (allowed || countRefused) ++w.count;
  const int remaining = static_cast<int>(std::max<std::int64_t>(0, limit - w.count));
  return Outcome{allowed, limit, remaining, w.start + window_ - now, now};
}

void RateLimiter::Return(const std::string& key, std::int64_t at) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = windows_.find(key);
  if (it == windows_.end()) return;
  Window& w = it->second;
  if (w.count > 0 && w.start <= at && at - w.start < window_) --w.count;
}

void RateLimiter::SweepLocked(std::int64_t now) {
  lastSweep_ = now;
  for (auto it = windows_.begin(); it != windows_.end();) {
    if (now - it->second.start >= window_)
      it = windows_.erase(it);
    else
      ++it;
  }
}

}  // namespace livechat
