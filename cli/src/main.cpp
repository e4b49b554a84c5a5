// hsalit: litmus tests for the HSA memory model on AMD GCN/CDNA GPUs.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"

namespace {

// The number of single-character insertions, deletions and substitutions from a to b.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// A word where a subcommand must stand (`hsalit chek`, `hsalit results merg`) that names none:
// the message for it, with the nearest name when one is close. CLI11 would only say that a
// subcommand is required, or that the word was not expected.
std::optional<std::string> unknown_subcommand(const CLI::App& app, int argc, char** argv) {
  const CLI::App* level = &app;
  std::string path = "hsalit";
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    const std::vector<const CLI::App*> subcommands = level->get_subcommands([](const CLI::App*) { return true; });
    if (word.starts_with("-") || subcommands.empty()) return std::nullopt;
    const auto named = std::find_if(subcommands.begin(), subcommands.end(),
                                    [&](const CLI::App* s) { return s->check_name(std::string(word)); });
    if (named != subcommands.end()) {
      level = *named;
      path += " " + level->get_name();
      continue;
    }
    std::vector<std::string> names;
    for (const CLI::App* s : subcommands) names.push_back(s->get_name());
    const auto nearest = std::min_element(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
      return edit_distance(word, a) < edit_distance(word, b);
    });
    std::string message = fmt::format("{}: error: unknown subcommand '{}'", path, word);
    if (edit_distance(word, *nearest) <= std::max<std::size_t>(2, nearest->size() / 3))
      message += fmt::format("; did you mean '{}'?", *nearest);
    else
      message += fmt::format(" (subcommands: {})", fmt::join(names, ", "));
    return message;
  }
  return std::nullopt;
}

}  // namespace

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

  if (std::optional<std::string> message = unknown_subcommand(app, argc, argv)) {
    fmt::print(stderr, "{}\n", *message);
    return kExitBadInput;
  }
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
