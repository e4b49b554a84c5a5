// `hsalit verify-llc`: is a real llc's code for the tests sound (docs/verification.md, "The real
// compiler (verify-llc)")?
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hsalit/codegen/llc.hpp"
#include "hsalit/litmus/generate.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/verify/verify_llc.hpp"
#include "test_files.hpp"

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
};

int run_verify_llc(const VerifyLlcOptions& opt) {
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
  try {
    if (!opt.generate.empty()) {
      for (auto& t : litmus::generate_tests(litmus::parse_generate_spec(opt.generate)))
        tests.push_back(std::move(t.test));
    } else {
      std::optional<std::vector<litmus::Test>> read = read_all_tests(opt.inputs);
      if (!read) return kExitBadInput;
      tests = std::move(*read);
    }
  } catch (const std::exception& e) {
    return bad(e.what());
  }

  verify::ModelCache cache;
  verify::VerifyReport report = verify::verify_via_llc(tests, llc, options, cache);
  if (opt.json) {
    for (const verify::TestVerification& v : report.tests) fmt::print("{}\n", verify::to_json(v).dump());
    fmt::print("{}\n", verify::summary_json(report, llc.name, opt.mcpu).dump());
  } else {
    fmt::print("{}", verify::render_llc_text(report, llc.name, opt.mcpu));
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
  return {cmd, [opt] { return run_verify_llc(*opt); }};
}

}  // namespace hsalit::cli
