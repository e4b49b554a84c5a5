// `-o FILE` of the commands that write one output (parse, check, compile, run): what the
// command prints on standard output goes to FILE instead, as llc and herd7 users expect.
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <string>

namespace hsalit::cli {

// Registers `-o,--output FILE` on `cmd`.
CLI::Option* add_output_file_option(CLI::App* cmd);

// The FILE of a parsed command's `-o`, if it has the option and it was given.
std::optional<std::filesystem::path> output_file_of(const CLI::App& cmd);

// Standard output sent to a temporary file beside `target` (file descriptor 1 itself, so that
// everything the command and its child processes print goes there), renamed over `target` by
// commit(): a reader never sees half of it, and a command stopped before it leaves `target`
// as it was. Throws std::runtime_error `cannot write FILE: REASON` when the file cannot be made.
class StandardOutputToFile {
 public:
  explicit StandardOutputToFile(std::filesystem::path target);
  ~StandardOutputToFile();  // without commit(): standard output restored, the temporary removed
  StandardOutputToFile(const StandardOutputToFile&) = delete;
  StandardOutputToFile& operator=(const StandardOutputToFile&) = delete;

  void commit();

 private:
  void restore();

  std::filesystem::path target_, temporary_;
  int saved_stdout_ = -1;
  bool committed_ = false;
};

}  // namespace hsalit::cli
