// The parser: every construct of the executable grammar, and syntax errors
// with graphql-js's exact message and location (the table below was
// produced by running graphql-js 16's parse() on the same inputs).
#include <doctest/doctest.h>

#include "graphql/ast.h"
#include "graphql/parser.h"
#include "livechat/graphql.h"

using namespace livechat::graphql;
using namespace livechat::graphql::internal;

namespace {

struct Case {
  const char* source;
  const char* message;  // "" when graphql-js parses it
  int line;
  int column;
};

// clang-format off
const Case kCases[] = {
  {"", "Syntax Error: Unexpected <EOF>.", 1, 1},
  {"{", "Syntax Error: Expected Name, found <EOF>.", 1, 2},
  {"{ a", "Syntax Error: Expected Name, found <EOF>.", 1, 4},
  {"{ a }}", "Syntax Error: Unexpected \"}\".", 1, 6},
  {"query", "Syntax Error: Expected \"{\", found <EOF>.", 1, 6},
  {"query Q", "Syntax Error: Expected \"{\", found <EOF>.", 1, 8},
  {"query Q(", "Syntax Error: Expected \"$\", found <EOF>.", 1, 9},
  {"query Q($)", "Syntax Error: Expected Name, found \")\".", 1, 10},
  {"query Q($a)", "Syntax Error: Expected \":\", found \")\".", 1, 11},
  {"query Q($a:)", "Syntax Error: Expected Name, found \")\".", 1, 12},
  {"query Q($a: [Int)", "Syntax Error: Expected \"]\", found \")\".", 1, 17},
  {"query Q($a: Int = )", "Syntax Error: Unexpected \")\".", 1, 19},
  {"{ a(b) }", "Syntax Error: Expected \":\", found \")\".", 1, 6},
  {"{ a(b:) }", "Syntax Error: Unexpected \")\".", 1, 7},
  {"{ a(: 1) }", "Syntax Error: Expected Name, found \":\".", 1, 5},
  {"{ a(b: 1 }", "Syntax Error: Expected Name, found \"}\".", 1, 10},
  {"{ ...  }", "Syntax Error: Expected \"{\", found \"}\".", 1, 8},
  {"{ ... on }", "Syntax Error: Expected Name, found \"}\".", 1, 10},
  {"{ ... on T }", "Syntax Error: Expected \"{\", found \"}\".", 1, 12},
  {"fragment F { a }", "Syntax Error: Expected \"on\", found \"{\".", 1, 12},
  {"fragment on on T { a }", "Syntax Error: Unexpected Name \"on\".", 1, 10},
  {"fragment F on T", "Syntax Error: Expected \"{\", found <EOF>.", 1, 16},
  {"{ a @ }", "Syntax Error: Expected Name, found \"}\".", 1, 7},
  {"{ a @d( }", "Syntax Error: Expected Name, found \"}\".", 1, 9},
  {"{ a: }", "Syntax Error: Expected Name, found \"}\".", 1, 6},
  {"{ a: b: c }", "Syntax Error: Expected Name, found \":\".", 1, 7},
  {"{ a(b: [1, 2) }", "Syntax Error: Unexpected \")\".", 1, 13},
  {"{ a(b: {c 1}) }", "Syntax Error: Expected \":\", found Int \"1\".", 1, 11},
  {"{ a(b: {c: 1) }", "Syntax Error: Expected Name, found \")\".", 1, 13},
  {"query ($a: Int = $b) { a }", "Syntax Error: Unexpected variable \"$b\" in constant value.", 1, 18},
  {"query ($a: Int = [$b]) { a }", "Syntax Error: Unexpected variable \"$b\" in constant value.", 1, 19},
  {"query ($a: Int = {b: $c}) { a }", "Syntax Error: Unexpected variable \"$c\" in constant value.", 1, 22},
  {"query ($a: Int @dir(x: $y)) { a }", "Syntax Error: Unexpected variable \"$y\" in constant value.", 1, 24},
  {"query ($a: Int = $) { a }", "Syntax Error: Unexpected \"$\".", 1, 18},
  {"notakeyword { a }", "Syntax Error: Unexpected Name \"notakeyword\".", 1, 1},
  {"\"desc\" { a }", "Syntax Error: Unexpected description, descriptions are not supported on shorthand queries.", 1, 1},
  {"\"desc\" extend type T { a: Int }", "Syntax Error: Unexpected description, only GraphQL definitions support descriptions.", 1, 1},
  {"\"desc\" nope", "Syntax Error: Unexpected description, only GraphQL definitions support descriptions.", 1, 1},
  {"extend", "Syntax Error: Unexpected <EOF>.", 1, 7},
  {"extend nope", "Syntax Error: Unexpected Name \"nope\".", 1, 8},
  {"extend type T", "Syntax Error: Unexpected <EOF>.", 1, 14},
  {"extend schema", "Syntax Error: Unexpected <EOF>.", 1, 14},
  {"type T", "", 0, 0},
  {"type T {}", "Syntax Error: Expected Name, found \"}\".", 1, 9},
  {"type T { a }", "Syntax Error: Expected \":\", found \"}\".", 1, 12},
  {"type T { a: }", "Syntax Error: Expected Name, found \"}\".", 1, 13},
  {"type T implements { a: Int }", "Syntax Error: Expected Name, found \"{\".", 1, 19},
  {"type T implements A & { a: Int }", "Syntax Error: Expected Name, found \"{\".", 1, 23},
  {"enum E { null }", "Syntax Error: Name \"null\" is reserved and cannot be used for an enum value.", 1, 10},
  {"enum E { A B", "Syntax Error: Expected Name, found <EOF>.", 1, 13},
  {"union U = ", "Syntax Error: Expected Name, found <EOF>.", 1, 11},
  {"union U = | A |", "Syntax Error: Expected Name, found <EOF>.", 1, 16},
  {"input I { a: Int = $x }", "Syntax Error: Unexpected variable \"$x\" in constant value.", 1, 20},
  {"directive @d on", "Syntax Error: Expected Name, found <EOF>.", 1, 16},
  {"directive @d on FIELD |", "Syntax Error: Expected Name, found <EOF>.", 1, 24},
  {"directive @d repeatable on NOPE", "Syntax Error: Unexpected Name \"NOPE\".", 1, 28},
  {"directive d on FIELD", "Syntax Error: Expected \"@\", found Name \"d\".", 1, 11},
  {"scalar", "Syntax Error: Expected Name, found <EOF>.", 1, 7},
  {"schema { query }", "Syntax Error: Expected \":\", found \"}\".", 1, 16},
  {"schema {}", "Syntax Error: Expected Name, found \"}\".", 1, 9},
  {"{ a } query", "Syntax Error: Expected \"{\", found <EOF>.", 1, 12},
  {"query Q { a } fragment", "Syntax Error: Expected Name, found <EOF>.", 1, 23},
  {"mutation M { a } subscription", "Syntax Error: Expected \"{\", found <EOF>.", 1, 30},
  {"{ a } \"desc\"", "Syntax Error: Unexpected <EOF>.", 1, 13},
  {"{ a(b: \"\"\"x\"\"\" c: 1) }", "", 0, 0},
  {"subscription S($a: Int = 1 @deprecated) { a }", "", 0, 0},
  {"{ a(b: true, c: false, d: null, e: ENUM, f: 1.5e3, g: -0, h: \"s\", i: [], j: {}, k: $v) }", "", 0, 0},
  {"{ a { b { c } } }", "", 0, 0},
  {"{ ...F @skip(if: true) ... @include(if: false) { a } ... on T @d { b } }", "", 0, 0},
  {"extend schema @d { query: Q }", "", 0, 0},
  {"extend scalar S @d", "", 0, 0},
  {"extend union U = A", "", 0, 0},
  {"extend enum E { X }", "", 0, 0},
  {"extend input I { a: Int }", "", 0, 0},
  {"extend interface I implements J", "", 0, 0},
  {"interface I implements J & K @d { a(x: Int = 1 @deprecated): [I!]! }", "", 0, 0},
  {"\"\"\"d\"\"\" schema @d { query: Q mutation: M subscription: S }", "", 0, 0},
  {"{ a }\n\n  query B {\n    b(x: [1, {y: \"z\"}, ENUM\n  }\n", "Syntax Error: Unexpected \"}\".", 5, 3},

};
// clang-format on

const DocumentAst& Ast(const std::variant<Document, ResponseError>& parsed) {
  REQUIRE_MESSAGE(std::holds_alternative<Document>(parsed),
                  (std::holds_alternative<ResponseError>(parsed) ? std::get<ResponseError>(parsed).message : ""));
  return std::get<Document>(parsed).ast();
}

}  // namespace

TEST_CASE("parser: syntax errors match graphql-js (message and location)") {
  for (const Case& c : kCases) {
    CAPTURE(c.source);
    auto parsed = Parse(c.source);
    if (c.message[0] == '\0') {
      CHECK(std::holds_alternative<Document>(parsed));
      continue;
    }
    REQUIRE(std::holds_alternative<ResponseError>(parsed));
    const ResponseError& e = std::get<ResponseError>(parsed);
    CHECK(e.message == c.message);
    REQUIRE(e.locations.size() == 1);
    CHECK(e.locations[0] == Location{c.line, c.column});
    CHECK(e.code == "GRAPHQL_PARSE_FAILED");
    CHECK(!e.path.has_value());
  }
}

TEST_CASE("parser: anonymous and named operations, variables with defaults and directives") {
  auto parsed = Parse(
      "{ a }\n"
      "query Q($id: ID!, $n: Int = 10 @dir, $list: [[String!]]! = [[\"x\"]], $obj: In = {a: 1, b: [ENUM]}) @op { b }\n"
      "mutation M { c } subscription { d }");
  const DocumentAst& doc = Ast(parsed);
  REQUIRE(doc.operations.size() == 4);
  CHECK(!doc.operations[0].name);
  CHECK(doc.operations[0].loc.column == 1);
  const OperationNode& q = doc.operations[1];
  CHECK(q.operation == OperationType::kQuery);
  CHECK(*q.name == "Q");
  CHECK(q.nameLoc.column == 7);
  REQUIRE(q.variables.size() == 4);
  CHECK(q.variables[0].name == "id");
  CHECK(q.variables[0].loc.column == 9);
  CHECK(q.variables[0].nameLoc.column == 10);
  CHECK(PrintTypeNode(q.variables[0].type) == "ID!");
  CHECK(PrintValueNode(*q.variables[1].defaultValue) == "10");
  CHECK(q.variables[1].directives[0].name == "dir");
  CHECK(PrintTypeNode(q.variables[2].type) == "[[String!]]!");
  CHECK(PrintValueNode(*q.variables[2].defaultValue) == "[[\"x\"]]");
  CHECK(PrintValueNode(*q.variables[3].defaultValue) == "{a: 1, b: [ENUM]}");
  CHECK(q.directives[0].name == "op");
  CHECK(doc.operations[2].operation == OperationType::kMutation);
  CHECK(doc.operations[3].operation == OperationType::kSubscription);
  CHECK(doc.operations[3].loc.line == 3);
}

TEST_CASE("parser: fields, aliases, arguments of every literal kind") {
  auto parsed = Parse(
      "{ alias: field(i: -12, f: 1.5e-3, s: \"a\\nb\", b: \"\"\"\n  block\n\"\"\", t: true, n: null, e: RED, "
      "l: [1, [2]], o: {x: {y: $v}}, v: $var) @d(a: 1) { sub }, plain }");
  const DocumentAst& doc = Ast(parsed);
  const SelectionNode& f = doc.operations[0].selectionSet.selections[0];
  CHECK(f.kind == SelectionNode::Kind::kField);
  CHECK(*f.alias == "alias");
  CHECK(f.name == "field");
  CHECK(f.ResponseName() == "alias");
  CHECK(f.loc.column == 3);
  CHECK(f.nameLoc.column == 10);
  REQUIRE(f.args.size() == 10);
  CHECK(f.args[0].value.kind == ValueKind::kInt);
  CHECK(f.args[0].value.text == "-12");
  CHECK(f.args[1].value.kind == ValueKind::kFloat);
  CHECK(f.args[2].value.text == "a\nb");
  CHECK(f.args[3].value.block);
  CHECK(f.args[3].value.text == "block");
  CHECK(f.args[4].value.boolValue);
  CHECK(f.args[5].value.kind == ValueKind::kNull);
  CHECK(f.args[6].value.kind == ValueKind::kEnum);
  CHECK(PrintValueNode(f.args[7].value) == "[1, [2]]");
  CHECK(PrintValueNode(f.args[8].value) == "{x: {y: $v}}");
  CHECK(f.args[9].value.kind == ValueKind::kVariable);
  CHECK(f.args[9].value.text == "var");
  CHECK(f.directives[0].args[0].name == "a");
  REQUIRE(f.selectionSet);
  CHECK(f.selectionSet->selections[0].name == "sub");
  CHECK(doc.operations[0].selectionSet.selections[1].name == "plain");
}

TEST_CASE("parser: named and inline fragments, descriptions on executable definitions") {
  auto parsed = Parse(
      "\"op\" query { ...F @skip(if: true) ... on T { a } ... @include(if: false) { b } }\n"
      "\"\"\"frag\"\"\" fragment F on T @d { c }");
  const DocumentAst& doc = Ast(parsed);
  const auto& sels = doc.operations[0].selectionSet.selections;
  CHECK(doc.operations[0].loc.column == 1);  // a description starts the definition
  CHECK(sels[0].kind == SelectionNode::Kind::kFragmentSpread);
  CHECK(sels[0].name == "F");
  CHECK(sels[0].nameLoc.column == 17);
  CHECK(sels[0].directives[0].name == "skip");
  CHECK(sels[1].kind == SelectionNode::Kind::kInlineFragment);
  CHECK(sels[1].typeCondition->name == "T");
  CHECK(sels[2].kind == SelectionNode::Kind::kInlineFragment);
  CHECK(!sels[2].typeCondition);
  REQUIRE(doc.fragments.size() == 1);
  CHECK(doc.fragments[0].name == "F");
  CHECK(doc.fragments[0].typeCondition.name == "T");
  CHECK(doc.fragments[0].directives[0].name == "d");
  CHECK(doc.FindFragment("F") == &doc.fragments[0]);
  CHECK(doc.FindFragment("G") == nullptr);
}

TEST_CASE("parser: type-system definitions parse and are kept by name") {
  auto parsed = Parse(
      "schema { query: Q } extend schema @d type T implements I & J { f(a: Int = 1): [T] } "
      "directive @dd(x: Int!, y: Int! = 1, z: Int) repeatable on FIELD | QUERY");
  const DocumentAst& doc = Ast(parsed);
  REQUIRE(doc.typeSystem.size() == 4);
  CHECK(doc.typeSystem[0].kind == TypeSystemNode::Kind::kSchema);
  CHECK(doc.typeSystem[1].kind == TypeSystemNode::Kind::kSchemaExtension);
  CHECK(doc.typeSystem[2].name == "T");
  const TypeSystemNode& d = doc.typeSystem[3];
  CHECK(d.kind == TypeSystemNode::Kind::kDirectiveDefinition);
  CHECK(d.repeatable);
  CHECK(d.locations == std::vector<std::string>{"FIELD", "QUERY"});
  REQUIRE(d.args.size() == 3);
  CHECK(d.args[0].required);
  CHECK(!d.args[1].required);  // a default makes it optional
  CHECK(!d.args[2].required);
  CHECK(d.args[0].typeText == "Int!");
}

TEST_CASE("parser: hostile input is refused with a syntax error, never a crash") {
  Limits limits;
  limits.maxDocumentBytes = 100;
  auto big = Parse(std::string(101, ' ') + "{ a }", limits);
  REQUIRE(std::holds_alternative<ResponseError>(big));
  CHECK(std::get<ResponseError>(big).message == "Syntax Error: Document contains more than 100 bytes. Parsing aborted.");

  limits = Limits{};
  limits.maxTokens = 10;
  auto tokens = Parse("{ a b c d e f g h i j k }", limits);
  REQUIRE(std::holds_alternative<ResponseError>(tokens));
  CHECK(std::get<ResponseError>(tokens).message == "Syntax Error: Document contains more than 10 tokens. Parsing aborted.");
  CHECK(std::get<ResponseError>(tokens).locations[0] == Location{1, 21});
  CHECK(std::holds_alternative<Document>(Parse("{ a b c d e f g h }", limits)));  // 10 tokens exactly

  std::string deep;
  for (int i = 0; i < 64; ++i) deep += "a { ";
  deep += "b";
  for (int i = 0; i < 64; ++i) deep += " }";
  CHECK(std::holds_alternative<Document>(Parse("{ " + deep + " }")) == false);  // 65 selection sets
  CHECK(std::holds_alternative<Document>(Parse(deep.substr(4) + "")) == false);   // not a document either
  std::string ok;
  for (int i = 0; i < 63; ++i) ok += "a { ";
  ok += "b";
  for (int i = 0; i < 63; ++i) ok += " }";
  CHECK(std::holds_alternative<Document>(Parse("{ " + ok + " }")));  // exactly 64
  auto tooDeep = Parse("{ " + deep + " }");
  REQUIRE(std::holds_alternative<ResponseError>(tooDeep));
  CHECK(std::get<ResponseError>(tooDeep).message ==
        "Syntax Error: Document is nested more than 64 levels deep. Parsing aborted.");

  auto lists = Parse("{ a(b: " + std::string(100000, '[') + ") }");
  REQUIRE(std::holds_alternative<ResponseError>(lists));
  CHECK(std::get<ResponseError>(lists).message ==
        "Syntax Error: Document is nested more than 64 levels deep. Parsing aborted.");
  auto types = Parse("query ($a: " + std::string(100000, '[') + "Int) { a }");
  REQUIRE(std::holds_alternative<ResponseError>(types));
  auto objects = Parse("{ a(b: " + [] {
    std::string s;
    for (int i = 0; i < 100; ++i) s += "{x: ";
    return s;
  }() + ") }");
  REQUIRE(std::holds_alternative<ResponseError>(objects));

  // The default limits let getIntrospectionQuery() through with room to spare.
  CHECK(Limits{}.maxDepth >= 16);
}
