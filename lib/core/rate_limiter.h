// Fixed-window request counting (spec: Limits). A window opens with the first
// request of a key and lasts windowMillis; requests while blocked are counted
// but never move the window's start, so blocking cannot extend itself.
//
// In-process: a multi-host deployment needs these windows in shared storage
// (see docs/architecture.md). Thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include "livechat/clock.h"

namespace livechat {

class RateLimiter {
 public:
  struct Outcome {
    bool allowed;
    int limit;
    int remaining;
    std::int64_t resetInMillis;
    std::int64_t at;  // the clock's monotonic time of the call (Return)
  };

  RateLimiter(const Clock& clock, std::int64_t windowMillis) : clock_(clock), window_(windowMillis) {}
  // Counts one request under `key` against `limit`.
  Outcome Hit(const std::string& key, int limit);
  // For windows where only accepted calls count (new storefront sessions):
  // like Hit, but a refused call is not counted; and Return gives back the
  // place of a call Take counted (`at`: its Outcome's) that was refused
  // after all, unless the window it was counted in has closed.
  Outcome Take(const std::string& key, int limit);
  void Return(const std::string& key, std::int64_t at);

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
