// State shared between the executor and the pieces it calls back into:
// resolvers (through ResolveContext), introspection, cost calculation.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graphql/ast.h"
#include "graphql/schema_internal.h"
#include "livechat/graphql/engine.h"

namespace livechat::graphql::internal {

// What a ResolveContext exposes; lives on the executor's stack for the
// duration of one resolver call.
struct FieldResolveState {
  const SchemaImpl* schema = nullptr;
  const Value* source = nullptr;
  const Value::Object* args = nullptr;
  const NamedType* parentType = nullptr;
  const Field* field = nullptr;
  const std::vector<PathElement>* path = nullptr;
};

// A chosen operation with coerced variables (what PreparedOperation holds).
struct PreparedState {
  std::shared_ptr<const SchemaImpl> schemaOwner;
  std::shared_ptr<const DocumentAst> documentOwner;
  const OperationNode* operation = nullptr;
  Value::Object variables;
};

}  // namespace livechat::graphql::internal
