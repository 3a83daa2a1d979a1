#include "livechat/clock.h"

#include <chrono>
#include <cstdio>
#include <ctime>

namespace livechat {
namespace {

class SystemClock final : public Clock {
 public:
  std::int64_t NowMillis() const override {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
  }
  std::int64_t MonotonicMillis() const override {
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
  }
};

}  // namespace

Clock* Clock::Default() {
  static SystemClock* clock = new SystemClock();  // never destroyed: usable during shutdown
  return clock;
}

std::string FormatIso8601(std::int64_t unix_millis) {
  std::int64_t secs = unix_millis / 1000;
  int ms = static_cast<int>(unix_millis % 1000);
  if (ms < 0) {
    ms += 1000;
    secs -= 1;
  }
  std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ms);
  return buf;
}

}  // namespace livechat
