// Running external tools (llc, llvm-as, opt) without a shell: argument vectors passed as
// they are, stdout and stderr captured, exit status checked, and temporary folders that
// remove themselves.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hsalit::codegen {

struct ProcessResult {
  int exit_status = -1;  // the status passed to exit(), or -1 when killed by a signal
  int signal = 0;        // the signal that ended it, 0 if it exited
  std::string out, err;
  bool ok() const { return exit_status == 0; }
};

struct ProcessError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct ProcessOptions {
  // When set, the child's TMPDIR: compilers that leave temporaries behind (clang's HIP
  // offloading keeps an empty folder per compile) leave them in a folder that the caller removes.
  std::optional<std::filesystem::path> temp_dir;
};

// Runs argv[0] (looked up in PATH when it has no slash) with the arguments as given, stdin
// from /dev/null, and waits for it. Throws ProcessError when the program cannot be started.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// The program's path: `name` itself when it contains a slash and is executable, else the
// first executable `name` in PATH; nullopt when there is none.
std::optional<std::filesystem::path> find_program(std::string_view name);

// A fresh folder from mkdtemp under TMPDIR (or /tmp), removed with its contents on
// destruction.
class TempDir {
 public:
  explicit TempDir(std::string_view prefix = "hsalit");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace hsalit::codegen
