// The GraphQL lexer, a port of graphql-js 16's: same tokens, same block
// string dedent, same escape rules, same error messages and positions.
// Input is UTF-8; columns count UTF-16 code units so they match graphql-js.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "graphql/ast.h"

namespace livechat::graphql::internal {

enum class TokenKind : std::uint8_t {
  kSof, kEof, kBang, kDollar, kAmp, kParenL, kParenR, kDot, kSpread, kColon, kEquals, kAt,
  kBracketL, kBracketR, kBraceL, kPipe, kBraceR, kName, kInt, kFloat, kString, kBlockString, kComment,
};

// "<EOF>", "!", "Name", "BlockString", ... as graphql-js's TokenKind values.
std::string_view TokenKindName(TokenKind kind);
// `"!"` for punctuators, `Name` for the others (graphql-js getTokenKindDesc).
std::string TokenKindDesc(TokenKind kind);

struct Token {
  TokenKind kind = TokenKind::kSof;
  std::size_t start = 0;  // byte offsets
  std::size_t end = 0;
  Loc loc;
  std::string value;  // Name, Int, Float: text; String, BlockString: decoded; Comment: text after '#'
};

// `Name "foo"`, `"{"`, `<EOF>` (graphql-js getTokenDesc).
std::string TokenDesc(const Token& token);

struct SyntaxError {
  std::string message;  // without the "Syntax Error: " prefix
  Loc loc;
};

class Lexer {
 public:
  explicit Lexer(std::string_view source);

  // The current token (initially <SOF>).
  const Token& token() const { return token_; }
  const Token& lastToken() const { return lastToken_; }

  // Moves to the next non-comment token. False on a lexical error (error()).
  bool Advance();
  // The next non-comment token without moving, or nullptr on a lexical error.
  const Token* Lookahead();
  const SyntaxError& error() const { return error_; }

  // Every token including comments, for tests: reads one raw token after
  // `from` (byte offset). False on error.
  bool ReadRawToken(std::size_t from, Token& out);

  // Line and column (graphql-js getLocation) of a byte offset.
  Loc LocationAt(std::size_t position) const;

 private:
  bool ReadNextToken(std::size_t start, Token& out);
  bool ReadComment(std::size_t start, Token& out);
  bool ReadNumber(std::size_t start, Token& out);
  bool ReadDigits(std::size_t start, std::size_t& end);
  bool ReadString(std::size_t start, Token& out);
  bool ReadBlockString(std::size_t start, Token& out);
  void ReadName(std::size_t start, Token& out);
  bool ReadEscapedUnicodeVariableWidth(std::size_t position, std::string& value, std::size_t& size);
  bool ReadEscapedUnicodeFixedWidth(std::size_t position, std::string& value, std::size_t& size);
  bool ReadEscapedCharacter(std::size_t position, std::string& value, std::size_t& size);

  void MakeToken(TokenKind kind, std::size_t start, std::size_t end, std::string value, Token& out);
  std::uint32_t ColumnOf(std::size_t position);
  bool Fail(std::size_t position, std::string message);
  // graphql-js printCodePointAt.
  std::string PrintCodePointAt(std::size_t position) const;
  // The text from `position` spanning `units` UTF-16 units (clamped).
  std::string SliceUnits(std::size_t position, std::size_t units) const;
  // Code unit at `position` as JavaScript's charCodeAt sees ASCII; -1 past
  // the end, 0x80+ for any non-ASCII byte.
  int CharAt(std::size_t position) const {
    return position < source_.size() ? static_cast<unsigned char>(source_[position]) : -1;
  }

  std::string_view source_;
  Token token_;
  Token lastToken_;
  std::optional<Token> next_;
  std::uint32_t line_ = 1;
  std::size_t lineStart_ = 0;
  // Column cache: the UTF-16 column of byte `colPos_` on the current line,
  // so columns cost O(token length) rather than O(line length).
  std::size_t colPos_ = 0;
  std::uint32_t colValue_ = 1;
  SyntaxError error_;
};

}  // namespace livechat::graphql::internal
