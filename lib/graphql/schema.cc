#include <algorithm>
#include <cstdio>
#include <unordered_set>

#include "graphql/coercion.h"
#include "graphql/parser.h"
#include "graphql/schema_internal.h"
#include "livechat/graphql/schema.h"

namespace livechat::graphql {

std::string GraphQLCodeFor(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidParams: return "BAD_USER_INPUT";
    case ErrorCode::kUnauthenticated:
    case ErrorCode::kInvalidApiKey: return "UNAUTHENTICATED";
    case ErrorCode::kInternal: return "INTERNAL_SERVER_ERROR";
    case ErrorCode::kUnavailable: return "SERVICE_UNAVAILABLE";
    default: return std::string(ErrorCodeName(code));
  }
}

FieldResult::FieldResult(const Error& error)
    : error_(FieldError{std::string(PublicMessage(error)), GraphQLCodeFor(error.code)}) {
  // The client is not told the detail of the server's own failures; the log is.
  if (IsServerFault(error)) std::fprintf(stderr, "livechat graphql: %s: %s\n", error_->message.c_str(), error.message.c_str());
}

namespace internal {

std::string TypeRef::ToString() const {
  std::string out = named != nullptr ? named->name : "?";
  for (auto it = wrappers.rbegin(); it != wrappers.rend(); ++it) {
    out = *it == 'L' ? "[" + out + "]" : out + "!";
  }
  return out;
}

const InputValue* Field::FindArg(std::string_view argName) const {
  for (const InputValue& a : args) {
    if (a.name == argName) return &a;
  }
  return nullptr;
}

const Field* NamedType::FindField(std::string_view fieldName) const {
  for (const Field& f : fields) {
    if (f.name == fieldName) return &f;
  }
  return nullptr;
}

const EnumValue* NamedType::FindEnumValue(std::string_view valueName) const {
  for (const EnumValue& v : enumValues) {
    if (v.name == valueName) return &v;
  }
  return nullptr;
}

const InputValue* NamedType::FindInputField(std::string_view fieldName) const {
  for (const InputValue& f : inputFields) {
    if (f.name == fieldName) return &f;
  }
  return nullptr;
}

const NamedType* SchemaImpl::Find(std::string_view name) const {
  auto it = byName.find(std::string(name));
  return it == byName.end() ? nullptr : it->second;
}

const DirectiveDef* SchemaImpl::FindDirective(std::string_view name) const {
  for (const DirectiveDef& d : directives) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

bool SchemaImpl::IsSubType(const NamedType* abstractType, const NamedType* maybeSubType) const {
  if (abstractType == nullptr || maybeSubType == nullptr) return false;
  const auto& possible = abstractType->possibleTypes;
  if (std::find(possible.begin(), possible.end(), maybeSubType) != possible.end()) return true;
  if (abstractType->kind == TypeKind::kInterface) {
    const auto& ifaces = abstractType->implementingInterfaces;
    return std::find(ifaces.begin(), ifaces.end(), maybeSubType) != ifaces.end();
  }
  return false;
}

const Field* SchemaImpl::FieldDef(const NamedType* parentType, std::string_view fieldName) const {
  if (parentType == nullptr) return nullptr;
  if (fieldName == "__schema" && parentType == queryType) return &schemaMetaField;
  if (fieldName == "__type" && parentType == queryType) return &typeMetaField;
  if (fieldName == "__typename" && parentType->IsComposite()) return &typenameMetaField;
  if (parentType->kind == TypeKind::kObject || parentType->kind == TypeKind::kInterface) {
    return parentType->FindField(fieldName);
  }
  return nullptr;
}

TypeRef SchemaImpl::TypeFromAst(const TypeNode& node) const {
  std::string wrappers;
  const TypeNode* t = &node;
  while (t->kind != TypeNode::Kind::kNamed) {
    wrappers.push_back(t->kind == TypeNode::Kind::kList ? 'L' : 'N');
    t = t->of.get();
  }
  const NamedType* named = Find(t->name);
  if (named == nullptr) return TypeRef{};
  return TypeRef{named, std::move(wrappers)};
}

bool IsTypeSubTypeOf(const SchemaImpl& schema, const TypeRef& maybeSubType, const TypeRef& superType) {
  if (maybeSubType == superType) return true;
  if (superType.IsNonNull()) {
    if (maybeSubType.IsNonNull()) return IsTypeSubTypeOf(schema, maybeSubType.OfType(), superType.OfType());
    return false;
  }
  if (maybeSubType.IsNonNull()) return IsTypeSubTypeOf(schema, maybeSubType.OfType(), superType);
  if (superType.IsList()) {
    if (maybeSubType.IsList()) return IsTypeSubTypeOf(schema, maybeSubType.OfType(), superType.OfType());
    return false;
  }
  if (maybeSubType.IsList()) return false;
  return superType.named->IsAbstract() &&
         (maybeSubType.named->kind == TypeKind::kInterface || maybeSubType.named->kind == TypeKind::kObject) &&
         schema.IsSubType(superType.named, maybeSubType.named);
}

bool DoTypesOverlap(const SchemaImpl& schema, const NamedType* a, const NamedType* b) {
  if (a == b) return true;
  if (a->IsAbstract()) {
    if (b->IsAbstract()) {
      for (const NamedType* t : a->possibleTypes) {
        if (schema.IsSubType(b, t)) return true;
      }
      return false;
    }
    return schema.IsSubType(a, b);
  }
  if (b->IsAbstract()) return schema.IsSubType(b, a);
  return false;
}

}  // namespace internal

struct SchemaBuilder::Pending {
  std::optional<std::string> description;
  std::string queryType = "Query";
  std::vector<internal::AnyTypeDef> types;
};

SchemaBuilder::SchemaBuilder() : pending_(std::make_unique<Pending>()) {}
SchemaBuilder::~SchemaBuilder() = default;
SchemaBuilder::SchemaBuilder(SchemaBuilder&&) noexcept = default;
SchemaBuilder& SchemaBuilder::operator=(SchemaBuilder&&) noexcept = default;

SchemaBuilder& SchemaBuilder::SetDescription(std::string description) {
  pending_->description = std::move(description);
  return *this;
}
SchemaBuilder& SchemaBuilder::SetQueryType(std::string name) {
  pending_->queryType = std::move(name);
  return *this;
}
SchemaBuilder& SchemaBuilder::Add(ObjectTypeDef type) {
  pending_->types.emplace_back(std::move(type));
  return *this;
}
SchemaBuilder& SchemaBuilder::Add(InterfaceTypeDef type) {
  pending_->types.emplace_back(std::move(type));
  return *this;
}
SchemaBuilder& SchemaBuilder::Add(UnionTypeDef type) {
  pending_->types.emplace_back(std::move(type));
  return *this;
}
SchemaBuilder& SchemaBuilder::Add(EnumTypeDef type) {
  pending_->types.emplace_back(std::move(type));
  return *this;
}
SchemaBuilder& SchemaBuilder::Add(ScalarTypeDef type) {
  pending_->types.emplace_back(std::move(type));
  return *this;
}
SchemaBuilder& SchemaBuilder::Add(InputObjectTypeDef type) {
  pending_->types.emplace_back(std::move(type));
  return *this;
}

namespace {

using internal::AnyTypeDef;
using internal::InputValue;
using internal::NamedType;
using internal::SchemaImpl;
using internal::TypeKind;
using internal::TypeRef;

Error BuildError(std::string message) { return MakeError(ErrorCode::kInvalidParams, std::move(message)); }

Status CheckName(const std::string& name, bool allowReserved) {
  if (name.empty()) return BuildError("Expected name to be a non-empty string.");
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (i == 0 && !letter) return BuildError("Names must start with [_a-zA-Z] but \"" + name + "\" does not.");
    if (!letter && !digit) return BuildError("Names must only contain [_a-zA-Z0-9] but \"" + name + "\" does not.");
  }
  if (!allowReserved && name.size() >= 2 && name[0] == '_' && name[1] == '_') {
    return BuildError("Name \"" + name + "\" must not begin with \"__\", which is reserved by GraphQL introspection.");
  }
  return Status::Ok();
}

std::string DefName(const AnyTypeDef& def) {
  return std::visit([](const auto& d) { return d.name; }, def);
}

class Builder {
 public:
  explicit Builder(SchemaImpl& schema) : schema_(schema) {}

  // Phase 1: a NamedType for every definition, so references can resolve.
  Result<NamedType*> CreateShell(const AnyTypeDef& def, bool builtin) {
    const std::string name = DefName(def);
    if (!builtin) LC_RETURN_IF_ERROR(CheckName(name, false));
    if (all_.count(name) != 0) {
      return BuildError(builtin || !isBuiltinName(name)
                            ? "Schema must contain uniquely named types but contains multiple types named \"" + name +
                                  "\"."
                            : "Type \"" + name + "\" is built in; do not declare it.");
    }
    NamedType& t = schema_.storage.emplace_back();
    t.name = name;
    t.introspection = builtin && name.size() > 2 && name[0] == '_' && name[1] == '_';
    std::visit(
        [&t](const auto& d) {
          using D = std::decay_t<decltype(d)>;
          t.description = d.description;
          if constexpr (std::is_same_v<D, ObjectTypeDef>) t.kind = TypeKind::kObject;
          if constexpr (std::is_same_v<D, InterfaceTypeDef>) t.kind = TypeKind::kInterface;
          if constexpr (std::is_same_v<D, UnionTypeDef>) t.kind = TypeKind::kUnion;
          if constexpr (std::is_same_v<D, EnumTypeDef>) t.kind = TypeKind::kEnum;
          if constexpr (std::is_same_v<D, ScalarTypeDef>) t.kind = TypeKind::kScalar;
          if constexpr (std::is_same_v<D, InputObjectTypeDef>) t.kind = TypeKind::kInputObject;
        },
        def);
    all_[name] = &t;
    return &t;
  }

  Result<TypeRef> Resolve(const std::string& text, const std::string& where, bool input) {
    auto parsed = internal::ParseTypeText(text);
    if (std::holds_alternative<internal::SyntaxError>(parsed)) {
      return BuildError("The type \"" + text + "\" of " + where + " is not a type reference: " +
                        std::get<internal::SyntaxError>(parsed).message);
    }
    const internal::TypeNode& node = std::get<internal::TypeNode>(parsed);
    std::string wrappers;
    const internal::TypeNode* t = &node;
    while (t->kind != internal::TypeNode::Kind::kNamed) {
      wrappers.push_back(t->kind == internal::TypeNode::Kind::kList ? 'L' : 'N');
      t = t->of.get();
    }
    auto it = all_.find(t->name);
    if (it == all_.end()) return BuildError("Unknown type \"" + t->name + "\" in " + where + ".");
    const NamedType* named = it->second;
    if (input && !named->IsInputType()) {
      return BuildError("The type of " + where + " must be Input Type but got: " + text + ".");
    }
    if (!input && !named->IsOutputType()) {
      return BuildError("The type of " + where + " must be Output Type but got: " + text + ".");
    }
    return TypeRef{named, std::move(wrappers)};
  }

  Result<InputValue> MakeInputValue(const InputValueDef& def, const std::string& where, bool builtin) {
    if (!builtin) LC_RETURN_IF_ERROR(CheckName(def.name, false));
    InputValue v;
    v.name = def.name;
    v.description = def.description;
    v.deprecationReason = def.deprecationReason;
    LC_ASSIGN_OR_RETURN(v.type, Resolve(def.type, where, true));
    if (v.deprecationReason && v.type.IsNonNull() && !def.defaultValue) {
      return BuildError("Required " + where + " cannot be deprecated.");
    }
    v.defaultLiteral = def.defaultValue;
    return v;
  }

  Result<std::vector<internal::Field>> MakeFields(const std::vector<FieldDef>& defs, const std::string& typeName,
                                                  bool builtin) {
    std::vector<internal::Field> fields;
    for (const FieldDef& def : defs) {
      if (!builtin) LC_RETURN_IF_ERROR(CheckName(def.name, false));
      for (const internal::Field& f : fields) {
        if (f.name == def.name) return BuildError("Field \"" + typeName + "." + def.name + "\" is declared twice.");
      }
      internal::Field f;
      f.name = def.name;
      f.description = def.description;
      f.resolve = def.resolve;
      f.deprecationReason = def.deprecationReason;
      LC_ASSIGN_OR_RETURN(f.type, Resolve(def.type, "field " + typeName + "." + def.name, false));
      for (const InputValueDef& a : def.args) {
        if (f.FindArg(a.name) != nullptr) {
          return BuildError("Argument \"" + typeName + "." + def.name + "(" + a.name + ":)\" is declared twice.");
        }
        LC_ASSIGN_OR_RETURN(InputValue arg,
                            MakeInputValue(a, "argument " + typeName + "." + def.name + "(" + a.name + ":)", builtin));
        f.args.push_back(std::move(arg));
      }
      fields.push_back(std::move(f));
    }
    return fields;
  }

  Status Fill(NamedType& t, const AnyTypeDef& def, bool builtin) {
    return std::visit(
        [&](const auto& d) -> Status {
          using D = std::decay_t<decltype(d)>;
          if constexpr (std::is_same_v<D, ObjectTypeDef> || std::is_same_v<D, InterfaceTypeDef>) {
            LC_ASSIGN_OR_RETURN(t.fields, MakeFields(d.fields, t.name, builtin));
            if (t.fields.empty()) return BuildError("Type " + t.name + " must define one or more fields.");
            for (const std::string& iface : d.interfaces) {
              auto it = all_.find(iface);
              if (it == all_.end() || it->second->kind != TypeKind::kInterface) {
                return BuildError("Type " + t.name + " must only implement Interface types, it cannot implement " +
                                  iface + ".");
              }
              t.interfaces.push_back(it->second);
            }
            if constexpr (std::is_same_v<D, InterfaceTypeDef>) t.resolveType = d.resolveType;
          } else if constexpr (std::is_same_v<D, UnionTypeDef>) {
            if (d.types.empty()) return BuildError("Union type " + t.name + " must define one or more member types.");
            for (const std::string& member : d.types) {
              auto it = all_.find(member);
              if (it == all_.end() || it->second->kind != TypeKind::kObject) {
                return BuildError("Union type " + t.name + " can only include Object types, it cannot include " +
                                  member + ".");
              }
              t.possibleTypes.push_back(it->second);
            }
            t.resolveType = d.resolveType;
          } else if constexpr (std::is_same_v<D, EnumTypeDef>) {
            if (d.values.empty()) return BuildError("Enum type " + t.name + " must define one or more values.");
            for (const EnumValueDef& v : d.values) {
              if (!builtin) LC_RETURN_IF_ERROR(CheckName(v.name, false));
              if (v.name == "true" || v.name == "false" || v.name == "null") {
                return BuildError("Enum type " + t.name + " cannot include value: " + v.name + ".");
              }
              if (t.FindEnumValue(v.name) != nullptr) {
                return BuildError("Enum value \"" + t.name + "." + v.name + "\" is declared twice.");
              }
              t.enumValues.push_back(internal::EnumValue{v.name, v.description, v.deprecationReason});
            }
          } else if constexpr (std::is_same_v<D, ScalarTypeDef>) {
            t.specifiedByUrl = d.specifiedByUrl;
            t.serialize = d.serialize;
            t.parse = d.parse;
          } else if constexpr (std::is_same_v<D, InputObjectTypeDef>) {
            if (d.fields.empty()) return BuildError("Input Object type " + t.name + " must define one or more fields.");
            t.oneOf = d.oneOf;
            for (const InputValueDef& f : d.fields) {
              if (t.FindInputField(f.name) != nullptr) {
                return BuildError("Input field \"" + t.name + "." + f.name + "\" is declared twice.");
              }
              LC_ASSIGN_OR_RETURN(InputValue field, MakeInputValue(f, "input field " + t.name + "." + f.name, builtin));
              if (d.oneOf && (field.type.IsNonNull() || f.defaultValue)) {
                return BuildError("OneOf input field " + t.name + "." + f.name + " must be nullable and have no default.");
              }
              t.inputFields.push_back(std::move(field));
            }
          }
          return Status::Ok();
        },
        def);
  }

  // Defaults are literals coerced like a query's arguments; done once every
  // input type is complete, since a default may be an input object.
  static Status ResolveDefault(InputValue& v, const std::string& where) {
    if (!v.defaultLiteral) return Status::Ok();
    auto parsed = internal::ParseConstValueText(*v.defaultLiteral);
    if (std::holds_alternative<internal::SyntaxError>(parsed)) {
      return BuildError("The default value of " + where + " is not a GraphQL literal: " +
                        std::get<internal::SyntaxError>(parsed).message);
    }
    std::optional<Value> value = internal::ValueFromAst(std::get<internal::ValueNode>(parsed), v.type, nullptr);
    if (!value) return BuildError("The default value of " + where + " is invalid for its type: " + *v.defaultLiteral + ".");
    v.defaultValue = std::move(*value);
    return Status::Ok();
  }

  std::unordered_map<std::string, NamedType*> all_;

 private:
  static bool isBuiltinName(const std::string& name) {
    return name == "String" || name == "Int" || name == "Float" || name == "Boolean" || name == "ID" ||
           (name.size() > 1 && name[0] == '_' && name[1] == '_');
  }

  SchemaImpl& schema_;
};

// graphql-js GraphQLSchema's constructor order: each of `types` in turn,
// followed depth-first by the types it references that are not in `types`;
// then what the query type, the directives and __Schema reference.
class TypeOrder {
 public:
  explicit TypeOrder(const std::vector<const NamedType*>& configTypes)
      : present_(configTypes.begin(), configTypes.end()) {}

  void Process(const NamedType* type) {
    present_.erase(type);
    Collect(type);
  }

  void Collect(const NamedType* type) {
    if (!present_.insert(type).second) return;
    order_.push_back(type);
    if (type->kind == TypeKind::kUnion) {
      for (const NamedType* m : type->possibleTypes) Collect(m);
    } else if (type->kind == TypeKind::kObject || type->kind == TypeKind::kInterface) {
      for (const NamedType* i : type->interfaces) Collect(i);
      for (const internal::Field& f : type->fields) {
        Collect(f.type.named);
        for (const InputValue& a : f.args) Collect(a.type.named);
      }
    } else if (type->kind == TypeKind::kInputObject) {
      for (const InputValue& f : type->inputFields) Collect(f.type.named);
    }
  }

  std::vector<const NamedType*> Take() { return std::move(order_); }

 private:
  std::unordered_set<const NamedType*> present_;
  std::vector<const NamedType*> order_;
};

Status CheckImplementation(const SchemaImpl& schema, const NamedType& type, const NamedType& iface) {
  for (const internal::Field& ifaceField : iface.fields) {
    const internal::Field* field = type.FindField(ifaceField.name);
    if (field == nullptr) {
      return BuildError("Interface field " + iface.name + "." + ifaceField.name + " expected but " + type.name +
                        " does not provide it.");
    }
    if (!internal::IsTypeSubTypeOf(schema, field->type, ifaceField.type)) {
      return BuildError("Interface field " + iface.name + "." + ifaceField.name + " expects type " +
                        ifaceField.type.ToString() + " but " + type.name + "." + field->name + " is type " +
                        field->type.ToString() + ".");
    }
    for (const InputValue& ifaceArg : ifaceField.args) {
      const InputValue* arg = field->FindArg(ifaceArg.name);
      if (arg == nullptr || !(arg->type == ifaceArg.type)) {
        return BuildError("Interface field argument " + iface.name + "." + ifaceField.name + "(" + ifaceArg.name +
                          ":) is not provided by " + type.name + "." + field->name + " with the same type.");
      }
    }
    for (const InputValue& arg : field->args) {
      if (ifaceField.FindArg(arg.name) == nullptr && arg.type.IsNonNull() && !arg.defaultValue) {
        return BuildError("Object field " + type.name + "." + field->name + " includes required argument " +
                          arg.name + " that is missing from the Interface field " + iface.name + "." +
                          ifaceField.name + ".");
      }
    }
  }
  return Status::Ok();
}

internal::Field MetaField(std::string name, std::string description, TypeRef type, Resolver resolve) {
  internal::Field f;
  f.name = std::move(name);
  f.description = std::move(description);
  f.type = std::move(type);
  f.resolve = std::move(resolve);
  return f;
}

}  // namespace

Result<Schema> SchemaBuilder::Build() && {
  auto impl = std::make_shared<SchemaImpl>();
  impl->description = pending_->description;
  Builder builder(*impl);

  std::vector<std::pair<NamedType*, AnyTypeDef>> builtins;
  for (ScalarTypeDef& def : internal::BuiltinScalarDefs()) builtins.emplace_back(nullptr, std::move(def));
  for (AnyTypeDef& def : internal::IntrospectionTypeDefs()) builtins.emplace_back(nullptr, std::move(def));
  for (auto& [shell, def] : builtins) {
    LC_ASSIGN_OR_RETURN(shell, builder.CreateShell(def, true));
  }
  static const std::pair<const char*, internal::BuiltinScalar> kBuiltinScalars[] = {
      {"String", internal::BuiltinScalar::kString}, {"Int", internal::BuiltinScalar::kInt},
      {"Float", internal::BuiltinScalar::kFloat},   {"Boolean", internal::BuiltinScalar::kBoolean},
      {"ID", internal::BuiltinScalar::kId},
  };
  for (const auto& [name, kind] : kBuiltinScalars) builder.all_.at(name)->builtin = kind;

  std::vector<NamedType*> userTypes;
  for (const AnyTypeDef& def : pending_->types) {
    LC_ASSIGN_OR_RETURN(NamedType * shell, builder.CreateShell(def, false));
    userTypes.push_back(shell);
  }
  for (auto& [shell, def] : builtins) LC_RETURN_IF_ERROR(builder.Fill(*shell, def, true));
  for (std::size_t i = 0; i < userTypes.size(); ++i) {
    LC_RETURN_IF_ERROR(builder.Fill(*userTypes[i], pending_->types[i], false));
  }

  for (const internal::DirectiveSpec& spec : internal::BuiltinDirectiveSpecs()) {
    internal::DirectiveDef d;
    d.name = spec.name;
    d.description = spec.description;
    d.locations = spec.locations;
    d.repeatable = spec.repeatable;
    for (const InputValueDef& a : spec.args) {
      LC_ASSIGN_OR_RETURN(InputValue arg, builder.MakeInputValue(a, "argument @" + spec.name + "(" + a.name + ":)", true));
      d.args.push_back(std::move(arg));
    }
    impl->directives.push_back(std::move(d));
  }

  for (NamedType& t : impl->storage) {
    for (internal::Field& f : t.fields) {
      for (InputValue& a : f.args) {
        LC_RETURN_IF_ERROR(Builder::ResolveDefault(a, "argument " + t.name + "." + f.name + "(" + a.name + ":)"));
      }
    }
    for (InputValue& f : t.inputFields) {
      LC_RETURN_IF_ERROR(Builder::ResolveDefault(f, "input field " + t.name + "." + f.name));
    }
  }
  for (internal::DirectiveDef& d : impl->directives) {
    for (InputValue& a : d.args) LC_RETURN_IF_ERROR(Builder::ResolveDefault(a, "argument @" + d.name + "(" + a.name + ":)"));
  }

  auto query = builder.all_.find(pending_->queryType);
  if (query == builder.all_.end()) return BuildError("Query root type must be provided.");
  if (query->second->kind != TypeKind::kObject) {
    return BuildError("Query root type must be Object type, it cannot be " + pending_->queryType + ".");
  }
  impl->queryType = query->second;

  std::vector<const NamedType*> config(userTypes.begin(), userTypes.end());
  TypeOrder order(config);
  for (const NamedType* t : config) order.Process(t);
  order.Collect(impl->queryType);
  for (const internal::DirectiveDef& d : impl->directives) {
    for (const InputValue& a : d.args) order.Collect(a.type.named);
  }
  order.Collect(builder.all_.at("__Schema"));
  impl->types = order.Take();
  for (const NamedType* t : impl->types) impl->byName[t->name] = t;

  // Implementations in type-map order, as graphql-js's _implementationsMap.
  for (const NamedType* t : impl->types) {
    if (t->kind != TypeKind::kObject && t->kind != TypeKind::kInterface) continue;
    for (const NamedType* iface : t->interfaces) {
      NamedType& target = *builder.all_.at(iface->name);
      (t->kind == TypeKind::kObject ? target.possibleTypes : target.implementingInterfaces).push_back(t);
    }
  }
  for (const NamedType* t : impl->types) {
    for (const NamedType* iface : t->interfaces) LC_RETURN_IF_ERROR(CheckImplementation(*impl, *t, *iface));
  }

  const NamedType* stringType = builder.all_.at("String");
  impl->schemaMetaField = MetaField("__schema", "Access the current type schema of this server.",
                                    TypeRef{builder.all_.at("__Schema"), "N"}, internal::ResolveSchemaMetaField);
  impl->typeMetaField = MetaField("__type", "Request the type information of a single type.",
                                  TypeRef{builder.all_.at("__Type"), ""}, internal::ResolveTypeMetaField);
  InputValue nameArg;
  nameArg.name = "name";
  nameArg.type = TypeRef{stringType, "N"};
  impl->typeMetaField.args.push_back(std::move(nameArg));
  impl->typenameMetaField = MetaField("__typename", "The name of the current Object type at runtime.",
                                      TypeRef{stringType, "N"}, internal::ResolveTypenameMetaField);
  return Schema(std::move(impl));
}

const std::optional<std::string>& Schema::description() const { return impl_->description; }

bool Schema::HasType(std::string_view name) const { return impl_->Find(name) != nullptr; }

}  // namespace livechat::graphql
