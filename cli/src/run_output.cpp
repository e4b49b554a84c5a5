#include "run_output.hpp"

#include <fmt/format.h>

#include "hsalit/litmus/evaluate.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/litmus/value_width.hpp"

namespace hsalit::cli {

namespace {

bool satisfies(const litmus::Test& test, const runner::SimResult& r, const runner::SimOutcome& o) {
  auto value = [&](const litmus::ObservedRef& ref) -> std::int64_t {
    for (std::size_t i = 0; i < r.observed.size(); ++i)
      if (r.observed[i].thread == ref.thread && r.observed[i].name == ref.name) return o.values[i];
    return 0;
  };
  return litmus::evaluate(test.condition.prop, value, [](const std::string&) { return std::int64_t{-1}; });
}

}  // namespace

void mark_values_beyond_width(const std::filesystem::path& file, const litmus::Test& test, runner::SimResult& r) {
  if (r.unknown) return;
  if (auto reason = litmus::value_width_reason(test, file.string())) r.unknown = *reason;
}

ConditionCount count_condition(const litmus::Test& test, const runner::SimResult& r) {
  ConditionCount c;
  for (const auto& [o, n] : r.histogram) (satisfies(test, r, o) ? c.positive : c.negative) += n;
  c.validated = test.condition.quantifier == litmus::Quantifier::Exists      ? c.positive > 0
                : test.condition.quantifier == litmus::Quantifier::NotExists ? c.positive == 0
                                                                             : c.negative == 0;
  return c;
}

nlohmann::json run_json(const litmus::Test& test, const std::filesystem::path& file, std::string_view backend,
                        std::string_view target, std::string_view mode, const runner::SimResult& r,
                        const ConditionCount& c, std::uint64_t iterations_requested) {
  return {{"schema", "hsalit-run/1"},
          {"name", test.name},
          {"file", file.string()},
          {"backend", backend},
          {"target", target},
          {"mode", mode},
          {"histogram", histogram_json(test, r)},
          {"positive", c.positive},
          {"negative", c.negative},
          {"result", r.unknown     ? "unknown"
                     : c.validated ? "Ok"
                                   : "No"},
          {"iterations", r.iterations},
          {"iterations_requested", iterations_requested},
          {"seconds", r.seconds}};
}

nlohmann::json histogram_json(const litmus::Test& test, const runner::SimResult& r) {
  nlohmann::json hist = nlohmann::json::array();
  for (const auto& [o, n] : r.histogram) {
    nlohmann::json values = nlohmann::json::object();
    for (std::size_t i = 0; i < r.observed.size(); ++i) values[r.observed[i].to_string()] = o.values[i];
    hist.push_back({{"outcome", values}, {"count", n}, {"satisfies", satisfies(test, r, o)}});
  }
  return hist;
}

void print_histogram(const litmus::Test& test, const runner::SimResult& r, const ConditionCount& c) {
  fmt::print("Test {} {}\n", test.name, litmus::herd_kind(test.condition.quantifier));
  fmt::print("Histogram ({} states)\n", r.histogram.size());
  for (const auto& [o, n] : r.histogram)
    fmt::print("{:<8}{}>{}\n", n, satisfies(test, r, o) ? '*' : ':', runner::format_outcome(test, r, o));
  if (r.unknown)
    fmt::print("Unknown {}\n", *r.unknown);
  else
    fmt::print("{}\n", c.validated ? "Ok" : "No");
  fmt::print("Witnesses\nPositive: {}, Negative: {}\n", c.positive, c.negative);
  fmt::print("Condition {} ({}) is {}validated\n", litmus::to_string(test.condition.quantifier),
             litmus::print_prop(test.condition.prop), c.validated ? "" : "NOT ");
  fmt::print("Observation {} {} {} {}\n", test.name,
             c.positive == 0   ? "Never"
             : c.negative == 0 ? "Always"
                               : "Sometimes",
             c.positive, c.negative);
}

}  // namespace hsalit::cli
