#include "storage/common/json_columns.h"

#include <cstdint>
#include <optional>

#include "livechat/base/json_writer.h"
#include "livechat/base/utf8.h"

namespace livechat::storage {
namespace {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) ++pos_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ == s_.size();
  }

  std::optional<std::string> String() {
    if (!Consume('"')) return std::nullopt;
    std::string out;
    while (pos_ < s_.size()) {
      // The bytes up to the next quote or backslash in one append: most
      // stored strings (tags, channels) are one such run.
      std::size_t end = pos_;
      while (end < s_.size() && s_[end] != '"' && s_[end] != '\\') ++end;
      out.append(s_.data() + pos_, end - pos_);
      pos_ = end;
      if (pos_ >= s_.size()) break;
      char c = s_[pos_++];
      if (c == '"') return out;
      if (pos_ >= s_.size()) return std::nullopt;
      char e = s_[pos_++];
      switch (e) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          auto cp = Hex4();
          if (!cp) return std::nullopt;
          std::uint32_t code = *cp;
          if (code >= 0xD800 && code < 0xDC00) {
            if (pos_ + 1 >= s_.size() || s_[pos_] != '\\' || s_[pos_ + 1] != 'u') return std::nullopt;
            pos_ += 2;
            auto low = Hex4();
            if (!low || *low < 0xDC00 || *low > 0xDFFF) return std::nullopt;
            code = 0x10000 + ((code - 0xD800) << 10) + (*low - 0xDC00);
          }
          AppendUtf8(out, code);
          break;
        }
        default:
          return std::nullopt;
      }
    }
    return std::nullopt;
  }

 private:
  std::optional<std::uint32_t> Hex4() {
    if (pos_ + 4 > s_.size()) return std::nullopt;
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s_[pos_++];
      v <<= 4;
      if (c >= '0' && c <= '9')
        v |= static_cast<std::uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f')
        v |= static_cast<std::uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        v |= static_cast<std::uint32_t>(c - 'A' + 10);
      else
        return std::nullopt;
    }
    return v;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

Error Corrupt(std::string_view what, std::string_view json) {
  std::string msg = "sqlite: stored ";
  msg += what;
  msg += " is not valid: ";
  msg += json.substr(0, 80);
  return Error{ErrorCode::kInternal, std::move(msg)};
}

}  // namespace

std::string EncodeStringArray(const std::vector<std::string>& values) {
  std::string out;
  AppendJsonStringArray(out, values);
  return out;
}

std::string EncodeStringMap(const std::map<std::string, std::string>& values) {
  std::string out;
  AppendJsonStringMap(out, values);
  return out;
}

Result<std::vector<std::string>> DecodeStringArray(std::string_view json) {
  Parser p(json);
  std::vector<std::string> out;
  if (!p.Consume('[')) return Corrupt("string array", json);
  if (!p.Consume(']')) {
    do {
      auto s = p.String();
      if (!s) return Corrupt("string array", json);
      out.push_back(std::move(*s));
    } while (p.Consume(','));
    if (!p.Consume(']')) return Corrupt("string array", json);
  }
  if (!p.AtEnd()) return Corrupt("string array", json);
  return out;
}

Result<std::map<std::string, std::string>> DecodeStringMap(std::string_view json) {
  Parser p(json);
  std::map<std::string, std::string> out;
  if (!p.Consume('{')) return Corrupt("string map", json);
  if (!p.Consume('}')) {
    do {
      auto k = p.String();
      if (!k || !p.Consume(':')) return Corrupt("string map", json);
      auto v = p.String();
      if (!v) return Corrupt("string map", json);
      out[std::move(*k)] = std::move(*v);
    } while (p.Consume(','));
    if (!p.Consume('}')) return Corrupt("string map", json);
  }
  if (!p.AtEnd()) return Corrupt("string map", json);
  return out;
}

}  // namespace livechat::storage
