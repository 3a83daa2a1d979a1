#include <algorithm>
#include <unordered_map>

#include "graphql/validation_context.h"
#include "livechat/graphql/engine.h"

namespace livechat::graphql {

namespace {

using internal::DocumentAst;
using internal::FragmentNode;
using internal::SelectionNode;
using internal::SelectionSetNode;

// The deepest nesting of a document with fragment spreads expanded, where a
// field, an inline fragment and a spread each count as one level. Checked
// before the rules run: the rules and the executor recurse through spreads,
// so this bounds their native stack depth however fragments are chained.
// Fragments are resolved in dependency order with an explicit stack; a
// spread that closes a cycle counts as one level (NoFragmentCycles reports
// the cycle).
class EffectiveDepth {
 public:
  explicit EffectiveDepth(const DocumentAst& doc) : doc_(doc) {}

  int OfSelectionSet(const SelectionSetNode& set) {
    Local local = Scan(set);
    int depth = local.depth;
    for (const auto& [offset, name] : local.spreads) depth = std::max(depth, offset + OfFragment(name));
    return depth;
  }

 private:
  struct Local {
    int depth = 0;
    std::vector<std::pair<int, std::string>> spreads;  // depth at the spread, target
  };

  // Depth within one selection set, not following spreads. Recursion here is
  // bounded by the parser's nesting limit.
  static void ScanInto(const SelectionSetNode& set, int above, Local& out) {
    for (const SelectionNode& sel : set.selections) {
      const int here = above + 1;
      out.depth = std::max(out.depth, here);
      if (sel.kind == SelectionNode::Kind::kFragmentSpread) {
        out.spreads.emplace_back(here, sel.name);
      } else if (sel.selectionSet) {
        ScanInto(*sel.selectionSet, here, out);
      }
    }
  }
  static Local Scan(const SelectionSetNode& set) {
    Local out;
    ScanInto(set, 0, out);
    return out;
  }

  int OfFragment(const std::string& rootName) {
    enum State { kInProgress, kDone };
    struct Frame {
      std::string name;
      Local local;
      std::size_t next = 0;
      int depth = 0;
    };
    auto known = done_.find(rootName);
    if (known != done_.end()) return known->second;
    std::vector<Frame> stack;
    std::unordered_map<std::string, State> state;
    auto push = [&](const std::string& name) -> bool {
      const FragmentNode* frag = doc_.FindFragment(name);
      if (frag == nullptr) {
        done_[name] = 0;
        return false;
      }
      state[name] = kInProgress;
      Frame f;
      f.name = name;
      f.local = Scan(frag->selectionSet);
      f.depth = f.local.depth;
      stack.push_back(std::move(f));
      return true;
    };
    if (!push(rootName)) return 0;
    while (!stack.empty()) {
      Frame& top = stack.back();
      if (top.next == top.local.spreads.size()) {
        done_[top.name] = top.depth;
        state[top.name] = kDone;
        const int finished = top.depth;
        const std::string finishedName = top.name;
        stack.pop_back();
        if (!stack.empty()) {
          Frame& parent = stack.back();
          const int offset = parent.local.spreads[parent.next - 1].first;
          parent.depth = std::max(parent.depth, offset + finished);
        }
        continue;
      }
      const auto& [offset, target] = top.local.spreads[top.next++];
      auto d = done_.find(target);
      if (d != done_.end()) {
        top.depth = std::max(top.depth, offset + d->second);
        continue;
      }
      auto s = state.find(target);
      if (s != state.end() && s->second == kInProgress) continue;  // a cycle
      const int spreadOffset = offset;
      if (!push(target)) {
        Frame& again = stack.back();
        again.depth = std::max(again.depth, spreadOffset);
      }
    }
    return done_[rootName];
  }

  const DocumentAst& doc_;
  std::unordered_map<std::string, int> done_;
};

}  // namespace

std::vector<ResponseError> Validate(const Schema& schema, const Document& document, const Limits& limits) {
  const DocumentAst& doc = document.ast();
  internal::ValidationContext ctx(schema.impl(), doc, limits);

  EffectiveDepth depth(doc);
  for (const internal::OperationNode& op : doc.operations) {
    if (depth.OfSelectionSet(op.selectionSet) > limits.maxDepth) {
      ResponseError e;
      e.message = "Query is nested too deeply: more than " + std::to_string(limits.maxDepth) +
                  " levels of fields and fragments.";
      e.locations.push_back(op.loc.ToLocation());
      e.code = "GRAPHQL_VALIDATION_FAILED";
      return {e};
    }
  }
  for (const FragmentNode& frag : doc.fragments) {
    if (depth.OfSelectionSet(frag.selectionSet) > limits.maxDepth) {
      ResponseError e;
      e.message = "Fragment \"" + frag.name + "\" is nested too deeply: more than " +
                  std::to_string(limits.maxDepth) + " levels of fields and fragments.";
      e.locations.push_back(frag.loc.ToLocation());
      e.code = "GRAPHQL_VALIDATION_FAILED";
      return {e};
    }
  }

  internal::TypeInfo typeInfo(schema.impl());
  ctx.typeInfo = &typeInfo;
  std::vector<std::unique_ptr<internal::Rule>> rules = internal::MakeSpecifiedRules(ctx);
  std::vector<internal::Rule*> rulePtrs;
  for (auto& r : rules) rulePtrs.push_back(r.get());
  internal::Walker walker(typeInfo, rulePtrs);
  try {
    walker.WalkDocument(doc);
  } catch (const internal::ValidationAborted&) {
    // The abort error is already recorded.
  }
  std::vector<ResponseError> errors = ctx.TakeErrors();
  for (ResponseError& e : errors) e.code = "GRAPHQL_VALIDATION_FAILED";
  return errors;
}

}  // namespace livechat::graphql
