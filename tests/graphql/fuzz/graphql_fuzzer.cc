// libFuzzer target for the GraphQL engine: the input is a document, run
// through parse, validation, preparation and execution against the
// Customer-shaped test schema and the kitchen-sink schema. Any crash, hang,
// sanitizer report or invalid JSON response is a bug.
//
// Build with clang (see docs/graphql.md, "Fuzzing"):
//   clang++ -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Ilib -Itests \
//     tests/graphql/fuzz/graphql_fuzzer.cc lib/graphql/*.cc lib/base/*.cc
// (the engine and the base layer alone: nothing of core, http or storage)
// Run:  ./graphql_fuzzer tests/graphql/fuzz/corpus -max_len=4096
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "graphql/customer_schema.h"
#include "graphql/kitchen_sink_schema.h"
#include "livechat/graphql.h"

namespace {

using namespace livechat::graphql;

struct Schemas {
  testing::CustomerStore store = testing::SampleStore();
  Schema customer = *testing::BuildCustomerSchema(store);
  Schema kitchen = *testing::BuildKitchenSinkSchema();
  Value variables = *ParseJson(R"({"first": 1, "id": "cus_1", "k": ["A"], "f": {"exact": true}, "b": true})");
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static Schemas* schemas = new Schemas();  // built once; never freed, as libFuzzer expects
  const std::string_view query(reinterpret_cast<const char*>(data), size);
  for (const Schema* schema : {&schemas->customer, &schemas->kitchen}) {
    ExecutionResult r = Execute(*schema, Request{query, std::nullopt, schemas->variables}, &schemas->store);
    if (!ParseJson(r.ToJson(), 1000).ok()) std::abort();
  }
  return 0;
}
