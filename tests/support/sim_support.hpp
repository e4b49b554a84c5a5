// Test helpers shared by the test executables that simulate: whether a search reached only
// final states of SC interleavings, and the final states of interleavings that keep program
// order but for some pairs.
#pragma once

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "hsalit/codegen/gcn.hpp"
#include "hsalit/litmus/ast.hpp"
#include "hsalit/litmus/evaluate.hpp"
#include "hsalit/model/checker.hpp"
#include "hsalit/model/program.hpp"
#include "hsalit/model/sc.hpp"
#include "hsalit/runner/sim.hpp"

namespace hsalit::test_support {

// The instructions of every thread, one per line; without the waits unless `waits`.
inline std::string code_text(const codegen::CompiledTest& c, bool waits = true) {
  std::string all;
  for (const codegen::CompiledThread& t : c.threads)
    for (const codegen::Instruction& ins : t.code)
      if (waits || ins.mnemonic != "s_waitcnt") all += codegen::print(ins) + "\n";
  return all;
}

// Whether some final state `r` reached satisfies the test's condition (its `exists` clause).
inline bool condition_reached(const litmus::Test& test, const runner::SimResult& r) {
  for (const auto& [o, n] : r.histogram) {
    auto value = [&](const litmus::ObservedRef& ref) -> std::int64_t {
      for (std::size_t i = 0; i < r.observed.size(); ++i)
        if (r.observed[i].thread == ref.thread && r.observed[i].name == ref.name) return o.values[i];
      return 0;
    };
    if (litmus::evaluate(test.condition.prop, value, [](const std::string&) { return std::int64_t{-1}; })) return true;
  }
  return false;
}

// Whether every final state `r` reached is a final state of an SC interleaving of `test`,
// over the search's observed references; nullopt when those are not known.
inline std::optional<bool> only_sc_final_states(const litmus::Test& test, const runner::SimResult& r) {
  const model::ScOutcomes sc = model::sc_outcomes(model::Program(test), r.observed);
  if (sc.unknown_reason) return std::nullopt;
  for (const auto& [o, n] : r.histogram) {
    const model::Outcome m{std::vector<model::Value>(o.values.begin(), o.values.end())};
    if (!std::binary_search(sc.outcomes.begin(), sc.outcomes.end(), m)) return false;
  }
  return true;
}

// The final states, over `columns`, of the interleavings of `test`'s accesses, each atomic
// and reading the latest write, that keep every pair of each thread's accesses in program
// order but the pairs `unordered[thread]` (litmus instruction indices): the union of the SC
// final states of the programs whose threads take their accesses in such an order (fences
// left out: they change no value). nullopt for a thread with instructions other than
// accesses and fences, or where sc_outcomes gives up.
inline std::optional<std::set<model::Outcome>> kept_order_final_states(
    const litmus::Test& test, const std::vector<std::vector<runner::UnorderedPair>>& unordered,
    std::span<const litmus::ObservedRef> columns) {
  // Per thread, every order of its accesses that keeps the pairs not listed.
  std::vector<std::vector<std::vector<litmus::Instruction>>> orders(test.threads.size());
  for (std::size_t t = 0; t < test.threads.size(); ++t) {
    std::vector<int> accesses;
    const std::vector<litmus::Instruction>& code = test.threads[t].code;
    for (std::size_t i = 0; i < code.size(); ++i) {
      if (code[i].kind == litmus::OpKind::Fence) continue;
      if (!code[i].is_memory_access()) return std::nullopt;
      accesses.push_back(static_cast<int>(i));
    }
    auto free = [&](int a, int b) {
      return std::find(unordered[t].begin(), unordered[t].end(), runner::UnorderedPair{a, b}) != unordered[t].end();
    };
    std::vector<int> order = accesses;  // sorted: the first permutation
    do {
      bool kept = true;
      for (std::size_t i = 0; i < order.size() && kept; ++i)
        for (std::size_t j = i + 1; j < order.size() && kept; ++j)
          if (order[j] < order[i] && !free(order[j], order[i])) kept = false;
      if (!kept) continue;
      std::vector<litmus::Instruction>& out = orders[t].emplace_back();
      for (int i : order) out.push_back(code[static_cast<std::size_t>(i)]);
    } while (std::next_permutation(order.begin(), order.end()));
  }
  std::set<model::Outcome> out;
  litmus::Test program = test;
  bool known = true;
  std::function<void(std::size_t)> choose = [&](std::size_t t) {
    if (!known) return;
    if (t == test.threads.size()) {
      const model::ScOutcomes sc = model::sc_outcomes(model::Program(program), columns);
      if (sc.unknown_reason) known = false;
      out.insert(sc.outcomes.begin(), sc.outcomes.end());
      return;
    }
    for (const std::vector<litmus::Instruction>& order : orders[t]) {
      program.threads[t].code = order;
      choose(t + 1);
    }
  };
  choose(0);
  if (!known) return std::nullopt;
  return out;
}

// Per location of `test` (in the order of its locations), whether a thread other than `t`
// writes it (`on_other_cus`: every other thread may run on another CU where work-groups
// split) and whether one of another work-group does.
inline runner::OtherWriters other_writers(const litmus::Test& test, std::size_t t) {
  runner::OtherWriters out;
  for (const std::string& name : test.location_names()) {
    bool other = false, other_group = false;
    for (std::size_t u = 0; u < test.threads.size(); ++u) {
      if (u == t) continue;
      bool writes = false;
      for (const litmus::Instruction& ins : test.threads[u].code)
        writes = writes || (ins.writes_memory() &&
                            (ins.addr.base.kind != litmus::Expr::Kind::Location || ins.addr.base.name == name));
      other = other || writes;
      other_group = other_group || (writes && test.scopes.common_scope(static_cast<int>(t), static_cast<int>(u)) >
                                                  litmus::Scope::WorkGroup);
    }
    out.on_other_cus.push_back(other);
    out.in_other_workgroups.push_back(other_group);
  }
  return out;
}

}  // namespace hsalit::test_support
