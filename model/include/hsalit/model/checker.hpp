// Checking a litmus test against the model: the allowed final states, whether the program
// is racy (undefined), and the verdict of its final condition.
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hsalit/litmus/ast.hpp"
#include "hsalit/model/execution.hpp"
#include "hsalit/model/program.hpp"
#include "hsalit/support/interrupt.hpp"
#include "hsalit/support/memory.hpp"
#include "hsalit/support/recently_used.hpp"

namespace hsalit::model {

// Auto picks one of the other two per test (choose_engine).
enum class Engine : std::uint8_t { Z3, Enum, Auto };
std::string_view to_string(Engine e);
std::optional<Engine> engine_from_string(std::string_view text);  // "z3", "enum" or "auto"

// One final state: a value per observed register or location, in `CheckResult::observed`
// order (then the extra references a filter reads).
struct Outcome {
  std::vector<Value> values;
  friend bool operator==(const Outcome&, const Outcome&) = default;
  friend auto operator<=>(const Outcome&, const Outcome&) = default;
};

struct CheckOptions {
  ModelVariant variant = ModelVariant::Hsa;
  Engine engine = Engine::Z3;   // Auto: choose_engine's pick for each test (the CLI's default)
  double timeout_seconds = 60;  // per test; exceeding it gives `unknown`
  // The process's resident memory past which a check gives up (`unknown`; 0: no limit),
  // read every few milliseconds where the time limit is checked. The default is half of
  // physical memory (support::default_memory_limit).
  std::uint64_t memory_limit = support::default_memory_limit();
  std::size_t max_candidates = 20'000'000;  // enumeration bound of the `enum` engine
  bool want_graph = false;                  // build a witness execution graph
  // Stop at the first race found: the result is racy, and its outcomes and verdict cover only
  // the executions enumerated before (a racy program's behaviour is undefined, HSA SysArch
  // 3.12, so a caller that only asks whether it races loses nothing). Race-free results are
  // unchanged. A race that `certain_race` finds without enumerating is reported at once,
  // with no outcomes, by either engine (unless `want_graph`); otherwise the enum engine
  // honours it and the Z3 engine computes everything regardless.
  bool stop_at_race = false;
  // When set, the caller asks only which of these outcomes (over CheckResult::evaluated) are
  // allowed, and whether the program races. If it cannot race (`may_race`), the enum engine
  // evaluates only the candidate executions whose outcome is one of them, until all are
  // found, and marks the result `partial`: its outcomes, counts and verdict then cover only
  // these. A program that may race is checked whole. An empty set asks only whether the
  // program races, which the enum engine answers at once for a program that cannot
  // (`cannot_race`). The Z3 engine ignores it.
  const std::set<Outcome>* only_outcomes = nullptr;
};

struct RaceReport {
  int first_event = -1, second_event = -1;
  std::string first, second;  // `P0:1 w[] x 1`
  Conflict kind = Conflict::None;
};

enum class Verdict : std::uint8_t { Ok, No, Unknown };
std::string_view to_string(Verdict v);

struct CheckResult {
  std::string name;
  ModelVariant variant = ModelVariant::Hsa;
  Engine engine = Engine::Z3;                  // the engine that ran (never Auto)
  std::string engine_reason;                   // why Engine::Auto chose it; empty for a named engine
  std::vector<litmus::ObservedRef> observed;   // what an outcome reports
  std::vector<litmus::ObservedRef> evaluated;  // observed, then what only the filter reads
  std::vector<Outcome> outcomes;               // sorted, distinct, over `evaluated`
  bool partial = false;                        // outcomes only among CheckOptions::only_outcomes
  bool racy = false;
  std::optional<RaceReport> race;
  std::size_t positive = 0, negative = 0;     // outcomes satisfying the condition or not
  Verdict verdict = Verdict::Unknown;         // of the final condition
  std::optional<std::string> unknown_reason;  // set iff the model could not decide
  std::optional<ExecutionGraph> graph;        // the race, or an execution satisfying the condition
  double time_ms = 0;

  bool unknown() const { return unknown_reason.has_value(); }
};

CheckResult check(const litmus::Test& test, const CheckOptions& options = {});

// The candidate executions the enum engine would list for a program, bounded from its
// static events alone: per read, the writes to its location plus the initial value (every
// location for a read through a register); per location, the orders of its writes (n!).
// Thread runs with branches count as if every event ran. Each product saturates at 1e18.
struct CandidateEstimate {
  double rf_choices = 1;  // product over the reads
  double co_orders = 1;   // product over the locations
};
CandidateEstimate estimate_candidates(const Program& program);

// Where Engine::Auto switches from the enum engine to Z3, set by measurement
// (docs/PERFORMANCE.md, "Engine auto"). Per process the enum engine answers a small test in
// about 0.1 ms where Z3 pays about 10 ms for its context alone; the enum engine's time
// grows with the candidates, Z3's far more slowly. They cross between 16,384 and 65,536 rf
// choices (IRIW-7 and IRIW-8, one write per location) and between 14,400 and 518,400
// coherence orders (six threads writing x and y); with both, coherence prunes the rf
// choices, and the enum engine stays faster up to about a million.
inline constexpr double kAutoEnumMaxChoices = 32'768;        // rf choices, and coherence orders
inline constexpr double kAutoEnumMaxCandidates = 1'048'576;  // their product

struct EngineChoice {
  Engine engine = Engine::Enum;  // Z3 or Enum
  CandidateEstimate estimate;
  std::string reason;  // for a person: the estimate, and which way it points
};

// Engine::Auto's choice for a program: the enum engine where the estimate is within
// kAutoEnumMaxChoices and kAutoEnumMaxCandidates, Z3 beyond.
EngineChoice choose_engine(const Program& program);

namespace detail {
struct CandidateList;
}

// The enum engine's candidate executions, kept between checks of programs that differ only
// in the orders, scopes and atomicity of their accesses and fences (the tests of one
// variation space of a bound). Which candidates the engine lists (thread runs, rf, co)
// depends on none of these, only whether each is consistent or racy does, so a later check
// of such a program evaluates the kept list, in the same order, instead of listing it again:
// the same result, race witness and deadline behaviour (docs/model.md, "Candidates kept
// between checks"). Thread-safe; keeps the lists of the `capacity` latest programs, each of
// at most `max_candidates` candidates (a longer one is not kept).
class CandidateMemo : public support::RecentlyUsed<detail::CandidateList> {
 public:
  explicit CandidateMemo(std::size_t capacity = 4, std::size_t max_candidates = 50'000)
      : RecentlyUsed(capacity), max_candidates_(max_candidates) {}

  std::size_t max_candidates() const { return max_candidates_; }

 private:
  std::size_t max_candidates_;
};

// check() with the enum engine's candidates kept in `memo` (the Z3 engine ignores it).
CheckResult check(const litmus::Test& test, const CheckOptions& options, CandidateMemo& memo);

// Whether `prop` holds in `outcome` (values over `refs`).
bool holds(const litmus::Prop& prop, const std::vector<litmus::ObservedRef>& refs, const Outcome& outcome,
           const Program& program);

// A deadline shared by the engines, with the memory limit they honour beside it. One per
// check, used by one thread.
class Deadline {
 public:
  explicit Deadline(double seconds, std::uint64_t memory_limit = 0)
      : end_(std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                    std::chrono::duration<double>(std::min(seconds, 1e9)))),
        memory_limit_(memory_limit) {}
  bool passed() const { return std::chrono::steady_clock::now() > end_; }
  double seconds_left() const { return std::chrono::duration<double>(end_ - std::chrono::steady_clock::now()).count(); }
  // Why the work must stop: "time limit", the memory limit (the resident set is read at most
  // every 10 ms), or "interrupted" (support::interrupted); nullopt to go on.
  std::optional<std::string> stop_reason() const {
    if (support::interrupted()) return "interrupted";
    const auto now = std::chrono::steady_clock::now();
    if (now > end_) return "time limit";
    if (memory_limit_ > 0 && now >= next_memory_check_) {
      next_memory_check_ = now + std::chrono::milliseconds(10);
      if (support::over_memory_limit(memory_limit_)) return support::memory_limit_reason(memory_limit_);
    }
    return std::nullopt;
  }

 private:
  std::chrono::steady_clock::time_point end_;
  std::uint64_t memory_limit_;
  mutable std::chrono::steady_clock::time_point next_memory_check_{};
};

}  // namespace hsalit::model
