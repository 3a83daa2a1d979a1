// Running a GraphQL request: parse, validate, select the operation and coerce
// variables, execute. Each step is a function so that a transport can act
// between them (authenticate only when a field other than introspection is
// selected, meter the cost before executing); Execute() runs them all.
//
// Errors are values. A parse error, validation errors, and an operation or
// variables problem are request errors: no data. Execution errors are field
// errors: data is produced, the failed field is null, and null propagates to
// the nearest nullable parent (the whole data when none).
//
// Messages follow graphql-js 16 word for word where graphql-js has one, so
// clients and tests can compare them. Codes (ResponseError::code):
//   GRAPHQL_PARSE_FAILED       syntax errors and the size/token/depth limits
//   GRAPHQL_VALIDATION_FAILED  validation rules, the effective-depth limit,
//                              and mutation/subscription operations (the
//                              engine serves queries only)
//   BAD_REQUEST                no operation to run, or several and no or an
//                              unknown operationName
//   BAD_USER_INPUT             a variable's value cannot be coerced
//   (resolver's code)          field errors; a field error from the engine
//                              itself (an argument whose variable value is
//                              invalid, a value the type cannot serialize, a
//                              null in a non-null field) has no code
//
// All functions are thread-safe for distinct arguments and for a shared
// Schema and Document (both immutable).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <variant>
#include <vector>

#include "livechat/graphql/schema.h"
#include "livechat/graphql/value.h"

namespace livechat::graphql {

namespace internal {
struct DocumentAst;
struct PreparedState;
}  // namespace internal

// Bounds that keep hostile documents cheap. The parser enforces the first
// three (a parse error names the limit); validation enforces the depth again
// with fragments expanded, so that no later step recurses deeper than it.
struct Limits {
  std::size_t maxDocumentBytes = 256 * 1024;
  std::size_t maxTokens = 20000;  // lexical tokens, comments excluded
  // Nesting of selection sets, fragment spreads, list/object literals and
  // list types. getIntrospectionQuery() needs 16.
  int maxDepth = 64;
  std::size_t maxValidationErrors = 100;  // then "Too many validation errors..."
};

struct Location {
  int line = 0;    // 1-based
  int column = 0;  // 1-based, in UTF-16 code units like graphql-js
  friend bool operator==(const Location&, const Location&) = default;
};

using PathElement = std::variant<std::string, int>;

struct ResponseError {
  std::string message;
  std::vector<Location> locations;   // empty: no "locations" key
  std::optional<std::vector<PathElement>> path;  // only for field errors
  std::string code;                  // extensions.code; empty: no extensions
};

// A parsed document. Immutable; copies share it.
class Document {
 public:
  // Engine use only.
  const internal::DocumentAst& ast() const { return *ast_; }
  const std::shared_ptr<const internal::DocumentAst>& sharedAst() const { return ast_; }

 private:
  friend std::variant<Document, ResponseError> Parse(std::string_view, const Limits&);
  explicit Document(std::shared_ptr<const internal::DocumentAst> ast) : ast_(std::move(ast)) {}
  std::shared_ptr<const internal::DocumentAst> ast_;
};

// Parses an executable document (type-system definitions are parsed too, so
// that validation can reject them by name). On a syntax error returns it
// with code GRAPHQL_PARSE_FAILED, message "Syntax Error: ..." and the
// location of the offending character.
std::variant<Document, ResponseError> Parse(std::string_view query, const Limits& limits = {});

// Runs graphql-js 16's specifiedRules (those that apply without
// subscriptions, plus MaxIntrospectionDepth) and rejects mutations and
// subscriptions. Returns the errors in graphql-js's order (code
// GRAPHQL_VALIDATION_FAILED); empty when the document is valid.
std::vector<ResponseError> Validate(const Schema& schema, const Document& document, const Limits& limits = {});

// An operation chosen from a validated document with its variables coerced.
class PreparedOperation {
 public:
  const internal::PreparedState& state() const { return *state_; }
  explicit PreparedOperation(std::shared_ptr<const internal::PreparedState> state) : state_(std::move(state)) {}

 private:
  std::shared_ptr<const internal::PreparedState> state_;
};

// Chooses the operation (`operationName` required when the document has
// several) and coerces `variables` (an Object, or null for none) against its
// variable definitions. Precondition: Validate() returned no errors for
// this schema and document. Errors: BAD_REQUEST (operation) or
// BAD_USER_INPUT (variables, one error per bad variable).
std::variant<PreparedOperation, std::vector<ResponseError>> Prepare(const Schema& schema, const Document& document,
                                                                    std::optional<std::string_view> operationName,
                                                                    const Value& variables);

// The names of the root fields the operation will execute after @skip,
// @include and fragments, in execution order, duplicates (aliases) removed.
// {"__schema"} for an introspection query; {"customers", "__typename"}, ...
std::vector<std::string> RootFieldNames(const PreparedOperation& operation);

// A static estimate of the work an operation asks for, for metering before
// execution. `weigh` is called for every selected field (fragments expanded
// for the field's static parent type; @skip/@include applied); the cost is
// the sum over fields of `cost` times the product of the `multiplier`s of
// the fields above it (a list field of page size n passes multiplier n).
struct FieldWeight {
  std::int64_t cost = 0;
  std::int64_t multiplier = 1;
};
struct WeighedField {
  std::string_view parentType;
  std::string_view fieldName;
  const Value::Object& args;  // coerced, as a resolver would see them
};
// Saturates at INT64_MAX instead of overflowing.
std::int64_t CalculateCost(const PreparedOperation& operation,
                           const std::function<FieldWeight(const WeighedField&)>& weigh);

// Executes a prepared operation. `context` (may be null) is handed to every
// resolver as ResolveContext::Context<T>(); it must outlive the call.
struct ExecutionResult {
  bool hasData = false;  // false for request errors: no "data" key
  Value data;            // Object, or null when null propagated to the root
  std::vector<ResponseError> errors;
  Value::Object extensions;  // top-level "extensions" (e.g. a transport's cost); left out when empty
  // `data` already written as JSON (ExecutePreparedToJson); ToJson writes
  // it in place of `data`, which is then left null.
  std::optional<std::string> dataJson;

  // {"data":...,"errors":[...],"extensions":{...}}: "errors" left out when
  // empty, each error as {"message","locations","path","extensions":{"code"}}.
  std::string ToJson() const;
};

ExecutionResult ExecutePrepared(const PreparedOperation& operation, const void* context,
                                const std::type_info* contextType);
template <typename T>
ExecutionResult Execute(const PreparedOperation& operation, const T* context) {
  return ExecutePrepared(operation, context, context != nullptr ? &typeid(T) : nullptr);
}
// ExecutePrepared for a transport that only sends the result: `data` is
// written as JSON while values are completed (ExecutionResult::dataJson),
// with no Value tree built first; ToJson's text is the same.
ExecutionResult ExecutePreparedToJson(const PreparedOperation& operation, const void* context,
                                      const std::type_info* contextType);
template <typename T>
ExecutionResult ExecuteToJson(const PreparedOperation& operation, const T* context) {
  return ExecutePreparedToJson(operation, context, context != nullptr ? &typeid(T) : nullptr);
}

// Everything at once: parse, validate, prepare, execute.
struct Request {
  std::string_view query;
  std::optional<std::string_view> operationName;
  Value variables;  // Object or null
};
ExecutionResult ExecuteRequest(const Schema& schema, const Request& request, const void* context,
                               const std::type_info* contextType, const Limits& limits);
template <typename T>
ExecutionResult Execute(const Schema& schema, const Request& request, const T* context, const Limits& limits = {}) {
  return ExecuteRequest(schema, request, context, context != nullptr ? &typeid(T) : nullptr, limits);
}
inline ExecutionResult Execute(const Schema& schema, const Request& request, const Limits& limits = {}) {
  return ExecuteRequest(schema, request, nullptr, nullptr, limits);
}

// The schema in SDL exactly as graphql-js 16's printSchema prints the same
// schema (no trailing newline): built-in scalars, introspection types and
// built-in directives left out, descriptions as block strings.
std::string PrintSchema(const Schema& schema);

}  // namespace livechat::graphql
