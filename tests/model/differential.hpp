// Checking one test with both model engines (and against SC interleavings) and describing
// any difference; shared by the model tests (differential_test.cpp, library_verdict_test.cpp,
// c_library_verdict_test.cpp, library_verdicts.hpp, sc_property_test.cpp) and the nightly driver
// (differential_main.cpp).
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "hsalit/litmus/ast.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/litmus/random_test.hpp"
#include "hsalit/model/checker.hpp"
#include "sc_interleavings.hpp"

namespace hsalit::testing {

// The seeds of the differential tests (differential_test.cpp): fixed ranges, the same on every
// run, and one range that moves every day (from kRotatingFirstSeed); the nightly driver
// (differential_main.cpp, scripts/differential) starts after the fixed ranges.
inline constexpr std::uint64_t kHsaPerShard = 700;
inline constexpr int kHsaShards = 8;  // hsa: seeds 1 .. 5,600
inline constexpr std::uint64_t kHrfPerShard = 500;
inline constexpr int kHrfShards = 2;  // per hrf variant: from 1,000,001 (indirect), 2,000,001 (direct)
inline constexpr std::uint64_t kHrfIndirectBase = 1'000'000, kHrfDirectBase = 2'000'000;
inline constexpr std::uint64_t kOpenClPerShard = 500;
inline constexpr int kOpenClShards = 2;  // opencl: from 3,000,001, with OpenCL's annotations
inline constexpr std::uint64_t kOpenClBase = 3'000'000;
inline constexpr std::uint64_t kLastFixedSeed = kOpenClBase + kOpenClShards * kOpenClPerShard;  // 3,001,000
inline constexpr std::uint64_t kNightlyFirstSeed = kLastFixedSeed + 1;
// The rotating range: kRotatingPerDay seeds from kRotatingFirstSeed + day * kRotatingPerDay,
// day counted from 1970-01-01 (UTC), far beyond what a nightly run reaches.
inline constexpr std::uint64_t kRotatingFirstSeed = 1'000'000'000, kRotatingPerDay = 300;

// The generator's options for a model's differential tests: under the OpenCL model, OpenCL's
// annotations too (seq_cst, fences of one segment).
inline litmus::RandomTestOptions differential_options(model::ModelVariant variant, bool observe_everything) {
  litmus::RandomTestOptions options;
  options.observe_everything = observe_everything;
  if (variant == model::ModelVariant::OpenCl) {
    options.opencl_annotations = true;
  }
  return options;
}

// An outcome as `1:r0=1; x=2` over the references it reports.
inline std::string describe_outcome(const std::vector<litmus::ObservedRef>& refs, const model::Outcome& o) {
  std::string out;
  for (std::size_t i = 0; i < refs.size() && i < o.values.size(); ++i)
    out += fmt::format("{}{}={}", i ? "; " : "", refs[i].to_string(), o.values[i]);
  return out;
}

// The outcomes of `a` that `b` lacks, one per line (at most `limit`).
inline std::string outcomes_missing(const model::CheckResult& a, const model::CheckResult& b, std::size_t limit = 8) {
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
  return fmt::format("{} outcomes, {}{}, condition {} ({} positive, {} negative), {:.1f} ms", r.outcomes.size(),
                     r.racy ? "racy" : "race-free", race, to_string(r.verdict), r.positive, r.negative, r.time_ms);
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
      if (std::string s = outcomes_missing(c.z3, c.enumeration); !s.empty()) why += "  only z3:\n" + s;
      if (std::string s = outcomes_missing(c.enumeration, c.z3); !s.empty()) why += "  only enum:\n" + s;
    }
    if (c.z3.racy != c.enumeration.racy) why += "  racy verdicts differ\n";
    if (c.z3.verdict != c.enumeration.verdict || c.z3.positive != c.enumeration.positive)
      why += "  condition verdicts differ\n";
  }
  c.agree = why.empty();
  if (!c.agree)
    c.difference = fmt::format("model {}:\n{}  z3:   {}\n  enum: {}\n", to_string(variant), why, describe_result(c.z3),
                               describe_result(c.enumeration));
  return c;
}

// The model's outcomes against those of SC interleavings (sc_interleavings.hpp).
struct ScComparison {
  // SC outcomes the model lacks: a failure, since an SC execution is consistent under every
  // variant (under OpenCL, of a race-free program).
  std::string missing;
  // Model outcomes of no SC interleaving: a failure of the theorem of HSA SysArch 3.12 when
  // the test is race-free and has no relaxed atomics.
  std::string not_sc;
};

inline ScComparison compare_with_sc(const litmus::Test& test, const model::CheckResult& r) {
  const std::set<model::Outcome> sc_set = ScInterleavings(test, r.evaluated).outcomes();
  const std::vector<model::Outcome> sc(sc_set.begin(), sc_set.end());
  std::vector<model::Outcome> missing, not_sc;
  std::set_difference(sc.begin(), sc.end(), r.outcomes.begin(), r.outcomes.end(), std::back_inserter(missing));
  std::set_difference(r.outcomes.begin(), r.outcomes.end(), sc.begin(), sc.end(), std::back_inserter(not_sc));
  auto list = [&](const std::vector<model::Outcome>& outcomes) {
    std::string out;
    for (std::size_t i = 0; i < outcomes.size() && i < 8; ++i)
      out += "    " + describe_outcome(r.evaluated, outcomes[i]) + "\n";
    if (outcomes.size() > 8) out += fmt::format("    ... and {} more\n", outcomes.size() - 8);
    return out;
  };
  ScComparison c;
  // Under the OpenCL model a non-atomic read reads only a visible write (O-NaRf), so an SC
  // interleaving in which one reads a racing write is no execution of it; a racy program is
  // undefined either way.
  const bool sc_executions_are_consistent = r.variant != model::ModelVariant::OpenCl || !r.racy;
  if (!missing.empty() && sc_executions_are_consistent)
    c.missing = fmt::format("model {}: outcomes of SC interleavings that the model does not allow:\n{}",
                            to_string(r.variant), list(missing));
  if (!not_sc.empty())
    c.not_sc = fmt::format("model {}: {}, yet the model allows outcomes of no SC interleaving:\n{}",
                           to_string(r.variant), r.racy ? "racy" : "race-free", list(not_sc));
  return c;
}

// How a failure reads: the seed, the difference, and the test as a file.
inline std::string describe_failure(std::uint64_t seed, const litmus::Test& test, const std::string& difference) {
  return fmt::format("seed {}\n{}--- test (save as {}.litmus) ---\n{}", seed, difference, test.name,
                     litmus::print_litmus(test));
}

}  // namespace hsalit::testing
