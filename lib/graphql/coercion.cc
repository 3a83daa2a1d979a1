#include "graphql/coercion.h"

#include <cmath>
#include <limits>

#include "graphql/js_text.h"
#include "graphql/parser.h"

namespace livechat::graphql::internal {

namespace {

constexpr double kMaxInt = 2147483647.0;
constexpr double kMinInt = -2147483648.0;

bool IsInteger(double d) { return std::isfinite(d) && std::trunc(d) == d; }

std::string InspectImpl(const Value& v, int depth) {
  switch (v.kind()) {
    case Value::Kind::kNull: return "null";
    case Value::Kind::kBoolean: return v.AsBool() ? "true" : "false";
    case Value::Kind::kInt: return std::to_string(v.AsInt());
    case Value::Kind::kFloat: return FormatJsNumber(v.AsFloat());
    case Value::Kind::kString:
    case Value::Kind::kEnum: {
      std::string out;
      AppendJsonQuoted(out, v.AsString());
      return out;
    }
    case Value::Kind::kHost: return "[Host]";
    case Value::Kind::kList: {
      const Value::List& list = v.AsList();
      if (list.empty()) return "[]";
      if (depth > 2) return "[Array]";
      const std::size_t len = std::min<std::size_t>(10, list.size());
      const std::size_t remaining = list.size() - len;
      std::string out = "[";
      for (std::size_t i = 0; i < len; ++i) {
        if (i > 0) out += ", ";
        out += InspectImpl(list[i], depth + 1);
      }
      if (remaining == 1) out += ", ... 1 more item";
      if (remaining > 1) out += ", ... " + std::to_string(remaining) + " more items";
      return out + "]";
    }
    case Value::Kind::kObject: {
      const Value::Object& obj = v.AsObject();
      if (obj.empty()) return "{}";
      if (depth > 2) return "[Object]";
      std::string out = "{ ";
      for (std::size_t i = 0; i < obj.size(); ++i) {
        if (i > 0) out += ", ";
        out += obj[i].first + ": " + InspectImpl(obj[i].second, depth + 1);
      }
      return out + " }";
    }
  }
  return "";
}

FieldResult Err(std::string message) { return FieldError{std::move(message), {}}; }

std::vector<std::string> EnumNames(const NamedType& type) {
  std::vector<std::string> names;
  for (const EnumValue& v : type.enumValues) names.push_back(v.name);
  return names;
}

std::string DidYouMeanEnumValue(const NamedType& type, const std::string& unknown) {
  return DidYouMean(SuggestionList(unknown, EnumNames(type)), "the enum value");
}

// Number() of a resolver's value for Int/Float serialize; nullopt is NaN or
// not a number at all.
std::optional<double> NumberForSerialize(const Value& v) {
  if (v.IsNumber()) return v.AsNumber();
  if ((v.IsString() || v.IsEnum()) && !v.AsString().empty()) return JsStringToNumber(v.AsString());
  return std::nullopt;
}

FieldResult SerializeBuiltin(BuiltinScalar kind, const Value& v) {
  switch (kind) {
    case BuiltinScalar::kInt: {
      if (v.IsBool()) return Value(v.AsBool() ? 1 : 0);
      if (v.IsInt()) return v;
      std::optional<double> num = NumberForSerialize(v);
      if (!num || !IsInteger(*num)) return Err("Int cannot represent non-integer value: " + Inspect(v));
      if (*num > kMaxInt || *num < kMinInt) {
        return Err("Int cannot represent non 32-bit signed integer value: " + Inspect(v));
      }
      return Value(static_cast<int>(*num));
    }
    case BuiltinScalar::kFloat: {
      if (v.IsBool()) return Value(v.AsBool() ? 1.0 : 0.0);
      std::optional<double> num = NumberForSerialize(v);
      if (!num || !std::isfinite(*num)) return Err("Float cannot represent non numeric value: " + Inspect(v));
      return Value(*num);
    }
    case BuiltinScalar::kString:
      if (v.IsString() || v.IsEnum()) return Value(v.AsString());
      if (v.IsBool()) return Value(v.AsBool() ? "true" : "false");
      if (v.IsInt()) return Value(std::to_string(v.AsInt()));
      if (v.IsFloat() && std::isfinite(v.AsFloat())) return Value(FormatJsNumber(v.AsFloat()));
      return Err("String cannot represent value: " + Inspect(v));
    case BuiltinScalar::kBoolean:
      if (v.IsBool()) return v;
      if (v.IsNumber() && std::isfinite(v.AsNumber())) return Value(v.AsNumber() != 0);
      return Err("Boolean cannot represent a non boolean value: " + Inspect(v));
    case BuiltinScalar::kId:
      if (v.IsString() || v.IsEnum()) return Value(v.AsString());
      if (v.IsInt()) return Value(std::to_string(v.AsInt()));
      if (v.IsFloat() && IsInteger(v.AsFloat())) return Value(FormatJsNumber(v.AsFloat()));
      return Err("ID cannot represent value: " + Inspect(v));
    case BuiltinScalar::kNone:
      break;
  }
  return v;
}

FieldResult ParseBuiltinValue(BuiltinScalar kind, const Value& v) {
  switch (kind) {
    case BuiltinScalar::kInt:
      if (v.IsInt()) return v;
      if (!v.IsFloat() || !IsInteger(v.AsFloat())) return Err("Int cannot represent non-integer value: " + Inspect(v));
      if (v.AsFloat() > kMaxInt || v.AsFloat() < kMinInt) {
        return Err("Int cannot represent non 32-bit signed integer value: " + FormatJsNumber(v.AsFloat()));
      }
      return Value(static_cast<int>(v.AsFloat()));
    case BuiltinScalar::kFloat:
      if (v.IsNumber() && std::isfinite(v.AsNumber())) return Value(v.AsNumber());
      return Err("Float cannot represent non numeric value: " + Inspect(v));
    case BuiltinScalar::kString:
      if (v.IsString()) return v;
      return Err("String cannot represent a non string value: " + Inspect(v));
    case BuiltinScalar::kBoolean:
      if (v.IsBool()) return v;
      return Err("Boolean cannot represent a non boolean value: " + Inspect(v));
    case BuiltinScalar::kId:
      if (v.IsString()) return v;
      if (v.IsInt()) return Value(std::to_string(v.AsInt()));
      if (v.IsFloat() && IsInteger(v.AsFloat())) return Value(FormatJsNumber(v.AsFloat()));
      return Err("ID cannot represent value: " + Inspect(v));
    case BuiltinScalar::kNone:
      break;
  }
  return v;
}

FieldResult ParseBuiltinLiteral(BuiltinScalar kind, const ValueNode& node) {
  switch (kind) {
    case BuiltinScalar::kInt: {
      if (node.kind != ValueKind::kInt) return Err("Int cannot represent non-integer value: " + PrintValueNode(node));
      const double num = JsParseNumber(node.text);
      if (num > kMaxInt || num < kMinInt) {
        return Err("Int cannot represent non 32-bit signed integer value: " + node.text);
      }
      return Value(static_cast<int>(num));
    }
    case BuiltinScalar::kFloat:
      if (node.kind != ValueKind::kFloat && node.kind != ValueKind::kInt) {
        return Err("Float cannot represent non numeric value: " + PrintValueNode(node));
      }
      return Value(JsParseNumber(node.text));
    case BuiltinScalar::kString:
      if (node.kind != ValueKind::kString) {
        return Err("String cannot represent a non string value: " + PrintValueNode(node));
      }
      return Value(node.text);
    case BuiltinScalar::kBoolean:
      if (node.kind != ValueKind::kBoolean) {
        return Err("Boolean cannot represent a non boolean value: " + PrintValueNode(node));
      }
      return Value(node.boolValue);
    case BuiltinScalar::kId:
      if (node.kind != ValueKind::kString && node.kind != ValueKind::kInt) {
        return Err("ID cannot represent a non-string and non-integer value: " + PrintValueNode(node));
      }
      return Value(node.text);
    case BuiltinScalar::kNone:
      break;
  }
  return Value();
}

}  // namespace

std::string Inspect(const Value& value) { return InspectImpl(value, 1); }

const Value* FindVariable(const Value::Object* variables, std::string_view name) {
  if (variables == nullptr) return nullptr;
  for (const auto& [k, v] : *variables) {
    if (k == name) return &v;
  }
  return nullptr;
}

FieldResult SerializeLeaf(const NamedType& type, const Value& value) {
  if (type.kind == TypeKind::kEnum) {
    if ((value.IsEnum() || value.IsString()) && type.FindEnumValue(value.AsString()) != nullptr) {
      return Value(value.AsString());
    }
    return Err("Enum \"" + type.name + "\" cannot represent value: " + Inspect(value));
  }
  if (type.builtin != BuiltinScalar::kNone) return SerializeBuiltin(type.builtin, value);
  if (!type.serialize) return value;
  FieldResult r = type.serialize(value);
  return r;
}

bool SerializesAsItself(const NamedType& type, const Value& value) {
  if (type.kind == TypeKind::kEnum) return value.IsString() && type.FindEnumValue(value.AsString()) != nullptr;
  switch (type.builtin) {
    case BuiltinScalar::kString:
    case BuiltinScalar::kId:
      return value.IsString();
    case BuiltinScalar::kInt:
      return value.IsInt();
    case BuiltinScalar::kBoolean:
      return value.IsBool();
    case BuiltinScalar::kFloat:  // an Int becomes a Float: not itself
    case BuiltinScalar::kNone:   // a custom scalar's serialize decides
      return false;
  }
  return false;
}

FieldResult ParseLeafValue(const NamedType& type, const Value& value) {
  if (type.kind == TypeKind::kEnum) {
    if (!value.IsString()) {
      const std::string valueStr = Inspect(value);
      return Err("Enum \"" + type.name + "\" cannot represent non-string value: " + valueStr + "." +
                 DidYouMeanEnumValue(type, valueStr));
    }
    if (type.FindEnumValue(value.AsString()) == nullptr) {
      return Err("Value \"" + value.AsString() + "\" does not exist in \"" + type.name + "\" enum." +
                 DidYouMeanEnumValue(type, value.AsString()));
    }
    return Value::Enum(value.AsString());
  }
  if (type.builtin != BuiltinScalar::kNone) return ParseBuiltinValue(type.builtin, value);
  if (!type.parse) return value;
  return type.parse(value);
}

FieldResult ParseLeafLiteral(const NamedType& type, const ValueNode& node, const Value::Object* variables) {
  if (type.kind == TypeKind::kEnum) {
    if (node.kind != ValueKind::kEnum) {
      const std::string valueStr = PrintValueNode(node);
      return Err("Enum \"" + type.name + "\" cannot represent non-enum value: " + valueStr + "." +
                 DidYouMeanEnumValue(type, valueStr));
    }
    if (type.FindEnumValue(node.text) == nullptr) {
      const std::string valueStr = PrintValueNode(node);
      return Err("Value \"" + valueStr + "\" does not exist in \"" + type.name + "\" enum." +
                 DidYouMeanEnumValue(type, valueStr));
    }
    return Value::Enum(node.text);
  }
  if (type.builtin != BuiltinScalar::kNone) return ParseBuiltinLiteral(type.builtin, node);
  std::optional<Value> untyped = ValueFromAstUntyped(node, variables);
  if (!untyped) return Err("Expected value of type \"" + type.name + "\", found " + PrintValueNode(node) + ".");
  if (!type.parse) return *untyped;
  return type.parse(*untyped);
}

std::optional<Value> ValueFromAstUntyped(const ValueNode& node, const Value::Object* variables) {
  switch (node.kind) {
    case ValueKind::kNull: return Value();
    case ValueKind::kInt: {
      const double d = JsParseNumber(node.text);
      if (d >= kMinInt && d <= kMaxInt) return Value(static_cast<int>(d));
      return Value(d);
    }
    case ValueKind::kFloat: return Value(JsParseNumber(node.text));
    case ValueKind::kString:
    case ValueKind::kEnum: return Value(node.text);
    case ValueKind::kBoolean: return Value(node.boolValue);
    case ValueKind::kList: {
      Value::List list;
      for (const ValueNode& item : node.items) {
        std::optional<Value> v = ValueFromAstUntyped(item, variables);
        list.push_back(v ? std::move(*v) : Value());  // JavaScript keeps undefined; JSON would say null
      }
      return Value(std::move(list));
    }
    case ValueKind::kObject: {
      Value obj = Value(Value::Object{});
      for (const ObjectFieldNode& f : node.fields) {
        std::optional<Value> v = ValueFromAstUntyped(f.value, variables);
        if (v) obj.Set(f.name, std::move(*v));
      }
      return obj;
    }
    case ValueKind::kVariable: {
      const Value* v = FindVariable(variables, node.text);
      if (v == nullptr) return std::nullopt;
      return *v;
    }
  }
  return std::nullopt;
}

namespace {

bool IsMissingVariable(const ValueNode& node, const Value::Object* variables) {
  return node.kind == ValueKind::kVariable && FindVariable(variables, node.text) == nullptr;
}

}  // namespace

std::optional<Value> ValueFromAst(const ValueNode& node, const TypeRef& type, const Value::Object* variables) {
  if (node.kind == ValueKind::kVariable) {
    const Value* v = FindVariable(variables, node.text);
    if (v == nullptr) return std::nullopt;
    if (v->IsNull() && type.IsNonNull()) return std::nullopt;
    return *v;  // already coerced for the variable's type
  }
  if (type.IsNonNull()) {
    if (node.kind == ValueKind::kNull) return std::nullopt;
    return ValueFromAst(node, type.OfType(), variables);
  }
  if (node.kind == ValueKind::kNull) return Value();
  if (type.IsList()) {
    const TypeRef itemType = type.OfType();
    if (node.kind == ValueKind::kList) {
      Value::List items;
      for (const ValueNode& item : node.items) {
        if (IsMissingVariable(item, variables)) {
          if (itemType.IsNonNull()) return std::nullopt;
          items.emplace_back();
        } else {
          std::optional<Value> v = ValueFromAst(item, itemType, variables);
          if (!v) return std::nullopt;
          items.push_back(std::move(*v));
        }
      }
      return Value(std::move(items));
    }
    std::optional<Value> v = ValueFromAst(node, itemType, variables);
    if (!v) return std::nullopt;
    return Value(Value::List{std::move(*v)});
  }
  const NamedType& named = *type.named;
  if (named.kind == TypeKind::kInputObject) {
    if (node.kind != ValueKind::kObject) return std::nullopt;
    Value obj = Value(Value::Object{});
    for (const InputValue& field : named.inputFields) {
      const ObjectFieldNode* fieldNode = nullptr;
      for (const ObjectFieldNode& f : node.fields) {
        if (f.name == field.name) fieldNode = &f;  // last one wins, as keyMap
      }
      if (fieldNode == nullptr || IsMissingVariable(fieldNode->value, variables)) {
        if (field.defaultValue) {
          obj.Set(field.name, *field.defaultValue);
        } else if (field.type.IsNonNull()) {
          return std::nullopt;
        }
        continue;
      }
      std::optional<Value> v = ValueFromAst(fieldNode->value, field.type, variables);
      if (!v) return std::nullopt;
      obj.Set(field.name, std::move(*v));
    }
    if (named.oneOf) {
      if (obj.AsObject().size() != 1 || obj.AsObject()[0].second.IsNull()) return std::nullopt;
    }
    return obj;
  }
  FieldResult r = ParseLeafLiteral(named, node, variables);
  if (!r.ok()) return std::nullopt;
  return std::move(r).value();
}

std::string PrintPathArray(const CoercionPath& path) {
  std::string out;
  for (const auto& p : path) {
    if (std::holds_alternative<int>(p)) {
      out += "[" + std::to_string(std::get<int>(p)) + "]";
    } else {
      out += "." + std::get<std::string>(p);
    }
  }
  return out;
}

namespace {

std::optional<Value> CoerceImpl(const Value& value, const TypeRef& type, CoercionPath& path,
                                const CoercionErrorFn& onError) {
  if (type.IsNonNull()) {
    if (!value.IsNull()) return CoerceImpl(value, type.OfType(), path, onError);
    onError(path, value, "Expected non-nullable type \"" + type.ToString() + "\" not to be null.");
    return std::nullopt;
  }
  if (value.IsNull()) return Value();
  if (type.IsList()) {
    const TypeRef itemType = type.OfType();
    if (value.IsList()) {
      Value::List items;
      const Value::List& list = value.AsList();
      for (std::size_t i = 0; i < list.size(); ++i) {
        path.emplace_back(static_cast<int>(i));
        std::optional<Value> v = CoerceImpl(list[i], itemType, path, onError);
        path.pop_back();
        items.push_back(v ? std::move(*v) : Value());
      }
      return Value(std::move(items));
    }
    std::optional<Value> v = CoerceImpl(value, itemType, path, onError);
    return Value(Value::List{v ? std::move(*v) : Value()});
  }
  const NamedType& named = *type.named;
  if (named.kind == TypeKind::kInputObject) {
    if (!value.IsObject()) {
      onError(path, value, "Expected type \"" + named.name + "\" to be an object.");
      return std::nullopt;
    }
    Value out = Value(Value::Object{});
    std::size_t keys = 0;
    for (const InputValue& field : named.inputFields) {
      const Value* fieldValue = value.Find(field.name);
      if (fieldValue == nullptr) {
        if (field.defaultValue) {
          out.Set(field.name, *field.defaultValue);
          ++keys;
        } else if (field.type.IsNonNull()) {
          onError(path, value,
                  "Field \"" + field.name + "\" of required type \"" + field.type.ToString() + "\" was not provided.");
        }
        continue;
      }
      path.emplace_back(field.name);
      std::optional<Value> v = CoerceImpl(*fieldValue, field.type, path, onError);
      path.pop_back();
      ++keys;
      if (v) out.Set(field.name, std::move(*v));
    }
    for (const auto& [key, ignored] : value.AsObject()) {
      if (named.FindInputField(key) == nullptr) {
        std::vector<std::string> names;
        for (const InputValue& f : named.inputFields) names.push_back(f.name);
        onError(path, value,
                "Field \"" + key + "\" is not defined by type \"" + named.name + "\"." +
                    DidYouMean(SuggestionList(key, names)));
      }
    }
    if (named.oneOf) {
      if (keys != 1) {
        onError(path, value, "Exactly one key must be specified for OneOf type \"" + named.name + "\".");
      }
      if (!out.AsObject().empty() && out.AsObject()[0].second.IsNull()) {
        path.emplace_back(out.AsObject()[0].first);
        onError(path, Value(), "Field \"" + out.AsObject()[0].first + "\" must be non-null.");
        path.pop_back();
      }
    }
    return out;
  }
  FieldResult r = ParseLeafValue(named, value);
  if (!r.ok()) {
    onError(path, value, r.error().message);
    return std::nullopt;
  }
  return std::move(r).value();
}

// astFromValue, producing a ValueNode (only the parts print() reads).
std::optional<ValueNode> AstFromValue(const Value& value, const TypeRef& type) {
  if (type.IsNonNull()) {
    std::optional<ValueNode> inner = AstFromValue(value, type.OfType());
    if (inner && inner->kind == ValueKind::kNull) return std::nullopt;
    return inner;
  }
  if (value.IsNull()) {
    ValueNode n;
    n.kind = ValueKind::kNull;
    return n;
  }
  if (type.IsList()) {
    const TypeRef itemType = type.OfType();
    if (value.IsList()) {
      ValueNode n;
      n.kind = ValueKind::kList;
      for (const Value& item : value.AsList()) {
        std::optional<ValueNode> itemNode = AstFromValue(item, itemType);
        if (itemNode) n.items.push_back(std::move(*itemNode));
      }
      return n;
    }
    return AstFromValue(value, itemType);
  }
  const NamedType& named = *type.named;
  if (named.kind == TypeKind::kInputObject) {
    if (!value.IsObject()) return std::nullopt;
    ValueNode n;
    n.kind = ValueKind::kObject;
    for (const InputValue& field : named.inputFields) {
      const Value* fieldValue = value.Find(field.name);
      if (fieldValue == nullptr) continue;
      std::optional<ValueNode> fieldNode = AstFromValue(*fieldValue, field.type);
      if (fieldNode) n.fields.push_back(ObjectFieldNode{field.name, Loc{}, std::move(*fieldNode)});
    }
    return n;
  }
  FieldResult serialized = SerializeLeaf(named, value);
  if (!serialized.ok() || serialized.value().IsNull()) return std::nullopt;
  const Value& s = serialized.value();
  ValueNode n;
  auto isIntegerString = [](const std::string& str) {
    std::size_t i = str[0] == '-' ? 1 : 0;
    if (i >= str.size()) return false;
    if (str[i] == '0') return i + 1 == str.size();
    for (; i < str.size(); ++i) {
      if (str[i] < '0' || str[i] > '9') return false;
    }
    return true;
  };
  if (s.IsBool()) {
    n.kind = ValueKind::kBoolean;
    n.boolValue = s.AsBool();
  } else if (s.IsNumber()) {
    if (!std::isfinite(s.AsNumber())) return std::nullopt;
    n.text = s.IsInt() ? std::to_string(s.AsInt()) : FormatJsNumber(s.AsFloat());
    n.kind = isIntegerString(n.text) ? ValueKind::kInt : ValueKind::kFloat;
  } else if (s.IsString() || s.IsEnum()) {
    n.text = s.AsString();
    if (named.kind == TypeKind::kEnum) {
      n.kind = ValueKind::kEnum;
    } else if (named.builtin == BuiltinScalar::kId && !n.text.empty() && isIntegerString(n.text)) {
      n.kind = ValueKind::kInt;
    } else {
      n.kind = ValueKind::kString;
    }
  } else {
    return std::nullopt;  // graphql-js throws "Cannot convert value to AST"
  }
  return n;
}

}  // namespace

std::optional<Value> CoerceInputValue(const Value& value, const TypeRef& type, const CoercionErrorFn& onError) {
  CoercionPath path;
  return CoerceImpl(value, type, path, onError);
}

std::optional<std::string> PrintValueForType(const Value& value, const TypeRef& type) {
  std::optional<ValueNode> node = AstFromValue(value, type);
  if (!node) return std::nullopt;
  return PrintValueNode(*node);
}

}  // namespace livechat::graphql::internal
