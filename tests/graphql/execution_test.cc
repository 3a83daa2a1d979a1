// Execution on the Customer-shaped schema and the kitchen-sink schema:
// variables and defaults, coercion errors (graphql-js's messages), aliases,
// fragments, @skip/@include, null propagation, per-field errors with path,
// partial success, abstract types, and the response's JSON form.
#include <doctest/doctest.h>

#include "graphql/customer_schema.h"
#include "graphql/kitchen_sink_schema.h"
#include "livechat/graphql.h"

using namespace livechat::graphql;
using livechat::Result;

namespace {

struct Fixture {
  testing::CustomerStore store = testing::SampleStore();
  Schema customer = *testing::BuildCustomerSchema(store);
  Schema kitchen = *testing::BuildKitchenSinkSchema();

  std::string Run(const Schema& schema, const std::string& query, const std::string& variables = "null",
                  std::optional<std::string> operationName = std::nullopt) {
    Result<Value> vars = ParseJson(variables);
    REQUIRE(vars.ok());
    Request request{query, std::nullopt, *vars};
    if (operationName) request.operationName = *operationName;
    const std::string tree = Execute(schema, request, &store).ToJson();
    // Every case runs twice: the response written while values complete
    // (what the Customer API sends) must be the tree's text, byte for byte.
    auto parsed = Parse(request.query);
    if (const Document* document = std::get_if<Document>(&parsed); document && Validate(schema, *document).empty()) {
      auto prepared = Prepare(schema, *document, request.operationName, request.variables);
      if (const PreparedOperation* op = std::get_if<PreparedOperation>(&prepared)) {
        // The second run is this check's: the case counts its own calls.
        const int calls = store.resolverCalls;
        const ExecutionResult streamed = ExecuteToJson(*op, &store);
        store.resolverCalls = calls;
        CHECK(streamed.data.IsNull());
        REQUIRE(streamed.dataJson.has_value());
        CHECK(streamed.ToJson() == tree);
        ++streamedRuns;
      }
    }
    return tree;
  }
  int streamedRuns = 0;
  std::string Customers(const std::string& query, const std::string& variables = "null") {
    return Run(customer, query, variables);
  }
  std::string Kitchen(const std::string& query, const std::string& variables = "null") {
    return Run(kitchen, query, variables);
  }
};

}  // namespace

TEST_CASE("execution: a query over the Customer schema") {
  Fixture f;
  CHECK(f.Customers(R"({ customer(id: "cus_1") { id shopId firstName lastName fullName type channels ordersCount totalSpent createdAt updatedAt lastChatAt } })") ==
        R"({"data":{"customer":{"id":"cus_1","shopId":"shop_1","firstName":"Ada","lastName":"Lovelace","fullName":"Ada Lovelace","type":"CUSTOMER","channels":["ONLINE_STORE","EMAIL"],"ordersCount":3,"totalSpent":120.5,"createdAt":"2026-01-01T00:00:00Z","updatedAt":null,"lastChatAt":"2026-02-01T10:00:00Z"}}})");
  // A missing customer is null with no error.
  CHECK(f.Customers(R"({ customer(id: "nope") { id } })") == R"({"data":{"customer":null}})");
  // The context reaches resolvers.
  const int before = f.store.resolverCalls;
  f.Customers(R"({ customer(id: "cus_3") { id phone } })");
  CHECK(f.store.resolverCalls == before + 2);
}

TEST_CASE("execution: connections, forward and backward") {
  Fixture f;
  CHECK(f.Customers("{ customers(first: 2) { totalCount edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }") ==
        R"({"data":{"customers":{"totalCount":5,"edges":[{"cursor":"c0","node":{"id":"cus_1"}},{"cursor":"c1","node":{"id":"cus_2"}}],"pageInfo":{"hasNextPage":true,"hasPreviousPage":false,"startCursor":"c0","endCursor":"c1"}}}})");
  CHECK(f.Customers(R"({ customers(last: 2, before: "c4") { nodes { id } pageInfo { hasNextPage hasPreviousPage } } })") ==
        R"({"data":{"customers":{"nodes":[{"id":"cus_3"},{"id":"cus_4"}],"pageInfo":{"hasNextPage":true,"hasPreviousPage":true}}}})");
  CHECK(f.Customers(R"({ customers(first: 0) { nodes { id } pageInfo { startCursor endCursor } } })") ==
        R"({"data":{"customers":{"nodes":[],"pageInfo":{"startCursor":null,"endCursor":null}}}})");
}

TEST_CASE("execution: a field selected twice merges its sub-selections, first-seen order kept") {
  Fixture f;
  // The second `customers` adds fields after the first one's, then repeats
  // one: merging must find `totalCount` again after the grouped fields grew
  // (under ASan, an index into the moved entries read freed memory here).
  CHECK(f.Customers("{ customers(first: 2) { totalCount } customers(first: 2) { edges { cursor } pageInfo { hasNextPage } "
                    "nodes { id } totalCount edges { node { id } } } }") ==
        R"({"data":{"customers":{"totalCount":5,"edges":[{"cursor":"c0","node":{"id":"cus_1"}},{"cursor":"c1","node":{"id":"cus_2"}}],"pageInfo":{"hasNextPage":true},"nodes":[{"id":"cus_1"},{"id":"cus_2"}]}}})");
}

TEST_CASE("execution: variables, defaults and coercion") {
  Fixture f;
  const std::string page = "query ($first: Int = 1, $after: String) { customers(first: $first, after: $after) { nodes { id } } }";
  CHECK(f.Customers(page) == R"({"data":{"customers":{"nodes":[{"id":"cus_1"}]}}})");
  CHECK(f.Customers(page, R"({"first": 2, "after": "c0"})") ==
        R"({"data":{"customers":{"nodes":[{"id":"cus_2"},{"id":"cus_3"}]}}})");
  // An explicit null overrides the default (and here means "no limit").
  CHECK(f.Customers(page, R"({"first": null})") ==
        R"({"data":{"customers":{"nodes":[{"id":"cus_1"},{"id":"cus_2"},{"id":"cus_3"},{"id":"cus_4"},{"id":"cus_5"}]}}})");
  // An Int literal is accepted for ID and becomes a string.
  CHECK(f.Customers("query ($id: ID!) { customer(id: $id) { id } }", R"({"id": 7})") == R"({"data":{"customer":null}})");
  // Unknown variables in the request are ignored.
  CHECK(f.Customers("{ __typename }", R"({"extra": 1})") == R"({"data":{"__typename":"Query"}})");
}

TEST_CASE("execution: variable coercion errors are request errors with graphql-js's messages") {
  Fixture f;
  const std::string q = "query ($first: Int) { customers(first: $first) { totalCount } }";
  CHECK(f.Customers(q, R"({"first": "x"})") ==
        R"({"errors":[{"message":"Variable \"$first\" got invalid value \"x\"; Int cannot represent non-integer value: \"x\"","locations":[{"line":1,"column":8}],"extensions":{"code":"BAD_USER_INPUT"}}]})");
  CHECK(f.Customers(q, R"({"first": 1.5})") ==
        R"({"errors":[{"message":"Variable \"$first\" got invalid value 1.5; Int cannot represent non-integer value: 1.5","locations":[{"line":1,"column":8}],"extensions":{"code":"BAD_USER_INPUT"}}]})");
  CHECK(f.Customers(q, R"({"first": 3000000000})") ==
        R"({"errors":[{"message":"Variable \"$first\" got invalid value 3000000000; Int cannot represent non 32-bit signed integer value: 3000000000","locations":[{"line":1,"column":8}],"extensions":{"code":"BAD_USER_INPUT"}}]})");
  const std::string byId = "query ($id: ID!) { customer(id: $id) { id } }";
  CHECK(f.Customers(byId, "{}") ==
        R"({"errors":[{"message":"Variable \"$id\" of required type \"ID!\" was not provided.","locations":[{"line":1,"column":8}],"extensions":{"code":"BAD_USER_INPUT"}}]})");
  CHECK(f.Customers(byId, R"({"id": null})") ==
        R"({"errors":[{"message":"Variable \"$id\" of non-null type \"ID!\" must not be null.","locations":[{"line":1,"column":8}],"extensions":{"code":"BAD_USER_INPUT"}}]})");
  CHECK(f.Customers(byId, R"({"id": [1]})") ==
        R"({"errors":[{"message":"Variable \"$id\" got invalid value [1]; ID cannot represent value: [1]","locations":[{"line":1,"column":8}],"extensions":{"code":"BAD_USER_INPUT"}}]})");

  // Nested input objects: every problem, with its path inside the variable.
  ExecutionResult r = Execute(f.kitchen, Request{"query ($f: Filter!, $p: Pick) { echo(input: $f, pick: $p) }", std::nullopt,
                                                 *ParseJson(R"({"f": {"range": {"from": "x"}, "nope": 1, "tags": [1, "a"]}, "p": {"byId": "1", "byName": "x"}})")});
  REQUIRE(r.errors.size() == 4);
  CHECK(!r.hasData);
  CHECK(r.errors[0].message == "Variable \"$f\" got invalid value 1 at \"f.tags[0]\"; String cannot represent a non string value: 1");
  CHECK(r.errors[1].message == "Variable \"$f\" got invalid value \"x\" at \"f.range.from\"; Float cannot represent non numeric value: \"x\"");
  CHECK(r.errors[2].message == "Variable \"$f\" got invalid value { range: { from: \"x\" }, nope: 1, tags: [1, \"a\"] }; Field \"nope\" is not defined by type \"Filter\".");
  CHECK(r.errors[3].message == "Variable \"$p\" got invalid value { byId: \"1\", byName: \"x\" }; Exactly one key must be specified for OneOf type \"Pick\".");
  CHECK(r.errors[3].locations == std::vector<Location>{{1, 21}});

  r = Execute(f.kitchen, Request{"query ($k: [Kind!]) { search(text: \"x\", kinds: $k) { __typename } }", std::nullopt,
                                 *ParseJson(R"({"k": ["A", "Z", 3, null]})")});
  REQUIRE(r.errors.size() == 3);
  CHECK(r.errors[0].message == "Variable \"$k\" got invalid value \"Z\" at \"k[1]\"; Value \"Z\" does not exist in \"Kind\" enum. Did you mean the enum value \"A\", \"B\", or \"C\"?");
  CHECK(r.errors[1].message == "Variable \"$k\" got invalid value 3 at \"k[2]\"; Enum \"Kind\" cannot represent non-string value: 3. Did you mean the enum value \"A\", \"B\", or \"C\"?");
  CHECK(r.errors[2].message == "Variable \"$k\" got invalid value null at \"k[3]\"; Expected non-nullable type \"Kind!\" not to be null.");
}

TEST_CASE("execution: argument defaults, literal coercion, list and input object coercion") {
  Fixture f;
  CHECK(f.Kitchen(R"({ search(text: "q") { ... on Place { title } } })") ==
        R"({"data":{"search":[{},{"title":"{\"text\":\"q\",\"limit\":10,\"kinds\":[\"A\",\"B\"],\"filter\":{\"tags\":[\"x\"],\"exact\":true}}"}]}})");
  // A single value where a list is expected becomes a list of one; input
  // object fields take their defaults.
  CHECK(f.Kitchen(R"({ search(text: "q", kinds: C, filter: {tags: "one", range: {to: 2}}) { ... on Place { title } } })") ==
        R"({"data":{"search":[{},{"title":"{\"text\":\"q\",\"limit\":10,\"kinds\":[\"C\"],\"filter\":{\"tags\":[\"one\"],\"exact\":false,\"range\":{\"from\":0.5,\"to\":2}}}"}]}})");
  CHECK(f.Kitchen(R"({ scalars(i: 1, b: true, t: "noon") })") ==
        R"({"data":{"scalars":"{\"i\":1,\"f\":1.5,\"s\":\"a\\\"bé\\n\",\"b\":true,\"id\":\"7\",\"t\":\"noon\"}"}})");
  // Variables inside literals; an absent variable leaves the argument out.
  CHECK(f.Kitchen(R"(query ($to: Float, $tags: [String!]) { echo(input: {tags: $tags, range: {to: $to}}) })", R"({"to": 3})") ==
        R"({"data":{"echo":"{\"input\":{\"tags\":[],\"exact\":false,\"range\":{\"from\":0.5,\"to\":3}}}"}})");
  CHECK(f.Kitchen(R"({ echo(input: {}, pick: {byName: "n"}) })") ==
        R"({"data":{"echo":"{\"input\":{\"tags\":[],\"exact\":false},\"pick\":{\"byName\":\"n\"}}"}})");
}

TEST_CASE("execution: aliases, fragments, @skip and @include") {
  Fixture f;
  CHECK(f.Customers(R"(query ($no: Boolean!, $yes: Boolean = true) {
      a: customer(id: "cus_1") { ...Names id @skip(if: $no) }
      b: customer(id: "cus_3") { ... on Customer { phone } ... @include(if: $yes) { type } ...Names @skip(if: true) }
      c: customer(id: "cus_4") @include(if: false) { id }
    }
    fragment Names on Customer { firstName fullName })",
                    R"({"no": true})") ==
        R"({"data":{"a":{"firstName":"Ada","fullName":"Ada Lovelace"},"b":{"phone":"+15550100","type":"GUEST"}}})");
  // The same field selected twice (directly and through a fragment) is
  // resolved once and keeps its first position.
  CHECK(f.Customers(R"({ customer(id: "cus_1") { id ...F firstName } } fragment F on Customer { firstName id })") ==
        R"({"data":{"customer":{"id":"cus_1","firstName":"Ada"}}})");
  CHECK(f.Customers(R"({ __typename customer(id: "cus_1") { __typename } })") ==
        R"({"data":{"__typename":"Query","customer":{"__typename":"Customer"}}})");
}

TEST_CASE("execution: null propagates to the nearest nullable parent; errors carry path and locations") {
  Fixture f;
  // customer is nullable: its non-null firstName failing nulls it.
  CHECK(f.Customers(R"({ customer(id: "cus_5") { id firstName } other: customer(id: "cus_1") { id } })") ==
        R"({"data":{"customer":null,"other":{"id":"cus_1"}},"errors":[{"message":"Cannot return null for non-nullable field Customer.firstName.","locations":[{"line":1,"column":30}],"path":["customer","firstName"]}]})");
  // Every position up to the root is non-null: data itself becomes null.
  CHECK(f.Customers("{ customers(last: 1) { nodes { firstName } } }") ==
        R"({"data":null,"errors":[{"message":"Cannot return null for non-nullable field Customer.firstName.","locations":[{"line":1,"column":32}],"path":["customers","nodes",0,"firstName"]}]})");
  // A resolver's error on a nullable field: that field is null, the rest stays.
  CHECK(f.Customers("{ customers(first: 2) { edges { node { id email } } } }") ==
        R"({"data":{"customers":{"edges":[{"node":{"id":"cus_1","email":"ada@example.com"}},{"node":{"id":"cus_2","email":null}}]}},"errors":[{"message":"email is hidden for this customer","locations":[{"line":1,"column":43}],"path":["customers","edges",1,"node","email"],"extensions":{"code":"FORBIDDEN"}}]})");
  // Partial success across root fields.
  CHECK(f.Customers(R"({ a: customer(id: "cus_1") { id } b: customer(id: "boom") { id } })") ==
        R"({"data":{"a":{"id":"cus_1"},"b":null},"errors":[{"message":"customer lookup failed","locations":[{"line":1,"column":35}],"path":["b"],"extensions":{"code":"INTERNAL_SERVER_ERROR"}}]})");
  // A resolver's negative-argument error on a non-null root field.
  CHECK(f.Customers("{ customers(first: -1) { totalCount } }") ==
        R"({"data":null,"errors":[{"message":"first must not be negative","locations":[{"line":1,"column":3}],"path":["customers"],"extensions":{"code":"BAD_USER_INPUT"}}]})");
  // Merged fields report every location.
  CHECK(f.Customers(R"({ customer(id: "cus_5") { firstName } customer(id: "cus_5") { firstName } })") ==
        R"({"data":{"customer":null},"errors":[{"message":"Cannot return null for non-nullable field Customer.firstName.","locations":[{"line":1,"column":27},{"line":1,"column":63}],"path":["customer","firstName"]}]})");
  // Each of the six also ran written while completing, nulls cut back in
  // the text, and gave the same bytes.
  CHECK(f.streamedRuns == 6);
}

TEST_CASE("execution: argument errors from variables, and directive errors") {
  Fixture f;
  CHECK(f.Kitchen(R"(query ($t: String = "x") { search(text: $t) { __typename } })", R"({"t": null})") ==
        R"({"data":null,"errors":[{"message":"Argument \"text\" of non-null type \"String!\" must not be null.","locations":[{"line":1,"column":41}],"path":["search"]}]})");
  CHECK(f.Kitchen("query ($s: Boolean = false) { legacy @skip(if: $s) }", R"({"s": null})") ==
        R"({"data":null,"errors":[{"message":"Argument \"if\" of non-null type \"Boolean!\" must not be null.","locations":[{"line":1,"column":48}]}]})");
}

TEST_CASE("execution: interfaces and unions") {
  Fixture f;
  CHECK(f.Kitchen(R"({ node(id: "p1") { __typename id ... on Named { name(upper: true) } ... on Person { age friends(first: 3) { name } } ... on Place { title } } })") ==
        R"({"data":{"node":{"__typename":"Person","id":"p1","name":"ADA","age":36,"friends":[{"name":"Friend"},null,{"name":"Friend"}]}}})");
  CHECK(f.Kitchen(R"({ node(id: "x1") { id ... on Person { age } ... on Place { title } } })") ==
        R"({"data":{"node":{"id":"x1","title":"Home"}}})");
  CHECK(f.Kitchen(R"({ search(text: "z") { __typename ... on Node { id } } })") ==
        R"({"data":{"search":[{"__typename":"Person","id":"p1"},{"__typename":"Place","id":"x1"}]}})");
  CHECK(f.Kitchen(R"({ node(id: "bad") { id } })") ==
        R"({"data":{"node":null},"errors":[{"message":"Abstract type \"Node\" was resolved to a non-object type \"Kind\".","locations":[{"line":1,"column":3}],"path":["node"]}]})");
}

namespace {

// A small schema whose resolvers return values their types cannot hold.
Schema BrokenSchema() {
  SchemaBuilder b;
  b.Add(EnumTypeDef{"Color", std::nullopt, {EnumValueDef{"RED"}}});
  b.Add(ObjectTypeDef{
      "Query",
      std::nullopt,
      {FieldDef{"color", "Color", std::nullopt, {}, [](const ResolveContext&) -> FieldResult { return Value("BLUE"); }},
       FieldDef{"count", "Int", std::nullopt, {}, [](const ResolveContext&) -> FieldResult { return Value(3.5); }},
       FieldDef{"big", "Int", std::nullopt, {}, [](const ResolveContext&) -> FieldResult { return Value(1e10); }},
       FieldDef{"fromString", "Int", std::nullopt, {}, [](const ResolveContext&) -> FieldResult { return Value("42"); }},
       FieldDef{"flag", "Boolean", std::nullopt, {}, [](const ResolveContext&) -> FieldResult { return Value("yes"); }},
       FieldDef{"list", "[Int]", std::nullopt, {}, [](const ResolveContext&) -> FieldResult { return Value(1); }},
       FieldDef{"text", "String", std::nullopt, {}, [](const ResolveContext&) -> FieldResult { return Value(2.5); }},
       FieldDef{"items", "[Int!]", std::nullopt, {},
                [](const ResolveContext&) -> FieldResult { return Value(Value::List{Value(1), Value()}); }},
       FieldDef{"internal", "String", std::nullopt, {},
                [](const ResolveContext&) -> FieldResult {
                  return livechat::Error{livechat::ErrorCode::kInternal, "disk on fire at /var/db"};
                }},
       FieldDef{"path", "[Query]", std::nullopt, {},
                [](const ResolveContext& ctx) -> FieldResult {
                  Value::List out;
                  out.push_back(Value(Value::Object{}));
                  if (ctx.Path().size() == 1) return Value(std::move(out));
                  return Value();
                }},
       FieldDef{"where", "String", std::nullopt, {},
                [](const ResolveContext& ctx) -> FieldResult {
                  std::string s = std::string(ctx.parentTypeName()) + "." + std::string(ctx.fieldName());
                  for (const auto& p : ctx.Path()) {
                    s += std::holds_alternative<int>(p) ? "/" + std::to_string(std::get<int>(p)) : "/" + std::get<std::string>(p);
                  }
                  return Value(s);
                }}}});
  return *std::move(b).Build();
}

}  // namespace

TEST_CASE("execution: values a type cannot represent become field errors") {
  Schema schema = BrokenSchema();
  ExecutionResult r = Execute(schema, Request{"{ color count big fromString flag list text items internal path { where } }", std::nullopt, Value()});
  CHECK(r.data.ToJson() == R"({"color":null,"count":null,"big":null,"fromString":42,"flag":null,"list":null,"text":"2.5","items":null,"internal":null,"path":[{"where":"Query.where/path/0/where"}]})");
  REQUIRE(r.errors.size() == 7);
  CHECK(r.errors[0].message == "Enum \"Color\" cannot represent value: \"BLUE\"");
  CHECK(r.errors[1].message == "Int cannot represent non-integer value: 3.5");
  CHECK(r.errors[2].message == "Int cannot represent non 32-bit signed integer value: 10000000000");
  CHECK(r.errors[3].message == "Boolean cannot represent a non boolean value: \"yes\"");
  CHECK(r.errors[4].message == "Expected Iterable, but did not find one for field \"Query.list\".");
  CHECK(r.errors[5].message == "Cannot return null for non-nullable field Query.items.");
  CHECK(r.errors[5].path == std::vector<PathElement>{std::string("items"), 1});
  CHECK(r.errors[6].message == "internal error");  // the detail stays in the server
  CHECK(r.errors[6].code == "INTERNAL_SERVER_ERROR");
  // Written while completing: the same text, the list's null item (items: a
  // non-null item inside a nullable list) cut back to null.
  auto parsed = Parse("{ color count big fromString flag list text items internal path { where } }");
  REQUIRE(std::holds_alternative<Document>(parsed));
  auto prepared = Prepare(schema, std::get<Document>(parsed), std::nullopt, Value());
  REQUIRE(std::holds_alternative<PreparedOperation>(prepared));
  ExecutionResult streamed = ExecutePreparedToJson(std::get<PreparedOperation>(prepared), nullptr, nullptr);
  CHECK(*streamed.dataJson == r.data.ToJson());
  CHECK(streamed.ToJson() == r.ToJson());
}

TEST_CASE("execution: choosing the operation") {
  Fixture f;
  const std::string two = "query A { a: __typename } query B { b: __typename }";
  CHECK(f.Run(f.customer, two) ==
        R"({"errors":[{"message":"Must provide operation name if query contains multiple operations.","extensions":{"code":"BAD_REQUEST"}}]})");
  CHECK(f.Run(f.customer, two, "null", "B") == R"({"data":{"b":"Query"}})");
  CHECK(f.Run(f.customer, two, "null", "C") ==
        R"({"errors":[{"message":"Unknown operation named \"C\".","extensions":{"code":"BAD_REQUEST"}}]})");
  CHECK(f.Run(f.customer, "fragment F on Query { __typename }", "null") ==
        R"({"errors":[{"message":"Fragment \"F\" is never used.","locations":[{"line":1,"column":1}],"extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}]})");
  CHECK(f.Run(f.customer, "{ __typename }", "[1]") ==
        R"({"errors":[{"message":"Variables must be provided as an Object where each property is a variable value.","extensions":{"code":"BAD_REQUEST"}}]})");
  CHECK(f.Run(f.customer, "{ __typename", "null") ==
        R"({"errors":[{"message":"Syntax Error: Expected Name, found <EOF>.","locations":[{"line":1,"column":13}],"extensions":{"code":"GRAPHQL_PARSE_FAILED"}}]})");
  CHECK(f.Run(f.customer, "mutation { __typename }", "null") ==
        R"({"errors":[{"message":"The mutation operation is not supported by the schema.","locations":[{"line":1,"column":1}],"extensions":{"code":"GRAPHQL_VALIDATION_FAILED"}}]})");
}

TEST_CASE("execution: the step-by-step API (root fields for auth, cost for metering)") {
  Fixture f;
  auto parsed = Parse(R"(query ($skip: Boolean!) {
      __schema { queryType { name } }
      ...Root
      again: customers(first: 3) { nodes { id } }
      hidden: customer(id: "x") @skip(if: $skip) { id }
    }
    fragment Root on Query { customers(first: 10) { totalCount edges { node { id email } } } })");
  REQUIRE(std::holds_alternative<Document>(parsed));
  const Document& doc = std::get<Document>(parsed);
  REQUIRE(Validate(f.customer, doc).empty());
  auto prepared = Prepare(f.customer, doc, std::nullopt, *ParseJson(R"({"skip": true})"));
  REQUIRE(std::holds_alternative<PreparedOperation>(prepared));
  const PreparedOperation& op = std::get<PreparedOperation>(prepared);
  CHECK(RootFieldNames(op) == std::vector<std::string>{"__schema", "customers"});

  // One point per field; a connection multiplies what is below it by its page size.
  const std::int64_t cost = CalculateCost(op, [](const WeighedField& field) {
    FieldWeight w{1, 1};
    if (field.parentType == "Query" && field.fieldName == "customers") {
      for (const auto& [name, value] : field.args) {
        if (name == "first" && value.IsInt()) w.multiplier = value.AsInt();
      }
    }
    return w;
  });
  // __schema(1) queryType(1) name(1); customers(1) totalCount(10) edges(10) node(10) id(10) email(10);
  // again(1) nodes(3) id(3).
  CHECK(cost == 3 + 1 + 50 + 1 + 6);

  ExecutionResult r = Execute(op, &f.store);
  CHECK(r.hasData);
  r.extensions.emplace_back("cost", Value(static_cast<int>(cost)));
  CHECK(r.ToJson().find(R"(,"extensions":{"cost":61}})") != std::string::npos);

  auto introspectionOnly = Parse("{ __typename __type(name: \"Customer\") { name } }");
  auto p2 = Prepare(f.customer, std::get<Document>(introspectionOnly), std::nullopt, Value());
  CHECK(RootFieldNames(std::get<PreparedOperation>(p2)) == std::vector<std::string>{"__typename", "__type"});
}
