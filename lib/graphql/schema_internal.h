// The frozen form of a schema that validation, execution, introspection and
// the printer read. Built once by SchemaBuilder::Build; never mutated after.
#pragma once

#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "graphql/ast.h"
#include "livechat/graphql/schema.h"

namespace livechat::graphql::internal {

enum class TypeKind : std::uint8_t { kScalar, kObject, kInterface, kUnion, kEnum, kInputObject };

// The five specified scalars have graphql-js's exact coercion rules.
enum class BuiltinScalar : std::uint8_t { kNone, kString, kInt, kFloat, kBoolean, kId };

struct NamedType;

// A named type wrapped in lists and non-nulls. `wrappers` lists them outside
// in: 'L' for a list, 'N' for non-null; "NLN" is [T!]!. Two refs are the same
// type exactly when they compare equal. A ref with no named type stands for
// a type the schema does not have (graphql-js's undefined).
struct TypeRef {
  const NamedType* named = nullptr;
  std::string wrappers;

  explicit operator bool() const { return named != nullptr; }
  bool IsNonNull() const { return !wrappers.empty() && wrappers[0] == 'N'; }
  bool IsList() const { return !wrappers.empty() && wrappers[0] == 'L'; }
  bool IsNamed() const { return wrappers.empty(); }
  TypeRef OfType() const { return TypeRef{named, wrappers.substr(1)}; }
  TypeRef Nullable() const { return IsNonNull() ? OfType() : *this; }
  TypeRef Named() const { return TypeRef{named, {}}; }
  // "[Int!]!" (graphql-js inspect / String(type)).
  std::string ToString() const;
  friend bool operator==(const TypeRef& a, const TypeRef& b) {
    return a.named == b.named && a.wrappers == b.wrappers;
  }
};

struct InputValue {
  std::string name;
  std::optional<std::string> description;
  TypeRef type;
  std::optional<Value> defaultValue;  // coerced, as resolvers receive it
  std::optional<std::string> deprecationReason;
  std::optional<std::string> defaultLiteral;  // as declared; coerced at Build
};

struct Field {
  std::string name;
  std::optional<std::string> description;
  std::vector<InputValue> args;
  TypeRef type;
  Resolver resolve;
  std::optional<std::string> deprecationReason;
  const InputValue* FindArg(std::string_view argName) const;
};

struct EnumValue {
  std::string name;
  std::optional<std::string> description;
  std::optional<std::string> deprecationReason;
};

struct NamedType {
  std::string name;
  TypeKind kind = TypeKind::kScalar;
  std::optional<std::string> description;
  bool introspection = false;  // __Schema, __Type, ...
  // kScalar
  BuiltinScalar builtin = BuiltinScalar::kNone;
  std::optional<std::string> specifiedByUrl;
  std::function<FieldResult(const Value&)> serialize;
  std::function<FieldResult(const Value&)> parse;
  // kObject, kInterface
  std::vector<Field> fields;
  std::vector<const NamedType*> interfaces;
  // kInterface, kUnion: object types that may appear at runtime (union
  // members in declared order; an interface's implementations in type-map
  // order). kInterface also keeps the interfaces implementing it.
  std::vector<const NamedType*> possibleTypes;
  std::vector<const NamedType*> implementingInterfaces;
  TypeResolver resolveType;
  // kEnum
  std::vector<EnumValue> enumValues;
  // kInputObject
  std::vector<InputValue> inputFields;
  bool oneOf = false;

  bool IsLeaf() const { return kind == TypeKind::kScalar || kind == TypeKind::kEnum; }
  bool IsComposite() const {
    return kind == TypeKind::kObject || kind == TypeKind::kInterface || kind == TypeKind::kUnion;
  }
  bool IsAbstract() const { return kind == TypeKind::kInterface || kind == TypeKind::kUnion; }
  bool IsInputType() const { return IsLeaf() || kind == TypeKind::kInputObject; }
  bool IsOutputType() const { return kind != TypeKind::kInputObject; }
  const Field* FindField(std::string_view fieldName) const;
  const EnumValue* FindEnumValue(std::string_view valueName) const;
  const InputValue* FindInputField(std::string_view fieldName) const;
};

struct DirectiveDef {
  std::string name;
  std::optional<std::string> description;
  std::vector<std::string> locations;
  std::vector<InputValue> args;
  bool repeatable = false;
  std::optional<std::string> deprecationReason;
};

struct SchemaImpl {
  std::optional<std::string> description;
  std::deque<NamedType> storage;        // owns every type; addresses are stable
  std::vector<const NamedType*> types;  // graphql-js getTypeMap() order
  std::unordered_map<std::string, const NamedType*> byName;
  const NamedType* queryType = nullptr;
  std::vector<DirectiveDef> directives;
  // __schema, __type and __typename.
  Field schemaMetaField;
  Field typeMetaField;
  Field typenameMetaField;

  const NamedType* Find(std::string_view name) const;
  const DirectiveDef* FindDirective(std::string_view name) const;
  // graphql-js schema.isSubType(abstractType, maybeSubType).
  bool IsSubType(const NamedType* abstractType, const NamedType* maybeSubType) const;
  // graphql-js getFieldDef for a parent type, meta fields included.
  const Field* FieldDef(const NamedType* parentType, std::string_view fieldName) const;
  // graphql-js typeFromAST: an invalid ref when the named type is unknown.
  TypeRef TypeFromAst(const TypeNode& node) const;
};

// Built-in parts every schema gets (schema_builtins.cc), declared with the
// same structs a user declares types with.
using AnyTypeDef = std::variant<ObjectTypeDef, InterfaceTypeDef, UnionTypeDef, EnumTypeDef, ScalarTypeDef,
                                InputObjectTypeDef>;
struct DirectiveSpec {
  std::string name;
  std::optional<std::string> description;
  std::vector<std::string> locations;
  std::vector<InputValueDef> args;
  bool repeatable = false;
};
std::vector<ScalarTypeDef> BuiltinScalarDefs();      // String, Int, Float, Boolean, ID
std::vector<AnyTypeDef> IntrospectionTypeDefs();      // __Schema, __Directive, ...
std::vector<DirectiveSpec> BuiltinDirectiveSpecs();   // include, skip, deprecated, specifiedBy, oneOf
// The resolvers of __schema, __type and __typename.
FieldResult ResolveSchemaMetaField(const ResolveContext& ctx);
FieldResult ResolveTypeMetaField(const ResolveContext& ctx);
FieldResult ResolveTypenameMetaField(const ResolveContext& ctx);

// Helpers shared by validation, coercion and execution (type_util.cc).

// graphql-js isTypeSubTypeOf.
bool IsTypeSubTypeOf(const SchemaImpl& schema, const TypeRef& maybeSubType, const TypeRef& superType);
// graphql-js doTypesOverlap (named composite types).
bool DoTypesOverlap(const SchemaImpl& schema, const NamedType* a, const NamedType* b);

}  // namespace livechat::graphql::internal
