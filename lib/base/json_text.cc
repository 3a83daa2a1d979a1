#include "livechat/base/json_text.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// Whether any of a word's eight bytes needs an escape: below 0x20, '"' or
// '\\'. Each test is exact for the word as a whole (bytes of 0x80 and above,
// UTF-8's, never match), not for which byte.
inline bool WordNeedsEscape(std::uint64_t w) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  const std::uint64_t quote = w ^ (kOnes * '"');
  const std::uint64_t backslash = w ^ (kOnes * '\\');
  const std::uint64_t below0x20 = (w - kOnes * 0x20) & ~w;
  const std::uint64_t isQuote = (quote - kOnes) & ~quote;
  const std::uint64_t isBackslash = (backslash - kOnes) & ~backslash;
  return ((below0x20 | isQuote | isBackslash) & kHigh) != 0;
}

// The first byte of `s` at or after `from` that needs an escape, or s.size().
// A word at a time, then the last few bytes one by one: a list page writes
// thousands of keys and values, nearly all with nothing to escape. Only a
// word that holds such a byte is scanned byte by byte. (Padding the tail
// into a word measured slower: its variable-length copy cost more.)
std::size_t SafeRunEnd(std::string_view s, std::size_t from) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  std::size_t i = from;
  std::uint64_t w;
  for (; i + 8 <= n; i += 8) {
    std::memcpy(&w, p + i, 8);
    if (WordNeedsEscape(w)) break;
  }
  while (i < n && kEscapes[p[i]] == 0) ++i;
  return i;
}

char* Put2(char* p, unsigned v) {
  p[0] = static_cast<char>('0' + v / 10);
  p[1] = static_cast<char>('0' + v % 10);
  return p + 2;
}

struct CivilDate {
  std::int64_t year;
  unsigned month, day;
};

// Howard Hinnant's civil_from_days: no gmtime, no TZ, no lock.
CivilDate CivilFromDays(std::int64_t days) {
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto doe = static_cast<unsigned>(days - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned day = doy - (153 * mp + 2) / 5 + 1;
  const unsigned month = mp < 10 ? mp + 3 : mp - 9;
  return {static_cast<std::int64_t>(yoe) + era * 400 + (month <= 2), month, day};
}

// The date part of the last time formatted on this thread: the times of a
// page of records mostly fall on a handful of days.
struct DateCache {
  std::int64_t days = INT64_MIN;
  char text[10] = {};
};
thread_local DateCache tDate;

// Writes the time at `p` (at most 36 bytes) and returns its end.
char* FormatIso8601(char* p, std::int64_t unixMillis) {
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
  char* const start = p;
  DateCache& cache = tDate;
  if (days == cache.days) {
    std::memcpy(p, cache.text, 10);
    p += 10;
  } else {
    const CivilDate d = CivilFromDays(days);
    const bool fourDigits = d.year >= 0 && d.year <= 9999;
    if (fourDigits) {
      const auto y = static_cast<unsigned>(d.year);
      p = Put2(Put2(p, y / 100), y % 100);
    } else {
      p = std::to_chars(p, p + 12, d.year).ptr;  // outside what ISO 8601's four digits hold; never stored
    }
    *p++ = '-';
    p = Put2(p, d.month);
    *p++ = '-';
    p = Put2(p, d.day);
    if (fourDigits) {
      std::memcpy(cache.text, start, 10);
      cache.days = days;
    }
  }
  *p++ = 'T';
  const auto r = static_cast<unsigned>(rem);
  p = Put2(p, r / 3600);
  *p++ = ':';
  p = Put2(p, r / 60 % 60);
  *p++ = ':';
  p = Put2(p, r % 60);
  *p++ = '.';
  *p++ = static_cast<char>('0' + ms / 100);
  p = Put2(p, static_cast<unsigned>(ms % 100));
  *p++ = 'Z';
  return p;
}

}  // namespace

char* AppendJsonSpace(std::string& out, std::size_t n) {
  const std::size_t size = out.size();
  // Doubling, so appending piece by piece stays linear (reserve alone would
  // grow to the exact size asked).
  if (out.capacity() - size < n) out.reserve(std::max(size + n, 2 * out.capacity()));
  out.resize(size + n);
  return out.data() + size;
}

void AppendJsonString(std::string& out, std::string_view s) {
  const std::size_t safe = SafeRunEnd(s, 0);
  if (safe == s.size()) {
    // Most strings need no escape: one copy between the quotes.
    char* p = AppendJsonSpace(out, s.size() + 2);
    *p++ = '"';
    if (!s.empty()) std::memcpy(p, s.data(), s.size());
    p[s.size()] = '"';
    return;
  }
  // The exact escaped size first (\u00XX adds five bytes, the others one),
  // so the buffer grows once; PutJsonString writes exactly that.
  std::size_t size = s.size() + 2;
  for (std::size_t i = safe; i < s.size(); ++i) {
    const char e = kEscapes[static_cast<unsigned char>(s[i])];
    size += e == 0 ? 0 : e == 'u' ? 5 : 1;
  }
  PutJsonString(AppendJsonSpace(out, size), s);
}

bool JsonNeedsEscape(std::string_view s) { return SafeRunEnd(s, 0) != s.size(); }

void AppendJsonInt(std::string& out, std::int64_t v) {
  char buf[24];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, static_cast<std::size_t>(res.ptr - buf));
}

void AppendJsonDouble(std::string& out, double v) {
  char buf[32];
  out.append(buf, static_cast<std::size_t>(PutJsonDouble(buf, v) - buf));
}

char* PutJsonString(char* p, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto* in = reinterpret_cast<const unsigned char*>(s.data());
  const std::size_t n = s.size();
  *p++ = '"';
  std::size_t i = 0;
  // Words with nothing to escape are copied as they are tested (one pass,
  // no copy call per string); a word that holds such a byte, and the last
  // few bytes, go byte by byte.
  while (true) {
#if defined(__SSE2__)
    // Sixteen bytes at a time where the target has SSE2 (every x86-64): a
    // byte needs an escape when it is '"', '\\' or below 0x20 (unsigned:
    // min(x, 0x1f) == x).
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), below = _mm_set1_epi8(0x1f);
    for (; i + 16 <= n; i += 16) {
      const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
      const __m128i bad = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, backslash)),
                                       _mm_cmpeq_epi8(_mm_min_epu8(x, below), x));
      if (_mm_movemask_epi8(bad) != 0) break;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(p), x);
      p += 16;
    }
#endif
    std::uint64_t w;
    for (; i + 8 <= n; i += 8) {
      std::memcpy(&w, in + i, 8);
      if (WordNeedsEscape(w)) break;
      std::memcpy(p, &w, 8);
      p += 8;
    }
    for (const std::size_t stop = std::min(n, i + 8); i < stop; ++i) {
      const unsigned char c = in[i];
      const char e = kEscapes[c];
      if (e == 0) {
        *p++ = static_cast<char>(c);
        continue;
      }
      *p++ = '\\';
      *p++ = e;
      if (e == 'u') {
        *p++ = '0';
        *p++ = '0';
        *p++ = kHex[c >> 4];
        *p++ = kHex[c & 15];
      }
    }
    if (i >= n) break;
  }
  *p++ = '"';
  return p;
}

char* PutJsonTime(char* p, std::int64_t unixMillis) {
  *p++ = '"';
  p = FormatIso8601(p, unixMillis);
  *p++ = '"';
  return p;
}

char* PutJsonDouble(char* p, double v) {
  if (!std::isfinite(v)) {
    std::memcpy(p, "null", 4);
    return p + 4;
  }
  return std::to_chars(p, p + 32, v).ptr;
}

void AppendIso8601(std::string& out, std::int64_t unixMillis) {
  char buf[40];
  out.append(buf, static_cast<std::size_t>(FormatIso8601(buf, unixMillis) - buf));
}

void AppendJsonTime(std::string& out, std::int64_t unixMillis) {
  char buf[kJsonTimeRoom];
  out.append(buf, static_cast<std::size_t>(PutJsonTime(buf, unixMillis) - buf));
}

}  // namespace livechat
