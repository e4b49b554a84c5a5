#include "verify_results.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "hsalit/litmus/evaluate.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/results/atomic_file.hpp"
#include "hsalit/results/execute.hpp"
#include "hsalit/results/output_folder.hpp"
#include "hsalit/results/report.hpp"
#include "memory_limit.hpp"
#include "option_checks.hpp"
#include "source_commit.hpp"

namespace hsalit::cli {

namespace {

// One verified test as a campaign record (results/include/hsalit/results/campaign.hpp), so
// that `hsalit report DIR` renders verify-mapping's and verify-llc's results like a campaign's.
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
  if (v.compiled && !v.sim && v.status == verify::TestStatus::Unknown) {
    r.run.status = results::StageStatus::Unknown;  // the simulator could not run the code
    r.run.reason = v.reason;
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

// A `--generate` spec without its `shard=I/N` item: what the shards of one bound share.
std::string spec_without_shard(std::string_view spec) {
  std::vector<std::string_view> kept;
  for (std::size_t start = 0; start <= spec.size();) {
    std::size_t end = spec.find(',', start);
    if (end == std::string_view::npos) end = spec.size();
    const std::string_view item = spec.substr(start, end - start);
    if (!item.empty() && !item.starts_with("shard=")) kept.push_back(item);  // as parse_generate_spec splits
    start = end + 1;
  }
  return fmt::format("{}", fmt::join(kept, ","));
}

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
                    {"decided_in_one_agent", s.decided_in_one_agent},
                    {"decided_by_preserved_order", s.decided_by_preserved_order},
                    {"decided_race_free_in_order", s.decided_race_free_in_order},
                    {"variations", s.variations},
                    {"classes", s.classes},
                    {"checked", s.checked},
                    {"symmetric", s.symmetric},
                    {"racy_below_racy", s.racy_below_racy},
                    {"decided_below_weaker", s.decided_below_weaker},
                    {"decided_by_narrower_scope", s.decided_by_narrower_scope},
                    {"weaker_code_simulations", s.weaker_code_simulations},
                    {"weaker_code_in_program_order", s.weaker_code_in_program_order},
                    {"weaker_code_left_out", s.weaker_code_left_out},
                    {"critical_branchings", s.critical_branchings},
                    {"compiles", s.compiles}};
    v.cpu_seconds = s.cpu_seconds_workers;
  }
  return v;
}

}  // namespace

void add_run_options(CLI::App& cmd, VerifyRunOptions& run, bool time_limit_alias) {
  CLI::Option* inputs = cmd.add_option("inputs", run.inputs, "litmus files or folders");
  cmd.add_option("--generate", run.generate,
                 "generate the tests instead: threads=2,accesses=2[,orders=..,scopes=..,segments=..,placements=..,"
                 "fences=..,deps=..,family=..,cycle=..,edges=..,max=..,shard=I/N] (docs/generation.md)")
      ->excludes(inputs);
  cmd.add_option("--assume", run.assume,
                 fmt::format("hardware assumption: {} (one per --assume)", runner::kAssumptionNames))
      ->allow_extra_args(false);
  cmd.add_option(time_limit_alias ? "--timeout,--time-limit" : "--timeout", run.timeout,
                 "simulator seconds per test (default 60)")
      ->check(seconds_value());
  cmd.add_option("--engine", run.engine,
                 "model engine: auto (default: per test, as for check), z3 or enum; counterexamples are "
                 "confirmed by the other one");
  cmd.add_option("--model", run.model,
                 "the model that judges the simulated outcomes: hsa, hrf-indirect, hrf-direct or opencl (default: "
                 "opencl for the opencl flavour, hsa otherwise)");
  cmd.add_option("-j,--jobs", run.jobs, "tests verified in parallel (0: one per core; default 1)")->check(jobs_count());
  cmd.add_option("--out", run.out,
                 "write results.json (campaign format with the verification), the reports, verify.txt and "
                 "counterexamples here (refused where another run's results are, unless --force)");
  cmd.add_flag("--force", run.force,
               "--out: replace the results of another run there (a campaign, another configuration or bound)");
  add_memory_limit_option(&cmd, run.memory_limit);
}

std::optional<std::string> apply_run_options(const VerifyRunOptions& run, std::string_view flavour,
                                             runner::SimOptions& sim, model::CheckOptions& model,
                                             std::optional<model::Engine>& confirm_engine) {
  if (run.inputs.empty() == run.generate.empty())
    return "give test files or folders, or --generate SPEC (one of the two)";
  std::string error;
  const std::optional<model::ModelVariant> variant = model_for_flavour(run.model, flavour, error);
  if (!variant) return error;
  model.variant = *variant;
  const std::optional<model::Engine> engine = model::engine_from_string(run.engine);
  if (!engine) return fmt::format("unknown engine '{}' (auto, z3, enum)", run.engine);
  model.engine = *engine;
  confirm_engine = *engine == model::Engine::Auto ? model::Engine::Auto
                   : *engine == model::Engine::Z3 ? model::Engine::Enum
                                                  : model::Engine::Z3;
  sim.timeout_seconds = run.timeout;
  sim.memory_limit = model.memory_limit = run.memory_limit;
  for (const std::string& a : run.assume)
    if (!runner::apply_assumption(a, sim.hw))
      return fmt::format("unknown assumption '{}' ({})", a, runner::kAssumptionNames);
  return std::nullopt;
}

namespace {

// The run's configuration, inputs and shard as results.json records them (no times).
results::CampaignInfo run_info(results::CampaignInfo info, const VerifyRunOptions& run,
                               const std::optional<litmus::GenerateOptions>& generated) {
  info.hsalit_version = HSALIT_VERSION;
  info.source_commit = source_commit();
  info.source_modified = source_modified();
  info.backend = "sim";
  info.exhaustive = true;
  info.engine = run.engine;
  info.sc_orders = run.sc_orders;
  info.assumptions = results::name_set(run.assume);
  info.time_limit_seconds = run.timeout;
  info.inputs =
      run.generate.empty() ? run.inputs : std::vector<std::string>{"--generate " + spec_without_shard(run.generate)};
  if (generated && generated->shard.count > 1)
    info.shard =
        results::Shard{static_cast<unsigned>(generated->shard.index), static_cast<unsigned>(generated->shard.count)};
  return info;
}

}  // namespace

ClaimedFolder claim_results_folder(const results::CampaignInfo& code_origin, const VerifyRunOptions& run,
                                   const std::optional<litmus::GenerateOptions>& generated) {
  ClaimedFolder claimed;
  if (run.out.empty()) return claimed;
  try {
    claimed.lock.emplace(run.out);
    results::refuse_results_of_another_run(run.out, results::ResultsKind::Verification,
                                           run_info(code_origin, run, generated), run.force);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}\n", e.what());
    claimed.lock.reset();
    claimed.refused = true;
  }
  return claimed;
}

void write_verify_results(results::CampaignInfo code_origin, const VerifyRunOptions& run,
                          const std::optional<litmus::GenerateOptions>& generated,
                          std::chrono::steady_clock::time_point started, const std::string& started_at,
                          const verify::VerifyReport& report, const std::vector<std::string>& rows_used,
                          const std::optional<verify::BoundStatistics>& statistics, const std::string& text) {
  results::CampaignInfo info = run_info(std::move(code_origin), run, generated);
  info.started = started_at;
  info.finished = results::utc_now();
  info.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  const std::filesystem::path dir(run.out);
  std::filesystem::create_directories(dir);
  results::CampaignResults res;
  res.info = std::move(info);
  for (const verify::TestVerification& v : report.tests) res.tests.push_back(to_record(v));
  std::sort(res.tests.begin(), res.tests.end(),
            [](const results::TestRecord& a, const results::TestRecord& b) { return a.file < b.file; });
  const std::string bound =
      run.generate.empty() ? fmt::format("{} given tests", report.total()) : spec_without_shard(run.generate);
  res.verification = verification_record(report, bound, rows_used, statistics);
  results::remove_stale_results(dir);  // an earlier run's counterexamples, journal, mutation score
  results::write_all(dir, res);
  results::write_file_atomically(dir / "verify.txt", text);
  // Named after the tests, which the input names: sanitised and unique (docs/verification.md).
  const std::filesystem::path counterexamples = dir / "counterexamples";
  results::OutputNames names;
  for (const verify::TestVerification& v : report.tests)
    if (v.counterexample) {
      std::filesystem::create_directories(counterexamples);
      results::write_file_atomically(
          results::path_in_folder(counterexamples, names.claim(v.counterexample->test.name, ".litmus")),
          litmus::print_litmus(v.counterexample->test));
    }
}

}  // namespace hsalit::cli
