#include "hsalit/litmus/scope_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "hsalit/litmus/source.hpp"

namespace hsalit::litmus {

std::string_view to_string(Scope scope) {
  switch (scope) {
    case Scope::WorkItem: return "wi";
    case Scope::Wavefront: return "wave";
    case Scope::WorkGroup: return "wg";
    case Scope::Agent: return "agent";
    case Scope::System: return "system";
  }
  return "?";
}

std::optional<Scope> scope_from_string(std::string_view t) {
  if (t == "wi" || t == "workitem" || t == "work-item") return Scope::WorkItem;
  if (t == "wave" || t == "wavefront" || t == "wf") return Scope::Wavefront;
  if (t == "wg" || t == "workgroup" || t == "work-group") return Scope::WorkGroup;
  if (t == "agent" || t == "component" || t == "cmp") return Scope::Agent;
  if (t == "system" || t == "sys") return Scope::System;
  return std::nullopt;
}

int ScopeTree::add_node(ScopeNode node) {
  nodes_.push_back(std::move(node));
  resolved_ = false;
  return static_cast<int>(nodes_.size()) - 1;
}

ScopeTree ScopeTree::default_for(int thread_count) {
  ScopeTree tree;
  ScopeNode agent{Scope::Agent, {}, {}};
  for (int t = 0; t < thread_count; ++t) {
    int wg = tree.add_node(ScopeNode{Scope::WorkGroup, {{true, t}}, {}});
    agent.children.push_back({false, wg});
  }
  tree.add_root(tree.add_node(std::move(agent)));
  tree.default_ = true;
  return tree;
}

namespace {

// Copies the subtree at `node` into `out` (children first, as the parser adds them, so that
// a tree without stray threads is rebuilt index for index), leaving out stray threads and
// the groups that held only those. Returns the new index, or nothing for a dropped group.
std::optional<int> copy_without_strays(const std::vector<ScopeNode>& nodes, int node, int thread_count, ScopeTree& out,
                                       std::vector<ScopeTree::StrayThread>& dropped) {
  const ScopeNode& n = nodes.at(static_cast<std::size_t>(node));
  ScopeNode copy{n.level, {}, n.pos};
  for (const ScopeNode::Child& c : n.children) {
    if (c.is_thread && c.index >= thread_count) {
      dropped.push_back({c.index, n.pos});
    } else if (c.is_thread) {
      copy.children.push_back(c);
    } else if (auto child = copy_without_strays(nodes, c.index, thread_count, out, dropped)) {
      copy.children.push_back({false, *child});
    }
  }
  if (copy.children.empty() && !n.children.empty()) return std::nullopt;  // it held only strays
  return out.add_node(std::move(copy));
}

}  // namespace

std::vector<ScopeTree::StrayThread> ScopeTree::drop_threads_from(int thread_count) {
  auto stray = [&](const ScopeNode& n) {
    return std::any_of(n.children.begin(), n.children.end(),
                       [&](const ScopeNode::Child& c) { return c.is_thread && c.index >= thread_count; });
  };
  if (std::none_of(nodes_.begin(), nodes_.end(), stray)) return {};
  // Only well-formed trees are rebuilt; a malformed one is left for resolve() to report.
  for (int root : roots_)
    if (root < 0 || static_cast<std::size_t>(root) >= nodes_.size()) return {};
  for (const ScopeNode& n : nodes_)
    for (const ScopeNode::Child& c : n.children)
      if (!c.is_thread && (c.index < 0 || static_cast<std::size_t>(c.index) >= nodes_.size())) return {};
  // Each group is reached once (resolve() rejects a shared group; here it would be copied twice).
  std::vector<int> parents(nodes_.size(), 0);
  for (int root : roots_) ++parents[static_cast<std::size_t>(root)];
  for (const ScopeNode& n : nodes_)
    for (const ScopeNode::Child& c : n.children)
      if (!c.is_thread) ++parents[static_cast<std::size_t>(c.index)];
  if (std::any_of(parents.begin(), parents.end(), [](int p) { return p > 1; })) return {};

  ScopeTree rebuilt;
  std::vector<StrayThread> dropped;
  for (int root : roots_)
    if (auto kept = copy_without_strays(nodes_, root, thread_count, rebuilt, dropped)) rebuilt.add_root(*kept);
  rebuilt.default_ = default_;
  *this = std::move(rebuilt);
  return dropped;
}

namespace {

// Walks the tree recording, per thread, the explicit nodes on its path from the root.
struct PathCollector {
  const std::vector<ScopeNode>& nodes;
  int thread_count;
  DiagnosticList& diags;
  std::vector<std::vector<int>> paths;  // per thread
  std::vector<SourcePos> placed_at;     // per thread, where it was first placed
  std::vector<int> visits;              // per node, to reject shared subtrees
  bool ok = true;

  void visit(int node, std::vector<int>& path, const ScopeNode* parent) {
    if (node < 0 || static_cast<std::size_t>(node) >= nodes.size()) {
      diags.error(parent ? parent->pos : SourcePos{}, "malformed scope tree (bad group index)");
      ok = false;
      return;
    }
    const ScopeNode& n = nodes[static_cast<std::size_t>(node)];
    // Each group is visited once, which also rules out cycles; the depth is bounded by the
    // number of groups.
    if (++visits[static_cast<std::size_t>(node)] > 1) {
      diags.error(n.pos, "malformed scope tree (a group appears twice)");
      ok = false;
      return;
    }
    if (parent && !(n.level < parent->level)) {
      diags.error(n.pos, fmt::format("scope group '{}' cannot be inside '{}': levels must narrow "
                                     "inwards (system > agent > wg > wave > wi)",
                                     to_string(n.level), to_string(parent->level)));
      ok = false;
    }
    if (n.children.empty()) {
      diags.error(n.pos, fmt::format("empty scope group '{}'", to_string(n.level)));
      ok = false;
    }
    int thread_children = 0;
    path.push_back(node);
    for (const ScopeNode::Child& c : n.children) {
      if (!c.is_thread) {
        visit(c.index, path, &n);
        continue;
      }
      ++thread_children;
      if (c.index < 0 || c.index >= thread_count) {
        diags.error(n.pos, fmt::format("scope tree places thread {} but the test has {} thread{}", c.index,
                                       thread_count, thread_count == 1 ? "" : "s"));
        ok = false;
        continue;
      }
      auto t = static_cast<std::size_t>(c.index);
      if (placed_at[t].valid() || !paths[t].empty()) {
        diags.error(n.pos, fmt::format("scope tree places thread {} twice", c.index));
        ok = false;
        continue;
      }
      paths[t] = path;
      placed_at[t] = n.pos.valid() ? n.pos : SourcePos{1, 1};
    }
    if (n.level == Scope::WorkItem && (thread_children != 1 || n.children.size() != 1)) {
      diags.error(n.pos, "a work-item group '(wi ...)' holds exactly one thread");
      ok = false;
    }
    path.pop_back();
  }
};

}  // namespace

bool ScopeTree::resolve(int thread_count, DiagnosticList& diags) {
  resolved_ = false;
  instances_.clear();
  PathCollector collect{nodes_, thread_count, diags, {}, {}, {}, true};
  collect.paths.resize(static_cast<std::size_t>(std::max(thread_count, 0)));
  collect.placed_at.resize(collect.paths.size());
  collect.visits.assign(nodes_.size(), 0);
  for (int root : roots_) {
    if (root < 0 || static_cast<std::size_t>(root) >= nodes_.size()) {
      diags.error({}, "malformed scope tree (bad root)");
      return false;
    }
    std::vector<int> path;
    collect.visit(root, path, nullptr);
  }
  SourcePos where =
      nodes_.empty() ? SourcePos{} : nodes_[static_cast<std::size_t>(roots_.empty() ? 0 : roots_.front())].pos;
  for (int t = 0; t < thread_count; ++t) {
    if (collect.paths[static_cast<std::size_t>(t)].empty()) {
      diags.error(where, fmt::format("scope tree does not place thread {}", t));
      collect.ok = false;
    }
  }
  if (!collect.ok) return false;

  // Instance identifiers: explicit node n at its own level gets id n; the implicit instance at
  // level L that encloses explicit node n gets id (n, L); a thread alone at level L gets
  // (node_count + thread, L). Ids are unique per level, which is all that equality needs.
  const std::uint32_t node_count = static_cast<std::uint32_t>(nodes_.size());
  instances_.resize(static_cast<std::size_t>(thread_count));
  for (int t = 0; t < thread_count; ++t) {
    const std::vector<int>& path = collect.paths[static_cast<std::size_t>(t)];
    for (Scope level : kAllScopes) {
      std::uint32_t id;
      auto exact = std::find_if(path.begin(), path.end(),
                                [&](int n) { return nodes_[static_cast<std::size_t>(n)].level == level; });
      auto narrower = std::find_if(path.begin(), path.end(),
                                   [&](int n) { return nodes_[static_cast<std::size_t>(n)].level < level; });
      if (level == Scope::System) {
        id = 0;  // one system holds everything
      } else if (level == Scope::WorkItem && exact == path.end()) {
        id = node_count + static_cast<std::uint32_t>(t);
      } else if (exact != path.end()) {
        id = static_cast<std::uint32_t>(*exact);
      } else if (narrower != path.end()) {
        id = static_cast<std::uint32_t>(*narrower);  // the implicit instance around it
      } else {
        id = node_count + static_cast<std::uint32_t>(t);
      }
      instances_[static_cast<std::size_t>(t)][static_cast<std::size_t>(level)] = id;
    }
  }
  resolved_ = true;
  return true;
}

std::uint32_t ScopeTree::instance(int thread, Scope level) const {
  if (!resolved_ || thread < 0 || thread >= thread_count())
    throw std::logic_error("ScopeTree::instance on an unresolved tree or a bad thread");
  return instances_[static_cast<std::size_t>(thread)][static_cast<std::size_t>(level)];
}

bool ScopeTree::one_instance(Scope level) const {
  for (int t = 1; t < thread_count(); ++t)
    if (!same_instance(0, t, level)) return false;
  return true;
}

Scope ScopeTree::common_scope(int a, int b) const {
  for (Scope level : kAllScopes)
    if (same_instance(a, b, level)) return level;
  return Scope::System;
}

}  // namespace hsalit::litmus
