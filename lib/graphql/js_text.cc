#include "graphql/js_text.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "livechat/base/json_text.h"

namespace livechat::graphql::internal {

std::size_t Utf16Length(std::string_view s) {
  std::size_t units = 0;
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t cp = 0;
    std::size_t n = DecodeUtf8(s, i, cp);
    if (n == 0) {
      ++units;
      ++i;
      continue;
    }
    units += cp >= 0x10000 ? 2 : 1;
    i += n;
  }
  return units;
}

void AppendJsonQuoted(std::string& out, std::string_view s) {
  // A response must be valid UTF-8 even when a message quotes ill-formed
  // input or a resolver returns it: each bad byte becomes U+FFFD.
  // ASCII is valid UTF-8: most strings are checked a byte at a time,
  // without decoding.
  std::size_t ascii = 0;
  while (ascii < s.size() && static_cast<unsigned char>(s[ascii]) < 0x80) ++ascii;
  bool valid = true;
  for (std::size_t i = ascii; i < s.size() && valid;) {
    std::uint32_t cp = 0;
    const std::size_t n = DecodeUtf8(s, i, cp);
    valid = n != 0;
    i += n;
  }
  if (valid) {
    AppendJsonString(out, s);
    return;
  }
  std::string repaired;
  repaired.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t cp = 0;
    const std::size_t n = DecodeUtf8(s, i, cp);
    if (n == 0) {
      repaired += "\xEF\xBF\xBD";
      ++i;
    } else {
      repaired.append(s.substr(i, n));
      i += n;
    }
  }
  AppendJsonString(out, repaired);
}

std::string PrintString(std::string_view s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t cp = 0;
    std::size_t n = DecodeUtf8(s, i, cp);
    if (n == 0) {
      out.push_back(s[i++]);
      continue;
    }
    switch (cp) {
      case 0x08: out += "\\b"; break;
      case 0x09: out += "\\t"; break;
      case 0x0A: out += "\\n"; break;
      case 0x0C: out += "\\f"; break;
      case 0x0D: out += "\\r"; break;
      case 0x22: out += "\\\""; break;
      case 0x5C: out += "\\\\"; break;
      default:
        if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) {
          out += "\\u00";
          out.push_back(kHex[cp >> 4]);
          out.push_back(kHex[cp & 15]);
        } else {
          out.append(s.substr(i, n));
        }
    }
    i += n;
  }
  out.push_back('"');
  return out;
}

namespace {

bool IsWhiteSpace(char c) { return c == ' ' || c == '\t'; }

std::vector<std::string_view> SplitLines(std::string_view s) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\r' || s[i] == '\n') {
      lines.push_back(s.substr(start, i - start));
      if (s[i] == '\r' && i + 1 < s.size() && s[i + 1] == '\n') ++i;
      start = i + 1;
    }
  }
  lines.push_back(s.substr(start));
  return lines;
}

}  // namespace

std::string PrintBlockString(std::string_view value) {
  std::string escaped;
  for (std::size_t i = 0; i < value.size();) {
    if (value.compare(i, 3, "\"\"\"") == 0) {
      escaped += "\\\"\"\"";
      i += 3;
    } else {
      escaped.push_back(value[i++]);
    }
  }
  const std::vector<std::string_view> lines = SplitLines(escaped);
  const bool isSingleLine = lines.size() == 1;
  bool forceLeadingNewLine = lines.size() > 1;
  for (std::size_t i = 1; i < lines.size() && forceLeadingNewLine; ++i) {
    if (!lines[i].empty() && !IsWhiteSpace(lines[i][0])) forceLeadingNewLine = false;
  }
  auto endsWith = [](std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
  };
  const bool hasTrailingTripleQuotes = endsWith(escaped, "\\\"\"\"");
  const bool hasTrailingQuote = endsWith(value, "\"") && !hasTrailingTripleQuotes;
  const bool hasTrailingSlash = endsWith(value, "\\");
  const bool forceTrailingNewline = hasTrailingQuote || hasTrailingSlash;
  const bool printAsMultipleLines = !isSingleLine || Utf16Length(value) > 70 || forceTrailingNewline ||
                                    forceLeadingNewLine || hasTrailingTripleQuotes;
  const bool skipLeadingNewLine = isSingleLine && !value.empty() && IsWhiteSpace(value[0]);
  std::string result;
  if ((printAsMultipleLines && !skipLeadingNewLine) || forceLeadingNewLine) result += '\n';
  result += escaped;
  if (printAsMultipleLines || forceTrailingNewline) result += '\n';
  return "\"\"\"" + result + "\"\"\"";
}

bool IsPrintableAsBlockString(std::string_view value) {
  if (value.empty()) return true;
  bool isEmptyLine = true;
  bool hasIndent = false;
  bool hasCommonIndent = true;
  bool seenNonEmptyLine = false;
  for (char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    switch (c) {
      case 0x00: case 0x01: case 0x02: case 0x03: case 0x04: case 0x05: case 0x06: case 0x07:
      case 0x08: case 0x0B: case 0x0C: case 0x0E: case 0x0F: case 0x0D:
        return false;
      case 0x0A:
        if (isEmptyLine && !seenNonEmptyLine) return false;  // leading new line
        seenNonEmptyLine = true;
        isEmptyLine = true;
        hasIndent = false;
        break;
      case 0x09:
      case 0x20:
        hasIndent = hasIndent || isEmptyLine;
        break;
      default:
        hasCommonIndent = hasCommonIndent && hasIndent;
        isEmptyLine = false;
    }
  }
  if (isEmptyLine) return false;  // trailing empty lines
  if (hasCommonIndent && seenNonEmptyLine) return false;  // internal indent
  return true;
}

std::vector<std::string> DedentBlockStringLines(const std::vector<std::string>& lines) {
  std::size_t commonIndent = std::numeric_limits<std::size_t>::max();
  std::optional<std::size_t> firstNonEmptyLine;
  std::ptrdiff_t lastNonEmptyLine = -1;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    std::size_t indent = 0;
    while (indent < line.size() && IsWhiteSpace(line[indent])) ++indent;
    if (indent == line.size()) continue;  // blank line
    if (!firstNonEmptyLine) firstNonEmptyLine = i;
    lastNonEmptyLine = static_cast<std::ptrdiff_t>(i);
    if (i != 0 && indent < commonIndent) commonIndent = indent;
  }
  std::vector<std::string> out;
  const std::size_t first = firstNonEmptyLine.value_or(0);
  for (std::size_t i = first; static_cast<std::ptrdiff_t>(i) < lastNonEmptyLine + 1; ++i) {
    if (i == 0) {
      out.push_back(lines[i]);
    } else {
      out.push_back(commonIndent >= lines[i].size() ? std::string() : lines[i].substr(commonIndent));
    }
  }
  return out;
}

namespace {

bool IsJsWhiteSpace(std::string_view s, std::size_t pos, std::size_t& len) {
  std::uint32_t cp = 0;
  len = DecodeUtf8(s, pos, cp);
  if (len == 0) return false;
  switch (cp) {
    case 0x09: case 0x0A: case 0x0B: case 0x0C: case 0x0D: case 0x20: case 0xA0: case 0x1680:
    case 0x2028: case 0x2029: case 0x202F: case 0x205F: case 0x3000: case 0xFEFF:
      return true;
    default:
      return cp >= 0x2000 && cp <= 0x200A;
  }
}

bool IsDigitIn(char c, int radix) {
  int d;
  if (c >= '0' && c <= '9') {
    d = c - '0';
  } else if (c >= 'a' && c <= 'z') {
    d = c - 'a' + 10;
  } else if (c >= 'A' && c <= 'Z') {
    d = c - 'A' + 10;
  } else {
    return false;
  }
  return d < radix;
}

}  // namespace

std::optional<double> JsStringToNumber(std::string_view s) {
  std::size_t begin = 0;
  std::size_t end = s.size();
  std::size_t len = 0;
  while (begin < end && IsJsWhiteSpace(s, begin, len)) begin += len;
  // Trailing whitespace: scan forward, remembering where the last
  // non-whitespace character ended.
  std::size_t lastEnd = begin;
  for (std::size_t i = begin; i < end;) {
    if (IsJsWhiteSpace(s, i, len)) {
      i += len;
    } else {
      std::uint32_t cp = 0;
      std::size_t n = DecodeUtf8(s, i, cp);
      i += n == 0 ? 1 : n;
      lastEnd = i;
    }
  }
  end = lastEnd;
  std::string_view t = s.substr(begin, end - begin);
  if (t.empty()) return 0.0;
  if (t.size() > 2 && t[0] == '0') {
    int radix = 0;
    if (t[1] == 'x' || t[1] == 'X') radix = 16;
    if (t[1] == 'o' || t[1] == 'O') radix = 8;
    if (t[1] == 'b' || t[1] == 'B') radix = 2;
    if (radix != 0) {
      double v = 0;
      for (std::size_t i = 2; i < t.size(); ++i) {
        if (!IsDigitIn(t[i], radix)) return std::nullopt;
        char c = t[i];
        int d = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
        v = v * radix + d;
      }
      return v;
    }
  }
  std::size_t i = 0;
  bool negative = false;
  if (t[i] == '+' || t[i] == '-') {
    negative = t[i] == '-';
    ++i;
  }
  if (t.substr(i) == "Infinity") {
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  }
  // StrUnsignedDecimalLiteral: digits [. digits] [e[+-]digits], or . digits ...
  std::size_t digits = 0;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i, ++digits;
  if (i < t.size() && t[i] == '.') {
    ++i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i, ++digits;
  }
  if (digits == 0) return std::nullopt;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    std::size_t expDigits = 0;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i, ++expDigits;
    if (expDigits == 0) return std::nullopt;
  }
  if (i != t.size()) return std::nullopt;
  return std::strtod(std::string(t).c_str(), nullptr);
}

double JsParseNumber(std::string_view literal) { return std::strtod(std::string(literal).c_str(), nullptr); }

namespace {

// graphql-js LexicalDistance: Damerau-Levenshtein on lower-cased UTF-16
// units with an early exit above the threshold.
class LexicalDistance {
 public:
  explicit LexicalDistance(std::string_view input) : input_(input), inputLower_(ToLowerUnits(input)) {}

  std::optional<std::size_t> Measure(std::string_view option, std::size_t threshold) const {
    if (input_ == option) return 0;
    std::vector<std::uint16_t> optionLower = ToLowerUnits(option);
    if (optionLower == inputLower_) return 1;
    const std::vector<std::uint16_t>* a = &optionLower;
    const std::vector<std::uint16_t>* b = &inputLower_;
    if (a->size() < b->size()) std::swap(a, b);
    const std::size_t aLength = a->size();
    const std::size_t bLength = b->size();
    if (aLength - bLength > threshold) return std::nullopt;
    std::vector<std::size_t> rows[3];
    for (auto& row : rows) row.assign(bLength + 1, 0);
    for (std::size_t j = 0; j <= bLength; ++j) rows[0][j] = j;
    for (std::size_t i = 1; i <= aLength; ++i) {
      std::vector<std::size_t>& upRow = rows[(i - 1) % 3];
      std::vector<std::size_t>& currentRow = rows[i % 3];
      std::size_t smallestCell = currentRow[0] = i;
      for (std::size_t j = 1; j <= bLength; ++j) {
        const std::size_t cost = (*a)[i - 1] == (*b)[j - 1] ? 0 : 1;
        std::size_t currentCell = std::min({upRow[j] + 1, currentRow[j - 1] + 1, upRow[j - 1] + cost});
        if (i > 1 && j > 1 && (*a)[i - 1] == (*b)[j - 2] && (*a)[i - 2] == (*b)[j - 1]) {
          currentCell = std::min(currentCell, rows[(i - 2) % 3][j - 2] + 1);
        }
        if (currentCell < smallestCell) smallestCell = currentCell;
        currentRow[j] = currentCell;
      }
      if (smallestCell > threshold) return std::nullopt;
    }
    const std::size_t distance = rows[aLength % 3][bLength];
    if (distance <= threshold) return distance;
    return std::nullopt;
  }

 private:
  static std::vector<std::uint16_t> ToLowerUnits(std::string_view s) {
    std::vector<std::uint16_t> units;
    for (std::size_t i = 0; i < s.size();) {
      std::uint32_t cp = 0;
      std::size_t n = DecodeUtf8(s, i, cp);
      if (n == 0) {
        units.push_back(static_cast<unsigned char>(s[i++]));
        continue;
      }
      i += n;
      if (cp >= 'A' && cp <= 'Z') cp += 32;
      if (cp >= 0x10000) {
        cp -= 0x10000;
        units.push_back(static_cast<std::uint16_t>(0xD800 + (cp >> 10)));
        units.push_back(static_cast<std::uint16_t>(0xDC00 + (cp & 0x3FF)));
      } else {
        units.push_back(static_cast<std::uint16_t>(cp));
      }
    }
    return units;
  }

  std::string_view input_;
  std::vector<std::uint16_t> inputLower_;
};

}  // namespace

std::vector<std::string> SuggestionList(std::string_view input, const std::vector<std::string>& options) {
  LexicalDistance distance(input);
  const std::size_t threshold = Utf16Length(input) * 4 / 10 + 1;  // floor(length * 0.4) + 1
  // Keyed like a JavaScript object: a repeated option keeps its first slot.
  std::vector<std::pair<std::string, std::size_t>> found;
  for (const std::string& option : options) {
    std::optional<std::size_t> d = distance.Measure(option, threshold);
    if (!d) continue;
    auto it = std::find_if(found.begin(), found.end(), [&](const auto& p) { return p.first == option; });
    if (it == found.end()) {
      found.emplace_back(option, *d);
    } else {
      it->second = *d;
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second < b.second;
    return NaturalCompare(a.first, b.first) < 0;
  });
  std::vector<std::string> out;
  out.reserve(found.size());
  for (auto& [name, d] : found) out.push_back(std::move(name));
  return out;
}

std::string DidYouMean(const std::vector<std::string>& suggestions, std::string_view subMessage) {
  if (suggestions.empty()) return "";
  std::string message = " Did you mean ";
  if (!subMessage.empty()) {
    message += subMessage;
    message += ' ';
  }
  auto quoted = [](const std::string& s) { return "\"" + s + "\""; };
  if (suggestions.size() == 1) return message + quoted(suggestions[0]) + "?";
  if (suggestions.size() == 2) return message + quoted(suggestions[0]) + " or " + quoted(suggestions[1]) + "?";
  const std::size_t n = std::min<std::size_t>(suggestions.size(), 5);
  for (std::size_t i = 0; i + 1 < n; ++i) {
    if (i > 0) message += ", ";
    message += quoted(suggestions[i]);
  }
  return message + ", or " + quoted(suggestions[n - 1]) + "?";
}

int NaturalCompare(std::string_view a, std::string_view b) {
  auto isDigit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t ai = 0;
  std::size_t bi = 0;
  while (ai < a.size() && bi < b.size()) {
    char ac = a[ai];
    char bc = b[bi];
    if (isDigit(ac) && isDigit(bc)) {
      // As graphql-js: a leading zero ends the number ("0" then "1" for "01").
      double an = 0;
      do {
        ++ai;
        an = an * 10 + (ac - '0');
        ac = ai < a.size() ? a[ai] : '\0';
      } while (isDigit(ac) && an > 0);
      double bn = 0;
      do {
        ++bi;
        bn = bn * 10 + (bc - '0');
        bc = bi < b.size() ? b[bi] : '\0';
      } while (isDigit(bc) && bn > 0);
      if (an < bn) return -1;
      if (an > bn) return 1;
    } else {
      if (static_cast<unsigned char>(ac) < static_cast<unsigned char>(bc)) return -1;
      if (static_cast<unsigned char>(ac) > static_cast<unsigned char>(bc)) return 1;
      ++ai;
      ++bi;
    }
  }
  return static_cast<int>(a.size()) - static_cast<int>(b.size());
}

}  // namespace livechat::graphql::internal
