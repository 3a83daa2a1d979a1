// Validation: for each rule of graphql-js 16's specifiedRules (and our
// KnownOperationTypes), a document that breaks it and one that does not. The
// expected errors (message and locations, in order) were produced by running
// graphql-js's validate() on the same schema SDL and document; the Node
// conformance test (tests/node/graphql) checks a larger corpus the same way.
#include <doctest/doctest.h>

#include "graphql/customer_schema.h"
#include "graphql/kitchen_sink_schema.h"
#include "livechat/graphql.h"

#include <fstream>
#include <set>
#include <sstream>

using namespace livechat::graphql;

namespace {

struct ExpectedError {
  const char* message;
  std::vector<Location> locations;
};

struct RuleCase {
  const char* rule;
  const char* schema;
  const char* failing;
  std::vector<ExpectedError> errors;
  const char* passing;
};

// clang-format off
const std::vector<RuleCase> kCases = {
    {"ExecutableDefinitions", "customer", "{ __typename } type T { a: Int } extend schema { query: Query }",
     {
       {"The \"T\" definition is not executable.", {{1, 16}}},
       {"The schema definition is not executable.", {{1, 34}}}},
     "{ __typename }"},
    {"UniqueOperationNames", "customer", "query A { __typename } query A { __typename }",
     {
       {"There can be only one operation named \"A\".", {{1, 7}, {1, 30}}}},
     "query A { __typename } query B { __typename }"},
    {"LoneAnonymousOperation", "customer", "{ __typename } query B { __typename }",
     {
       {"This anonymous operation must be the only defined operation.", {{1, 1}}}},
     "{ __typename }"},
    {"KnownTypeNames", "customer", "query ($a: Customr) { __typename } fragment F on Cstomer { id }",
     {
       {"Unknown type \"Customr\". Did you mean \"Customer\"?", {{1, 12}}},
       {"Variable \"$a\" is never used.", {{1, 8}}},
       {"Unknown type \"Cstomer\". Did you mean \"Customer\"?", {{1, 50}}},
       {"Fragment \"F\" is never used.", {{1, 36}}}},
     "query ($a: ID!) { customer(id: $a) { ...F } } fragment F on Customer { id }"},
    {"FragmentsOnCompositeTypes", "customer", "{ customer(id: \"1\") { ... on String { id } ...F } } fragment F on CustomerType { id }",
     {
       {"Fragment cannot condition on non composite type \"String\".", {{1, 30}}},
       {"Fragment \"F\" cannot condition on non composite type \"CustomerType\".", {{1, 67}}}},
     "{ customer(id: \"1\") { ... on Customer { id } } }"},
    {"VariablesAreInputTypes", "customer", "query ($a: Customer, $b: [PageInfo!]) { __typename }",
     {
       {"Variable \"$a\" cannot be non-input type \"Customer\".", {{1, 12}}},
       {"Variable \"$b\" cannot be non-input type \"[PageInfo!]\".", {{1, 26}}},
       {"Variable \"$a\" is never used.", {{1, 8}}},
       {"Variable \"$b\" is never used.", {{1, 22}}}},
     "query ($a: ID!, $b: String) { customer(id: $a) { id } customers(after: $b) { totalCount } }"},
    {"ScalarLeafs", "customer", "{ customer(id: \"1\") { id { x } } customers }",
     {
       {"Field \"id\" must not have a selection since type \"ID!\" has no subfields.", {{1, 26}}},
       {"Field \"customers\" of type \"CustomerConnection!\" must have a selection of subfields. Did you mean \"customers { ... }\"?", {{1, 34}}}},
     "{ customer(id: \"1\") { id } }"},
    {"FieldsOnCorrectType", "customer", "{ customer(id: \"1\") { firstname emial } }",
     {
       {"Cannot query field \"firstname\" on type \"Customer\". Did you mean \"firstName\", \"lastName\", or \"fullName\"?", {{1, 23}}},
       {"Cannot query field \"emial\" on type \"Customer\". Did you mean \"email\"?", {{1, 33}}}},
     "{ customer(id: \"1\") { firstName email } }"},
    {"FieldsOnCorrectType-abstract", "kitchen", "{ node(id: \"1\") { name } }",
     {
       {"Cannot query field \"name\" on type \"Node\". Did you mean to use an inline fragment on \"Named\" or \"Person\"?", {{1, 19}}}},
     "{ node(id: \"1\") { ... on Person { name } } }"},
    {"UniqueFragmentNames", "customer", "{ customer(id: \"1\") { ...F } } fragment F on Customer { id } fragment F on Customer { email }",
     {
       {"There can be only one fragment named \"F\".", {{1, 41}, {1, 71}}}},
     "{ customer(id: \"1\") { ...F ...G } } fragment F on Customer { id } fragment G on Customer { email }"},
    {"KnownFragmentNames", "customer", "{ customer(id: \"1\") { ...Missing } }",
     {
       {"Unknown fragment \"Missing\".", {{1, 26}}}},
     "{ customer(id: \"1\") { ...F } } fragment F on Customer { id }"},
    {"NoUnusedFragments", "customer", "{ __typename } fragment F on Customer { id }",
     {
       {"Fragment \"F\" is never used.", {{1, 16}}}},
     "{ customer(id: \"1\") { ...F } } fragment F on Customer { id }"},
    {"PossibleFragmentSpreads", "customer", "{ customer(id: \"1\") { ... on PageInfo { hasNextPage } ...E } } fragment E on CustomerEdge { cursor }",
     {
       {"Fragment cannot be spread here as objects of type \"Customer\" can never be of type \"PageInfo\".", {{1, 23}}},
       {"Fragment \"E\" cannot be spread here as objects of type \"Customer\" can never be of type \"CustomerEdge\".", {{1, 55}}}},
     "{ customer(id: \"1\") { ... on Customer { id } } }"},
    {"PossibleFragmentSpreads-abstract", "kitchen", "{ node(id: \"1\") { ... on Root { legacy } } }",
     {
       {"Fragment cannot be spread here as objects of type \"Node\" can never be of type \"Root\".", {{1, 19}}}},
     "{ node(id: \"1\") { ... on Person { age } ... on Named { name } } }"},
    {"NoFragmentCycles", "customer", "{ customer(id: \"1\") { ...A } } fragment A on Customer { ...B } fragment B on Customer { ...A }",
     {
       {"Cannot spread fragment \"A\" within itself via \"B\".", {{1, 57}, {1, 89}}}},
     "{ customer(id: \"1\") { ...A } } fragment A on Customer { ...B } fragment B on Customer { id }"},
    {"UniqueVariableNames", "customer", "query ($a: Int, $a: Int) { customers(first: $a) { totalCount } }",
     {
       {"There can be only one variable named \"$a\".", {{1, 9}, {1, 18}}}},
     "query ($a: Int, $b: Int) { customers(first: $a, last: $b) { totalCount } }"},
    {"NoUndefinedVariables", "customer", "query Q { customers(first: $n) { totalCount } }",
     {
       {"Variable \"$n\" is not defined by operation \"Q\".", {{1, 28}, {1, 1}}}},
     "query Q($n: Int) { customers(first: $n) { totalCount } }"},
    {"NoUnusedVariables", "customer", "query Q($a: Int) { __typename }",
     {
       {"Variable \"$a\" is never used in operation \"Q\".", {{1, 9}}}},
     "query Q($a: Int) { customers(first: $a) { totalCount } }"},
    {"KnownDirectives", "customer", "query @skip(if: true) { customer(id: \"1\") @nope { id } }",
     {
       {"Directive \"@skip\" may not be used on QUERY.", {{1, 7}}},
       {"Unknown directive \"@nope\".", {{1, 43}}}},
     "{ customer(id: \"1\") @skip(if: false) { id } }"},
    {"UniqueDirectivesPerLocation", "customer", "{ __typename @skip(if: true) @skip(if: false) }",
     {
       {"The directive \"@skip\" can only be used once at this location.", {{1, 14}, {1, 30}}}},
     "{ __typename @skip(if: true) @include(if: false) }"},
    {"KnownArgumentNames", "customer", "{ customer(id: \"1\", idd: 2) { id @skip(iff: true, if: false) } }",
     {
       {"Unknown argument \"idd\" on field \"Query.customer\". Did you mean \"id\"?", {{1, 21}}},
       {"Unknown argument \"iff\" on directive \"@skip\". Did you mean \"if\"?", {{1, 40}}}},
     "{ customer(id: \"1\") { id @skip(if: false) } }"},
    {"UniqueArgumentNames", "customer", "{ customer(id: \"1\", id: \"2\") { id } }",
     {
       {"There can be only one argument named \"id\".", {{1, 12}, {1, 21}}}},
     "{ customer(id: \"1\") { id } }"},
    {"ValuesOfCorrectType", "kitchen", "{ scalars(i: 1.5, s: 3, b: 1, id: 1.5) search(text: \"x\", kinds: [D], filter: {tagz: []}) { __typename } }",
     {
       {"Int cannot represent non-integer value: 1.5", {{1, 14}}},
       {"String cannot represent a non string value: 3", {{1, 22}}},
       {"Boolean cannot represent a non boolean value: 1", {{1, 28}}},
       {"ID cannot represent a non-string and non-integer value: 1.5", {{1, 35}}},
       {"Value \"D\" does not exist in \"Kind\" enum. Did you mean the enum value \"A\", \"B\", or \"C\"?", {{1, 66}}},
       {"Field \"tagz\" is not defined by type \"Filter\". Did you mean \"tags\"?", {{1, 79}}}},
     "{ scalars(i: 1, f: 2, s: \"3\", b: true, id: 4) search(text: \"x\", kinds: [A], filter: {tags: []}) { __typename } }"},
    {"ValuesOfCorrectType-null-and-required", "kitchen", "{ search(text: null) { __typename } echo(input: {range: {to: 1}}, pick: {byId: 1, byName: \"n\"}) }",
     {
       {"Expected value of type \"String!\", found null.", {{1, 16}}},
       {"OneOf Input Object \"Pick\" must specify exactly one key.", {{1, 73}}}},
     "{ echo(input: {}, pick: {byName: \"n\"}) }"},
    {"ProvidedRequiredArguments", "customer", "{ customer { id @include } }",
     {
       {"Directive \"@include\" argument \"if\" of type \"Boolean!\" is required, but it was not provided.", {{1, 17}}},
       {"Field \"customer\" argument \"id\" of type \"ID!\" is required, but it was not provided.", {{1, 3}}}},
     "{ customer(id: \"1\") { id @include(if: true) } }"},
    {"VariablesInAllowedPosition", "customer", "query ($id: String!, $n: Int) { customer(id: $id) { id } customers(after: $n) { totalCount } }",
     {
       {"Variable \"$id\" of type \"String!\" used in position expecting type \"ID!\".", {{1, 8}, {1, 46}}},
       {"Variable \"$n\" of type \"Int\" used in position expecting type \"String\".", {{1, 22}, {1, 75}}}},
     "query ($id: ID!, $n: Int = 3) { customer(id: $id) { id } customers(first: $n) { totalCount } }"},
    {"VariablesInAllowedPosition-defaults", "kitchen", "query ($t: String) { search(text: $t) { __typename } }",
     {
       {"Variable \"$t\" of type \"String\" used in position expecting type \"String!\".", {{1, 8}, {1, 35}}}},
     "query ($t: String = \"x\", $l: Int) { search(text: $t, limit: $l) { __typename } }"},
    {"OverlappingFieldsCanBeMerged", "customer", "{ customer(id: \"1\") { x: id x: email } a: customer(id: \"1\") { id } a: customer(id: \"2\") { id } }",
     {
       {"Fields \"a\" conflict because they have differing arguments. Use different aliases on the fields to fetch both if this was intentional.", {{1, 40}, {1, 68}}},
       {"Fields \"x\" conflict because \"id\" and \"email\" are different fields. Use different aliases on the fields to fetch both if this was intentional.", {{1, 23}, {1, 29}}}},
     "{ customer(id: \"1\") { x: id x: id } a: customer(id: \"1\") { id } a: customer(id: \"1\") { email } }"},
    {"OverlappingFieldsCanBeMerged-types", "kitchen", "{ node(id: \"1\") { ... on Person { v: age } ... on Named { v: name } } }",
     {
       {"Fields \"v\" conflict because \"age\" and \"name\" are different fields. Use different aliases on the fields to fetch both if this was intentional.", {{1, 35}, {1, 59}}}},
     "{ node(id: \"1\") { ... on Person { v: id } ... on Place { v: id } } }"},
    {"UniqueInputFieldNames", "kitchen", "{ echo(input: {exact: true, exact: false}) }",
     {
       {"There can be only one input field named \"exact\".", {{1, 16}, {1, 29}}}},
     "{ echo(input: {exact: true, tags: []}) }"},
    {"MaxIntrospectionDepth", "customer", "{ __schema { types { fields { type { fields { type { fields { name } } } } } } } }",
     {
       {"Maximum introspection depth exceeded", {{1, 3}}}},
     "{ __schema { types { fields { type { fields { name } } } } } }"},
    {"KnownOperationTypes", "customer", "mutation M { __typename }",
     {
       {"The mutation operation is not supported by the schema.", {{1, 1}}}},
     "query M { __typename }"},
};
// clang-format on

struct Schemas {
  testing::CustomerStore store = testing::SampleStore();
  Schema customer = *testing::BuildCustomerSchema(store);
  Schema kitchen = *testing::BuildKitchenSinkSchema();
};

std::vector<ResponseError> ValidateText(const Schema& schema, const std::string& text, const Limits& limits = {}) {
  auto parsed = Parse(text, limits);
  REQUIRE(std::holds_alternative<Document>(parsed));
  return Validate(schema, std::get<Document>(parsed), limits);
}

}  // namespace

TEST_CASE("validation: each rule rejects its failing document with graphql-js's errors and accepts its passing one") {
  Schemas schemas;
  for (const RuleCase& c : kCases) {
    CAPTURE(c.rule);
    const Schema& schema = std::string(c.schema) == "kitchen" ? schemas.kitchen : schemas.customer;
    std::vector<ResponseError> errors = ValidateText(schema, c.failing);
    REQUIRE(errors.size() == c.errors.size());
    for (std::size_t i = 0; i < errors.size(); ++i) {
      CHECK(errors[i].message == c.errors[i].message);
      CHECK(errors[i].locations == c.errors[i].locations);
      CHECK(errors[i].code == "GRAPHQL_VALIDATION_FAILED");
      CHECK(!errors[i].path.has_value());
    }
    CHECK(ValidateText(schema, c.passing).empty());
  }
}

TEST_CASE("validation: every built-in rule is exercised") {
  std::set<std::string> rules;
  for (const RuleCase& c : kCases) {
    std::string r = c.rule;
    rules.insert(r.substr(0, r.find('-')));
  }
  for (const char* rule :
       {"ExecutableDefinitions", "UniqueOperationNames", "LoneAnonymousOperation", "KnownTypeNames",
        "FragmentsOnCompositeTypes", "VariablesAreInputTypes", "ScalarLeafs", "FieldsOnCorrectType",
        "UniqueFragmentNames", "KnownFragmentNames", "NoUnusedFragments", "PossibleFragmentSpreads", "NoFragmentCycles",
        "UniqueVariableNames", "NoUndefinedVariables", "NoUnusedVariables", "KnownDirectives",
        "UniqueDirectivesPerLocation", "KnownArgumentNames", "UniqueArgumentNames", "ValuesOfCorrectType",
        "ProvidedRequiredArguments", "VariablesInAllowedPosition", "OverlappingFieldsCanBeMerged",
        "UniqueInputFieldNames", "MaxIntrospectionDepth", "KnownOperationTypes"}) {
    CHECK_MESSAGE(rules.count(rule) == 1, rule);
  }
}

TEST_CASE("validation: getIntrospectionQuery() with every option is valid") {
  Schemas schemas;
  std::ifstream in(LIVECHAT_SOURCE_DIR "/tests/graphql/fixtures/introspection_query.graphql");
  std::stringstream ss;
  ss << in.rdbuf();
  CHECK(ValidateText(schemas.customer, ss.str()).empty());
  CHECK(ValidateText(schemas.kitchen, ss.str()).empty());
}

TEST_CASE("validation: limits on errors, work and fragment-expanded depth") {
  Schemas schemas;
  Limits limits;
  limits.maxValidationErrors = 3;
  std::vector<ResponseError> many = ValidateText(schemas.customer, "{ a b c d e f }", limits);
  REQUIRE(many.size() == 4);
  CHECK(many[3].message == "Too many validation errors, error limit reached. Validation aborted.");
  CHECK(many[3].locations.empty());

  // 1000 identical fields: graphql-js's OverlappingFieldsCanBeMerged runs out
  // of its complexity budget and aborts; so do we.
  std::string same = "{";
  for (int i = 0; i < 1000; ++i) same += " __typename";
  same += " }";
  std::vector<ResponseError> aborted = ValidateText(schemas.customer, same);
  REQUIRE(aborted.size() == 1);
  CHECK(aborted[0].message == "Validation aborted.");

  // A chain of fragments, each shallow, nests deeply once expanded.
  std::string chain = "{ ...F0 }";
  for (int i = 0; i < 70; ++i) chain += " fragment F" + std::to_string(i) + " on Query { ...F" + std::to_string(i + 1) + " }";
  chain += " fragment F70 on Query { __typename }";
  std::vector<ResponseError> deep = ValidateText(schemas.customer, chain);
  REQUIRE(deep.size() == 1);
  CHECK(deep[0].message == "Query is nested too deeply: more than 64 levels of fields and fragments.");
  CHECK(deep[0].locations == std::vector<Location>{{1, 1}});

  // Cycles do not hang the depth check; NoFragmentCycles reports them.
  std::vector<ResponseError> cycle =
      ValidateText(schemas.customer, "{ ...A } fragment A on Query { ...B } fragment B on Query { ...A __typename }");
  REQUIRE(cycle.size() == 1);
  CHECK(cycle[0].message == "Cannot spread fragment \"A\" within itself via \"B\".");

  // 1500 fragments spread side by side: comparing every pair would be
  // quadratic; the complexity budget stops it, as in graphql-js.
  std::string wide = "{ __typename ";
  for (int i = 0; i < 1500; ++i) wide += "...F" + std::to_string(i) + " ";
  wide += "}";
  for (int i = 0; i < 1500; ++i) wide += " fragment F" + std::to_string(i) + " on Query { a" + std::to_string(i) + ": __typename }";
  std::vector<ResponseError> wideErrors = ValidateText(schemas.customer, wide);
  REQUIRE(wideErrors.size() == 1);
  CHECK(wideErrors[0].message == "Validation aborted.");
}
