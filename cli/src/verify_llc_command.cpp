// `hsalit verify-llc`: is a real llc's code for the tests sound (docs/verification.md, "The real
// compiler (verify-llc)")?
#include <fmt/format.h>

#include <algorithm>
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
#include "option_checks.hpp"
#include "test_files.hpp"
#include "verify_results.hpp"

namespace hsalit::cli {

namespace {

struct VerifyLlcOptions {
  VerifyRunOptions run;
  std::string llc = "llc";
  std::string mcpu = "gfx900";
  bool volatile_ordinary = false;
  bool json = false;
};

int run_verify_llc(const VerifyLlcOptions& opt) {
  const auto started = std::chrono::steady_clock::now();
  const std::string started_at = results::utc_now();
  auto bad = [](const std::string& message) {
    fmt::print(stderr, "hsalit verify-llc: error: {}\n", message);
    return kExitBadInput;
  };
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  if (!catalog.find(opt.mcpu))
    return bad(fmt::format("unknown target '{}' (known: {})", opt.mcpu, fmt::join(catalog.names(), ", ")));

  verify::LlcVerifyOptions options;
  options.target = opt.mcpu;
  options.ir.volatile_ordinary = opt.volatile_ordinary;
  options.ir.sc_orders = opt.run.sc_orders;
  options.jobs = jobs_or_cores(opt.run.jobs);
  if (auto error = apply_run_options(opt.run, "llvm-ir", options.sim, options.model, options.confirm_engine))
    return bad(*error);

  codegen::LlcTool llc;
  try {
    llc = codegen::find_llc(opt.llc);
  } catch (const std::exception& e) {
    return bad(e.what());
  }
  if (std::vector<std::string> known = codegen::llc_processors(llc);
      !known.empty() && std::find(known.begin(), known.end(), opt.mcpu) == known.end())
    return bad(fmt::format("{} does not know processor {} (`{} -march=amdgcn -mcpu=help` does not list it)", llc.name,
                           opt.mcpu, llc.name));

  std::vector<litmus::Test> tests;
  std::optional<litmus::GenerateOptions> generated;
  try {
    if (!opt.run.generate.empty()) {
      generated = litmus::parse_generate_spec(opt.run.generate);
      for (auto& t : litmus::generate_tests(*generated)) tests.push_back(std::move(t.test));
    } else {
      std::optional<std::vector<litmus::Test>> read = read_all_tests(opt.run.inputs);
      if (!read) return kExitBadInput;
      tests = std::move(*read);
    }
  } catch (const std::exception& e) {
    return bad(e.what());
  }

  // The compiler stands where a campaign names its table: llc's name, its path and a hash of
  // its version and flags (the code depends on them), and the IR's flavour.
  results::CampaignInfo code_origin;
  code_origin.target = opt.mcpu;
  code_origin.mapping = llc.name;
  code_origin.mapping_file = llc.path.string();
  code_origin.mapping_hash = results::content_hash(fmt::format("LLVM {} {}", llc.version, fmt::join(llc.flags, " ")));
  code_origin.flavour = opt.volatile_ordinary ? "llvm-ir-volatile" : "llvm-ir";
  code_origin.model = std::string(model::to_string(options.model.variant));
  const ClaimedFolder out_folder = claim_results_folder(code_origin, opt.run, generated);  // held till written
  if (out_folder.refused) return kExitBadInput;

  verify::VerificationCache cache;
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
  if (!opt.run.out.empty()) {
    try {
      write_verify_results(code_origin, opt.run, generated, started, started_at, report, verify::rows_used(report),
                           std::nullopt, text);
    } catch (const std::exception& e) {
      return bad(e.what());
    }
  }
  return report.verified_sound() ? kExitOk : kExitCheckFailed;
}

}  // namespace

Command add_verify_llc_command(CLI::App& app) {
  auto opt = std::make_shared<VerifyLlcOptions>();
  CLI::App* cmd = app.add_subcommand(
      "verify-llc",
      "Check a real llc's code: on every race-free test, every final state the simulator reaches with the test "
      "compiled by llc is one the model allows");
  add_run_options(*cmd, opt->run);
  cmd->add_option("--llc", opt->llc, "the llc: llc-19, llc, or a path (default llc)");
  cmd->add_option("--mcpu,--target", opt->mcpu,
                  "processor (default gfx900); one the llc knows (`llc -march=amdgcn -mcpu=help` lists it)");
  cmd->add_flag("--volatile", opt->volatile_ordinary, "ordinary accesses become volatile in the IR");
  cmd->add_flag("--sc-orders", opt->run.sc_orders, "scacq and screl become seq_cst in the IR");
  cmd->add_flag("--json", opt->json, "one JSON object per test, then a summary object");
  return {cmd, [opt] { return run_verify_llc(*opt); }};
}

}  // namespace hsalit::cli
