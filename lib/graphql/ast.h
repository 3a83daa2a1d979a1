// The syntax tree of an executable GraphQL document. Nodes own their children
// by value; a Document is immutable once parsed. Every node keeps the
// location of its first token, which is where graphql-js reports an error
// about that node.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "livechat/graphql/engine.h"

namespace livechat::graphql::internal {

struct Loc {
  std::uint32_t line = 0;
  std::uint32_t column = 0;
  Location ToLocation() const { return Location{static_cast<int>(line), static_cast<int>(column)}; }
};

enum class ValueKind : std::uint8_t { kVariable, kInt, kFloat, kString, kBoolean, kNull, kEnum, kList, kObject };

struct ObjectFieldNode;

struct ValueNode {
  ValueKind kind = ValueKind::kNull;
  Loc loc;
  // kVariable, kEnum: the name; kInt, kFloat: the literal text; kString: the
  // decoded value.
  std::string text;
  bool boolValue = false;
  bool block = false;  // kString written as a block string
  std::vector<ValueNode> items;          // kList
  std::vector<ObjectFieldNode> fields;   // kObject
};

struct ObjectFieldNode {
  std::string name;
  Loc loc;  // of the name
  ValueNode value;
};

struct TypeNode {
  enum class Kind : std::uint8_t { kNamed, kList, kNonNull };
  Kind kind = Kind::kNamed;
  Loc loc;
  std::string name;               // kNamed
  std::unique_ptr<TypeNode> of;   // kList, kNonNull

  TypeNode() = default;
  TypeNode(const TypeNode& other);
  TypeNode& operator=(const TypeNode& other);
  TypeNode(TypeNode&&) noexcept = default;
  TypeNode& operator=(TypeNode&&) noexcept = default;
  const TypeNode& Named() const { return kind == Kind::kNamed ? *this : of->Named(); }
};

struct ArgumentNode {
  std::string name;
  Loc loc;  // of the name
  ValueNode value;
};

struct DirectiveNode {
  std::string name;
  Loc loc;  // of "@"
  std::vector<ArgumentNode> args;
};

struct SelectionNode;

struct SelectionSetNode {
  Loc loc;  // of "{"
  std::vector<SelectionNode> selections;
};

struct SelectionNode {
  enum class Kind : std::uint8_t { kField, kFragmentSpread, kInlineFragment };
  Kind kind = Kind::kField;
  Loc loc;  // field: alias or name; fragments: "..."
  // kField
  std::optional<std::string> alias;
  std::string name;  // field name, or the spread's fragment name
  Loc nameLoc;
  std::vector<ArgumentNode> args;
  // kInlineFragment
  std::optional<TypeNode> typeCondition;
  std::vector<DirectiveNode> directives;
  std::optional<SelectionSetNode> selectionSet;  // always set for inline fragments

  const std::string& ResponseName() const { return alias ? *alias : name; }
};

struct VariableDefinitionNode {
  Loc loc;  // of the description or "$"
  std::string name;
  Loc nameLoc;      // of the name after "$"
  Loc variableLoc;  // of "$"
  TypeNode type;
  std::optional<ValueNode> defaultValue;
  std::vector<DirectiveNode> directives;
};

enum class OperationType : std::uint8_t { kQuery, kMutation, kSubscription };

struct OperationNode {
  Loc loc;
  OperationType operation = OperationType::kQuery;
  std::optional<std::string> name;
  Loc nameLoc;
  std::vector<VariableDefinitionNode> variables;
  std::vector<DirectiveNode> directives;
  SelectionSetNode selectionSet;
};

struct FragmentNode {
  Loc loc;
  std::string name;
  Loc nameLoc;
  TypeNode typeCondition;
  std::vector<DirectiveNode> directives;
  SelectionSetNode selectionSet;
};

// A type-system definition or extension. Only what the validation rules read
// about them is kept: they make a document invalid, and a few rules
// (KnownTypeNames, KnownDirectives, ...) treat their names as defined.
struct TypeSystemNode {
  enum class Kind : std::uint8_t { kSchema, kSchemaExtension, kTypeDefinition, kTypeExtension, kDirectiveDefinition };
  Kind kind = Kind::kTypeDefinition;
  Loc loc;
  std::string name;  // empty for schema definitions/extensions
  // kDirectiveDefinition
  std::vector<std::string> locations;
  bool repeatable = false;
  struct Arg {
    std::string name;
    std::string typeText;  // printed, e.g. "Int!"
    bool required = false;  // non-null without a default
  };
  std::vector<Arg> args;
};

struct Definition {
  enum class Kind : std::uint8_t { kOperation, kFragment, kTypeSystem };
  Kind kind = Kind::kOperation;
  // Exactly one of these, by kind. Indices into DocumentAst's vectors.
  std::size_t index = 0;
};

struct DocumentAst {
  std::vector<Definition> definitions;  // in document order
  std::vector<OperationNode> operations;
  std::vector<FragmentNode> fragments;
  std::vector<TypeSystemNode> typeSystem;
  std::unordered_map<std::string, std::size_t> fragmentIndex;  // name -> last definition with it
  std::size_t tokenCount = 0;

  // The fragment definition named `name`, or nullptr. With duplicates, the
  // last one, as graphql-js's getFragment (UniqueFragmentNames reports them).
  const FragmentNode* FindFragment(std::string_view name) const;
};

}  // namespace livechat::graphql::internal
