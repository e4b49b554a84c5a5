// Every command honours its time and memory limits from the first step, on input built to
// exhaust them: the verdict is `unknown` (exit 1) soon after the limit, never a crash or a
// run past it. Timings are generous (a loaded two-core machine): limit plus several seconds.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_support.hpp"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

using test_support::Outcome;
using test_support::read_file;

// `threads` threads of one store each to x, each thread in its own work-group of one agent
// (the default scope tree): the work-groups' placements on CUs number Bell(threads), more
// than ten billion for 16.
std::string one_store_threads(int threads) {
  std::string heads, stores;
  for (int t = 0; t < threads; ++t) {
    heads += (t ? " | P" : " P") + std::to_string(t);
    stores += (t ? " | w[] x " : " w[] x ") + std::to_string(t + 1);
  }
  return "LISA Stores" + std::to_string(threads) + "\n{ x = 0; }\n" + heads + " ;\n" + stores + " ;\nexists (x=1)\n";
}

// Two threads of `stores` stores each, in two work-groups: all to x, or the i-th store of
// each thread to x<i> (two writes per location: 2^stores coherence orders).
std::string two_threads_of_stores(int stores, bool location_per_row = false) {
  std::string init, rows;
  for (int i = 1; i <= stores; ++i) {
    const std::string loc = location_per_row ? "x" + std::to_string(i) : "x";
    if (location_per_row || i == 1) init += loc + " = 0; ";
    rows += " w[] " + loc + " " + std::to_string(i) + " | w[] " + loc + " " + std::to_string(1000 + i) + " ;\n";
  }
  return "LISA TwoBy" + std::to_string(stores) + "\n{ " + init + "}\n P0 | P1 ;\n" + rows +
         "scopes: (agent (wg 0) (wg 1))\nexists (" + (location_per_row ? "x1" : "x") + "=1)\n";
}

const char* kMessagePassing =
    "LISA MP\n{ x = 0; y = 0; }\n P0 | P1 ;\n w[] x 1 | r[atomic,scacq,agent] r0 y ;\n"
    " w[atomic,screl,agent] y 1 | r[] r1 x ;\nscopes: (agent (wg 0) (wg 1))\nexists (1:r0=1 /\\ 1:r1=0)\n";

class Limits : public test_support::CliFolder {
 protected:
  // Starts `hsalit ARGS` (no shell), stdout and stderr to files in the test's folder.
  pid_t spawn(const std::vector<std::string>& args) {
    const fs::path out = dir_ / "stdout", err = dir_ / "stderr";
    const pid_t pid = ::fork();
    if (pid == 0) {
      std::freopen("/dev/null", "r", stdin);
      std::freopen(out.c_str(), "w", stdout);
      std::freopen(err.c_str(), "w", stderr);
      std::vector<std::string> copy = args;
      std::string cli = HSALIT_CLI;
      std::vector<char*> argv = {cli.data()};
      for (std::string& a : copy) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(cli.c_str(), argv.data());
      ::_exit(127);
    }
    return pid;
  }

  // Waits for `pid`, killing it past `kill_after` seconds (a run that ignores its limit must
  // fail the test, not hang it); its peak resident memory in `peak_bytes`.
  Outcome wait(pid_t pid, Clock::time_point started, double kill_after, long* peak_bytes = nullptr) {
    Outcome r;
    int raw = 0;
    struct rusage usage {};
    for (;;) {
      const pid_t done = ::wait4(pid, &raw, WNOHANG, &usage);
      if (done == pid) break;
      if (std::chrono::duration<double>(Clock::now() - started).count() > kill_after) ::kill(pid, SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    r.seconds = std::chrono::duration<double>(Clock::now() - started).count();
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    r.out = read_file(dir_ / "stdout");
    r.err = read_file(dir_ / "stderr");
    if (peak_bytes) *peak_bytes = usage.ru_maxrss * 1024;
    return r;
  }

  Outcome hsalit(const std::vector<std::string>& args, double kill_after = 60, long* peak_bytes = nullptr) {
    const auto started = Clock::now();
    return wait(spawn(args), started, kill_after, peak_bytes);
  }
};

// Every placement was built before the first time check: 16 one-store threads took 16.7 GB.
TEST_F(Limits, ExhaustiveRunStopsAtItsTimeLimitWhateverThePlacements) {
  const std::string test = write("stores16.litmus", one_store_threads(16));
  long peak = 0;
  Outcome r = hsalit({"run", "--exhaustive", "--timeout", "1", test}, 60, &peak);
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("time limit of 1 s"), std::string::npos) << r.out << r.err;
  EXPECT_LT(r.seconds, 10.0);
  // The states found in that second take about 1 GB on a two-core machine (more on a faster
  // one); the placements built up front took 16.7 GB.
  EXPECT_LT(peak, 4L << 30) << "peak resident memory";
}

// The state space outgrows a small memory limit: `unknown`, exit 1, no abort.
TEST_F(Limits, ExhaustiveRunStopsAtItsMemoryLimit) {
  const std::string test = write("stores16.litmus", one_store_threads(16));
  long peak = 0;
  Outcome r = hsalit({"run", "--exhaustive", "--timeout", "60", "--memory-limit", "64M", test}, 60, &peak);
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("memory limit of 64 MiB reached"), std::string::npos) << r.out << r.err;
  EXPECT_LT(peak, 96L << 20) << "peak resident memory";
}

TEST_F(Limits, MemoryLimitThatIsNoSizeIsAUsageError) {
  const std::string test = write("mp.litmus", kMessagePassing);
  for (const char* bad : {"lots", "0", "12Q", "-5M"}) {
    Outcome r = hsalit({"run", "--memory-limit", bad, test});
    EXPECT_EQ(r.status, 2) << bad << ": " << r.err;
    EXPECT_NE(r.err.find("--memory-limit"), std::string::npos) << r.err;
  }
}

// Random mode ignored --timeout: 20 million runs with a limit of 1 s took 28 s.
TEST_F(Limits, RandomRunStopsAtItsTimeLimitAndSaysHowManyRunsItMade) {
  const std::string test = write("mp.litmus", kMessagePassing);
  Outcome r = hsalit({"run", "--iterations", "100000000000", "--timeout", "1", "--json", test});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_LT(r.seconds, 10.0);
  EXPECT_NE(r.out.find("\"result\":\"unknown\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("time limit of 1 s: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" of 100000000000 iterations ran"), std::string::npos) << r.out;
}

// A random run of a test with billions of placements draws one per run instead of building
// them all first.
TEST_F(Limits, RandomRunOfManyPlacementsStartsAtOnce) {
  const std::string test = write("stores16.litmus", one_store_threads(16));
  long peak = 0;
  Outcome r = hsalit({"run", "--iterations", "200", "--timeout", "30", test}, 60, &peak);
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Iterations 200"), std::string::npos) << r.out;
  EXPECT_LT(peak, 1L << 30) << "peak resident memory";
}

// `-j 100000` aborted (`terminate called without an active exception`): the threads are
// capped at the work there is, and a thread the system refuses leaves its share to the others.
TEST_F(Limits, HugeJobCountsDoNotAbort) {
  const std::string test = write("mp.litmus", kMessagePassing);
  Outcome r = hsalit({"run", "--iterations", "100000", "-j", "100000", test});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("Iterations 100000"), std::string::npos) << r.out;
  Outcome c = hsalit({"check", "-j", "100000", test});
  EXPECT_EQ(c.status, 0) << c.out << c.err;
}

// `check --timeout 5` on two threads of 200 stores ran past 60 s: the Z3 engine's encoding
// (cubic in the events) had no time check, and the enum engine checked every 1024 candidates,
// each some milliseconds on a program this large (8 s with a limit of 1 s on 400 stores).
TEST_F(Limits, CheckStopsAtItsTimeLimitWithEitherEngine) {
  const std::string test = write("two-by-400.litmus", two_threads_of_stores(400, true));
  for (const char* engine : {"z3", "enum"}) {
    Outcome r = hsalit({"check", "--engine", engine, "--timeout", "1", "--json", test});
    EXPECT_EQ(r.status, 1) << engine << ": " << r.out << r.err;
    EXPECT_NE(r.out.find(std::string("\"unknown_reason\":\"") + engine + " engine: time limit\""), std::string::npos)
        << engine << ": " << r.out;
    EXPECT_LT(r.seconds, 5.0) << engine;
  }
}

// The model honours --memory-limit too: a process already past it gets no verdict.
TEST_F(Limits, CheckStopsAtItsMemoryLimit) {
  const std::string test = write("mp.litmus", kMessagePassing);
  Outcome r = hsalit({"check", "--engine", "z3", "--memory-limit", "1M", "--json", test});
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("z3 engine: memory limit of 1 MiB reached"), std::string::npos) << r.out;
  Outcome ok = hsalit({"check", "--engine", "z3", "--memory-limit", "4G", test});
  EXPECT_EQ(ok.status, 0) << ok.out << ok.err;
}

// `campaign --time-limit 5` on two threads of 100 stores took 27 s.
TEST_F(Limits, CampaignTestStopsAtTheTimeLimit) {
  write("tests/two-by-100.litmus", two_threads_of_stores(100));
  Outcome r =
      hsalit({"campaign", (dir_ / "tests").string(), "--out", (dir_ / "out").string(), "--time-limit", "1", "--quiet"});
  EXPECT_EQ(r.status, 1) << r.out << r.err;  // an unknown test fails the campaign
  EXPECT_NE(r.out.find("1 unknown"), std::string::npos) << r.out;
  EXPECT_LT(r.seconds, 15.0);
}

// SIGINT stopped a campaign with no word. Now the tests finished are journalled, the one in
// progress is left, the campaign says what is done and how to go on, exits 1, and --resume
// finishes it.
TEST_F(Limits, InterruptedCampaignSaysHowToResume) {
  for (int i = 0; i < 6; ++i) write("tests/t" + std::to_string(i) + ".litmus", two_threads_of_stores(100 + i));
  const std::vector<std::string> args = {
      "campaign", (dir_ / "tests").string(), "--out", (dir_ / "out").string(), "--time-limit", "1", "--quiet"};
  const auto started = Clock::now();
  const pid_t pid = spawn(args);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  ::kill(pid, SIGINT);
  Outcome r = wait(pid, started, 60);
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("interrupted: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(" of 6 tests done; rerun with --resume to continue"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out" / "results.json"));

  std::vector<std::string> resume = args;
  resume.push_back("--resume");
  Outcome done = hsalit(resume);
  EXPECT_EQ(done.status, 1) << done.out << done.err;  // its tests are unknown (the time limit)
  EXPECT_NE(done.out.find("campaign: 6 tests"), std::string::npos) << done.out;
  EXPECT_TRUE(fs::exists(dir_ / "out" / "results.json"));
}

}  // namespace
