// The conventions `hsalit` shares with the tools beside it (llc, herd7, litmus7), the same in
// every subcommand: `-o FILE`, `--mcpu` and `--target` as one option, `--timeout` with
// `--time-limit` as its other name, a mistyped option or subcommand answered with the nearest
// name, `-j 0` for one job per core, and `--iterations` counting test instances on every backend.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_support.hpp"

namespace {

namespace fs = std::filesystem;

using test_support::Outcome;
using test_support::read_file;

// Message passing with agent-scope release and acquire, race-free and consistent.
const char* kMessagePassing =
    "LISA MP\n{ x = 0; y = 0; 1:r1 = -1; }\n P0 | P1 ;\n w[] x 1 | r[atomic,scacq,agent] r0 y ;\n"
    " w[atomic,screl,agent] y 1 | mov r2 (neq r0 1) ;\n | b[] r2 Skip1 ;\n | r[] r1 x ;\n | Skip1: ;\n"
    "scopes: (agent (wg 0) (wg 1))\nexists (1:r0=1 /\\ 1:r1=0)\n";

class Conventions : public test_support::CliFolder {
 protected:
  std::string test_file() { return write("tests/mp.litmus", kMessagePassing); }
};

// `-o FILE` writes exactly what the command prints without it, and nothing on standard output;
// a file that cannot be written is an error naming it, and an existing file is replaced.
TEST_F(Conventions, OutputFileHoldsWhatStandardOutputWould) {
  const std::string file = test_file();
  const std::vector<std::vector<std::string>> commands = {
      {"parse", "--print"}, {"check"}, {"compile", "--target", "gfx942"}, {"run", "--exhaustive"}};
  for (const std::vector<std::string>& command : commands) {
    SCOPED_TRACE(command.front());
    std::vector<std::string> args = command;
    args.push_back(file);
    const Outcome printed = hsalit(args);
    ASSERT_EQ(printed.status, 0) << printed.err;
    const fs::path out = dir_ / (command.front() + ".out");
    write(out.filename().string(), "an older file, replaced whole\n");
    std::vector<std::string> to_file = args;
    to_file.insert(to_file.begin() + 1, {"-o", out.string()});
    const Outcome written = hsalit(to_file);
    ASSERT_EQ(written.status, 0) << written.err;
    EXPECT_EQ(written.out, "");
    std::string expected = printed.out, got = read_file(out);
    if (command.front() == "check" || command.front() == "run") {
      // The time each took differs from run to run: compare up to the line that says it.
      auto without_times = [](std::string text) {
        std::string kept;
        for (std::size_t start = 0; start < text.size();) {
          const std::size_t end = text.find('\n', start);
          const std::string line = text.substr(start, end - start);
          if (!line.starts_with("Time ") && line.find("per second") == std::string::npos) kept += line + "\n";
          start = end == std::string::npos ? text.size() : end + 1;
        }
        return kept;
      };
      expected = without_times(expected);
      got = without_times(got);
    }
    EXPECT_EQ(got, expected);
    EXPECT_FALSE(expected.empty());
  }
  const Outcome unwritable = hsalit({"check", "-o", (dir_ / "no-such-folder" / "x.txt").string(), file});
  EXPECT_EQ(unwritable.status, 2);
  EXPECT_NE(unwritable.err.find("no-such-folder/x.txt"), std::string::npos) << unwritable.err;
}

// LLVM's `--mcpu` and hsalit's `--target` name one option in every command that takes either.
TEST_F(Conventions, McpuAndTargetAreOneOption) {
  const std::string file = test_file();
  for (const char* command : {"compile", "run", "campaign", "verify-mapping", "verify-llc", "verify-mlir"}) {
    const Outcome help = hsalit({command, "--help"});
    EXPECT_NE(help.out.find("--target"), std::string::npos) << command << "\n" << help.out;
    EXPECT_NE(help.out.find("--mcpu"), std::string::npos) << command << "\n" << help.out;
  }
  const Outcome target = hsalit({"compile", "--target", "gfx942", file});
  const Outcome mcpu = hsalit({"compile", "--mcpu", "gfx942", file});
  ASSERT_EQ(mcpu.status, 0) << mcpu.err;
  EXPECT_EQ(mcpu.out, target.out);
  EXPECT_NE(mcpu.out.find("gfx942"), std::string::npos) << mcpu.out;
  EXPECT_EQ(hsalit({"verify-mapping", "--engine", "enum", "--mcpu", "gfx90a", file}).status, 0);
  const Outcome campaign = hsalit({"campaign", "-q", "--mcpu", "gfx90a", "--out", (dir_ / "c").string(), file});
  ASSERT_EQ(campaign.status, 0) << campaign.out << campaign.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(dir_ / "c" / "results.json"))["campaign"]["target"], "gfx90a");
}

// `--timeout` is the time limit's name in every command, `--time-limit` its other name; both are
// checked alike. verify-mapping keeps `--time-limit` for its whole search (--timeout is per test).
TEST_F(Conventions, TimeoutAndTimeLimitNameOneLimit) {
  const std::string file = test_file();
  for (const char* command : {"check", "run", "campaign", "verify-llc"}) {
    SCOPED_TRACE(command);
    for (const char* name : {"--timeout", "--time-limit"}) {
      const Outcome help = hsalit({command, "--help"});
      EXPECT_NE(help.out.find(name), std::string::npos) << help.out;
      const Outcome bad = hsalit({command, name, "nan", file});
      EXPECT_EQ(bad.status, 2) << bad.err;
      EXPECT_NE(bad.err.find("not a finite number of seconds"), std::string::npos) << bad.err;
    }
  }
  for (const char* name : {"--timeout", "--time-limit"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(hsalit({"check", name, "30", file}).status, 0);
    // One microsecond for the whole test: unknown, whichever name set it.
    const Outcome campaign = hsalit({"campaign", "-q", name, "0.000001", "--out", (dir_ / name).string(), file});
    EXPECT_EQ(campaign.status, 1) << campaign.out << campaign.err;
    EXPECT_NE(campaign.out.find("1 unknown"), std::string::npos) << campaign.out;
  }
}

// A mistyped option is answered with the nearest name of the options its subcommand takes, as a
// mistyped subcommand is with the nearest subcommand.
TEST_F(Conventions, MistypedOptionOrSubcommandSuggestsTheNearest) {
  const std::string file = test_file();
  const Outcome option = hsalit({"check", "--enigne", "z3", file});
  EXPECT_EQ(option.status, 2);
  EXPECT_NE(option.err.find("hsalit check: error: unknown option '--enigne'; did you mean '--engine'?"),
            std::string::npos)
      << option.err;
  const Outcome nested = hsalit({"results", "merge", "--froce", "a", "b"});
  EXPECT_EQ(nested.status, 2);
  EXPECT_NE(nested.err.find("hsalit results merge: error: unknown option '--froce'; did you mean '--force'?"),
            std::string::npos)
      << nested.err;
  const Outcome far = hsalit({"run", "--frobnicate", file});
  EXPECT_EQ(far.status, 2);
  EXPECT_NE(far.err.find("unknown option '--frobnicate' (see hsalit run --help)"), std::string::npos) << far.err;
  const Outcome subcommand = hsalit({"verify-maping", file});
  EXPECT_EQ(subcommand.status, 2);
  EXPECT_NE(subcommand.err.find("did you mean 'verify-mapping'?"), std::string::npos) << subcommand.err;
  // After `--` every word is an input, even one that looks like an option.
  const Outcome after = hsalit({"parse", "--", "--enigne"});
  EXPECT_EQ(after.err.find("unknown option"), std::string::npos) << after.err;
}

// `-j 0` is one job per core in every command that takes -j.
TEST_F(Conventions, JobsZeroIsOnePerCoreEverywhere) {
  const std::string file = test_file();
  EXPECT_EQ(hsalit({"check", "-j", "0", file}).status, 0);
  EXPECT_EQ(hsalit({"run", "--iterations", "1000", "-j", "0", file}).status, 0);
  EXPECT_EQ(hsalit({"campaign", "-q", "-j", "0", "--out", (dir_ / "c").string(), file}).status, 0);
  EXPECT_EQ(hsalit({"verify-mapping", "--engine", "enum", "-j", "0", file}).status, 0);
  const Outcome llc = hsalit({"verify-llc", "--llc", "llc-19", "--engine", "enum", "-j", "0", file});
  if (llc.status == 2 && llc.err.find("not found") != std::string::npos) GTEST_SKIP() << llc.err;
  EXPECT_EQ(llc.status, 0) << llc.out << llc.err;
}

// `--iterations N` is N test instances on the simulator and on the GPU backends alike (there,
// whole launches of --instances: at least N), and --json says what was asked and what ran.
TEST_F(Conventions, IterationsCountTestInstancesOnEveryBackend) {
  const std::string file = test_file();
  const Outcome sim = hsalit({"run", "--iterations", "100", "--json", file});
  ASSERT_EQ(sim.status, 0) << sim.err;
  const nlohmann::json s = nlohmann::json::parse(sim.out);
  EXPECT_EQ(s["iterations_requested"], 100);
  EXPECT_EQ(s["iterations"], 100);
  // The HIP harness built for CPU threads: no GPU needed.
  const Outcome hip = hsalit({"run", "--backend", "hip", "--host-emulation", "--instances", "64", "--workgroup-size",
                              "64", "--iterations", "100", "--json", file});
  if (hip.out.empty() && hip.err.find("compiler") != std::string::npos) GTEST_SKIP() << hip.err;
  ASSERT_FALSE(hip.out.empty()) << hip.err;
  const nlohmann::json h = nlohmann::json::parse(hip.out);
  ASSERT_FALSE(h.contains("unknown_reason")) << h;
  EXPECT_EQ(h["iterations_requested"], 100);
  EXPECT_EQ(h["launches"], 2);  // 64 instances each: the 100 asked for, and 28 more
  EXPECT_EQ(h["iterations"], 128);
}

}  // namespace
