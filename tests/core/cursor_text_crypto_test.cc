#include <doctest/doctest.h>

#include "livechat/crypto.h"
#include "core/cursor.h"
#include "livechat/base/ascii.h"
#include "livechat/base/utf8.h"
#include "livechat/clock.h"
#include "livechat/random.h"

#include <cctype>
#include <cstdint>
#include <string>

namespace livechat::internal {

TEST_CASE("base64url round-trips every length and rejects foreign characters") {
  for (std::string s : {"", "a", "ab", "abc", "abcd", "\xff\x00\x10"}) {
    auto enc = Base64UrlEncode(s);
    CHECK(enc.find('=') == std::string::npos);
    auto dec = Base64UrlDecode(enc);
    REQUIRE(dec.has_value());
    CHECK(*dec == s);
  }
  CHECK(Base64UrlEncode("abc") == "YWJj");
  CHECK(Base64UrlEncode("") == "");
  CHECK(Base64UrlEncode("a") == "YQ");
  CHECK(Base64UrlEncode("ab") == "YWI");
  CHECK(Base64UrlEncode("abcd") == "YWJjZA");
  CHECK(Base64UrlEncode("abcde") == "YWJjZGU");
  CHECK_FALSE(Base64UrlDecode("YW+j").has_value());
  CHECK_FALSE(Base64UrlDecode("Y").has_value());
}

TEST_CASE("conversation and message cursors: round trip, and garbage is refused") {
  auto c = EncodeConversationCursor({1767225600123, 42});
  auto k = DecodeConversationCursor(c);
  REQUIRE(k.has_value());
  CHECK(k->lastActive == 1767225600123);
  CHECK(k->pgConvoId == 42);
  CHECK_FALSE(DecodeConversationCursor("not-a-cursor!").has_value());
  CHECK_FALSE(DecodeConversationCursor(Base64UrlEncode("c1:12")).has_value());
  CHECK_FALSE(DecodeConversationCursor(Base64UrlEncode("c1:x:1")).has_value());
  CHECK_FALSE(DecodeConversationCursor(EncodeMessageCursor(5)).has_value());  // a message cursor is not a conversation cursor
  auto m = DecodeMessageCursor(EncodeMessageCursor(987654321));
  REQUIRE(m.has_value());
  CHECK(*m == 987654321);
  CHECK_FALSE(DecodeMessageCursor("").has_value());
}

TEST_CASE("UTF-8 validation and code point counting") {
  CHECK(IsValidUtf8("plain"));
  CHECK(IsValidUtf8("caf\xc3\xa9 \xf0\x9f\x98\x80"));
  CHECK_FALSE(IsValidUtf8("\xc3"));              // truncated
  CHECK_FALSE(IsValidUtf8("\xc0\xaf"));          // overlong
  CHECK_FALSE(IsValidUtf8("\xed\xa0\x80"));      // surrogate
  CHECK_FALSE(IsValidUtf8("\xf4\x90\x80\x80"));  // above U+10FFFF
  CHECK(Utf8Length("caf\xc3\xa9") == 4);
  CHECK(Utf8Length("\xf0\x9f\x98\x80") == 1);
  CHECK(Trim("  a b \n") == "a b");
}

TEST_CASE("keys: hashes, constant-time comparison, format") {
  CHECK(Sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(ConstantTimeEquals("abc", "abc"));
  CHECK_FALSE(ConstantTimeEquals("abc", "abd"));
  CHECK_FALSE(ConstantTimeEquals("abc", "abcd"));
  CHECK(LooksLikeApiKey("sk_0123456789abcdef0123456789abcdef"));
  CHECK_FALSE(LooksLikeApiKey("sk_0123456789abcdef0123456789abcde"));    // 31 hex
  CHECK_FALSE(LooksLikeApiKey("sk_0123456789abcdef0123456789abcdef0"));  // 33 hex
  CHECK_FALSE(LooksLikeApiKey("pk_0123456789abcdef0123456789abcdef"));
  CHECK_FALSE(LooksLikeApiKey("sk_0123456789abcdef0123456789abcdeg"));
  auto h = HashPassword("correct horse");
  CHECK(VerifyPassword(h, "correct horse"));
  CHECK_FALSE(VerifyPassword(h, "wrong horse"));
  CHECK_FALSE(VerifyPassword("", "anything"));
}

TEST_CASE("ISO 8601 formatting is UTC with milliseconds") {
  CHECK(FormatIso8601(0) == "1970-01-01T00:00:00.000Z");
  CHECK(FormatIso8601(1767225600123) == "2026-01-01T00:00:00.123Z");
}

}  // namespace livechat::internal

TEST_CASE("UUIDs: version 4 random, version 7 led by its time in milliseconds") {
  auto random = livechat::NewSeededRandom(7);
  const std::string v4 = random->Uuid();
  REQUIRE(v4.size() == 36);
  CHECK(v4[8] == '-');
  CHECK(v4[13] == '-');
  CHECK(v4[14] == '4');
  CHECK(std::string("89ab").find(v4[19]) != std::string::npos);

  // 2026-11-27T22:30:00.123Z = 1,795,818,600,123 ms = 0x01a2_1f21_36bb.
  const std::int64_t ms = 1795818600123;
  const std::string v7 = random->TimeOrderedUuid(ms);
  REQUIRE(v7.size() == 36);
  CHECK(v7.substr(0, 13) == "01a21f21-36bb");
  CHECK(v7[14] == '7');
  CHECK(std::string("89ab").find(v7[19]) != std::string::npos);
  for (std::size_t i = 0; i < v7.size(); ++i)
    CHECK(((i == 8 || i == 13 || i == 18 || i == 23) ? v7[i] == '-' : std::isxdigit(static_cast<unsigned char>(v7[i])) && !std::isupper(static_cast<unsigned char>(v7[i]))));
  // Two ids of one millisecond differ (random tail); a later millisecond sorts after.
  CHECK(random->TimeOrderedUuid(ms) != v7);
  CHECK(random->TimeOrderedUuid(ms + 1) > random->TimeOrderedUuid(ms));
  CHECK(random->TimeOrderedUuid(ms + 1000) > v7);
  // Out of the 48-bit range: clamped, never wrapped.
  CHECK(random->TimeOrderedUuid(-5).substr(0, 13) == "00000000-0000");
  CHECK(random->TimeOrderedUuid(std::int64_t{1} << 50).substr(0, 13) == "ffffffff-ffff");
}
