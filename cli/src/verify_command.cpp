// `hsalit verify-mapping`: is a mapping table sound up to a bound (docs/verification.md)?
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <system_error>
#include <tuple>
#include <vector>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hsalit/codegen/memory_hierarchy.hpp"
#include "hsalit/litmus/generate.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/results/atomic_file.hpp"
#include "hsalit/results/campaign.hpp"
#include "hsalit/results/execute.hpp"
#include "hsalit/verify/bound.hpp"
#include "hsalit/verify/mutation.hpp"
#include "hsalit/verify/verify.hpp"
#include "option_checks.hpp"
#include "test_files.hpp"
#include "verify_results.hpp"

namespace hsalit::cli {

namespace {

struct VerifyCommandOptions {
  VerifyRunOptions run;
  std::string mapping_file;
  std::string table;
  std::string target = "gfx900";
  std::string flavour = "hsa";
  bool no_minimise = false;
  bool mutate = false;
  std::string larger;
  bool every_variation = false;
  bool search_every_space = false;
  std::string space_costs;
  std::optional<double> time_limit;  // seconds for the whole bound search
};

// `--space-costs FILE`: one tab-separated line per space verified, and where the search's
// time went per placement and segments (docs/PERFORMANCE.md reads bounds with it).
class SpaceCostLog {
 public:
  explicit SpaceCostLog(const std::string& path) : writer_(path) {
    writer_.write(
        "cycle\tworkgroups\tagents\tsegments\tseconds\tclasses_seconds\tmodel_queries\tracy_answers\tkept_"
        "answers\tnarrowed_questions\tmodel_seconds\tsimulations\tsimulation_seconds\tdecided_"
        "unasked\tkept_weakest\tin_program_order\tchecked\tchecked_"
        "seconds\tdecided_by_fact\n");
  }

  void add(const verify::SpaceCost& c) {
    const std::string workgroups = fmt::format("{}", fmt::join(c.workgroup_of_thread, "."));
    const std::string agents = fmt::format("{}", fmt::join(c.agent_of_thread, "."));
    const std::string segments = c.global && c.group ? "global+group" : c.group ? "group" : "global";
    writer_.write(fmt::format(
        "{}\t{}\t{}\t{}\t{:.6f}\t{:.6f}\t{}\t{}\t{}\t{}\t{:.6f}\t{}\t{:.6f}\t{}\t{}\t{}\t{}\t{:.6f}\t{}\n", c.cycle,
        workgroups, agents, segments, c.seconds, c.classes_seconds, c.model_queries, c.racy_answers, c.kept_answers,
        c.narrowed_questions, c.model_seconds, c.simulations, c.simulation_seconds, c.decided_unasked, c.kept_weakest,
        c.in_program_order, c.checked, c.checked_seconds, c.decided_by_fact));
    Group& g = groups_[{workgroups, agents, segments}];
    ++g.spaces;
    g.seconds += c.seconds;
    g.model_seconds += c.model_seconds;
    g.simulation_seconds += c.simulation_seconds;
    g.checked_seconds += c.checked_seconds;
    g.model_queries += c.model_queries;
    g.simulations += c.simulations;
    g.checked += c.checked;
    g.classes_seconds += c.classes_seconds;
  }

  void commit() { writer_.commit(); }

  // The groups, most time first.
  std::string summary() const {
    std::vector<std::pair<std::tuple<std::string, std::string, std::string>, Group>> rows(groups_.begin(),
                                                                                          groups_.end());
    std::stable_sort(rows.begin(), rows.end(),
                     [](const auto& a, const auto& b) { return a.second.seconds > b.second.seconds; });
    Group all;
    for (const auto& [key, g] : rows) {
      all.spaces += g.spaces;
      all.seconds += g.seconds;
      all.classes_seconds += g.classes_seconds;
    }
    std::string out =
        "where the search's time went, per placement and segments:\n"
        "work-groups  agents  segments      spaces  seconds  share  ms/space  model queries (s)  "
        "simulations (s)  checked (s)\n";
    for (const auto& [key, g] : rows) {
      const auto& [workgroups, agents, segments] = key;
      out += fmt::format(
          "{:<12} {:<7} {:<12} {:>7} {:>8.2f} {:>5.0f} % {:>9.2f} {:>9} ({:.2f}) {:>9} ({:.2f}) {:>5} ({:.2f})\n",
          workgroups, agents, segments, g.spaces, g.seconds, all.seconds > 0 ? 100 * g.seconds / all.seconds : 0.0,
          1000 * g.seconds / g.spaces, g.model_queries, g.model_seconds, g.simulations, g.simulation_seconds, g.checked,
          g.checked_seconds);
    }
    out += fmt::format(
        "{} spaces: {:.2f} s searching, {:.2f} s finding their shapes' code classes (summed over the "
        "threads)\n",
        all.spaces, all.seconds, all.classes_seconds);
    return out;
  }

 private:
  struct Group {
    std::size_t spaces = 0, model_queries = 0, simulations = 0, checked = 0;
    double seconds = 0, model_seconds = 0, simulation_seconds = 0, checked_seconds = 0, classes_seconds = 0;
  };
  results::AtomicFileWriter writer_;
  std::map<std::tuple<std::string, std::string, std::string>, Group> groups_;
};

// Whether a --generate spec names `key` (`segments=...`), rather than taking its default.
bool spec_names(std::string_view spec, std::string_view key) {
  for (std::size_t at = 0; at <= spec.size();) {
    std::size_t comma = spec.find(',', at);
    if (comma == std::string_view::npos) comma = spec.size();
    const std::string_view item = spec.substr(at, comma - at);
    if (item.substr(0, item.find('=')) == key) return true;
    at = comma + 1;
  }
  return false;
}

// A flavour whose work-groups may span the agent (tgsplit) allocates no LDS, so no test with a
// group location compiles (codegen's check_lds_allocated): a bound then takes global locations
// only, and `note` says so for its header; a spec that names group locations is refused with
// `error`. Both empty: the bound stands as given.
struct SegmentsForFlavour {
  std::string note, error;
};
SegmentsForFlavour global_segments_only(litmus::GenerateOptions& g, std::string_view spec,
                                        const codegen::Target& target, const std::string& flavour) {
  const codegen::MemoryHierarchy& caches = codegen::memory_hierarchy(target);
  if (caches.workgroup_span(flavour) != codegen::WorkgroupSpan::Agent ||
      std::find(g.segments.begin(), g.segments.end(), litmus::Segment::Group) == g.segments.end())
    return {};
  const std::string why =
      fmt::format("the {} flavour on {} allocates no LDS (AMDGPUUsage, {})", flavour, target.name, caches.section());
  if (spec_names(spec, "segments"))
    return {{},
            fmt::format("--generate '{}' asks for group locations, which no test compiles to: {}; generate "
                        "with segments=global",
                        spec, why)};
  g.segments = {litmus::Segment::Global};
  return {fmt::format(" (segments=global: {})", why), {}};
}

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
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const codegen::Target* target = catalog.find(opt.target);
  if (!target) return bad(fmt::format("unknown target '{}' (known: {})", opt.target, fmt::join(catalog.names(), ", ")));

  verify::VerifyOptions options;
  options.target = opt.target;
  options.compile.flavour = opt.flavour;
  options.compile.sc_acquire_release = opt.run.sc_orders;
  options.minimise = !opt.no_minimise;
  options.jobs = jobs_or_cores(opt.run.jobs);
  if (auto error = apply_run_options(opt.run, opt.flavour, options.sim, options.model, options.confirm_engine))
    return bad(*error);

  std::optional<codegen::MappingTable> table;
  try {
    table = opt.mapping_file.empty() ? codegen::MappingTable::builtin(opt.table.empty() ? target->mapping : opt.table)
                                     : codegen::MappingTable::from_file(opt.mapping_file);
  } catch (const codegen::MappingError& e) {
    fmt::print(stderr, "{}\n", e.what());  // already `FILE[:LINE:COL]: error: ...`
    return kExitBadInput;
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
    if (!opt.run.generate.empty()) {
      generated = litmus::parse_generate_spec(opt.run.generate);
      const SegmentsForFlavour segments = global_segments_only(*generated, opt.run.generate, *target, opt.flavour);
      if (!segments.error.empty()) return bad(segments.error);
      const litmus::GenerateOptions& g = *generated;
      bound = bound_text(g, opt.run.generate) + segments.note;
      if (opt.mutate && (opt.larger.empty() ? g.cycles.empty() : true)) {
        larger_generated = opt.larger.empty() ? g : litmus::parse_generate_spec(opt.larger);
        if (!opt.larger.empty()) {
          const SegmentsForFlavour larger_segments =
              global_segments_only(*larger_generated, opt.larger, *target, opt.flavour);
          if (!larger_segments.error.empty()) return bad(larger_segments.error);
        }
        if (opt.larger.empty()) ++larger_generated->max_accesses;
        larger_bound = opt.larger.empty() ? fmt::format("{} threads x {} accesses", larger_generated->max_threads,
                                                        larger_generated->max_accesses)
                                          : opt.larger;
      }
    } else {
      std::optional<std::vector<litmus::Test>> read = read_all_tests(opt.run.inputs);
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

  results::CampaignInfo code_origin;
  code_origin.target = opt.target;
  code_origin.mapping = table->name();
  code_origin.mapping_file = opt.mapping_file;
  code_origin.mapping_hash = results::content_hash(verify::table_to_json(*table).dump());
  code_origin.flavour = opt.flavour;
  code_origin.model = std::string(model::to_string(options.model.variant));
  const ClaimedFolder out_folder = claim_results_folder(code_origin, opt.run, generated);  // held till written
  if (out_folder.refused) return kExitBadInput;

  verify::VerificationCache cache;
  verify::VerifyReport report;
  std::string statistics;
  std::optional<verify::BoundStatistics> bound_statistics;
  std::vector<std::string> rows_used;
  std::string cost_summary;
  if (!opt.space_costs.empty() && !generated) return bad("--space-costs needs --generate");
  if (opt.search_every_space && !generated) return bad("--search-every-space needs --generate");
  if (opt.every_variation && !generated) return bad("--every-variation needs --generate");
  if (opt.time_limit && !generated) return bad("--time-limit needs --generate");
  if (!opt.larger.empty() && !opt.mutate) return bad("--larger needs --mutate");
  try {
    if (generated) {
      // Every variation of the bound, one test per class of variations with the same code
      // (docs/verification.md), unless --every-variation.
      verify::BoundOptions bo;
      bo.every_variation = opt.every_variation;
      bo.time_limit_seconds = opt.time_limit;
      bo.memory_limit = opt.run.memory_limit;
      // Facts 9 and 10 decide spaces from the order their code keeps; searching those spaces
      // instead cross-checks them (docs/verification.md).
      bo.preserved_order = bo.race_free_in_order = !opt.search_every_space;
      std::optional<SpaceCostLog> costs;
      if (!opt.space_costs.empty()) {
        costs.emplace(opt.space_costs);
        bo.on_space = [&](const verify::SpaceCost& c) { costs->add(c); };
      }
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
      if (costs) {
        costs->commit();
        cost_summary = costs->summary();
      }
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
  if (!cost_summary.empty()) fmt::print("\n{}", cost_summary);

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

  if (!opt.run.out.empty()) {
    try {
      write_verify_results(code_origin, opt.run, generated, started, started_at, report, rows_used, bound_statistics,
                           text);
      const std::filesystem::path dir(opt.run.out);
      if (mutation) {
        results::write_file_atomically(dir / "mutation.txt", verify::render_text(*mutation));
        results::write_file_atomically(dir / "mutation.json", verify::to_json(*mutation).dump(2) + "\n");
      }
    } catch (const std::exception& e) {
      return bad(e.what());
    }
  }
  return report.verified_sound() ? kExitOk : kExitCheckFailed;
}

}  // namespace

Command add_verify_command(CLI::App& app) {
  auto opt = std::make_shared<VerifyCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "verify-mapping",
      "Check that a mapping table is sound up to a bound: on every race-free test, every final state the "
      "simulator reaches is one the model allows");
  add_run_options(*cmd, opt->run, /*time_limit_alias=*/false);  // --time-limit bounds a whole --generate search
  CLI::Option* mapping = cmd->add_option("--mapping", opt->mapping_file, "a mapping table file");
  cmd->add_option("--table", opt->table, "a shipped mapping table by name (default: the target's)")->excludes(mapping);
  cmd->add_option("--target,--mcpu", opt->target, "processor (default gfx900)");
  cmd->add_option("--flavour", opt->flavour, "the table's flavour (default hsa)");
  cmd->add_flag("--sc-orders", opt->run.sc_orders,
                "select seq_cst rows for scacq and screl (HSA SysArch 3.3.1) instead of acquire and release");
  cmd->add_flag("--no-minimise", opt->no_minimise, "report counterexamples as found, without shrinking them");
  cmd->add_flag("--mutate", opt->mutate,
                "mutation score: remove each instruction and clear each cache bit of each used row, verify again");
  cmd->add_option("--larger", opt->larger,
                  "the bound on which surviving mutants are checked (default: --generate with one more access)");
  cmd->add_flag("--every-variation", opt->every_variation,
                "--generate: check every test of the bound, not one per class of variations with the same code");
  cmd->add_flag("--search-every-space", opt->search_every_space,
                "--generate: search the spaces that facts 9 and 10 decide from the order their code keeps, to "
                "cross-check them (docs/verification.md)");
  cmd->add_option("--space-costs", opt->space_costs,
                  "--generate: write what each space's search cost to FILE (tab-separated) and print where the time "
                  "went per placement and segments");
  cmd->add_option("--time-limit", opt->time_limit,
                  "--generate: stop the search after SECONDS in all, the verdict then unknown (default: no limit; "
                  "--timeout is the simulator's, per test)")
      ->check(seconds_value());
  return {cmd, [opt] { return run_verify(*opt); }};
}

}  // namespace hsalit::cli
