// Hostile and malformed input: deterministic random mutations of real
// documents go through the whole pipeline (parse, validate, prepare,
// execute, serialize) and must produce a well-formed response, never a
// crash. A libFuzzer target can reuse the same loop body.
#include <doctest/doctest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "graphql/customer_schema.h"
#include "graphql/kitchen_sink_schema.h"
#include "livechat/graphql.h"

using namespace livechat::graphql;

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const char* const kFragments[] = {"{", "}", "(", ")", "[", "]", "...", "on ", "$v", ": ", "@skip(if: true)",
                                  "\"", "\"\"\"", "\\u{", "#", "\n", "query ", "fragment F on Query ", "...F",
                                  "null", "-1e9", "0x", "\xf0\x9f\x98", "\xff", "__schema", "__typename", ","};

std::string Mutate(std::string s, std::mt19937& rng) {
  const int edits = 1 + static_cast<int>(rng() % 2);
  for (int i = 0; i < edits; ++i) {
    const std::size_t pos = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 4) {
      case 0:  // delete a run
        if (!s.empty() && pos < s.size()) s.erase(pos, 1 + rng() % 8);
        break;
      case 1:  // insert a token-ish fragment
        s.insert(pos, kFragments[rng() % (sizeof(kFragments) / sizeof(kFragments[0]))]);
        break;
      case 2:  // flip a byte
        if (pos < s.size()) s[pos] = static_cast<char>(rng() % 256);
        break;
      default:  // duplicate a slice
        if (pos < s.size()) s.insert(pos, s.substr(pos, 1 + rng() % 40));
        break;
    }
  }
  return s;
}

}  // namespace

TEST_CASE("robustness: mutated documents never crash and always yield a response") {
  testing::CustomerStore store = testing::SampleStore();
  Schema customer = *testing::BuildCustomerSchema(store);
  Schema kitchen = *testing::BuildKitchenSinkSchema();
  std::vector<std::string> seeds = {
      ReadFile(LIVECHAT_SOURCE_DIR "/tests/graphql/fixtures/introspection_query.graphql"),
      "query Page($first: Int = 2, $after: String) { customers(first: $first, after: $after) { totalCount "
      "edges { cursor node { ...C } } pageInfo { hasNextPage endCursor } } } fragment C on Customer { id email type }",
      "{ search(text: \"x\", kinds: [A], filter: {tags: [\"a\"], range: {from: 1}}) { ... on Person { name(upper: "
      "true) friends { id } } ... on Place { title } } node(id: \"p1\") { ... on Named { name } } }",
      "query ($k: [Kind!], $f: Filter = {exact: true}) { echo(input: $f) search(text: \"\"\"b\"\"\", kinds: $k) { "
      "__typename } }",
  };
  std::mt19937 rng(20260301);
  int parsed = 0;
  int executed = 0;
  for (int i = 0; i < 6000; ++i) {
    const std::string& seed = seeds[static_cast<std::size_t>(i) % seeds.size()];
    const std::string doc = Mutate(seed, rng);
    const Schema& schema = i % 2 == 0 ? customer : kitchen;
    Value variables = *ParseJson(R"({"first": 1, "k": ["A"], "v": null})");
    ExecutionResult r = Execute(schema, Request{doc, std::nullopt, variables}, &store);
    const std::string json = r.ToJson();
    REQUIRE(ParseJson(json, 1000).ok());  // always valid JSON
    if (r.hasData) ++executed;
    if (r.errors.empty() || r.errors[0].code != "GRAPHQL_PARSE_FAILED") ++parsed;
    for (const ResponseError& e : r.errors) {
      CHECK(!e.message.empty());
      for (const Location& l : e.locations) {
        CHECK(l.line >= 1);
        CHECK(l.column >= 0);
      }
    }
  }
  // The mutations reach every stage, not just the parser.
  MESSAGE("parsed ", parsed, ", executed ", executed);
  CHECK(parsed > 600);
  CHECK(executed > 150);
}

TEST_CASE("robustness: a syntax error quoting ill-formed UTF-8 still yields valid JSON (fuzzer regression)") {
  testing::CustomerStore store = testing::SampleStore();
  Schema customer = *testing::BuildCustomerSchema(store);
  ExecutionResult r = Execute(customer, Request{"{ c(id: \"a\\\xdf\xdf\") { id } }", std::nullopt, Value()});
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].code == "GRAPHQL_PARSE_FAILED");
  CHECK(ParseJson(r.ToJson()).ok());
  CHECK(r.ToJson().find("Invalid character escape sequence: \\\"\\\\\xEF\xBF\xBD\\\".") != std::string::npos);
}
