// The built-in scalars, the introspection types and the built-in directives,
// with graphql-js 16's names, descriptions and arguments word for word (a
// client comparing introspection results sees no difference).
#include "graphql/coercion.h"
#include "graphql/execution_internal.h"
#include "graphql/schema_internal.h"

namespace livechat::graphql::internal {

namespace {

const SchemaImpl& SchemaOf(const ResolveContext& ctx) { return *ctx.state().schema; }

Value TypeValue(TypeRef type) {
  if (!type) return Value();
  return Value::Host<TypeRef>(std::make_shared<const TypeRef>(std::move(type)));
}

Value NamedTypeValue(const NamedType* type) { return TypeValue(TypeRef{type, {}}); }

bool IncludeDeprecated(const ResolveContext& ctx) {
  const Value& v = ctx.Arg("includeDeprecated");
  return v.IsBool() && v.AsBool();
}

Value OptionalString(const std::optional<std::string>& s) { return s ? Value(*s) : Value(); }

template <typename T>
Value UnownedList(const std::vector<T>& items, bool includeDeprecated) {
  Value::List list;
  for (const T& item : items) {
    if (!includeDeprecated && item.deprecationReason) continue;
    list.push_back(Value::HostUnowned<T>(&item));
  }
  return Value(std::move(list));
}

Value TypeList(const std::vector<const NamedType*>& types) {
  Value::List list;
  for (const NamedType* t : types) list.push_back(NamedTypeValue(t));
  return Value(std::move(list));
}

// Resolvers read their parent through these; a null parent cannot happen
// (the executor only calls resolvers on non-null parents).
const TypeRef& TypeOf(const ResolveContext& ctx) { return *ctx.source().HostAs<TypeRef>(); }
const Field& FieldOf(const ResolveContext& ctx) { return *ctx.source().HostAs<Field>(); }
const InputValue& InputValueOf(const ResolveContext& ctx) { return *ctx.source().HostAs<InputValue>(); }
const EnumValue& EnumValueOf(const ResolveContext& ctx) { return *ctx.source().HostAs<EnumValue>(); }
const DirectiveDef& DirectiveOf(const ResolveContext& ctx) { return *ctx.source().HostAs<DirectiveDef>(); }

InputValueDef IncludeDeprecatedArg(bool nonNull = false) {
  return InputValueDef{"includeDeprecated", nonNull ? "Boolean!" : "Boolean", std::nullopt, "false", std::nullopt};
}

ObjectTypeDef SchemaType() {
  return ObjectTypeDef{
      "__Schema",
      "A GraphQL Schema defines the capabilities of a GraphQL server. It exposes all available types and "
      "directives on the server, as well as the entry points for query, mutation, and subscription operations.",
      {
          FieldDef{"description", "String", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult { return OptionalString(SchemaOf(ctx).description); }},
          FieldDef{"types", "[__Type!]!", "A list of all types supported by this server.", {},
                   [](const ResolveContext& ctx) -> FieldResult { return TypeList(SchemaOf(ctx).types); }},
          FieldDef{"queryType", "__Type!", "The type that query operations will be rooted at.", {},
                   [](const ResolveContext& ctx) -> FieldResult { return NamedTypeValue(SchemaOf(ctx).queryType); }},
          FieldDef{"mutationType", "__Type",
                   "If this server supports mutation, the type that mutation operations will be rooted at.", {},
                   [](const ResolveContext&) -> FieldResult { return Value(); }},
          FieldDef{"subscriptionType", "__Type",
                   "If this server support subscription, the type that subscription operations will be rooted at.",
                   {}, [](const ResolveContext&) -> FieldResult { return Value(); }},
          FieldDef{"directives", "[__Directive!]!", "A list of all directives supported by this server.",
                   {IncludeDeprecatedArg(true)},
                   [](const ResolveContext& ctx) -> FieldResult {
                     return UnownedList(SchemaOf(ctx).directives, IncludeDeprecated(ctx));
                   }},
      },
      {}};
}

ObjectTypeDef DirectiveType() {
  return ObjectTypeDef{
      "__Directive",
      "A Directive provides a way to describe alternate runtime execution and type validation behavior in a "
      "GraphQL document.\n\nIn some cases, you need to provide options to alter GraphQL's execution behavior in "
      "ways field arguments will not suffice, such as conditionally including or skipping a field. Directives "
      "provide this by describing additional information to the executor.",
      {
          FieldDef{"name", "String!", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult { return Value(DirectiveOf(ctx).name); }},
          FieldDef{"description", "String", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult { return OptionalString(DirectiveOf(ctx).description); }},
          FieldDef{"isRepeatable", "Boolean!", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult { return Value(DirectiveOf(ctx).repeatable); }},
          FieldDef{"locations", "[__DirectiveLocation!]!", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult {
                     Value::List list;
                     for (const std::string& l : DirectiveOf(ctx).locations) list.push_back(Value::Enum(l));
                     return Value(std::move(list));
                   }},
          FieldDef{"args", "[__InputValue!]!", std::nullopt, {IncludeDeprecatedArg()},
                   [](const ResolveContext& ctx) -> FieldResult {
                     return UnownedList(DirectiveOf(ctx).args, IncludeDeprecated(ctx));
                   }},
          FieldDef{"isDeprecated", "Boolean!", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult {
                     return Value(DirectiveOf(ctx).deprecationReason.has_value());
                   }},
          FieldDef{"deprecationReason", "String", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult {
                     return OptionalString(DirectiveOf(ctx).deprecationReason);
                   }},
      },
      {}};
}

EnumTypeDef DirectiveLocationType() {
  return EnumTypeDef{
      "__DirectiveLocation",
      "A Directive can be adjacent to many parts of the GraphQL language, a __DirectiveLocation describes one such "
      "possible adjacencies.",
      {
          {"QUERY", "Location adjacent to a query operation.", std::nullopt},
          {"MUTATION", "Location adjacent to a mutation operation.", std::nullopt},
          {"SUBSCRIPTION", "Location adjacent to a subscription operation.", std::nullopt},
          {"FIELD", "Location adjacent to a field.", std::nullopt},
          {"FRAGMENT_DEFINITION", "Location adjacent to a fragment definition.", std::nullopt},
          {"FRAGMENT_SPREAD", "Location adjacent to a fragment spread.", std::nullopt},
          {"INLINE_FRAGMENT", "Location adjacent to an inline fragment.", std::nullopt},
          {"VARIABLE_DEFINITION", "Location adjacent to a variable definition.", std::nullopt},
          {"SCHEMA", "Location adjacent to a schema definition.", std::nullopt},
          {"SCALAR", "Location adjacent to a scalar definition.", std::nullopt},
          {"OBJECT", "Location adjacent to an object type definition.", std::nullopt},
          {"FIELD_DEFINITION", "Location adjacent to a field definition.", std::nullopt},
          {"ARGUMENT_DEFINITION", "Location adjacent to an argument definition.", std::nullopt},
          {"INTERFACE", "Location adjacent to an interface definition.", std::nullopt},
          {"UNION", "Location adjacent to a union definition.", std::nullopt},
          {"ENUM", "Location adjacent to an enum definition.", std::nullopt},
          {"ENUM_VALUE", "Location adjacent to an enum value definition.", std::nullopt},
          {"INPUT_OBJECT", "Location adjacent to an input object type definition.", std::nullopt},
          {"INPUT_FIELD_DEFINITION", "Location adjacent to an input object field definition.", std::nullopt},
          {"DIRECTIVE_DEFINITION", "Location adjacent to a directive definition.", std::nullopt},
      }};
}

const char* KindName(const TypeRef& t) {
  if (t.IsList()) return "LIST";
  if (t.IsNonNull()) return "NON_NULL";
  switch (t.named->kind) {
    case TypeKind::kScalar: return "SCALAR";
    case TypeKind::kObject: return "OBJECT";
    case TypeKind::kInterface: return "INTERFACE";
    case TypeKind::kUnion: return "UNION";
    case TypeKind::kEnum: return "ENUM";
    case TypeKind::kInputObject: return "INPUT_OBJECT";
  }
  return "SCALAR";
}

ObjectTypeDef TypeType() {
  auto named = [](const ResolveContext& ctx) -> const NamedType* {
    const TypeRef& t = TypeOf(ctx);
    return t.IsNamed() ? t.named : nullptr;
  };
  return ObjectTypeDef{
      "__Type",
      "The fundamental unit of any GraphQL Schema is the type. There are many kinds of types in GraphQL as "
      "represented by the `__TypeKind` enum.\n\nDepending on the kind of a type, certain fields describe "
      "information about that type. Scalar types provide no information beyond a name, description and optional "
      "`specifiedByURL`, while Enum types provide their values. Object and Interface types provide the fields they "
      "describe. Abstract types, Union and Interface, provide the Object types possible at runtime. List and "
      "NonNull types compose other types.",
      {
          FieldDef{"kind", "__TypeKind!", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult { return Value::Enum(KindName(TypeOf(ctx))); }},
          FieldDef{"name", "String", std::nullopt, {},
                   [named](const ResolveContext& ctx) -> FieldResult {
                     const NamedType* t = named(ctx);
                     return t != nullptr ? Value(t->name) : Value();
                   }},
          FieldDef{"description", "String", std::nullopt, {},
                   [named](const ResolveContext& ctx) -> FieldResult {
                     const NamedType* t = named(ctx);
                     return t != nullptr ? OptionalString(t->description) : Value();
                   }},
          FieldDef{"specifiedByURL", "String", std::nullopt, {},
                   [named](const ResolveContext& ctx) -> FieldResult {
                     const NamedType* t = named(ctx);
                     return t != nullptr && t->kind == TypeKind::kScalar ? OptionalString(t->specifiedByUrl) : Value();
                   }},
          FieldDef{"fields", "[__Field!]", std::nullopt, {IncludeDeprecatedArg()},
                   [named](const ResolveContext& ctx) -> FieldResult {
                     const NamedType* t = named(ctx);
                     if (t == nullptr || (t->kind != TypeKind::kObject && t->kind != TypeKind::kInterface)) {
                       return Value();
                     }
                     return UnownedList(t->fields, IncludeDeprecated(ctx));
                   }},
          FieldDef{"interfaces", "[__Type!]", std::nullopt, {},
                   [named](const ResolveContext& ctx) -> FieldResult {
                     const NamedType* t = named(ctx);
                     if (t == nullptr || (t->kind != TypeKind::kObject && t->kind != TypeKind::kInterface)) {
                       return Value();
                     }
                     return TypeList(t->interfaces);
                   }},
          FieldDef{"possibleTypes", "[__Type!]", std::nullopt, {},
                   [named](const ResolveContext& ctx) -> FieldResult {
                     const NamedType* t = named(ctx);
                     if (t == nullptr || !t->IsAbstract()) return Value();
                     return TypeList(t->possibleTypes);
                   }},
          FieldDef{"enumValues", "[__EnumValue!]", std::nullopt, {IncludeDeprecatedArg()},
                   [named](const ResolveContext& ctx) -> FieldResult {
                     const NamedType* t = named(ctx);
                     if (t == nullptr || t->kind != TypeKind::kEnum) return Value();
                     return UnownedList(t->enumValues, IncludeDeprecated(ctx));
                   }},
          FieldDef{"inputFields", "[__InputValue!]", std::nullopt, {IncludeDeprecatedArg()},
                   [named](const ResolveContext& ctx) -> FieldResult {
                     const NamedType* t = named(ctx);
                     if (t == nullptr || t->kind != TypeKind::kInputObject) return Value();
                     return UnownedList(t->inputFields, IncludeDeprecated(ctx));
                   }},
          FieldDef{"ofType", "__Type", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult {
                     const TypeRef& t = TypeOf(ctx);
                     return t.IsNamed() ? Value() : TypeValue(t.OfType());
                   }},
          FieldDef{"isOneOf", "Boolean", std::nullopt, {},
                   [named](const ResolveContext& ctx) -> FieldResult {
                     const NamedType* t = named(ctx);
                     if (t == nullptr || t->kind != TypeKind::kInputObject) return Value();
                     return Value(t->oneOf);
                   }},
      },
      {}};
}

ObjectTypeDef FieldType() {
  return ObjectTypeDef{
      "__Field",
      "Object and Interface types are described by a list of Fields, each of which has a name, potentially a list "
      "of arguments, and a return type.",
      {
          FieldDef{"name", "String!", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult { return Value(FieldOf(ctx).name); }},
          FieldDef{"description", "String", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult { return OptionalString(FieldOf(ctx).description); }},
          FieldDef{"args", "[__InputValue!]!", std::nullopt, {IncludeDeprecatedArg()},
                   [](const ResolveContext& ctx) -> FieldResult {
                     return UnownedList(FieldOf(ctx).args, IncludeDeprecated(ctx));
                   }},
          FieldDef{"type", "__Type!", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult { return TypeValue(FieldOf(ctx).type); }},
          FieldDef{"isDeprecated", "Boolean!", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult {
                     return Value(FieldOf(ctx).deprecationReason.has_value());
                   }},
          FieldDef{"deprecationReason", "String", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult {
                     return OptionalString(FieldOf(ctx).deprecationReason);
                   }},
      },
      {}};
}

ObjectTypeDef InputValueType() {
  return ObjectTypeDef{
      "__InputValue",
      "Arguments provided to Fields or Directives and the input fields of an InputObject are represented as Input "
      "Values which describe their type and optionally a default value.",
      {
          FieldDef{"name", "String!", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult { return Value(InputValueOf(ctx).name); }},
          FieldDef{"description", "String", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult {
                     return OptionalString(InputValueOf(ctx).description);
                   }},
          FieldDef{"type", "__Type!", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult { return TypeValue(InputValueOf(ctx).type); }},
          FieldDef{"defaultValue", "String",
                   "A GraphQL-formatted string representing the default value for this input value.", {},
                   [](const ResolveContext& ctx) -> FieldResult {
                     const InputValue& v = InputValueOf(ctx);
                     if (!v.defaultValue) return Value();
                     std::optional<std::string> printed = PrintValueForType(*v.defaultValue, v.type);
                     return printed ? Value(*printed) : Value();
                   }},
          FieldDef{"isDeprecated", "Boolean!", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult {
                     return Value(InputValueOf(ctx).deprecationReason.has_value());
                   }},
          FieldDef{"deprecationReason", "String", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult {
                     return OptionalString(InputValueOf(ctx).deprecationReason);
                   }},
      },
      {}};
}

ObjectTypeDef EnumValueType() {
  return ObjectTypeDef{
      "__EnumValue",
      "One possible value for a given Enum. Enum values are unique values, not a placeholder for a string or numeric "
      "value. However an Enum value is returned in a JSON response as a string.",
      {
          FieldDef{"name", "String!", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult { return Value(EnumValueOf(ctx).name); }},
          FieldDef{"description", "String", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult {
                     return OptionalString(EnumValueOf(ctx).description);
                   }},
          FieldDef{"isDeprecated", "Boolean!", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult {
                     return Value(EnumValueOf(ctx).deprecationReason.has_value());
                   }},
          FieldDef{"deprecationReason", "String", std::nullopt, {},
                   [](const ResolveContext& ctx) -> FieldResult {
                     return OptionalString(EnumValueOf(ctx).deprecationReason);
                   }},
      },
      {}};
}

EnumTypeDef TypeKindType() {
  return EnumTypeDef{
      "__TypeKind",
      "An enum describing what kind of type a given `__Type` is.",
      {
          {"SCALAR", "Indicates this type is a scalar.", std::nullopt},
          {"OBJECT", "Indicates this type is an object. `fields` and `interfaces` are valid fields.", std::nullopt},
          {"INTERFACE",
           "Indicates this type is an interface. `fields`, `interfaces`, and `possibleTypes` are valid fields.",
           std::nullopt},
          {"UNION", "Indicates this type is a union. `possibleTypes` is a valid field.", std::nullopt},
          {"ENUM", "Indicates this type is an enum. `enumValues` is a valid field.", std::nullopt},
          {"INPUT_OBJECT", "Indicates this type is an input object. `inputFields` is a valid field.", std::nullopt},
          {"LIST", "Indicates this type is a list. `ofType` is a valid field.", std::nullopt},
          {"NON_NULL", "Indicates this type is a non-null. `ofType` is a valid field.", std::nullopt},
      }};
}

}  // namespace

std::vector<ScalarTypeDef> BuiltinScalarDefs() {
  return {
      ScalarTypeDef{"String",
                    "The `String` scalar type represents textual data, represented as UTF-8 character sequences. The "
                    "String type is most often used by GraphQL to represent free-form human-readable text.",
                    std::nullopt, {}, {}},
      ScalarTypeDef{"Int",
                    "The `Int` scalar type represents non-fractional signed whole numeric values. Int can represent "
                    "values between -(2^31) and 2^31 - 1.",
                    std::nullopt, {}, {}},
      ScalarTypeDef{"Float",
                    "The `Float` scalar type represents signed double-precision fractional values as specified by "
                    "[IEEE 754](https://en.wikipedia.org/wiki/IEEE_floating_point).",
                    std::nullopt, {}, {}},
      ScalarTypeDef{"Boolean", "The `Boolean` scalar type represents `true` or `false`.", std::nullopt, {}, {}},
      ScalarTypeDef{"ID",
                    "The `ID` scalar type represents a unique identifier, often used to refetch an object or as key "
                    "for a cache. The ID type appears in a JSON response as a String; however, it is not intended to "
                    "be human-readable. When expected as an input type, any string (such as `\"4\"`) or integer "
                    "(such as `4`) input value will be accepted as an ID.",
                    std::nullopt, {}, {}},
  };
}

std::vector<AnyTypeDef> IntrospectionTypeDefs() {
  std::vector<AnyTypeDef> defs;
  defs.emplace_back(SchemaType());
  defs.emplace_back(DirectiveType());
  defs.emplace_back(DirectiveLocationType());
  defs.emplace_back(TypeType());
  defs.emplace_back(FieldType());
  defs.emplace_back(InputValueType());
  defs.emplace_back(EnumValueType());
  defs.emplace_back(TypeKindType());
  return defs;
}

std::vector<DirectiveSpec> BuiltinDirectiveSpecs() {
  return {
      DirectiveSpec{"include",
                    "Directs the executor to include this field or fragment only when the `if` argument is true.",
                    {"FIELD", "FRAGMENT_SPREAD", "INLINE_FRAGMENT"},
                    {InputValueDef{"if", "Boolean!", "Included when true.", std::nullopt, std::nullopt}},
                    false},
      DirectiveSpec{"skip",
                    "Directs the executor to skip this field or fragment when the `if` argument is true.",
                    {"FIELD", "FRAGMENT_SPREAD", "INLINE_FRAGMENT"},
                    {InputValueDef{"if", "Boolean!", "Skipped when true.", std::nullopt, std::nullopt}},
                    false},
      DirectiveSpec{"deprecated",
                    "Marks an element of a GraphQL schema as no longer supported.",
                    {"FIELD_DEFINITION", "ARGUMENT_DEFINITION", "INPUT_FIELD_DEFINITION", "ENUM_VALUE",
                     "DIRECTIVE_DEFINITION"},
                    {InputValueDef{"reason", "String",
                                   "Explains why this element was deprecated, usually also including a suggestion for "
                                   "how to access supported similar data. Formatted using the Markdown syntax, as "
                                   "specified by [CommonMark](https://commonmark.org/).",
                                   "\"No longer supported\"", std::nullopt}},
                    false},
      DirectiveSpec{"specifiedBy",
                    "Exposes a URL that specifies the behavior of this scalar.",
                    {"SCALAR"},
                    {InputValueDef{"url", "String!", "The URL that specifies the behavior of this scalar.",
                                   std::nullopt, std::nullopt}},
                    false},
      DirectiveSpec{"oneOf",
                    "Indicates exactly one field must be supplied and this field must not be `null`.",
                    {"INPUT_OBJECT"},
                    {},
                    false},
  };
}

FieldResult ResolveSchemaMetaField(const ResolveContext& ctx) {
  return Value::HostUnowned<SchemaImpl>(ctx.state().schema);
}

FieldResult ResolveTypeMetaField(const ResolveContext& ctx) {
  const NamedType* t = ctx.state().schema->Find(ctx.Arg("name").AsString());
  return t != nullptr ? NamedTypeValue(t) : Value();
}

FieldResult ResolveTypenameMetaField(const ResolveContext& ctx) { return Value(ctx.state().parentType->name); }

}  // namespace livechat::graphql::internal
