// The lexer, checked against what graphql-js 16's lexer produces for the same
// input (token kinds, values, 1-based line/column in UTF-16 units, messages).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "graphql/lexer.h"

using namespace livechat::graphql::internal;

namespace {

struct Lexed {
  std::vector<Token> tokens;  // without <SOF>, with <EOF>
  std::optional<SyntaxError> error;
};

Lexed LexAll(std::string_view source) {
  Lexer lexer(source);
  Lexed out;
  while (true) {
    if (!lexer.Advance()) {
      out.error = lexer.error();
      return out;
    }
    out.tokens.push_back(lexer.token());
    if (lexer.token().kind == TokenKind::kEof) return out;
  }
}

Token One(std::string_view source) {
  Lexed l = LexAll(source);
  REQUIRE_MESSAGE(!l.error, (l.error ? l.error->message : ""));
  REQUIRE(l.tokens.size() == 2);
  return l.tokens[0];
}

std::string Value(std::string_view source) { return One(source).value; }

void ExpectError(std::string_view source, const std::string& message, std::uint32_t line, std::uint32_t column) {
  Lexed l = LexAll(source);
  REQUIRE_MESSAGE(l.error.has_value(), source);
  CHECK(l.error->message == message);
  CHECK(l.error->loc.line == line);
  CHECK(l.error->loc.column == column);
}

}  // namespace

TEST_CASE("lexer: every punctuator, with kind names as graphql-js prints them") {
  Lexed l = LexAll("! $ & ( ) ... : = @ [ ] { | }");
  REQUIRE(!l.error);
  std::vector<std::string> kinds;
  for (const Token& t : l.tokens) kinds.push_back(std::string(TokenKindName(t.kind)));
  CHECK(kinds == std::vector<std::string>{"!", "$", "&", "(", ")", "...", ":", "=", "@", "[", "]", "{", "|", "}", "<EOF>"});
  CHECK(l.tokens[5].loc.column == 11);
  CHECK(TokenKindDesc(TokenKind::kBraceL) == "\"{\"");
  CHECK(TokenKindDesc(TokenKind::kName) == "Name");
}

TEST_CASE("lexer: names, numbers, strings, block strings, comments") {
  Token name = One("  _foo_Bar9 ");
  CHECK(name.kind == TokenKind::kName);
  CHECK(name.value == "_foo_Bar9");
  CHECK(name.loc.column == 3);

  for (const char* n : {"0", "-0", "4", "-4", "9876543210"}) {
    CHECK(One(n).kind == TokenKind::kInt);
    CHECK(One(n).value == n);
  }
  for (const char* f : {"4.123", "-4.123", "0.123", "123e4", "123E4", "123e-4", "123e+4", "-1.123e4567"}) {
    CHECK(One(f).kind == TokenKind::kFloat);
    CHECK(One(f).value == f);
  }

  Token s = One("\"simple\"");
  CHECK(s.kind == TokenKind::kString);
  CHECK(s.value == "simple");
  CHECK(Value("\" white space \"") == " white space ");
  CHECK(Value("\"unicode é 😀\"") == "unicode é 😀");
  CHECK(Value("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"") == "\"\\/\b\f\n\r\t");
  CHECK(Value("\"\\u0041\\u00e9\"") == "Aé");
  CHECK(Value("\"\\u{1F600}\\u{41}\"") == "😀A");
  CHECK(Value("\"\\uD83D\\uDE00\"") == "😀");  // a JSON-style surrogate pair
  CHECK(Value("\"tab\there\"") == "tab\there");  // raw control characters are allowed

  Token block = One("\"\"\"block\"\"\"");
  CHECK(block.kind == TokenKind::kBlockString);
  CHECK(block.value == "block");
  CHECK(TokenDesc(block) == "BlockString \"block\"");

  Lexed c = LexAll("# a comment\nname # trailing\n");
  REQUIRE(!c.error);
  CHECK(c.tokens.size() == 2);  // comments are skipped
  CHECK(c.tokens[0].loc.line == 2);
  Lexer raw("# hi\n");
  Token comment;
  REQUIRE(raw.ReadRawToken(0, comment));
  CHECK(comment.kind == TokenKind::kComment);
  CHECK(comment.value == " hi");
}

TEST_CASE("lexer: block strings dedent and trim like the spec's BlockStringValue") {
  CHECK(Value("\"\"\"\n    Hello,\n      World!\n\n    Yours,\n      GraphQL.\n  \"\"\"") ==
        "Hello,\n  World!\n\nYours,\n  GraphQL.");
  CHECK(Value("\"\"\"  first line keeps its indent\n    second\"\"\"") == "  first line keeps its indent\nsecond");
  CHECK(Value("\"\"\"\n\n   \n  only  \n\n\"\"\"") == "only  ");  // blank first and last lines removed
  CHECK(Value("\"\"\"a\r\n  b\r  c\"\"\"") == "a\nb\nc");     // every line terminator becomes \n
  CHECK(Value("\"\"\"escaped \\\"\"\" quotes\"\"\"") == "escaped \"\"\" quotes");
  CHECK(Value("\"\"\"no \\n escapes\"\"\"") == "no \\n escapes");
  CHECK(Value("\"\"\"\t\ttabs\n\t\tcount\"\"\"") == "\t\ttabs\ncount");
  CHECK(Value("\"\"\"\"\"\"") == "");
}

TEST_CASE("lexer: line and column, in UTF-16 code units, across line terminators") {
  Lexed l = LexAll("a\nb\r\nc\rd\n  \"é😀\" e");
  REQUIRE(!l.error);
  CHECK(l.tokens[0].loc.line == 1);
  CHECK(l.tokens[1].loc.line == 2);
  CHECK(l.tokens[2].loc.line == 3);
  CHECK(l.tokens[3].loc.line == 4);
  CHECK(l.tokens[4].loc.line == 5);
  CHECK(l.tokens[4].loc.column == 3);
  CHECK(l.tokens[5].loc.column == 9);  // é is one unit, 😀 two
  Lexed b = LexAll("\"\"\"x\n\ny\"\"\" z");
  REQUIRE(!b.error);
  CHECK(b.tokens[1].loc.line == 3);
  CHECK(b.tokens[1].loc.column == 6);
  Lexed bom = LexAll("\xEF\xBB\xBF a");
  REQUIRE(!bom.error);
  CHECK(bom.tokens[0].loc.column == 3);  // the BOM is ignored but occupies a column
}

TEST_CASE("lexer: errors carry graphql-js's message and position") {
  ExpectError("?", "Unexpected character: \"?\".", 1, 1);
  ExpectError("\n  \x07", "Unexpected character: U+0007.", 2, 3);
  ExpectError("é", "Unexpected character: U+00E9.", 1, 1);
  ExpectError("'x'", "Unexpected single quote character ('), did you mean to use a double quote (\")?", 1, 1);
  ExpectError(".", "Unexpected character: \".\".", 1, 1);
  ExpectError("..", "Unexpected character: \".\".", 1, 1);
  ExpectError("\xff", "Invalid character: 0xFF (not UTF-8).", 1, 1);
  ExpectError("\"", "Unterminated string.", 1, 2);
  ExpectError("\"no end\nx", "Unterminated string.", 1, 8);
  ExpectError("\"\"\"open", "Unterminated string.", 1, 8);
  ExpectError("\"bad \\z\"", "Invalid character escape sequence: \"\\z\".", 1, 6);
  ExpectError("\"\\u12\"", "Invalid Unicode escape sequence: \"\\u12\"\".", 1, 2);
  ExpectError("\"\\uXYZW\"", "Invalid Unicode escape sequence: \"\\uXYZW\".", 1, 2);
  ExpectError("\"\\uD800\"", "Invalid Unicode escape sequence: \"\\uD800\".", 1, 2);
  ExpectError("\"\\uDE00\"", "Invalid Unicode escape sequence: \"\\uDE00\".", 1, 2);
  ExpectError("\"\\u{}\"", "Invalid Unicode escape sequence: \"\\u{}\".", 1, 2);
  ExpectError("\"\\u{110000}\"", "Invalid Unicode escape sequence: \"\\u{110000}\".", 1, 2);
  ExpectError("\"\\u{D800}\"", "Invalid Unicode escape sequence: \"\\u{D800}\".", 1, 2);
  ExpectError("\"\\u{12345678}\"", "Invalid Unicode escape sequence: \"\\u{12345678}\".", 1, 2);
  ExpectError("\"bad \xff\"", "Invalid character within String: 0xFF (not UTF-8).", 1, 6);
  ExpectError("00", "Invalid number, unexpected digit after 0: \"0\".", 1, 2);
  ExpectError("1.", "Invalid number, expected digit but got: <EOF>.", 1, 3);
  ExpectError("1.A", "Invalid number, expected digit but got: \"A\".", 1, 3);
  ExpectError("-A", "Invalid number, expected digit but got: \"A\".", 1, 2);
  ExpectError("1.0e", "Invalid number, expected digit but got: <EOF>.", 1, 5);
  ExpectError("1.0eA", "Invalid number, expected digit but got: \"A\".", 1, 5);
  ExpectError("1.2.3", "Invalid number, expected digit but got: \".\".", 1, 4);
  ExpectError("1x", "Invalid number, expected digit but got: \"x\".", 1, 2);
  ExpectError("1_000", "Invalid number, expected digit but got: \"_\".", 1, 2);
}
