// Test helpers shared by the test executables that simulate: whether a search reached only
// final states of SC interleavings.
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

#include "hsalit/litmus/ast.hpp"
#include "hsalit/model/checker.hpp"
#include "hsalit/model/program.hpp"
#include "hsalit/model/sc.hpp"
#include "hsalit/runner/sim.hpp"

namespace hsalit::test_support {

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

}  // namespace hsalit::test_support
