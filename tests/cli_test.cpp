// The `hsalit` executable, run as a user would: exit statuses, messages and output.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"

namespace {

namespace fs = std::filesystem;

using test_support::Outcome;
using test_support::read_file;

class Cli : public test_support::CliFolder {
 protected:
  // Runs one of the repository's scripts the same way.
  Outcome script(const std::string& name, const std::vector<std::string>& args) {
    return run((fs::path(HSALIT_SOURCE_DIR) / "scripts" / name).string(), args);
  }

  static std::string good(const std::string& name) {
    return "LISA " + name +
           "\n{ x = 0; }\n P0 | P1 ;\n w[atomic,screl,agent] x 1 | r[atomic,scacq,agent] r0 x ;\n"
           "scopes: (agent (wg 0) (wg 1))\nexists (1:r0=1)\n";
  }
  // A bad test: line 4, column 13 stores with scacq.
  static std::string bad(const std::string& name) {
    return "LISA " + name +
           "\n{ x = 0; }\n P0 | P1 ;\n r[] r0 x | w[atomic,scacq,agent] x 1 ;\n"
           "scopes: (agent (wg 0 1))\nexists (0:r0=1)\n";
  }
};

TEST_F(Cli, VersionAndHelpExitZero) {
  Outcome v = hsalit({"--version"});
  EXPECT_EQ(v.status, 0) << v.err;
  EXPECT_NE(v.out.find("hsalit "), std::string::npos) << v.out;

  Outcome h = hsalit({"--help"});
  EXPECT_EQ(h.status, 0) << h.err;
  EXPECT_NE(h.out.find("parse"), std::string::npos) << h.out;

  Outcome ph = hsalit({"parse", "--help"});
  EXPECT_EQ(ph.status, 0) << ph.err;
  EXPECT_NE(ph.out.find("--json"), std::string::npos) << ph.out;
  EXPECT_NE(ph.out.find("--print"), std::string::npos) << ph.out;
}

// `--version` names the commit the sources were built from (a full hash, and whether tracked
// files differed from it), or "unknown" for a build outside a git checkout.
TEST_F(Cli, VersionNamesTheSourceCommit) {
  Outcome v = hsalit({"--version"});
  ASSERT_EQ(v.status, 0) << v.err;
  EXPECT_TRUE(
      std::regex_match(v.out, std::regex(R"(hsalit \d+\.\d+\.\d+ \(commit ([0-9a-f]{40}|unknown)(, modified)?\)\n)")))
      << v.out;
}

// cmake/source_commit.cmake, which the build runs: the checkout's HEAD and whether a tracked
// file differs from it; "unknown" for sources without a repository (a tarball).
TEST_F(Cli, SourceCommitComesFromTheCheckoutOrIsUnknown) {
  const fs::path script = fs::path(HSALIT_SOURCE_DIR) / "cmake" / "source_commit.cmake";
  const fs::path sources = dir_ / "sources", generated = dir_ / "source_commit.cpp";
  fs::create_directories(sources);
  write("sources/a.txt", "one\n");
  auto commit_of = [&]() {
    const Outcome r = run(
        HSALIT_CMAKE, {"-DSOURCE_DIR=" + sources.string(), "-DOUTPUT=" + generated.string(), "-P", script.string()});
    EXPECT_EQ(r.status, 0) << r.err;
    return read_file(generated);
  };
  std::string tarball = commit_of();
  EXPECT_NE(tarball.find("return \"unknown\";"), std::string::npos) << tarball;
  EXPECT_NE(tarball.find("return false;"), std::string::npos) << tarball;

  const std::string git = "git -C " + test_support::quote(sources.string());
  if (std::system(("git --version >/dev/null 2>&1")) != 0) GTEST_SKIP() << "no git";
  ASSERT_EQ(std::system((git + " init -q && " + git + " add a.txt && " + git +
                         " -c user.name=t -c user.email=t@example.org commit -qm one")
                            .c_str()),
            0);
  const Outcome head = run("git", {"-C", sources.string(), "rev-parse", "HEAD"});
  ASSERT_EQ(head.out.size(), 41u) << head.out;
  const std::string clean = commit_of();
  EXPECT_NE(clean.find("return \"" + head.out.substr(0, 40) + "\";"), std::string::npos) << clean;
  EXPECT_NE(clean.find("return false;"), std::string::npos) << clean;
  write("sources/a.txt", "two\n");
  const std::string modified = commit_of();
  EXPECT_NE(modified.find("return \"" + head.out.substr(0, 40) + "\";"), std::string::npos) << modified;
  EXPECT_NE(modified.find("return true;"), std::string::npos) << modified;
}

TEST_F(Cli, GoodFileExitsZero) {
  std::string f = write("good.litmus", good("Good"));
  Outcome r = hsalit({"parse", f});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("parsed 1 file: 1 ok, 0 with errors"), std::string::npos) << r.err;

  Outcome quiet = hsalit({"parse", "-q", f});
  EXPECT_EQ(quiet.status, 0);
  EXPECT_EQ(quiet.err, "");
}

TEST_F(Cli, BadFileReportsFileLineColumnAndExitsTwo) {
  std::string f = write("bad.litmus", bad("Bad"));
  Outcome r = hsalit({"parse", f});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(f + ":4:13: error: a store cannot be 'scacq' (stores are rlx, screl or "
                           "scar)"),
            std::string::npos)
      << r.err;

  std::string syntax = write("syntax.litmus", "LISA S\n{ x = 0 }\n P0 ;\n r[] r0 x $ ;\n");
  Outcome s = hsalit({"parse", syntax});
  EXPECT_EQ(s.status, 2);
  EXPECT_NE(s.err.find(syntax + ":4:11: error: unexpected character '$'"), std::string::npos) << s.err;
}

TEST_F(Cli, WarningsArePrintedButDoNotFail) {
  std::string f = write("noscopes.litmus", "LISA N\n{ x = 0; }\n P0 ;\n r[] r0 x ;\nexists (0:r0=0)\n");
  Outcome r = hsalit({"parse", f});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.err.find(f + ":5:1: warning: no 'scopes:' line"), std::string::npos) << r.err;
  Outcome q = hsalit({"parse", "-q", f});
  EXPECT_EQ(q.status, 0);
  EXPECT_EQ(q.err, "");
}

TEST_F(Cli, BatchReportsTheBadFileAndStillProcessesTheGoodOnes) {
  std::string a = write("a.litmus", good("First"));
  std::string b = write("b.litmus", bad("Broken"));
  std::string c = write("c.litmus", good("Third"));
  Outcome r = hsalit({"parse", "--print", a, b, c});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(b + ":4:13: error:"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("LISA First\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("LISA Third\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("Broken"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("parsed 3 files: 2 ok, 1 with errors"), std::string::npos) << r.err;
}

TEST_F(Cli, MissingFileIsReportedAndExitsTwo) {
  std::string a = write("a.litmus", good("First"));
  const std::string missing = (dir_ / "missing.litmus").string();
  Outcome r = hsalit({"parse", "--print", missing, a});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find(missing + ": error: cannot read"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("LISA First\n"), std::string::npos);
}

TEST_F(Cli, FolderArgumentTakesEveryLitmusFileRecursively) {
  write("lib/one.litmus", good("One"));
  write("lib/sub/two.litmus", good("Two"));
  write("lib/notes.txt", "not a test");
  Outcome r = hsalit({"parse", "--print", "--summary", (dir_ / "lib").string()});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("LISA One\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("LISA Two\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("folder"), std::string::npos) << r.out;  // the summary table
  EXPECT_NE(r.err.find("parsed 2 files: 2 ok, 0 with errors"), std::string::npos) << r.err;
}

TEST_F(Cli, JsonPrintsOneObjectPerLine) {
  std::string a = write("a.litmus", good("First"));
  std::string b = write("b.litmus", good("Second"));
  Outcome r = hsalit({"parse", "--json", a, b});
  EXPECT_EQ(r.status, 0) << r.err;
  std::istringstream lines(r.out);
  std::vector<nlohmann::json> docs;
  for (std::string line; std::getline(lines, line);) {
    ASSERT_NO_THROW(docs.push_back(nlohmann::json::parse(line))) << line;
  }
  ASSERT_EQ(docs.size(), 2u) << r.out;
  EXPECT_EQ(docs[0]["schema"], "hsalit-litmus/1");
  EXPECT_EQ(docs[0]["name"], "First");
  EXPECT_EQ(docs[1]["name"], "Second");
  EXPECT_EQ(docs[1]["threads"].size(), 2u);
}

TEST_F(Cli, UnknownSubcommandOrOptionExitsTwo) {
  Outcome sub = hsalit({"frobnicate"});
  EXPECT_EQ(sub.status, 2);
  EXPECT_NE(sub.err.find("subcommand"), std::string::npos) << sub.err;

  std::string a = write("a.litmus", good("First"));
  Outcome opt = hsalit({"parse", "--no-such-option", a});
  EXPECT_EQ(opt.status, 2);
  EXPECT_NE(opt.err.find("--no-such-option"), std::string::npos) << opt.err;

  Outcome none = hsalit({});
  EXPECT_EQ(none.status, 2);
  Outcome no_files = hsalit({"parse"});
  EXPECT_EQ(no_files.status, 2);
}

TEST_F(Cli, BundledLibraryParses) {
  Outcome r = hsalit({"parse", "-q", std::string(HSALIT_SOURCE_DIR) + "/litmus/library"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

}  // namespace

namespace {

// `hsalit check`, `compile`, `run` and `mappings` end to end.
const char* kRacyMp =
    "LISA MPracy\n{ x = 0; y = 0; }\n P0 | P1 ;\n w[] x 1 | r[atomic,scacq,wg] r0 y ;\n"
    " w[atomic,screl,wg] y 1 | r[] r1 x ;\nscopes: (agent (wg 0) (wg 1))\nexists (1:r0=1 /\\ 1:r1=0)\n";

TEST_F(Cli, CheckPrintsHerdStyleBlocks) {
  Outcome r = hsalit({"check", write("mp.litmus", kRacyMp)});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* line : {"Test MPracy Allowed\n", "States 4\n", "1:r0=1; 1:r1=0;\n", "Ok\n", "Witnesses\n",
                           "Positive: 1 Negative: 3\n", "Flag undefined\n", "Condition exists (1:r0=1 /\\ 1:r1=0)\n",
                           "Observation MPracy Sometimes 1 3\n", "Time MPracy "})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
}

TEST_F(Cli, CheckJsonHasTheDocumentedFieldsAndBothEnginesAgree) {
  std::string file = write("mp.litmus", kRacyMp);
  std::vector<nlohmann::json> results;
  for (const char* engine : {"z3", "enum"}) {
    Outcome r = hsalit({"check", "--json", "--engine", engine, file});
    ASSERT_EQ(r.status, 0) << r.err;
    nlohmann::json j = nlohmann::json::parse(r.out);
    for (const char* key : {"schema", "name", "file", "model", "engine", "racy", "race", "outcomes", "condition",
                            "result", "time_ms", "observation"})
      EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["schema"], "hsalit-check/1");
    EXPECT_EQ(j["racy"], true);
    EXPECT_EQ(j["race"]["kind"], "ordinary");
    EXPECT_EQ(j["condition"]["positive"], 1);
    EXPECT_EQ(j["engine"], std::string(engine));  // each run names the engine that decided it
    results.push_back(j);
  }
  EXPECT_EQ(results[0]["outcomes"], results[1]["outcomes"]);
  EXPECT_EQ(results[0]["result"], results[1]["result"]);
  EXPECT_GT(results[0]["outcomes"].size(), 1u);  // a comparison of several final states
}

// `--engine auto`, the default: the enum engine for a test of few candidate executions, Z3
// for one of many (a writer and four readers of four loads: 2^16 rf choices), each naming
// its choice and reason in --json, with the verdicts and outcomes of both named engines.
TEST_F(Cli, CheckAutoEnginePicksEnumForFewCandidatesAndZ3ForManyWithTheSameVerdicts) {
  auto row = [](const std::string& writer, const std::string& load) {
    std::string r = " " + writer;
    for (int reader = 0; reader < 4; ++reader) r += " | r[atomic," + load;
    return r + " ;\n";
  };
  const std::string readers = "LISA MP-4readers\n{ x = 0; y = 0; }\n P0 | P1 | P2 | P3 | P4 ;\n" +
                              row("w[atomic,rlx,agent] x 1", "scacq,agent] r0 y") +
                              row("w[atomic,screl,agent] y 1", "rlx,agent] r1 x") + row("", "rlx,agent] r2 y") +
                              row("", "rlx,agent] r3 x") +
                              "scopes: (agent (wg 0) (wg 1) (wg 2) (wg 3) (wg 4))\nexists (1:r0=1 /\\ 1:r1=0)\n";
  const std::pair<std::string, const char*> cases[] = {{write("mp.litmus", kRacyMp), "enum"},
                                                       {write("readers.litmus", readers), "z3"}};
  for (const auto& [file, picked] : cases) {
    SCOPED_TRACE(file);
    Outcome automatic = hsalit({"check", "--json", file});  // auto is the default
    ASSERT_EQ(automatic.status, 0) << automatic.err;
    const nlohmann::json a = nlohmann::json::parse(automatic.out);
    EXPECT_EQ(a["engine"], picked);
    EXPECT_NE(a["engine_reason"].get<std::string>().find(picked == std::string("enum") ? "few" : "many"),
              std::string::npos)
        << a["engine_reason"];
    for (const char* engine : {"z3", "enum"}) {
      Outcome named = hsalit({"check", "--json", "--engine", engine, file});
      ASSERT_EQ(named.status, 0) << named.err;
      const nlohmann::json n = nlohmann::json::parse(named.out);
      EXPECT_EQ(n["engine"], engine);
      EXPECT_EQ(n["engine_reason"], std::string("--engine ") + engine);
      for (const char* key : {"result", "racy", "outcomes", "condition"}) EXPECT_EQ(n[key], a[key]) << key;
    }
    // herd7's text names no engine.
    Outcome text = hsalit({"check", file});
    EXPECT_EQ(text.out.find("engine"), std::string::npos) << text.out;
  }
  Outcome bad = hsalit({"check", "--engine", "fast", cases[0].first});
  EXPECT_EQ(bad.status, 2);
}

// A campaign records `--engine` as given and, per test, the engine that ran and why.
TEST_F(Cli, CampaignRecordsTheEngineThatAutoPickedPerTest) {
  const std::string file = write("tests/mp.litmus", kRacyMp);
  const fs::path out = dir_ / "out";
  Outcome r = hsalit({"campaign", "-q", file, "--out", out.string()});
  ASSERT_LE(r.status, 1) << r.err;
  const nlohmann::json results = nlohmann::json::parse(read_file(out / "results.json"));
  EXPECT_EQ(results["campaign"]["engine"], "auto");
  // The build's commit, as --version names it.
  EXPECT_TRUE(
      std::regex_match(results["campaign"]["source_commit"].get<std::string>(), std::regex("[0-9a-f]{40}|unknown")))
      << results["campaign"];
  EXPECT_TRUE(results["campaign"]["source_modified"].is_boolean()) << results["campaign"];
  EXPECT_NE(hsalit({"--version"}).out.find(results["campaign"]["source_commit"].get<std::string>()), std::string::npos);
  const nlohmann::json& model = results["tests"][0]["model"];
  EXPECT_EQ(model["engine"], "enum");
  EXPECT_NE(model["engine_reason"].get<std::string>().find("few candidate executions"), std::string::npos) << model;
}

// The bundled tests with threads in several agents or a work-group barrier, which ran
// `unknown` on hardware before, run through a campaign on the host-emulated harness: none is
// unknown, the ones with host threads say how many runs overlapped, and none shows an outcome
// the model forbids. With --sc-orders: C++'s acquire and release let store buffering show
// its outcome, which HSA's scacq and screl forbid (docs/mappings.md, finding 1).
TEST_F(Cli, CampaignRunsHostAndBarrierTestsOnTheHostEmulation) {
  const fs::path library = fs::path(HSALIT_SOURCE_DIR) / "litmus" / "library";
  std::vector<std::string> args = {"campaign",
                                   "-q",
                                   "--backend",
                                   "cuda",
                                   "--host-emulation",
                                   "--sc-orders",
                                   "--instances",
                                   "4",
                                   "--workgroup-size",
                                   "8",
                                   "--iterations",
                                   "16",
                                   "-j",
                                   "2",
                                   "--out",
                                   (dir_ / "out").string()};
  for (const char* file :
       {"classic/MP+system_diff-agent", "classic/SB+sc-system_diff-agent", "classic/IRIW+sc-system_diff-agent",
        "classic/ISA2+system_diff-agent", "canonical/LB+rlx+datas-system_diff-agent", "canonical/MP+barrier_same-wg",
        "canonical/MP+barrier+fences-wg_same-wg", "canonical/CoWW+barrier+screl-wg_same-wg"})
    args.push_back((library / (std::string(file) + ".litmus")).string());
  Outcome r = hsalit(args);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const nlohmann::json results = nlohmann::json::parse(read_file(dir_ / "out" / "results.json"));
  EXPECT_EQ(results["summary"]["unknown"], 0) << results["summary"];
  EXPECT_EQ(results["summary"]["violation"], 0) << results["summary"];
  ASSERT_EQ(results["tests"].size(), 8u);
  int with_host = 0;
  for (const nlohmann::json& t : results["tests"]) {
    EXPECT_EQ(t["run"]["status"], "ok") << t["name"] << t["run"];
    EXPECT_EQ(t["run"]["iterations"], 16) << t["name"];
    EXPECT_EQ(t["run"]["instances_per_launch"], 4) << t["name"];
    const bool host = t["name"].get<std::string>().find("diff-agent") != std::string::npos;
    EXPECT_EQ(t["run"].contains("overlapped"), host) << t["name"];
    if (host) {
      ++with_host;
      EXPECT_LE(t["run"]["overlapped"].get<int>(), 16) << t["name"];
    }
  }
  EXPECT_EQ(with_host, 5);
  // The harness's options belong to the hardware backends.
  EXPECT_EQ(hsalit({"campaign", "--host-emulation", "--out", (dir_ / "sim").string(), args.back()}).status, 2);
}

TEST_F(Cli, CheckGraphWritesADotWitnessWithTheRace) {
  std::string file = write("mp.litmus", kRacyMp);
  fs::path graphs = dir_ / "graphs";
  Outcome r = hsalit({"check", "--graph", graphs.string(), file});
  ASSERT_EQ(r.status, 0) << r.err;
  std::string dot = read_file(graphs / "MPracy.dot");
  EXPECT_EQ(dot.rfind("digraph", 0), 0u) << dot;
  EXPECT_NE(dot.find("label=\"race\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"rf\""), std::string::npos) << dot;
  EXPECT_NE(dot.find("label=\"po\""), std::string::npos) << dot;
}

// A witness is written only where one exists, as the README and --help say: MP whose
// condition no execution satisfies and that has no race gets no file.
TEST_F(Cli, CheckGraphWritesAWitnessOnlyWhereOneExists) {
  const std::string guarded =
      "LISA MPguarded\n{ x = 0; y = 0; 1:r1 = -1; }\n P0 | P1 ;\n w[] x 1 | r[atomic,scacq,agent] r0 y ;\n"
      " w[atomic,screl,agent] y 1 | mov r2 (neq r0 1) ;\n | b[] r2 Skip1 ;\n | r[] r1 x ;\n | Skip1: ;\n"
      "scopes: (agent (wg 0) (wg 1))\n";
  fs::path graphs = dir_ / "graphs";
  Outcome r =
      hsalit({"check", "--graph", graphs.string(), write("none.litmus", guarded + "exists (1:r0=1 /\\ 1:r1=0)\n"),
              write("some.litmus", "LISA MPsome" + guarded.substr(14) + "exists (1:r0=1 /\\ 1:r1=1)\n")});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Test MPguarded Allowed\nStates 2\n"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(graphs / "MPguarded.dot"));
  EXPECT_TRUE(fs::exists(graphs / "MPsome.dot"));
  const std::string readme = read_file(fs::path(HSALIT_SOURCE_DIR) / "README.md");
  EXPECT_EQ(readme.find("DOT witness per test\n"), std::string::npos) << "the README promises a witness per test";
  EXPECT_NE(hsalit({"check", "--help"}).out.find("for each test that has one"), std::string::npos);
}

TEST_F(Cli, CheckInParallelKeepsInputOrderAndExpectCatchesADifference) {
  fs::path lib = fs::path(HSALIT_SOURCE_DIR) / "litmus/library/canonical";
  Outcome one = hsalit({"check", "--summary", "-j", "1", "--expect", lib.string()});
  Outcome two = hsalit({"check", "--summary", "-j", "2", "--expect", lib.string()});
  ASSERT_EQ(one.status, 0) << one.err;
  ASSERT_EQ(two.status, 0) << two.err;
  auto names = [](const std::string& out) {
    std::string s;
    std::istringstream in(out);
    for (std::string line; std::getline(in, line);) s += line.substr(0, line.find(' ')) + "\n";
    return s;
  };
  EXPECT_EQ(names(one.out), names(two.out));
  // A wrong expectation fails with 1 and names the file.
  fs::copy(lib / "MP+wg+wg_same-wg.litmus", dir_ / "MP+wg+wg_same-wg.litmus");
  write("expected.json",
        R"({"schema": "hsalit-expected/1", "tests": {"MP+wg+wg_same-wg.litmus": {"hsa": "allowed"}}})");
  Outcome wrong = hsalit({"check", "--expect", (dir_ / "MP+wg+wg_same-wg.litmus").string()});
  EXPECT_EQ(wrong.status, 1);
  EXPECT_NE(wrong.err.find("expected allowed under hsa, got forbidden"), std::string::npos) << wrong.err;
}

TEST_F(Cli, CompileEmitsAnnotatedAssemblyAndJson) {
  std::string file = write("mp.litmus", kRacyMp);
  Outcome a = hsalit({"compile", "--target", "gfx900", file});
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_NE(a.out.find("global_store_dword"), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("; store.atomic.release.wg.global (access)"), std::string::npos) << a.out;
  Outcome j = hsalit({"compile", "--target", "gfx942", "--emit", "json", file});
  ASSERT_EQ(j.status, 0) << j.err;
  nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["target"], "gfx942");
  EXPECT_EQ(doc["table"], "gfx940");
  EXPECT_EQ(doc["threads"].size(), 2u);
  Outcome bad = hsalit({"compile", "--target", "gfx42", file});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("unknown target 'gfx42'"), std::string::npos);
}

TEST_F(Cli, MappingsCheckNamesTheFileAndRow) {
  std::string table = write("t.json", R"({"schema": "hsalit-mapping/1", "name": "t", "targets": ["gfx900"],
    "rows": [{"id": "x", "operation": "load", "spaces": ["global"], "sequence": ["access", "s_frobnicate"],
              "source": {"document": "d", "table": "t", "row": "r"}}]})");
  Outcome r = hsalit({"mappings", "check", table});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(
      r.err.find(table +
                 ":2:15: error: row 0 (x), element 1: 's_frobnicate' is not a wait, cache or barrier instruction"),
      std::string::npos)
      << r.err;
  Outcome list = hsalit({"mappings", "list"});
  EXPECT_EQ(list.status, 0);
  EXPECT_NE(list.out.find("gfx6-9"), std::string::npos);
}

// A wait count is read without wrapping and checked against the target's field, on every
// load of a table: `mappings check` and the commands that compile with it refuse it, at the
// row's line.
TEST_F(Cli, MappingsCheckRefusesCountsTheTargetCannotHold) {
  auto table = [&](const std::string& name, const std::string& wait) {
    return write(name, R"({"schema": "hsalit-mapping/1", "name": "t", "targets": ["gfx900"],
  "rows": [
    {"id": "x", "operation": "load", "spaces": ["global"], "sequence": ["access", )" +
                           wait + R"(],
     "source": {"document": "d", "table": "t", "row": "r"}}]})");
  };
  const std::string test = write("t.litmus", good("T"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"op": "s_waitcnt", "vmcnt": 4294967296})", "'vmcnt' 4294967296 is beyond any wait counter's field"},
      {R"({"op": "s_waitcnt", "vmcnt": 99999999999})", "'vmcnt' 99999999999 is beyond any wait counter's field"},
      {R"({"op": "s_waitcnt", "vmcnt": 64})", "vmcnt(64) is out of range on gfx900: its field holds 0 to 63"},
      {R"({"op": "buffer_wbinvl1_vol", "vmcnt": 0})", "buffer_wbinvl1_vol takes no count"},
      {R"({"op": "global_inv", "scope": "SCOPE_DEV"})", "'global_inv' does not exist on gfx900"},
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string file = table("t" + std::to_string(i) + ".json", cases[i].first);
    Outcome r = hsalit({"mappings", "check", file});
    EXPECT_EQ(r.status, 2) << cases[i].first;
    EXPECT_NE(r.err.find(file + ":3:6: error: row 0 (x), element 1: " + cases[i].second), std::string::npos) << r.err;
    Outcome compiled = hsalit({"compile", "--target", "gfx900", "--mapping", file, test});
    EXPECT_EQ(compiled.status, 2) << compiled.out;
    EXPECT_NE(compiled.err.find(cases[i].second), std::string::npos) << compiled.err;
    Outcome verified = hsalit({"verify-mapping", "--mapping", file, test});
    EXPECT_EQ(verified.status, 2) << verified.out;
    EXPECT_NE(verified.err.find(cases[i].second), std::string::npos) << verified.err;
  }
  for (const char* name : {"gfx6-9", "gfx90a", "gfx940", "gfx950", "gfx10-11", "gfx12", "hsail-finalizer"}) {
    Outcome shipped =
        hsalit({"mappings", "check",
                (fs::path(HSALIT_SOURCE_DIR) / "codegen/mappings" / (name + std::string(".json"))).string()});
    EXPECT_EQ(shipped.status, 0) << name << ": " << shipped.out << shipped.err;
  }
}

// verify-mapping says sound only when every test was judged: a table without the rows the
// tests need (or without any row) leaves them unsupported, and the verdict is unknown, exit
// 1, with the missing rows; results.json says the same.
TEST_F(Cli, VerifyMappingWithoutTheRowsATestNeedsIsUnknown) {
  const std::string empty = write("empty.json", R"({"schema": "hsalit-mapping/1", "name": "empty",
    "targets": ["gfx900"], "rows": []})");
  const std::string test = write("t.litmus", good("T"));
  Outcome r = hsalit({"verify-mapping", "--mapping", empty, "--out", (dir_ / "out").string(), test});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_EQ(r.out.find("sound up to the bound"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unknown: 1 of 1 tests not judged (1 unsupported, 0 unknown)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("missing row: store atomic release agent global"), std::string::npos) << r.out;
  const nlohmann::json results = nlohmann::json::parse(std::ifstream(dir_ / "out" / "results.json"));
  EXPECT_EQ(results["verification"]["verdict"], "unknown: 1 of 1 tests not judged (1 unsupported, 0 unknown)");
  // The shipped table has the rows: sound.
  Outcome shipped = hsalit({"verify-mapping", test});
  EXPECT_EQ(shipped.status, 0) << shipped.out << shipped.err;
  EXPECT_NE(shipped.out.find("sound up to the bound"), std::string::npos) << shipped.out;
}

// A bound searched with a table that lacks one row: the tests that need it are unsupported
// and name it, the others keep their verdicts (sound, racy), and the verdict is unknown. The
// leaves the table cannot compile are asked only whether they race; the counts are those of
// judging each such test whole.
TEST_F(Cli, VerifyMappingBoundWithoutOneRowNamesItAndKeepsTheOtherVerdicts) {
  nlohmann::json table =
      nlohmann::json::parse(std::ifstream(fs::path(HSALIT_SOURCE_DIR) / "codegen/mappings/gfx6-9.json"));
  nlohmann::json rows = nlohmann::json::array();
  for (const nlohmann::json& row : table["rows"])
    if (row["id"] != "store.atomic.seq_cst.agent") rows.push_back(row);
  ASSERT_EQ(rows.size() + 1, table["rows"].size());
  table["rows"] = rows;
  table["name"] = "minus-one";
  const std::string minus = write("minus.json", table.dump());
  const std::string bound = "family=SB,scopes=agent+system,placements=diff-agent";
  Outcome r = hsalit({"verify-mapping", "--mapping", minus, "--engine", "enum", "--sc-orders", "--generate", bound});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("18 tests: 3 sound, 0 counterexamples, 8 racy (not checked), 7 unsupported, 0 unknown"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("unknown: 7 of 18 tests not judged (7 unsupported, 0 unknown)\n  missing row: store atomic "
                       "seq_cst system global\nbound:"),
            std::string::npos)
      << r.out;
}

// --time-limit bounds the whole search: when it passes, the verdict is unknown and says how
// far the search got, with the rows missing from the tests judged so far; never sound.
TEST_F(Cli, VerifyMappingTimeLimitStopsTheBoundWithUnknown) {
  const std::string empty = write("empty.json", R"({"schema": "hsalit-mapping/1", "name": "empty",
    "targets": ["gfx900"], "rows": []})");
  Outcome r = hsalit({"verify-mapping", "--mapping", empty, "--time-limit", "1", "--generate", "threads=2,accesses=2"});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("unknown: time limit of 1 s reached after "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" spaces\n  missing row: "), std::string::npos) << r.out;
  // The shipped table on a bound it decides within the limit: sound as without it.
  const std::string bound = "family=SB,scopes=agent+system,placements=diff-agent";
  Outcome sound =
      hsalit({"verify-mapping", "--engine", "enum", "--sc-orders", "--time-limit", "600", "--generate", bound});
  EXPECT_EQ(sound.status, 0) << sound.out << sound.err;
  EXPECT_NE(sound.out.find("sound up to the bound"), std::string::npos) << sound.out;
  for (const char* bad : {"0", "-1", "abc", "nan", "inf"})
    EXPECT_EQ(hsalit({"verify-mapping", "--time-limit", bad, "--generate", bound}).status, 2) << bad;
  const std::string test = write("t.litmus", good("T"));
  EXPECT_EQ(hsalit({"verify-mapping", "--time-limit", "5", test}).status, 2);
}

// The records of a table that lacks every row grew to 7.8 GB on the 2 x 2 bound, past any
// --memory-limit, since only the searches read it: the bound itself stops there now.
TEST_F(Cli, VerifyMappingMemoryLimitStopsTheBoundWithUnknown) {
  const std::string empty = write("empty.json", R"({"schema": "hsalit-mapping/1", "name": "empty",
    "targets": ["gfx900"], "rows": []})");
  Outcome r =
      hsalit({"verify-mapping", "--mapping", empty, "--memory-limit", "256M", "--generate", "threads=2,accesses=2"});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("unknown: memory limit of 256 MiB reached after "), std::string::npos) << r.out;
}

// The backends hold 32-bit values, the model 64-bit ones. A constant beyond 32 bits is refused
// where the test is compiled or run for a backend (file:line:col, exit 2), and kept from a
// campaign's verdicts; a value the arithmetic may carry beyond 32 bits makes the comparison
// unknown instead of a violation the wrap would fake. Negative values print alike in both.
TEST_F(Cli, ValuesBeyondThirtyTwoBitsAreNeverFalseViolations) {
  const std::string wide = write("tests/W.litmus",
                                 "LISA W\n{ x = 0; }\n P0 ;\n w[] x 4294967297 ;\n r[] r0 x ;\n"
                                 "exists (0:r0=1)\n");
  const std::string sum = write("tests/ADD.litmus",
                                "LISA ADD\n{ x = 2147483647; }\n P0 ;\n r[] r0 x ;\n"
                                " mov r1 (add r0 1) ;\nexists (0:r1=0)\n");
  write("tests/NEG.litmus",
        "LISA NEG\n{ x = -1; }\n P0 ;\n r[] r0 x ;\n mov r1 (sub r0 1) ;\n w[] y r1 ;\n"
        " r[] r2 y ;\nexists (0:r2=-2)\n");
  const std::string refused = wide + ":4:8: error: the constant 4294967297 does not fit in the signed 32-bit values";
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"compile", "--target", "gfx900", wide}, {"run", "--exhaustive", wide}, {"verify-mapping", wide}}) {
    Outcome r = hsalit(args);
    EXPECT_EQ(r.status, 2) << args[0] << ": " << r.out << r.err;
    EXPECT_NE(r.err.find(refused), std::string::npos) << args[0] << ": " << r.err;
  }
  EXPECT_EQ(hsalit({"check", wide}).status, 0);  // the model alone holds 64-bit values

  Outcome run = hsalit({"run", "--exhaustive", sum});
  EXPECT_EQ(run.status, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("Unknown " + sum + ":5:9: `(add r0 1)` may compute 2147483648"), std::string::npos) << run.out;
  Outcome verified = hsalit({"verify-mapping", sum});
  EXPECT_EQ(verified.status, 1) << verified.out << verified.err;
  EXPECT_EQ(verified.out.find("COUNTEREXAMPLE"), std::string::npos) << verified.out;
  EXPECT_NE(verified.out.find("may compute 2147483648"), std::string::npos) << verified.out;

  Outcome campaign = hsalit({"campaign", (dir_ / "tests").string(), "--out", (dir_ / "out").string(), "-q"});
  EXPECT_EQ(campaign.out.find("violation:"), std::string::npos) << campaign.out;
  const nlohmann::json results = nlohmann::json::parse(std::ifstream(dir_ / "out" / "results.json"));
  std::map<std::string, nlohmann::json> by_name;
  for (const nlohmann::json& t : results["tests"]) by_name[t["name"]] = t;
  ASSERT_EQ(by_name.size(), 3u) << results.dump(2);
  EXPECT_EQ(by_name["W"]["verdict"], "unknown");
  EXPECT_NE(by_name["W"]["reason"].get<std::string>().find(refused), std::string::npos) << by_name["W"]["reason"];
  EXPECT_EQ(by_name["ADD"]["verdict"], "unknown");
  EXPECT_NE(by_name["ADD"]["reason"].get<std::string>().find("may compute 2147483648"), std::string::npos)
      << by_name["ADD"]["reason"];
  EXPECT_EQ(by_name["NEG"]["verdict"], "consistent") << by_name["NEG"]["reason"];
}

TEST_F(Cli, RunOnTheSimulatorPrintsAHistogramAndATrace) {
  fs::path mp = fs::path(HSALIT_SOURCE_DIR) / "litmus/library/canonical/MP+rlx-agent_diff-wg.litmus";
  Outcome r = hsalit({"run", "--exhaustive", "--target", "gfx900", "--trace", "1:r0=1; 1:r1=0", mp.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Histogram (4 states)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("*>1:r0=1; 1:r1=0;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Trace of 1:r0=1; 1:r1=0;"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("issues global_store_dword"), std::string::npos) << r.out;
  Outcome random = hsalit({"run", "--json", "--iterations", "2000", "--seed", "3", mp.string()});
  ASSERT_EQ(random.status, 0) << random.err;
  nlohmann::json j = nlohmann::json::parse(random.out);
  EXPECT_EQ(j["iterations"], 2000);
  EXPECT_EQ(j["schema"], "hsalit-run/1");
  // Without an NVIDIA GPU (or nvcc) the CUDA backend says why and exits 1, never a made-up
  // histogram; on a machine with one it runs.
  Outcome cuda = hsalit({"run", "--backend", "cuda", mp.string()});
  if (cuda.status != 0) {
    EXPECT_EQ(cuda.status, 1) << cuda.err;
    EXPECT_TRUE(cuda.out.find("unknown: no GPU") != std::string::npos ||
                cuda.out.find("unknown: the harness was not built: nvcc not found") != std::string::npos)
        << cuda.out;
    EXPECT_EQ(cuda.out.find("Observation "), std::string::npos) << cuda.out;  // no table of zeros
  }
  EXPECT_EQ(hsalit({"run", "--backend", "opencl", mp.string()}).status, 2);
}

// tgsplit allocates no LDS: a bound takes global locations only and says so in its header,
// with no test listed unsupported; a spec that names group locations is refused.
TEST_F(Cli, VerifyMappingTakesGlobalLocationsOnlyWhereTheFlavourAllocatesNoLds) {
  const std::vector<std::string> args = {"verify-mapping", "--target",    "gfx90a",    "--flavour",
                                         "tgsplit",        "--sc-orders", "--generate"};
  std::vector<std::string> bound = args, group = args;
  bound.push_back("threads=2,accesses=1");
  group.push_back("threads=2,accesses=1,segments=global+group");
  Outcome r = hsalit(bound);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("(segments=global: the tgsplit flavour on gfx90a allocates no LDS (AMDGPUUsage, Memory "
                       "Model GFX90A))"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" 0 unsupported"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("sound up to the bound"), std::string::npos) << r.out;
  Outcome refused = hsalit(group);
  EXPECT_EQ(refused.status, 2) << refused.out;
  EXPECT_NE(refused.err.find("asks for group locations, which no test compiles to"), std::string::npos) << refused.err;
  // The hsa flavour allocates LDS: group locations stay in its bound.
  bound[4] = "hsa";
  Outcome hsa = hsalit(bound);
  EXPECT_EQ(hsa.out.find("segments=global:"), std::string::npos) << hsa.out;
}

// A test with a barrier on a device that holds fewer work-groups than asked (here the
// emulation limited to 3): `run` says how many instances each launch ran, of how many asked,
// and makes as many runs as asked in more launches; --json says the same.
TEST_F(Cli, RunSaysTheInstancesEachLaunchRan) {
  fs::path mp = fs::path(HSALIT_SOURCE_DIR) / "litmus/library/canonical/MP+barrier_same-wg.litmus";
  const std::vector<std::string> args = {"run",
                                         "--backend",
                                         "cuda",
                                         "--host-emulation",
                                         "--instances",
                                         "8",
                                         "--iterations",
                                         "80",
                                         "--workgroup-size",
                                         "8",
                                         "--resident-workgroups",
                                         "3"};
  std::vector<std::string> text = args, json = args;
  text.push_back(mp.string());
  json.insert(json.end(), {"--json", mp.string()});
  Outcome r = hsalit(text);
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("3 instances per launch (of 8 asked: one work-group each, and no more fit at once)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("Runs 81 "), std::string::npos) << r.out;
  Outcome j = hsalit(json);
  ASSERT_EQ(j.status, 0) << j.out << j.err;
  const nlohmann::json run = nlohmann::json::parse(j.out);
  EXPECT_EQ(run["instances"], 3);
  EXPECT_EQ(run["instances_requested"], 8);
  EXPECT_EQ(run["launches"], 27);
  EXPECT_EQ(run["iterations"], 81);
  EXPECT_EQ(run["iterations_requested"], 80);
  // The emulation holds 8,192 hardware threads: a work-group of 256 per instance fits 32 times
  // (1,024 of them once made the harness fail to start its threads).
  Outcome defaults = hsalit({"run", "--backend", "cuda", "--host-emulation", "--iterations", "32", mp.string()});
  ASSERT_EQ(defaults.status, 0) << defaults.out << defaults.err;
  EXPECT_NE(defaults.out.find("32 instances per launch (of 1024 asked"), std::string::npos) << defaults.out;
}

}  // namespace

namespace {

// verify-mapping on every variation of a generated bound, end to end: the class check and
// the plain check agree, the statistics line names the bound, bad options exit 2.
TEST_F(Cli, VerifyMappingChecksEveryVariationOfABound) {
  const std::string bound = "family=SB,scopes=agent+system,placements=diff-agent";
  Outcome by_class = hsalit({"verify-mapping", "--engine", "enum", "-j", "2", "--no-minimise", "--generate", bound});
  EXPECT_EQ(by_class.status, 1) << by_class.err;  // scacq/screl as acquire/release: finding 1
  EXPECT_NE(by_class.out.find("COUNTEREXAMPLE found in SB+"), std::string::npos) << by_class.out;
  EXPECT_NE(by_class.out.find("variations before symmetry"), std::string::npos) << by_class.out;
  Outcome sc = hsalit({"verify-mapping", "--engine", "enum", "--sc-orders", "--generate", bound});
  EXPECT_EQ(sc.status, 0) << sc.out << sc.err;
  EXPECT_NE(sc.out.find("sound up to the bound"), std::string::npos);
  Outcome every =
      hsalit({"verify-mapping", "--engine", "enum", "--sc-orders", "--every-variation", "--generate", bound});
  EXPECT_EQ(every.status, 0) << every.out << every.err;
  EXPECT_EQ(hsalit({"verify-mapping", "--engine", "cbmc", "--generate", bound}).status, 2);
  EXPECT_EQ(hsalit({"verify-mapping", "-j", "-1", "--generate", bound}).status, 2);
  EXPECT_EQ(hsalit({"verify-mapping", "--generate", "threads=2,edges=Pok"}).status, 2);
}

// --search-every-space: the spaces that facts 9 and 10 decide from their code's order are
// searched instead, with the same verdict; refused without --generate.
TEST_F(Cli, VerifyMappingSearchesEverySpaceWhenAsked) {
  const std::string bound = "threads=2,accesses=2";
  auto decided_by_order = [](const std::string& out) {
    return out.find(
               ", 0 by code that keeps the order the model needs, 0 by code that keeps "
               "program order in every race-free test)") == std::string::npos;
  };
  Outcome facts = hsalit({"verify-mapping", "--engine", "enum", "-j", "2", "--sc-orders", "--generate", bound});
  ASSERT_EQ(facts.status, 0) << facts.out << facts.err;
  EXPECT_TRUE(decided_by_order(facts.out)) << facts.out;
  Outcome searched = hsalit(
      {"verify-mapping", "--engine", "enum", "-j", "2", "--sc-orders", "--search-every-space", "--generate", bound});
  ASSERT_EQ(searched.status, 0) << searched.out << searched.err;
  EXPECT_NE(searched.out.find("sound up to the bound"), std::string::npos) << searched.out;
  EXPECT_FALSE(decided_by_order(searched.out)) << searched.out;
  // Without --sc-orders the same counterexamples either way (finding 1).
  Outcome found = hsalit({"verify-mapping", "--engine", "enum", "--no-minimise", "--search-every-space", "--generate",
                          "family=SB,scopes=agent+system,placements=diff-agent"});
  EXPECT_EQ(found.status, 1) << found.out << found.err;
  const fs::path mp = fs::path(HSALIT_SOURCE_DIR) / "litmus/library/canonical/MP+rlx-agent_diff-wg.litmus";
  Outcome refused = hsalit({"verify-mapping", "--search-every-space", mp.string()});
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("--search-every-space needs --generate"), std::string::npos) << refused.err;
}

// --space-costs: a line per space verified (the statistics' spaces less those decided by
// another), a summary per placement and segments on stdout; refused without --generate, and
// a file that cannot be written is an error that leaves nothing behind.
TEST_F(Cli, VerifyMappingWritesWhatEachSpaceCost) {
  const std::string bound = "family=MP/SB,scopes=wg+agent,placements=same-wg+diff-wg,segments=global+group";
  const fs::path costs = dir_ / "costs.tsv";
  Outcome r = hsalit({"verify-mapping", "--engine", "enum", "--sc-orders", "-j", "2", "--generate", bound,
                      "--space-costs", costs.string()});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("where the search's time went, per placement and segments:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("global+group"), std::string::npos) << r.out;
  std::ifstream in(costs);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("cycle\tworkgroups\tagents\tsegments\tseconds\t", 0), 0u) << line;
  EXPECT_TRUE(line.ends_with("\tdecided_by_fact")) << line;
  std::size_t lines = 0, decided = 0;
  while (std::getline(in, line)) {
    ++lines;
    EXPECT_EQ(std::count(line.begin(), line.end(), '\t'), 18) << line;
    const std::string fact = line.substr(line.rfind('\t') + 1);
    EXPECT_TRUE(fact == "0" || fact == "9" || fact == "10") << line;
    decided += fact != "0" ? 1 : 0;  // spaces decided by facts 9 and 10, without a search
  }
  EXPECT_GT(decided, 0u);
  // "bound: N spaces (cycle x placement x segments; S with the programs of an earlier one, A
  // decided by their work-groups in one agent)"
  unsigned spaces = 0, same = 0, one_agent = 0;
  const std::size_t at = r.out.find("bound: ");
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(std::sscanf(r.out.c_str() + at,
                        "bound: %u spaces (cycle x placement x segments; %u with the programs of an earlier one, %u",
                        &spaces, &same, &one_agent),
            3)
      << r.out.substr(at);
  EXPECT_EQ(lines, spaces - same - one_agent);
  EXPECT_GT(lines, 0u);

  Outcome files =
      hsalit({"verify-mapping", "--space-costs", costs.string(),
              (fs::path(HSALIT_SOURCE_DIR) / "litmus/library/canonical/MP+rlx-agent_diff-wg.litmus").string()});
  EXPECT_EQ(files.status, 2);
  EXPECT_NE(files.err.find("--space-costs needs --generate"), std::string::npos) << files.err;
  const fs::path nowhere = dir_ / "no-such-folder" / "costs.tsv";
  Outcome unwritable = hsalit({"verify-mapping", "--generate", bound, "--space-costs", nowhere.string()});
  EXPECT_EQ(unwritable.status, 2);
  EXPECT_NE(unwritable.err.find("cannot write " + nowhere.string()), std::string::npos) << unwritable.err;
  EXPECT_FALSE(fs::exists(dir_ / "no-such-folder"));
}

// Shards of a bound, from the command line: each verifies its part, the parts' spaces add up
// to the whole bound's, and `results merge` joins their results into the bound's
// verification (the same verdict, counts and counterexamples as one run), refusing an
// incomplete set or a shard run under another assumption.
TEST_F(Cli, VerifyMappingShardsABound) {
  const std::string bound = "family=SB/MP/LB,scopes=agent,placements=diff-wg";
  auto spaces = [](const std::string& out) {
    const std::size_t at = out.find("bound: ");
    return at == std::string::npos ? 0ul : std::stoul(out.substr(at + 7));
  };
  auto verify = [&](const std::string& spec, const std::string& out, std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"verify-mapping", "--engine",    "enum",       "--no-minimise",
                                     "--assume",       "one-channel", "--generate", spec};
    if (!out.empty()) args.insert(args.end(), {"--out", (dir_ / out).string()});
    args.insert(args.end(), more.begin(), more.end());
    return hsalit(args);
  };
  Outcome whole = verify(bound, "whole", {"--sc-orders"});
  Outcome first = verify(bound + ",shard=0/2", "", {"--sc-orders"});
  Outcome second = verify(bound + ",shard=1/2", "", {"--sc-orders"});
  ASSERT_EQ(whole.status, 0) << whole.out << whole.err;
  ASSERT_EQ(first.status, 0) << first.out << first.err;
  ASSERT_EQ(second.status, 0) << second.out << second.err;
  EXPECT_GT(spaces(first.out), 0u) << first.out;
  EXPECT_GT(spaces(second.out), 0u) << second.out;
  EXPECT_EQ(spaces(first.out) + spaces(second.out), spaces(whole.out)) << whole.out;
  nlohmann::json recorded = nlohmann::json::parse(std::ifstream(dir_ / "whole" / "results.json"));
  EXPECT_EQ(recorded["campaign"]["engine"], "enum");
  EXPECT_EQ(recorded["campaign"]["sc_orders"], true);
  EXPECT_EQ(recorded["campaign"]["assumptions"], nlohmann::json({"one-channel"}));
  EXPECT_EQ(recorded["verification"]["verdict"], "sound up to the bound");
  // Across work-groups under one channel every space is decided by fact 10 (docs/verification.md).
  EXPECT_EQ(recorded["verification"]["statistics"]["decided_race_free_in_order"].get<int>(),
            recorded["verification"]["statistics"]["spaces"].get<int>() -
                recorded["verification"]["statistics"]["same_program_spaces"].get<int>());
  EXPECT_GT(recorded["verification"]["statistics"]["decided_race_free_in_order"].get<int>(), 0);
  Outcome bad = hsalit({"verify-mapping", "--generate", bound + ",shard=2/2"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("shard=2/2"), std::string::npos) << bad.err;

  // With acquire/release rows a larger bound has counterexamples (finding 1): three shards.
  const std::string larger = "family=SB/MP/LB/IRIW,scopes=wg+agent,placements=diff-wg+same-wg";
  Outcome one_run = verify(larger, "all");
  ASSERT_EQ(one_run.status, 1) << one_run.out << one_run.err;
  std::vector<std::string> merge = {"results", "merge"};
  for (int i = 0; i < 3; ++i) {
    const std::string shard = "shard" + std::to_string(i);
    EXPECT_LE(verify(larger + ",shard=" + std::to_string(i) + "/3", shard).status, 1);
    merge.push_back((dir_ / shard).string());
  }
  std::vector<std::string> incomplete(merge.begin(), merge.end() - 1);
  incomplete.insert(incomplete.end(), {"--out", (dir_ / "partial").string()});
  Outcome partial = hsalit(incomplete);
  EXPECT_EQ(partial.status, 2);
  EXPECT_NE(partial.err.find("shards 2 of 3 are missing"), std::string::npos) << partial.err;
  merge.insert(merge.end(), {"--out", (dir_ / "merged").string()});
  Outcome merged = hsalit(merge);
  ASSERT_EQ(merged.status, 1) << merged.err;  // the bound holds counterexamples
  EXPECT_NE(merged.out.find("verification: "), std::string::npos) << merged.out;
  auto results = [&](const std::string& dir) {
    return nlohmann::json::parse(std::ifstream(dir_ / dir / "results.json"));
  };
  const nlohmann::json joined = results("merged"), single = results("all");
  EXPECT_GT(single["verification"]["counterexamples"].get<int>(), 0);
  for (const char* count : {"tests", "sound", "counterexamples", "racy", "unsupported", "unknown", "verdict"})
    EXPECT_EQ(joined["verification"][count], single["verification"][count]) << count;
  for (const char* statistic : {"spaces", "variations"})
    EXPECT_EQ(joined["verification"]["statistics"][statistic], single["verification"]["statistics"][statistic])
        << statistic;
  EXPECT_EQ(joined["verification"]["rows_used"], single["verification"]["rows_used"]);
  auto names = [](const nlohmann::json& r) {
    std::vector<std::string> out;
    for (const auto& t : r["tests"]) out.push_back(t["name"]);
    return out;
  };
  EXPECT_EQ(names(joined), names(single));
  EXPECT_TRUE(joined["campaign"]["shard"].is_null());

  // A shard verified under other assumptions (replacing the shard's results: --force) does
  // not join the others.
  ASSERT_LE(hsalit({"verify-mapping", "--engine", "enum", "--no-minimise", "--generate", larger + ",shard=2/3", "--out",
                    (dir_ / "shard2").string(), "--force"})
                .status,
            1);
  Outcome refused = hsalit(merge);
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("assumptions"), std::string::npos) << refused.err;
}

// scripts/verify-bound, the resumable shard-by-shard run of a large bound: a run of some
// shards leaves whole shards only, a later run skips them and replaces a partial one left by
// an interrupted run, and once every shard is there the merge gives one run's verdict.
TEST_F(Cli, VerifyBoundScriptResumesAndMerges) {
  const std::string bound = "family=SB/MP/LB,scopes=agent,placements=diff-wg";
  const std::string out = (dir_ / "bound").string();
  auto run_shards = [&](std::vector<std::string> selection, const std::string& spec) {
    std::vector<std::string> args = {"--out", out, "--shards", "3", "--hsalit", HSALIT_CLI};
    args.insert(args.end(), selection.begin(), selection.end());
    args.insert(args.end(), {"--", "--engine", "enum", "--no-minimise", "--sc-orders", "--assume", "one-channel",
                             "--generate", spec});
    return script("verify-bound", args);
  };
  Outcome first = run_shards({"--count", "1"}, bound);
  ASSERT_EQ(first.status, 0) << first.out << first.err;
  EXPECT_NE(first.out.find("shard 0/3: "), std::string::npos) << first.out;
  EXPECT_NE(first.out.find("2 of 3 shards still to run"), std::string::npos) << first.out;
  ASSERT_TRUE(fs::exists(dir_ / "bound" / "shard-0" / "results.json"));
  EXPECT_TRUE(fs::exists(dir_ / "bound" / "shard-0" / "verify.txt"));
  EXPECT_FALSE(fs::exists(dir_ / "bound" / "shard-1"));
  const auto finished = fs::last_write_time(dir_ / "bound" / "shard-0" / "results.json");

  write("bound/.shard-1.partial/results.json", "{ truncated");  // what a killed run leaves
  Outcome rest = run_shards({}, bound);
  ASSERT_EQ(rest.status, 0) << rest.out << rest.err;
  EXPECT_EQ(rest.out.find("shard 0/3"), std::string::npos) << "a finished shard ran again: " << rest.out;
  EXPECT_NE(rest.out.find("shard 2/3: "), std::string::npos) << rest.out;
  EXPECT_EQ(fs::last_write_time(dir_ / "bound" / "shard-0" / "results.json"), finished);
  EXPECT_FALSE(fs::exists(dir_ / "bound" / ".shard-1.partial"));
  Outcome whole = hsalit({"verify-mapping", "--engine", "enum", "--no-minimise", "--sc-orders", "--assume",
                          "one-channel", "--generate", bound});
  ASSERT_EQ(whole.status, 0) << whole.err;
  const std::size_t tests = whole.out.find(" tests: ");
  ASSERT_NE(tests, std::string::npos) << whole.out;
  const std::size_t line = whole.out.rfind('\n', tests) + 1;
  const std::string count = whole.out.substr(line, tests - line);
  EXPECT_NE(rest.out.find("verification: sound up to the bound over " + bound + ": " + count + " tests"),
            std::string::npos)
      << rest.out << "\nexpected " << count << " tests";
  // The report the merge names is still there once the script has ended.
  const std::size_t report = rest.out.find("report: ");
  ASSERT_NE(report, std::string::npos) << rest.out;
  const std::string report_path = rest.out.substr(report + 8, rest.out.find('\n', report) - report - 8);
  EXPECT_TRUE(fs::exists(report_path)) << report_path << " does not exist\n" << rest.out;
  EXPECT_TRUE(fs::exists(dir_ / "bound" / "merged" / "results.json"));

  Outcome sharded = run_shards({}, bound + ",shard=0/2");
  EXPECT_EQ(sharded.status, 2);
  EXPECT_NE(sharded.err.find("must not hold a shard item"), std::string::npos) << sharded.err;
}

// scripts/verify-bound runs from any folder: its default hsalit is the build beside it.
TEST_F(Cli, VerifyBoundScriptRunsFromAnyFolder) {
  const fs::path beside = fs::path(HSALIT_SOURCE_DIR) / "build" / "bin" / "hsalit";
  if (!fs::exists(beside) || !fs::equivalent(beside, HSALIT_CLI))
    GTEST_SKIP() << "the tested hsalit is not " << beside.string();
  const std::string script_path = (fs::path(HSALIT_SOURCE_DIR) / "scripts" / "verify-bound").string();
  Outcome r =
      run("/bin/sh", {"-c", "cd " + test_support::quote(dir_.string()) + " && " + test_support::quote(script_path) +
                                " --out bound --shards 1 -- --engine enum --no-minimise --generate "
                                "family=MP,scopes=agent,placements=diff-wg"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(fs::exists(dir_ / "bound" / "shard-0" / "results.json")) << r.out;
  EXPECT_TRUE(fs::exists(dir_ / "bound" / "merged" / "results.json")) << r.out;
  EXPECT_NE(r.out.find("verification: sound up to the bound"), std::string::npos) << r.out;
}

// verify-llc with -j and --out: the same report at any -j, results in the campaign format
// with the verification (llc standing for the table), and shards that merge into one run's
// results. Skipped without llc-19 (Debian package llvm-19, which scripts/setup installs).
TEST_F(Cli, VerifyLlcWritesResultsThatShardsMerge) {
  const std::string bound = "family=MP/SB,scopes=agent,placements=diff-wg,orders=rlx+scacq+screl";
  auto verify = [&](const std::string& spec, const std::string& out, const std::string& jobs) {
    return hsalit({"verify-llc", "--llc", "llc-19", "--mcpu", "gfx900", "--engine", "enum", "-j", jobs, "--generate",
                   spec, "--out", (dir_ / out).string()});
  };
  Outcome one = verify(bound, "one", "1");
  if (one.status == 2 && one.err.find("not found") != std::string::npos) GTEST_SKIP() << one.err;
  ASSERT_EQ(one.status, 1) << one.out << one.err;  // SB with acquire/release: finding 1
  Outcome two = verify(bound, "two", "2");
  ASSERT_EQ(two.status, 1) << two.out << two.err;
  EXPECT_EQ(two.out, one.out);
  auto results = [&](const std::string& dir) {
    return nlohmann::json::parse(std::ifstream(dir_ / dir / "results.json"));
  };
  const nlohmann::json whole = results("two");
  EXPECT_EQ(whole["campaign"]["mapping"], "llc-19");
  EXPECT_EQ(whole["campaign"]["flavour"], "llvm-ir");
  EXPECT_EQ(whole["verification"]["bound"], bound);
  EXPECT_EQ(whole["verification"]["counterexamples"], 1);
  EXPECT_EQ(whole["verification"]["tests"], whole["tests"].size());
  EXPECT_TRUE(fs::exists(dir_ / "two" / "verify.txt"));
  EXPECT_TRUE(fs::exists(dir_ / "two" / "report.html"));
  EXPECT_FALSE(fs::is_empty(dir_ / "two" / "counterexamples"));

  std::vector<std::string> merge = {"results", "merge"};
  for (int i = 0; i < 2; ++i) {
    const std::string shard = "shard" + std::to_string(i);
    EXPECT_LE(verify(bound + ",shard=" + std::to_string(i) + "/2", shard, "2").status, 1);
    merge.push_back((dir_ / shard).string());
  }
  merge.insert(merge.end(), {"--out", (dir_ / "merged").string()});
  Outcome merged = hsalit(merge);
  ASSERT_EQ(merged.status, 1) << merged.err;  // the bound holds a counterexample
  const nlohmann::json joined = results("merged");
  EXPECT_EQ(joined["verification"], whole["verification"]);
  EXPECT_EQ(joined["summary"], whole["summary"]);
  Outcome no_jobs = hsalit({"verify-llc", "--llc", "llc-19", "-j", "-1", "--generate", bound});
  EXPECT_EQ(no_jobs.status, 2);
  EXPECT_NE(no_jobs.err.find("--jobs"), std::string::npos) << no_jobs.err;
  Outcome no_engine = hsalit({"verify-llc", "--llc", "llc-19", "--engine", "cbmc", "--generate", bound});
  EXPECT_EQ(no_engine.status, 2);
  EXPECT_NE(no_engine.err.find("unknown engine 'cbmc'"), std::string::npos) << no_engine.err;
}

// verify-mlir --out: results in the campaign format, the MLIR pipeline standing for the table.
TEST_F(Cli, VerifyMlirWritesResults) {
  const std::string bound = "family=MP,scopes=agent,placements=diff-wg,orders=rlx+scacq+screl";
  Outcome o = hsalit({"verify-mlir", "--mlir-opt", "mlir-opt-19", "--mlir-ops", "amdgpu", "--mcpu", "gfx900",
                      "--engine", "enum", "--generate", bound, "--out", (dir_ / "mlir").string()});
  if (o.status == 2 && o.err.find("not found") != std::string::npos) GTEST_SKIP() << o.err;
  ASSERT_LE(o.status, 1) << o.out << o.err;
  const nlohmann::json whole = nlohmann::json::parse(std::ifstream(dir_ / "mlir" / "results.json"));
  EXPECT_EQ(whole["campaign"]["mapping"], "mlir-opt-19");
  EXPECT_EQ(whole["campaign"]["flavour"], "mlir-amdgpu");
  EXPECT_EQ(whole["verification"]["bound"], bound);
  EXPECT_EQ(whole["verification"]["tests"], whole["tests"].size());
  EXPECT_GT(whole["tests"].size(), 0u);
  EXPECT_TRUE(fs::exists(dir_ / "mlir" / "verify.txt"));
}

// Over --max, gen refuses before it lists or writes a single test.
TEST_F(Cli, GenRefusesABoundOverItsLimitBeforeWriting) {
  const std::vector<std::string> bound = {"gen", "--family",     "MP",      "SB",    "--orders",
                                          "rlx", "--placements", "diff-wg", "--max", "3"};
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{}, {"--count"}, {"--out", (dir_ / "too-many").string()}}) {
    std::vector<std::string> args = bound;
    args.insert(args.end(), extra.begin(), extra.end());
    Outcome o = hsalit(args);
    EXPECT_EQ(o.status, 2) << o.out << o.err;
    EXPECT_NE(o.err.find("more than 3 tests"), std::string::npos) << o.err;
    EXPECT_EQ(o.out, "") << "nothing is listed";
  }
  EXPECT_FALSE(fs::exists(dir_ / "too-many")) << "nothing is written";
  std::vector<std::string> enough = bound;
  enough.back() = "1000";
  enough.insert(enough.end(), {"--out", (dir_ / "enough").string()});
  Outcome o = hsalit(enough);
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(fs::exists(dir_ / "enough" / "index.json"));
}

TEST_F(Cli, GenEdgesRestrictTheCycles) {
  Outcome all = hsalit({"gen", "--threads", "2", "--accesses", "2", "--orders", "rlx", "--scopes", "agent",
                        "--placements", "diff-wg", "--segments", "global", "--count"});
  Outcome critical = hsalit({"gen", "--threads", "2", "--accesses", "2", "--orders", "rlx", "--scopes", "agent",
                             "--placements", "diff-wg", "--segments", "global", "--edges=-Pos", "--count"});
  ASSERT_EQ(all.status, 0) << all.err;
  ASSERT_EQ(critical.status, 0) << critical.err;
  EXPECT_LT(std::stoul(critical.out), std::stoul(all.out));
  EXPECT_GT(std::stoul(critical.out), 0u);
  Outcome bad = hsalit({"gen", "--edges", "Pok", "--count"});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("unknown edge 'Pok'"), std::string::npos) << bad.err;
}

}  // namespace

// Hostile input and the files it names (docs/check-output.md, "Witness files"): a test's name
// can be a path; the witness files stay in the --graph folder, one per test, named after the
// test sanitised and made unique in input order, whatever order -j finishes the tests in.
TEST_F(Cli, CheckGraphKeepsEveryWitnessInsideItsFolder) {
  auto named = [](const std::string& name) {
    std::string text = kRacyMp;
    return text.replace(text.find("MPracy"), 6, name);
  };
  const fs::path absolute = dir_ / "absolute";
  std::vector<std::string> args = {"check", "-j", "2", "--graph", (dir_ / "graphs" / "inner").string()};
  args.push_back(write("a.litmus", named("../../escaped")));
  args.push_back(write("b.litmus", named(absolute.string())));
  args.push_back(write("c.litmus", named("Same")));
  args.push_back(write("d.litmus", named("Same")));
  args.push_back(write("e.litmus", named("same")));
  args.push_back(write("f.litmus", named(std::string("Nul\0Byte", 8))));  // not cut at the NUL
  Outcome r = hsalit(args);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "escaped.dot"));
  EXPECT_FALSE(fs::exists(dir_ / "graphs" / "escaped.dot"));
  EXPECT_FALSE(fs::exists(absolute.string() + ".dot"));
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir_ / "graphs" / "inner")) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  const std::string absolute_stem = "_" + absolute.relative_path().string();
  std::string expected_absolute = absolute_stem;
  for (char& c : expected_absolute)
    if (c == '/') c = '_';
  std::vector<std::string> expected = {
      "___.._escaped.dot", expected_absolute + ".dot", "Same.dot", "Same~2.dot", "same~3.dot", "Nul_Byte.dot"};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(files, expected);
  for (const std::string& f : files) EXPECT_EQ(read_file(dir_ / "graphs" / "inner" / f).rfind("digraph", 0), 0u) << f;
}

// A UTF-8 byte-order mark before `LISA` is skipped (docs/litmus-format.md).
TEST_F(Cli, AByteOrderMarkIsSkipped) {
  Outcome r = hsalit({"check", write("bom.litmus", "\xEF\xBB\xBF" + good("Bom"))});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Test Bom "), std::string::npos) << r.out;
  // A mark anywhere else is still not text the language has: its position is given.
  Outcome later = hsalit({"parse", write("late.litmus", "LISA Late\n\xEF\xBB\xBF{ x = 0; }\n")});
  EXPECT_EQ(later.status, 2);
  EXPECT_NE(later.err.find("late.litmus:2:1: error:"), std::string::npos) << later.err;
}

// A folder given where a file is expected (read or written) says so, with its name, and exits 2.
TEST_F(Cli, AFolderGivenAsMappingIsNamed) {
  const std::string test = write("mp.litmus", good("MP"));
  const std::string folder = (dir_ / "tables").string();
  fs::create_directories(folder);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"verify-mapping", "--mapping", folder, test},
        std::vector<std::string>{"compile", "--mapping", folder, test},
        std::vector<std::string>{"campaign", "--mapping", folder, "--out", (dir_ / "out").string(), test}}) {
    Outcome r = hsalit(args);
    EXPECT_EQ(r.status, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find(folder + ": error: is a directory"), std::string::npos) << args[0] << ": " << r.err;
    EXPECT_EQ(r.err.find("basic_filebuf"), std::string::npos) << r.err;
  }
  // A folder as the file a long run writes: refused as the run starts, not at its end.
  Outcome costs =
      hsalit({"verify-mapping", "--generate", "family=MP,scopes=agent,placements=diff-wg", "--space-costs", folder});
  EXPECT_EQ(costs.status, 2) << costs.err;
  EXPECT_NE(costs.err.find("cannot write " + folder + ": Is a directory"), std::string::npos) << costs.err;
  EXPECT_EQ(costs.out, "");
}

// A dangling link in an input folder is an error naming it, and the tests beside it are
// still read (docs/litmus-format.md).
TEST_F(Cli, ADanglingLinkInAFolderIsAnError) {
  write("tests/b.litmus", good("Beside"));
  fs::create_symlink(dir_ / "gone.litmus", dir_ / "tests" / "a.litmus");
  Outcome r = hsalit({"check", (dir_ / "tests").string()});
  EXPECT_EQ(r.status, 2) << r.err;
  EXPECT_NE(r.err.find((dir_ / "tests" / "a.litmus").string() + ": error: a dangling symbolic link"), std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("Test Beside "), std::string::npos) << r.out;
  // A campaign records it as an unknown test with the same reason.
  hsalit({"campaign", (dir_ / "tests").string(), "--out", (dir_ / "out").string(), "-q"});
  const nlohmann::json results = nlohmann::json::parse(read_file(dir_ / "out" / "results.json"));
  ASSERT_EQ(results["tests"].size(), 2u) << results.dump();
  EXPECT_EQ(results["tests"][0]["verdict"], "unknown");
  EXPECT_NE(results["tests"][0]["reason"].get<std::string>().find("a dangling symbolic link"), std::string::npos)
      << results["tests"][0]["reason"];
}

// gen --out: the files are named as results::OutputNames names them, and index.json says so.
TEST_F(Cli, GenNamesItsFilesAfterTheTests) {
  Outcome r = hsalit({"gen", "--family", "MP", "--scopes", "agent", "--out", (dir_ / "gen").string()});
  ASSERT_EQ(r.status, 0) << r.err;
  const nlohmann::json index = nlohmann::json::parse(read_file(dir_ / "gen" / "index.json"));
  ASSERT_FALSE(index["tests"].empty());
  for (const auto& t : index["tests"]) {
    EXPECT_EQ(t["file"], t["name"].get<std::string>() + ".litmus");  // generated names are kept
    EXPECT_TRUE(fs::is_regular_file(dir_ / "gen" / t["file"].get<std::string>())) << t["file"];
  }
}

// `check --explain STATE`: why the model forbids a state (text, JSON, DOT), with the exit
// statuses of the conventions: 0 explained, 2 a state no candidate ends in or a bad state.
TEST_F(Cli, CheckExplainSaysWhyAStateIsForbidden) {
  const std::string mp =
      (fs::path(HSALIT_SOURCE_DIR) / "litmus/library/canonical/MP+agent+agent_diff-wg.litmus").string();
  const std::string dot = (dir_ / "why.dot").string();
  Outcome text = hsalit({"check", "--explain", "1:r0=1 /\\ 1:r1=0", "--explain-dot", dot, mp});
  EXPECT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("is forbidden under hsa"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\"hhb is consistent with coh\" (HSA SysArch 3.11, 3.12), in coh of x"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("-sso->"), std::string::npos) << text.out;
  EXPECT_NE(read_file(dot).find("digraph"), std::string::npos);

  Outcome json = hsalit({"check", "--json", "--explain", "1:r0=1; 1:r1=0;", mp});
  EXPECT_EQ(json.status, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["explanation"]["status"], "forbidden");
  EXPECT_EQ(j["explanation"]["reasons"][0]["axiom"], "hhb is consistent with coh");
  EXPECT_EQ(j["explanation"]["reasons"][0]["cycle"].size(), 4u);

  Outcome allowed = hsalit({"check", "--explain", "1:r0=1; 1:r1=1", mp});
  EXPECT_EQ(allowed.status, 0) << allowed.err;
  EXPECT_NE(allowed.out.find("is allowed under hsa"), std::string::npos) << allowed.out;
  EXPECT_NE(allowed.out.find("a valid one: rf "), std::string::npos) << allowed.out;

  Outcome impossible = hsalit({"check", "--explain", "1:r0=7", mp});
  EXPECT_EQ(impossible.status, 2);
  EXPECT_NE(impossible.err.find("no candidate execution of MP+agent+agent_diff-wg ends in this state"),
            std::string::npos)
      << impossible.err;

  Outcome bad = hsalit({"check", "--explain", "3:r0=1", mp});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("MP+agent+agent_diff-wg.litmus: error: --explain '3:r0=1': '3:r0' names thread 3"),
            std::string::npos)
      << bad.err;

  Outcome two = hsalit({"check", "--explain", "1:r0=1", mp, mp});
  EXPECT_EQ(two.status, 2);
  EXPECT_NE(two.err.find("--explain explains a state of one test"), std::string::npos) << two.err;
}
