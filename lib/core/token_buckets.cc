#include "core/token_buckets.h"

#include <algorithm>

namespace livechat {

TokenBuckets::Outcome TokenBuckets::Take(const std::string& key, std::int64_t cost) {
  const std::int64_t now = clock_.MonotonicMillis();
  const auto capacity = static_cast<double>(capacity_);
  std::lock_guard<std::mutex> lock(mu_);
  // A bucket left alone for one full refill period is full again: the same
  // as a bucket never seen, so it can be dropped. Swept once per period.
  const std::int64_t fullAfter = refillPerSecond_ > 0 ? (capacity_ * 1000 + refillPerSecond_ - 1) / refillPerSecond_ : 0;
  if (refillPerSecond_ > 0 && now - lastSweep_ >= fullAfter) SweepLocked(now);
  auto [it, inserted] = buckets_.try_emplace(key, Bucket{capacity, now});
  Bucket& b = it->second;
  b.tokens = std::min(capacity, b.tokens + static_cast<double>(now - b.at) * static_cast<double>(refillPerSecond_) / 1000.0);
  b.at = now;
  if (static_cast<double>(cost) > b.tokens) return Outcome{false, b.tokens};
  b.tokens -= static_cast<double>(cost);
  return Outcome{true, b.tokens};
}

std::size_t TokenBuckets::size() {
  std::lock_guard<std::mutex> lock(mu_);
  return buckets_.size();
}

void TokenBuckets::SweepLocked(std::int64_t now) {
  lastSweep_ = now;
  const auto capacity = static_cast<double>(capacity_);
  for (auto it = buckets_.begin(); it != buckets_.end();) {
    const Bucket& b = it->second;
    const double refilled = b.tokens + static_cast<double>(now - b.at) * static_cast<double>(refillPerSecond_) / 1000.0;
    if (refilled >= capacity)
      it = buckets_.erase(it);
    else
      ++it;
  }
}

std::unique_ptr<CostBuckets> NewTokenBuckets(const Clock& clock, std::int64_t capacity,
                                             std::int64_t refillPerSecond) {
  return std::make_unique<TokenBuckets>(clock, capacity, refillPerSecond);
}

}  // namespace livechat
