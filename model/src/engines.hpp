// The two engines behind `check`: both compute the same thing (the outcomes of the
// consistent executions, and whether one of them has a race) by different means.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "hsalit/model/checker.hpp"
#include "hsalit/model/execution.hpp"
#include "interpreter.hpp"

namespace hsalit::model::detail {

// Every candidate execution the enum engine listed for a program, in the order it listed
// them, with the thread runs they were built from (CandidateMemo).
struct CandidateList {
  struct Candidate {
    std::vector<std::size_t> runs;  // per thread, the index of its run in `runs`
    ConcreteExecution execution;
    Outcome outcome;  // over `refs`: it depends on the execution, not on orders or scopes
  };
  std::vector<std::vector<ThreadRun>> runs;  // per thread
  std::vector<litmus::ObservedRef> refs;     // what each candidate's outcome holds
  std::vector<Candidate> candidates;
  // Per outcome, the indices of its candidates in `candidates`, ascending: a question about
  // some outcomes of a program that cannot race evaluates only those (filled once complete).
  std::map<Outcome, std::vector<std::uint32_t>> by_outcome;
  bool complete = false;  // every candidate of the program is listed
};

struct EngineQuery {
  const Program& program;
  const CheckOptions& options;
  const std::vector<litmus::ObservedRef>& refs;  // what an outcome holds
  const litmus::Prop* filter;                    // executions failing it are discarded
  const litmus::Prop& condition;                 // for the witness execution
  const Deadline& deadline;
  // Enum engine only, at most one of them: evaluate this list instead of listing the
  // candidates, or list them into `record` (complete only if the engine returns without
  // `unknown` and sets `record->complete`; at most `record_limit` candidates).
  const CandidateList* replay = nullptr;
  CandidateList* record = nullptr;
  std::size_t record_limit = 0;
  // An explanation's listing (model/src/explain.cpp), instead of an evaluation: every
  // candidate goes to `visit` with its outcome, and none is evaluated. The co orders that
  // the coherence filters and update atomicity rule out are listed too (the model forbids
  // them, and the explanation names why), and so are the run choices the value masks drop.
  // `visit` returns false to stop the listing.
  std::function<bool(const ConcreteExecution&, const Outcome&)> visit = nullptr;
  // With `visit`: values every location's value domain starts with, beside its initial value.
  // The domains are the least fixpoint of what runs write, which holds no value out of thin
  // air; an explanation seeds them with its state's values so that such a state has
  // candidates, and the model's reason (gdo, 3.8) can be named.
  std::vector<Value> seed_values = {};
};

struct EngineResult {
  std::set<Outcome> outcomes;
  std::optional<std::pair<ConcreteExecution, RaceWitness>> race;
  std::optional<ConcreteExecution> satisfying;  // an execution whose outcome satisfies the condition
  std::optional<std::string> unknown;           // why the engine could not decide
  bool partial = false;                         // only CheckOptions::only_outcomes were sought
};

EngineResult run_enum_engine(const EngineQuery& q);
EngineResult run_z3_engine(const EngineQuery& q);

// The outcome of a concrete execution given the final registers of each thread.
Outcome outcome_of(const Program& p, const ConcreteExecution& x,
                   std::span<const std::map<std::string, Value>* const> registers,
                   const std::vector<litmus::ObservedRef>& refs);

}  // namespace hsalit::model::detail
