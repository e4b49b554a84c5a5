// `hsalit run`: compile each test for a target and execute it on a backend (the operational
// simulator), printing a litmus7-style histogram.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include <nlohmann/json.hpp>
#include "commands.hpp"
#include "hardware_run.hpp"
#include "hsalit/codegen/compiler.hpp"
#include "hsalit/litmus/evaluate.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/runner/sim.hpp"
#include "hsalit/support/parallel.hpp"
#include "run_output.hpp"
#include "test_files.hpp"

namespace hsalit::cli {

namespace {

struct RunCommandOptions {
  std::vector<std::string> inputs;
  std::string backend = "sim";
  std::string target = "gfx900";
  std::string mapping_file;
  std::string table;
  std::string flavour = "hsa";
  bool sc_orders = false;
  bool exhaustive = false;
  std::uint64_t iterations = 100000;
  std::uint64_t seed = 1;
  bool json = false;
  std::string trace;
  std::vector<std::string> assume;
  double timeout = 60;
  int jobs = 1;
};

std::string normalise(std::string s) {
  std::string out;
  for (char c : s)
    if (c != ' ') out += c;
  while (!out.empty() && out.back() == ';') out.pop_back();
  return out;
}

int run_file(const std::filesystem::path& file, const RunCommandOptions& opt, const codegen::Target& target,
             const codegen::MappingTable& table, const runner::SimOptions& so) {
  litmus::ParseResult parsed = litmus::parse_litmus_file(file);
  fmt::print(stderr, "{}", parsed.diagnostics.render(file.string()));
  if (!parsed.ok() || !fits_backend_constants(file, *parsed.test)) return kExitBadInput;
  const litmus::Test& test = *parsed.test;
  codegen::CompiledTest compiled;
  runner::SimResult r;
  try {
    compiled =
        codegen::compile(test, target, codegen::TargetCatalog::builtin(), table, {opt.flavour, false, opt.sc_orders});
    r = opt.exhaustive ? runner::run_exhaustive(test, compiled, so)
                       : runner::run_random(test, compiled, opt.iterations, opt.seed, so);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: error: {}\n", file.string(), e.what());
    return kExitBadInput;
  }
  mark_values_beyond_width(file, test, r);
  const ConditionCount c = count_condition(test, r);
  if (opt.json) {
    nlohmann::json hist = histogram_json(test, r);
    nlohmann::json j = {{"schema", "hsalit-run/1"}, {"name", test.name},
                        {"file", file.string()},    {"backend", opt.backend},
                        {"target", target.name},    {"table", table.name()},
                        {"flavour", opt.flavour},   {"mode", opt.exhaustive ? "exhaustive" : "random"},
                        {"histogram", hist},        {"positive", c.positive},
                        {"negative", c.negative},   {"result", r.unknown ? "unknown" : c.validated ? "Ok" : "No"},
                        {"states", r.states},       {"iterations", r.iterations},
                        {"seconds", r.seconds}};
    if (r.unknown) j["unknown_reason"] = *r.unknown;
    fmt::print("{}\n", j.dump());
  } else {
    print_histogram(test, r, c);
    if (opt.exhaustive)
      fmt::print("States {} explored over every placement ({:.0f} per second)\n", r.states,
                 r.seconds > 0 ? r.states / r.seconds : 0.0);
    else
      fmt::print("Iterations {} ({:.0f} per second)\n", r.iterations, r.seconds > 0 ? r.iterations / r.seconds : 0.0);
    fmt::print("Time {} {:.3f}\n\n", test.name, r.seconds);
  }
  if (!opt.trace.empty()) {
    bool found = false;
    for (const auto& [o, steps] : r.traces) {
      if (normalise(runner::format_outcome(test, r, o)) != normalise(opt.trace)) continue;
      found = true;
      fmt::print("Trace of {} ({}):\n", runner::format_outcome(test, r, o), r.trace_placement.at(o));
      for (std::size_t i = 0; i < steps.size(); ++i) fmt::print("  {:>3}. {}\n", i + 1, steps[i]);
    }
    if (!found) {
      fmt::print(stderr, "{}: error: no trace for outcome '{}' ({})\n", file.string(), opt.trace,
                 opt.exhaustive ? "it is not reachable" : "traces need --exhaustive");
      return kExitCheckFailed;
    }
  }
  return r.unknown ? kExitCheckFailed : kExitOk;
}

int run_run(const RunCommandOptions& opt) {
  if (opt.backend != "sim") {
    fmt::print(stderr, "hsalit run: error: backend '{}' is not available in this build (available: sim)\n",
               opt.backend);
    return kExitBadInput;
  }
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const codegen::Target* target = catalog.find(opt.target);
  if (!target) {
    fmt::print(stderr, "hsalit run: error: unknown target '{}' (known: {})\n", opt.target,
               fmt::join(catalog.names(), ", "));
    return kExitBadInput;
  }
  runner::SimOptions so;
  so.timeout_seconds = opt.timeout;
  so.keep_traces = opt.exhaustive;
  so.jobs = opt.jobs > 0 ? opt.jobs : support::default_jobs();
  for (const std::string& a : opt.assume)
    if (!runner::apply_assumption(a, so.hw)) {
      fmt::print(stderr, "hsalit run: error: unknown assumption '{}' ({})\n", a, runner::kAssumptionNames);
      return kExitBadInput;
    }
  std::optional<codegen::MappingTable> table;
  try {
    table = opt.mapping_file.empty() ? codegen::MappingTable::builtin(opt.table.empty() ? target->mapping : opt.table)
                                     : codegen::MappingTable::from_file(opt.mapping_file);
  } catch (const codegen::MappingError& e) {
    fmt::print(stderr, "{}\n", e.what());
    return kExitBadInput;
  }
  int status = kExitOk;
  std::vector<std::filesystem::path> inputs(opt.inputs.begin(), opt.inputs.end());
  for (const auto& file : litmus::collect_litmus_files(inputs))
    status = std::max(status, run_file(file, opt, *target, *table, so));
  return status;
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto opt = std::make_shared<RunCommandOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Compile tests for a target and run them on a backend (the GCN simulator)");
  cmd->add_option("inputs", opt->inputs, "litmus files or folders")->required();
  cmd->add_option("--backend", opt->backend, "sim (default), hip (AMD GPU), cuda (NVIDIA GPU); docs/hardware.md");
  cmd->add_option("--target", opt->target, "processor (default gfx900)");
  cmd->add_option("--mapping", opt->mapping_file, "a mapping table file");
  cmd->add_option("--table", opt->table, "a shipped mapping table by name (default: the target's)");
  cmd->add_flag("--sc-orders", opt->sc_orders,
                "select seq_cst rows for scacq and screl (HSA SysArch 3.3.1) instead of acquire and release");
  cmd->add_option("--flavour", opt->flavour, "the table's flavour (default hsa)");
  cmd->add_flag("--exhaustive", opt->exhaustive, "explore every reachable state: the exact outcome set");
  cmd->add_option("--iterations", opt->iterations, "random mode: runs (default 100000)");
  cmd->add_option("--seed", opt->seed, "random mode: seed (default 1)");
  cmd->add_flag("--json", opt->json, "one JSON object per test");
  cmd->add_option("--trace", opt->trace,
                  "print the transitions that reach OUTCOME, e.g. '1:r0=1; 1:r1=0' (exhaustive)");
  cmd->add_option("--assume", opt->assume, fmt::format("hardware assumption: {}", runner::kAssumptionNames))
      ->allow_extra_args(false);
  cmd->add_option("--timeout", opt->timeout, "seconds per test (default 60)");
  cmd->add_option("-j,--jobs", opt->jobs,
                  "random mode: threads sharing the iterations, 0 = one per core (default 1); the histogram is the "
                  "same for every N");
  auto hw = add_hardware_run_options(cmd);
  return {cmd, [opt, hw, cmd] {
            if (!is_hardware_backend(opt->backend)) return run_run(*opt);
            return run_hardware_backend(
                *hw,
                {opt->inputs, opt->backend, opt->target, cmd->get_option("--target")->count() > 0, opt->mapping_file,
                 opt->table, opt->flavour, opt->sc_orders, opt->iterations, opt->seed, opt->json, opt->timeout});
          }};
}

}  // namespace hsalit::cli
