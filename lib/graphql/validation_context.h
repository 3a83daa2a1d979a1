// The machinery graphql-js's validate() is built on, ported so that our rules
// can be line-for-line ports of its rules: a visitor that runs every rule in
// one walk ("visitInParallel", with per-rule subtree skipping), TypeInfo, and
// ValidationContext with its memoized fragment and variable-usage queries.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graphql/ast.h"
#include "graphql/schema_internal.h"
#include "livechat/graphql/engine.h"

namespace livechat::graphql::internal {

enum class NodeKind : std::uint8_t {
  kDocument, kOperation, kVariableDefinition, kVariable, kSelectionSet, kField, kArgument, kFragmentSpread,
  kInlineFragment, kFragmentDefinition, kValue, kObjectField, kDirective, kNamedType, kListType, kNonNullType,
};

struct VisitNode {
  NodeKind kind;
  const void* ptr;
  // kDirective: the directive location of the node it is applied to.
  std::string_view directiveLocation;
  // kSelectionSet: whether its parent is an inline fragment.
  bool parentIsInlineFragment = false;

  template <typename T>
  const T& As() const {
    return *static_cast<const T*>(ptr);
  }
};

// graphql-js TypeInfo (the parts validation reads).
class TypeInfo {
 public:
  explicit TypeInfo(const SchemaImpl& schema) : schema_(schema) {}
  void Enter(const VisitNode& node);
  void Leave(const VisitNode& node);

  TypeRef GetType() const { return typeStack_.empty() ? TypeRef{} : typeStack_.back(); }
  const NamedType* GetParentType() const { return parentTypeStack_.empty() ? nullptr : parentTypeStack_.back(); }
  TypeRef GetInputType() const { return inputTypeStack_.empty() ? TypeRef{} : inputTypeStack_.back(); }
  TypeRef GetParentInputType() const {
    return inputTypeStack_.size() < 2 ? TypeRef{} : inputTypeStack_[inputTypeStack_.size() - 2];
  }
  const Field* GetFieldDef() const { return fieldDefStack_.empty() ? nullptr : fieldDefStack_.back(); }
  // nullptr: undefined (no default); else the default, which may be null.
  const Value* GetDefaultValue() const { return defaultValueStack_.empty() ? nullptr : defaultValueStack_.back(); }
  const DirectiveDef* GetDirective() const { return directive_; }
  const InputValue* GetArgument() const { return argument_; }

 private:
  const SchemaImpl& schema_;
  std::vector<TypeRef> typeStack_;
  std::vector<const NamedType*> parentTypeStack_;
  std::vector<TypeRef> inputTypeStack_;
  std::vector<const Field*> fieldDefStack_;
  std::vector<const Value*> defaultValueStack_;
  const DirectiveDef* directive_ = nullptr;
  const InputValue* argument_ = nullptr;
};

// Thrown inside validation only (caught by Validate): graphql-js aborts its
// visit by throwing too, when the error or work limits are reached.
struct ValidationAborted {};

class ValidationContext;

// A validation rule: Enter returns false to skip the node's subtree (for this
// rule only; its Leave is then not called for that node).
class Rule {
 public:
  virtual ~Rule() = default;
  virtual bool Enter(const VisitNode& node) {
    (void)node;
    return true;
  }
  virtual void Leave(const VisitNode& node) { (void)node; }
  const void* skipping = nullptr;
};

struct VariableUsage {
  const ValueNode* node;
  TypeRef type;
  const Value* defaultValue;  // nullptr: undefined
  TypeRef parentType;
};

class ValidationContext {
 public:
  ValidationContext(const SchemaImpl& schema, const DocumentAst& doc, const Limits& limits);

  const SchemaImpl& schema() const { return schema_; }
  const DocumentAst& document() const { return doc_; }
  TypeInfo* typeInfo = nullptr;

  // Records an error; throws ValidationAborted past the error limit.
  void ReportError(std::string message, std::vector<Loc> locations);
  std::vector<ResponseError> TakeErrors() { return std::move(errors_); }
  void AddAbortError(std::string message) { errors_.push_back(ResponseError{std::move(message), {}, std::nullopt, {}}); }

  const FragmentNode* GetFragment(std::string_view name) const { return doc_.FindFragment(name); }
  const std::vector<const SelectionNode*>& GetFragmentSpreads(const SelectionSetNode& set);
  std::vector<const FragmentNode*> GetRecursivelyReferencedFragmentsForOperations(
      const std::vector<const OperationNode*>& operations);
  const std::vector<VariableUsage>& GetVariableUsages(const void* definition, bool isOperation);
  const std::vector<VariableUsage>& GetRecursiveVariableUsages(const OperationNode& operation);
  // Throws ValidationAborted when the fragment work budget runs out.
  void SpendFragmentWork(std::int64_t cost);

 private:
  const SchemaImpl& schema_;
  const DocumentAst& doc_;
  const Limits& limits_;
  std::vector<ResponseError> errors_;
  std::int64_t remainingFragmentWork_ = 50000;
  std::unordered_map<const SelectionSetNode*, std::vector<const SelectionNode*>> fragmentSpreads_;
  std::map<std::set<std::string>, std::vector<const FragmentNode*>> recursivelyReferenced_;
  std::unordered_map<const void*, std::vector<VariableUsage>> variableUsages_;
  std::unordered_map<const OperationNode*, std::vector<VariableUsage>> recursiveVariableUsages_;
};

// Walks `doc` (or one definition) in graphql-js's key order, maintaining
// `typeInfo` and calling each rule's Enter/Leave in order.
class Walker {
 public:
  Walker(TypeInfo& typeInfo, std::vector<Rule*> rules) : typeInfo_(typeInfo), rules_(std::move(rules)) {}
  void WalkDocument(const DocumentAst& doc);
  void WalkOperation(const OperationNode& op);
  void WalkFragmentDefinition(const FragmentNode& frag);

 private:
  bool Enter(const VisitNode& node);
  void Leave(const VisitNode& node);
  void WalkVariableDefinition(const VariableDefinitionNode& def);
  void WalkSelectionSet(const SelectionSetNode& set, bool parentIsInlineFragment);
  void WalkSelection(const SelectionNode& sel);
  void WalkDirectives(const std::vector<DirectiveNode>& directives, std::string_view location);
  void WalkArgument(const ArgumentNode& arg);
  void WalkValue(const ValueNode& value);
  void WalkType(const TypeNode& type);

  TypeInfo& typeInfo_;
  std::vector<Rule*> rules_;
};

// The rules, in graphql-js specifiedRules order (validation_rules.cc).
std::vector<std::unique_ptr<Rule>> MakeSpecifiedRules(ValidationContext& context);
std::unique_ptr<Rule> MakeOverlappingFieldsCanBeMergedRule(ValidationContext& context);

}  // namespace livechat::graphql::internal
