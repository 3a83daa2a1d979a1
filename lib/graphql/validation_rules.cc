// graphql-js 16's specifiedRules, one class per rule, each a port of the
// rule of the same name (messages and reported nodes included). The walk
// visits only executable definitions; type-system definitions in a query
// document are reported by ExecutableDefinitions alone.
#include <algorithm>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "graphql/coercion.h"
#include "graphql/js_text.h"
#include "graphql/parser.h"
#include "graphql/validation_context.h"

namespace livechat::graphql::internal {

namespace {

using Ctx = ValidationContext;

// graphql-js groupBy: groups in first-seen order.
template <typename T, typename KeyFn>
std::vector<std::pair<std::string, std::vector<const T*>>> GroupBy(const std::vector<T>& items, KeyFn key) {
  std::vector<std::pair<std::string, std::vector<const T*>>> groups;
  std::unordered_map<std::string, std::size_t> index;
  for (const T& item : items) {
    const std::string k = key(item);
    auto [it, inserted] = index.emplace(k, groups.size());
    if (inserted) groups.emplace_back(k, std::vector<const T*>{});
    groups[it->second].second.push_back(&item);
  }
  return groups;
}

// Directive shapes from the schema and from directive definitions in the
// document (which graphql-js's rules also honour).
struct KnownDirective {
  std::vector<std::string> locations;
  bool repeatable = false;
  std::vector<std::string> argNames;
  std::vector<std::pair<std::string, std::string>> requiredArgs;  // name, printed type
};

std::vector<std::pair<std::string, KnownDirective>> KnownDirectives(const Ctx& ctx) {
  std::vector<std::pair<std::string, KnownDirective>> out;
  auto set = [&out](const std::string& name, KnownDirective d) {
    for (auto& [n, existing] : out) {
      if (n == name) {
        existing = std::move(d);
        return;
      }
    }
    out.emplace_back(name, std::move(d));
  };
  for (const DirectiveDef& d : ctx.schema().directives) {
    KnownDirective k;
    k.locations = d.locations;
    k.repeatable = d.repeatable;
    for (const InputValue& a : d.args) {
      k.argNames.push_back(a.name);
      if (a.type.IsNonNull() && !a.defaultValue) k.requiredArgs.emplace_back(a.name, a.type.ToString());
    }
    set(d.name, std::move(k));
  }
  for (const TypeSystemNode& def : ctx.document().typeSystem) {
    if (def.kind != TypeSystemNode::Kind::kDirectiveDefinition) continue;
    KnownDirective k;
    k.locations = def.locations;
    k.repeatable = def.repeatable;
    for (const TypeSystemNode::Arg& a : def.args) {
      k.argNames.push_back(a.name);
      if (a.required) k.requiredArgs.emplace_back(a.name, a.typeText);
    }
    set(def.name, std::move(k));
  }
  return out;
}

const KnownDirective* FindKnown(const std::vector<std::pair<std::string, KnownDirective>>& known,
                                const std::string& name) {
  for (const auto& [n, d] : known) {
    if (n == name) return &d;
  }
  return nullptr;
}

class ExecutableDefinitionsRule : public Rule {
 public:
  explicit ExecutableDefinitionsRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind != NodeKind::kDocument) return true;
    for (const Definition& def : ctx_.document().definitions) {
      if (def.kind != Definition::Kind::kTypeSystem) continue;
      const TypeSystemNode& t = ctx_.document().typeSystem[def.index];
      const bool isSchema =
          t.kind == TypeSystemNode::Kind::kSchema || t.kind == TypeSystemNode::Kind::kSchemaExtension;
      const std::string defName = isSchema ? "schema" : "\"" + t.name + "\"";
      ctx_.ReportError("The " + defName + " definition is not executable.", {t.loc});
    }
    return false;
  }

 private:
  Ctx& ctx_;
};

class UniqueOperationNamesRule : public Rule {
 public:
  explicit UniqueOperationNamesRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind == NodeKind::kFragmentDefinition) return false;
    if (node.kind != NodeKind::kOperation) return true;
    const OperationNode& op = node.As<OperationNode>();
    if (op.name) {
      auto it = known_.find(*op.name);
      if (it != known_.end()) {
        ctx_.ReportError("There can be only one operation named \"" + *op.name + "\".", {it->second, op.nameLoc});
      } else {
        known_.emplace(*op.name, op.nameLoc);
      }
    }
    return false;
  }

 private:
  Ctx& ctx_;
  std::unordered_map<std::string, Loc> known_;
};

class LoneAnonymousOperationRule : public Rule {
 public:
  explicit LoneAnonymousOperationRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind == NodeKind::kDocument) {
      operationCount_ = ctx_.document().operations.size();
    } else if (node.kind == NodeKind::kOperation) {
      const OperationNode& op = node.As<OperationNode>();
      if (!op.name && operationCount_ > 1) {
        ctx_.ReportError("This anonymous operation must be the only defined operation.", {op.loc});
      }
    }
    return true;
  }

 private:
  Ctx& ctx_;
  std::size_t operationCount_ = 0;
};

// Not a graphql-js 16 rule: the schema serves queries only, and graphql-js
// would fail such an operation at execution. Message as graphql-js 17's
// KnownOperationTypesRule.
class KnownOperationTypesRule : public Rule {
 public:
  explicit KnownOperationTypesRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind != NodeKind::kOperation) return true;
    const OperationNode& op = node.As<OperationNode>();
    if (op.operation != OperationType::kQuery) {
      const char* name = op.operation == OperationType::kMutation ? "mutation" : "subscription";
      ctx_.ReportError(std::string("The ") + name + " operation is not supported by the schema.", {op.loc});
    }
    return true;
  }

 private:
  Ctx& ctx_;
};

class KnownTypeNamesRule : public Rule {
 public:
  explicit KnownTypeNamesRule(Ctx& ctx) : ctx_(ctx) {
    for (const NamedType* t : ctx.schema().types) typeNames_.push_back(t->name);
    for (const TypeSystemNode& def : ctx.document().typeSystem) {
      if (def.kind == TypeSystemNode::Kind::kTypeDefinition && definedTypes_.insert(def.name).second) {
        typeNames_.push_back(def.name);
      }
    }
  }
  bool Enter(const VisitNode& node) override {
    if (node.kind != NodeKind::kNamedType) return true;
    const TypeNode& t = node.As<TypeNode>();
    if (ctx_.schema().Find(t.name) == nullptr && definedTypes_.count(t.name) == 0) {
      ctx_.ReportError("Unknown type \"" + t.name + "\"." + DidYouMean(SuggestionList(t.name, typeNames_)), {t.loc});
    }
    return true;
  }

 private:
  Ctx& ctx_;
  std::unordered_set<std::string> definedTypes_;
  std::vector<std::string> typeNames_;
};

class FragmentsOnCompositeTypesRule : public Rule {
 public:
  explicit FragmentsOnCompositeTypesRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind == NodeKind::kInlineFragment) {
      const SelectionNode& sel = node.As<SelectionNode>();
      if (sel.typeCondition) {
        const TypeRef type = ctx_.schema().TypeFromAst(*sel.typeCondition);
        if (type && !type.named->IsComposite()) {
          ctx_.ReportError("Fragment cannot condition on non composite type \"" + PrintTypeNode(*sel.typeCondition) +
                               "\".",
                           {sel.typeCondition->loc});
        }
      }
    } else if (node.kind == NodeKind::kFragmentDefinition) {
      const FragmentNode& frag = node.As<FragmentNode>();
      const TypeRef type = ctx_.schema().TypeFromAst(frag.typeCondition);
      if (type && !type.named->IsComposite()) {
        ctx_.ReportError("Fragment \"" + frag.name + "\" cannot condition on non composite type \"" +
                             PrintTypeNode(frag.typeCondition) + "\".",
                         {frag.typeCondition.loc});
      }
    }
    return true;
  }

 private:
  Ctx& ctx_;
};

class VariablesAreInputTypesRule : public Rule {
 public:
  explicit VariablesAreInputTypesRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind != NodeKind::kVariableDefinition) return true;
    const VariableDefinitionNode& def = node.As<VariableDefinitionNode>();
    const TypeRef type = ctx_.schema().TypeFromAst(def.type);
    if (type && !type.named->IsInputType()) {
      ctx_.ReportError("Variable \"$" + def.name + "\" cannot be non-input type \"" + PrintTypeNode(def.type) + "\".",
                       {def.type.loc});
    }
    return true;
  }

 private:
  Ctx& ctx_;
};

class ScalarLeafsRule : public Rule {
 public:
  explicit ScalarLeafsRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind != NodeKind::kField) return true;
    const SelectionNode& field = node.As<SelectionNode>();
    const TypeRef type = ctx_.typeInfo->GetType();
    if (!type) return true;
    if (type.named->IsLeaf()) {
      if (field.selectionSet) {
        ctx_.ReportError("Field \"" + field.name + "\" must not have a selection since type \"" + type.ToString() +
                             "\" has no subfields.",
                         {field.selectionSet->loc});
      }
    } else if (!field.selectionSet) {
      ctx_.ReportError("Field \"" + field.name + "\" of type \"" + type.ToString() +
                           "\" must have a selection of subfields. Did you mean \"" + field.name + " { ... }\"?",
                       {field.loc});
    } else if (field.selectionSet->selections.empty()) {
      ctx_.ReportError("Field \"" + field.name + "\" of type \"" + type.ToString() +
                           "\" must have at least one field selected.",
                       {field.loc});
    }
    return true;
  }

 private:
  Ctx& ctx_;
};

class FieldsOnCorrectTypeRule : public Rule {
 public:
  explicit FieldsOnCorrectTypeRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind != NodeKind::kField) return true;
    const NamedType* type = ctx_.typeInfo->GetParentType();
    if (type == nullptr || ctx_.typeInfo->GetFieldDef() != nullptr) return true;
    const SelectionNode& field = node.As<SelectionNode>();
    std::string suggestion = DidYouMean(SuggestedTypeNames(type, field.name), "to use an inline fragment on");
    if (suggestion.empty()) suggestion = DidYouMean(SuggestedFieldNames(type, field.name));
    ctx_.ReportError("Cannot query field \"" + field.name + "\" on type \"" + type->name + "\"." + suggestion,
                     {field.loc});
    return true;
  }

 private:
  std::vector<std::string> SuggestedTypeNames(const NamedType* type, const std::string& fieldName) {
    if (!type->IsAbstract()) return {};
    const SchemaImpl& schema = ctx_.schema();
    std::vector<const NamedType*> suggested;
    std::unordered_map<const NamedType*, int> usageCount;
    auto add = [&](const NamedType* t) {
      if (std::find(suggested.begin(), suggested.end(), t) == suggested.end()) suggested.push_back(t);
    };
    for (const NamedType* possible : type->possibleTypes) {
      if (possible->FindField(fieldName) == nullptr) continue;
      add(possible);
      usageCount[possible] = 1;
      for (const NamedType* iface : possible->interfaces) {
        if (iface->FindField(fieldName) == nullptr) continue;
        add(iface);
        usageCount[iface] += 1;
      }
    }
    std::stable_sort(suggested.begin(), suggested.end(), [&](const NamedType* a, const NamedType* b) {
      const int diff = usageCount[b] - usageCount[a];
      if (diff != 0) return diff < 0;
      if (a->kind == TypeKind::kInterface && schema.IsSubType(a, b)) return true;
      if (b->kind == TypeKind::kInterface && schema.IsSubType(b, a)) return false;
      return NaturalCompare(a->name, b->name) < 0;
    });
    std::vector<std::string> names;
    for (const NamedType* t : suggested) names.push_back(t->name);
    return names;
  }

  static std::vector<std::string> SuggestedFieldNames(const NamedType* type, const std::string& fieldName) {
    if (type->kind != TypeKind::kObject && type->kind != TypeKind::kInterface) return {};
    std::vector<std::string> names;
    for (const Field& f : type->fields) names.push_back(f.name);
    return SuggestionList(fieldName, names);
  }

  Ctx& ctx_;
};

class UniqueFragmentNamesRule : public Rule {
 public:
  explicit UniqueFragmentNamesRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind == NodeKind::kOperation) return false;
    if (node.kind != NodeKind::kFragmentDefinition) return true;
    const FragmentNode& frag = node.As<FragmentNode>();
    auto it = known_.find(frag.name);
    if (it != known_.end()) {
      ctx_.ReportError("There can be only one fragment named \"" + frag.name + "\".", {it->second, frag.nameLoc});
    } else {
      known_.emplace(frag.name, frag.nameLoc);
    }
    return false;
  }

 private:
  Ctx& ctx_;
  std::unordered_map<std::string, Loc> known_;
};

class KnownFragmentNamesRule : public Rule {
 public:
  explicit KnownFragmentNamesRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind != NodeKind::kFragmentSpread) return true;
    const SelectionNode& spread = node.As<SelectionNode>();
    if (ctx_.GetFragment(spread.name) == nullptr) {
      ctx_.ReportError("Unknown fragment \"" + spread.name + "\".", {spread.nameLoc});
    }
    return true;
  }

 private:
  Ctx& ctx_;
};

class NoUnusedFragmentsRule : public Rule {
 public:
  explicit NoUnusedFragmentsRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind == NodeKind::kOperation) {
      operations_.push_back(&node.As<OperationNode>());
      return false;
    }
    if (node.kind == NodeKind::kFragmentDefinition) {
      fragments_.push_back(&node.As<FragmentNode>());
      return false;
    }
    return true;
  }
  void Leave(const VisitNode& node) override {
    if (node.kind != NodeKind::kDocument) return;
    std::unordered_set<std::string> used;
    for (const FragmentNode* f : ctx_.GetRecursivelyReferencedFragmentsForOperations(operations_)) used.insert(f->name);
    for (const FragmentNode* f : fragments_) {
      if (used.count(f->name) == 0) ctx_.ReportError("Fragment \"" + f->name + "\" is never used.", {f->loc});
    }
  }

 private:
  Ctx& ctx_;
  std::vector<const OperationNode*> operations_;
  std::vector<const FragmentNode*> fragments_;
};

class PossibleFragmentSpreadsRule : public Rule {
 public:
  explicit PossibleFragmentSpreadsRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind == NodeKind::kInlineFragment) {
      const TypeRef fragType = ctx_.typeInfo->GetType();
      const NamedType* parentType = ctx_.typeInfo->GetParentType();
      // GetType() after entering an inline fragment is a named type (or none).
      if (fragType && fragType.IsNamed() && fragType.named->IsComposite() && parentType != nullptr &&
          !DoTypesOverlap(ctx_.schema(), fragType.named, parentType)) {
        ctx_.ReportError("Fragment cannot be spread here as objects of type \"" + parentType->name +
                             "\" can never be of type \"" + fragType.named->name + "\".",
                         {node.As<SelectionNode>().loc});
      }
    } else if (node.kind == NodeKind::kFragmentSpread) {
      const SelectionNode& spread = node.As<SelectionNode>();
      const NamedType* fragType = nullptr;
      if (const FragmentNode* frag = ctx_.GetFragment(spread.name)) {
        const TypeRef t = ctx_.schema().TypeFromAst(frag->typeCondition);
        if (t && t.named->IsComposite()) fragType = t.named;
      }
      const NamedType* parentType = ctx_.typeInfo->GetParentType();
      if (fragType != nullptr && parentType != nullptr && !DoTypesOverlap(ctx_.schema(), fragType, parentType)) {
        ctx_.ReportError("Fragment \"" + spread.name + "\" cannot be spread here as objects of type \"" +
                             parentType->name + "\" can never be of type \"" + fragType->name + "\".",
                         {spread.loc});
      }
    }
    return true;
  }

 private:
  Ctx& ctx_;
};

// graphql-js's recursive DFS, run with an explicit stack so that a long
// chain of fragments cannot exhaust the native stack.
class NoFragmentCyclesRule : public Rule {
 public:
  explicit NoFragmentCyclesRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind == NodeKind::kOperation) return false;
    if (node.kind != NodeKind::kFragmentDefinition) return true;
    DetectCycles(node.As<FragmentNode>());
    return false;
  }

 private:
  struct Frame {
    const FragmentNode* fragment;
    const std::vector<const SelectionNode*>* spreads;
    std::size_t next;
  };

  // Starts visiting `fragment`; false when there is nothing to descend into.
  bool Start(const FragmentNode* fragment) {
    if (!visited_.insert(fragment->name).second) return false;
    const auto& spreads = ctx_.GetFragmentSpreads(fragment->selectionSet);
    if (spreads.empty()) return false;
    indexByName_[fragment->name] = spreadPath_.size();
    stack_.push_back(Frame{fragment, &spreads, 0});
    return true;
  }

  void DetectCycles(const FragmentNode& root) {
    if (!Start(&root)) return;
    while (!stack_.empty()) {
      Frame& frame = stack_.back();
      if (frame.next == frame.spreads->size()) {
        indexByName_.erase(frame.fragment->name);
        stack_.pop_back();
        if (!stack_.empty()) spreadPath_.pop_back();  // the spread that led into the finished fragment
        continue;
      }
      const SelectionNode* spread = (*frame.spreads)[frame.next++];
      spreadPath_.push_back(spread);
      auto cycle = indexByName_.find(spread->name);
      if (cycle == indexByName_.end()) {
        const FragmentNode* target = ctx_.GetFragment(spread->name);
        if (target != nullptr && Start(target)) continue;
      } else {
        std::string via;
        std::vector<Loc> locs;
        for (std::size_t i = cycle->second; i < spreadPath_.size(); ++i) {
          locs.push_back(spreadPath_[i]->loc);
          if (i + 1 < spreadPath_.size()) {
            if (!via.empty()) via += ", ";
            via += "\"" + spreadPath_[i]->name + "\"";
          }
        }
        ctx_.ReportError("Cannot spread fragment \"" + spread->name + "\" within itself" +
                             (via.empty() ? std::string(".") : " via " + via + "."),
                         locs);
      }
      spreadPath_.pop_back();
    }
  }

  Ctx& ctx_;
  std::unordered_set<std::string> visited_;
  std::vector<const SelectionNode*> spreadPath_;
  std::unordered_map<std::string, std::size_t> indexByName_;
  std::vector<Frame> stack_;
};

class UniqueVariableNamesRule : public Rule {
 public:
  explicit UniqueVariableNamesRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind != NodeKind::kOperation) return true;
    const auto groups = GroupBy(node.As<OperationNode>().variables, [](const VariableDefinitionNode& d) { return d.name; });
    for (const auto& [name, defs] : groups) {
      if (defs.size() < 2) continue;
      std::vector<Loc> locs;
      for (const VariableDefinitionNode* d : defs) locs.push_back(d->nameLoc);
      ctx_.ReportError("There can be only one variable named \"$" + name + "\".", locs);
    }
    return true;
  }

 private:
  Ctx& ctx_;
};

class NoUndefinedVariablesRule : public Rule {
 public:
  explicit NoUndefinedVariablesRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind == NodeKind::kOperation) defined_.clear();
    if (node.kind == NodeKind::kVariableDefinition) defined_.insert(node.As<VariableDefinitionNode>().name);
    return true;
  }
  void Leave(const VisitNode& node) override {
    if (node.kind != NodeKind::kOperation) return;
    const OperationNode& op = node.As<OperationNode>();
    for (const VariableUsage& usage : ctx_.GetRecursiveVariableUsages(op)) {
      const std::string& name = usage.node->text;
      if (defined_.count(name) != 0) continue;
      ctx_.ReportError(op.name ? "Variable \"$" + name + "\" is not defined by operation \"" + *op.name + "\"."
                               : "Variable \"$" + name + "\" is not defined.",
                       {usage.node->loc, op.loc});
    }
  }

 private:
  Ctx& ctx_;
  std::unordered_set<std::string> defined_;
};

class NoUnusedVariablesRule : public Rule {
 public:
  explicit NoUnusedVariablesRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind == NodeKind::kOperation) defs_.clear();
    if (node.kind == NodeKind::kVariableDefinition) defs_.push_back(&node.As<VariableDefinitionNode>());
    return true;
  }
  void Leave(const VisitNode& node) override {
    if (node.kind != NodeKind::kOperation) return;
    const OperationNode& op = node.As<OperationNode>();
    std::unordered_set<std::string> used;
    for (const VariableUsage& usage : ctx_.GetRecursiveVariableUsages(op)) used.insert(usage.node->text);
    for (const VariableDefinitionNode* def : defs_) {
      if (used.count(def->name) != 0) continue;
      ctx_.ReportError(op.name ? "Variable \"$" + def->name + "\" is never used in operation \"" + *op.name + "\"."
                               : "Variable \"$" + def->name + "\" is never used.",
                       {def->loc});
    }
  }

 private:
  Ctx& ctx_;
  std::vector<const VariableDefinitionNode*> defs_;
};

class KnownDirectivesRule : public Rule {
 public:
  explicit KnownDirectivesRule(Ctx& ctx) : ctx_(ctx), known_(KnownDirectives(ctx)) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind != NodeKind::kDirective) return true;
    const DirectiveNode& d = node.As<DirectiveNode>();
    const KnownDirective* known = FindKnown(known_, d.name);
    if (known == nullptr) {
      ctx_.ReportError("Unknown directive \"@" + d.name + "\".", {d.loc});
      return true;
    }
    const std::string location(node.directiveLocation);
    if (std::find(known->locations.begin(), known->locations.end(), location) == known->locations.end()) {
      ctx_.ReportError("Directive \"@" + d.name + "\" may not be used on " + location + ".", {d.loc});
    }
    return true;
  }

 private:
  Ctx& ctx_;
  std::vector<std::pair<std::string, KnownDirective>> known_;
};

class UniqueDirectivesPerLocationRule : public Rule {
 public:
  explicit UniqueDirectivesPerLocationRule(Ctx& ctx) : ctx_(ctx), known_(KnownDirectives(ctx)) {}
  bool Enter(const VisitNode& node) override {
    switch (node.kind) {
      case NodeKind::kOperation: Check(node.As<OperationNode>().directives); break;
      case NodeKind::kVariableDefinition: Check(node.As<VariableDefinitionNode>().directives); break;
      case NodeKind::kField:
      case NodeKind::kFragmentSpread:
      case NodeKind::kInlineFragment: Check(node.As<SelectionNode>().directives); break;
      case NodeKind::kFragmentDefinition: Check(node.As<FragmentNode>().directives); break;
      default: break;
    }
    return true;
  }

 private:
  void Check(const std::vector<DirectiveNode>& directives) {
    std::unordered_map<std::string, Loc> seen;
    for (const DirectiveNode& d : directives) {
      const KnownDirective* known = FindKnown(known_, d.name);
      if (known == nullptr || known->repeatable) continue;
      auto it = seen.find(d.name);
      if (it != seen.end()) {
        ctx_.ReportError("The directive \"@" + d.name + "\" can only be used once at this location.", {it->second, d.loc});
      } else {
        seen.emplace(d.name, d.loc);
      }
    }
  }

  Ctx& ctx_;
  std::vector<std::pair<std::string, KnownDirective>> known_;
};

class KnownArgumentNamesRule : public Rule {
 public:
  explicit KnownArgumentNamesRule(Ctx& ctx) : ctx_(ctx), known_(KnownDirectives(ctx)) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind == NodeKind::kDirective) {
      const DirectiveNode& d = node.As<DirectiveNode>();
      if (const KnownDirective* known = FindKnown(known_, d.name)) {
        for (const ArgumentNode& arg : d.args) {
          if (std::find(known->argNames.begin(), known->argNames.end(), arg.name) != known->argNames.end()) continue;
          ctx_.ReportError("Unknown argument \"" + arg.name + "\" on directive \"@" + d.name + "\"." +
                               DidYouMean(SuggestionList(arg.name, known->argNames)),
                           {arg.loc});
        }
      }
      return false;
    }
    if (node.kind == NodeKind::kArgument) {
      const Field* fieldDef = ctx_.typeInfo->GetFieldDef();
      const NamedType* parentType = ctx_.typeInfo->GetParentType();
      if (ctx_.typeInfo->GetArgument() == nullptr && fieldDef != nullptr && parentType != nullptr) {
        const ArgumentNode& arg = node.As<ArgumentNode>();
        std::vector<std::string> names;
        for (const InputValue& a : fieldDef->args) names.push_back(a.name);
        ctx_.ReportError("Unknown argument \"" + arg.name + "\" on field \"" + parentType->name + "." +
                             fieldDef->name + "\"." + DidYouMean(SuggestionList(arg.name, names)),
                         {arg.loc});
      }
    }
    return true;
  }

 private:
  Ctx& ctx_;
  std::vector<std::pair<std::string, KnownDirective>> known_;
};

class UniqueArgumentNamesRule : public Rule {
 public:
  explicit UniqueArgumentNamesRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind == NodeKind::kField) Check(node.As<SelectionNode>().args);
    if (node.kind == NodeKind::kDirective) Check(node.As<DirectiveNode>().args);
    return true;
  }

 private:
  void Check(const std::vector<ArgumentNode>& args) {
    for (const auto& [name, nodes] : GroupBy(args, [](const ArgumentNode& a) { return a.name; })) {
      if (nodes.size() < 2) continue;
      std::vector<Loc> locs;
      for (const ArgumentNode* a : nodes) locs.push_back(a->loc);
      ctx_.ReportError("There can be only one argument named \"" + name + "\".", locs);
    }
  }

  Ctx& ctx_;
};

class ValuesOfCorrectTypeRule : public Rule {
 public:
  explicit ValuesOfCorrectTypeRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind == NodeKind::kObjectField) {
      const ObjectFieldNode& field = node.As<ObjectFieldNode>();
      const TypeRef parentType = ctx_.typeInfo->GetParentInputType().Named();
      if (!ctx_.typeInfo->GetInputType() && parentType && parentType.named->kind == TypeKind::kInputObject) {
        std::vector<std::string> names;
        for (const InputValue& f : parentType.named->inputFields) names.push_back(f.name);
        ctx_.ReportError("Field \"" + field.name + "\" is not defined by type \"" + parentType.named->name + "\"." +
                             DidYouMean(SuggestionList(field.name, names)),
                         {field.loc});
      }
      return true;
    }
    if (node.kind != NodeKind::kValue) return true;
    const ValueNode& value = node.As<ValueNode>();
    switch (value.kind) {
      case ValueKind::kList: {
        const TypeRef type = ctx_.typeInfo->GetParentInputType().Nullable();
        if (!type.IsList()) {
          IsValidValueNode(value);
          return false;
        }
        return true;
      }
      case ValueKind::kObject: {
        const TypeRef type = ctx_.typeInfo->GetInputType().Named();
        if (!type || type.named->kind != TypeKind::kInputObject) {
          IsValidValueNode(value);
          return false;
        }
        for (const InputValue& fieldDef : type.named->inputFields) {
          const bool provided = std::any_of(value.fields.begin(), value.fields.end(),
                                            [&](const ObjectFieldNode& f) { return f.name == fieldDef.name; });
          if (!provided && fieldDef.type.IsNonNull() && !fieldDef.defaultValue) {
            ctx_.ReportError("Field \"" + type.named->name + "." + fieldDef.name + "\" of required type \"" +
                                 fieldDef.type.ToString() + "\" was not provided.",
                             {value.loc});
          }
        }
        if (type.named->oneOf) ValidateOneOf(value, *type.named);
        return true;
      }
      case ValueKind::kNull: {
        const TypeRef type = ctx_.typeInfo->GetInputType();
        if (type && type.IsNonNull()) {
          ctx_.ReportError("Expected value of type \"" + type.ToString() + "\", found null.", {value.loc});
        }
        return true;
      }
      case ValueKind::kVariable:
        return true;
      default:
        IsValidValueNode(value);
        return true;
    }
  }

 private:
  void IsValidValueNode(const ValueNode& value) {
    const TypeRef locationType = ctx_.typeInfo->GetInputType();
    if (!locationType) return;
    const NamedType& type = *locationType.named;
    if (!type.IsLeaf()) {
      ctx_.ReportError("Expected value of type \"" + locationType.ToString() + "\", found " + PrintValueNode(value) + ".",
                       {value.loc});
      return;
    }
    FieldResult parsed = ParseLeafLiteral(type, value, nullptr);
    if (parsed.ok()) return;
    if (type.kind == TypeKind::kEnum || type.builtin != BuiltinScalar::kNone) {
      ctx_.ReportError(parsed.error().message, {value.loc});
    } else {
      // A custom scalar's own message, as graphql-js reports a plain Error.
      ctx_.ReportError("Expected value of type \"" + locationType.ToString() + "\", found " + PrintValueNode(value) +
                           "; " + parsed.error().message,
                       {value.loc});
    }
  }

  void ValidateOneOf(const ValueNode& value, const NamedType& type) {
    std::vector<const ObjectFieldNode*> fields;  // keyMap: last one per name, first-seen order
    for (const ObjectFieldNode& f : value.fields) {
      auto it = std::find_if(fields.begin(), fields.end(), [&](const ObjectFieldNode* x) { return x->name == f.name; });
      if (it == fields.end()) {
        fields.push_back(&f);
      } else {
        *it = &f;
      }
    }
    if (fields.size() != 1) {
      ctx_.ReportError("OneOf Input Object \"" + type.name + "\" must specify exactly one key.", {value.loc});
      return;
    }
    if (fields[0]->value.kind == ValueKind::kNull) {
      ctx_.ReportError("Field \"" + type.name + "." + fields[0]->name + "\" must be non-null.", {value.loc});
    }
  }

  Ctx& ctx_;
};

class ProvidedRequiredArgumentsRule : public Rule {
 public:
  explicit ProvidedRequiredArgumentsRule(Ctx& ctx) : ctx_(ctx), known_(KnownDirectives(ctx)) {}
  void Leave(const VisitNode& node) override {
    if (node.kind == NodeKind::kDirective) {
      const DirectiveNode& d = node.As<DirectiveNode>();
      const KnownDirective* known = FindKnown(known_, d.name);
      if (known == nullptr) return;
      for (const auto& required : known->requiredArgs) {
        const std::string& argName = required.first;
        const std::string& typeText = required.second;
        const bool provided =
            std::any_of(d.args.begin(), d.args.end(), [&](const ArgumentNode& a) { return a.name == argName; });
        if (!provided) {
          ctx_.ReportError("Directive \"@" + d.name + "\" argument \"" + argName + "\" of type \"" + typeText +
                               "\" is required, but it was not provided.",
                           {d.loc});
        }
      }
      return;
    }
    if (node.kind != NodeKind::kField) return;
    const Field* fieldDef = ctx_.typeInfo->GetFieldDef();
    if (fieldDef == nullptr) return;
    const SelectionNode& field = node.As<SelectionNode>();
    for (const InputValue& argDef : fieldDef->args) {
      const bool provided =
          std::any_of(field.args.begin(), field.args.end(), [&](const ArgumentNode& a) { return a.name == argDef.name; });
      if (!provided && argDef.type.IsNonNull() && !argDef.defaultValue) {
        ctx_.ReportError("Field \"" + fieldDef->name + "\" argument \"" + argDef.name + "\" of type \"" +
                             argDef.type.ToString() + "\" is required, but it was not provided.",
                         {field.loc});
      }
    }
  }

 private:
  Ctx& ctx_;
  std::vector<std::pair<std::string, KnownDirective>> known_;
};

class VariablesInAllowedPositionRule : public Rule {
 public:
  explicit VariablesInAllowedPositionRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind == NodeKind::kOperation) defs_.clear();
    if (node.kind == NodeKind::kVariableDefinition) {
      const VariableDefinitionNode& def = node.As<VariableDefinitionNode>();
      defs_[def.name] = &def;
    }
    return true;
  }
  void Leave(const VisitNode& node) override {
    if (node.kind != NodeKind::kOperation) return;
    const SchemaImpl& schema = ctx_.schema();
    for (const VariableUsage& usage : ctx_.GetRecursiveVariableUsages(node.As<OperationNode>())) {
      const std::string& varName = usage.node->text;
      auto it = defs_.find(varName);
      if (it == defs_.end() || !usage.type) continue;
      const VariableDefinitionNode& varDef = *it->second;
      const TypeRef varType = schema.TypeFromAst(varDef.type);
      if (varType && !AllowedVariableUsage(schema, varType, varDef.defaultValue ? &*varDef.defaultValue : nullptr,
                                           usage.type, usage.defaultValue)) {
        ctx_.ReportError("Variable \"$" + varName + "\" of type \"" + varType.ToString() +
                             "\" used in position expecting type \"" + usage.type.ToString() + "\".",
                         {varDef.loc, usage.node->loc});
      }
      if (varType && usage.parentType && usage.parentType.IsNamed() &&
          usage.parentType.named->kind == TypeKind::kInputObject && usage.parentType.named->oneOf &&
          !varType.IsNonNull()) {
        ctx_.ReportError("Variable \"$" + varName + "\" is of type \"" + varType.ToString() +
                             "\" but must be non-nullable to be used for OneOf Input Object \"" +
                             usage.parentType.named->name + "\".",
                         {varDef.loc, usage.node->loc});
      }
    }
  }

 private:
  static bool AllowedVariableUsage(const SchemaImpl& schema, const TypeRef& varType, const ValueNode* varDefaultValue,
                                   const TypeRef& locationType, const Value* locationDefaultValue) {
    if (locationType.IsNonNull() && !varType.IsNonNull()) {
      const bool hasNonNullVariableDefaultValue = varDefaultValue != nullptr && varDefaultValue->kind != ValueKind::kNull;
      const bool hasLocationDefaultValue = locationDefaultValue != nullptr;
      if (!hasNonNullVariableDefaultValue && !hasLocationDefaultValue) return false;
      return IsTypeSubTypeOf(schema, varType, locationType.OfType());
    }
    return IsTypeSubTypeOf(schema, varType, locationType);
  }

  Ctx& ctx_;
  std::unordered_map<std::string, const VariableDefinitionNode*> defs_;
};

class UniqueInputFieldNamesRule : public Rule {
 public:
  explicit UniqueInputFieldNamesRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind == NodeKind::kValue && node.As<ValueNode>().kind == ValueKind::kObject) {
      stack_.emplace_back();
    } else if (node.kind == NodeKind::kObjectField) {
      const ObjectFieldNode& field = node.As<ObjectFieldNode>();
      auto& known = stack_.back();
      auto it = known.find(field.name);
      if (it != known.end()) {
        ctx_.ReportError("There can be only one input field named \"" + field.name + "\".", {it->second, field.loc});
      } else {
        known.emplace(field.name, field.loc);
      }
    }
    return true;
  }
  void Leave(const VisitNode& node) override {
    if (node.kind == NodeKind::kValue && node.As<ValueNode>().kind == ValueKind::kObject) stack_.pop_back();
  }

 private:
  Ctx& ctx_;
  std::vector<std::unordered_map<std::string, Loc>> stack_;
};

class MaxIntrospectionDepthRule : public Rule {
 public:
  explicit MaxIntrospectionDepthRule(Ctx& ctx) : ctx_(ctx) {}
  bool Enter(const VisitNode& node) override {
    if (node.kind != NodeKind::kField) return true;
    const SelectionNode& field = node.As<SelectionNode>();
    if (field.name != "__schema" && field.name != "__type") return true;
    std::unordered_map<std::string, int> visited;
    if (CheckDepth(field, visited, 0)) {
      ctx_.ReportError("Maximum introspection depth exceeded", {field.loc});
      return false;
    }
    return true;
  }

 private:
  static constexpr int kMaxListsDepth = 3;

  bool CheckSelections(const SelectionSetNode& set, std::unordered_map<std::string, int>& visited, int depth) {
    for (const SelectionNode& child : set.selections) {
      if (CheckDepth(child, visited, depth)) return true;
    }
    return false;
  }

  bool CheckDepth(const SelectionNode& node, std::unordered_map<std::string, int>& visited, int depth) {
    if (node.kind == SelectionNode::Kind::kFragmentSpread) {
      const std::string& name = node.name;
      auto exceeded = exceeded_.find(name);
      if (exceeded != exceeded_.end() && exceeded->second <= depth) return true;
      auto v = visited.find(name);
      auto checked = checked_.find(name);
      if ((v != visited.end() && v->second >= depth) || (checked != checked_.end() && checked->second >= depth)) {
        return false;
      }
      const FragmentNode* fragment = ctx_.GetFragment(name);
      if (fragment == nullptr) return false;
      visited[name] = depth;
      if (CheckSelections(fragment->selectionSet, visited, depth)) {
        exceeded_[name] = depth;
        return true;
      }
      checked_[name] = depth;
      return false;
    }
    if (node.kind == SelectionNode::Kind::kField &&
        (node.name == "fields" || node.name == "interfaces" || node.name == "possibleTypes" ||
         node.name == "inputFields")) {
      ++depth;
      if (depth >= kMaxListsDepth) return true;
    }
    return node.selectionSet && CheckSelections(*node.selectionSet, visited, depth);
  }

  Ctx& ctx_;
  std::unordered_map<std::string, int> checked_;
  std::unordered_map<std::string, int> exceeded_;
};

}  // namespace

std::vector<std::unique_ptr<Rule>> MakeSpecifiedRules(ValidationContext& ctx) {
  std::vector<std::unique_ptr<Rule>> rules;
  rules.push_back(std::make_unique<ExecutableDefinitionsRule>(ctx));
  rules.push_back(std::make_unique<UniqueOperationNamesRule>(ctx));
  rules.push_back(std::make_unique<LoneAnonymousOperationRule>(ctx));
  rules.push_back(std::make_unique<KnownOperationTypesRule>(ctx));  // in place of SingleFieldSubscriptions
  rules.push_back(std::make_unique<KnownTypeNamesRule>(ctx));
  rules.push_back(std::make_unique<FragmentsOnCompositeTypesRule>(ctx));
  rules.push_back(std::make_unique<VariablesAreInputTypesRule>(ctx));
  rules.push_back(std::make_unique<ScalarLeafsRule>(ctx));
  rules.push_back(std::make_unique<FieldsOnCorrectTypeRule>(ctx));
  rules.push_back(std::make_unique<UniqueFragmentNamesRule>(ctx));
  rules.push_back(std::make_unique<KnownFragmentNamesRule>(ctx));
  rules.push_back(std::make_unique<NoUnusedFragmentsRule>(ctx));
  rules.push_back(std::make_unique<PossibleFragmentSpreadsRule>(ctx));
  rules.push_back(std::make_unique<NoFragmentCyclesRule>(ctx));
  rules.push_back(std::make_unique<UniqueVariableNamesRule>(ctx));
  rules.push_back(std::make_unique<NoUndefinedVariablesRule>(ctx));
  rules.push_back(std::make_unique<NoUnusedVariablesRule>(ctx));
  rules.push_back(std::make_unique<KnownDirectivesRule>(ctx));
  rules.push_back(std::make_unique<UniqueDirectivesPerLocationRule>(ctx));
  rules.push_back(std::make_unique<KnownArgumentNamesRule>(ctx));
  rules.push_back(std::make_unique<UniqueArgumentNamesRule>(ctx));
  rules.push_back(std::make_unique<ValuesOfCorrectTypeRule>(ctx));
  rules.push_back(std::make_unique<ProvidedRequiredArgumentsRule>(ctx));
  rules.push_back(std::make_unique<VariablesInAllowedPositionRule>(ctx));
  rules.push_back(MakeOverlappingFieldsCanBeMergedRule(ctx));
  rules.push_back(std::make_unique<UniqueInputFieldNamesRule>(ctx));
  rules.push_back(std::make_unique<MaxIntrospectionDepthRule>(ctx));
  return rules;
}

}  // namespace livechat::graphql::internal
