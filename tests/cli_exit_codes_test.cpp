// The exit-status contract of every `hsalit` subcommand, run as a user would (README, "Using
// it"): 0 when everything was judged and passed, 1 when a check failed or anything is unknown,
// 2 for bad input or usage. Bad option values and conflicting options are usage errors that
// name the options.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"

namespace {

namespace fs = std::filesystem;

using test_support::Outcome;
using test_support::read_file;

std::size_t occurrences(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
  return n;
}

// A consistent, race-free test: message passing with agent-scope release and acquire, the data
// read guarded by the flag.
const char* kGood =
    "LISA Good\n{ x = 0; y = 0; 1:r1 = -1; }\n P0 | P1 ;\n w[] x 1 | r[atomic,scacq,agent] r0 y ;\n"
    " w[atomic,screl,agent] y 1 | mov r2 (neq r0 1) ;\n | b[] r2 Skip1 ;\n | r[] r1 x ;\n | Skip1: ;\n"
    "scopes: (agent (wg 0) (wg 1))\nexists (1:r0=1 /\\ 1:r1=0)\n";
// A test that does not parse: a store without its value (line 4).
const char* kBroken = "LISA Broken\n{ x = 0; }\n P0 ;\n w[] x ;\nexists (x=1)\n";

class ExitCodes : public test_support::CliFolder {
 protected:
  // A usage error: exit 2, and the message names every one of `names`.
  void expect_usage_error(const std::vector<std::string>& args, const std::vector<std::string>& names) {
    const Outcome r = hsalit(args);
    std::string line;
    for (const std::string& a : args) line += a + " ";
    EXPECT_EQ(r.status, 2) << line << "\n" << r.out << r.err;
    for (const std::string& name : names) EXPECT_NE(r.err.find(name), std::string::npos) << line << "\n" << r.err;
  }

  // The usage errors every numeric option shares (cli/src/option_checks.hpp), for `option` of `command`.
  void expect_bad_counts_refused(std::vector<std::string> command, const std::string& option) {
    for (const char* value : {"0", "-5", "1.5", "x", "18446744073709551616"}) {
      std::vector<std::string> args = command;
      args.insert(args.end(), {option, value});
      expect_usage_error(args, {option});
    }
  }
  void expect_bad_seconds_refused(std::vector<std::string> command, const std::string& option) {
    for (const char* value : {"-1", "0", "nan", "inf", "1s"}) {
      std::vector<std::string> args = command;
      args.insert(args.end(), {option, value});
      expect_usage_error(args, {option});
    }
  }
  void expect_bad_jobs_refused(std::vector<std::string> command) {
    for (const char* value : {"-1", "two"}) {
      std::vector<std::string> args = command;
      args.insert(args.end(), {"-j", value});
      expect_usage_error(args, {"--jobs"});
    }
  }
};

TEST_F(ExitCodes, MistypedSubcommandSuggestsTheNearestName) {
  Outcome chek = hsalit({"chek", "x.litmus"});
  EXPECT_EQ(chek.status, 2);
  EXPECT_NE(chek.err.find("unknown subcommand 'chek'; did you mean 'check'?"), std::string::npos) << chek.err;
  Outcome merg = hsalit({"results", "merg", "a", "--out", "b"});
  EXPECT_EQ(merg.status, 2);
  EXPECT_NE(merg.err.find("hsalit results: error: unknown subcommand 'merg'; did you mean 'merge'?"), std::string::npos)
      << merg.err;
  Outcome lst = hsalit({"mappings", "lst"});
  EXPECT_EQ(lst.status, 2);
  EXPECT_NE(lst.err.find("did you mean 'list'?"), std::string::npos) << lst.err;
  Outcome far = hsalit({"zzzzzzzz"});
  EXPECT_EQ(far.status, 2);
  EXPECT_NE(far.err.find("unknown subcommand 'zzzzzzzz' (subcommands: parse, check,"), std::string::npos) << far.err;
}

TEST_F(ExitCodes, Parse) {
  const std::string good = write("good.litmus", kGood), broken = write("broken.litmus", kBroken);
  EXPECT_EQ(hsalit({"parse", good}).status, 0);
  EXPECT_EQ(hsalit({"parse", good, broken}).status, 2);
  expect_usage_error({"parse", "--print", "--json", good}, {"--print", "--json"});
}

TEST_F(ExitCodes, Check) {
  const std::string good = write("good.litmus", kGood);
  EXPECT_EQ(hsalit({"check", "--engine", "enum", good}).status, 0);
  // A verdict that differs from expected.json: a failed check.
  write("expected.json", R"({"schema": "hsalit-expected/1", "tests": {"good.litmus": {"hsa": "allowed"}}})");
  Outcome differs = hsalit({"check", "--engine", "enum", "--expect", good});
  EXPECT_EQ(differs.status, 1) << differs.err;
  EXPECT_EQ(hsalit({"check", write("broken.litmus", kBroken)}).status, 2);
  expect_bad_seconds_refused({"check", good}, "--timeout");
  expect_bad_jobs_refused({"check", good});
  expect_usage_error({"check", "--json", "--summary", good}, {"--json", "--summary"});
  EXPECT_EQ(hsalit({"check", "--engine", "enum", "-j", "0", "--timeout", "0.5", good}).status, 0);
}

// The OpenCL model (--model opencl) and its library: check --expect compares each test with its
// `opencl` verdict, and notes, without failing, a test whose sidecar gives none; verify-mapping
// judges the opencl flavour by it and exits 1 on gfx1200's finding 7.
TEST_F(ExitCodes, OpenClModel) {
  const fs::path library = fs::path(HSALIT_SOURCE_DIR) / "litmus/library-opencl";
  Outcome checked = hsalit({"check", "--model", "opencl", "--expect", "--summary", library.string()});
  EXPECT_EQ(checked.status, 0) << checked.out << checked.err;
  EXPECT_NE(checked.out.find("expected verdicts: 75 met, 0 not"), std::string::npos) << checked.out;
  const std::string good = write("good.litmus", kGood);
  write("expected.json", R"({"schema": "hsalit-expected/1", "tests": {"good.litmus": {"hsa": "allowed"}}})");
  Outcome without = hsalit({"check", "--model", "opencl", "--expect", good});
  EXPECT_EQ(without.status, 0) << without.err;
  EXPECT_NE(without.err.find("note: no expected verdict under opencl"), std::string::npos) << without.err;
  write("expected.json",
        R"({"schema": "hsalit-expected/1", "tests": {"good.litmus": {"hsa": "allowed", "opencl": "racy"}}})");
  EXPECT_EQ(hsalit({"check", "--model", "opencl", "--expect", good}).status, 1);
  expect_usage_error({"check", "--model", "c11", good}, {"c11"});
  const std::string finding = (library / "MP+glfences+ldata-wg_same-wg.litmus").string();
  Outcome gfx1200 = hsalit({"verify-mapping", "--target", "gfx1200", "--flavour", "opencl", finding});
  EXPECT_EQ(gfx1200.status, 1) << gfx1200.out;
  EXPECT_NE(gfx1200.out.find("COUNTEREXAMPLE found in MP+glfences+ldata-wg_same-wg"), std::string::npos);
  // A campaign of the opencl flavour is judged by OpenCL's model too, and records it.
  const fs::path campaign = dir_ / "campaign-opencl";
  Outcome observed = hsalit(
      {"campaign", "--target", "gfx1200", "--flavour", "opencl", "--exhaustive", "--out", campaign.string(), finding});
  EXPECT_EQ(observed.status, 1) << observed.out << observed.err;
  std::ifstream results(campaign / "results.json");
  const std::string text((std::istreambuf_iterator<char>(results)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"model\": \"opencl\""), std::string::npos);
  // The same test is sound on gfx1100, whose workgroup fences keep the LDS wait.
  EXPECT_EQ(hsalit({"verify-mapping", "--target", "gfx1100", "--flavour", "opencl", finding}).status, 0);
  EXPECT_EQ(
      hsalit({"verify-mapping", "--target", "gfx1200", "--flavour", "opencl", "--model", "bogus", finding}).status, 2);
}

// Writing C: gen --emit c writes tests that parse; a test C cannot write is an error naming the
// instruction (exit 2), and gen then writes nothing.
TEST_F(ExitCodes, WritingC) {
  const fs::path out = dir_ / "gen-c";
  Outcome gen = hsalit({"gen", "--family", "MP", "--orders", "na,rlx,scacq,screl", "--scopes", "agent", "--out",
                        out.string(), "--emit", "c"});
  EXPECT_EQ(gen.status, 0) << gen.err;
  EXPECT_EQ(hsalit({"parse", "-q", out.string()}).status, 0);
  const fs::path addr = dir_ / "gen-addr";
  Outcome refused =
      hsalit({"gen", "--family", "MP", "--deps", "addr", "--scopes", "agent", "--out", addr.string(), "--emit", "c"});
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("cannot be written in herd's C format: an address is a location"), std::string::npos)
      << refused.err;
  EXPECT_FALSE(fs::exists(addr / "index.json"));
  const std::string cas = write("cas.litmus",
                                "LISA cas\n{ x = 0; }\n P0 ;\n rmw[cas,atomic,scar,agent] r0 0 1 x ;\n"
                                "exists (x=1)\n");
  Outcome printed = hsalit({"parse", "--print-c", cas});
  EXPECT_EQ(printed.status, 2);
  EXPECT_NE(printed.err.find("a compare-and-swap"), std::string::npos) << printed.err;
  expect_usage_error({"gen", "--family", "MP", "--emit", "c"}, {"--emit", "--out"});
}

// herd's C format (docs/litmus-c.md) goes through the same subcommands: its library passes
// check --expect, compiles and runs; a C error is file:line:col with exit 2.
TEST_F(ExitCodes, CTests) {
  const fs::path library = fs::path(HSALIT_SOURCE_DIR) / "litmus/library-c";
  Outcome checked = hsalit({"check", "--engine", "enum", "--expect", library.string()});
  EXPECT_EQ(checked.status, 0) << checked.out << checked.err;
  const std::string mp = (library / "MP+agent+agent_diff-wg.litmus").string();
  EXPECT_EQ(hsalit({"compile", mp}).status, 0);
  EXPECT_EQ(hsalit({"run", "--exhaustive", mp}).status, 0);
  const std::string broken =
      write("broken-c.litmus", "C Broken\n{ x = 0; }\nP0(atomic_int* x) {\n  atomic_store(y, 1);\n}\nexists (x=0)\n");
  for (const char* command : {"parse", "check", "compile", "run"}) {
    Outcome r = hsalit({command, broken});
    EXPECT_EQ(r.status, 2) << command << "\n" << r.err;
    EXPECT_NE(r.err.find("broken-c.litmus:4:16: error: 'y' is not a parameter of P0"), std::string::npos)
        << command << "\n"
        << r.err;
  }
}

TEST_F(ExitCodes, Compile) {
  const std::string good = write("good.litmus", kGood);
  EXPECT_EQ(hsalit({"compile", good}).status, 0);
  EXPECT_EQ(hsalit({"compile", write("broken.litmus", kBroken)}).status, 2);
  const std::string table = (fs::path(HSALIT_SOURCE_DIR) / "codegen/mappings/gfx6-9.json").string();
  expect_usage_error({"compile", "--mapping", table, "--table", "gfx6-9", good}, {"--mapping", "--table"});
  expect_usage_error({"compile", "--via-llc", "llc-19", "--emit", "llvm-ir", good}, {"--via-llc", "--emit llvm-ir"});
  // A table and llc that differ: exit 1 (needs llc-19).
  const std::string lds = write("lds.litmus",
                                "LISA lds\n{ a = 0; z = 0; }\n P0 ;\n w[] a 1 ;\n w[atomic,screl,wg] z 1 ;\n"
                                "regions: a:group, z:group\nexists (z=1)\n");
  Outcome differs = hsalit({"compile", "--via-llc", "llc-19", lds});
  if (differs.status == 2 && differs.err.find("not found") != std::string::npos) GTEST_SKIP() << differs.err;
  EXPECT_EQ(differs.status, 1) << differs.err;
}

TEST_F(ExitCodes, Mappings) {
  EXPECT_EQ(hsalit({"mappings", "list"}).status, 0);
  const std::string table = (fs::path(HSALIT_SOURCE_DIR) / "codegen/mappings/gfx6-9.json").string();
  Outcome ok = hsalit({"mappings", "check", table});
  EXPECT_EQ(ok.status, 0) << ok.err;
  EXPECT_EQ(hsalit({"mappings", "check", write("t.json", "{}")}).status, 2);
  EXPECT_EQ(hsalit({"mappings"}).status, 2);
}

TEST_F(ExitCodes, Run) {
  const std::string good = write("good.litmus", kGood);
  EXPECT_EQ(hsalit({"run", "--exhaustive", good}).status, 0);
  EXPECT_EQ(hsalit({"run", "--iterations", "200", "--seed", "18446744073709551615", good}).status, 0);
  // A trace of an outcome the simulator does not reach: a failed check, not a usage error.
  Outcome unreachable = hsalit({"run", "--exhaustive", "--trace", "1:r0=1; 1:r1=0", good});
  EXPECT_EQ(unreachable.status, 1) << unreachable.err;
  EXPECT_NE(unreachable.err.find("it is not reachable"), std::string::npos) << unreachable.err;
  // A trace naming what the test lacks can never match: a usage error naming it.
  expect_usage_error({"run", "--exhaustive", "--trace", "1:r0=1; 3:r1=0", good},
                     {"'3:r1' names thread 3, which test Good lacks (threads 0 to 1; it observes 1:r0, 1:r1)"});
  expect_usage_error({"run", "--exhaustive", "--trace", "1:r0=1; 1:r7=0", good}, {"'1:r7' is not observed"});
  expect_usage_error({"run", "--exhaustive", "--trace", "1:r0=1", good}, {"no value for 1:r1"});
  expect_usage_error({"run", "--exhaustive", "--trace", "1:r0=one; 1:r1=0", good}, {"is not a number"});
  expect_usage_error({"run", "--trace", "1:r0=1; 1:r1=0", good}, {"--trace", "--exhaustive"});
  expect_usage_error({"run", "--json", "--exhaustive", "--trace", "1:r0=1; 1:r1=0", good}, {"--json", "--trace"});

  expect_bad_counts_refused({"run", good}, "--iterations");
  for (const char* seed : {"-1", "18446744073709551616", "1e3"})
    expect_usage_error({"run", "--seed", seed, good}, {"--seed"});
  expect_bad_seconds_refused({"run", good}, "--timeout");
  expect_bad_jobs_refused({"run", good});
  expect_usage_error({"run", "--exhaustive", "--iterations", "10", good}, {"--iterations", "--exhaustive"});
  expect_usage_error({"run", "--mapping", "t.json", "--table", "gfx6-9", good}, {"--mapping", "--table"});
  expect_usage_error({"run", "--instances", "8", good}, {"--instances needs --backend hip or cuda"});
  expect_usage_error({"run", "--resident-workgroups", "8", good},
                     {"--resident-workgroups needs --backend hip or cuda"});
  expect_usage_error({"run", "--backend", "cuda", "--resident-workgroups", "0", good}, {"--resident-workgroups"});
  expect_usage_error({"run", "--backend", "cuda", "--exhaustive", good}, {"--exhaustive needs --backend sim"});

  // A GPU backend without a GPU: unknown with why, exit 1, and no histogram of zeros.
  Outcome cuda = hsalit({"run", "--backend", "cuda", "--iterations", "100", good});
  if (cuda.status != 0) {
    EXPECT_EQ(cuda.status, 1) << cuda.err;
    // No GPU, or no CUDA toolkit to build the harness with: the reason as it is.
    EXPECT_TRUE(cuda.out.find("Test Good unknown: no GPU") != std::string::npos ||
                cuda.out.find("Test Good unknown: the harness was not built: nvcc not found") != std::string::npos)
        << cuda.out;
    EXPECT_EQ(cuda.out.find("Observation"), std::string::npos) << cuda.out;
  }
}

TEST_F(ExitCodes, Gen) {
  EXPECT_EQ(hsalit({"gen", "--family", "MP", "--count"}).status, 0);
  expect_usage_error({"gen", "--spec", "threads=1", "--threads", "2", "--count"}, {"--spec", "--threads"});
  expect_usage_error({"gen", "--spec", "threads=1", "--family", "MP", "--count"}, {"--spec", "--family"});
  expect_usage_error({"gen", "--count", "--out", (dir_ / "t").string()}, {"--count", "--out"});
  expect_bad_counts_refused({"gen", "--count"}, "--max");
  EXPECT_EQ(hsalit({"gen", "--threads", "9", "--count"}).status, 2);
}

TEST_F(ExitCodes, VerifyMapping) {
  const std::string good = write("good.litmus", kGood);
  Outcome sound = hsalit({"verify-mapping", "--engine", "enum", good});
  EXPECT_EQ(sound.status, 0) << sound.out << sound.err;
  // scacq/screl as acquire/release: store buffering has a counterexample (docs/mappings.md).
  Outcome found = hsalit({"verify-mapping", "--engine", "enum", "--no-minimise", "--generate",
                          "family=SB,scopes=agent+system,placements=diff-agent"});
  EXPECT_EQ(found.status, 1) << found.out << found.err;
  expect_usage_error({"verify-mapping", "--table", "gfx6-9", "--mapping", "t.json", good}, {"--mapping", "--table"});
  expect_usage_error({"verify-mapping", "--generate", "family=MP", good}, {"--generate", "inputs"});
  expect_usage_error({"verify-mapping", "--larger", "family=SB", good}, {"--larger needs --mutate"});
  expect_bad_seconds_refused({"verify-mapping", good}, "--timeout");
  expect_bad_jobs_refused({"verify-mapping", good});
  EXPECT_EQ(hsalit({"verify-mapping", "--engine", "enum", "-j", "0", good}).status, 0);  // 0: one per core
}

TEST_F(ExitCodes, VerifyLlc) {
  const std::string good = write("good.litmus", kGood);
  expect_bad_seconds_refused({"verify-llc", good}, "--timeout");
  expect_bad_jobs_refused({"verify-llc", good});
  expect_usage_error({"verify-llc", "--llc", "llc-99", good}, {"llc-99"});
  Outcome sound = hsalit({"verify-llc", "--llc", "llc-19", "--engine", "enum", good});
  if (sound.status == 2 && sound.err.find("not found") != std::string::npos) GTEST_SKIP() << sound.err;
  EXPECT_EQ(sound.status, 0) << sound.out << sound.err;
  Outcome found = hsalit({"verify-llc", "--llc", "llc-19", "--engine", "enum", "--generate",
                          "family=SB,scopes=agent,placements=diff-wg,orders=rlx+scacq+screl"});
  EXPECT_EQ(found.status, 1) << found.out << found.err;  // SB with acquire/release: finding 1
  // A processor this llc does not know (gfx950 is new in LLVM 20): refused before any test.
  expect_usage_error({"verify-llc", "--llc", "llc-19", "--mcpu", "gfx950", good}, {"llc-19", "gfx950"});
}

TEST_F(ExitCodes, VerifyMlir) {
  const std::string good = write("good.litmus", kGood);
  expect_bad_jobs_refused({"verify-mlir", good});
  expect_usage_error({"verify-mlir", "--mlir-opt", "mlir-opt-99", good}, {"mlir-opt-99", "mlir-99-tools"});
  expect_usage_error({"verify-mlir", "--mlir-opt", "mlir-opt-19", "--mlir-ops", "nvvm", good}, {"--mlir-ops"});
  Outcome sound = hsalit({"verify-mlir", "--mlir-opt", "mlir-opt-19", "--engine", "enum", good});
  if (sound.status == 2 && sound.err.find("not found") != std::string::npos) GTEST_SKIP() << sound.err;
  EXPECT_EQ(sound.status, 0) << sound.out << sound.err;
  Outcome found = hsalit({"verify-mlir", "--mlir-opt", "mlir-opt-19", "--engine", "enum", "--generate",
                          "family=SB,scopes=agent,placements=diff-wg,orders=rlx+scacq+screl"});
  EXPECT_EQ(found.status, 1) << found.out << found.err;  // SB with acquire/release: finding 1
  expect_usage_error({"verify-mlir", "--mlir-opt", "mlir-opt-19", "--mcpu", "gfx950", good}, {"llc-19", "gfx950"});
  // compile --emit mlir: the module, or a usage error for what it cannot take.
  Outcome module = hsalit({"compile", "--emit", "mlir", good});
  EXPECT_EQ(module.status, 0) << module.err;
  EXPECT_NE(module.out.find("gpu.module"), std::string::npos) << module.out;
  expect_usage_error({"compile", "--emit", "mlir", "--generic", good}, {"--generic", "mlir"});
  expect_usage_error({"compile", "--emit", "mlir", "--mlir-ops", "rocdl", good}, {"--mlir-ops"});
}

TEST_F(ExitCodes, CampaignFailsOnAnyUnknownTest) {
  write("tests/good.litmus", kGood);
  const std::string tests = (dir_ / "tests").string();
  Outcome passed = hsalit({"campaign", tests, "--out", (dir_ / "passed").string(), "-q"});
  EXPECT_EQ(passed.status, 0) << passed.out << passed.err;
  EXPECT_EQ(passed.out.find("unknown: "), std::string::npos) << passed.out;

  write("tests/broken.litmus", kBroken);
  Outcome unknown = hsalit({"campaign", tests, "--out", (dir_ / "unknown").string(), "-q"});
  EXPECT_EQ(unknown.status, 1) << unknown.out << unknown.err;
  EXPECT_NE(unknown.out.find("1 consistent, 0 violation, 0 undefined, 1 unknown"), std::string::npos) << unknown.out;
  EXPECT_NE(unknown.out.find("unknown: 1 test: 1 parse\n"), std::string::npos) << unknown.out;
  EXPECT_NE(unknown.out.find("unknown: broken: parse: "), std::string::npos) << unknown.out;
  const std::string junit = read_file(dir_ / "unknown" / "junit.xml");
  EXPECT_NE(junit.find("<error type=\"unknown\" message=\"parse: "), std::string::npos) << junit;
  EXPECT_EQ(junit.find("<skipped"), std::string::npos) << junit;

  const std::vector<std::string> campaign = {"campaign", tests, "--out", (dir_ / "bad").string()};
  expect_bad_counts_refused(campaign, "--iterations");
  expect_bad_counts_refused(campaign, "--instances");
  expect_bad_seconds_refused(campaign, "--timeout");  // --time-limit is its other name: the message names --timeout
  expect_bad_jobs_refused(campaign);
  for (const char* seed : {"-1", "18446744073709551616"})
    expect_usage_error({"campaign", tests, "--out", (dir_ / "bad").string(), "--seed", seed}, {"--seed"});
  expect_usage_error({"campaign", tests, "--out", (dir_ / "bad").string(), "--mapping", "t.json", "--table", "gfx6-9"},
                     {"--mapping", "--table"});
  expect_usage_error({"campaign", tests, "--out", (dir_ / "bad").string(), "--exhaustive", "--iterations", "5"},
                     {"--iterations", "--exhaustive"});
  expect_usage_error({"campaign", tests, "--out", (dir_ / "bad").string(), "--incantations", "stress"},
                     {"--incantations needs --backend hip or cuda"});
  EXPECT_FALSE(fs::exists(dir_ / "bad" / "results.json"));
}

TEST_F(ExitCodes, ReportCountsAFolderOnceAndFailsOnUnknownTests) {
  write("tests/good.litmus", kGood);
  const std::string passed = (dir_ / "passed").string();
  ASSERT_EQ(hsalit({"campaign", (dir_ / "tests").string(), "--out", passed, "-q"}).status, 0);
  write("tests/broken.litmus", kBroken);
  const std::string unknown = (dir_ / "unknown").string();
  ASSERT_EQ(hsalit({"campaign", (dir_ / "tests").string(), "--out", unknown, "-q"}).status, 1);

  EXPECT_EQ(hsalit({"report", passed}).status, 0);
  Outcome failed = hsalit({"report", passed, unknown});
  EXPECT_EQ(failed.status, 1) << failed.err;
  // The same folder twice, under two spellings: reported and counted once.
  Outcome twice = hsalit({"report", passed, passed + "/."});
  EXPECT_EQ(twice.status, 0) << twice.err;
  EXPECT_EQ(occurrences(twice.out, " tests: "), 1u) << twice.out;
  EXPECT_NE(twice.err.find("given more than once"), std::string::npos) << twice.err;
  EXPECT_EQ(hsalit({"report", (dir_ / "missing").string()}).status, 2);

  // A results.json that lists a test twice would count it twice: refused.
  nlohmann::json j = nlohmann::json::parse(read_file(fs::path(passed) / "results.json"));
  j["tests"].push_back(j["tests"][0]);
  write("passed/results.json", j.dump());
  Outcome listed_twice = hsalit({"report", passed});
  EXPECT_EQ(listed_twice.status, 2);
  EXPECT_NE(listed_twice.err.find("tests[1]: test '"), std::string::npos) << listed_twice.err;
  EXPECT_NE(listed_twice.err.find("good.litmus' is listed twice (also tests[0])"), std::string::npos)
      << listed_twice.err;
}

TEST_F(ExitCodes, MergeFailsOnUnknownTests) {
  write("tests/a.litmus", kGood);
  std::string renamed = kGood;
  renamed.replace(renamed.find("Good"), 4, "Other");
  write("tests/b.litmus", renamed);
  const std::string tests = (dir_ / "tests").string();
  std::vector<std::string> merge = {"results", "merge"};
  for (int i = 0; i < 2; ++i) {
    const std::string shard = (dir_ / ("shard" + std::to_string(i))).string();
    ASSERT_EQ(hsalit({"campaign", tests, "--out", shard, "--shard", std::to_string(i) + "/2", "-q"}).status, 0);
    merge.push_back(shard);
  }
  std::vector<std::string> passing = merge;
  passing.insert(passing.end(), {"--out", (dir_ / "merged").string()});
  Outcome passed = hsalit(passing);
  EXPECT_EQ(passed.status, 0) << passed.err;

  write("tests/b.litmus", kBroken);  // shard 1 again, with an unknown test
  fs::remove_all(dir_ / "shard1");
  ASSERT_EQ(hsalit({"campaign", tests, "--out", (dir_ / "shard1").string(), "--shard", "1/2", "-q"}).status, 1);
  std::vector<std::string> with_unknown = merge;
  with_unknown.insert(with_unknown.end(), {"--out", (dir_ / "merged-unknown").string()});
  Outcome unknown = hsalit(with_unknown);
  EXPECT_EQ(unknown.status, 1) << unknown.out << unknown.err;
  EXPECT_NE(unknown.out.find("1 unknown"), std::string::npos) << unknown.out;
  EXPECT_EQ(hsalit({"results", "merge", (dir_ / "missing").string(), "--out", (dir_ / "m").string()}).status, 2);
}

}  // namespace
