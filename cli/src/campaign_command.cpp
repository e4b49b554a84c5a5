// `hsalit campaign`: check, compile, run and compare every test, journalled, with reports.
#include <fmt/format.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "bundled_data.hpp"
#include "commands.hpp"
#include "hsalit/codegen/compiler.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/results/backends.hpp"
#include "hsalit/results/execute.hpp"
#include "hsalit/results/report.hpp"
#include "hsalit/support/interrupt.hpp"
#include "memory_limit.hpp"
#include "option_checks.hpp"
#include "source_commit.hpp"

namespace hsalit::cli {

namespace {

namespace fs = std::filesystem;

struct CampaignCommandOptions {
  std::vector<std::string> inputs;
  std::string target;           // gfx900, or sm_90 with --backend cuda
  std::string incantations;     // hardware backends: stress,shuffle,prestress,spacing,delay
  int instances = 1024;         // hardware backends: test instances per launch
  int workgroup_size = 256;     // hardware backends: threads per work-group
  bool host_emulation = false;  // hardware backends: the harness on CPU threads (docs/hardware.md)
  std::string backend = "sim";
  std::string out;
  std::string mapping_file;
  std::string table;
  std::string flavour = "hsa";
  bool sc_orders = false;
  bool exhaustive = false;
  std::optional<std::uint64_t> iterations;
  std::uint64_t seed = 1;
  std::string model;  // empty: the flavour's (opencl for the opencl flavour, hsa otherwise)
  std::string engine = "auto";
  double time_limit = 60;
  unsigned jobs = 1;
  bool resume = false;
  bool force = false;
  std::string shard;
  std::string findings;  // default: the bundled share/hsalit/findings.json, when there is one
  std::vector<std::string> assume;
  bool quiet = false;
  std::uint64_t memory_limit = 0;  // bytes (--memory-limit)
};

std::string clock_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--:--";
  auto s = static_cast<long>(seconds + 0.5);
  return s >= 3600 ? fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
                   : fmt::format("{}:{:02}", s / 60, s % 60);
}

// A progress bar with rate and ETA on a terminal; one plain line per test otherwise.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(bool quiet) : quiet_(quiet), terminal_(::isatty(STDERR_FILENO) == 1) {}
  void operator()(const results::Progress& p) {
    if (quiet_) return;
    std::size_t ran = p.done - p.resumed;
    double rate = p.elapsed_seconds > 0 ? static_cast<double>(ran) / p.elapsed_seconds : 0;
    double eta = rate > 0 ? static_cast<double>(p.total - p.done) / rate : NAN;
    if (!terminal_) {
      if (!p.last) {
        if (p.resumed)
          fmt::print(stderr, "hsalit campaign: {} of {} tests finished earlier (resumed)\n", p.resumed, p.total);
        return;
      }
      fmt::print(stderr, "[{}/{}] {}: {} ({:.2f} s)\n", p.done, p.total, p.last->name,
                 results::to_string(p.last->verdict), p.last->seconds);
      return;
    }
    const int width = 30;
    int filled = p.total ? static_cast<int>(width * p.done / p.total) : width;
    std::string bar =
        std::string(static_cast<std::size_t>(filled), '#') + std::string(static_cast<std::size_t>(width - filled), '.');
    std::string last = p.last ? fmt::format("  {}: {}", p.last->name, results::to_string(p.last->verdict)) : "";
    if (last.size() > 50) last = last.substr(0, 47) + "...";
    fmt::print(stderr, "\r\033[K[{}] {}/{}  {:.2f} tests/s  ETA {}{}", bar, p.done, p.total, rate, clock_text(eta),
               last);
    if (p.done == p.total) fmt::print(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  bool quiet_;
  bool terminal_;
};

std::optional<std::string> read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Why tests are unknown: a count per stage (`unknown: 3 tests: 1 parse, 2 run`), then the
// first few tests with their reasons.
void print_unknown_tests(const std::vector<results::TestRecord>& tests, std::size_t unknown) {
  if (unknown == 0) return;
  std::map<std::string, std::size_t> by_stage;
  for (const results::TestRecord& t : tests) {
    if (t.verdict != results::VerdictClass::Unknown) continue;
    std::string stage = "not judged";
    for (const char* s : {"parse", "model", "compile", "run"})
      if (t.reason.starts_with(std::string(s) + ":")) stage = s;
    ++by_stage[stage];
  }
  std::vector<std::string> counts;
  for (const auto& [stage, n] : by_stage) counts.push_back(fmt::format("{} {}", n, stage));
  fmt::print("unknown: {} test{}: {}\n", unknown, unknown == 1 ? "" : "s", fmt::join(counts, ", "));
  const std::size_t shown = 10;
  std::size_t printed = 0;
  for (const results::TestRecord& t : tests)
    if (t.verdict == results::VerdictClass::Unknown && printed++ < shown)
      fmt::print("unknown: {}: {}\n", t.name, t.reason);
  if (unknown > shown) fmt::print("unknown: {} more in results.json\n", unknown - shown);
}

int run_campaign_command(const CampaignCommandOptions& opt) {
  auto fail = [](const std::string& message) {
    fmt::print(stderr, "hsalit campaign: error: {}\n", message);
    return kExitBadInput;
  };
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  // CUDA runs the litmus test through its own PTX mapping: its target is an NVIDIA
  // architecture (sm_NN, default sm_90), and no GCN target is involved.
  const bool cuda = opt.backend == "cuda";
  std::string target_name = opt.target.empty() ? (cuda ? "sm_90" : "gfx900") : opt.target;
  if (cuda && !target_name.starts_with("sm_"))
    return fail(fmt::format("--backend cuda needs an NVIDIA architecture as --target (sm_NN), not '{}'", target_name));
  const codegen::Target* target = catalog.find(cuda ? "gfx900" : target_name);  // gfx900: unused by cuda
  if (!target)
    return fail(fmt::format("unknown target '{}' (known: {})", target_name, fmt::join(catalog.names(), ", ")));
  runner::HarnessOptions harness;
  if (!opt.incantations.empty()) {
    std::string error;
    auto inc = runner::parse_incantations(opt.incantations, error);
    if (!inc) return fail(error);
    harness.incantations = *inc;
  }
  if (opt.instances < 1) return fail("--instances must be at least 1");
  harness.instances = opt.instances;
  harness.workgroup_size = opt.workgroup_size;
  harness.host_emulation = opt.host_emulation;
  harness.sc_orders = opt.sc_orders;
  std::string model_error;
  const std::optional<model::ModelVariant> variant = model_for_flavour(opt.model, opt.flavour, model_error);
  if (!variant) return fail(model_error);
  auto engine = model::engine_from_string(opt.engine);
  if (!engine) return fail(fmt::format("unknown engine '{}' (auto, z3, enum)", opt.engine));
  if (opt.exhaustive && opt.backend != "sim") return fail("--exhaustive needs --backend sim (hardware runs sample)");
  if (opt.resume && opt.force) return fail("--resume and --force exclude each other");
  std::optional<results::Shard> shard;
  if (!opt.shard.empty()) {
    shard = results::parse_shard(opt.shard);
    if (!shard) return fail(fmt::format("--shard takes I/N with 0 <= I < N, not '{}'", opt.shard));
  }

  runner::SimOptions sim_options;
  sim_options.keep_traces = false;
  sim_options.memory_limit = opt.memory_limit;
  for (const std::string& a : opt.assume)
    if (!runner::apply_assumption(a, sim_options.hw))
      return fail(fmt::format("unknown assumption '{}' ({})", a, runner::kAssumptionNames));
  std::unique_ptr<runner::Backend> backend = results::make_backend(opt.backend, target_name, sim_options, harness);
  if (!backend)
    return fail(
        fmt::format("unknown backend '{}' (known: {})", opt.backend, fmt::join(results::backend_names(), ", ")));
  if (auto why = backend->unavailable())
    fmt::print(stderr, "hsalit campaign: warning: backend {}: {}; every run will be unknown\n", opt.backend, *why);

  std::optional<codegen::MappingTable> table;
  std::string mapping_hash;
  try {
    if (!opt.mapping_file.empty()) {
      table = codegen::MappingTable::from_file(opt.mapping_file);
      mapping_hash = results::content_hash(read_text(opt.mapping_file).value_or(""));
    } else {
      std::string name = opt.table.empty() ? target->mapping : opt.table;
      if (cuda && opt.table.empty()) name = "gfx6-9";  // not used to run: reports name the PTX mapping
      table = codegen::MappingTable::builtin(name);
      mapping_hash = results::content_hash(fmt::format("shipped {} of hsalit {}", name, HSALIT_VERSION));
    }
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}\n", e.what());
    return kExitBadInput;
  }

  std::vector<std::string> input_names = opt.inputs;
  try {
    if (input_names.empty()) input_names = {bundled_library().string()};
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  std::vector<fs::path> inputs(input_names.begin(), input_names.end());
  for (const fs::path& p : inputs)
    if (!fs::exists(p)) return fail(fmt::format("{}: no such file or folder", p.string()));
  std::vector<fs::path> files = litmus::collect_litmus_files(inputs);
  std::sort(files.begin(), files.end());
  files.erase(std::unique(files.begin(), files.end()), files.end());
  if (shard) files = results::shard_files(files, *shard);

  results::CampaignInfo info;
  info.hsalit_version = HSALIT_VERSION;
  info.source_commit = source_commit();
  info.source_modified = source_modified();
  info.target = cuda ? target_name : target->name;
  info.mapping = cuda ? "PTX (docs/hardware.md)" : table->name();
  info.mapping_file = opt.mapping_file;
  info.mapping_hash = mapping_hash;
  info.flavour = opt.flavour;
  info.backend = opt.backend;
  if (opt.backend != "sim")
    info.harness =
        fmt::format("instances={} incantations={}{}", opt.instances,
                    opt.incantations.empty() ? "none" : opt.incantations, opt.host_emulation ? " host-emulation" : "");
  info.model = model::to_string(*variant);
  info.engine = opt.engine;
  info.sc_orders = opt.sc_orders;
  info.assumptions = results::name_set(opt.assume);
  info.exhaustive = opt.exhaustive || (!opt.iterations && opt.backend == "sim");
  info.iterations = info.exhaustive ? 0 : opt.iterations.value_or(100000);
  info.seed = info.exhaustive ? 0 : opt.seed;
  info.time_limit_seconds = opt.time_limit;
  info.inputs = input_names;
  info.shard = shard;

  model::CheckOptions model_options;
  model_options.variant = *variant;
  model_options.engine = *engine;
  model_options.timeout_seconds = opt.time_limit;
  model_options.memory_limit = opt.memory_limit;
  runner::BackendRequest request;
  request.exhaustive = info.exhaustive;
  request.iterations = info.iterations;
  request.seed = info.seed;
  results::TestContext context{*target,       *table,   codegen::CompileOptions{opt.flavour, false, opt.sc_orders},
                               model_options, *backend, request,
                               opt.time_limit};

  results::CampaignRun run;
  try {
    if (!opt.findings.empty())
      run.findings = results::read_findings(opt.findings);
    else if (std::optional<fs::path> data = bundled_data_dir(); data && fs::exists(*data / results::kFindingsFile))
      run.findings = results::read_findings(*data / results::kFindingsFile);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}\n", e.what());
    return kExitBadInput;
  }
  run.info = info;
  run.files = files;
  run.out_dir = opt.out;
  run.jobs = opt.jobs;
  run.resume = opt.resume;
  run.force = opt.force;
  run.on_progress = ProgressPrinter(opt.quiet);
  results::CampaignResults out;
  // The first SIGINT or SIGTERM stops the campaign between tests, leaving the journal
  // resumable; a second one ends it at once (the journal stays readable).
  support::install_interrupt_handlers(
      "\nhsalit campaign: stopping: the tests in progress are left for --resume (interrupt again to stop at once)\n");
  try {
    out = results::run_campaign(run, context);
  } catch (const results::CampaignInterrupted& e) {
    fmt::print(stderr, "hsalit campaign: interrupted: {} of {} tests done; rerun with --resume to continue\n", e.done,
               e.total);
    return kExitCheckFailed;
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}\n", e.what());
    return kExitBadInput;
  }
  results::Summary s = out.summary();
  fmt::print(
      "campaign: {} tests on {} ({}, {}), {:.1f} s: {} consistent, {} violation, {} undefined, {} unknown; "
      "{}/{} allowed outcomes observed\n",
      s.tests, info.target, info.mapping, info.backend, out.info.wall_seconds, s.consistent, s.violation, s.undefined,
      s.unknown, s.covered_outcomes, s.allowed_outcomes);
  for (const results::TestRecord& t : out.tests)
    if (t.verdict == results::VerdictClass::Violation) fmt::print("violation: {}: {}\n", t.name, t.reason);
  print_unknown_tests(out.tests, s.unknown);
  fmt::print("report: {}\n", (fs::path(opt.out) / results::kHtmlReport).string());
  // An unknown test was not judged: the campaign cannot pass with it (docs/campaigns.md).
  return s.violation || s.unknown ? kExitCheckFailed : kExitOk;
}

}  // namespace

Command add_campaign_command(CLI::App& app) {
  auto opt = std::make_shared<CampaignCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "campaign",
      "Check, compile, run and compare every test: allowed versus observed, with reports (docs/campaigns.md)");
  cmd->add_option("inputs", opt->inputs,
                  "litmus files or folders (default: the bundled library, share/hsalit/litmus/library)");
  cmd->add_option("--out", opt->out, "output folder: results.json, reports, journal")->required();
  cmd->add_option("--target,--mcpu", opt->target, "processor (default gfx900; sm_90 with --backend cuda)");
  cmd->add_option("--incantations", opt->incantations,
                  "hardware backends: comma-separated stress, shuffle, prestress, spacing, delay (docs/hardware.md)");
  cmd->add_option("--instances", opt->instances, "hardware backends: test instances per kernel launch (default 1024)")
      ->check(positive_count());
  cmd->add_option("--workgroup-size", opt->workgroup_size,
                  "hardware backends: threads per work-group (default 256; a multiple of 64 on a GPU)")
      ->check(positive_count());
  cmd->add_flag("--host-emulation", opt->host_emulation,
                "hardware backends: build the harness with the host C++ compiler and run it on CPU threads");
  cmd->add_option("--backend", opt->backend, "sim (default), hip or cuda");
  CLI::Option* mapping = cmd->add_option("--mapping", opt->mapping_file, "a mapping table file");
  cmd->add_option("--table", opt->table, "a shipped mapping table by name (default: the target's)")->excludes(mapping);
  cmd->add_option("--flavour", opt->flavour, "the table's flavour (default hsa)");
  cmd->add_flag("--sc-orders", opt->sc_orders, "select seq_cst rows for scacq and screl (HSA SysArch 3.3.1)");
  CLI::Option* exhaustive =
      cmd->add_flag("--exhaustive", opt->exhaustive, "every reachable outcome (the default on sim)");
  cmd->add_option("--iterations", opt->iterations,
                  "sample N test instances per test (on hardware, whole launches of --instances; default there 100000)")
      ->check(positive_count())
      ->excludes(exhaustive);
  cmd->add_option("--seed", opt->seed, "random mode: seed (default 1), mixed with each test's name")
      ->check(seed_value())
      ->excludes(exhaustive);
  cmd->add_option("--model", opt->model,
                  "hsa, hrf-indirect, hrf-direct or opencl (docs/model.md; default: opencl for the opencl flavour, hsa "
                  "otherwise)");
  cmd->add_option("--engine", opt->engine, "auto (default: per test, as for check), z3 or enum");
  cmd->add_option("--timeout,--time-limit", opt->time_limit, "seconds per test, all stages together (default 60)")
      ->check(seconds_value());
  cmd->add_option("-j,--jobs", opt->jobs, "tests in parallel (0: one per core; default 1)")->check(jobs_count());
  cmd->add_flag("--resume", opt->resume, "continue the interrupted campaign in --out");
  cmd->add_flag("--force", opt->force,
                "replace the results of another run in --out (a campaign, a verification, merged results)");
  cmd->add_option("--shard", opt->shard, "run share I of N (0 <= I < N) of the sorted tests");
  cmd->add_option("--findings", opt->findings,
                  "documented findings a violation is matched against (default: the bundled "
                  "share/hsalit/findings.json, docs/findings.json)");
  cmd->add_option("--assume", opt->assume, fmt::format("simulator assumption: {}", runner::kAssumptionNames))
      ->allow_extra_args(false);
  cmd->add_flag("-q,--quiet", opt->quiet, "no progress output");
  add_memory_limit_option(cmd, opt->memory_limit);
  return {
      cmd, [opt, cmd] {
        // The harness's options would be ignored by the simulator: refused, not ignored.
        if (opt->backend == "sim")
          for (const char* hardware_only : {"--incantations", "--instances", "--workgroup-size", "--host-emulation"})
            if (cmd->get_option(hardware_only)->count() > 0) {
              fmt::print(stderr, "hsalit campaign: error: {} needs --backend hip or cuda\n", hardware_only);
              return kExitBadInput;
            }
        return run_campaign_command(*opt);
      }};
}

}  // namespace hsalit::cli
