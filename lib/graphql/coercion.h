// Input and output coercion, as graphql-js 16 does it: scalar serialize /
// parseValue / parseLiteral, coerceInputValue (variables), valueFromAST
// (arguments), astFromValue (printing defaults), inspect (messages).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "graphql/ast.h"
#include "graphql/schema_internal.h"
#include "livechat/graphql/value.h"

namespace livechat::graphql::internal {

// graphql-js inspect() of a value: "\"abc\"", "[1, 2]", "{ a: true }".
std::string Inspect(const Value& value);

// A leaf type's serialize: the response value, or the error message.
FieldResult SerializeLeaf(const NamedType& type, const Value& value);
// True when SerializeLeaf(type, value) is `value` itself, unchanged: a
// String or ID that is a string, an Int an int, a Boolean a bool, an enum
// value named by a string. The executor then moves the resolver's value
// into the response instead of copying it.
bool SerializesAsItself(const NamedType& type, const Value& value);
// A leaf type's parseValue (a variable's value).
FieldResult ParseLeafValue(const NamedType& type, const Value& value);
// A leaf type's parseLiteral. `variables` may be null.
FieldResult ParseLeafLiteral(const NamedType& type, const ValueNode& node, const Value::Object* variables);

// graphql-js valueFromASTUntyped (Enum literals become strings).
std::optional<Value> ValueFromAstUntyped(const ValueNode& node, const Value::Object* variables);

// graphql-js valueFromAST: nullopt when the literal is invalid for the type
// (or names a variable that has no value and no default applies).
std::optional<Value> ValueFromAst(const ValueNode& node, const TypeRef& type, const Value::Object* variables);

// graphql-js coerceInputValue. `onError(path, invalidValue, message)` is
// called for each problem; returns nullopt when the value is unusable.
using CoercionPath = std::vector<std::variant<std::string, int>>;
using CoercionErrorFn = std::function<void(const CoercionPath&, const Value&, const std::string&)>;
std::optional<Value> CoerceInputValue(const Value& value, const TypeRef& type, const CoercionErrorFn& onError);

// graphql-js printPathArray: ".a[0].b".
std::string PrintPathArray(const CoercionPath& path);

// graphql-js astFromValue followed by print(): nullopt when nothing prints.
std::optional<std::string> PrintValueForType(const Value& value, const TypeRef& type);

// A variable lookup that distinguishes "absent" from "null".
const Value* FindVariable(const Value::Object* variables, std::string_view name);

}  // namespace livechat::graphql::internal
