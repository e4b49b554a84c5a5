// The two engines behind `check`: both compute the same thing (the outcomes of the
// consistent executions, and whether one of them has a race) by different means.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "hsalit/model/checker.hpp"
#include "hsalit/model/execution.hpp"

namespace hsalit::model::detail {

struct EngineQuery {
  const Program& program;
  const CheckOptions& options;
  const std::vector<litmus::ObservedRef>& refs;  // what an outcome holds
  const litmus::Prop* filter;                    // executions failing it are discarded
  const litmus::Prop& condition;                 // for the witness execution
  const Deadline& deadline;
};

struct EngineResult {
  std::set<Outcome> outcomes;
  std::optional<std::pair<ConcreteExecution, RaceWitness>> race;
  std::optional<ConcreteExecution> satisfying;  // an execution whose outcome satisfies the condition
  std::optional<std::string> unknown;           // why the engine could not decide
};

EngineResult run_enum_engine(const EngineQuery& q);
EngineResult run_z3_engine(const EngineQuery& q);

// The outcome of a concrete execution given the final registers of each thread.
Outcome outcome_of(const Program& p, const ConcreteExecution& x,
                   std::span<const std::map<std::string, Value>* const> registers,
                   const std::vector<litmus::ObservedRef>& refs);

}  // namespace hsalit::model::detail
