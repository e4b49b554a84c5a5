// `hsalit verify-llc`: is a real llc's code for the tests sound (docs/verification.md, "The real
// compiler (verify-llc)")?
#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hsalit/codegen/llc.hpp"
#include "hsalit/litmus/generate.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/results/execute.hpp"
#include "hsalit/verify/verify_llc.hpp"
#include "test_files.hpp"
#include "verify_results.hpp"

namespace hsalit::cli {

namespace {

struct VerifyLlcOptions {
  std::vector<std::string> inputs;
  std::string generate;
  std::string llc = "llc";
  std::string mcpu = "gfx900";
  bool volatile_ordinary = false;
  bool sc_orders = false;
  std::vector<std::string> assume;
  double timeout = 60;
  bool json = false;
  std::string out;
  std::string engine = "z3";
  int jobs = 1;
};

int run_verify_llc(const VerifyLlcOptions& opt) {
  const auto started = std::chrono::steady_clock::now();
  const std::string started_at = results::utc_now();
  auto bad = [](const std::string& message) {
    fmt::print(stderr, "hsalit verify-llc: error: {}\n", message);
    return kExitBadInput;
  };
  if (opt.inputs.empty() == opt.generate.empty())
    return bad("give test files or folders, or --generate SPEC (one of the two)");
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  if (!catalog.find(opt.mcpu))
    return bad(fmt::format("unknown target '{}' (known: {})", opt.mcpu, fmt::join(catalog.names(), ", ")));

  verify::LlcVerifyOptions options;
  options.target = opt.mcpu;
  options.ir.volatile_ordinary = opt.volatile_ordinary;
  options.ir.sc_orders = opt.sc_orders;
  options.sim.timeout_seconds = opt.timeout;
  if (opt.jobs < 1) return bad("--jobs must be at least 1");
  options.jobs = opt.jobs;
  const std::optional<model::Engine> engine = model::engine_from_string(opt.engine);
  if (!engine) return bad(fmt::format("unknown engine '{}' (z3, enum)", opt.engine));
  options.model.engine = *engine;
  // Every counterexample is confirmed by the other engine (as verify-mapping does).
  options.confirm_engine = *engine == model::Engine::Z3 ? model::Engine::Enum : model::Engine::Z3;
  for (const std::string& a : opt.assume)
    if (!runner::apply_assumption(a, options.sim.hw))
      return bad(fmt::format("unknown assumption '{}' ({})", a, runner::kAssumptionNames));

  codegen::LlcTool llc;
  try {
    llc = codegen::find_llc(opt.llc);
  } catch (const std::exception& e) {
    return bad(e.what());
  }

  std::vector<litmus::Test> tests;
  std::optional<litmus::GenerateOptions> generated;
  try {
    if (!opt.generate.empty()) {
      generated = litmus::parse_generate_spec(opt.generate);
      for (auto& t : litmus::generate_tests(*generated)) tests.push_back(std::move(t.test));
    } else {
      std::optional<std::vector<litmus::Test>> read = read_all_tests(opt.inputs);
      if (!read) return kExitBadInput;
      tests = std::move(*read);
    }
  } catch (const std::exception& e) {
    return bad(e.what());
  }

  verify::ModelCache cache;
  verify::VerifyReport report;
  try {
    report = verify::verify_via_llc(tests, llc, options, cache);
  } catch (const std::exception& e) {
    return bad(e.what());
  }
  const std::string text = verify::render_llc_text(report, llc.name, opt.mcpu);
  if (opt.json) {
    for (const verify::TestVerification& v : report.tests) fmt::print("{}\n", verify::to_json(v).dump());
    fmt::print("{}\n", verify::summary_json(report, llc.name, opt.mcpu).dump());
  } else {
    fmt::print("{}", text);
  }
  if (!opt.out.empty()) {
    try {
      // The compiler stands where a campaign names its table: llc's name, its path and a hash
      // of its version and flags (the code depends on them), and the IR's flavour.
      results::CampaignInfo info;
      info.hsalit_version = HSALIT_VERSION;
      info.target = opt.mcpu;
      info.mapping = llc.name;
      info.mapping_file = llc.path.string();
      info.mapping_hash = results::content_hash(fmt::format("LLVM {} {}", llc.version, fmt::join(llc.flags, " ")));
      info.flavour = opt.volatile_ordinary ? "llvm-ir-volatile" : "llvm-ir";
      info.engine = opt.engine;
      info.sc_orders = opt.sc_orders;
      info.assumptions = results::name_set(opt.assume);
      info.time_limit_seconds = opt.timeout;
      record_inputs(info, opt.inputs, opt.generate, generated);
      info.started = started_at;
      info.finished = results::utc_now();
      info.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      const std::string bound =
          generated ? spec_without_shard(opt.generate) : fmt::format("{} given tests", tests.size());
      write_verify_results(opt.out, std::move(info), report,
                           verification_record(report, bound, verify::rows_used(report), std::nullopt), text);
    } catch (const std::exception& e) {
      return bad(e.what());
    }
  }
  return report.sound() ? kExitOk : kExitCheckFailed;
}

}  // namespace

Command add_verify_llc_command(CLI::App& app) {
  auto opt = std::make_shared<VerifyLlcOptions>();
  CLI::App* cmd = app.add_subcommand(
      "verify-llc",
      "Check a real llc's code: on every race-free test, every final state the simulator reaches with the test "
      "compiled by llc is one the model allows");
  cmd->add_option("inputs", opt->inputs, "litmus files or folders");
  cmd->add_option("--generate", opt->generate,
                  "generate the tests instead: threads=2,accesses=2[,orders=..,scopes=..,...] (docs/generation.md)");
  cmd->add_option("--llc", opt->llc, "the llc: llc-19, llc, or a path (default llc)");
  cmd->add_option("--mcpu", opt->mcpu, "processor (default gfx900)");
  cmd->add_flag("--volatile", opt->volatile_ordinary, "ordinary accesses become volatile in the IR");
  cmd->add_flag("--sc-orders", opt->sc_orders, "scacq and screl become seq_cst in the IR");
  cmd->add_option("--assume", opt->assume,
                  fmt::format("hardware assumption: {} (one per --assume)", runner::kAssumptionNames))
      ->allow_extra_args(false);
  cmd->add_option("--timeout", opt->timeout, "simulator seconds per test (default 60)");
  cmd->add_flag("--json", opt->json, "one JSON object per test, then a summary object");
  cmd->add_option("--out", opt->out,
                  "write results.json (campaign format with the verification), the reports, verify.txt and "
                  "counterexamples here");
  cmd->add_option("--engine", opt->engine,
                  "model engine: z3 or enum (default z3); counterexamples are confirmed by the other one");
  cmd->add_option("-j,--jobs", opt->jobs, "tests verified in parallel, one llc process each (default 1)");
  return {cmd, [opt] { return run_verify_llc(*opt); }};
}

}  // namespace hsalit::cli
