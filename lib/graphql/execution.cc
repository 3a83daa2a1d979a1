// Execution, following graphql-js 16's execute(): collect fields (with @skip
// and @include), coerce arguments, resolve, complete values, and on an error
// null the nearest nullable field, recording the error once with the path of
// the field where it arose. Synchronous: fields run in document order.
#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <unordered_map>

#include "graphql/coercion.h"
#include "graphql/execution_internal.h"
#include "graphql/js_text.h"
#include "graphql/parser.h"
#include "livechat/graphql/engine.h"

namespace livechat::graphql {

// ---- ResolveContext ----

const Value& ResolveContext::source() const { return *state_->source; }
const Value::Object& ResolveContext::args() const { return *state_->args; }

const Value& ResolveContext::Arg(std::string_view name) const {
  static const Value kNull;
  for (const auto& [k, v] : *state_->args) {
    if (k == name) return v;
  }
  return kNull;
}

bool ResolveContext::HasArg(std::string_view name) const {
  return std::any_of(state_->args->begin(), state_->args->end(), [&](const auto& p) { return p.first == name; });
}

std::string_view ResolveContext::fieldName() const { return state_->field->name; }
std::string_view ResolveContext::parentTypeName() const { return state_->parentType->name; }
std::vector<std::variant<std::string, int>> ResolveContext::Path() const { return *state_->path; }

namespace internal {

namespace {

using FieldNodes = std::vector<const SelectionNode*>;
// Response key -> the field nodes merged under it, in first-seen order.
using GroupedFields = std::vector<std::pair<std::string, FieldNodes>>;

// GroupedFields plus an index, so a selection set of thousands of fields
// stays linear.
class FieldGrouper {
 public:
  // The index views the keys' text in the document (a field node's
  // response name), never the copies in `fields`: those move when `fields`
  // grows, and a view of a short (inline) string would then dangle.
  explicit FieldGrouper(GroupedFields& fields) : fields_(fields) {
    for (std::size_t i = 0; i < fields_.size(); ++i) index_.emplace(fields_[i].second[0]->ResponseName(), i);
  }
  void Add(const SelectionNode* sel) {
    const std::string& key = sel->ResponseName();
    auto [it, inserted] = index_.emplace(key, fields_.size());
    if (inserted) {
      fields_.emplace_back(key, FieldNodes{sel});
    } else {
      fields_[it->second].second.push_back(sel);
    }
  }

 private:
  GroupedFields& fields_;
  std::unordered_map<std::string_view, std::size_t> index_;
};

// A request error raised while evaluating @skip/@include (only possible when
// a variable with a default is explicitly null): graphql-js throws it out of
// collectFields.
struct DirectiveError {
  std::string message;
  std::vector<Location> locations;  // of the offending argument value or directive
};

// Where a completed value goes. TreeSlot builds the engine's Value (what
// ExecutePrepared returns); JsonSlot writes the value's JSON text straight
// into a response buffer, as Value::AppendJson would write the same tree,
// so a transport builds no tree it only serializes. Completion is written
// once, over either (Executor::CompleteValue<Slot>): an error that nulls a
// position nulls it in both, a JsonSlot by cutting what it wrote back to
// where the value began.
class TreeSlot {
 public:
  explicit TreeSlot(Value& v) : v_(&v) {}
  void SetNull() { *v_ = Value(); }
  bool IsNull() const { return v_->IsNull(); }
  void SetLeaf(Value&& v) { *v_ = std::move(v); }
  // Members and items are placed before they are completed; the reserve
  // keeps each in place (there are at most `n`).
  void BeginObject(std::size_t n) {
    *v_ = Value(Value::Object{});
    v_->AsObject().reserve(n);
  }
  TreeSlot Member(const std::string& key) {
    Value::Object& o = v_->AsObject();
    o.emplace_back(key, Value());
    return TreeSlot(o.back().second);
  }
  void EndObject() {}
  void BeginList(std::size_t n) {
    *v_ = Value(Value::List{});
    v_->AsList().reserve(n);
  }
  TreeSlot Item() {
    Value::List& l = v_->AsList();
    l.emplace_back();
    return TreeSlot(l.back());
  }
  void EndList() {}

 private:
  Value* v_;
};

class JsonSlot {
 public:
  explicit JsonSlot(std::string& out) : out_(&out), begin_(out.size()) {}
  void SetNull() {
    out_->resize(begin_);
    out_->append("null");
    null_ = true;
  }
  // Null as a TreeSlot's value would be: set null, not a leaf whose JSON
  // happens to read null (a non-finite Float).
  bool IsNull() const { return null_; }
  void SetLeaf(Value&& v) {
    null_ = v.IsNull();
    v.AppendJson(*out_);
  }
  void BeginObject(std::size_t) { out_->push_back('{'); }
  JsonSlot Member(const std::string& key) {
    if (out_->back() != '{') out_->push_back(',');
    AppendJsonQuoted(*out_, key);
    out_->push_back(':');
    return JsonSlot(*out_);
  }
  void EndObject() { out_->push_back('}'); }
  void BeginList(std::size_t) { out_->push_back('['); }
  JsonSlot Item() {
    if (out_->back() != '[') out_->push_back(',');
    return JsonSlot(*out_);
  }
  void EndList() { out_->push_back(']'); }

 private:
  std::string* out_;
  std::size_t begin_;  // where this slot's value starts in out_
  bool null_ = false;
};

class Executor {
 public:
  Executor(const PreparedState& prepared, const void* context, const std::type_info* contextType)
      : schema_(*prepared.schemaOwner),
        doc_(*prepared.documentOwner),
        variables_(prepared.variables),
        context_(context),
        contextType_(contextType) {}

  ExecutionResult Run(const OperationNode& op) {
    ExecutionResult result;
    result.hasData = true;
    GroupedFields fields;
    std::optional<DirectiveError> directiveError;
    std::vector<std::string> visited;
    if (!CollectFields(schema_.queryType, op.selectionSet, fields, visited, directiveError)) {
      errors_.push_back(ResponseError{directiveError->message, directiveError->locations, std::nullopt, {}});
      result.errors = std::move(errors_);
      return result;  // data null
    }
    Value root;
    if (json_ != nullptr) {
      JsonSlot data(*json_);
      if (std::optional<ResponseError> error = ExecuteFields(schema_.queryType, root, fields, data)) {
        errors_.push_back(std::move(*error));
        data.SetNull();
      }
    } else {
      TreeSlot data(result.data);
      if (std::optional<ResponseError> error = ExecuteFields(schema_.queryType, root, fields, data)) {
        errors_.push_back(std::move(*error));
        data.SetNull();
      }
    }
    result.errors = std::move(errors_);
    return result;
  }

  // Run writes `data` as JSON into `out` instead of building result.data.
  void WriteDataTo(std::string& out) { json_ = &out; }

  // graphql-js collectFields for a runtime object type. False on a
  // directive argument error.
  bool CollectFields(const NamedType* runtimeType, const SelectionSetNode& set, GroupedFields& fields,
                     std::vector<std::string>& visitedFragments, std::optional<DirectiveError>& error) {
    FieldGrouper grouper(fields);
    return CollectInto(runtimeType, set, grouper, visitedFragments, error);
  }

  bool CollectInto(const NamedType* runtimeType, const SelectionSetNode& set, FieldGrouper& fields,
                   std::vector<std::string>& visitedFragments, std::optional<DirectiveError>& error) {
    for (const SelectionNode& sel : set.selections) {
      bool include = true;
      if (!ShouldInclude(sel.directives, include, error)) return false;
      if (!include) continue;
      switch (sel.kind) {
        case SelectionNode::Kind::kField:
          fields.Add(&sel);
          break;
        case SelectionNode::Kind::kInlineFragment:
          if (sel.typeCondition && !FragmentConditionMatches(*sel.typeCondition, runtimeType)) break;
          if (!CollectInto(runtimeType, *sel.selectionSet, fields, visitedFragments, error)) return false;
          break;
        case SelectionNode::Kind::kFragmentSpread: {
          if (std::find(visitedFragments.begin(), visitedFragments.end(), sel.name) != visitedFragments.end()) break;
          visitedFragments.push_back(sel.name);
          const FragmentNode* fragment = doc_.FindFragment(sel.name);
          if (fragment == nullptr || !FragmentConditionMatches(fragment->typeCondition, runtimeType)) break;
          if (!CollectInto(runtimeType, fragment->selectionSet, fields, visitedFragments, error)) return false;
          break;
        }
      }
    }
    return true;
  }

  bool FragmentConditionMatches(const TypeNode& condition, const NamedType* type) const {
    const TypeRef conditional = schema_.TypeFromAst(condition);
    if (!conditional) return false;
    if (conditional.named == type) return true;
    if (conditional.named->IsAbstract()) return schema_.IsSubType(conditional.named, type);
    return false;
  }

  bool ShouldInclude(const std::vector<DirectiveNode>& directives, bool& include,
                     std::optional<DirectiveError>& error) {
    for (const char* name : {"skip", "include"}) {
      const DirectiveNode* node = nullptr;
      for (const DirectiveNode& d : directives) {
        if (d.name == name && node == nullptr) node = &d;
      }
      if (node == nullptr) continue;
      const DirectiveDef* def = schema_.FindDirective(name);
      Value::Object args;
      std::optional<ResponseError> argError = CoerceArguments(def->args, node->args, node->loc, args);
      if (argError) {
        error = DirectiveError{argError->message, argError->locations};
        return false;
      }
      const Value* v = args.empty() ? nullptr : &args[0].second;
      const bool isSkip = name[0] == 's';
      if (v != nullptr && v->IsBool() && v->AsBool() == isSkip) {
        include = false;
        return true;
      }
    }
    return true;
  }

  // graphql-js getArgumentValues. The error (if any) has its message and
  // the location of the offending node; the caller adds the path.
  std::optional<ResponseError> CoerceArguments(const std::vector<InputValue>& defs,
                                               const std::vector<ArgumentNode>& nodes, Loc ownerLoc,
                                               Value::Object& out) const {
    for (const InputValue& argDef : defs) {
      const ArgumentNode* argNode = nullptr;
      for (const ArgumentNode& a : nodes) {
        if (a.name == argDef.name) argNode = &a;  // keyMap: the last one
      }
      // Only an error message needs the type's name.
      const auto typeStr = [&argDef] { return argDef.type.ToString(); };
      if (argNode == nullptr) {
        if (argDef.defaultValue) {
          out.emplace_back(argDef.name, *argDef.defaultValue);
        } else if (argDef.type.IsNonNull()) {
          return Located("Argument \"" + argDef.name + "\" of required type \"" + typeStr() + "\" was not provided.",
                         ownerLoc);
        }
        continue;
      }
      const ValueNode& valueNode = argNode->value;
      bool isNull = valueNode.kind == ValueKind::kNull;
      if (valueNode.kind == ValueKind::kVariable) {
        const Value* v = FindVariable(&variables_, valueNode.text);
        if (v == nullptr) {
          if (argDef.defaultValue) {
            out.emplace_back(argDef.name, *argDef.defaultValue);
          } else if (argDef.type.IsNonNull()) {
            return Located("Argument \"" + argDef.name + "\" of required type \"" + typeStr() +
                               "\" was provided the variable \"$" + valueNode.text +
                               "\" which was not provided a runtime value.",
                           valueNode.loc);
          }
          continue;
        }
        isNull = v->IsNull();
      }
      if (isNull && argDef.type.IsNonNull()) {
        return Located("Argument \"" + argDef.name + "\" of non-null type \"" + typeStr() + "\" must not be null.",
                       valueNode.loc);
      }
      std::optional<Value> coerced = ValueFromAst(valueNode, argDef.type, &variables_);
      if (!coerced) {
        return Located("Argument \"" + argDef.name + "\" has invalid value " + PrintValueNode(valueNode) + ".",
                       valueNode.loc);
      }
      out.emplace_back(argDef.name, std::move(*coerced));
    }
    return std::nullopt;
  }

 private:
  static ResponseError Located(std::string message, Loc loc) {
    return ResponseError{std::move(message), {loc.ToLocation()}, std::nullopt, {}};
  }

  ResponseError FieldErrorAt(std::string message, const FieldNodes& nodes, std::string code = {}) const {
    ResponseError e;
    e.message = std::move(message);
    for (const SelectionNode* n : nodes) e.locations.push_back(n->loc.ToLocation());
    e.path = path_;
    e.code = std::move(code);
    return e;
  }

  // Executes the grouped fields on `source` into the object `out`. Returns
  // the error to propagate when a non-null field failed (out is then moot:
  // the caller nulls it).
  template <typename Slot>
  std::optional<ResponseError> ExecuteFields(const NamedType* parentType, const Value& source,
                                             const GroupedFields& fields, Slot& out) {
    out.BeginObject(fields.size());
    for (const auto& [responseName, nodes] : fields) {
      const Field* fieldDef = schema_.FieldDef(parentType, nodes[0]->name);
      if (fieldDef == nullptr) continue;  // graphql-js leaves unknown fields out
      path_.emplace_back(responseName);
      Slot completed = out.Member(responseName);
      std::optional<ResponseError> propagate = ExecuteField(parentType, *fieldDef, source, nodes, completed);
      path_.pop_back();
      if (propagate) return propagate;
    }
    out.EndObject();
    return std::nullopt;
  }

  // graphql-js handleFieldError: a non-null position propagates the error to
  // its parent; a nullable one records it and becomes null.
  template <typename Slot>
  std::optional<ResponseError> HandleFieldError(ResponseError error, const TypeRef& type, Slot& out) {
    if (type.IsNonNull()) return error;
    errors_.push_back(std::move(error));
    out.SetNull();
    return std::nullopt;
  }

  template <typename Slot>
  std::optional<ResponseError> ExecuteField(const NamedType* parentType, const Field& fieldDef, const Value& source,
                                            const FieldNodes& nodes, Slot& out) {
    Value::Object args;
    if (std::optional<ResponseError> argError = CoerceArguments(fieldDef.args, nodes[0]->args, nodes[0]->loc, args)) {
      argError->path = path_;
      return HandleFieldError(std::move(*argError), fieldDef.type, out);
    }
    FieldResolveState state;
    state.schema = &schema_;
    state.source = &source;
    state.args = &args;
    state.parentType = parentType;
    state.field = &fieldDef;
    state.path = &path_;
    Value result;
    if (fieldDef.resolve) {
      const ResolveContext ctx(&state, context_, contextType_);
      FieldResult r = fieldDef.resolve(ctx);
      if (!r.ok()) {
        return HandleFieldError(FieldErrorAt(r.error().message, nodes, r.error().code), fieldDef.type, out);
      }
      result = std::move(r).value();
    } else if (const Value* member = source.Find(fieldDef.name)) {
      result = *member;  // graphql-js defaultFieldResolver
    }
    std::optional<ResponseError> error = CompleteValue(fieldDef.type, parentType, fieldDef, nodes, result, out);
    if (error) return HandleFieldError(std::move(*error), fieldDef.type, out);
    return std::nullopt;
  }

  // graphql-js completeValue. Returns an error for the caller to handle
  // (located at the current path). `result` is the resolver's value, the
  // caller's to give up: leaves that serialize as themselves are moved out
  // of it.
  template <typename Slot>
  std::optional<ResponseError> CompleteValue(const TypeRef& type, const NamedType* parentType, const Field& fieldDef,
                                             const FieldNodes& nodes, Value& result, Slot& out) {
    if (type.IsNonNull()) {
      std::optional<ResponseError> error = CompleteValue(type.OfType(), parentType, fieldDef, nodes, result, out);
      if (error) return error;
      if (out.IsNull()) {
        return FieldErrorAt("Cannot return null for non-nullable field " + parentType->name + "." + fieldDef.name + ".",
                            nodes);
      }
      return std::nullopt;
    }
    if (result.IsNull()) {
      out.SetNull();
      return std::nullopt;
    }
    if (type.IsList()) {
      if (!result.IsList()) {
        return FieldErrorAt("Expected Iterable, but did not find one for field \"" + parentType->name + "." +
                                fieldDef.name + "\".",
                            nodes);
      }
      const TypeRef itemType = type.OfType();
      Value::List& items = result.AsList();
      out.BeginList(items.size());
      for (std::size_t i = 0; i < items.size(); ++i) {
        path_.emplace_back(static_cast<int>(i));
        Slot item = out.Item();
        std::optional<ResponseError> error = CompleteValue(itemType, parentType, fieldDef, nodes, items[i], item);
        if (error) error = HandleFieldError(std::move(*error), itemType, item);
        path_.pop_back();
        if (error) return error;
      }
      out.EndList();
      return std::nullopt;
    }
    const NamedType& named = *type.named;
    if (named.IsLeaf()) {
      if (SerializesAsItself(named, result)) {
        out.SetLeaf(std::move(result));
        return std::nullopt;
      }
      FieldResult serialized = SerializeLeaf(named, result);
      if (!serialized.ok()) return FieldErrorAt(serialized.error().message, nodes, serialized.error().code);
      if (serialized.value().IsNull()) {
        return FieldErrorAt("Expected `" + named.name + ".serialize(" + Inspect(result) +
                                ")` to return non-nullable value, returned: null",
                            nodes);
      }
      out.SetLeaf(std::move(serialized).value());
      return std::nullopt;
    }
    const NamedType* runtimeType = &named;
    if (named.IsAbstract()) {
      std::string typeName;
      if (named.resolveType) {
        typeName = named.resolveType(result);
      } else if (const Value* t = result.Find("__typename"); t != nullptr && t->IsString()) {
        typeName = t->AsString();
      } else {
        return FieldErrorAt("Abstract type \"" + named.name +
                                "\" must resolve to an Object type at runtime for field \"" + parentType->name + "." +
                                fieldDef.name + "\". Either the \"" + named.name +
                                "\" type should provide a \"resolveType\" function or each possible type should "
                                "provide an \"isTypeOf\" function.",
                            nodes);
      }
      runtimeType = schema_.Find(typeName);
      if (runtimeType == nullptr) {
        return FieldErrorAt("Abstract type \"" + named.name + "\" was resolved to a type \"" + typeName +
                                "\" that does not exist inside the schema.",
                            nodes);
      }
      if (runtimeType->kind != TypeKind::kObject) {
        return FieldErrorAt("Abstract type \"" + named.name + "\" was resolved to a non-object type \"" + typeName +
                                "\".",
                            nodes);
      }
      if (!schema_.IsSubType(&named, runtimeType)) {
        return FieldErrorAt("Runtime Object type \"" + runtimeType->name + "\" is not a possible type for \"" +
                                named.name + "\".",
                            nodes);
      }
    }
    const GroupedFields* subFields = nullptr;
    if (std::optional<ResponseError> error = SubFields(runtimeType, nodes, subFields)) return error;
    return ExecuteFields(runtimeType, result, *subFields, out);
  }

  // graphql-js collectSubfields, memoized per (runtime type, field nodes)
  // as graphql-js memoizes it: the hundred items of a list share one
  // collection instead of making one each. The result depends only on the
  // document and the variables, both fixed for the execution. A returned
  // collection stays in place until the executor ends (entries are never
  // moved), so callers up the stack may hold it while deeper ones add more.
  std::optional<ResponseError> SubFields(const NamedType* runtimeType, const FieldNodes& nodes,
                                         const GroupedFields*& out) {
    const auto key = std::make_pair(runtimeType, nodes.empty() ? nullptr : nodes[0]);
    for (auto [it, end] = subFieldsIndex_.equal_range(key); it != end; ++it) {
      if (it->second->nodes == nodes) {
        out = &it->second->fields;
        return std::nullopt;
      }
    }
    auto memo = std::make_unique<SubFieldsMemo>();
    memo->nodes = nodes;
    std::vector<std::string> visited;
    std::optional<DirectiveError> directiveError;
    for (const SelectionNode* node : nodes) {
      if (!node->selectionSet) continue;
      if (!CollectFields(runtimeType, *node->selectionSet, memo->fields, visited, directiveError)) {
        ResponseError e = FieldErrorAt(directiveError->message, nodes);
        e.locations = directiveError->locations;
        return e;
      }
    }
    out = &memo->fields;
    subFieldsIndex_.emplace(key, memo.get());
    subFieldsMemo_.push_back(std::move(memo));
    return std::nullopt;
  }

  struct SubFieldsMemo {
    FieldNodes nodes;
    GroupedFields fields;
  };

  const SchemaImpl& schema_;
  const DocumentAst& doc_;
  const Value::Object& variables_;
  const void* context_;
  const std::type_info* contextType_;
  std::vector<PathElement> path_;
  std::vector<ResponseError> errors_;
  std::string* json_ = nullptr;  // WriteDataTo's buffer, or null: build result.data
  std::vector<std::unique_ptr<SubFieldsMemo>> subFieldsMemo_;
  std::multimap<std::pair<const NamedType*, const SelectionNode*>, const SubFieldsMemo*> subFieldsIndex_;
};

}  // namespace

namespace {

std::int64_t SaturatingAdd(std::int64_t a, std::int64_t b) {
  if (b > 0 && a > std::numeric_limits<std::int64_t>::max() - b) return std::numeric_limits<std::int64_t>::max();
  return a + b;
}

std::int64_t SaturatingMul(std::int64_t a, std::int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a > std::numeric_limits<std::int64_t>::max() / b) return std::numeric_limits<std::int64_t>::max();
  return a * b;
}

class CostCalculator {
 public:
  CostCalculator(const PreparedState& prepared, const std::function<FieldWeight(const WeighedField&)>& weigh)
      : executor_(prepared, nullptr, nullptr), schema_(*prepared.schemaOwner), weigh_(weigh) {}

  std::int64_t Cost(const NamedType* parentType, const GroupedFields& fields, std::int64_t multiplier) {
    std::int64_t total = 0;
    for (const auto& [responseName, nodes] : fields) {
      const Field* fieldDef = schema_.FieldDef(parentType, nodes[0]->name);
      if (fieldDef == nullptr) continue;
      Value::Object args;
      // Invalid arguments fail the field at execution; weigh them as absent.
      if (executor_.CoerceArguments(fieldDef->args, nodes[0]->args, nodes[0]->loc, args)) args.clear();
      const FieldWeight w = weigh_(WeighedField{parentType->name, fieldDef->name, args});
      total = SaturatingAdd(total, SaturatingMul(std::max<std::int64_t>(w.cost, 0), multiplier));
      const NamedType* named = fieldDef->type.named;
      if (!named->IsComposite()) continue;
      const std::int64_t childMultiplier = SaturatingMul(multiplier, std::max<std::int64_t>(w.multiplier, 0));
      // An abstract type costs what its most expensive possible type costs.
      std::vector<const NamedType*> candidates =
          named->IsAbstract() ? named->possibleTypes : std::vector<const NamedType*>{named};
      std::int64_t worst = 0;
      for (const NamedType* candidate : candidates) {
        GroupedFields sub;
        std::vector<std::string> visited;
        std::optional<DirectiveError> error;
        bool ok = true;
        for (const SelectionNode* node : nodes) {
          if (node->selectionSet && !executor_.CollectFields(candidate, *node->selectionSet, sub, visited, error)) {
            ok = false;
          }
        }
        if (ok) worst = std::max(worst, Cost(candidate, sub, childMultiplier));
      }
      total = SaturatingAdd(total, worst);
    }
    return total;
  }

 private:
  Executor executor_;
  const SchemaImpl& schema_;
  const std::function<FieldWeight(const WeighedField&)>& weigh_;
};

}  // namespace

std::vector<std::string> RootFields(const PreparedState& prepared) {
  Executor executor(prepared, nullptr, nullptr);
  GroupedFields fields;
  std::vector<std::string> visited;
  std::optional<DirectiveError> error;
  std::vector<std::string> names;
  // On a directive error the operation fails before any field runs; the
  // fields collected until then are still what the caller asked for.
  (void)executor.CollectFields(prepared.schemaOwner->queryType, prepared.operation->selectionSet, fields, visited, error);
  for (const auto& [key, nodes] : fields) {
    if (std::find(names.begin(), names.end(), nodes[0]->name) == names.end()) names.push_back(nodes[0]->name);
  }
  return names;
}

std::int64_t Cost(const PreparedState& prepared, const std::function<FieldWeight(const WeighedField&)>& weigh) {
  Executor executor(prepared, nullptr, nullptr);
  GroupedFields fields;
  std::vector<std::string> visited;
  std::optional<DirectiveError> error;
  if (!executor.CollectFields(prepared.schemaOwner->queryType, prepared.operation->selectionSet, fields, visited, error)) {
    return 0;
  }
  CostCalculator calculator(prepared, weigh);
  return calculator.Cost(prepared.schemaOwner->queryType, fields, 1);
}

ExecutionResult RunPrepared(const PreparedState& prepared, const void* context, const std::type_info* contextType) {
  Executor executor(prepared, context, contextType);
  return executor.Run(*prepared.operation);
}

ExecutionResult RunPreparedToJson(const PreparedState& prepared, const void* context,
                                  const std::type_info* contextType) {
  Executor executor(prepared, context, contextType);
  std::string data;
  executor.WriteDataTo(data);
  ExecutionResult result = executor.Run(*prepared.operation);
  // A directive error fails the operation before any field runs: data null.
  result.dataJson = data.empty() ? std::string("null") : std::move(data);
  return result;
}

}  // namespace internal

}  // namespace livechat::graphql
