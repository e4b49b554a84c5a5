// The scope tree of a litmus test: which threads share a wavefront, work-group and agent.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "hsalit/litmus/source.hpp"

namespace hsalit::litmus {

class DiagnosticList;

// HSA scopes, narrowest first (HSA SysArch 3.3.6): work-item, wavefront, work-group,
// agent (component), system. Comparison follows inclusion: WorkGroup < Agent.
enum class Scope : std::uint8_t { WorkItem, Wavefront, WorkGroup, Agent, System };
inline constexpr std::array<Scope, 5> kAllScopes = {Scope::WorkItem, Scope::Wavefront, Scope::WorkGroup, Scope::Agent,
                                                    Scope::System};

std::string_view to_string(Scope scope);  // wi, wave, wg, agent, system
// Accepts the canonical names and the common spellings (wavefront, workgroup, component,
// cmp, sys, workitem).
std::optional<Scope> scope_from_string(std::string_view text);

// One explicit group of the tree, e.g. `(wg 0 1)`. Children are groups or threads, kept
// in source order so that the tree prints back as written.
struct ScopeNode {
  struct Child {
    bool is_thread = false;
    int index = 0;  // a thread id, or an index into ScopeTree::nodes()
    friend bool operator==(const Child&, const Child&) = default;
  };
  Scope level = Scope::System;
  std::vector<Child> children;
  SourcePos pos;
  friend bool operator==(const ScopeNode& a, const ScopeNode& b) {
    return a.level == b.level && a.children == b.children;
  }
};

// A forest of scope groups plus the rule for skipped levels: a thread that no explicit
// group places at some level is alone at that level, except that a skipped level above an
// explicit group is shared by everything inside that group (so `(wg 0 1)` at top level puts
// threads 0 and 1 in one agent). All threads share the one system.
class ScopeTree {
 public:
  // Nodes are added children first or parents first; `add_node` returns the node's index.
  int add_node(ScopeNode node);
  void add_root(int node) { roots_.push_back(node); }
  const std::vector<ScopeNode>& nodes() const { return nodes_; }
  const std::vector<int>& roots() const { return roots_; }

  // True when the test had no `scopes:` line and this tree is the default one.
  bool is_default() const { return default_; }

  // The default tree: every thread in its own work-group of one agent.
  static ScopeTree default_for(int thread_count);

  // A thread the tree places that the test does not have, and the group that places it.
  struct StrayThread {
    int thread = 0;
    SourcePos group;
  };
  // The same tree without the threads numbered `thread_count` and above, and without the
  // groups that held nothing else (herd7 runs such a test: the tree is only consulted for the
  // threads that exist). Returns the threads it dropped; a tree without any is left as it is.
  std::vector<StrayThread> drop_threads_from(int thread_count);

  // Checks the tree against the threads of the test (every thread exactly once, levels
  // strictly narrowing inwards, a work-item group holds one thread) and computes the
  // scope instances. Returns false and reports into `diags` on error.
  bool resolve(int thread_count, DiagnosticList& diags);
  bool resolved() const { return resolved_; }

  int thread_count() const { return static_cast<int>(instances_.size()); }
  // An identifier of the scope instance of `thread` at `level`, equal for two threads iff
  // they are in the same instance. Requires a resolved tree.
  std::uint32_t instance(int thread, Scope level) const;
  bool same_instance(int a, int b, Scope level) const { return instance(a, level) == instance(b, level); }
  // Whether every thread lies in one instance at `level` (true for a single thread).
  bool one_instance(Scope level) const;
  // The narrowest level at which two threads share an instance.
  Scope common_scope(int a, int b) const;

  // Equality compares the structure only (not the computed instances or positions).
  friend bool operator==(const ScopeTree& a, const ScopeTree& b) {
    return a.default_ == b.default_ && a.nodes_ == b.nodes_ && a.roots_ == b.roots_;
  }

 private:
  std::vector<ScopeNode> nodes_;
  std::vector<int> roots_;
  bool default_ = false;
  bool resolved_ = false;
  std::vector<std::array<std::uint32_t, 5>> instances_;  // per thread, per Scope
};

}  // namespace hsalit::litmus
