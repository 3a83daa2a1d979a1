#include "graphql/lexer.h"

#include <cstdio>

#include "graphql/js_text.h"

namespace livechat::graphql::internal {

namespace {

bool IsDigit(int c) { return c >= '0' && c <= '9'; }
bool IsLetter(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsNameStart(int c) { return IsLetter(c) || c == '_'; }
bool IsNameContinue(int c) { return IsLetter(c) || IsDigit(c) || c == '_'; }
bool IsUnicodeScalarValue(std::int64_t c) { return (c >= 0 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0x10FFFF); }
bool IsLeadingSurrogate(std::int64_t c) { return c >= 0xD800 && c <= 0xDBFF; }
bool IsTrailingSurrogate(std::int64_t c) { return c >= 0xDC00 && c <= 0xDFFF; }

int ReadHexDigit(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

bool IsPunctuator(TokenKind kind) {
  switch (kind) {
    case TokenKind::kBang: case TokenKind::kDollar: case TokenKind::kAmp: case TokenKind::kParenL:
    case TokenKind::kParenR: case TokenKind::kDot: case TokenKind::kSpread: case TokenKind::kColon:
    case TokenKind::kEquals: case TokenKind::kAt: case TokenKind::kBracketL: case TokenKind::kBracketR:
    case TokenKind::kBraceL: case TokenKind::kPipe: case TokenKind::kBraceR:
      return true;
    default:
      return false;
  }
}

bool HasValue(TokenKind kind) {
  switch (kind) {
    case TokenKind::kName: case TokenKind::kInt: case TokenKind::kFloat: case TokenKind::kString:
    case TokenKind::kBlockString: case TokenKind::kComment:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string_view TokenKindName(TokenKind kind) {
  switch (kind) {
    case TokenKind::kSof: return "<SOF>";
    case TokenKind::kEof: return "<EOF>";
    case TokenKind::kBang: return "!";
    case TokenKind::kDollar: return "$";
    case TokenKind::kAmp: return "&";
    case TokenKind::kParenL: return "(";
    case TokenKind::kParenR: return ")";
    case TokenKind::kDot: return ".";
    case TokenKind::kSpread: return "...";
    case TokenKind::kColon: return ":";
    case TokenKind::kEquals: return "=";
    case TokenKind::kAt: return "@";
    case TokenKind::kBracketL: return "[";
    case TokenKind::kBracketR: return "]";
    case TokenKind::kBraceL: return "{";
    case TokenKind::kPipe: return "|";
    case TokenKind::kBraceR: return "}";
    case TokenKind::kName: return "Name";
    case TokenKind::kInt: return "Int";
    case TokenKind::kFloat: return "Float";
    case TokenKind::kString: return "String";
    case TokenKind::kBlockString: return "BlockString";
    case TokenKind::kComment: return "Comment";
  }
  return "";
}

std::string TokenKindDesc(TokenKind kind) {
  std::string name(TokenKindName(kind));
  return IsPunctuator(kind) ? "\"" + name + "\"" : name;
}

std::string TokenDesc(const Token& token) {
  std::string out = TokenKindDesc(token.kind);
  if (HasValue(token.kind)) out += " \"" + token.value + "\"";
  return out;
}

Lexer::Lexer(std::string_view source) : source_(source) {}

Loc Lexer::LocationAt(std::size_t position) const {
  std::uint32_t line = 1;
  std::size_t lineStart = 0;
  for (std::size_t i = 0; i < source_.size() && i < position;) {
    if (source_[i] == '\r' || source_[i] == '\n') {
      const std::size_t len = (source_[i] == '\r' && i + 1 < source_.size() && source_[i + 1] == '\n') ? 2 : 1;
      ++line;
      lineStart = i + len;
      i += len;
    } else {
      ++i;
    }
  }
  std::uint32_t column = 1;
  if (lineStart <= position) {
    column += static_cast<std::uint32_t>(Utf16Length(source_.substr(lineStart, position - lineStart)));
  } else {
    column = 0;  // inside a "\r\n" pair, as graphql-js computes it
  }
  return Loc{line, column};
}

std::uint32_t Lexer::ColumnOf(std::size_t position) {
  if (colPos_ < lineStart_ || position < colPos_) {
    colPos_ = lineStart_;
    colValue_ = 1;
  }
  colValue_ += static_cast<std::uint32_t>(Utf16Length(source_.substr(colPos_, position - colPos_)));
  colPos_ = position;
  return colValue_;
}

void Lexer::MakeToken(TokenKind kind, std::size_t start, std::size_t end, std::string value, Token& out) {
  out.kind = kind;
  out.start = start;
  out.end = end;
  out.loc = Loc{line_, ColumnOf(start)};
  out.value = std::move(value);
}

bool Lexer::Fail(std::size_t position, std::string message) {
  error_ = SyntaxError{std::move(message), LocationAt(position)};
  return false;
}

std::string Lexer::PrintCodePointAt(std::size_t position) const {
  if (position >= source_.size()) return "<EOF>";
  std::uint32_t cp = 0;
  if (DecodeUtf8(source_, position, cp) == 0) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%02X (not UTF-8)", static_cast<unsigned char>(source_[position]));
    return buf;
  }
  if (cp >= 0x20 && cp <= 0x7E) {
    if (cp == '"') return "'\"'";
    return std::string("\"") + static_cast<char>(cp) + "\"";
  }
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  return buf;
}

std::string Lexer::SliceUnits(std::size_t position, std::size_t units) const {
  std::size_t end = position;
  std::size_t taken = 0;
  while (end < source_.size() && taken < units) {
    std::uint32_t cp = 0;
    std::size_t n = DecodeUtf8(source_, end, cp);
    if (n == 0) n = 1;
    taken += (n == 4) ? 2 : 1;
    end += n;
  }
  return std::string(source_.substr(position, end - position));
}

const Token* Lexer::Lookahead() {
  if (token_.kind == TokenKind::kEof) return &token_;
  if (next_) return &*next_;
  Token t;
  std::size_t from = token_.end;
  do {
    if (!ReadNextToken(from, t)) return nullptr;
    from = t.end;
  } while (t.kind == TokenKind::kComment);
  next_ = std::move(t);
  return &*next_;
}

bool Lexer::Advance() {
  const Token* next = Lookahead();
  if (next == nullptr) return false;
  lastToken_ = token_;
  if (next != &token_) token_ = std::move(*next_);
  next_.reset();
  return true;
}

bool Lexer::ReadRawToken(std::size_t from, Token& out) { return ReadNextToken(from, out); }

bool Lexer::ReadNextToken(std::size_t start, Token& out) {
  const std::size_t length = source_.size();
  std::size_t position = start;
  while (position < length) {
    const int code = CharAt(position);
    switch (code) {
      case '\t': case ' ': case ',':
        ++position;
        continue;
      case '\n':
        ++position;
        ++line_;
        lineStart_ = position;
        continue;
      case '\r':
        position += CharAt(position + 1) == '\n' ? 2 : 1;
        ++line_;
        lineStart_ = position;
        continue;
      case '#': return ReadComment(position, out);
      case '!': MakeToken(TokenKind::kBang, position, position + 1, {}, out); return true;
      case '$': MakeToken(TokenKind::kDollar, position, position + 1, {}, out); return true;
      case '&': MakeToken(TokenKind::kAmp, position, position + 1, {}, out); return true;
      case '(': MakeToken(TokenKind::kParenL, position, position + 1, {}, out); return true;
      case ')': MakeToken(TokenKind::kParenR, position, position + 1, {}, out); return true;
      case '.':
        if (CharAt(position + 1) == '.' && CharAt(position + 2) == '.') {
          MakeToken(TokenKind::kSpread, position, position + 3, {}, out);
          return true;
        }
        break;
      case ':': MakeToken(TokenKind::kColon, position, position + 1, {}, out); return true;
      case '=': MakeToken(TokenKind::kEquals, position, position + 1, {}, out); return true;
      case '@': MakeToken(TokenKind::kAt, position, position + 1, {}, out); return true;
      case '[': MakeToken(TokenKind::kBracketL, position, position + 1, {}, out); return true;
      case ']': MakeToken(TokenKind::kBracketR, position, position + 1, {}, out); return true;
      case '{': MakeToken(TokenKind::kBraceL, position, position + 1, {}, out); return true;
      case '|': MakeToken(TokenKind::kPipe, position, position + 1, {}, out); return true;
      case '}': MakeToken(TokenKind::kBraceR, position, position + 1, {}, out); return true;
      case '"':
        if (CharAt(position + 1) == '"' && CharAt(position + 2) == '"') return ReadBlockString(position, out);
        return ReadString(position, out);
      default:
        break;
    }
    if (IsDigit(code) || code == '-') return ReadNumber(position, out);
    if (IsNameStart(code)) {
      ReadName(position, out);
      return true;
    }
    if (code >= 0x80) {
      std::uint32_t cp = 0;
      const std::size_t n = DecodeUtf8(source_, position, cp);
      if (n != 0 && cp == 0xFEFF) {  // byte order mark: ignored like whitespace
        position += n;
        continue;
      }
      if (n == 0) return Fail(position, "Invalid character: " + PrintCodePointAt(position) + ".");
    }
    if (code == '\'') {
      return Fail(position, "Unexpected single quote character ('), did you mean to use a double quote (\")?");
    }
    return Fail(position, "Unexpected character: " + PrintCodePointAt(position) + ".");
  }
  MakeToken(TokenKind::kEof, length, length, {}, out);
  return true;
}

bool Lexer::ReadComment(std::size_t start, Token& out) {
  std::size_t position = start + 1;
  while (position < source_.size()) {
    const int code = CharAt(position);
    if (code == '\n' || code == '\r') break;
    if (code < 0x80) {
      ++position;
      continue;
    }
    std::uint32_t cp = 0;
    const std::size_t n = DecodeUtf8(source_, position, cp);
    if (n == 0) break;
    position += n;
  }
  MakeToken(TokenKind::kComment, start, position, std::string(source_.substr(start + 1, position - start - 1)), out);
  return true;
}

bool Lexer::ReadDigits(std::size_t start, std::size_t& end) {
  if (!IsDigit(CharAt(start))) {
    return Fail(start, "Invalid number, expected digit but got: " + PrintCodePointAt(start) + ".");
  }
  std::size_t position = start + 1;
  while (IsDigit(CharAt(position))) ++position;
  end = position;
  return true;
}

bool Lexer::ReadNumber(std::size_t start, Token& out) {
  std::size_t position = start;
  int code = CharAt(position);
  bool isFloat = false;
  if (code == '-') code = CharAt(++position);
  if (code == '0') {
    code = CharAt(++position);
    if (IsDigit(code)) {
      return Fail(position, "Invalid number, unexpected digit after 0: " + PrintCodePointAt(position) + ".");
    }
  } else {
    if (!ReadDigits(position, position)) return false;
    code = CharAt(position);
  }
  if (code == '.') {
    isFloat = true;
    ++position;
    if (!ReadDigits(position, position)) return false;
    code = CharAt(position);
  }
  if (code == 'E' || code == 'e') {
    isFloat = true;
    code = CharAt(++position);
    if (code == '+' || code == '-') code = CharAt(++position);
    if (!ReadDigits(position, position)) return false;
    code = CharAt(position);
  }
  if (code == '.' || IsNameStart(code)) {
    return Fail(position, "Invalid number, expected digit but got: " + PrintCodePointAt(position) + ".");
  }
  MakeToken(isFloat ? TokenKind::kFloat : TokenKind::kInt, start, position,
            std::string(source_.substr(start, position - start)), out);
  return true;
}

bool Lexer::ReadString(std::size_t start, Token& out) {
  std::size_t position = start + 1;
  std::size_t chunkStart = position;
  std::string value;
  while (position < source_.size()) {
    const int code = CharAt(position);
    if (code == '"') {
      value.append(source_.substr(chunkStart, position - chunkStart));
      MakeToken(TokenKind::kString, start, position + 1, std::move(value), out);
      return true;
    }
    if (code == '\\') {
      value.append(source_.substr(chunkStart, position - chunkStart));
      std::size_t size = 0;
      bool ok;
      if (CharAt(position + 1) == 'u') {
        ok = CharAt(position + 2) == '{' ? ReadEscapedUnicodeVariableWidth(position, value, size)
                                         : ReadEscapedUnicodeFixedWidth(position, value, size);
      } else {
        ok = ReadEscapedCharacter(position, value, size);
      }
      if (!ok) return false;
      position += size;
      chunkStart = position;
      continue;
    }
    if (code == '\n' || code == '\r') break;
    if (code < 0x80) {
      ++position;
      continue;
    }
    std::uint32_t cp = 0;
    const std::size_t n = DecodeUtf8(source_, position, cp);
    if (n == 0) return Fail(position, "Invalid character within String: " + PrintCodePointAt(position) + ".");
    position += n;
  }
  return Fail(position, "Unterminated string.");
}

bool Lexer::ReadEscapedUnicodeVariableWidth(std::size_t position, std::string& value, std::size_t& size) {
  std::int32_t point = 0;
  std::size_t n = 3;
  // Cannot be longer than 12 characters (\u{00000000}).
  while (n < 12) {
    const int code = CharAt(position + n++);
    if (code == '}') {
      if (n < 5 || !IsUnicodeScalarValue(point)) break;
      AppendUtf8(value, static_cast<std::uint32_t>(point));
      size = n;
      return true;
    }
    // JavaScript's 32-bit `(point << 4) | digit`, where an invalid digit is -1.
    point = static_cast<std::int32_t>(static_cast<std::uint32_t>(point) << 4) | ReadHexDigit(code);
    if (point < 0) break;
  }
  return Fail(position, "Invalid Unicode escape sequence: \"" + SliceUnits(position, n) + "\".");
}

bool Lexer::ReadEscapedUnicodeFixedWidth(std::size_t position, std::string& value, std::size_t& size) {
  auto read16 = [this](std::size_t at) -> std::int32_t {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(ReadHexDigit(CharAt(at))) << 12) |
           static_cast<std::int32_t>(static_cast<std::uint32_t>(ReadHexDigit(CharAt(at + 1))) << 8) |
           static_cast<std::int32_t>(static_cast<std::uint32_t>(ReadHexDigit(CharAt(at + 2))) << 4) |
           ReadHexDigit(CharAt(at + 3));
  };
  const std::int32_t code = read16(position + 2);
  if (IsUnicodeScalarValue(code)) {
    AppendUtf8(value, static_cast<std::uint32_t>(code));
    size = 6;
    return true;
  }
  // JSON-style surrogate pairs are allowed, only as a complete pair.
  if (IsLeadingSurrogate(code) && CharAt(position + 6) == '\\' && CharAt(position + 7) == 'u') {
    const std::int32_t trailing = read16(position + 8);
    if (IsTrailingSurrogate(trailing)) {
      AppendUtf8(value, 0x10000 + ((static_cast<std::uint32_t>(code) - 0xD800) << 10) +
                            (static_cast<std::uint32_t>(trailing) - 0xDC00));
      size = 12;
      return true;
    }
  }
  return Fail(position, "Invalid Unicode escape sequence: \"" + SliceUnits(position, 6) + "\".");
}

bool Lexer::ReadEscapedCharacter(std::size_t position, std::string& value, std::size_t& size) {
  size = 2;
  switch (CharAt(position + 1)) {
    case '"': value.push_back('"'); return true;
    case '\\': value.push_back('\\'); return true;
    case '/': value.push_back('/'); return true;
    case 'b': value.push_back('\b'); return true;
    case 'f': value.push_back('\f'); return true;
    case 'n': value.push_back('\n'); return true;
    case 'r': value.push_back('\r'); return true;
    case 't': value.push_back('\t'); return true;
    default:
      return Fail(position, "Invalid character escape sequence: \"" + SliceUnits(position, 2) + "\".");
  }
}

bool Lexer::ReadBlockString(std::size_t start, Token& out) {
  std::size_t lineStart = lineStart_;
  std::size_t position = start + 3;
  std::size_t chunkStart = position;
  std::string currentLine;
  std::vector<std::string> blockLines;
  while (position < source_.size()) {
    const int code = CharAt(position);
    if (code == '"' && CharAt(position + 1) == '"' && CharAt(position + 2) == '"') {
      currentLine.append(source_.substr(chunkStart, position - chunkStart));
      blockLines.push_back(std::move(currentLine));
      std::string joined;
      const std::vector<std::string> lines = DedentBlockStringLines(blockLines);
      for (std::size_t i = 0; i < lines.size(); ++i) {
        if (i > 0) joined.push_back('\n');
        joined += lines[i];
      }
      MakeToken(TokenKind::kBlockString, start, position + 3, std::move(joined), out);
      line_ += static_cast<std::uint32_t>(blockLines.size() - 1);
      lineStart_ = lineStart;
      return true;
    }
    if (code == '\\' && CharAt(position + 1) == '"' && CharAt(position + 2) == '"' && CharAt(position + 3) == '"') {
      currentLine.append(source_.substr(chunkStart, position - chunkStart));
      chunkStart = position + 1;  // drop only the backslash
      position += 4;
      continue;
    }
    if (code == '\n' || code == '\r') {
      currentLine.append(source_.substr(chunkStart, position - chunkStart));
      blockLines.push_back(std::move(currentLine));
      currentLine.clear();
      position += (code == '\r' && CharAt(position + 1) == '\n') ? 2 : 1;
      chunkStart = position;
      lineStart = position;
      continue;
    }
    if (code < 0x80) {
      ++position;
      continue;
    }
    std::uint32_t cp = 0;
    const std::size_t n = DecodeUtf8(source_, position, cp);
    if (n == 0) return Fail(position, "Invalid character within String: " + PrintCodePointAt(position) + ".");
    position += n;
  }
  return Fail(position, "Unterminated string.");
}

void Lexer::ReadName(std::size_t start, Token& out) {
  std::size_t position = start + 1;
  while (position < source_.size() && IsNameContinue(CharAt(position))) ++position;
  MakeToken(TokenKind::kName, start, position, std::string(source_.substr(start, position - start)), out);
}

}  // namespace livechat::graphql::internal
