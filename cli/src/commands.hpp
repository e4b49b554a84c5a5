// The subcommands of the `hsalit` executable. Each registers itself on the CLI11 app and
// returns a callback that runs it and yields the process exit status.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace hsalit::cli {

// Exit statuses shared by every subcommand (README, "Using it"; tests/cli_exit_codes_test.cpp).
inline constexpr int kExitOk = 0;           // everything was judged and passed
inline constexpr int kExitCheckFailed = 1;  // a check failed, or anything is unknown (never a pass)
inline constexpr int kExitBadInput = 2;     // bad input or usage: a bad option value, options that exclude each other

struct Command {
  CLI::App* app = nullptr;   // the subcommand, to know whether it was chosen
  std::function<int()> run;  // runs it once the command line is parsed
};

Command add_parse_command(CLI::App& app);
Command add_check_command(CLI::App& app);
Command add_compile_command(CLI::App& app);
Command add_mappings_command(CLI::App& app);
Command add_run_command(CLI::App& app);
Command add_gen_command(CLI::App& app);
Command add_verify_command(CLI::App& app);
Command add_verify_llc_command(CLI::App& app);
Command add_verify_mlir_command(CLI::App& app);
Command add_campaign_command(CLI::App& app);
Command add_report_command(CLI::App& app);
Command add_results_command(CLI::App& app);
Command add_doctor_command(CLI::App& app);

}  // namespace hsalit::cli
