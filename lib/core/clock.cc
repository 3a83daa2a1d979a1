#include "livechat/clock.h"

#include <chrono>

#include "livechat/base/json_text.h"

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
  std::string out;
  out.reserve(24);
  AppendIso8601(out, unix_millis);
  return out;
}

namespace {

// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
// days_from_civil), so parsing needs neither timegm nor the TZ setting.
std::int64_t DaysFromCivil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool Digits(std::string_view s, std::size_t at, std::size_t n, int* out) {
  if (at + n > s.size()) return false;
  int v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

}  // namespace

std::optional<std::int64_t> ParseIso8601(std::string_view s) {
  int year, month, day, hour, minute, second;
  if (!Digits(s, 0, 4, &year) || s.size() < 19 || s[4] != '-' || !Digits(s, 5, 2, &month) || s[7] != '-' ||
      !Digits(s, 8, 2, &day) || (s[10] != 'T' && s[10] != 't') || !Digits(s, 11, 2, &hour) || s[13] != ':' ||
      !Digits(s, 14, 2, &minute) || s[16] != ':' || !Digits(s, 17, 2, &second))
    return std::nullopt;
  static constexpr int kMonthDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (year < 1970 || month < 1 || month > 12 || day < 1 || day > kMonthDays[month - 1] ||
      (month == 2 && day == 29 && !leap) || hour > 23 || minute > 59 || second > 59)
    return std::nullopt;
  std::size_t i = 19;
  int millis = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    std::size_t digits = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      if (digits < 3) millis = millis * 10 + (s[i] - '0');
      ++digits;
      ++i;
    }
    if (digits == 0) return std::nullopt;
    for (std::size_t k = digits; k < 3; ++k) millis *= 10;
  }
  std::int64_t offsetMinutes = 0;
  std::string_view zone = s.substr(i);
  if (zone == "Z" || zone == "z") {
  } else if (zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && zone[3] == ':') {
    int zh, zm;
    if (!Digits(zone, 1, 2, &zh) || !Digits(zone, 4, 2, &zm) || zh > 23 || zm > 59) return std::nullopt;
    offsetMinutes = (zone[0] == '+' ? 1 : -1) * (zh * 60 + zm);
  } else {
    return std::nullopt;
  }
  const std::int64_t days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const std::int64_t secs = days * 86400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60;
  return secs * 1000 + millis;
}

}  // namespace livechat
