#include "core/cursor.h"

#include <charconv>
#include <cmath>

namespace livechat::internal {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int Index(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

std::optional<std::int64_t> ParseInt(std::string_view s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

std::string Base64UrlEncode(std::string_view in) {
  // Sized once (no padding: 4 characters per 3 bytes, 2 or 3 for the rest).
  std::string out((in.size() / 3) * 4 + (in.size() % 3 == 0 ? 0 : in.size() % 3 + 1), '\0');
  char* p = out.data();
  std::size_t i = 0;
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(in[k]); };
  for (; i + 2 < in.size(); i += 3) {
    unsigned v = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    *p++ = kAlphabet[(v >> 18) & 63];
    *p++ = kAlphabet[(v >> 12) & 63];
    *p++ = kAlphabet[(v >> 6) & 63];
    *p++ = kAlphabet[v & 63];
  }
  if (in.size() - i == 1) {
    unsigned v = byte(i) << 16;
    *p++ = kAlphabet[(v >> 18) & 63];
    *p++ = kAlphabet[(v >> 12) & 63];
  } else if (in.size() - i == 2) {
    unsigned v = (byte(i) << 16) | (byte(i + 1) << 8);
    *p++ = kAlphabet[(v >> 18) & 63];
    *p++ = kAlphabet[(v >> 12) & 63];
    *p++ = kAlphabet[(v >> 6) & 63];
  }
  return out;
}

std::optional<std::string> Base64UrlDecode(std::string_view in) {
  if (in.size() % 4 == 1 || in.size() > 256) return std::nullopt;
  std::string out;
  unsigned acc = 0;
  int bits = 0;
  for (char c : in) {
    int v = Index(c);
    if (v < 0) return std::nullopt;
    acc = (acc << 6) | static_cast<unsigned>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

std::string EncodeConversationCursor(const ConversationKey& key) {
  return Base64UrlEncode("c1:" + std::to_string(key.lastActive) + ":" + std::to_string(key.pgConvoId));
}

std::optional<ConversationKey> DecodeConversationCursor(std::string_view cursor) {
  auto raw = Base64UrlDecode(cursor);
  if (!raw || raw->rfind("c1:", 0) != 0) return std::nullopt;
  std::string_view rest = std::string_view(*raw).substr(3);
  auto colon = rest.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  auto last = ParseInt(rest.substr(0, colon));
  auto id = ParseInt(rest.substr(colon + 1));
  if (!last || !id) return std::nullopt;
  return ConversationKey{*last, *id};
}

// The score as the shortest text that reads back as the same double, so
// the next page starts exactly after the last row of this one.
std::string EncodeRelevanceCursor(const RelevanceKey& key) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, key.relevance);
  (void)ec;
  return Base64UrlEncode("r1:" + std::string(buf, end) + ":" + std::to_string(key.pgConvoId));
}

std::optional<RelevanceKey> DecodeRelevanceCursor(std::string_view cursor) {
  auto raw = Base64UrlDecode(cursor);
  if (!raw || raw->rfind("r1:", 0) != 0) return std::nullopt;
  std::string_view rest = std::string_view(*raw).substr(3);
  auto colon = rest.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  double score = 0;
  auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + colon, score);
  if (ec != std::errc() || ptr != rest.data() + colon || !std::isfinite(score)) return std::nullopt;
  auto id = ParseInt(rest.substr(colon + 1));
  if (!id) return std::nullopt;
  return RelevanceKey{score, *id};
}

std::string EncodeCustomerCursor(const CustomerKey& key) {
  return Base64UrlEncode("u1:" + std::to_string(key.createdAt) + ":" + key.id);
}

std::optional<CustomerKey> DecodeCustomerCursor(std::string_view cursor) {
  auto raw = Base64UrlDecode(cursor);
  if (!raw || raw->rfind("u1:", 0) != 0) return std::nullopt;
  std::string_view rest = std::string_view(*raw).substr(3);
  auto colon = rest.find(':');
  if (colon == std::string_view::npos || colon + 1 >= rest.size()) return std::nullopt;
  auto created = ParseInt(rest.substr(0, colon));
  if (!created) return std::nullopt;
  return CustomerKey{*created, std::string(rest.substr(colon + 1))};
}

std::string EncodeMessageCursor(std::int64_t seq) { return Base64UrlEncode("m1:" + std::to_string(seq)); }

std::optional<std::int64_t> DecodeMessageCursor(std::string_view cursor) {
  auto raw = Base64UrlDecode(cursor);
  if (!raw || raw->rfind("m1:", 0) != 0) return std::nullopt;
  return ParseInt(std::string_view(*raw).substr(3));
}

std::string EncodeEventCursor(std::int64_t seq) { return Base64UrlEncode("e1:" + std::to_string(seq)); }

std::optional<std::int64_t> DecodeEventCursor(std::string_view cursor) {
  auto raw = Base64UrlDecode(cursor);
  if (!raw || raw->rfind("e1:", 0) != 0) return std::nullopt;
  return ParseInt(std::string_view(*raw).substr(3));
}

}  // namespace livechat::internal
