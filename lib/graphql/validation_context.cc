#include "graphql/validation_context.h"

namespace livechat::graphql::internal {

void TypeInfo::Enter(const VisitNode& node) {
  switch (node.kind) {
    case NodeKind::kSelectionSet: {
      const TypeRef type = GetType();
      parentTypeStack_.push_back(type && type.named->IsComposite() ? type.named : nullptr);
      break;
    }
    case NodeKind::kField: {
      const NamedType* parentType = GetParentType();
      const Field* fieldDef = parentType != nullptr ? schema_.FieldDef(parentType, node.As<SelectionNode>().name) : nullptr;
      fieldDefStack_.push_back(fieldDef);
      typeStack_.push_back(fieldDef != nullptr && fieldDef->type.named->IsOutputType() ? fieldDef->type : TypeRef{});
      break;
    }
    case NodeKind::kDirective:
      directive_ = schema_.FindDirective(node.As<DirectiveNode>().name);
      break;
    case NodeKind::kOperation: {
      const OperationNode& op = node.As<OperationNode>();
      typeStack_.push_back(op.operation == OperationType::kQuery ? TypeRef{schema_.queryType, {}} : TypeRef{});
      break;
    }
    case NodeKind::kInlineFragment:
    case NodeKind::kFragmentDefinition: {
      const TypeNode* condition = nullptr;
      if (node.kind == NodeKind::kInlineFragment) {
        const SelectionNode& sel = node.As<SelectionNode>();
        if (sel.typeCondition) condition = &*sel.typeCondition;
      } else {
        condition = &node.As<FragmentNode>().typeCondition;
      }
      TypeRef outputType = condition != nullptr ? schema_.TypeFromAst(*condition) : GetType().Named();
      typeStack_.push_back(outputType && outputType.named->IsOutputType() ? outputType : TypeRef{});
      break;
    }
    case NodeKind::kVariableDefinition: {
      TypeRef inputType = schema_.TypeFromAst(node.As<VariableDefinitionNode>().type);
      inputTypeStack_.push_back(inputType && inputType.named->IsInputType() ? inputType : TypeRef{});
      break;
    }
    case NodeKind::kArgument: {
      const InputValue* argDef = nullptr;
      const std::string& name = node.As<ArgumentNode>().name;
      if (directive_ != nullptr) {
        for (const InputValue& a : directive_->args) {
          if (a.name == name) argDef = &a;
        }
      } else if (const Field* f = GetFieldDef()) {
        argDef = f->FindArg(name);
      }
      argument_ = argDef;
      defaultValueStack_.push_back(argDef != nullptr && argDef->defaultValue ? &*argDef->defaultValue : nullptr);
      inputTypeStack_.push_back(argDef != nullptr ? argDef->type : TypeRef{});
      break;
    }
    case NodeKind::kValue: {
      const ValueNode& v = node.As<ValueNode>();
      if (v.kind == ValueKind::kList) {
        const TypeRef listType = GetInputType().Nullable();
        const TypeRef itemType = listType.IsList() ? listType.OfType() : listType;
        defaultValueStack_.push_back(nullptr);
        inputTypeStack_.push_back(itemType && itemType.named->IsInputType() ? itemType : TypeRef{});
      }
      break;
    }
    case NodeKind::kObjectField: {
      const TypeRef objectType = GetInputType().Named();
      const InputValue* inputField = nullptr;
      if (objectType && objectType.named->kind == TypeKind::kInputObject) {
        inputField = objectType.named->FindInputField(node.As<ObjectFieldNode>().name);
      }
      defaultValueStack_.push_back(inputField != nullptr && inputField->defaultValue ? &*inputField->defaultValue
                                                                                     : nullptr);
      inputTypeStack_.push_back(inputField != nullptr ? inputField->type : TypeRef{});
      break;
    }
    default:
      break;
  }
}

void TypeInfo::Leave(const VisitNode& node) {
  switch (node.kind) {
    case NodeKind::kSelectionSet: parentTypeStack_.pop_back(); break;
    case NodeKind::kField:
      fieldDefStack_.pop_back();
      typeStack_.pop_back();
      break;
    case NodeKind::kDirective: directive_ = nullptr; break;
    case NodeKind::kOperation:
    case NodeKind::kInlineFragment:
    case NodeKind::kFragmentDefinition: typeStack_.pop_back(); break;
    case NodeKind::kVariableDefinition: inputTypeStack_.pop_back(); break;
    case NodeKind::kArgument:
      argument_ = nullptr;
      defaultValueStack_.pop_back();
      inputTypeStack_.pop_back();
      break;
    case NodeKind::kValue:
      if (node.As<ValueNode>().kind == ValueKind::kList) {
        defaultValueStack_.pop_back();
        inputTypeStack_.pop_back();
      }
      break;
    case NodeKind::kObjectField:
      defaultValueStack_.pop_back();
      inputTypeStack_.pop_back();
      break;
    default:
      break;
  }
}

// ---- Walker ----

bool Walker::Enter(const VisitNode& node) {
  typeInfo_.Enter(node);
  for (Rule* rule : rules_) {
    if (rule->skipping != nullptr) continue;
    if (!rule->Enter(node)) rule->skipping = node.ptr;
  }
  return true;
}

void Walker::Leave(const VisitNode& node) {
  for (Rule* rule : rules_) {
    if (rule->skipping == nullptr) {
      rule->Leave(node);
    } else if (rule->skipping == node.ptr) {
      rule->skipping = nullptr;
    }
  }
  typeInfo_.Leave(node);
}

void Walker::WalkDocument(const DocumentAst& doc) {
  const VisitNode node{NodeKind::kDocument, &doc, {}, false};
  Enter(node);
  for (const Definition& def : doc.definitions) {
    switch (def.kind) {
      case Definition::Kind::kOperation: WalkOperation(doc.operations[def.index]); break;
      case Definition::Kind::kFragment: WalkFragmentDefinition(doc.fragments[def.index]); break;
      case Definition::Kind::kTypeSystem: break;  // only ExecutableDefinitions looks at these
    }
  }
  Leave(node);
}

void Walker::WalkOperation(const OperationNode& op) {
  const VisitNode node{NodeKind::kOperation, &op, {}, false};
  Enter(node);
  for (const VariableDefinitionNode& def : op.variables) WalkVariableDefinition(def);
  const char* location = op.operation == OperationType::kQuery      ? "QUERY"
                         : op.operation == OperationType::kMutation ? "MUTATION"
                                                                    : "SUBSCRIPTION";
  WalkDirectives(op.directives, location);
  WalkSelectionSet(op.selectionSet, false);
  Leave(node);
}

void Walker::WalkFragmentDefinition(const FragmentNode& frag) {
  const VisitNode node{NodeKind::kFragmentDefinition, &frag, {}, false};
  Enter(node);
  WalkType(frag.typeCondition);
  WalkDirectives(frag.directives, "FRAGMENT_DEFINITION");
  WalkSelectionSet(frag.selectionSet, false);
  Leave(node);
}

void Walker::WalkVariableDefinition(const VariableDefinitionNode& def) {
  const VisitNode node{NodeKind::kVariableDefinition, &def, {}, false};
  Enter(node);
  const VisitNode variable{NodeKind::kVariable, &def.name, {}, false};
  Enter(variable);
  Leave(variable);
  WalkType(def.type);
  if (def.defaultValue) WalkValue(*def.defaultValue);
  WalkDirectives(def.directives, "VARIABLE_DEFINITION");
  Leave(node);
}

void Walker::WalkSelectionSet(const SelectionSetNode& set, bool parentIsInlineFragment) {
  const VisitNode node{NodeKind::kSelectionSet, &set, {}, parentIsInlineFragment};
  Enter(node);
  for (const SelectionNode& sel : set.selections) WalkSelection(sel);
  Leave(node);
}

void Walker::WalkSelection(const SelectionNode& sel) {
  switch (sel.kind) {
    case SelectionNode::Kind::kField: {
      const VisitNode node{NodeKind::kField, &sel, {}, false};
      Enter(node);
      for (const ArgumentNode& arg : sel.args) WalkArgument(arg);
      WalkDirectives(sel.directives, "FIELD");
      if (sel.selectionSet) WalkSelectionSet(*sel.selectionSet, false);
      Leave(node);
      return;
    }
    case SelectionNode::Kind::kFragmentSpread: {
      const VisitNode node{NodeKind::kFragmentSpread, &sel, {}, false};
      Enter(node);
      WalkDirectives(sel.directives, "FRAGMENT_SPREAD");
      Leave(node);
      return;
    }
    case SelectionNode::Kind::kInlineFragment: {
      const VisitNode node{NodeKind::kInlineFragment, &sel, {}, false};
      Enter(node);
      if (sel.typeCondition) WalkType(*sel.typeCondition);
      WalkDirectives(sel.directives, "INLINE_FRAGMENT");
      WalkSelectionSet(*sel.selectionSet, true);
      Leave(node);
      return;
    }
  }
}

void Walker::WalkDirectives(const std::vector<DirectiveNode>& directives, std::string_view location) {
  for (const DirectiveNode& d : directives) {
    const VisitNode node{NodeKind::kDirective, &d, location, false};
    Enter(node);
    for (const ArgumentNode& arg : d.args) WalkArgument(arg);
    Leave(node);
  }
}

void Walker::WalkArgument(const ArgumentNode& arg) {
  const VisitNode node{NodeKind::kArgument, &arg, {}, false};
  Enter(node);
  WalkValue(arg.value);
  Leave(node);
}

void Walker::WalkValue(const ValueNode& value) {
  const VisitNode node{NodeKind::kValue, &value, {}, false};
  Enter(node);
  if (value.kind == ValueKind::kList) {
    for (const ValueNode& item : value.items) WalkValue(item);
  } else if (value.kind == ValueKind::kObject) {
    for (const ObjectFieldNode& field : value.fields) {
      const VisitNode fieldNode{NodeKind::kObjectField, &field, {}, false};
      Enter(fieldNode);
      WalkValue(field.value);
      Leave(fieldNode);
    }
  }
  Leave(node);
}

void Walker::WalkType(const TypeNode& type) {
  const NodeKind kind = type.kind == TypeNode::Kind::kNamed  ? NodeKind::kNamedType
                        : type.kind == TypeNode::Kind::kList ? NodeKind::kListType
                                                             : NodeKind::kNonNullType;
  const VisitNode node{kind, &type, {}, false};
  Enter(node);
  if (type.of) WalkType(*type.of);
  Leave(node);
}

// ---- ValidationContext ----

ValidationContext::ValidationContext(const SchemaImpl& schema, const DocumentAst& doc, const Limits& limits)
    : schema_(schema), doc_(doc), limits_(limits) {}

void ValidationContext::ReportError(std::string message, std::vector<Loc> locations) {
  if (errors_.size() >= limits_.maxValidationErrors) {
    AddAbortError("Too many validation errors, error limit reached. Validation aborted.");
    throw ValidationAborted{};
  }
  ResponseError e;
  e.message = std::move(message);
  for (const Loc& l : locations) e.locations.push_back(l.ToLocation());
  errors_.push_back(std::move(e));
}

void ValidationContext::SpendFragmentWork(std::int64_t cost) {
  remainingFragmentWork_ -= cost;
  if (remainingFragmentWork_ < 0) {
    AddAbortError("Validation aborted.");
    throw ValidationAborted{};
  }
}

const std::vector<const SelectionNode*>& ValidationContext::GetFragmentSpreads(const SelectionSetNode& root) {
  auto it = fragmentSpreads_.find(&root);
  if (it != fragmentSpreads_.end()) return it->second;
  std::vector<const SelectionNode*> spreads;
  std::vector<const SelectionSetNode*> setsToVisit{&root};
  while (!setsToVisit.empty()) {
    const SelectionSetNode* set = setsToVisit.back();
    setsToVisit.pop_back();
    for (const SelectionNode& sel : set->selections) {
      if (sel.kind == SelectionNode::Kind::kFragmentSpread) {
        spreads.push_back(&sel);
      } else if (sel.selectionSet) {
        setsToVisit.push_back(&*sel.selectionSet);
      }
    }
  }
  return fragmentSpreads_.emplace(&root, std::move(spreads)).first->second;
}

std::vector<const FragmentNode*> ValidationContext::GetRecursivelyReferencedFragmentsForOperations(
    const std::vector<const OperationNode*>& operations) {
  // Names in first-seen order (a JavaScript Set), also the cache key.
  std::vector<std::string> names;
  std::set<std::string> key;
  for (const OperationNode* op : operations) {
    for (const SelectionNode* spread : GetFragmentSpreads(op->selectionSet)) {
      if (key.insert(spread->name).second) names.push_back(spread->name);
    }
  }
  auto cached = recursivelyReferenced_.find(key);
  if (cached != recursivelyReferenced_.end()) return cached->second;
  std::vector<const FragmentNode*> fragments;
  SpendFragmentWork(static_cast<std::int64_t>(names.size()));
  std::set<std::string> collected(key);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const FragmentNode* fragment = GetFragment(names[i]);
    if (fragment == nullptr) continue;
    fragments.push_back(fragment);
    const auto& spreads = GetFragmentSpreads(fragment->selectionSet);
    SpendFragmentWork(static_cast<std::int64_t>(spreads.size()));
    for (const SelectionNode* spread : spreads) {
      if (collected.insert(spread->name).second) names.push_back(spread->name);
    }
  }
  recursivelyReferenced_.emplace(std::move(key), fragments);
  return fragments;
}

namespace {

// graphql-js getVariableUsages' visitor: every Variable with its expected
// input type, skipping variable definitions.
class VariableUsageCollector : public Rule {
 public:
  VariableUsageCollector(const TypeInfo& typeInfo, std::vector<VariableUsage>& out) : typeInfo_(typeInfo), out_(out) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind == NodeKind::kVariableDefinition) return false;
    if (node.kind == NodeKind::kValue && node.As<ValueNode>().kind == ValueKind::kVariable) {
      out_.push_back(VariableUsage{&node.As<ValueNode>(), typeInfo_.GetInputType(), typeInfo_.GetDefaultValue(),
                                   typeInfo_.GetParentInputType()});
    }
    return true;
  }

 private:
  const TypeInfo& typeInfo_;
  std::vector<VariableUsage>& out_;
};

}  // namespace

const std::vector<VariableUsage>& ValidationContext::GetVariableUsages(const void* definition, bool isOperation) {
  auto it = variableUsages_.find(definition);
  if (it != variableUsages_.end()) return it->second;
  std::vector<VariableUsage> usages;
  TypeInfo typeInfo(schema_);
  VariableUsageCollector collector(typeInfo, usages);
  Walker walker(typeInfo, {&collector});
  if (isOperation) {
    walker.WalkOperation(*static_cast<const OperationNode*>(definition));
  } else {
    walker.WalkFragmentDefinition(*static_cast<const FragmentNode*>(definition));
  }
  return variableUsages_.emplace(definition, std::move(usages)).first->second;
}

const std::vector<VariableUsage>& ValidationContext::GetRecursiveVariableUsages(const OperationNode& operation) {
  auto it = recursiveVariableUsages_.find(&operation);
  if (it != recursiveVariableUsages_.end()) return it->second;
  const std::vector<const FragmentNode*> fragments = GetRecursivelyReferencedFragmentsForOperations({&operation});
  SpendFragmentWork(static_cast<std::int64_t>(fragments.size()));
  std::vector<VariableUsage> fragmentUsages;
  for (const FragmentNode* frag : fragments) {
    const auto& local = GetVariableUsages(frag, false);
    SpendFragmentWork(static_cast<std::int64_t>(local.size()));
    fragmentUsages.insert(fragmentUsages.end(), local.begin(), local.end());
  }
  SpendFragmentWork(static_cast<std::int64_t>(fragmentUsages.size()));
  std::vector<VariableUsage> usages = GetVariableUsages(&operation, true);
  usages.insert(usages.end(), fragmentUsages.begin(), fragmentUsages.end());
  return recursiveVariableUsages_.emplace(&operation, std::move(usages)).first->second;
}

}  // namespace livechat::graphql::internal
