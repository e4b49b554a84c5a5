// Why the model forbids a final state: for every candidate execution that ends in it, the
// axiom it fails and a shortest cycle in the order that axiom asks for, each edge with its
// rule and spec section (HSA SysArch chapter 3); for a racy program, the racing pair and the
// hhb it lacks. Computed on request only (`check --explain`): the candidates are listed by
// the enum engine and each is judged by `evaluate_execution` as in a check, and only then
// is the cycle searched for, on graphs built from the candidate's relations (Boost.Graph).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "hsalit/litmus/ast.hpp"
#include "hsalit/model/checker.hpp"

namespace hsalit::model {

// A final state to explain: values for some registers and locations (`1:r0=1; 1:r1=0;`, as
// check prints an outcome, or `1:r0=1 /\ 1:r1=0`, as a condition states it).
struct StateQuery {
  std::vector<litmus::ObservedRef> refs;
  std::vector<Value> values;
};

// Parses STATE against `test`; nullopt with `error` set when it names a thread the test lacks,
// a reference twice, or a value that is neither a number nor a location.
std::optional<StateQuery> parse_state(std::string_view text, const litmus::Test& test, std::string& error);

// One edge of a cycle: a pair of a base relation of the candidate execution.
struct ExplainedEdge {
  int from = 0, to = 0;  // indices into Explanation::events
  std::string relation;  // po, rf, co, fr, sso, ldo
  std::string rule;      // why the pair is in the relation, for a person
  std::string section;   // of HSA SysArch, e.g. "3.9"
};

// Why one candidate execution is not valid.
struct CandidateReason {
  std::string axiom;                 // e.g. "hhb is consistent with coh"
  std::string section;               // e.g. "3.11, 3.12"
  std::string order;                 // the order that cannot exist: "hhb", "coh of x", "sc of agent 0", "gdo"
  std::vector<ExplainedEdge> cycle;  // empty when no single cycle shows it (see `detail`)
  std::string detail;                // one sentence on the reason
  std::string choice;                // the candidate's rf and co choices
  // The candidate itself, where no cycle shows the reason (the OpenCL model's axioms): its
  // graph, for explanation_to_dot.
  std::optional<ExecutionGraph> graph;
};

// The reasons of the candidates, grouped by axiom and order: the shortest cycle of the group,
// and how many candidates it stands for.
struct ReasonGroup {
  CandidateReason shortest;
  std::size_t candidates = 0;
};

struct RaceExplanation {
  int first = 0, second = 0;                                    // indices into Explanation::events
  std::string kind;                                             // ordinary or special
  std::string conflict;                                         // why the two accesses conflict
  std::vector<std::string> hhb_after_first, hhb_before_second;  // events
  std::vector<ExplainedEdge> sso;                               // every sso pair of the racing execution
  std::string why_unordered;                                    // why no hhb path joins them
  std::string choice;                                           // the racing execution's rf and co choices
  std::optional<ExecutionGraph> graph;                          // the racing execution, its race marked
};

struct Explanation {
  enum class Status : std::uint8_t { Allowed, Forbidden, Impossible, Unknown };
  std::string test;
  std::string state;  // normalised: `1:r0=1; 1:r1=0;`
  ModelVariant variant = ModelVariant::Hsa;
  Status status = Status::Unknown;
  std::optional<std::string> unknown_reason;
  std::size_t candidates = 0;                   // candidate executions that end in the state
  std::vector<std::string> events;              // every event named by the explanation: `P0:1 w[] x 1`, `init x=0`
  std::vector<ReasonGroup> groups;              // forbidden: per axiom and order, most candidates first
  std::vector<CandidateReason> per_candidate;   // forbidden: each candidate's reason (at most 64)
  std::string witness;                          // allowed: a valid candidate in that state (its rf and co)
  std::optional<ExecutionGraph> witness_graph;  // and its graph
  std::size_t filtered = 0;                     // valid candidates in the state that the filter drops
  std::vector<std::string> values_seen;         // impossible: per reference, the values candidates end with
  std::optional<RaceExplanation> race;          // the program races (it is then undefined, 3.12)
  double time_ms = 0;
};
std::string_view to_string(Explanation::Status s);

// Explains `state` of `test` under options.variant (hsa or hrf-indirect; hrf-direct, whose
// hhb is not the closure of po and sso, is `unknown`), within options.timeout_seconds and
// options.max_candidates.
Explanation explain(const litmus::Test& test, const StateQuery& state, const CheckOptions& options = {});

std::string format_explanation(const Explanation& e);
nlohmann::json explanation_to_json(const Explanation& e);
// The shortest cycle of each group and the race, as a Graphviz digraph (boost::write_graphviz);
// for an allowed state, its witness execution, or the racing execution of a racy program.
std::string explanation_to_dot(const Explanation& e);

}  // namespace hsalit::model
