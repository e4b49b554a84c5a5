// What `hsalit run` prints for one test, whichever backend ran it: the condition's witnesses,
// the histogram as JSON, and the litmus7-style text up to the Observation line.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>

#include <nlohmann/json.hpp>

#include "hsalit/litmus/ast.hpp"
#include "hsalit/runner/sim.hpp"

namespace hsalit::cli {

struct ConditionCount {
  std::uint64_t positive = 0, negative = 0;  // runs whose final state satisfies the condition, or not
  bool validated = false;                    // the condition holds over the histogram
};
ConditionCount count_condition(const litmus::Test& test, const runner::SimResult& r);

// Makes `r` unknown, with the reason, when some value the model can compute for the test may
// leave the backends' 32-bit values (litmus/value_width.hpp): the histogram then holds values
// the backend wrapped, and the condition's verdict on it says nothing of the test.
void mark_values_beyond_width(const std::filesystem::path& file, const litmus::Test& test, runner::SimResult& r);

// [{"outcome": {ref: value}, "count": n, "satisfies": bool}, ...]
nlohmann::json histogram_json(const litmus::Test& test, const runner::SimResult& r);

// The fields of `run --json` that every backend gives (schema hsalit-run/1): the test, the
// backend, target and mode, the histogram, the condition's counts and verdict, iterations run
// and asked for, and seconds. Each backend adds its own.
nlohmann::json run_json(const litmus::Test& test, const std::filesystem::path& file, std::string_view backend,
                        std::string_view target, std::string_view mode, const runner::SimResult& r,
                        const ConditionCount& c, std::uint64_t iterations_requested);

// `Test`, `Histogram`, `Ok`/`No`/`Unknown`, `Witnesses`, `Condition` and `Observation` lines.
void print_histogram(const litmus::Test& test, const runner::SimResult& r, const ConditionCount& c);

}  // namespace hsalit::cli
