// The base layer: UTF-8, JSON text and the JSON writer every surface uses.
#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "livechat/base/json_text.h"
#include "livechat/base/json_writer.h"
#include "livechat/base/utf8.h"

using namespace livechat;

namespace {
std::string Iso(std::int64_t ms) {
  std::string s;
  AppendIso8601(s, ms);
  return s;
}
std::string Quoted(std::string_view v) {
  std::string s;
  AppendJsonString(s, v);
  return s;
}

// The writers as they were before they wrote in pieces (a byte at a time,
// civil_from_days for every time): the fast ones must give the same bytes.
std::string ReferenceQuoted(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out.push_back(kHex[c >> 4]);
          out.push_back(kHex[c & 15]);
        } else {
          out.push_back(ch);
        }
    }
  }
  out.push_back('"');
  return out;
}

// The standard library's calendar (years -32767 to 32767).
std::string ReferenceIso(std::int64_t unixMillis) {
  using namespace std::chrono;
  const sys_time<milliseconds> t{milliseconds{unixMillis}};
  const sys_days day = floor<days>(t);
  const year_month_day ymd{day};
  const auto ms = (t - day).count();
  const int y = static_cast<int>(ymd.year());
  char buf[64];
  std::snprintf(buf, sizeof buf, y >= 0 && y <= 9999 ? "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ" : "%d-%02u-%02uT%02d:%02d:%02d.%03dZ",
                y, static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(ms / 3600000), static_cast<int>(ms / 60000 % 60), static_cast<int>(ms / 1000 % 60),
                static_cast<int>(ms % 1000));
  return buf;
}
}  // namespace

TEST_CASE("AppendIso8601 formats UTC with milliseconds, without the C library") {
  CHECK(Iso(0) == "1970-01-01T00:00:00.000Z");
  CHECK(Iso(1) == "1970-01-01T00:00:00.001Z");
  CHECK(Iso(-1) == "1969-12-31T23:59:59.999Z");
  CHECK(Iso(951782400000) == "2000-02-29T00:00:00.000Z");      // leap day of a 400-year leap year
  CHECK(Iso(1795532691123) == "2026-11-24T15:04:51.123Z");
  CHECK(Iso(2147483648000) == "2038-01-19T03:14:08.000Z");     // past 32-bit time_t
  CHECK(Iso(253402300799999) == "9999-12-31T23:59:59.999Z");   // the last four-digit year
  CHECK(Iso(4102444800000 - 1) == "2099-12-31T23:59:59.999Z");
}

TEST_CASE("AppendIso8601: the years it cannot write in four digits, and the day it remembers") {
  CHECK(Iso(-62167219200000) == "0000-01-01T00:00:00.000Z");   // the first four-digit year
  CHECK(Iso(-62167219200001) == "-1-12-31T23:59:59.999Z");     // before it: the year as a number
  CHECK(Iso(253402300800000) == "10000-01-01T00:00:00.000Z");  // after the last one
  CHECK(Iso(1709164800000) == "2024-02-29T00:00:00.000Z");     // leap day
  CHECK(Iso(4107542400000) == "2100-03-01T00:00:00.000Z");     // 2100 has no 29 February
  // The same day twice, another day, then the first again: the date part
  // kept from one call is never another day's.
  CHECK(Iso(1795532691123) == "2026-11-24T15:04:51.123Z");
  CHECK(Iso(1795532691124) == "2026-11-24T15:04:51.124Z");
  CHECK(Iso(1795532691123 + 86400000) == "2026-11-25T15:04:51.123Z");
  CHECK(Iso(253402300800000) == "10000-01-01T00:00:00.000Z");
  CHECK(Iso(1795532691123) == "2026-11-24T15:04:51.123Z");
  std::string quoted = "x";
  AppendJsonTime(quoted, 0);
  CHECK(quoted == "x\"1970-01-01T00:00:00.000Z\"");
  CHECK(Iso(std::numeric_limits<std::int64_t>::max()) == "292278994-08-17T07:12:55.807Z");
  CHECK(Iso(std::numeric_limits<std::int64_t>::min()) == "-292275055-05-16T16:47:04.192Z");
  const std::int64_t edges[] = {-86400000, -86399999, 86399999, 86400000, 946684799999, 946684800000};
  for (std::int64_t ms : edges) CHECK(Iso(ms) == ReferenceIso(ms));
  std::mt19937_64 rng(17);
  std::uniform_int_distribution<std::int64_t> anyTime(-100'000'000'000'000, 300'000'000'000'000);
  for (int i = 0; i < 20000; ++i) {
    // Runs of nearby times (the cached day) between jumps.
    const std::int64_t ms = i % 4 == 0 ? anyTime(rng) : anyTime(rng) % 1000 + 1795532691123;
    REQUIRE(Iso(ms) == ReferenceIso(ms));
  }
}

TEST_CASE("AppendJsonString escapes what JSON requires and passes UTF-8 through") {
  CHECK(Quoted("") == "\"\"");
  CHECK(Quoted("plain") == "\"plain\"");
  CHECK(Quoted("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(Quoted("\n\r\t\b\f") == "\"\\n\\r\\t\\b\\f\"");
  CHECK(Quoted(std::string_view("\x01\x1f\0", 3)) == "\"\\u0001\\u001f\\u0000\"");
  CHECK(Quoted("caf\xC3\xA9 \xF0\x9F\x98\x80") == "\"caf\xC3\xA9 \xF0\x9F\x98\x80\"");
  CHECK(Quoted("</script>") == "\"</script>\"");  // '/' needs no escape
  std::string out = "x";
  AppendJsonString(out, "y");
  CHECK(out == "x\"y\"");  // appends, never replaces
  CHECK(Quoted("\x7f") == "\"\x7f\"");      // DEL is not a control JSON escapes
  CHECK(Quoted("a\x1f") == "\"a\\u001f\"");  // an escape as the last byte
  CHECK(Quoted("\"") == "\"\\\"\"");          // only an escape
  CHECK(Quoted("\"\"ab\\") == "\"\\\"\\\"ab\\\\\"");
}

TEST_CASE("AppendJsonString and JsonObject give the bytes the byte-at-a-time escaper gave") {
  std::mt19937 rng(17);
  // Mostly plain text with the odd byte that needs an escape, runs of them,
  // UTF-8, and strings long enough to grow the buffer.
  const std::string alphabet = std::string("abc XYZ</script>\xC3\xA9\xF0\x9F\x98\x80\x7f\"\\\n\r\t\b\f\x01\x1f") +
                               std::string(1, '\0');
  for (int i = 0; i < 5000; ++i) {
    std::string s;
    const int n = static_cast<int>(rng() % (i % 50 == 0 ? 5000 : 40));
    for (int j = 0; j < n; ++j) s.push_back(alphabet[rng() % alphabet.size()]);
    std::string out = "prefix";
    AppendJsonString(out, s);
    REQUIRE(out == "prefix" + ReferenceQuoted(s));
    // The writer's own copy (sixteen and eight bytes at a time) gives the same.
    REQUIRE(JsonObject().Str("k", s).Done() == "{\"k\":" + ReferenceQuoted(s) + "}");
  }
}

TEST_CASE("every byte at every place of a word is escaped or passed as the byte-at-a-time escaper did") {
  // The escaper tests eight bytes at a time: each byte value, at each of the
  // first two words' places and the tail's, among plain, high (UTF-8) and
  // boundary neighbours (0x1f, 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f, 0x80, 0xff).
  const unsigned char fills[] = {'a', 0x80, 0xff, 0x1f, 0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f};
  int checked = 0;
  for (unsigned char fill : fills) {
    for (int b = 0; b < 256; ++b) {
      for (std::size_t at = 0; at < 19; ++at) {
        std::string s(19, static_cast<char>(fill));
        s[at] = static_cast<char>(b);
        std::string out = "p";
        AppendJsonString(out, s);
        REQUIRE(out == "p" + ReferenceQuoted(s));
        REQUIRE(JsonObject().Int("i", 1).Str("k", s).Done() == "{\"i\":1,\"k\":" + ReferenceQuoted(s) + "}");
        ++checked;
      }
    }
  }
  CHECK(checked == 10 * 256 * 19);
  // Two escapes in one word, at every pair of places: the first found must
  // not hide the second.
  for (std::size_t i = 0; i < 16; ++i) {
    for (std::size_t j = i + 1; j < 16; ++j) {
      std::string s(16, 'x');
      s[i] = '"';
      s[j] = '\n';
      std::string out;
      AppendJsonString(out, s);
      REQUIRE(out == ReferenceQuoted(s));
    }
  }
  // A key made at run time that needs an escape is escaped too, not
  // written as is (a literal that would need one does not compile).
  CHECK(JsonObject().Str(JsonKey(std::string_view("a\"b")), "v").Bool(JsonKey(std::string_view("tab\tkey")), true).Done() ==
        "{\"a\\\"b\":\"v\",\"tab\\tkey\":true}");
}

TEST_CASE("JsonObject writes through room it adds: nested, after Field, across many records, past any room") {
  // A page of records into one buffer, each with a nested object, a long
  // string (larger than the room added at a time) and a long array: the
  // buffer ends with exactly the text, no room left over.
  std::string page = "[";
  std::string expected = "[";
  const std::string big(3000, 'b');
  const std::vector<std::string> many(300, "t\"");
  std::string manyJson = "[";
  for (std::size_t i = 0; i < many.size(); ++i) manyJson += (i ? "," : "") + ReferenceQuoted(many[i]);
  manyJson += "]";
  for (int r = 0; r < 50; ++r) {
    if (r) page.push_back(',');
    JsonObject w(page);
    w.Int("r", r);
    {
      JsonObject m(w, "last");
      m.Str("text", r % 7 == 0 ? big : std::string("hi")).Time("at", 0).End();
    }
    w.Strings("tags", r % 10 == 0 ? many : std::vector<std::string>{"a"});
    std::string& f = w.Field("raw");  // the caller writes one value, then the writer goes on
    f += "[1]";
    w.Bool("ok", r % 2 == 0).End();
    expected += (r ? "," : "") + std::string("{\"r\":") + std::to_string(r) + ",\"last\":{\"text\":" +
                ReferenceQuoted(r % 7 == 0 ? big : std::string("hi")) + ",\"at\":\"1970-01-01T00:00:00.000Z\"}," +
                "\"tags\":" + (r % 10 == 0 ? manyJson : std::string("[\"a\"]")) + ",\"raw\":[1],\"ok\":" +
                (r % 2 == 0 ? "true" : "false") + "}";
    CHECK(page.size() == expected.size());  // after each End, no room is left in the buffer
  }
  page.push_back(']');
  expected.push_back(']');
  CHECK(page == expected);
  // An array whose last item fills the room added for it exactly (every
  // byte a \u00XX escape, the room added being just what the item asked
  // for): the closing bracket needs room of its own, and what follows the
  // array is still written inside the buffer.
  for (std::size_t len = 1; len <= 400; ++len) {
    for (std::size_t before = 0; before <= 3; ++before) {
      std::vector<std::string> items(before, "a");
      items.push_back(std::string(len, '\x01'));
      std::string itemsJson = "[";
      for (std::size_t i = 0; i < items.size(); ++i) itemsJson += (i ? "," : "") + ReferenceQuoted(items[i]);
      itemsJson += "]";
      REQUIRE(JsonObject().Strings("tags", items).Str("z", "after").Int("n", 7).Done() ==
              "{\"tags\":" + itemsJson + ",\"z\":\"after\",\"n\":7}");
      std::string into = "x";
      JsonObject w(into);
      w.Strings("tags", items).Str("z", "after").End();
      REQUIRE(into == "x{\"tags\":" + itemsJson + ",\"z\":\"after\"}");
    }
  }
  // An object of its own that held a long value (room asked for six times
  // its size) comes back trimmed to about what it holds.
  const std::string longValue = JsonObject().Str("k", std::string(10000, 'x')).Done();
  CHECK(longValue.size() == 10008);
  CHECK(longValue.capacity() <= 2 * longValue.size() + 256);
  // A writer that ends without End() gives its room back too.
  std::string cut = "x";
  { JsonObject(cut).Str("a", "b"); }
  CHECK(cut == "x{\"a\":\"b\"");
  CHECK(JsonObject().Double("d", std::numeric_limits<double>::infinity()).Double("e", -0.5).Done() ==
        "{\"d\":null,\"e\":-0.5}");
}

TEST_CASE("numbers: shortest round-trip doubles, null for what JSON cannot carry") {
  std::string s;
  AppendJsonInt(s, std::numeric_limits<std::int64_t>::min());
  CHECK(s == "-9223372036854775808");
  s.clear();
  AppendJsonDouble(s, 0.1);
  CHECK(s == "0.1");
  s.clear();
  AppendJsonDouble(s, 19.99);
  CHECK(s == "19.99");
  s.clear();
  AppendJsonDouble(s, std::nan(""));
  CHECK(s == "null");
  s.clear();
  AppendJsonDouble(s, -std::numeric_limits<double>::infinity());
  CHECK(s == "null");
}

TEST_CASE("DecodeUtf8 accepts RFC 3629 and nothing else") {
  std::uint32_t cp = 0;
  CHECK(DecodeUtf8("A", 0, cp) == 1);
  CHECK(cp == 0x41);
  CHECK(DecodeUtf8("\xC3\xA9", 0, cp) == 2);
  CHECK(cp == 0xE9);
  CHECK(DecodeUtf8("\xE2\x82\xAC", 0, cp) == 3);
  CHECK(cp == 0x20AC);
  CHECK(DecodeUtf8("\xF4\x8F\xBF\xBF", 0, cp) == 4);
  CHECK(cp == 0x10FFFF);
  cp = 7;
  CHECK(DecodeUtf8("\xC0\xAF", 0, cp) == 0);          // overlong
  CHECK(DecodeUtf8("\xED\xA0\x80", 0, cp) == 0);      // surrogate U+D800
  CHECK(DecodeUtf8("\xF4\x90\x80\x80", 0, cp) == 0);  // above U+10FFFF
  CHECK(DecodeUtf8("\xE2\x82", 0, cp) == 0);          // truncated
  CHECK(DecodeUtf8("\x80", 0, cp) == 0);              // lone continuation
  CHECK(DecodeUtf8("A", 1, cp) == 0);                 // past the end
  CHECK(cp == 7);                                     // untouched on failure
}

TEST_CASE("AppendUtf8 round-trips through DecodeUtf8 at every length boundary") {
  for (std::uint32_t v : {0x0u, 0x7Fu, 0x80u, 0x7FFu, 0x800u, 0xD7FFu, 0xE000u, 0xFFFFu, 0x10000u, 0x10FFFFu}) {
    std::string s;
    AppendUtf8(s, v);
    std::uint32_t back = 0xFFFFFFFF;
    CHECK(DecodeUtf8(s, 0, back) == s.size());
    CHECK(back == v);
  }
}

TEST_CASE("IsValidUtf8, Utf8Length and TruncateUtf8") {
  CHECK(IsValidUtf8(""));
  CHECK(IsValidUtf8("h\xC3\xA9llo \xF0\x9F\x98\x80"));
  CHECK_FALSE(IsValidUtf8("ok\xFF"));
  CHECK_FALSE(IsValidUtf8("\xED\xBF\xBF"));  // surrogate U+DFFF
  CHECK(Utf8Length("h\xC3\xA9llo \xF0\x9F\x98\x80") == 7);
  CHECK(TruncateUtf8("h\xC3\xA9llo", 2) == "h\xC3\xA9");
  CHECK(TruncateUtf8("\xF0\x9F\x98\x80\xF0\x9F\x98\x80", 1) == "\xF0\x9F\x98\x80");
  CHECK(TruncateUtf8("abc", 10) == "abc");
  CHECK(TruncateUtf8("abc", 0) == "");
}

TEST_CASE("JsonObject writes every kind of member, null for an absent optional") {
  std::optional<std::string> none;
  std::optional<std::int64_t> noInt;
  const std::string json = JsonObject()
                               .Str("s", "a\"b")
                               .Str("o", none)
                               .Str("p", std::optional<std::string>("x"))
                               .Int("i", -5)
                               .Int("n", noInt)
                               .Bool("b", true)
                               .Bool("nb", std::optional<bool>())
                               .Double("d", 2.5)
                               .Time("t", 0)
                               .Time("nt", std::optional<std::int64_t>())
                               .Strings("a", {"x", "y\n"})
                               .Raw("r", "{\"k\":1}")
                               .Raw("e", "", "[]")
                               .Str(JsonKey(std::string_view("k\"ey")), "v")
                               .IntText("q", -12)
                               .Done();
  CHECK(json ==
        "{\"s\":\"a\\\"b\",\"o\":null,\"p\":\"x\",\"i\":-5,\"n\":null,\"b\":true,\"nb\":null,\"d\":2.5,"
        "\"t\":\"1970-01-01T00:00:00.000Z\",\"nt\":null,\"a\":[\"x\",\"y\\n\"],\"r\":{\"k\":1},\"e\":[],"
        "\"k\\\"ey\":\"v\",\"q\":\"-12\"}");
  CHECK(JsonObject().Done() == "{}");
  // Written into the caller's buffer, nested, after what it holds.
  std::string into = "[1,";
  JsonObject outer(into);
  outer.Int("a", 1);
  JsonObject inner(outer.Field("in"));
  inner.Str("b", "c").Time("t", 86400000).End();
  outer.Null("z").End();
  into.push_back(']');
  CHECK(into == "[1,{\"a\":1,\"in\":{\"b\":\"c\",\"t\":\"1970-01-02T00:00:00.000Z\"},\"z\":null}]");
  std::string empty;
  JsonObject(empty).End();
  CHECK(empty == "{}");
  // Each kind of member with a key too long for the one-piece path, and
  // with one that needs escaping, gives what key-then-value gives.
  const std::string longKey(70, 'k');
  for (const std::string& keyText : {std::string("n"), longKey, std::string("q\"\n")}) {
    const std::string k = ReferenceQuoted(keyText) + ":";
    const JsonKey key(keyText);
    CHECK(JsonObject()
              .Int(key, std::numeric_limits<std::int64_t>::min())
              .Str(key, "a\tb")
              .Str(key, std::string(40, 'x'))
              .Bool(key, false)
              .Null(key)
              .Time(key, -1)
              .Raw(key, std::string(40, '1'))
              .Done() == "{" + k + "-9223372036854775808," + k + "\"a\\tb\"," + k + "\"" + std::string(40, 'x') +
                             "\"," + k + "false," + k + "null," + k + "\"1969-12-31T23:59:59.999Z\"," + k +
                             std::string(40, '1') + "}");
  }
  std::string map;
  AppendJsonStringMap(map, {{"b", "2"}, {"a", "1"}});
  CHECK(map == "{\"a\":\"1\",\"b\":\"2\"}");
}
