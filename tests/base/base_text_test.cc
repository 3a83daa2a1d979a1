// The base layer: UTF-8, JSON text and the JSON writer every surface uses.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>

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
                               .Str("k\"ey", "v")
                               .Done();
  CHECK(json ==
        "{\"s\":\"a\\\"b\",\"o\":null,\"p\":\"x\",\"i\":-5,\"n\":null,\"b\":true,\"nb\":null,\"d\":2.5,"
        "\"t\":\"1970-01-01T00:00:00.000Z\",\"nt\":null,\"a\":[\"x\",\"y\\n\"],\"r\":{\"k\":1},\"e\":[],"
        "\"k\\\"ey\":\"v\"}");
  CHECK(JsonObject().Done() == "{}");
  std::string map;
  AppendJsonStringMap(map, {{"b", "2"}, {"a", "1"}});
  CHECK(map == "{\"a\":\"1\",\"b\":\"2\"}");
}
