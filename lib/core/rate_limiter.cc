#include "core/rate_limiter.h"

#include <algorithm>

namespace livechat {

RateLimiter::Outcome RateLimiter::Hit(const std::string& key, int limit) {
  const std::int64_t now = clock_.MonotonicMillis();
  std::lock_guard<std::mutex> lock(mu_);
  // Expired windows are dropped in bulk once per window length, so memory is
  // bounded by the number of distinct callers in one window.
  if (now - lastSweep_ >= window_) SweepLocked(now);
  auto [it, inserted] = windows_.try_emplace(key, Window{now, 0});
  Window& w = it->second;
  if (!inserted && now - w.start >= window_) w = Window{now, 0};
  ++w.count;
  const bool allowed = w.count <= limit;
  const int remaining = static_cast<int>(std::max<std::int64_t>(0, limit - w.count));
  return Outcome{allowed, limit, remaining, w.start + window_ - now};
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
