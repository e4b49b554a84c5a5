// Proving a mapping table correct up to a bound (docs/verification.md): for every litmus
// test the model calls race-free, every final state the simulator reaches with the test
// compiled by the table must be one the model allows (HSA SysArch 3.12: a race-free
// program's behaviours are those of its valid candidate executions). A final state the
// model forbids is a counterexample; it is minimised and reported with the table rows that
// produced its code and the simulator's trace.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/litmus/ast.hpp"
#include "hsalit/model/checker.hpp"
#include "hsalit/runner/sim.hpp"

namespace hsalit::verify {

struct VerifyOptions {
  std::string target = "gfx900";
  codegen::CompileOptions compile;
  runner::SimOptions sim;
  model::CheckOptions model;
  bool minimise = true;  // shrink each counterexample
  int jobs = 1;          // tests verified in parallel by verify_tests
  // When set and not the engine that answered: every counterexample's forbidden final states
  // are checked again by this engine (Auto: by the other of the two); a disagreement makes the
  // test unknown (naming both), and if this engine gives up the counterexample stands, its
  // reason saying so.
  std::optional<model::Engine> confirm_engine;
};

enum class TestStatus : std::uint8_t {
  Sound,           // every reachable final state is allowed
  Counterexample,  // the simulator reaches a final state the model forbids
  Racy,            // the model says the program is racy (undefined): nothing to check
  Unsupported,     // the table or target cannot compile it, or it has a filter
  Unknown,         // the model or the simulator gave up (bound, time)
};
std::string_view to_string(TestStatus status);

// Which table row produced the code of one litmus instruction.
struct RowUse {
  int thread = 0;
  int instruction = 0;  // index in the litmus thread's code
  std::string litmus;   // the litmus instruction, `w[atomic,screl,agent] y 1`
  std::string row;      // the row id
  std::string source;   // where the row comes from: document, table, row
};

struct Counterexample {
  std::string found_in;  // the generated or given test it was found on
  litmus::Test test;     // minimised when asked; its condition is the forbidden outcome
  bool minimised = false;
  std::string outcome;       // `1:r0=1; 1:r1=0;`
  std::vector<RowUse> rows;  // the rows used by the test's code
  std::string assembly;      // the compiled test, rows annotated
  std::string placement;     // where the simulator placed the threads
  std::vector<std::string> trace;
};

struct TestVerification {
  std::string name;
  TestStatus status = TestStatus::Unknown;
  std::string reason;  // one line: why this status
  litmus::Test test;   // observing every register and location
  std::optional<model::CheckResult> model;
  std::optional<codegen::CompiledTest> compiled;
  std::optional<runner::SimResult> sim;
  std::vector<runner::SimOutcome> forbidden;  // reached and not allowed
  std::optional<Counterexample> counterexample;
  // Unsupported because the table has no row for an operation of the test: the operation
  // (`load atomic acquire agent global`), for the list of missing rows.
  std::string missing_row;
  double seconds = 0;
};

// What verifications of the same tests share. The model's answers do not depend on the
// mapping: computed once per test and shared by every verification of it (the mutants of
// --mutate included); they are never removed, so the references stay valid. Exhaustive
// simulations are kept by the code simulated (runner::SimulationMemo), when asked: tests
// whose orders or scopes compile to the same instructions are searched once. Safe to share
// between threads.
class VerificationCache {
 public:
  // `candidates`: the tests checked differ only in orders and scopes (one variation space,
  // or the spaces of a bound), so the enum engine's candidate executions are listed once
  // per program and kept there (model::CandidateMemo, which other caches may share); null:
  // listed at every check. `kept_simulations`: how many of the latest simulations to keep
  // (none: every simulation searches).
  explicit VerificationCache(std::shared_ptr<model::CandidateMemo> candidates = nullptr,
                             std::size_t kept_simulations = 0);

  const model::CheckResult& check(const litmus::Test& test, const model::CheckOptions& options);
  // check() through the kept candidates, the result not kept: for a caller that keeps its
  // answers under a key of its own (a bound's search, by the choices of its slots).
  model::CheckResult check_once(const litmus::Test& test, const model::CheckOptions& options);
  // Which of `sought` the test allows, and whether it races: check_once() with
  // CheckOptions::only_outcomes (the result may be model::CheckResult::partial).
  model::CheckResult check_within(const litmus::Test& test, model::CheckOptions options,
                                  const std::set<model::Outcome>& sought);
  // runner::run_exhaustive, through the kept simulations if any (there from `lowered`, the
  // code lowered already, when given).
  std::shared_ptr<const runner::SimResult> simulate(const litmus::Test& test, const codegen::CompiledTest& compiled,
                                                    const runner::SimOptions& options,
                                                    const runner::LoweredProgram* lowered = nullptr);

 private:
  std::mutex mutex_;
  std::map<std::string, model::CheckResult> results_;
  std::shared_ptr<model::CandidateMemo> candidates_;
  std::optional<runner::SimulationMemo> simulations_;
};

// The test with a `locations` line naming every register a load or rmw writes and every
// location, so that outcomes are whole final states, not only what the condition names.
litmus::Test observe_everything(const litmus::Test& test);

// The test with its condition replaced by `exists` the final state `values` of `refs` (how
// counterexamples are reported); the test unchanged if that test does not check.
litmus::Test with_outcome(const litmus::Test& test, const std::vector<litmus::ObservedRef>& refs,
                          const std::vector<std::int64_t>& values);

// A counterexample's outcome part, from a verification with a forbidden final state: the
// first such state, the test whose condition asks for it, and the simulator's trace and
// placement that reach it. The rows and the assembly are the caller's to add (a table's rows
// for verify-mapping, llc's instructions for verify-llc).
Counterexample counterexample_outcome(const TestVerification& v);

// Why a racy test is not judged: `racy (HSA SysArch 3.12): A and B`.
std::string racy_reason(const model::CheckResult& result);

// The simulator's final states that the model does not allow (HSA SysArch 3.12: a race-free
// program's behaviours are those of its valid candidate executions), or why the two cannot
// be compared (they observe different registers and locations).
// Where each of the simulator's columns (`observed`) lies among the model's (`evaluated`):
// `at[i]` for the simulator's column i, or why they cannot be compared.
struct ColumnMap {
  std::vector<std::size_t> at;
  std::optional<std::string> incomparable;
  // A simulated final state read in the model's order of its `columns` columns.
  model::Outcome in_model_order(const runner::SimOutcome& outcome, std::size_t columns) const;
};
ColumnMap model_columns(const std::vector<litmus::ObservedRef>& evaluated,
                        const std::vector<litmus::ObservedRef>& observed);

struct Containment {
  std::vector<runner::SimOutcome> forbidden;
  std::vector<model::Outcome> forbidden_in_model;  // the same, over the model's `evaluated` columns
  std::optional<std::string> incomparable;
};
Containment contained(const model::CheckResult& allowed, const runner::SimResult& sim);

// Verifies one test. Never throws for a test the table or target cannot express (that is
// Unsupported, with the reason).
TestVerification verify_test(const litmus::Test& test, const codegen::MappingTable& table, const VerifyOptions& options,
                             VerificationCache& cache);

// Shrinks a counterexample: drops threads and instructions while the test stays a
// race-free counterexample; the result's condition is `exists` the forbidden outcome.
// nullopt when `test` is not a counterexample.
std::optional<Counterexample> minimise(const litmus::Test& test, const codegen::MappingTable& table,
                                       const VerifyOptions& options, VerificationCache& cache);

struct VerifyReport {
  std::vector<TestVerification> tests;
  // Sound and racy tests counted but not kept (a generated bound checks millions).
  std::size_t omitted_sound = 0, omitted_racy = 0;
  // Why the run stopped before judging every test (BoundOptions::time_limit_seconds:
  // `time limit of S s reached after N of M spaces`); the verdict is then unknown.
  std::optional<std::string> stopped;
  std::size_t count(TestStatus status) const;  // kept and omitted
  std::size_t total() const { return tests.size() + omitted_sound + omitted_racy; }
  // No counterexample was found. Whether every test was judged is judged_all(): only both
  // together make the verdict "sound".
  bool sound() const { return count(TestStatus::Counterexample) == 0; }
  // Every test sound, racy or a counterexample: none unsupported (a table without a row the
  // test needs, a filter) nor unknown (the model or the simulator gave up). A generated bound
  // decides most of its tests without keeping them (facts 9 and 10 whole spaces): those count
  // as judged.
  bool judged_all() const { return !stopped && count(TestStatus::Unsupported) == 0 && count(TestStatus::Unknown) == 0; }
  bool verified_sound() const { return sound() && judged_all(); }
};

// `sound up to the bound`, `N counterexamples`, `unknown: <why the run stopped>` or
// `unknown: N of M tests not judged (U unsupported, K unknown)`: sound only when every test
// was judged.
std::string verdict_text(const VerifyReport& report);

// The operations a table has no row for, among the report's unsupported tests: sorted,
// without duplicates.
std::vector<std::string> missing_rows(const VerifyReport& report);

// Verifies each test, with `options.jobs` threads; the report keeps the order of `tests`.
// `progress` (optional) is called after each test, one call at a time.
VerifyReport verify_tests(std::span<const litmus::Test> tests, const codegen::MappingTable& table,
                          const VerifyOptions& options, VerificationCache& cache,
                          const std::function<void(const TestVerification&)>& progress = {});

// The rows the compiled tests use, by id (for the mutation of --mutate).
std::vector<std::string> rows_used(const VerifyReport& report);

// Text for people: `sound up to the bound` or the counterexamples: the first `detailed` in
// full (test, rows, code, trace), the others a line each (at most 200 lines).
std::string render_text(const VerifyReport& report, std::string_view table, std::string_view target,
                        std::string_view bound, std::size_t detailed = SIZE_MAX);

}  // namespace hsalit::verify
