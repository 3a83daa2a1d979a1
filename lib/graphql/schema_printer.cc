// PrintSchema: a port of graphql-js 16's printSchema, so that the SDL we ship
// (docs/graphql/schema.graphql) is byte-for-byte what graphql-js prints.
#include "graphql/coercion.h"
#include "graphql/js_text.h"
#include "graphql/schema_internal.h"
#include "livechat/graphql/engine.h"

namespace livechat::graphql {

namespace {

using internal::InputValue;
using internal::NamedType;
using internal::TypeKind;

constexpr const char* kDefaultDeprecationReason = "No longer supported";

std::string ReplaceNewlines(const std::string& s, const std::string& indentation) {
  std::string out;
  for (char c : s) {
    out.push_back(c);
    if (c == '\n') out += indentation;
  }
  return out;
}

std::string PrintDescription(const std::optional<std::string>& description, const std::string& indentation = "",
                             bool firstInBlock = true) {
  if (!description) return "";
  const std::string block = internal::IsPrintableAsBlockString(*description)
                                ? internal::PrintBlockString(*description)
                                : internal::PrintString(*description);
  const std::string prefix = (!indentation.empty() && !firstInBlock) ? "\n" + indentation : indentation;
  return prefix + ReplaceNewlines(block, indentation) + "\n";
}

std::string PrintDeprecated(const std::optional<std::string>& reason) {
  if (!reason) return "";
  if (*reason != kDefaultDeprecationReason) return " @deprecated(reason: " + internal::PrintString(*reason) + ")";
  return " @deprecated";
}

std::string PrintInputValue(const InputValue& arg) {
  std::string decl = arg.name + ": " + arg.type.ToString();
  if (arg.defaultValue) {
    std::optional<std::string> printed = internal::PrintValueForType(*arg.defaultValue, arg.type);
    if (printed) decl += " = " + *printed;
  }
  return decl + PrintDeprecated(arg.deprecationReason);
}

std::string PrintArgs(const std::vector<InputValue>& args, const std::string& indentation = "") {
  if (args.empty()) return "";
  bool anyDescription = false;
  for (const InputValue& a : args) anyDescription = anyDescription || (a.description && !a.description->empty());
  std::string out = "(";
  if (!anyDescription) {
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (i > 0) out += ", ";
      out += PrintInputValue(args[i]);
    }
    return out + ")";
  }
  out += "\n";
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i > 0) out += "\n";
    out += PrintDescription(args[i].description, "  " + indentation, i == 0) + "  " + indentation +
           PrintInputValue(args[i]);
  }
  return out + "\n" + indentation + ")";
}

std::string PrintBlock(const std::vector<std::string>& items) {
  if (items.empty()) return "";
  std::string out = " {\n";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += "\n";
    out += items[i];
  }
  return out + "\n}";
}

std::string PrintImplementedInterfaces(const NamedType& type) {
  if (type.interfaces.empty()) return "";
  std::string out = " implements ";
  for (std::size_t i = 0; i < type.interfaces.size(); ++i) {
    if (i > 0) out += " & ";
    out += type.interfaces[i]->name;
  }
  return out;
}

std::string PrintFields(const NamedType& type) {
  std::vector<std::string> items;
  for (std::size_t i = 0; i < type.fields.size(); ++i) {
    const internal::Field& f = type.fields[i];
    items.push_back(PrintDescription(f.description, "  ", i == 0) + "  " + f.name + PrintArgs(f.args, "  ") + ": " +
                    f.type.ToString() + PrintDeprecated(f.deprecationReason));
  }
  return PrintBlock(items);
}

std::string PrintType(const NamedType& type) {
  switch (type.kind) {
    case TypeKind::kScalar: {
      std::string out = PrintDescription(type.description) + "scalar " + type.name;
      if (type.specifiedByUrl) out += " @specifiedBy(url: " + internal::PrintString(*type.specifiedByUrl) + ")";
      return out;
    }
    case TypeKind::kObject:
      return PrintDescription(type.description) + "type " + type.name + PrintImplementedInterfaces(type) +
             PrintFields(type);
    case TypeKind::kInterface:
      return PrintDescription(type.description) + "interface " + type.name + PrintImplementedInterfaces(type) +
             PrintFields(type);
    case TypeKind::kUnion: {
      std::string out = PrintDescription(type.description) + "union " + type.name;
      for (std::size_t i = 0; i < type.possibleTypes.size(); ++i) {
        out += (i == 0 ? " = " : " | ") + type.possibleTypes[i]->name;
      }
      return out;
    }
    case TypeKind::kEnum: {
      std::vector<std::string> items;
      for (std::size_t i = 0; i < type.enumValues.size(); ++i) {
        const internal::EnumValue& v = type.enumValues[i];
        items.push_back(PrintDescription(v.description, "  ", i == 0) + "  " + v.name +
                        PrintDeprecated(v.deprecationReason));
      }
      return PrintDescription(type.description) + "enum " + type.name + PrintBlock(items);
    }
    case TypeKind::kInputObject: {
      std::vector<std::string> items;
      for (std::size_t i = 0; i < type.inputFields.size(); ++i) {
        items.push_back(PrintDescription(type.inputFields[i].description, "  ", i == 0) + "  " +
                        PrintInputValue(type.inputFields[i]));
      }
      return PrintDescription(type.description) + "input " + type.name + (type.oneOf ? " @oneOf" : "") +
             PrintBlock(items);
    }
  }
  return "";
}

}  // namespace

std::string PrintSchema(const Schema& schema) {
  const internal::SchemaImpl& s = schema.impl();
  std::vector<std::string> parts;
  // The schema definition is printed only when it says something the
  // conventional names do not: a description or a non-"Query" root.
  if (s.description || s.queryType->name != "Query") {
    parts.push_back(PrintDescription(s.description) + "schema {\n  query: " + s.queryType->name + "\n}");
  }
  for (const NamedType* t : s.types) {
    if (t->introspection || t->builtin != internal::BuiltinScalar::kNone) continue;
    parts.push_back(PrintType(*t));
  }
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += "\n\n";
    out += parts[i];
  }
  return out;
}

}  // namespace livechat::graphql
