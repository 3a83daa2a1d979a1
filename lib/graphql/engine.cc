// The request pipeline (Parse, Prepare, Execute) and the response's JSON
// form: the one place engine errors become the GraphQL `errors` array.
#include <algorithm>
#include <unordered_map>

#include "graphql/coercion.h"
#include "graphql/execution_internal.h"
#include "graphql/js_text.h"
#include "graphql/parser.h"
#include "livechat/graphql/engine.h"

namespace livechat::graphql {

namespace internal {
std::vector<std::string> RootFields(const PreparedState& prepared);
std::int64_t Cost(const PreparedState& prepared, const std::function<FieldWeight(const WeighedField&)>& weigh);
ExecutionResult RunPrepared(const PreparedState& prepared, const void* context, const std::type_info* contextType);
ExecutionResult RunPreparedToJson(const PreparedState& prepared, const void* context,
                                  const std::type_info* contextType);
}  // namespace internal

namespace {

constexpr const char* kParseFailed = "GRAPHQL_PARSE_FAILED";
constexpr const char* kBadRequest = "BAD_REQUEST";
constexpr const char* kBadUserInput = "BAD_USER_INPUT";
// graphql-js execute() stops coercing variables after this many errors.
constexpr std::size_t kMaxVariableErrors = 50;

ResponseError RequestError(std::string message, std::string code) {
  return ResponseError{std::move(message), {}, std::nullopt, std::move(code)};
}

// graphql-js getVariableValues for the chosen operation.
std::vector<ResponseError> CoerceVariables(const internal::SchemaImpl& schema, const internal::OperationNode& op,
                                           const Value::Object& inputs, Value::Object& coerced) {
  std::vector<ResponseError> errors;
  struct TooMany {};
  auto report = [&errors](std::string message, internal::Loc loc) {
    if (errors.size() >= kMaxVariableErrors) {
      errors.push_back(RequestError("Too many errors processing variables, error limit reached. Execution aborted.",
                                    kBadUserInput));
      return false;
    }
    ResponseError e{std::move(message), {loc.ToLocation()}, std::nullopt, kBadUserInput};
    errors.push_back(std::move(e));
    return true;
  };
  std::unordered_map<std::string_view, std::size_t> inputIndex;
  for (std::size_t i = 0; i < inputs.size(); ++i) inputIndex.emplace(inputs[i].first, i);
  for (const internal::VariableDefinitionNode& def : op.variables) {
    const internal::TypeRef varType = schema.TypeFromAst(def.type);
    if (!varType || !varType.named->IsInputType()) {
      if (!report("Variable \"$" + def.name + "\" expected value of type \"" + internal::PrintTypeNode(def.type) +
                      "\" which cannot be used as an input type.",
                  def.type.loc)) {
        return errors;
      }
      continue;
    }
    auto found = inputIndex.find(def.name);
    const Value* value = found == inputIndex.end() ? nullptr : &inputs[found->second].second;
    if (value == nullptr) {
      if (def.defaultValue) {
        if (std::optional<Value> v = internal::ValueFromAst(*def.defaultValue, varType, nullptr)) {
          coerced.emplace_back(def.name, std::move(*v));
        }
      } else if (varType.IsNonNull()) {
        if (!report("Variable \"$" + def.name + "\" of required type \"" + varType.ToString() + "\" was not provided.",
                    def.loc)) {
          return errors;
        }
      }
      continue;
    }
    if (value->IsNull() && varType.IsNonNull()) {
      if (!report("Variable \"$" + def.name + "\" of non-null type \"" + varType.ToString() + "\" must not be null.",
                  def.loc)) {
        return errors;
      }
      continue;
    }
    bool aborted = false;
    std::optional<Value> v = internal::CoerceInputValue(
        *value, varType, [&](const internal::CoercionPath& path, const Value& invalid, const std::string& message) {
          if (aborted) return;
          std::string prefix = "Variable \"$" + def.name + "\" got invalid value " + internal::Inspect(invalid);
          if (!path.empty()) prefix += " at \"" + def.name + internal::PrintPathArray(path) + "\"";
          if (!report(prefix + "; " + message, def.loc)) aborted = true;
        });
    if (aborted) return errors;
    coerced.emplace_back(def.name, v ? std::move(*v) : Value());
  }
  return errors;
}

void AppendError(std::string& out, const ResponseError& e) {
  out += "{\"message\":";
  internal::AppendJsonQuoted(out, e.message);
  if (!e.locations.empty()) {
    out += ",\"locations\":[";
    for (std::size_t i = 0; i < e.locations.size(); ++i) {
      if (i > 0) out += ",";
      out += "{\"line\":" + std::to_string(e.locations[i].line) + ",\"column\":" +
             std::to_string(e.locations[i].column) + "}";
    }
    out += "]";
  }
  if (e.path) {
    out += ",\"path\":[";
    for (std::size_t i = 0; i < e.path->size(); ++i) {
      if (i > 0) out += ",";
      const PathElement& p = (*e.path)[i];
      if (std::holds_alternative<int>(p)) {
        out += std::to_string(std::get<int>(p));
      } else {
        internal::AppendJsonQuoted(out, std::get<std::string>(p));
      }
    }
    out += "]";
  }
  if (!e.code.empty()) {
    out += ",\"extensions\":{\"code\":";
    internal::AppendJsonQuoted(out, e.code);
    out += "}";
  }
  out += "}";
}

}  // namespace

std::variant<Document, ResponseError> Parse(std::string_view query, const Limits& limits) {
  auto parsed = internal::ParseDocumentAst(query, limits);
  if (std::holds_alternative<internal::SyntaxError>(parsed)) {
    const internal::SyntaxError& e = std::get<internal::SyntaxError>(parsed);
    return ResponseError{"Syntax Error: " + e.message, {e.loc.ToLocation()}, std::nullopt, kParseFailed};
  }
  return Document(std::move(std::get<std::shared_ptr<internal::DocumentAst>>(parsed)));
}

std::variant<PreparedOperation, std::vector<ResponseError>> Prepare(const Schema& schema, const Document& document,
                                                                    std::optional<std::string_view> operationName,
                                                                    const Value& variables) {
  const internal::DocumentAst& doc = document.ast();
  const internal::OperationNode* operation = nullptr;
  for (const internal::OperationNode& op : doc.operations) {
    if (!operationName) {
      if (operation != nullptr) {
        return std::vector<ResponseError>{
            RequestError("Must provide operation name if query contains multiple operations.", kBadRequest)};
      }
      operation = &op;
    } else if (op.name && *op.name == *operationName) {
      operation = &op;
    }
  }
  if (operation == nullptr) {
    if (operationName) {
      return std::vector<ResponseError>{
          RequestError("Unknown operation named \"" + std::string(*operationName) + "\".", kBadRequest)};
    }
    return std::vector<ResponseError>{RequestError("Must provide an operation.", kBadRequest)};
  }
  if (!variables.IsNull() && !variables.IsObject()) {
    return std::vector<ResponseError>{
        RequestError("Variables must be provided as an Object where each property is a variable value.", kBadRequest)};
  }
  auto state = std::make_shared<internal::PreparedState>();
  state->schemaOwner = schema.sharedImpl();
  state->documentOwner = document.sharedAst();
  state->operation = operation;
  static const Value::Object kNoVariables;
  const Value::Object& inputs = variables.IsObject() ? variables.AsObject() : kNoVariables;
  std::vector<ResponseError> errors = CoerceVariables(schema.impl(), *operation, inputs, state->variables);
  if (!errors.empty()) return errors;
  return PreparedOperation(std::move(state));
}

std::vector<std::string> RootFieldNames(const PreparedOperation& operation) {
  return internal::RootFields(operation.state());
}

std::int64_t CalculateCost(const PreparedOperation& operation,
                           const std::function<FieldWeight(const WeighedField&)>& weigh) {
  return internal::Cost(operation.state(), weigh);
}

ExecutionResult ExecutePrepared(const PreparedOperation& operation, const void* context,
                                const std::type_info* contextType) {
  return internal::RunPrepared(operation.state(), context, contextType);
}

ExecutionResult ExecutePreparedToJson(const PreparedOperation& operation, const void* context,
                                      const std::type_info* contextType) {
  return internal::RunPreparedToJson(operation.state(), context, contextType);
}

ExecutionResult ExecuteRequest(const Schema& schema, const Request& request, const void* context,
                               const std::type_info* contextType, const Limits& limits) {
  ExecutionResult result;
  auto parsed = Parse(request.query, limits);
  if (std::holds_alternative<ResponseError>(parsed)) {
    result.errors.push_back(std::move(std::get<ResponseError>(parsed)));
    return result;
  }
  const Document& document = std::get<Document>(parsed);
  result.errors = Validate(schema, document, limits);
  if (!result.errors.empty()) return result;
  auto prepared = Prepare(schema, document, request.operationName, request.variables);
  if (std::holds_alternative<std::vector<ResponseError>>(prepared)) {
    result.errors = std::move(std::get<std::vector<ResponseError>>(prepared));
    return result;
  }
  return ExecutePrepared(std::get<PreparedOperation>(prepared), context, contextType);
}

std::string ExecutionResult::ToJson() const {
  std::string out = "{";
  bool first = true;
  if (hasData) {
    out += "\"data\":";
    if (dataJson)
      out += *dataJson;
    else
      data.AppendJson(out);
    first = false;
  }
  if (!errors.empty()) {
    if (!first) out += ",";
    out += "\"errors\":[";
    for (std::size_t i = 0; i < errors.size(); ++i) {
      if (i > 0) out += ",";
      AppendError(out, errors[i]);
    }
    out += "]";
    first = false;
  }
  if (!extensions.empty()) {
    if (!first) out += ",";
    out += "\"extensions\":";
    Value(extensions).AppendJson(out);
  }
  out += "}";
  return out;
}

}  // namespace livechat::graphql
