// `hsalit run`: compile each test for a target and execute it on a backend (the operational
// simulator), printing a litmus7-style histogram.
#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <memory>
#include <new>
#include <optional>
#include <sstream>

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
#include "memory_limit.hpp"
#include "option_checks.hpp"
#include "output_file.hpp"
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
  std::uint64_t memory_limit = 0;  // bytes (--memory-limit)
};

// `--trace '1:r0=1; 1:r1=0'`: a value for each observed register or location of the test, in
// the order the test observes them. A reference the test lacks (a thread past its last, a
// register or location it does not observe), one given twice or left out, or a value that is not
// a number is an error for the user: such a trace could never match.
std::optional<std::vector<std::int64_t>> parse_trace(const std::string& trace, const litmus::Test& test,
                                                     std::string& error) {
  const std::vector<litmus::ObservedRef> observed = test.observed();
  std::vector<std::string> names;
  for (const litmus::ObservedRef& ref : observed) names.push_back(ref.to_string());
  const std::string known = fmt::format("it observes {}", fmt::join(names, ", "));
  std::vector<std::optional<std::int64_t>> values(observed.size());
  std::string item;
  std::istringstream items(trace);
  while (std::getline(items, item, ';')) {
    std::string text;
    for (char c : item)
      if (c != ' ' && c != '\t') text += c;
    if (text.empty()) continue;
    const std::size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
      error = fmt::format("'{}' is not REF=VALUE", text);
      return std::nullopt;
    }
    const std::string ref = text.substr(0, eq), value_text = text.substr(eq + 1);
    const auto at = std::find(names.begin(), names.end(), ref);
    if (at == names.end()) {
      const std::size_t colon = ref.find(':');
      int thread = -1;
      if (colon != std::string::npos) std::from_chars(ref.data(), ref.data() + colon, thread);
      if (thread >= static_cast<int>(test.threads.size()))
        error = fmt::format("'{}' names thread {}, which test {} lacks (threads 0 to {}; {})", ref, thread, test.name,
                            test.threads.size() - 1, known);
      else
        error = fmt::format("'{}' is not observed by test {} ({})", ref, test.name, known);
      return std::nullopt;
    }
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(value_text.data(), value_text.data() + value_text.size(), value);
    if (ec != std::errc() || end != value_text.data() + value_text.size()) {
      error = fmt::format("'{}': '{}' is not a number", text, value_text);
      return std::nullopt;
    }
    std::optional<std::int64_t>& slot = values[static_cast<std::size_t>(at - names.begin())];
    if (slot) {
      error = fmt::format("'{}' is given twice", ref);
      return std::nullopt;
    }
    slot = value;
  }
  std::vector<std::int64_t> outcome;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!values[i]) {
      error = fmt::format("no value for {} ({})", names[i], known);
      return std::nullopt;
    }
    outcome.push_back(*values[i]);
  }
  return outcome;
}

int run_file(const std::filesystem::path& file, const RunCommandOptions& opt, const codegen::Target& target,
             const codegen::MappingTable& table, const runner::SimOptions& so) {
  litmus::ParseResult parsed = litmus::parse_litmus_file(file);
  fmt::print(stderr, "{}", parsed.diagnostics.render(file.string()));
  if (!parsed.ok() || !fits_backend_constants(file, *parsed.test)) return kExitBadInput;
  const litmus::Test& test = *parsed.test;
  std::optional<std::vector<std::int64_t>> trace;
  if (!opt.trace.empty()) {
    std::string error;
    trace = parse_trace(opt.trace, test, error);
    if (!trace) {
      fmt::print(stderr, "{}: error: --trace '{}': {}\n", file.string(), opt.trace, error);
      return kExitBadInput;
    }
  }
  codegen::CompiledTest compiled;
  runner::SimResult r;
  try {
    compiled =
        codegen::compile(test, target, codegen::TargetCatalog::builtin(), table, {opt.flavour, false, opt.sc_orders});
    r = opt.exhaustive ? runner::run_exhaustive(test, compiled, so)
                       : runner::run_random(test, compiled, opt.iterations, opt.seed, so);
  } catch (const std::bad_alloc&) {
    // Memory the system refused outside the search's own accounting: no verdict, not bad input.
    fmt::print(stderr, "{}: unknown: memory limit: the system refused more memory\n", file.string());
    return kExitCheckFailed;
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: error: {}\n", file.string(), e.what());
    return kExitBadInput;
  }
  mark_values_beyond_width(file, test, r);
  const ConditionCount c = count_condition(test, r);
  if (opt.json) {
    nlohmann::json j = run_json(test, file, opt.backend, target.name, opt.exhaustive ? "exhaustive" : "random", r, c,
                                opt.exhaustive ? 0 : opt.iterations);
    j["table"] = table.name();
    j["flavour"] = opt.flavour;
    j["states"] = r.states;
    if (r.unknown) j["unknown_reason"] = *r.unknown;
    fmt::print("{}\n", j.dump());
  } else if (r.unknown && r.histogram.empty()) {
    fmt::print("Test {} unknown: {} (no outcome reached)\n\n", test.name, *r.unknown);  // no table of zeros
  } else {
    print_histogram(test, r, c);
    if (opt.exhaustive)
      fmt::print("States {} explored over every placement ({:.0f} per second)\n", r.states,
                 r.seconds > 0 ? r.states / r.seconds : 0.0);
    else
      fmt::print("Iterations {} ({:.0f} per second)\n", r.iterations, r.seconds > 0 ? r.iterations / r.seconds : 0.0);
    fmt::print("Time {} {:.3f}\n\n", test.name, r.seconds);
  }
  if (trace) {
    bool found = false;
    for (const auto& [o, steps] : r.traces) {
      if (o.values != *trace) continue;
      found = true;
      fmt::print("Trace of {} ({}):\n", runner::format_outcome(test, r, o), r.trace_placement.at(o));
      for (std::size_t i = 0; i < steps.size(); ++i) fmt::print("  {:>3}. {}\n", i + 1, steps[i]);
    }
    if (!found) {
      fmt::print(stderr, "{}: error: no trace for outcome '{}' ({})\n", file.string(), opt.trace,
                 r.unknown ? "the search did not finish" : "it is not reachable");
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
  so.memory_limit = opt.memory_limit;
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
  cmd->add_option("--target,--mcpu", opt->target, "processor (default gfx900)");
  CLI::Option* mapping = cmd->add_option("--mapping", opt->mapping_file, "a mapping table file");
  cmd->add_option("--table", opt->table, "a shipped mapping table by name (default: the target's)")->excludes(mapping);
  cmd->add_flag("--sc-orders", opt->sc_orders,
                "select seq_cst rows for scacq and screl (HSA SysArch 3.3.1) instead of acquire and release");
  cmd->add_option("--flavour", opt->flavour, "the table's flavour (default hsa)");
  CLI::Option* exhaustive =
      cmd->add_flag("--exhaustive", opt->exhaustive, "explore every reachable state: the exact outcome set");
  cmd->add_option("--iterations", opt->iterations,
                  "random mode and GPU backends: test instances to run (default 100000; on a GPU, whole launches of "
                  "--instances, so at least that many)")
      ->check(positive_count())
      ->excludes(exhaustive);
  cmd->add_option("--seed", opt->seed, "random mode: seed (default 1)")->check(seed_value())->excludes(exhaustive);
  CLI::Option* json = cmd->add_flag("--json", opt->json, "one JSON object per test");
  CLI::Option* trace =
      cmd->add_option("--trace", opt->trace,
                      "print the transitions that reach OUTCOME, a value for each observed register and location, e.g. "
                      "'1:r0=1; 1:r1=0' (needs --exhaustive)")
          ->needs(exhaustive);
  cmd->add_option("--assume", opt->assume, fmt::format("hardware assumption: {}", runner::kAssumptionNames))
      ->allow_extra_args(false);
  cmd->add_option("--timeout,--time-limit", opt->timeout,
                  "seconds per test (default 60); random mode stops there and reports the runs made")
      ->check(seconds_value());
  cmd->add_option("-j,--jobs", opt->jobs,
                  "random mode: threads sharing the iterations, 0 = one per core (default 1), at most the iterations "
                  "and four per core; the histogram is the same for every N")
      ->check(jobs_count());
  add_memory_limit_option(cmd, opt->memory_limit);
  add_output_file_option(cmd);
  json->excludes(trace);  // a trace is text: it would break the JSON lines
  auto hw = add_hardware_run_options(cmd);
  return {cmd, [opt, hw, cmd] {
            // What only one kind of backend does, refused rather than ignored on the other.
            if (!is_hardware_backend(opt->backend)) {
              for (const char* hardware_only : {"--hip-builtins", "--incantations", "--instances", "--keep-source",
                                                "--workgroup-size", "--resident-workgroups", "--host-emulation"})
                if (cmd->get_option(hardware_only)->count() > 0) {
                  fmt::print(stderr, "hsalit run: error: {} needs --backend hip or cuda\n", hardware_only);
                  return kExitBadInput;
                }
              return run_run(*opt);
            }
            for (const char* sim_only : {"--exhaustive", "--trace", "--assume", "--jobs"})
              if (cmd->get_option(sim_only)->count() > 0) {
                fmt::print(stderr, "hsalit run: error: {} needs --backend sim, not {}\n", sim_only, opt->backend);
                return kExitBadInput;
              }
            return run_hardware_backend(
                *hw,
                {opt->inputs, opt->backend, opt->target, cmd->get_option("--target")->count() > 0, opt->mapping_file,
                 opt->table, opt->flavour, opt->sc_orders, opt->iterations, opt->seed, opt->json, opt->timeout});
          }};
}

}  // namespace hsalit::cli
