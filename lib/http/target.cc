#include <algorithm>

#include "livechat/http.h"

namespace livechat {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

// A decoded component must be text the rest of the service can store and echo
// back as JSON: well-formed UTF-8 without NUL.
// ParseTarget has refused raw controls and NUL before it gets here.
std::optional<std::string> DecodeComponent(std::string_view raw, bool plusAsSpace) {
  // Most components (a path segment, an id, limit=20) are plain ASCII with
  // nothing to decode: taken as they are, with one test per byte.
  bool plain = true;
  for (char ch : raw) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '%' || c >= 0x80 || (c == '+' && plusAsSpace)) {
      plain = false;
      break;
    }
  }
  if (plain) return std::string(raw);
  auto decoded = PercentDecode(raw, plusAsSpace);
  if (!decoded || !IsValidUtf8(*decoded) || decoded->find('\0') != std::string::npos) return std::nullopt;
  return decoded;
}

}  // namespace

std::optional<std::string> PercentDecode(std::string_view in, bool plusAsSpace) {
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return std::nullopt;
      int hi = HexValue(in[i + 1]);
      int lo = HexValue(in[i + 2]);
      if (hi < 0 || lo < 0) return std::nullopt;
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else if (c == '+' && plusAsSpace) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

std::string PercentEncode(std::string_view in) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(in.size());
  for (char ch : in) {
    auto c = static_cast<unsigned char>(ch);
    if (IsUnreserved(c)) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::optional<ParsedTarget> ParseTarget(std::string_view target) {
  if (target.empty() || target.front() != '/') return std::nullopt;
  for (char ch : target) {
    auto c = static_cast<unsigned char>(ch);
    // Raw spaces and controls never appear in a well-formed target. Raw
    // non-ASCII bytes are tolerated (some clients skip encoding UTF-8) and
    // checked as UTF-8 once decoded.
    if (c <= 0x20 || c == 0x7f) return std::nullopt;
  }
  // A fragment is never sent by a client; tolerate one by ignoring it.
  target = target.substr(0, target.find('#'));

  ParsedTarget out;
  std::size_t qpos = target.find('?');
  std::string_view path = target.substr(0, qpos);
  std::string_view query = qpos == std::string_view::npos ? std::string_view() : target.substr(qpos + 1);
  out.path = std::string(path);
  // One slot per '/', at most one segment each: the vector grows once.
  out.segments.reserve(static_cast<std::size_t>(std::count(path.begin(), path.end(), '/')));

  std::size_t start = 1;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view raw = path.substr(start, end - start);
    // Empty segments ("//", a trailing "/") carry nothing to route on.
    if (!raw.empty()) {
      auto seg = DecodeComponent(raw, false);
      if (!seg) return std::nullopt;
      out.segments.push_back(std::move(*seg));
    }
    start = end + 1;
  }

  std::size_t pos = 0;
  while (pos < query.size()) {
    std::size_t amp = query.find('&', pos);
    if (amp == std::string_view::npos) amp = query.size();
    std::string_view part = query.substr(pos, amp - pos);
    if (!part.empty()) {
      std::size_t eq = part.find('=');
      auto key = DecodeComponent(part.substr(0, eq), true);
      auto value = eq == std::string_view::npos ? std::optional<std::string>(std::string())
                                                : DecodeComponent(part.substr(eq + 1), true);
      if (!key || !value) return std::nullopt;
      out.query.emplace_back(std::move(*key), std::move(*value));
    }
    pos = amp + 1;
  }
  return out;
}

}  // namespace livechat
