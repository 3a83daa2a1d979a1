// The counters behind the spec's limits, as seams: fixed request windows
// (per key, per address, visitor session starts) and cost buckets (the
// GraphQL API's query cost). One process uses the in-process versions
// (lib/core/rate_limiter.h, token_buckets.h); several livechatd instances on
// one PostgreSQL database share the database's (livechat/postgres_store.h),
// so every limit is counted once across them. Implementations are
// thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace livechat {

class RateWindows {
 public:
  struct Outcome {
    bool allowed;
    int limit;
    int remaining;
    std::int64_t resetInMillis;
    std::int64_t at;  // when the call was counted, on the counter's own clock (for Return)
  };
  virtual ~RateWindows() = default;
  // Counts one request under `key` against `limit` (a refused one too: a
  // client hammering a closed window stays refused until it ends). A window
  // opens with the first request of a key and lasts the window length.
  virtual Outcome Hit(const std::string& key, int limit) = 0;
  // Hit(first), then Hit(second) only if the first allowed the request: a
  // request under two windows (its address's, then its key's). The shared
  // counters do both in one round trip.
  struct Both {
    Outcome first;
    std::optional<Outcome> second;  // unset when the first refused
  };
  virtual Both HitBoth(const std::string& first, int firstLimit, const std::string& second, int secondLimit) {
    Both out{Hit(first, firstLimit), std::nullopt};
    if (out.first.allowed) out.second = Hit(second, secondLimit);
    return out;
  }
  // Like Hit, but a refused call is not counted.
  virtual Outcome Take(const std::string& key, int limit) = 0;
  // Gives back the place of a call Take counted (`at`: its Outcome's) that
  // was refused after all, unless the window it was counted in has closed.
  virtual void Return(const std::string& key, std::int64_t at) = 0;
};

class CostBuckets {
 public:
  struct Outcome {
    bool allowed;
    double left;  // tokens in the bucket after this take (or before a refused one)
  };
  virtual ~CostBuckets() = default;
  // Takes `cost` tokens from `key`'s bucket; a refused take takes nothing.
  virtual Outcome Take(const std::string& key, std::int64_t cost) = 0;
};

class Clock;

// The in-process CostBuckets: `capacity` tokens per key, refilled at
// `refillPerSecond` on `clock`'s monotonic time; idle keys are forgotten.
std::unique_ptr<CostBuckets> NewTokenBuckets(const Clock& clock, std::int64_t capacity,
                                             std::int64_t refillPerSecond);

}  // namespace livechat
