// Running the built `hsalit` (HSALIT_CLI) as a user would, from a test of its own folder: the
// fixture the command-line suites share.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace test_support {

// What a command did: its exit status, what it printed, and (where measured) how long it took.
struct Outcome {
  int status = -1;
  std::string out, err;
  double seconds = 0;
};

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// Starts the built hsalit with `args` (no shell) and `environment` added, stdin from
// /dev/null, stdout and stderr to the files `out` and `err`, and TMPDIR in `out`'s folder (a
// run that a test kills cannot remove its temporary folders: they stay in the test's own);
// returns the child's pid without waiting.
inline pid_t spawn_hsalit(const std::vector<std::string>& args, const std::filesystem::path& out,
                          const std::filesystem::path& err,
                          const std::vector<std::pair<std::string, std::string>>& environment = {}) {
  pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("TMPDIR", out.parent_path().c_str(), 1);
    for (const auto& [name, value] : environment) ::setenv(name.c_str(), value.c_str(), 1);
    std::freopen("/dev/null", "r", stdin);
    std::freopen(out.c_str(), "w", stdout);
    std::freopen(err.c_str(), "w", stderr);
    std::vector<char*> argv;
    std::string cli = HSALIT_CLI;
    argv.push_back(cli.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(cli.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

// Runs the built hsalit with `args` (no shell), its output through files in `scratch`.
inline Outcome run_hsalit(const std::vector<std::string>& args, const std::filesystem::path& scratch) {
  const std::filesystem::path out = scratch / "stdout", err = scratch / "stderr";
  int raw = 0;
  ::waitpid(spawn_hsalit(args, out, err), &raw, 0);
  Outcome r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

// The first program of `names` found in PATH.
inline std::optional<std::filesystem::path> find_program(std::initializer_list<const char*> names) {
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "/usr/bin";
  for (const char* name : names) {
    std::stringstream dirs(path);
    for (std::string d; std::getline(dirs, d, ':');)
      if (::access((std::filesystem::path(d) / name).c_str(), X_OK) == 0) return std::filesystem::path(d) / name;
  }
  return std::nullopt;
}

// `s` as one word of a POSIX shell command line.
inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// A fresh folder per test (`TMP/hsalit-SUITE-TEST-PID`), removed after it, where the test
// writes its inputs and the commands it runs write their output.
class CliFolder : public testing::Test {
 protected:
  void SetUp() override {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    dir_ = std::filesystem::temp_directory_path() /
           (std::string("hsalit-") + info->test_suite_name() + "-" + info->name() + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs `PROGRAM ARGS` with no input, capturing stdout and stderr through files in the folder.
  Outcome run(const std::string& program, const std::vector<std::string>& args) {
    std::string cmd = quote(program);
    for (const std::string& a : args) cmd += " " + quote(a);
    const std::filesystem::path out = dir_ / "stdout", err = dir_ / "stderr";
    cmd += " >" + quote(out.string()) + " 2>" + quote(err.string()) + " </dev/null";
    Outcome r;
    const int raw = std::system(cmd.c_str());
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = read_file(out);
    r.err = read_file(err);
    return r;
  }

  // Runs `hsalit ARGS`.
  Outcome hsalit(const std::vector<std::string>& args) { return run(HSALIT_CLI, args); }

  // Writes `text` to `name` in the folder (creating its parents) and returns its path.
  std::string write(const std::string& name, const std::string& text) {
    const std::filesystem::path p = dir_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

  std::filesystem::path dir_;
};

}  // namespace test_support
