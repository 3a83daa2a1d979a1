// Building a GraphQL schema in C++.
//
// A schema is declared as plain structs (types, fields, arguments, enum
// values) and turned into an immutable Schema by SchemaBuilder::Build, which
// checks it the way graphql-js's validateSchema does for the parts we support
// and fails with a message naming the first problem. Type references are
// written in GraphQL notation ("String!", "[Channel!]!"); default values as
// GraphQL literals ("20", "\"x\"", "[A, B]").
//
// Each object field has a Resolver. It receives the parent value (what the
// parent field's resolver returned, or null at the root), the coerced
// arguments and the request's context, and returns a Value or a FieldError.
// A field without a resolver reads the parent: an Object's member of the same
// name, else null.
//
// A Schema is immutable and safe to share between threads; resolvers are
// called concurrently when requests run concurrently, so they must be too.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <variant>
#include <vector>

#include "livechat/graphql/value.h"
#include "livechat/result.h"

namespace livechat::graphql {

namespace internal {
struct SchemaImpl;
struct FieldResolveState;
}  // namespace internal

// A per-field error. `code` becomes extensions.code in the response (left out
// when empty). The message is shown to the client as it is.
struct FieldError {
  std::string message;
  std::string code = {};
};

// What a resolver returns: a Value or a FieldError.
class [[nodiscard]] FieldResult {
 public:
  FieldResult(Value value) : value_(std::move(value)) {}        // NOLINT: implicit by design
  FieldResult(FieldError error) : error_(std::move(error)) {}   // NOLINT: implicit by design
  // A core error, mapped to a GraphQL code in one place: kInvalidParams ->
  // BAD_USER_INPUT, kUnauthenticated and kInvalidApiKey -> UNAUTHENTICATED,
  // kInternal -> INTERNAL_SERVER_ERROR, kUnavailable -> SERVICE_UNAVAILABLE,
  // both with PublicMessage (the detail is not sent), any other code -> its
  // REST name (FORBIDDEN, ...).
  FieldResult(const Error& error);  // NOLINT: implicit by design

  bool ok() const { return !error_.has_value(); }
  // Precondition: ok().
  const Value& value() const& { return value_; }
  Value&& value() && { return std::move(value_); }
  // Precondition: !ok().
  const FieldError& error() const { return *error_; }

 private:
  Value value_;
  std::optional<FieldError> error_;
};

// The GraphQL code for a core error code (the mapping FieldResult uses).
std::string GraphQLCodeFor(ErrorCode code);

class ResolveContext;
using Resolver = std::function<FieldResult(const ResolveContext&)>;

// An argument of a field or directive, or a field of an input object.
struct InputValueDef {
  std::string name;
  std::string type;                                // "Int", "[ID!]!"
  std::optional<std::string> description = std::nullopt;
  std::optional<std::string> defaultValue = std::nullopt;         // a GraphQL const literal
  std::optional<std::string> deprecationReason = std::nullopt;    // only for nullable inputs
};

struct FieldDef {
  std::string name;
  std::string type;
  std::optional<std::string> description = std::nullopt;
  std::vector<InputValueDef> args = {};
  Resolver resolve = {};  // empty: read the parent's member of the same name
  std::optional<std::string> deprecationReason = std::nullopt;
};

struct ObjectTypeDef {
  std::string name;
  std::optional<std::string> description = std::nullopt;
  std::vector<FieldDef> fields = {};
  std::vector<std::string> interfaces = {};
};

// Chooses the object type of a value at an interface or union position:
// returns the object type's name.
using TypeResolver = std::function<std::string(const Value& value)>;

struct InterfaceTypeDef {
  std::string name;
  std::optional<std::string> description = std::nullopt;
  std::vector<FieldDef> fields = {};  // resolvers here are not called; the object's are
  std::vector<std::string> interfaces = {};
  TypeResolver resolveType = {};
};

struct UnionTypeDef {
  std::string name;
  std::optional<std::string> description = std::nullopt;
  std::vector<std::string> types = {};
  TypeResolver resolveType = {};
};

struct EnumValueDef {
  std::string name;
  std::optional<std::string> description = std::nullopt;
  std::optional<std::string> deprecationReason = std::nullopt;
};

// Enum values are Value::Enum(name) inside the engine: arguments arrive as
// such, and a resolver returns Value::Enum(name) or a String holding the name.
struct EnumTypeDef {
  std::string name;
  std::optional<std::string> description = std::nullopt;
  std::vector<EnumValueDef> values = {};
};

// A custom scalar. `serialize` turns a resolver's value into the response
// value (String, Int, Float, Boolean, or a list/object of them); `parse`
// turns an input (a variable's JSON value, or a literal converted the way
// graphql-js's valueFromASTUntyped does) into the value resolvers receive.
// Either may fail with a FieldError whose message is shown to the client.
// Left empty, each is the identity.
struct ScalarTypeDef {
  std::string name;
  std::optional<std::string> description = std::nullopt;
  std::optional<std::string> specifiedByUrl = std::nullopt;
  std::function<FieldResult(const Value&)> serialize = {};
  std::function<FieldResult(const Value&)> parse = {};
};

struct InputObjectTypeDef {
  std::string name;
  std::optional<std::string> description = std::nullopt;
  std::vector<InputValueDef> fields = {};
  bool oneOf = false;
};

class Schema;

// Collects type definitions, then Build() checks and freezes them. The five
// built-in scalars (String, Int, Float, Boolean, ID), the introspection types
// and the directives @include, @skip, @deprecated, @specifiedBy and @oneOf
// are always present; do not declare them.
//
// Types are listed (introspection, the SDL printer) in the order graphql-js's
// GraphQLSchema would list them for the same `types` array: each added type,
// in order, followed depth-first by the types it references.
class SchemaBuilder {
 public:
  SchemaBuilder();
  ~SchemaBuilder();
  SchemaBuilder(SchemaBuilder&&) noexcept;
  SchemaBuilder& operator=(SchemaBuilder&&) noexcept;

  SchemaBuilder& SetDescription(std::string description);
  // The query root type's name; default "Query".
  SchemaBuilder& SetQueryType(std::string name);
  SchemaBuilder& Add(ObjectTypeDef type);
  SchemaBuilder& Add(InterfaceTypeDef type);
  SchemaBuilder& Add(UnionTypeDef type);
  SchemaBuilder& Add(EnumTypeDef type);
  SchemaBuilder& Add(ScalarTypeDef type);
  SchemaBuilder& Add(InputObjectTypeDef type);

  // Fails with kInvalidParams naming the first problem: an invalid or
  // duplicate name, an unknown type, an output type where an input is
  // needed (or the reverse), an invalid default value, no query type, an
  // object not implementing its interfaces' fields, an empty object, enum,
  // union or input object, a deprecated required argument.
  Result<Schema> Build() &&;

 private:
  struct Pending;
  std::unique_ptr<Pending> pending_;
};

class Schema {
 public:
  // The schema's description, if one was set.
  const std::optional<std::string>& description() const;
  // True when `name` is a type of this schema (built-ins included).
  bool HasType(std::string_view name) const;

  // Engine use only.
  const internal::SchemaImpl& impl() const { return *impl_; }
  const std::shared_ptr<const internal::SchemaImpl>& sharedImpl() const { return impl_; }

 private:
  friend class SchemaBuilder;
  explicit Schema(std::shared_ptr<const internal::SchemaImpl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const internal::SchemaImpl> impl_;
};

// What a resolver sees. Valid only during the resolver call.
class ResolveContext {
 public:
  // The parent value: what the parent field's resolver returned (null for a
  // root field).
  const Value& source() const;
  // The coerced arguments, in the field definition's order. An argument the
  // query did not give and that has no default is absent (not null).
  const Value::Object& args() const;
  // An argument's value, or null when absent.
  const Value& Arg(std::string_view name) const;
  bool HasArg(std::string_view name) const;

  std::string_view fieldName() const;
  std::string_view parentTypeName() const;
  // The response path of this field ("customers", "edges", 0, "node"), as
  // strings and list indices.
  std::vector<std::variant<std::string, int>> Path() const;

  // The request context given to Execute, when it is a T; else nullptr.
  template <typename T>
  const T* Context() const {
    return (contextType_ != nullptr && *contextType_ == typeid(T)) ? static_cast<const T*>(context_) : nullptr;
  }

  // Engine use only.
  ResolveContext(const internal::FieldResolveState* state, const void* context, const std::type_info* contextType)
      : state_(state), context_(context), contextType_(contextType) {}
  const internal::FieldResolveState& state() const { return *state_; }

 private:
  const internal::FieldResolveState* state_;
  const void* context_;
  const std::type_info* contextType_;
};

}  // namespace livechat::graphql
