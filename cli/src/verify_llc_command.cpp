// `hsalit verify-llc` and `hsalit verify-mlir`: is the code a real compiler emits for the tests
// sound? verify-llc compiles LLVM IR with llc (docs/verification.md, "The real compiler
// (verify-llc)"); verify-mlir goes through the MLIR pipeline, mlir-opt, mlir-translate and the
// llc of the same version (docs/mlir.md).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hsalit/codegen/llc.hpp"
#include "hsalit/codegen/mlir.hpp"
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
  std::string mlir_opt;  // verify-mlir: the mlir-opt (its version's mlir-translate and llc go with it)
  std::string mlir_ops = "llvm";
  std::string mcpu = "gfx900";
  bool volatile_ordinary = false;
  bool json = false;
};

int run_verify_llc(const VerifyLlcOptions& opt) {
  const auto started = std::chrono::steady_clock::now();
  const std::string started_at = results::utc_now();
  const bool via_mlir = !opt.mlir_opt.empty();
  auto bad = [via_mlir](const std::string& message) {
    fmt::print(stderr, "hsalit {}: error: {}\n", via_mlir ? "verify-mlir" : "verify-llc", message);
    return kExitBadInput;
  };
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  if (!catalog.find(opt.mcpu))
    return bad(fmt::format("unknown target '{}' (known: {})", opt.mcpu, fmt::join(catalog.names(), ", ")));

  verify::LlcVerifyOptions options;
  options.target = opt.mcpu;
  options.ir.volatile_ordinary = opt.volatile_ordinary;
  options.ir.sc_orders = opt.run.sc_orders;
  const std::optional<codegen::MlirOps> mlir_ops = codegen::mlir_ops_from_string(opt.mlir_ops);
  if (!mlir_ops) return bad("--mlir-ops takes llvm or amdgpu");
  options.mlir = {*mlir_ops, opt.volatile_ordinary, opt.run.sc_orders};
  options.jobs = jobs_or_cores(opt.run.jobs);
  if (auto error =
          apply_run_options(opt.run, via_mlir ? "mlir" : "llvm-ir", options.sim, options.model, options.confirm_engine))
    return bad(*error);

  codegen::LlcTool llc;
  std::optional<codegen::MlirTools> mlir;
  try {
    if (via_mlir) {
      mlir = codegen::find_mlir_tools(opt.mlir_opt);
      llc = mlir->llc;
    } else {
      llc = codegen::find_llc(opt.llc);
    }
  } catch (const std::exception& e) {
    return bad(e.what());
  }
  // The compiler's name in reports: the llc, or the mlir-opt that leads the pipeline.
  const std::string compiler = via_mlir ? mlir->name : llc.name;
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
  code_origin.mapping = compiler;
  code_origin.mapping_file = via_mlir ? mlir->mlir_opt.string() : llc.path.string();
  code_origin.mapping_hash =
      results::content_hash(fmt::format("LLVM {} {}{}", llc.version, fmt::join(llc.flags, " "),
                                        via_mlir ? " " + codegen::mlir_pass_pipeline(*catalog.find(opt.mcpu)) : ""));
  code_origin.flavour = via_mlir ? fmt::format("mlir-{}", opt.mlir_ops) : "llvm-ir";
  if (opt.volatile_ordinary) code_origin.flavour += "-volatile";
  code_origin.model = std::string(model::to_string(options.model.variant));
  const ClaimedFolder out_folder = claim_results_folder(code_origin, opt.run, generated);  // held till written
  if (out_folder.refused) return kExitBadInput;

  verify::VerificationCache cache;
  verify::VerifyReport report;
  try {
    report = via_mlir ? verify::verify_via_mlir(tests, *mlir, options, cache)
                      : verify::verify_via_llc(tests, llc, options, cache);
  } catch (const std::exception& e) {
    return bad(e.what());
  }
  const std::string text = verify::render_llc_text(report, compiler, opt.mcpu);
  if (opt.json) {
    for (const verify::TestVerification& v : report.tests) fmt::print("{}\n", verify::to_json(v).dump());
    fmt::print("{}\n", verify::summary_json(report, compiler, opt.mcpu).dump());
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

Command add_verify_mlir_command(CLI::App& app) {
  auto opt = std::make_shared<VerifyLlcOptions>();
  CLI::App* cmd = app.add_subcommand(
      "verify-mlir",
      "Check the code the MLIR pipeline emits (mlir-opt, mlir-translate, llc of one LLVM version): on every "
      "race-free test, every final state the simulator reaches is one the model allows");
  add_run_options(*cmd, opt->run);
  cmd->add_option("--mlir-opt", opt->mlir_opt,
                  "the mlir-opt: mlir-opt-19, mlir-opt-22, or a path; the mlir-translate and llc of its version go "
                  "with it (default mlir-opt)")
      ->default_val("mlir-opt");
  cmd->add_option("--mlir-ops", opt->mlir_ops,
                  "llvm (memref and llvm dialect operations, the default) or amdgpu (amdgpu.raw_buffer_* for global "
                  "accesses, amdgpu.lds_barrier for barriers)");
  cmd->add_option("--mcpu,--target", opt->mcpu, "processor (default gfx900); one the llc of that version knows");
  cmd->add_flag("--volatile", opt->volatile_ordinary, "ordinary accesses become volatile llvm.load/llvm.store");
  cmd->add_flag("--sc-orders", opt->run.sc_orders, "scacq and screl become seq_cst");
  cmd->add_flag("--json", opt->json, "one JSON object per test, then a summary object");
  return {cmd, [opt] { return run_verify_llc(*opt); }};
}

}  // namespace hsalit::cli
