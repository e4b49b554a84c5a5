// hsalit: litmus tests for the HSA memory model on AMD GCN/CDNA GPUs.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <exception>
#include <vector>

#include "commands.hpp"

int main(int argc, char** argv) {
  using namespace hsalit::cli;
  CLI::App app{
      "hsalit: check litmus tests against the HSA memory model, compile them for AMD "
      "GPUs, run them and compare"};
  app.set_version_flag("--version", std::string("hsalit ") + HSALIT_VERSION);
  app.require_subcommand(1);

  const std::vector<Command> commands = {
      add_parse_command(app),    add_check_command(app),  add_compile_command(app), add_mappings_command(app),
      add_run_command(app),      add_gen_command(app),    add_verify_command(app),  add_verify_llc_command(app),
      add_campaign_command(app), add_report_command(app), add_results_command(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  try {
    for (const Command& c : commands)
      if (c.app->parsed()) return c.run();
  } catch (const std::exception& e) {
    fmt::print(stderr, "hsalit: error: {}\n", e.what());
    return kExitBadInput;
  }
  return kExitBadInput;
}
