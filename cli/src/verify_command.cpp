// `hsalit verify-mapping`: is a mapping table sound up to a bound (docs/verification.md)?
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <system_error>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hsalit/litmus/generate.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/results/atomic_file.hpp"
#include "hsalit/results/campaign.hpp"
#include "hsalit/results/execute.hpp"
#include "hsalit/verify/bound.hpp"
#include "hsalit/verify/mutation.hpp"
#include "hsalit/verify/verify.hpp"
#include "test_files.hpp"
#include "verify_results.hpp"

namespace hsalit::cli {

namespace {

struct VerifyCommandOptions {
  std::vector<std::string> inputs;
  std::string generate;
  std::string mapping_file;
  std::string table;
  std::string target = "gfx900";
  std::string flavour = "hsa";
  bool sc_orders = false;
  std::vector<std::string> assume;
  double timeout = 60;
  bool no_minimise = false;
  bool mutate = false;
  std::string larger;
  std::string out;
  bool every_variation = false;
  std::string engine = "z3";
  int jobs = 1;
};

std::string bound_text(const litmus::GenerateOptions& o, std::string_view spec) {
  if (!o.cycles.empty()) return fmt::format("generated: {}", spec);
  return fmt::format("generated up to {} threads x {} accesses ({})", o.max_threads, o.max_accesses, spec);
}

int run_verify(const VerifyCommandOptions& opt) {
  const auto started = std::chrono::steady_clock::now();
  const std::string started_at = results::utc_now();
  auto bad = [](const std::string& message) {
    fmt::print(stderr, "hsalit verify-mapping: error: {}\n", message);
    return kExitBadInput;
  };
  if (opt.inputs.empty() == opt.generate.empty())
    return bad("give test files or folders, or --generate SPEC (one of the two)");
  if (!opt.mapping_file.empty() && !opt.table.empty()) return bad("--mapping and --table exclude each other");
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const codegen::Target* target = catalog.find(opt.target);
  if (!target) return bad(fmt::format("unknown target '{}' (known: {})", opt.target, fmt::join(catalog.names(), ", ")));

  verify::VerifyOptions options;
  options.target = opt.target;
  options.compile.flavour = opt.flavour;
  options.compile.sc_acquire_release = opt.sc_orders;
  options.minimise = !opt.no_minimise;
  options.sim.timeout_seconds = opt.timeout;
  options.jobs = opt.jobs;
  if (opt.jobs < 1) return bad("--jobs must be at least 1");
  const std::optional<model::Engine> engine = model::engine_from_string(opt.engine);
  if (!engine) return bad(fmt::format("unknown engine '{}' (z3, enum)", opt.engine));
  options.model.engine = *engine;
  // Every counterexample is confirmed by the other engine.
  options.confirm_engine = *engine == model::Engine::Z3 ? model::Engine::Enum : model::Engine::Z3;
  for (const std::string& a : opt.assume)
    if (!runner::apply_assumption(a, options.sim.hw))
      return bad(fmt::format("unknown assumption '{}' ({})", a, runner::kAssumptionNames));

  std::optional<codegen::MappingTable> table;
  try {
    table = opt.mapping_file.empty() ? codegen::MappingTable::builtin(opt.table.empty() ? target->mapping : opt.table)
                                     : codegen::MappingTable::from_file(opt.mapping_file);
  } catch (const std::exception& e) {
    return bad(e.what());
  }
  if (!table->supports_target(opt.target))
    return bad(fmt::format("table '{}' does not list target {}", table->name(), opt.target));

  // The tests: files, or generated from the bound.
  std::vector<litmus::Test> tests, larger;
  std::string bound, larger_bound;
  std::optional<litmus::GenerateOptions> generated, larger_generated;
  try {
    if (!opt.generate.empty()) {
      generated = litmus::parse_generate_spec(opt.generate);
      const litmus::GenerateOptions& g = *generated;
      bound = bound_text(g, opt.generate);
      if (opt.mutate && (opt.larger.empty() ? g.cycles.empty() : true)) {
        larger_generated = opt.larger.empty() ? g : litmus::parse_generate_spec(opt.larger);
        if (opt.larger.empty()) ++larger_generated->max_accesses;
        larger_bound = opt.larger.empty() ? fmt::format("{} threads x {} accesses", larger_generated->max_threads,
                                                        larger_generated->max_accesses)
                                          : opt.larger;
      }
    } else {
      std::optional<std::vector<litmus::Test>> read = read_all_tests(opt.inputs);
      if (!read) return kExitBadInput;
      tests = std::move(*read);
      bound = fmt::format("{} given tests", tests.size());
      if (opt.mutate && !opt.larger.empty()) {
        for (auto& t : litmus::generate_tests(litmus::parse_generate_spec(opt.larger)))
          larger.push_back(std::move(t.test));
        larger_bound = opt.larger;
      }
    }
  } catch (const std::exception& e) {
    return bad(e.what());
  }

  verify::ModelCache cache;
  verify::VerifyReport report;
  std::string statistics;
  std::optional<verify::BoundStatistics> bound_statistics;
  std::vector<std::string> rows_used;
  try {
    if (generated) {
      // Every variation of the bound, one test per class of variations with the same code
      // (docs/verification.md), unless --every-variation.
      verify::BoundOptions bo;
      bo.every_variation = opt.every_variation;
      // Progress on a terminal: tests checked so far, once a second.
      std::size_t done = 0, counterexamples = 0;
      auto last = std::chrono::steady_clock::now();
      const bool tty = isatty(fileno(stderr)) != 0;
      auto progress = [&](const verify::TestVerification& v) {
        ++done;
        if (v.status == verify::TestStatus::Counterexample) ++counterexamples;
        if (!tty || std::chrono::steady_clock::now() - last < std::chrono::seconds(1)) return;
        last = std::chrono::steady_clock::now();
        fmt::print(stderr, "\r{} tests checked, {} counterexamples", done, counterexamples);
      };
      verify::BoundVerification b = verify::verify_bound(*generated, *table, options, bo, progress);
      if (tty) fmt::print(stderr, "\r\033[K");
      report = std::move(b.report);
      statistics = verify::render_statistics(b.statistics);
      bound_statistics = b.statistics;
      rows_used = std::move(b.rows_used);
    } else {
      report = verify::verify_tests(tests, *table, options, cache);
      rows_used = verify::rows_used(report);
    }
  } catch (const std::exception& e) {
    return bad(e.what());
  }
  // A bound can hold thousands of counterexamples of one cause: the first few in full.
  const std::string text =
      verify::render_text(report, table->name(), opt.target, bound, generated ? 5 : SIZE_MAX) + statistics;
  fmt::print("{}", text);

  std::optional<verify::MutationReport> mutation;
  if (opt.mutate) {
    if (generated) {
      mutation = verify::run_mutation(*generated, larger_generated, *table, rows_used, options);
    } else {
      mutation = verify::run_mutation(tests, larger, *table, rows_used, options, cache);
    }
    mutation->bound = bound;
    mutation->larger_bound = larger_bound;
    fmt::print("\n{}", verify::render_text(*mutation));
  }

  if (!opt.out.empty()) {
    try {
      results::CampaignInfo info;
      info.hsalit_version = HSALIT_VERSION;
      info.target = opt.target;
      info.mapping = table->name();
      info.mapping_file = opt.mapping_file;
      info.mapping_hash = results::content_hash(verify::table_to_json(*table).dump());
      info.flavour = opt.flavour;
      info.engine = opt.engine;
      info.sc_orders = opt.sc_orders;
      info.assumptions = results::name_set(opt.assume);
      info.time_limit_seconds = opt.timeout;
      record_inputs(info, opt.inputs, opt.generate, generated);
      info.started = started_at;
      info.finished = results::utc_now();
      info.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      const std::filesystem::path dir(opt.out);
      write_verify_results(dir, std::move(info), report,
                           verification_record(report, generated ? spec_without_shard(opt.generate) : bound, rows_used,
                                               bound_statistics),
                           text);
      if (mutation) {
        results::write_file_atomically(dir / "mutation.txt", verify::render_text(*mutation));
        results::write_file_atomically(dir / "mutation.json", verify::to_json(*mutation).dump(2) + "\n");
      }
    } catch (const std::exception& e) {
      return bad(e.what());
    }
  }
  return report.sound() ? kExitOk : kExitCheckFailed;
}

}  // namespace

Command add_verify_command(CLI::App& app) {
  auto opt = std::make_shared<VerifyCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "verify-mapping",
      "Check that a mapping table is sound up to a bound: on every race-free test, every final state the "
      "simulator reaches is one the model allows");
  cmd->add_option("inputs", opt->inputs, "litmus files or folders");
  cmd->add_option("--generate", opt->generate,
                  "generate the tests instead: threads=2,accesses=2[,orders=..,scopes=..,segments=..,placements=..,"
                  "fences=..,deps=..,family=..,cycle=..,edges=..,max=..,shard=I/N] (docs/generation.md)");
  cmd->add_option("--mapping", opt->mapping_file, "a mapping table file");
  cmd->add_option("--table", opt->table, "a shipped mapping table by name (default: the target's)");
  cmd->add_option("--target", opt->target, "processor (default gfx900)");
  cmd->add_option("--flavour", opt->flavour, "the table's flavour (default hsa)");
  cmd->add_flag("--sc-orders", opt->sc_orders,
                "select seq_cst rows for scacq and screl (HSA SysArch 3.3.1) instead of acquire and release");
  cmd->add_option("--assume", opt->assume, fmt::format("hardware assumption: {}", runner::kAssumptionNames))
      ->allow_extra_args(false);
  cmd->add_option("--timeout", opt->timeout, "simulator seconds per test (default 60)");
  cmd->add_flag("--no-minimise", opt->no_minimise, "report counterexamples as found, without shrinking them");
  cmd->add_flag("--mutate", opt->mutate,
                "mutation score: remove each instruction and clear each cache bit of each used row, verify again");
  cmd->add_option("--larger", opt->larger,
                  "the bound on which surviving mutants are checked (default: --generate with one more access)");
  cmd->add_option("--out", opt->out, "write results.json, the campaign reports, verify.txt and counterexamples here");
  cmd->add_flag("--every-variation", opt->every_variation,
                "--generate: check every test of the bound, not one per class of variations with the same code");
  cmd->add_option("--engine", opt->engine,
                  "model engine: z3 or enum (default z3); counterexamples are confirmed by the other one");
  cmd->add_option("-j,--jobs", opt->jobs, "tests verified in parallel (default 1)");
  return {cmd, [opt] { return run_verify(*opt); }};
}

}  // namespace hsalit::cli
