// Cost-based limiting (the GraphQL API's query cost, spec: Limits): a token
// bucket per key, `capacity` tokens refilled continuously at `refillPerSecond`
// on the monotonic clock. The request-count windows are in rate_limiter.h;
// both forget idle keys, so memory is bounded by the callers active within
// one refill period, not by every key ever seen. Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "livechat/clock.h"
#include "livechat/rate_counters.h"

namespace livechat {

class TokenBuckets final : public CostBuckets {
 public:
  TokenBuckets(const Clock& clock, std::int64_t capacity, std::int64_t refillPerSecond)
      : clock_(clock), capacity_(capacity), refillPerSecond_(refillPerSecond) {}

  Outcome Take(const std::string& key, std::int64_t cost) override;
  // Keys tracked now (tests: idle keys are forgotten).
  std::size_t size();

 private:
  struct Bucket {
    double tokens;
    std::int64_t at;
  };
  void SweepLocked(std::int64_t now);

  const Clock& clock_;
  const std::int64_t capacity_;
  const std::int64_t refillPerSecond_;
  std::mutex mu_;
  std::unordered_map<std::string, Bucket> buckets_;
  std::int64_t lastSweep_ = 0;
};

}  // namespace livechat
