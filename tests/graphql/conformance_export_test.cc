// Exports what our engine says about tests/node/graphql/documents.json (parse
// and validation errors), the SDL it prints and the introspection result it
// returns, for tests/node/graphql/conformance.test.mjs to compare with
// graphql-js. Also asserts the corpus's own expectations, so the suite
// checks them without Node.
//
// Output: $LIVECHAT_GRAPHQL_CONFORMANCE_OUT, else
// <build>/graphql_conformance.json.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "graphql/customer_schema.h"
#include "graphql/kitchen_sink_schema.h"
#include "livechat/graphql.h"

namespace {

using namespace livechat::graphql;
using livechat::Result;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Value ErrorsValue(const std::vector<ResponseError>& errors) {
  Value::List list;
  for (const ResponseError& e : errors) {
    Value::List locations;
    for (const Location& l : e.locations) {
      locations.push_back(Value(Value::Object{{"line", Value(l.line)}, {"column", Value(l.column)}}));
    }
    list.push_back(Value(Value::Object{{"message", Value(e.message)}, {"locations", Value(std::move(locations))}}));
  }
  return Value(std::move(list));
}

Value SchemaValue(const Schema& schema, const std::string& introspectionQuery) {
  ExecutionResult r = Execute(schema, Request{introspectionQuery, std::nullopt, Value()});
  CHECK(r.errors.empty());
  return Value(Value::Object{{"sdl", Value(PrintSchema(schema))}, {"introspection", r.data}});
}

}  // namespace

TEST_CASE("graphql-js conformance export") {
  testing::CustomerStore store = testing::SampleStore();
  Result<Schema> customer = testing::BuildCustomerSchema(store);
  Result<Schema> kitchen = testing::BuildKitchenSinkSchema();
  REQUIRE(customer.ok());
  REQUIRE(kitchen.ok());

  const std::string corpus = ReadFile(LIVECHAT_SOURCE_DIR "/tests/node/graphql/documents.json");
  Result<Value> documents = ParseJson(corpus);
  REQUIRE(documents.ok());
  REQUIRE(documents->IsList());

  Value::List verdicts;
  for (const Value& doc : documents->AsList()) {
    const std::string id = doc.Find("id")->AsString();
    const Schema& schema = doc.Find("schema")->AsString() == "kitchen" ? *kitchen : *customer;
    const std::string& query = doc.Find("query")->AsString();
    std::string phase;
    std::vector<ResponseError> errors;
    auto parsed = Parse(query);
    if (std::holds_alternative<ResponseError>(parsed)) {
      phase = "parse";
      errors.push_back(std::get<ResponseError>(parsed));
    } else {
      errors = Validate(schema, std::get<Document>(parsed));
      phase = errors.empty() ? "valid" : "validate";
    }
    CAPTURE(id);
    if (id.rfind("parse/", 0) == 0) CHECK(phase == "parse");
    if (id.rfind("valid/", 0) == 0) CHECK(phase == "valid");
    if (id.rfind("rule/", 0) == 0) CHECK(phase == "validate");
    verdicts.push_back(
        Value(Value::Object{{"id", Value(id)}, {"phase", Value(phase)}, {"errors", ErrorsValue(errors)}}));
  }

  const std::string introspectionQuery = ReadFile(LIVECHAT_SOURCE_DIR "/tests/graphql/fixtures/introspection_query.graphql");
  Value out = Value(Value::Object{
      {"schemas", Value(Value::Object{{"customer", SchemaValue(*customer, introspectionQuery)},
                                      {"kitchen", SchemaValue(*kitchen, introspectionQuery)}})},
      {"verdicts", Value(std::move(verdicts))}});
  const char* env = std::getenv("LIVECHAT_GRAPHQL_CONFORMANCE_OUT");
  const std::string path = env != nullptr ? env : LIVECHAT_BINARY_DIR "/graphql_conformance.json";
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << out.ToJson();
  CHECK(file.good());
}
