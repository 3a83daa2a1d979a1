// The codec of the list- and map-valued columns (channels, tags,
// customAttributes): every read of a conversation decodes two of them.
#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "storage/common/json_columns.h"

using livechat::storage::DecodeStringArray;
using livechat::storage::DecodeStringMap;
using livechat::storage::EncodeStringArray;
using livechat::storage::EncodeStringMap;

TEST_CASE("json columns: arrays and maps read back as written, escapes and all") {
  const std::vector<std::string> values = {"",         "livechat", "a\"b",   "back\\slash", "line\nbreak",
                                           "tab\there", "\x01",     "caf\xC3\xA9", std::string(300, 'x') + "\"end"};
  const std::string text = EncodeStringArray(values);
  auto back = DecodeStringArray(text);
  REQUIRE(back.ok());
  CHECK(*back == values);
  const std::map<std::string, std::string> m = {{"k\"1", "v\\1"}, {"plan", "pro"}, {"", ""}};
  auto mb = DecodeStringMap(EncodeStringMap(m));
  REQUIRE(mb.ok());
  CHECK(*mb == m);
}

TEST_CASE("json columns: standard JSON from elsewhere (spaces, \\u escapes, surrogate pairs) decodes") {
  auto v = DecodeStringArray(" [ \"a\\u00e9b\" , \"\\ud83d\\ude00\", \"\\/x\\b\\f\\r\\t\" ] ");
  REQUIRE(v.ok());
  CHECK(*v == std::vector<std::string>{"a\xC3\xA9" "b", "\xF0\x9F\x98\x80", "/x\b\f\r\t"});
  auto empty = DecodeStringArray("[]");
  REQUIRE(empty.ok());
  CHECK(empty->empty());
}

TEST_CASE("json columns: text that is not an array of strings is refused, not half read") {
  for (const char* bad : {"", "[", "[\"a\"", "[\"a\",]", "[\"unterminated]", "[\"a\\\"]", "[1]", "[\"a\"]x",
                          "[\"\\ud83d\"]", "[\"\\u12g4\"]", "[\"\\q\"]", "{\"a\":\"b\"}"}) {
    auto r = DecodeStringArray(bad);
    CHECK_MESSAGE(!r.ok(), bad);
    if (!r.ok()) CHECK(r.error().message.rfind("sqlite: stored string array is not valid: ", 0) == 0);
  }
  CHECK_FALSE(DecodeStringMap("{\"a\":1}").ok());
  CHECK_FALSE(DecodeStringMap("{\"a\"}").ok());
}
