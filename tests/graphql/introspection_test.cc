// Introspection (getIntrospectionQuery() with every option; __type,
// __typename), the SDL printer against the shipped SDL, and SchemaBuilder's
// checks. Expected lists and values come from graphql-js 16 run on the same
// SDL; the Node conformance test compares whole introspection results.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "graphql/customer_schema.h"
#include "graphql/kitchen_sink_schema.h"
#include "livechat/graphql.h"

using namespace livechat::graphql;
using livechat::Result;

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<std::string> Names(const Value& list, const char* key = "name") {
  std::vector<std::string> out;
  for (const Value& v : list.AsList()) out.push_back(v.Find(key)->AsString());
  return out;
}

ExecutionResult Run(const Schema& schema, const std::string& query) {
  return Execute(schema, Request{query, std::nullopt, Value()});
}

}  // namespace

TEST_CASE("introspection: getIntrospectionQuery() with every option runs and lists every type") {
  testing::CustomerStore store = testing::SampleStore();
  Schema schema = *testing::BuildCustomerSchema(store);
  // Introspection needs no resolvers of ours and no context.
  ExecutionResult r = Run(schema, ReadFile(LIVECHAT_SOURCE_DIR "/tests/graphql/fixtures/introspection_query.graphql"));
  REQUIRE(r.errors.empty());
  const Value& s = *r.data.Find("__schema");
  CHECK(s.Find("queryType")->Find("name")->AsString() == "Query");
  CHECK(s.Find("mutationType")->IsNull());
  CHECK(s.Find("subscriptionType")->IsNull());
  CHECK(Names(*s.Find("types")) ==
        std::vector<std::string>{"Query", "ID", "Int", "String", "Customer", "Float", "Boolean", "CustomerType",
                                 "Channel", "DateTime", "CustomerConnection", "CustomerEdge", "PageInfo", "__Schema",
                                 "__Type", "__TypeKind", "__Field", "__InputValue", "__EnumValue", "__Directive",
                                 "__DirectiveLocation"});
  CHECK(Names(*s.Find("directives")) == std::vector<std::string>{"include", "skip", "deprecated", "specifiedBy", "oneOf"});
  for (const Value& t : s.Find("types")->AsList()) {
    if (t.Find("name")->AsString() != "DateTime") continue;
    CHECK(t.Find("specifiedByURL")->AsString() == "https://scalars.graphql.org/andimarek/date-time");
  }
}

TEST_CASE("introspection: __type, wrappers, deprecation filters, defaults, abstract types") {
  Schema schema = *testing::BuildKitchenSinkSchema();
  ExecutionResult r = Run(schema, R"({
    root: __type(name: "Root") { fields { name isDeprecated args { name defaultValue } } }
    all: __type(name: "Root") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } }
    kind: __type(name: "Kind") { enumValues { name } all: enumValues(includeDeprecated: true) { name isDeprecated } }
    filter: __type(name: "Filter") { inputFields { name } withOld: inputFields(includeDeprecated: true) { name } isOneOf }
    pick: __type(name: "Pick") { isOneOf possibleTypes { name } }
    node: __type(name: "Node") { kind possibleTypes { name } interfaces { name } }
    named: __type(name: "Named") { interfaces { name } possibleTypes { name } }
    union: __type(name: "SearchResult") { kind possibleTypes { name } fields { name } }
    time: __type(name: "Time") { specifiedByURL kind description }
    missing: __type(name: "Nope") { name }
    __typename
  })");
  REQUIRE(r.errors.empty());
  const Value& d = r.data;
  CHECK(Names(*d.Find("root")->Find("fields")) == std::vector<std::string>{"node", "search", "scalars", "odd"});
  CHECK(Names(*d.Find("all")->Find("fields")) ==
        std::vector<std::string>{"node", "search", "echo", "legacy", "scalars", "odd"});
  CHECK(d.Find("all")->Find("fields")->AsList()[2].ToJson() ==
        R"({"name":"echo","isDeprecated":true,"deprecationReason":"Use \"search\"."})");
  CHECK(d.Find("root")->Find("fields")->AsList()[1].Find("args")->ToJson() ==
        R"([{"name":"text","defaultValue":null},{"name":"limit","defaultValue":"10"},{"name":"kinds","defaultValue":"[A, B]"},{"name":"filter","defaultValue":"{tags: [\"x\"], exact: true}"}])");
  CHECK(d.Find("root")->Find("fields")->AsList()[2].Find("args")->ToJson() ==
        R"([{"name":"i","defaultValue":null},{"name":"f","defaultValue":"1.5"},{"name":"s","defaultValue":"\"a\\\"bé\\n\""},{"name":"b","defaultValue":null},{"name":"id","defaultValue":"7"},{"name":"t","defaultValue":null}])");
  CHECK(Names(*d.Find("kind")->Find("enumValues")) == std::vector<std::string>{"A", "B"});
  CHECK(d.Find("kind")->Find("all")->AsList()[2].ToJson() == R"({"name":"C","isDeprecated":true})");
  CHECK(Names(*d.Find("filter")->Find("inputFields")) == std::vector<std::string>{"tags", "exact", "range"});
  CHECK(Names(*d.Find("filter")->Find("withOld")) == std::vector<std::string>{"tags", "exact", "range", "old"});
  CHECK(d.Find("filter")->Find("isOneOf")->AsBool() == false);
  CHECK(d.Find("pick")->ToJson() == R"({"isOneOf":true,"possibleTypes":null})");
  CHECK(d.Find("node")->ToJson() ==
        R"({"kind":"INTERFACE","possibleTypes":[{"name":"Person"},{"name":"Place"}],"interfaces":[]})");
  CHECK(d.Find("named")->ToJson() == R"({"interfaces":[{"name":"Node"}],"possibleTypes":[{"name":"Person"}]})");
  CHECK(d.Find("union")->ToJson() == R"({"kind":"UNION","possibleTypes":[{"name":"Person"},{"name":"Place"}],"fields":null})");
  CHECK(d.Find("time")->ToJson() == R"({"specifiedByURL":"https://example.com/time","kind":"SCALAR","description":"Time of day"})");
  CHECK(d.Find("missing")->IsNull());
  CHECK(d.Find("__typename")->AsString() == "Root");

  ExecutionResult wrapped = Run(schema, R"({ __type(name: "Root") { fields { name type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } })");
  REQUIRE(wrapped.errors.empty());
  CHECK(wrapped.data.Find("__type")->Find("fields")->AsList()[1].ToJson() ==
        R"({"name":"search","type":{"kind":"NON_NULL","name":null,"ofType":{"kind":"LIST","name":null,"ofType":{"kind":"NON_NULL","name":null,"ofType":{"kind":"UNION","name":"SearchResult"}}}}})");
}

TEST_CASE("PrintSchema prints exactly the shipped SDL (graphql-js printSchema output)") {
  testing::CustomerStore store = testing::SampleStore();
  Schema customer = *testing::BuildCustomerSchema(store);
  CHECK(PrintSchema(customer) + "\n" == ReadFile(LIVECHAT_SOURCE_DIR "/docs/graphql/schema.graphql"));
  Schema kitchen = *testing::BuildKitchenSinkSchema();
  CHECK(PrintSchema(kitchen) + "\n" == ReadFile(LIVECHAT_SOURCE_DIR "/tests/graphql/fixtures/kitchen_sink.graphql"));
}

TEST_CASE("SchemaBuilder rejects schemas graphql-js would reject") {
  auto build = [](auto... types) {
    SchemaBuilder b;
    (b.Add(types), ...);
    return std::move(b).Build();
  };
  auto message = [](const Result<Schema>& r) { return r.ok() ? std::string("ok") : r.error().message; };
  const ObjectTypeDef query{"Query", std::nullopt, {FieldDef{"a", "Int"}}};

  CHECK(message(build(query)) == "ok");
  CHECK(message(build(ObjectTypeDef{"Root", std::nullopt, {FieldDef{"a", "Int"}}})) == "Query root type must be provided.");
  CHECK(message(build(query, EnumTypeDef{"Query", std::nullopt, {EnumValueDef{"A"}}})) ==
        "Schema must contain uniquely named types but contains multiple types named \"Query\".");
  CHECK(message(build(query, ScalarTypeDef{"String"})) == "Type \"String\" is built in; do not declare it.");
  CHECK(message(build(ObjectTypeDef{"Query", std::nullopt, {FieldDef{"a", "Missing"}}})) ==
        "Unknown type \"Missing\" in field Query.a.");
  CHECK(message(build(ObjectTypeDef{"Query", std::nullopt, {FieldDef{"a", "[Int"}}})) ==
        "The type \"[Int\" of field Query.a is not a type reference: Expected \"]\", found <EOF>.");
  CHECK(message(build(ObjectTypeDef{"Query", std::nullopt, {FieldDef{"1a", "Int"}}})) ==
        "Names must start with [_a-zA-Z] but \"1a\" does not.");
  CHECK(message(build(ObjectTypeDef{"Query", std::nullopt, {FieldDef{"__a", "Int"}}})) ==
        "Name \"__a\" must not begin with \"__\", which is reserved by GraphQL introspection.");
  CHECK(message(build(ObjectTypeDef{"Query", std::nullopt, {}})) == "Type Query must define one or more fields.");
  CHECK(message(build(ObjectTypeDef{"Query", std::nullopt, {FieldDef{"a", "In"}}},
                      InputObjectTypeDef{"In", std::nullopt, {InputValueDef{"x", "Int"}}})) ==
        "The type of field Query.a must be Output Type but got: In.");
  CHECK(message(build(ObjectTypeDef{"Query", std::nullopt, {FieldDef{"a", "Int", std::nullopt, {InputValueDef{"x", "Query"}}}}})) ==
        "The type of argument Query.a(x:) must be Input Type but got: Query.");
  CHECK(message(build(ObjectTypeDef{"Query", std::nullopt, {FieldDef{"a", "Int", std::nullopt, {InputValueDef{"x", "Int", std::nullopt, "\"no\""}}}}})) ==
        "The default value of argument Query.a(x:) is invalid for its type: \"no\".");
  CHECK(message(build(ObjectTypeDef{"Query", std::nullopt, {FieldDef{"a", "Int", std::nullopt, {InputValueDef{"x", "Int!", std::nullopt, std::nullopt, "old"}}}}})) ==
        "Required argument Query.a(x:) cannot be deprecated.");
  CHECK(message(build(query, EnumTypeDef{"E", std::nullopt, {EnumValueDef{"true"}}})) ==
        "Enum type E cannot include value: true.");
  CHECK(message(build(query, UnionTypeDef{"U", std::nullopt, {"Int"}})) ==
        "Union type U can only include Object types, it cannot include Int.");
  CHECK(message(build(ObjectTypeDef{"Query", std::nullopt, {FieldDef{"a", "Int"}}, {"I"}},
                      InterfaceTypeDef{"I", std::nullopt, {FieldDef{"b", "Int"}}})) ==
        "Interface field I.b expected but Query does not provide it.");
  CHECK(message(build(ObjectTypeDef{"Query", std::nullopt, {FieldDef{"b", "String"}}, {"I"}},
                      InterfaceTypeDef{"I", std::nullopt, {FieldDef{"b", "Int"}}})) ==
        "Interface field I.b expects type Int but Query.b is type String.");
}
