// OverlappingFieldsCanBeMerged, ported from graphql-js 16.15 with its
// memoization and complexity budget (the budget bounds the work a hostile
// document can cause; running out aborts validation like graphql-js).
#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "graphql/js_text.h"
#include "graphql/validation_context.h"

namespace livechat::graphql::internal {

namespace {

constexpr std::size_t kMaxConflictDetailLength = 1000;
constexpr std::size_t kMaxConflictNodes = 20;
constexpr std::int64_t kMaxComplexityBudget = 500000;

std::string MaybeAbbreviate(const std::string& text) {
  if (Utf16Length(text) <= kMaxConflictDetailLength) return text;
  // Cut after 1000 UTF-16 units, never inside a UTF-8 sequence.
  std::size_t units = 0;
  std::size_t i = 0;
  while (i < text.size() && units < kMaxConflictDetailLength) {
    std::uint32_t cp = 0;
    std::size_t n = DecodeUtf8(text, i, cp);
    if (n == 0) n = 1;
    units += n == 4 ? 2 : 1;
    i += n;
  }
  return text.substr(0, i) + "...";
}

struct FieldInfo;

struct FieldDetails {
  const NamedType* parentType;
  const SelectionNode* node;
  const Field* definition;
  bool isSimpleLeaf;
  mutable std::shared_ptr<FieldInfo> info;
};

struct ArgumentInfo {
  const std::vector<ArgumentNode>* nodes;
  std::unordered_map<std::string, const ValueNode*> values;
};

struct FieldInfo {
  std::unordered_map<const FieldInfo*, std::optional<std::string>> comparisons;
  const NamedType* namedType;
  std::optional<ArgumentInfo> arguments;
  std::optional<std::string> typeString;
};

struct CollectFieldsResult;

struct Overlap {
  std::string responseName;
  const std::vector<FieldDetails>* fields1;
  const std::vector<FieldDetails>* fields2;
};

struct CollectFieldsResult {
  std::vector<std::pair<std::string, std::vector<FieldDetails>>> groupedFieldSet;
  std::vector<std::string> fragmentNames;
  std::unordered_map<std::string, bool> comparedFragments;
  std::unordered_map<const CollectFieldsResult*, std::vector<Overlap>> overlappingFields;
  std::unordered_map<std::string, std::size_t> index;  // response name -> position in groupedFieldSet

  const std::vector<FieldDetails>* Find(const std::string& responseName) const {
    auto it = index.find(responseName);
    return it == index.end() ? nullptr : &groupedFieldSet[it->second].second;
  }
};

struct Conflict {
  std::string responseName;
  std::string reason;
  std::vector<const SelectionNode*> fields1;
  std::vector<const SelectionNode*> fields2;
};

// graphql-js PairSet: fragment pairs compared, with whether the comparison
// was made under mutually exclusive parents.
class PairSet {
 public:
  bool Has(const std::string& a, const std::string& b, bool weaklyPresent) const {
    return HasOne(a, b, weaklyPresent) || HasOne(b, a, weaklyPresent);
  }
  void Add(const std::string& a, const std::string& b, bool weaklyPresent) { data_[a][b] = weaklyPresent; }

 private:
  bool HasOne(const std::string& a, const std::string& b, bool weaklyPresent) const {
    auto it = data_.find(a);
    if (it == data_.end()) return false;
    auto jt = it->second.find(b);
    if (jt == it->second.end()) return false;
    return weaklyPresent ? true : weaklyPresent == jt->second;
  }
  std::unordered_map<std::string, std::unordered_map<std::string, bool>> data_;
};

class OverlappingFieldsCanBeMergedRule : public Rule {
 public:
  explicit OverlappingFieldsCanBeMergedRule(ValidationContext& ctx) : ctx_(ctx) {}

  bool Enter(const VisitNode& node) override {
    if (node.kind != NodeKind::kSelectionSet || node.parentIsInlineFragment) return true;
    const SelectionSetNode& set = node.As<SelectionSetNode>();
    if (set.selections.size() <= 1 &&
        (set.selections.empty() || set.selections[0].kind != SelectionNode::Kind::kInlineFragment)) {
      return true;
    }
    for (const Conflict& c : FindConflictsWithinSelectionSet(ctx_.typeInfo->GetParentType(), set)) {
      std::vector<Loc> locs;
      for (const SelectionNode* n : c.fields1) locs.push_back(n->loc);
      for (const SelectionNode* n : c.fields2) locs.push_back(n->loc);
      ctx_.ReportError("Fields \"" + MaybeAbbreviate(c.responseName) + "\" conflict because " + c.reason +
                           ". Use different aliases on the fields to fetch both if this was intentional.",
                       locs);
    }
    return true;
  }

 private:
  void Spend(std::int64_t cost) {
    budget_ -= cost;
    if (budget_ < 0) {
      ctx_.AddAbortError("Validation aborted.");
      throw ValidationAborted{};
    }
  }

  std::vector<Conflict> FindConflictsWithinSelectionSet(const NamedType* parentType, const SelectionSetNode& set) {
    std::vector<Conflict> conflicts;
    CollectFieldsResult& result = CollectFields(parentType, set);
    CollectConflictsWithin(conflicts, result);
    if (!result.fragmentNames.empty() && (!result.groupedFieldSet.empty() || result.fragmentNames.size() > 1)) {
      // Copy: the recursion may add results to the cache, but never changes this one's names.
      const std::vector<std::string> names = result.fragmentNames;
      for (std::size_t i = 0; i < names.size(); ++i) {
        CollectConflictsBetweenFieldsAndFragment(conflicts, false, result, names[i]);
        for (std::size_t j = i + 1; j < names.size(); ++j) {
          CollectConflictsBetweenFragments(conflicts, false, names[i], names[j]);
        }
      }
    }
    return conflicts;
  }

  void CollectConflictsBetweenFieldsAndFragment(std::vector<Conflict>& conflicts, bool areMutuallyExclusive,
                                                CollectFieldsResult& result, const std::string& fragmentName) {
    Spend(1);
    if (result.groupedFieldSet.empty()) return;
    auto compared = result.comparedFragments.find(fragmentName);
    // Only a non-exclusive comparison can be reused for overlapping parents.
    if (compared != result.comparedFragments.end() &&
        (compared->second == false || (areMutuallyExclusive && compared->second == true))) {
      return;
    }
    result.comparedFragments[fragmentName] = areMutuallyExclusive;
    const FragmentNode* fragment = ctx_.GetFragment(fragmentName);
    if (fragment == nullptr) return;
    CollectFieldsResult& result2 = CollectFragmentFields(*fragment);
    if (&result == &result2) return;
    CollectConflictsBetween(conflicts, areMutuallyExclusive, result, result2);
    const std::vector<std::string> names = result2.fragmentNames;
    for (const std::string& referenced : names) {
      CollectConflictsBetweenFieldsAndFragment(conflicts, areMutuallyExclusive, result, referenced);
    }
  }

  void CollectConflictsBetweenFragments(std::vector<Conflict>& conflicts, bool areMutuallyExclusive,
                                        const std::string& fragmentName1, const std::string& fragmentName2) {
    Spend(2);
    if (fragmentName1 == fragmentName2) return;
    if (comparedFragmentPairs_.Has(fragmentName1, fragmentName2, areMutuallyExclusive)) return;
    comparedFragmentPairs_.Add(fragmentName1, fragmentName2, areMutuallyExclusive);
    const FragmentNode* fragment1 = ctx_.GetFragment(fragmentName1);
    const FragmentNode* fragment2 = ctx_.GetFragment(fragmentName2);
    if (fragment1 == nullptr || fragment2 == nullptr) return;
    CollectFieldsResult& result1 = CollectFragmentFields(*fragment1);
    CollectFieldsResult& result2 = CollectFragmentFields(*fragment2);
    CollectConflictsBetween(conflicts, areMutuallyExclusive, result1, result2);
    const std::vector<std::string> names2 = result2.fragmentNames;
    for (const std::string& referenced2 : names2) {
      CollectConflictsBetweenFragments(conflicts, areMutuallyExclusive, fragmentName1, referenced2);
    }
    const std::vector<std::string> names1 = result1.fragmentNames;
    for (const std::string& referenced1 : names1) {
      CollectConflictsBetweenFragments(conflicts, areMutuallyExclusive, referenced1, fragmentName2);
    }
  }

  std::vector<Conflict> FindConflictsBetweenSubSelectionSets(bool areMutuallyExclusive, const NamedType* parentType1,
                                                             const SelectionSetNode& set1,
                                                             const NamedType* parentType2,
                                                             const SelectionSetNode& set2) {
    std::vector<Conflict> conflicts;
    CollectFieldsResult& result1 = CollectFields(parentType1, set1);
    CollectFieldsResult& result2 = CollectFields(parentType2, set2);
    CollectConflictsBetween(conflicts, areMutuallyExclusive, result1, result2);
    const std::vector<std::string> names1 = result1.fragmentNames;
    const std::vector<std::string> names2 = result2.fragmentNames;
    for (const std::string& f2 : names2) CollectConflictsBetweenFieldsAndFragment(conflicts, areMutuallyExclusive, result1, f2);
    for (const std::string& f1 : names1) CollectConflictsBetweenFieldsAndFragment(conflicts, areMutuallyExclusive, result2, f1);
    for (const std::string& f1 : names1) {
      for (const std::string& f2 : names2) CollectConflictsBetweenFragments(conflicts, areMutuallyExclusive, f1, f2);
    }
    return conflicts;
  }

  void CollectConflictsWithin(std::vector<Conflict>& conflicts, const CollectFieldsResult& result) {
    for (const auto& [responseName, fields] : result.groupedFieldSet) {
      if (fields.size() < 2) continue;
      for (std::size_t i = 0; i < fields.size(); ++i) {
        for (std::size_t j = i + 1; j < fields.size(); ++j) {
          std::optional<Conflict> c = FindConflict(false, responseName, fields[i], fields[j]);
          if (c) conflicts.push_back(std::move(*c));
        }
      }
    }
  }

  void CollectConflictsBetween(std::vector<Conflict>& conflicts, bool parentFieldsAreMutuallyExclusive,
                               CollectFieldsResult& result1, const CollectFieldsResult& result2) {
    if (result1.groupedFieldSet.empty() || result2.groupedFieldSet.empty()) return;
    for (const Overlap& overlap : GetOverlappingFields(result1, result2)) {
      for (const FieldDetails& field1 : *overlap.fields1) {
        for (const FieldDetails& field2 : *overlap.fields2) {
          std::optional<Conflict> c =
              FindConflict(parentFieldsAreMutuallyExclusive, overlap.responseName, field1, field2);
          if (c) conflicts.push_back(std::move(*c));
        }
      }
    }
  }

  const std::vector<Overlap>& GetOverlappingFields(CollectFieldsResult& result1, const CollectFieldsResult& result2) {
    auto cached = result1.overlappingFields.find(&result2);
    if (cached != result1.overlappingFields.end()) return cached->second;
    std::vector<Overlap> overlapping;
    for (const auto& [responseName, fields1] : result1.groupedFieldSet) {
      Spend(1);
      if (const std::vector<FieldDetails>* fields2 = result2.Find(responseName)) {
        overlapping.push_back(Overlap{responseName, &fields1, fields2});
      }
    }
    return result1.overlappingFields.emplace(&result2, std::move(overlapping)).first->second;
  }

  FieldInfo& GetFieldInfo(const FieldDetails& details) {
    if (!details.info) {
      auto info = std::make_shared<FieldInfo>();
      info->namedType = details.definition != nullptr ? details.definition->type.named : nullptr;
      if (!details.node->args.empty()) {
        ArgumentInfo args;
        args.nodes = &details.node->args;
        for (const ArgumentNode& a : details.node->args) args.values[a.name] = &a.value;
        info->arguments = std::move(args);
      }
      details.info = std::move(info);
    }
    return *details.info;
  }

  std::optional<Conflict> FindConflict(bool parentFieldsAreMutuallyExclusive, const std::string& responseName,
                                       const FieldDetails& details1, const FieldDetails& details2) {
    const NamedType* parentType1 = details1.parentType;
    const NamedType* parentType2 = details2.parentType;
    const SelectionNode* node1 = details1.node;
    const SelectionNode* node2 = details2.node;
    const Field* def1 = details1.definition;
    const Field* def2 = details2.definition;
    // Fields on two different object types can never both apply.
    const bool areMutuallyExclusive =
        parentFieldsAreMutuallyExclusive ||
        (parentType1 != parentType2 && parentType1 != nullptr && parentType2 != nullptr &&
         parentType1->kind == TypeKind::kObject && parentType2->kind == TypeKind::kObject);
    Spend(2);
    const bool sameDefType = (def1 == nullptr && def2 == nullptr) ||
                             (def1 != nullptr && def2 != nullptr && def1->type == def2->type);
    if (details1.isSimpleLeaf && details2.isSimpleLeaf && sameDefType && node1->name == node2->name) {
      return std::nullopt;
    }
    if (!areMutuallyExclusive) {
      FieldInfo& info1 = GetFieldInfo(details1);
      FieldInfo& info2 = GetFieldInfo(details2);
      auto cached = info1.comparisons.find(&info2);
      std::optional<std::string> reason;
      if (cached != info1.comparisons.end()) {
        reason = cached->second;
      } else {
        if (node1->name != node2->name) {
          reason = "\"" + MaybeAbbreviate(node1->name) + "\" and \"" + MaybeAbbreviate(node2->name) +
                   "\" are different fields";
        } else if (!SameArguments(info1.arguments, info2.arguments)) {
          reason = "they have differing arguments";
        }
        info1.comparisons.emplace(&info2, reason);
      }
      if (reason) return Conflict{responseName, *reason, {node1}, {node2}};
    }
    if (def1 != nullptr && def2 != nullptr && DoTypesConflict(def1->type, def2->type)) {
      FieldInfo& info1 = GetFieldInfo(details1);
      FieldInfo& info2 = GetFieldInfo(details2);
      if (!info1.typeString) info1.typeString = def1->type.ToString();
      if (!info2.typeString) info2.typeString = def2->type.ToString();
      return Conflict{responseName,
                      "they return conflicting types \"" + *info1.typeString + "\" and \"" + *info2.typeString + "\"",
                      {node1},
                      {node2}};
    }
    if (node1->selectionSet && node2->selectionSet) {
      const NamedType* named1 = GetFieldInfo(details1).namedType;
      const NamedType* named2 = GetFieldInfo(details2).namedType;
      std::vector<Conflict> sub = FindConflictsBetweenSubSelectionSets(areMutuallyExclusive, named1,
                                                                       *node1->selectionSet, named2,
                                                                       *node2->selectionSet);
      return SubfieldConflicts(sub, responseName, node1, node2);
    }
    return std::nullopt;
  }

  bool SameArguments(const std::optional<ArgumentInfo>& a1, const std::optional<ArgumentInfo>& a2) {
    if (!a1) return !a2;
    if (!a2 || a1->nodes->size() != a2->nodes->size()) return false;
    for (const ArgumentNode& arg1 : *a1->nodes) {
      Spend(1);
      auto it = a2->values.find(arg1.name);
      if (it == a2->values.end()) return false;
      if (StringifyValue(arg1.value) != StringifyValue(*it->second)) return false;
    }
    return true;
  }

  // A canonical form with the same equalities as graphql-js's JSON.stringify
  // replacer: object fields sorted by name, block strings kept apart.
  const std::string& StringifyValue(const ValueNode& value) {
    auto cached = stringified_.find(&value);
    if (cached != stringified_.end()) return cached->second;
    std::string out;
    switch (value.kind) {
      case ValueKind::kVariable: out = "V:" + value.text; break;
      case ValueKind::kInt: out = "I:" + value.text; break;
      case ValueKind::kFloat: out = "F:" + value.text; break;
      case ValueKind::kEnum: out = "E:" + value.text; break;
      case ValueKind::kBoolean: out = value.boolValue ? "B:true" : "B:false"; break;
      case ValueKind::kNull: out = "N"; break;
      case ValueKind::kString:
        out = value.block ? "S1:" : "S0:";
        AppendJsonQuoted(out, value.text);
        break;
      case ValueKind::kList:
        out = "L[";
        for (const ValueNode& item : value.items) out += StringifyValue(item) + ",";
        out += "]";
        break;
      case ValueKind::kObject: {
        std::vector<const ObjectFieldNode*> fields;
        for (const ObjectFieldNode& f : value.fields) fields.push_back(&f);
        std::stable_sort(fields.begin(), fields.end(),
                         [](const ObjectFieldNode* a, const ObjectFieldNode* b) { return a->name < b->name; });
        out = "O{";
        for (const ObjectFieldNode* f : fields) out += f->name + ":" + StringifyValue(f->value) + ",";
        out += "}";
        break;
      }
    }
    return stringified_.emplace(&value, std::move(out)).first->second;
  }

  // Two types conflict if both types could not apply to a value simultaneously.
  bool DoTypesConflict(const TypeRef& type1, const TypeRef& type2) {
    if (type1 == type2) return false;
    Spend(1);
    if (type1.IsList()) return type2.IsList() ? DoTypesConflict(type1.OfType(), type2.OfType()) : true;
    if (type2.IsList()) return true;
    if (type1.IsNonNull()) return type2.IsNonNull() ? DoTypesConflict(type1.OfType(), type2.OfType()) : true;
    if (type2.IsNonNull()) return true;
    if (type1.named->IsLeaf() || type2.named->IsLeaf()) return type1.named != type2.named;
    return false;
  }

  CollectFieldsResult& CollectFields(const NamedType* parentType, const SelectionSetNode& set) {
    auto& bySet = cachedCollectFieldsResults_[parentType];
    auto cached = bySet.find(&set);
    if (cached != bySet.end()) return *cached->second;
    auto result = std::make_unique<CollectFieldsResult>();
    std::vector<std::string> names;
    std::unordered_set<std::string> seen;
    CollectFieldsImpl(parentType, set, *result, names, seen);
    result->fragmentNames = std::move(names);
    return *bySet.emplace(&set, std::move(result)).first->second;
  }

  CollectFieldsResult& CollectFragmentFields(const FragmentNode& fragment) {
    const TypeRef type = ctx_.schema().TypeFromAst(fragment.typeCondition);
    return CollectFields(type.named, fragment.selectionSet);
  }

  void CollectFieldsImpl(const NamedType* parentType, const SelectionSetNode& set, CollectFieldsResult& result,
                         std::vector<std::string>& fragmentNames, std::unordered_set<std::string>& seenNames) {
    for (const SelectionNode& sel : set.selections) {
      switch (sel.kind) {
        case SelectionNode::Kind::kField: {
          const Field* fieldDef = nullptr;
          if (parentType != nullptr &&
              (parentType->kind == TypeKind::kObject || parentType->kind == TypeKind::kInterface)) {
            fieldDef = parentType->FindField(sel.name);
          }
          const std::string& responseName = sel.ResponseName();
          auto [it, inserted] = result.index.emplace(responseName, result.groupedFieldSet.size());
          if (inserted) result.groupedFieldSet.emplace_back(responseName, std::vector<FieldDetails>{});
          result.groupedFieldSet[it->second].second.push_back(FieldDetails{parentType, &sel, fieldDef, sel.args.empty() && !sel.selectionSet, nullptr});
          break;
        }
        case SelectionNode::Kind::kFragmentSpread:
          if (seenNames.insert(sel.name).second) fragmentNames.push_back(sel.name);
          break;
        case SelectionNode::Kind::kInlineFragment: {
          const NamedType* inlineType =
              sel.typeCondition ? ctx_.schema().TypeFromAst(*sel.typeCondition).named : parentType;
          CollectFieldsImpl(inlineType, *sel.selectionSet, result, fragmentNames, seenNames);
          break;
        }
      }
    }
  }

  std::optional<Conflict> SubfieldConflicts(const std::vector<Conflict>& conflicts, const std::string& responseName,
                                            const SelectionNode* node1, const SelectionNode* node2) {
    if (conflicts.empty()) return std::nullopt;
    std::string message;
    for (const Conflict& c : conflicts) {
      message += (message.empty() ? "" : " and ") + std::string("subfields \"") + MaybeAbbreviate(c.responseName) +
                 "\" conflict because " + c.reason;
      if (Utf16Length(message) > kMaxConflictDetailLength) break;
    }
    return Conflict{responseName, MaybeAbbreviate(message), CollectConflictNodes(node1, conflicts, true),
                    CollectConflictNodes(node2, conflicts, false)};
  }

  static std::vector<const SelectionNode*> CollectConflictNodes(const SelectionNode* node,
                                                                const std::vector<Conflict>& conflicts, bool first) {
    std::vector<const SelectionNode*> nodes{node};
    for (const Conflict& c : conflicts) {
      const std::size_t remaining = kMaxConflictNodes - nodes.size();
      const std::vector<const SelectionNode*>& side = first ? c.fields1 : c.fields2;
      // Keep the last `remaining` nodes: locations start with the enclosing field.
      const std::size_t from = side.size() > remaining ? side.size() - remaining : 0;
      nodes.insert(nodes.end(), side.begin() + static_cast<std::ptrdiff_t>(from), side.end());
      if (nodes.size() == kMaxConflictNodes) break;
    }
    return nodes;
  }

  ValidationContext& ctx_;
  std::int64_t budget_ = kMaxComplexityBudget;
  PairSet comparedFragmentPairs_;
  std::unordered_map<const NamedType*, std::unordered_map<const SelectionSetNode*, std::unique_ptr<CollectFieldsResult>>>
      cachedCollectFieldsResults_;
  std::unordered_map<const ValueNode*, std::string> stringified_;
};

}  // namespace

std::unique_ptr<Rule> MakeOverlappingFieldsCanBeMergedRule(ValidationContext& ctx) {
  return std::make_unique<OverlappingFieldsCanBeMergedRule>(ctx);
}

}  // namespace livechat::graphql::internal
