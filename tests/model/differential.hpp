// Checking one test with both model engines and describing any difference; shared by the
// differential GoogleTest (differential_test.cpp) and the nightly driver
// (differential_main.cpp).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "hsalit/litmus/ast.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/litmus/random_test.hpp"
#include "hsalit/model/checker.hpp"
#include "sc_interleavings.hpp"

namespace hsalit::testing {

// An outcome as `1:r0=1; x=2` over the references it reports.
inline std::string describe_outcome(const std::vector<litmus::ObservedRef>& refs,
                                    const model::Outcome& o) {
  std::string out;
  for (std::size_t i = 0; i < refs.size() && i < o.values.size(); ++i)
    out += fmt::format("{}{}={}", i ? "; " : "", refs[i].to_string(), o.values[i]);
  return out;
}

// The outcomes of `a` that `b` lacks, one per line (at most `limit`).
inline std::string outcomes_missing(const model::CheckResult& a, const model::CheckResult& b,
                                    std::size_t limit = 8) {
  std::vector<model::Outcome> only;
  std::set_difference(a.outcomes.begin(), a.outcomes.end(), b.outcomes.begin(), b.outcomes.end(),
                      std::back_inserter(only));
  std::string out;
  for (std::size_t i = 0; i < only.size() && i < limit; ++i)
    out += "    " + describe_outcome(a.evaluated, only[i]) + "\n";
  if (only.size() > limit) out += fmt::format("    ... and {} more\n", only.size() - limit);
  return out;
}

inline std::string describe_result(const model::CheckResult& r) {
  if (r.unknown()) return fmt::format("unknown ({})", *r.unknown_reason);
  std::string race = r.race ? fmt::format(" [{} / {}]", r.race->first, r.race->second) : "";
  return fmt::format("{} outcomes, {}{}, condition {} ({} positive, {} negative), {:.1f} ms",
                     r.outcomes.size(), r.racy ? "racy" : "race-free", race, to_string(r.verdict),
                     r.positive, r.negative, r.time_ms);
}

// The verdict a library sidecar names: racy, else allowed iff some outcome satisfies the
// condition's proposition, else forbidden.
inline std::string library_verdict(const model::CheckResult& r) {
  if (r.racy) return "racy";
  return r.positive ? "allowed" : "forbidden";
}

struct EngineComparison {
  bool agree = false;
  bool undecided = false;  // an engine answered unknown
  std::string difference;  // empty when they agree
  model::CheckResult z3, enumeration;
};

// Both engines on one test: same outcome set, same racy verdict, same condition verdict,
// and neither unknown.
inline EngineComparison compare_engines(const litmus::Test& test, model::ModelVariant variant,
                                        double timeout_seconds = 120) {
  EngineComparison c;
  model::CheckOptions options;
  options.variant = variant;
  options.timeout_seconds = timeout_seconds;
  options.engine = model::Engine::Z3;
  c.z3 = model::check(test, options);
  options.engine = model::Engine::Enum;
  c.enumeration = model::check(test, options);
  std::string why;
  if (c.z3.unknown()) why += "  z3 answered unknown\n";
  if (c.enumeration.unknown()) why += "  enum answered unknown\n";
  c.undecided = !why.empty();
  if (why.empty()) {
    if (c.z3.outcomes != c.enumeration.outcomes) {
      why += "  outcome sets differ\n";
      if (std::string s = outcomes_missing(c.z3, c.enumeration); !s.empty())
        why += "  only z3:\n" + s;
      if (std::string s = outcomes_missing(c.enumeration, c.z3); !s.empty())
        why += "  only enum:\n" + s;
    }
    if (c.z3.racy != c.enumeration.racy) why += "  racy verdicts differ\n";
    if (c.z3.verdict != c.enumeration.verdict || c.z3.positive != c.enumeration.positive)
      why += "  condition verdicts differ\n";
  }
  c.agree = why.empty();
  if (!c.agree)
    c.difference = fmt::format("model {}:\n{}  z3:   {}\n  enum: {}\n", to_string(variant), why,
                               describe_result(c.z3), describe_result(c.enumeration));
  return c;
}

// Every outcome of an SC interleaving must be an outcome of the model (an SC execution is
// consistent under every variant). Returns a description of the SC outcomes `r` lacks.
inline std::string sc_outcomes_missing(const litmus::Test& test, const model::CheckResult& r) {
  std::vector<model::Outcome> missing;
  for (const model::Outcome& o : ScInterleavings(test, r.evaluated).outcomes())
    if (!std::binary_search(r.outcomes.begin(), r.outcomes.end(), o)) missing.push_back(o);
  if (missing.empty()) return {};
  return fmt::format(
      "model {}: {} outcome(s) of SC interleavings missing from the model's "
      "outcomes, e.g. {}\n",
      to_string(r.variant), missing.size(), describe_outcome(r.evaluated, missing.front()));
}

// How a failure reads: the seed, the difference, and the test as a file.
inline std::string describe_failure(std::uint64_t seed, const litmus::Test& test,
                                    const std::string& difference) {
  return fmt::format("seed {}\n{}--- test (save as {}.litmus) ---\n{}", seed, difference, test.name,
                     litmus::print_litmus(test));
}

}  // namespace hsalit::testing
