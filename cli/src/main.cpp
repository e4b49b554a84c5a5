// hsalit: litmus tests for the HSA memory model on AMD GCN/CDNA GPUs.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "output_file.hpp"
#include "source_commit.hpp"

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

// The nearest of `names` to `word` when it is close enough to be a slip of the keyboard.
std::optional<std::string> nearest_name(std::string_view word, const std::vector<std::string>& names) {
  const auto nearest = std::min_element(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return edit_distance(word, a) < edit_distance(word, b);
  });
  if (nearest == names.end() || edit_distance(word, *nearest) > std::max<std::size_t>(2, nearest->size() / 3))
    return std::nullopt;
  return *nearest;
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
    std::string message = fmt::format("{}: error: unknown subcommand '{}'", path, word);
    if (std::optional<std::string> nearest = nearest_name(word, names))
      message += fmt::format("; did you mean '{}'?", *nearest);
    else
      message += fmt::format(" (subcommands: {})", fmt::join(names, ", "));
    return message;
  }
  return std::nullopt;
}

// A `--word` that no option of the subcommand it follows takes (`hsalit check --enigne z3`):
// the message, with the nearest option name when one is close. CLI11 would only say that the
// argument was not expected. Stops at `--`, after which every word is an input.
std::optional<std::string> unknown_option(const CLI::App& app, int argc, char** argv) {
  const CLI::App* level = &app;
  std::string path = "hsalit";
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") return std::nullopt;
    if (!word.starts_with("-")) {
      for (const CLI::App* sub : level->get_subcommands([](const CLI::App*) { return true; }))
        if (sub->check_name(std::string(word))) {
          level = sub;
          path += " " + sub->get_name();
          break;
        }
      continue;
    }
    if (!word.starts_with("--")) continue;
    const std::string name(word.substr(2, word.find('=') - 2));
    std::vector<std::string> names;
    bool known = false;
    for (const CLI::App* owner = level; owner; owner = owner->get_parent())
      for (const CLI::Option* option : owner->get_options()) {
        known |= option->check_lname(name);
        for (const std::string& long_name : option->get_lnames()) names.push_back("--" + long_name);
      }
    if (known) continue;
    std::string message = fmt::format("{}: error: unknown option '--{}'", path, name);
    if (std::optional<std::string> nearest = nearest_name("--" + name, names))
      message += fmt::format("; did you mean '{}'?", *nearest);
    else
      message += fmt::format(" (see {} --help)", path);
    return message;
  }
  return std::nullopt;
}

// Runs the chosen command, its standard output sent to the file of `-o` where it has one.
int run_command(const hsalit::cli::Command& command) {
  const std::optional<std::filesystem::path> output = hsalit::cli::output_file_of(*command.app);
  if (!output) return command.run();
  hsalit::cli::StandardOutputToFile to_file(*output);
  const int status = command.run();
  to_file.commit();
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace hsalit::cli;
  CLI::App app{
      "hsalit: check litmus tests against the HSA memory model, compile them for AMD "
      "GPUs, run them and compare"};
  app.set_version_flag("--version", "hsalit " + hsalit::cli::version_with_commit(HSALIT_VERSION));
  app.require_subcommand(1);

  const std::vector<Command> commands = {
      add_parse_command(app),       add_check_command(app),    add_compile_command(app), add_mappings_command(app),
      add_run_command(app),         add_gen_command(app),      add_verify_command(app),  add_verify_llc_command(app),
      add_verify_mlir_command(app), add_campaign_command(app), add_report_command(app),  add_results_command(app),
      add_doctor_command(app),
  };

  for (auto check : {unknown_subcommand, unknown_option})
    if (std::optional<std::string> message = check(app, argc, argv)) {
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
      if (c.app->parsed()) return run_command(c);
  } catch (const std::exception& e) {
    fmt::print(stderr, "hsalit: error: {}\n", e.what());
    return kExitBadInput;
  }
  return kExitBadInput;
}
