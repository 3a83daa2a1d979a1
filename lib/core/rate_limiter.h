// Fixed-window request counting (spec: Limits). A window opens with the first
// request of a key and lasts windowMillis; requests while blocked are counted
// but never move the window's start, so blocking cannot extend itself.
//
// In-process: several instances on one database count in the database
// instead (livechat/rate_counters.h). Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "livechat/clock.h"
#include "livechat/rate_counters.h"

namespace livechat {

class RateLimiter final : public RateWindows {
 public:
  RateLimiter(const Clock& clock, std::int64_t windowMillis) : clock_(clock), window_(windowMillis) {}
  // `at` is the clock's monotonic time.
  Outcome Hit(const std::string& key, int limit) override;
  Outcome Take(const std::string& key, int limit) override;
  void Return(const std::string& key, std::int64_t at) override;

 private:
  struct Window {
    std::int64_t start;
    std::int64_t count;
  };
  void SweepLocked(std::int64_t now);
  Outcome Count(const std::string& key, int limit, bool countRefused);

  const Clock& clock_;
  const std::int64_t window_;
  std::mutex mu_;
  std::unordered_map<std::string, Window> windows_;
  std::int64_t lastSweep_ = 0;
};

}  // namespace livechat
