// `hsalit verify-mapping`: is a mapping table sound up to a bound (docs/verification.md)?
#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <memory>
#include <system_error>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hsalit/litmus/evaluate.hpp"
#include "hsalit/litmus/generate.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/results/atomic_file.hpp"
#include "hsalit/results/campaign.hpp"
#include "hsalit/results/report.hpp"
#include "hsalit/verify/bound.hpp"
#include "hsalit/verify/mutation.hpp"
#include "hsalit/verify/verify.hpp"
#include "test_files.hpp"

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

std::string utc_now() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string bound_text(const litmus::GenerateOptions& o, std::string_view spec) {
  if (!o.cycles.empty()) return fmt::format("generated: {}", spec);
  return fmt::format("generated up to {} threads x {} accesses ({})", o.max_threads, o.max_accesses, spec);
}

// A `--generate` spec without its `shard=I/N` item: what the shards of one bound share (their
// results merge into the bound's, docs/verification.md).
std::string spec_without_shard(std::string_view spec) {
  std::vector<std::string_view> kept;
  for (std::size_t start = 0; start <= spec.size();) {
    std::size_t end = spec.find(',', start);
    if (end == std::string_view::npos) end = spec.size();
    const std::string_view item = spec.substr(start, end - start);
    if (!item.starts_with("shard=")) kept.push_back(item);
    start = end + 1;
  }
  return fmt::format("{}", fmt::join(kept, ","));
}

// One verified test as a campaign record (results/include/hsalit/results/campaign.hpp), so
// that `hsalit report DIR` renders verify-mapping results like a campaign's.
results::TestRecord to_record(const verify::TestVerification& v) {
  results::TestRecord r;
  r.file = v.name + ".litmus";
  r.name = v.name;
  r.description = v.test.description;
  const std::string text = litmus::print_litmus(v.test);
  r.content_hash = results::content_hash(text);
  r.condition =
      fmt::format("{} ({})", litmus::to_string(v.test.condition.quantifier), litmus::print_prop(v.test.condition.prop));
  r.reason = v.reason;
  r.seconds = v.seconds;
  switch (v.status) {
    case verify::TestStatus::Sound: r.verdict = results::VerdictClass::Consistent; break;
    case verify::TestStatus::Counterexample: r.verdict = results::VerdictClass::Violation; break;
    case verify::TestStatus::Racy: r.verdict = results::VerdictClass::Undefined; break;
    default: r.verdict = results::VerdictClass::Unknown; break;
  }
  auto satisfies = [&](const std::vector<litmus::ObservedRef>& refs, const std::vector<std::int64_t>& values) {
    auto value = [&](const litmus::ObservedRef& ref) -> std::int64_t {
      for (std::size_t i = 0; i < refs.size(); ++i)
        if (refs[i].thread == ref.thread && refs[i].name == ref.name) return values[i];
      return 0;
    };
    return litmus::evaluate(v.test.condition.prop, value, [](const std::string&) { return std::int64_t{-1}; });
  };
  if (v.model) {
    const model::CheckResult& m = *v.model;
    for (const auto& ref : m.observed) r.observed_refs.push_back(ref.to_string());
    r.model.status = m.unknown() ? results::StageStatus::Unknown : results::StageStatus::Ok;
    if (m.unknown()) r.model.reason = *m.unknown_reason;
    r.model.result = m.unknown() ? "" : std::string(model::to_string(m.verdict));
    r.model.racy = m.racy;
    if (m.race) r.model.race = fmt::format("{} and {}", m.race->first, m.race->second);
    r.model.seconds = m.time_ms / 1000;
    for (const model::Outcome& o : m.outcomes) {
      results::AllowedOutcome a;
      for (std::size_t i = 0; i < m.observed.size(); ++i) a.outcome.values.push_back(std::to_string(o.values[i]));
      a.satisfies = satisfies(m.evaluated, o.values);
      if (v.sim) {
        for (const auto& [so, n] : v.sim->histogram) {
          bool same = true;
          for (std::size_t i = 0; i < v.sim->observed.size() && same; ++i)
            for (std::size_t j = 0; j < m.evaluated.size(); ++j)
              if (m.evaluated[j].thread == v.sim->observed[i].thread && m.evaluated[j].name == v.sim->observed[i].name)
                same = so.values[i] == o.values[j];
          if (same) a.observed += n;
        }
      }
      r.model.allowed.push_back(std::move(a));
    }
  }
  if (v.compiled) {
    r.compile.status = results::StageStatus::Ok;
    for (const codegen::CompiledThread& t : v.compiled->threads) {
      results::ThreadCode code;
      code.thread = t.thread;
      for (const codegen::Instruction& ins : t.code)
        code.lines.push_back(ins.origin.row.empty() ? codegen::print(ins)
                                                    : fmt::format("{}  ; {}", codegen::print(ins), ins.origin.row));
      r.compile.threads.push_back(std::move(code));
    }
  } else if (v.status == verify::TestStatus::Unsupported) {
    r.compile.status = results::StageStatus::Unknown;
    r.compile.reason = v.reason;
  }
  if (v.sim) {
    r.run.status = v.sim->unknown ? results::StageStatus::Unknown : results::StageStatus::Ok;
    if (v.sim->unknown) r.run.reason = *v.sim->unknown;
    r.run.states = v.sim->states;
    r.run.seconds = v.sim->seconds;
    for (const auto& [o, n] : v.sim->histogram) {
      results::ObservedOutcome obs;
      for (std::int64_t value : o.values) obs.outcome.values.push_back(std::to_string(value));
      obs.count = n;
      obs.satisfies = satisfies(v.sim->observed, o.values);
      obs.judgement = std::find(v.forbidden.begin(), v.forbidden.end(), o) != v.forbidden.end()
                          ? results::Judgement::Forbidden
                          : results::Judgement::Allowed;
      r.run.histogram.push_back(std::move(obs));
    }
  }
  return r;
}

// The verification as results.json records it: counts, rows used, the bound's statistics.
results::Verification verification_record(const verify::VerifyReport& report, const std::string& bound,
                                          const std::vector<std::string>& rows_used,
                                          const std::optional<verify::BoundStatistics>& statistics) {
  results::Verification v;
  v.bound = bound;
  v.tests = report.total();
  v.sound = report.count(verify::TestStatus::Sound);
  v.counterexamples = report.count(verify::TestStatus::Counterexample);
  v.racy = report.count(verify::TestStatus::Racy);
  v.unsupported = report.count(verify::TestStatus::Unsupported);
  v.unknown = report.count(verify::TestStatus::Unknown);
  v.rows_used = results::name_set(rows_used);
  if (statistics) {
    const verify::BoundStatistics& s = *statistics;
    v.statistics = {{"spaces", s.spaces},
                    {"same_program_spaces", s.same_program_spaces},
                    {"variations", s.variations},
                    {"classes", s.classes},
                    {"checked", s.checked},
                    {"symmetric", s.symmetric},
                    {"racy_below_racy", s.racy_below_racy},
                    {"decided_below_weaker", s.decided_below_weaker},
                    {"weaker_code_simulations", s.weaker_code_simulations},
                    {"weaker_code_left_out", s.weaker_code_left_out},
                    {"compiles", s.compiles}};
    v.cpu_seconds = s.cpu_seconds_workers;
  }
  return v;
}

int run_verify(const VerifyCommandOptions& opt) {
  const auto started = std::chrono::steady_clock::now();
  const std::string started_at = utc_now();
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
      const std::filesystem::path dir(opt.out);
      std::filesystem::create_directories(dir);
      results::CampaignResults res;
      res.info.hsalit_version = HSALIT_VERSION;
      res.info.target = opt.target;
      res.info.mapping = table->name();
      res.info.mapping_file = opt.mapping_file;
      res.info.mapping_hash = results::content_hash(verify::table_to_json(*table).dump());
      res.info.flavour = opt.flavour;
      res.info.backend = "sim";
      res.info.engine = opt.engine;
      res.info.sc_orders = opt.sc_orders;
      res.info.assumptions = results::name_set(opt.assume);
      res.info.exhaustive = true;
      res.info.time_limit_seconds = opt.timeout;
      // A shard of a bound is recorded as the bound and its shard, so that `hsalit results
      // merge` joins the shards into the bound's verification (and refuses an incomplete set).
      res.info.inputs = opt.generate.empty()
                            ? opt.inputs
                            : std::vector<std::string>{"--generate " + spec_without_shard(opt.generate)};
      if (generated && generated->shard.count > 1)
        res.info.shard = results::Shard{static_cast<unsigned>(generated->shard.index),
                                        static_cast<unsigned>(generated->shard.count)};
      res.verification = verification_record(report, generated ? spec_without_shard(opt.generate) : bound, rows_used,
                                             bound_statistics);
      res.info.started = started_at;
      res.info.finished = utc_now();
      res.info.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      for (const verify::TestVerification& v : report.tests) res.tests.push_back(to_record(v));
      std::sort(res.tests.begin(), res.tests.end(),
                [](const results::TestRecord& a, const results::TestRecord& b) { return a.file < b.file; });
      results::write_all(dir, res);
      results::write_file_atomically(dir / "verify.txt", text);
      for (const verify::TestVerification& v : report.tests)
        if (v.counterexample) {
          std::filesystem::create_directories(dir / "counterexamples");
          results::write_file_atomically(dir / "counterexamples" / (v.counterexample->test.name + ".litmus"),
                                         litmus::print_litmus(v.counterexample->test));
        }
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
