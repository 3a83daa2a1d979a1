#include "livechat/base/json_text.h"

#include <array>
#include <charconv>
#include <cmath>

namespace livechat {
namespace {

// For each byte: 0 when it is copied as is, else the character after the
// backslash ('u' for the \u00XX form).
constexpr std::array<char, 256> MakeEscapes() {
  std::array<char, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = 'u';
  t['"'] = '"';
  t['\\'] = '\\';
  t['\n'] = 'n';
  t['\r'] = 'r';
  t['\t'] = 't';
  t['\b'] = 'b';
  t['\f'] = 'f';
  return t;
}
constexpr std::array<char, 256> kEscapes = MakeEscapes();

void Append2(std::string& out, unsigned v) {
  out.push_back(static_cast<char>('0' + v / 10));
  out.push_back(static_cast<char>('0' + v % 10));
}

}  // namespace

void AppendJsonString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t run = 0;  // start of the bytes not yet copied
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    const char e = kEscapes[c];
    if (e == 0) continue;
    out.append(s.data() + run, i - run);  // copy runs whole, not byte by byte
    run = i + 1;
    out.push_back('\\');
    out.push_back(e);
    if (e == 'u') {
      out += "00";
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

void AppendJsonInt(std::string& out, std::int64_t v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

void AppendJsonDouble(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  char buf[32];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, res.ptr);
}

void AppendIso8601(std::string& out, std::int64_t unixMillis) {
  std::int64_t secs = unixMillis / 1000;
  int ms = static_cast<int>(unixMillis % 1000);
  if (ms < 0) {
    ms += 1000;
    secs -= 1;
  }
  std::int64_t days = secs / 86400;
  std::int64_t rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    days -= 1;
  }
  // Howard Hinnant's civil_from_days: no gmtime, no TZ, no lock.
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned day = doy - (153 * mp + 2) / 5 + 1;
  const unsigned month = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t year = static_cast<std::int64_t>(yoe) + era * 400 + (month <= 2);

  if (year >= 0 && year <= 9999) {
    const auto y = static_cast<unsigned>(year);
    Append2(out, y / 100);
    Append2(out, y % 100);
  } else {
    AppendJsonInt(out, year);  // outside what ISO 8601's four digits hold; never stored
  }
  out.push_back('-');
  Append2(out, month);
  out.push_back('-');
  Append2(out, day);
  out.push_back('T');
  const auto r = static_cast<unsigned>(rem);
  Append2(out, r / 3600);
  out.push_back(':');
  Append2(out, r / 60 % 60);
  out.push_back(':');
  Append2(out, r % 60);
  out.push_back('.');
  out.push_back(static_cast<char>('0' + ms / 100));
  Append2(out, static_cast<unsigned>(ms % 100));
  out.push_back('Z');
}

}  // namespace livechat
