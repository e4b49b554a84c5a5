// Running the built `hsalit` (HSALIT_CLI) as a user would, from a test of its own folder: the
// fixture the command-line suites share.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
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
