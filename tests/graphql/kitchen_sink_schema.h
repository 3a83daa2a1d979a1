// A schema using every kind of type the engine supports (interfaces, unions,
// input objects, oneOf, defaults, deprecations, a custom root name, a schema
// description). tests/graphql/fixtures/kitchen_sink.graphql is what
// graphql-js's printSchema prints for the same SDL; PrintSchema must match.
#pragma once

#include "livechat/graphql.h"

namespace livechat::graphql::testing {

inline Value Person(std::string id, std::string name, int age) {
  return Value(Value::Object{{"__typename", Value("Person")}, {"id", Value(std::move(id))},
                             {"name", Value(std::move(name))}, {"age", Value(age)}});
}

inline Result<Schema> BuildKitchenSinkSchema() {
  SchemaBuilder b;
  b.SetDescription("A schema that uses every kind of type the engine supports.");
  b.SetQueryType("Root");
  b.Add(InterfaceTypeDef{"Node", "Something with an id.", {FieldDef{"id", "ID!"}}});
  b.Add(InterfaceTypeDef{"Named",
                         std::nullopt,
                         {FieldDef{"id", "ID!"},
                          FieldDef{"name", "String", std::nullopt, {InputValueDef{"upper", "Boolean", std::nullopt, "false"}}}},
                         {"Node"}});
  b.Add(ObjectTypeDef{
      "Root",
      std::nullopt,
      {
          FieldDef{"node", "Node", std::nullopt, {InputValueDef{"id", "ID!"}},
                   [](const ResolveContext& ctx) -> FieldResult {
                     const std::string& id = ctx.Arg("id").AsString();
                     if (id == "p1") return Person("p1", "Ada", 36);
                     if (id == "x1") return Value(Value::Object{{"__typename", Value("Place")}, {"id", Value("x1")}, {"title", Value("Home")}});
                     if (id == "bad") return Value(Value::Object{{"__typename", Value("Kind")}});
                     return Value();
                   }},
          FieldDef{"search",
                   "[SearchResult!]!",
                   std::nullopt,
                   {InputValueDef{"text", "String!"}, InputValueDef{"limit", "Int", std::nullopt, "10"},
                    InputValueDef{"kinds", "[Kind!]", std::nullopt, "[A, B]"},
                    InputValueDef{"filter", "Filter", std::nullopt, "{tags: [\"x\"], exact: true}"}},
                   [](const ResolveContext& ctx) -> FieldResult {
                     // Echo the coerced arguments so tests can see defaults and coercion.
                     Value::List out;
                     out.push_back(Person("p1", ctx.Arg("text").AsString(), ctx.Arg("limit").IsInt() ? ctx.Arg("limit").AsInt() : -1));
                     out.push_back(Value(Value::Object{{"__typename", Value("Place")}, {"id", Value("x1")},
                                                       {"title", Value(Value(Value::Object(ctx.args())).ToJson())}}));
                     return Value(std::move(out));
                   }},
          FieldDef{"echo", "String", std::nullopt, {InputValueDef{"input", "Filter!"}, InputValueDef{"pick", "Pick"}},
                   [](const ResolveContext& ctx) -> FieldResult { return Value(Value(Value::Object(ctx.args())).ToJson()); },
                   "Use \"search\"."},
          FieldDef{"legacy", "Int", std::nullopt, {}, {}, "No longer supported"},
          FieldDef{"scalars",
                   "String",
                   std::nullopt,
                   {InputValueDef{"i", "Int"}, InputValueDef{"f", "Float", std::nullopt, "1.5"},
                    InputValueDef{"s", "String", std::nullopt, "\"a\\\"b\\u00e9\\n\""}, InputValueDef{"b", "Boolean"},
                    InputValueDef{"id", "ID", std::nullopt, "7"}, InputValueDef{"t", "Time"}},
                   [](const ResolveContext& ctx) -> FieldResult { return Value(Value(Value::Object(ctx.args())).ToJson()); }},
          FieldDef{"odd",
                   "Int",
                   "  Indented description\nwith a trailing quote\"",
                   {InputValueDef{"x", "[[Int!]]!", "an argument with a description", "[[1], [2, 3]]"}, InputValueDef{"y", "Int"}},
                   [](const ResolveContext&) -> FieldResult { return Value(1); }},
      }});
  b.Add(UnionTypeDef{"SearchResult", std::nullopt, {"Person", "Place"}});
  b.Add(ObjectTypeDef{
      "Person",
      std::nullopt,
      {FieldDef{"id", "ID!"},
       FieldDef{"name", "String", std::nullopt, {InputValueDef{"upper", "Boolean", std::nullopt, "false"}},
                [](const ResolveContext& ctx) -> FieldResult {
                  std::string name = ctx.source().Find("name")->AsString();
                  if (ctx.Arg("upper").AsBool()) {
                    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
                  }
                  return Value(name);
                }},
       FieldDef{"age", "Int"},
       FieldDef{"friends", "[Person]", std::nullopt, {InputValueDef{"first", "Int", std::nullopt, "2"}},
                [](const ResolveContext& ctx) -> FieldResult {
                  Value::List friends;
                  for (int i = 0; i < ctx.Arg("first").AsInt(); ++i) {
                    friends.push_back(i == 1 ? Value() : Person("f" + std::to_string(i), "Friend", 20 + i));
                  }
                  return Value(std::move(friends));
                }}},
      {"Named", "Node"}});
  b.Add(ObjectTypeDef{"Place",
                      std::nullopt,
                      {FieldDef{"id", "ID!"},
                       FieldDef{"title", "String",
                                "A description that is long enough to be printed on several lines because it exceeds "
                                "seventy characters."}},
                      {"Node"}});
  b.Add(EnumTypeDef{"Kind",
                    std::nullopt,
                    {EnumValueDef{"A"}, EnumValueDef{"B", "The second kind."}, EnumValueDef{"C", std::nullopt, "Gone"}}});
  b.Add(InputObjectTypeDef{"Filter",
                           std::nullopt,
                           {InputValueDef{"tags", "[String!]", std::nullopt, "[]"},
                            InputValueDef{"exact", "Boolean", std::nullopt, "false"}, InputValueDef{"range", "Range"},
                            InputValueDef{"old", "Int", std::nullopt, std::nullopt, "No longer used"}}});
  b.Add(InputObjectTypeDef{"Range",
                           std::nullopt,
                           {InputValueDef{"from", "Float", std::nullopt, "0.5"}, InputValueDef{"to", "Float"}}});
  b.Add(InputObjectTypeDef{"Pick", std::nullopt, {InputValueDef{"byId", "ID"}, InputValueDef{"byName", "String"}}, true});
  b.Add(ScalarTypeDef{"Time", "Time of day", "https://example.com/time"});
  return std::move(b).Build();
}

}  // namespace livechat::graphql::testing
