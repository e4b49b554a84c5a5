// The simulator's reduction rule 4 (docs/simulator.md, "Reductions") against rules 1 to 3
// alone on a sample of generated tests: every EVERY-th test of SPEC (a `gen --spec` bound),
// compiled with the shipped gfx6-9 table for gfx900, searched exhaustively under six sets of
// hardware assumptions with the rule on and off. Prints the states and seconds of both and
// every test whose outcome sets differ; exits 1 if one does. Figures in docs/PERFORMANCE.md.
//
//   bench_sim_reduction SPEC EVERY
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdlib>
#include <exception>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hsalit/codegen/gcn.hpp"
#include "hsalit/codegen/mapping.hpp"
#include "hsalit/litmus/generate.hpp"
#include "hsalit/runner/sim.hpp"

namespace {

using namespace hsalit;

// Each assumption on its own, and the two remedies of docs/mappings.md together, by the
// names `--assume` takes.
std::vector<std::pair<std::string, runner::HardwareAssumptions>> assumption_sets() {
  const std::vector<std::vector<std::string>> sets = {
      {}, {"lds-sc"}, {"l1-store-at-l2"}, {"one-channel"}, {"no-l1-fill"}, {"l1-store-at-l2", "one-channel"}};
  std::vector<std::pair<std::string, runner::HardwareAssumptions>> out;
  for (const std::vector<std::string>& names : sets) {
    runner::HardwareAssumptions hw;
    for (const std::string& name : names)
      if (!runner::apply_assumption(name, hw)) throw std::logic_error("unknown assumption " + name);
    out.emplace_back(names.empty() ? "default" : fmt::format("{}", fmt::join(names, "+")), hw);
  }
  return out;
}

std::set<runner::SimOutcome> outcomes(const runner::SimResult& r) {
  std::set<runner::SimOutcome> out;
  for (const auto& [o, n] : r.histogram) out.insert(o);
  return out;
}

}  // namespace

int main(int argc, char** argv) try {
  if (argc != 3) {
    fmt::print(stderr, "usage: bench_sim_reduction SPEC EVERY\n");
    return 2;
  }
  const std::size_t every = std::stoul(argv[2]);
  if (every == 0) throw std::invalid_argument("EVERY must be at least 1");
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const auto sets = assumption_sets();
  std::size_t index = 0, searches = 0, differ = 0, skipped = 0;
  std::uint64_t states_off = 0, states_on = 0;
  double seconds_off = 0, seconds_on = 0;
  litmus::generate(litmus::parse_generate_spec(argv[1]), [&](litmus::GeneratedTest&& g) {
    if (index++ % every != 0) return;
    codegen::CompiledTest compiled;
    try {
      compiled = codegen::compile(g.test, catalog.get("gfx900"), catalog, table);
    } catch (const std::exception&) {
      return;  // a test the table does not compile
    }
    for (const auto& [name, hw] : sets) {
      runner::SimOptions options;
      options.hw = hw;
      options.keep_traces = false;
      options.max_states = 3'000'000;
      options.independent_steps = false;
      const runner::SimResult off = runner::run_exhaustive(g.test, compiled, options);
      if (off.unknown) {
        ++skipped;
        continue;
      }
      options.independent_steps = true;
      const runner::SimResult on = runner::run_exhaustive(g.test, compiled, options);
      ++searches;
      states_off += off.states, states_on += on.states;
      seconds_off += off.seconds, seconds_on += on.seconds;
      if (on.unknown || outcomes(on) != outcomes(off)) {
        ++differ;
        fmt::print("differs: {} under {}\n", g.test.name, name);
      }
    }
  });
  fmt::print(
      "{} tests, every {}th sampled: {} searches ({} skipped past 3,000,000 states without the rule), {} outcome sets "
      "differ; states {} -> {} ({:.2f}x), seconds {:.2f} -> {:.2f} ({:.2f}x)\n",
      index, every, searches, skipped, differ, states_off, states_on,
      states_on ? static_cast<double>(states_off) / static_cast<double>(states_on) : 0.0, seconds_off, seconds_on,
      seconds_on > 0 ? seconds_off / seconds_on : 0.0);
  return differ == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
} catch (const std::exception& e) {
  fmt::print(stderr, "bench_sim_reduction: error: {}\n", e.what());
  return 2;
}
