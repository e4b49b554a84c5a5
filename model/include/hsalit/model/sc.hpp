// The final states of a program under sequential consistency: every interleaving of its
// threads' memory operations, each atomic and reading the latest write to its cell.
//
// Each of them is a final state the model allows whenever the program is race-free, under
// every variant: an SC interleaving is a valid candidate execution whose coherence and sc
// orders are the interleaving itself, and its happens-before only points forward along it
// (HSA SysArch 3.8 to 3.12; the same argument as `certain_race`). Callers use this as a
// lower bound of an allowed set that needs no candidate enumeration; tests/model checks it
// against an independent enumerator and against both engines.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "hsalit/model/checker.hpp"
#include "hsalit/model/program.hpp"

namespace hsalit::model {

struct ScOutcomes {
  std::vector<Outcome> outcomes;              // sorted, distinct, over the columns asked for
  std::optional<std::string> unknown_reason;  // set when they were not computed
  std::size_t states = 0;                     // distinct states visited
};

// Every SC final state of `p`, over `columns` (registers `T:r`, locations; a location reads
// the copy Program::observed_copy names). Not computed (unknown_reason) for an unsupported
// program, a filter, barriers, an access to an address that is no location, or more than
// `max_states` states.
ScOutcomes sc_outcomes(const Program& p, std::span<const litmus::ObservedRef> columns,
                       std::size_t max_states = 1'000'000);

}  // namespace hsalit::model
