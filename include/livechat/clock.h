// Time as a seam. Domain code never reads the system clock directly: rate
// windows, the 24-hour channel window, key activation and retry schedules all
// take a Clock so tests move time by hand instead of sleeping.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace livechat {

// Thread-safe. Two clocks in one: wall time for what is stored or shown,
// monotonic time for windows and timeouts.
class Clock {
 public:
  virtual ~Clock() = default;
  // Milliseconds since the Unix epoch, UTC.
  virtual std::int64_t NowMillis() const = 0;
  // Milliseconds on a clock that never goes back; only differences mean anything.
  virtual std::int64_t MonotonicMillis() const = 0;

  // The process-wide system clock. It belongs to livechat; never delete it.
  static Clock* Default();
};

// A clock that does not tick on its own: time moves only when a test moves it.
// Both readings move together.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(std::int64_t now_millis = 1767225600000 /* 2026-01-01 */)
      : now_(now_millis) {}
  std::int64_t NowMillis() const override { return now_.load(); }
  std::int64_t MonotonicMillis() const override { return now_.load(); }
  void Set(std::int64_t now_millis) { now_.store(now_millis); }
  void Advance(std::int64_t millis) { now_.fetch_add(millis); }

 private:
  std::atomic<std::int64_t> now_;
};

// "2026-01-01T00:00:00.000Z" for a Unix-millisecond time.
std::string FormatIso8601(std::int64_t unix_millis);
// The inverse, for times read from files: "YYYY-MM-DDTHH:MM:SS" with optional
// fractional seconds (milliseconds kept, finer digits dropped) and a zone of
// "Z" or "+HH:MM"/"-HH:MM". Years 1970 to 9999. Anything else: empty.
std::optional<std::int64_t> ParseIso8601(std::string_view text);

}  // namespace livechat
