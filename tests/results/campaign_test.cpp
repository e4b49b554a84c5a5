// `hsalit campaign`, `report` and `results merge`, run as a user would, on a handful of
// bundled tests: verdict classes (a broken mapping gives a violation), every output, resume
// after SIGKILL at points the campaign reports, shards and merge, regenerated reports, JUnit well-formedness,
// and the HTML report in headless Chromium.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "hsalit/results/output_folder.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kLibrary = fs::path(HSALIT_SOURCE_DIR) / "litmus" / "library";

// Small tests that the model and the simulator decide in well under a second each.
const std::vector<std::string> kCanonical = {
    "CoRR+rlx-wg_same-wg",    "FetchAdd2+agent_diff-wg", "LB+ctrls-ordinary_diff-wg",
    "MP+agent+agent_diff-wg", "MP+wg+wg_diff-wg",
};

using test_support::read_file;
using test_support::write_file;
using CliRun = test_support::Outcome;
using test_support::spawn_hsalit;

class Campaign : public testing::Test {
 protected:
  void SetUp() override {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        fs::temp_directory_path() / (std::string("hsalit-campaign-") + info->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "tests");
    for (const std::string& name : kCanonical)
      fs::copy_file(kLibrary / "canonical" / (name + ".litmus"), dir_ / "tests" / (name + ".litmus"));
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  CliRun hsalit(const std::vector<std::string>& args) { return test_support::run_hsalit(args, dir_); }

  // A campaign of the tests folder into `out`, with extra arguments.
  std::vector<std::string> campaign_args(const fs::path& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"campaign",
                                     (dir_ / "tests").string(),
                                     "--target",
                                     "gfx900",
                                     "--backend",
                                     "sim",
                                     "--exhaustive",
                                     "--out",
                                     out.string(),
                                     "--time-limit",
                                     "30"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  json results(const fs::path& out) { return json::parse(read_file(out / "results.json")); }

  std::map<std::string, std::string> verdicts(const json& r) {
    std::map<std::string, std::string> v;
    for (const json& t : r["tests"]) v[t["name"]] = t["verdict"];
    return v;
  }

  fs::path dir_;
};

// results.json without what differs between two runs of the same campaign: times, and the
// shard and inputs of a shard's results.
json without_timings(json j) {
  for (const char* k : {"started", "finished", "wall_seconds", "shard"}) j["campaign"].erase(k);
  for (json& t : j["tests"]) {
    t.erase("seconds");
    for (const char* stage : {"model", "compile", "run"}) t[stage].erase("seconds");
  }
  return j;
}

// A small XML well-formedness check: one root, balanced tags, quoted attributes, known entities.
bool well_formed_xml(const std::string& x, std::string& why) {
  std::vector<std::string> stack;
  std::size_t i = 0, roots = 0;
  auto fail = [&](std::string w) {
    why = w + " at byte " + std::to_string(i);
    return false;
  };
  if (x.rfind("<?xml", 0) == 0) i = x.find("?>") + 2;
  while (i < x.size()) {
    if (x[i] == '&') {
      std::size_t end = x.find(';', i);
      std::string e = end == std::string::npos ? "" : x.substr(i, end - i + 1);
      if (e != "&amp;" && e != "&lt;" && e != "&gt;" && e != "&quot;" && e != "&#39;") return fail("bad entity " + e);
      i = end + 1;
    } else if (x[i] == '<') {
      std::size_t end = i + 1;
      char quote = 0;
      while (end < x.size() && (quote || x[end] != '>')) {
        if (quote && x[end] == quote)
          quote = 0;
        else if (!quote && (x[end] == '"' || x[end] == '\''))
          quote = x[end];
        else if (!quote && x[end] == '<')
          return fail("'<' inside a tag");
        ++end;
      }
      if (end >= x.size()) return fail("unterminated tag");
      std::string tag = x.substr(i + 1, end - i - 1);
      std::string name = tag.substr(tag[0] == '/' ? 1 : 0, tag.find_first_of(" \t\n/", 1) - (tag[0] == '/' ? 1 : 0));
      if (tag[0] == '/') {
        if (stack.empty() || stack.back() != name) return fail("mismatched </" + name + ">");
        stack.pop_back();
      } else if (tag.back() != '/') {
        if (stack.empty()) ++roots;
        stack.push_back(name);
      } else if (stack.empty()) {
        ++roots;
      }
      i = end + 1;
    } else {
      if (x[i] == '>') return fail("bare '>'");
      if (stack.empty() && !std::isspace(static_cast<unsigned char>(x[i]))) return fail("text outside the root");
      ++i;
    }
  }
  if (!stack.empty()) return fail("unclosed <" + stack.back() + ">");
  if (roots != 1) return fail("not one root");
  return true;
}

TEST_F(Campaign, ProducesEveryOutputAndTheVerdictClasses) {
  write_file(dir_ / "tests" / "Broken.litmus", "LISA Broken\n{ x = 0; }\n P0 ;\n w[] x ;\nexists (x=1)\n");
  fs::path out = dir_ / "out";
  CliRun r = hsalit(campaign_args(out));
  // Broken is unknown: not judged, so the campaign does not pass, and the summary says why.
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("unknown: 1 test: 1 parse\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unknown: Broken: parse: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("report: " + (out / "report.html").string()), std::string::npos) << r.out;
  for (const char* f : {"results.json", "report.md", "report.html", "junit.xml", "campaign.log", "journal.jsonl"})
    EXPECT_TRUE(fs::exists(out / f)) << f;
  json j = results(out);
  EXPECT_EQ(j["schema"], "hsalit-campaign/1");
  auto v = verdicts(j);
  EXPECT_EQ(v["MP+agent+agent_diff-wg"], "consistent");
  EXPECT_EQ(v["LB+ctrls-ordinary_diff-wg"], "consistent");
  EXPECT_EQ(v["MP+wg+wg_diff-wg"], "undefined");  // racy under HSA
  EXPECT_EQ(v["Broken"], "unknown");
  EXPECT_EQ(j["summary"]["tests"], kCanonical.size() + 1);
  for (const json& t : j["tests"]) {
    if (t["name"] == "Broken") {
      EXPECT_NE(t["reason"].get<std::string>().find("Broken.litmus:4:"), std::string::npos) << t["reason"];
      continue;
    }
    EXPECT_FALSE(t["model"]["allowed"].empty()) << t["name"];
    EXPECT_FALSE(t["run"]["histogram"].empty()) << t["name"];
    EXPECT_EQ(t["compile"]["threads"].size(), 2u) << t["name"];
  }
  std::string why;
  EXPECT_TRUE(well_formed_xml(read_file(out / "junit.xml"), why)) << why;
  std::string junit = read_file(out / "junit.xml");
  EXPECT_EQ(std::count(junit.begin(), junit.end(), '\n') > 0, true);
  std::size_t cases = 0;
  for (std::size_t p = junit.find("<testcase "); p != std::string::npos; p = junit.find("<testcase ", p + 1)) ++cases;
  EXPECT_EQ(cases, kCanonical.size() + 1);
  // JUnit: the unknown test is an error with its reason, the racy one skipped.
  EXPECT_NE(junit.find("errors=\"1\""), std::string::npos) << junit;
  EXPECT_NE(junit.find("<error type=\"unknown\" message=\"parse: "), std::string::npos) << junit;
  EXPECT_NE(junit.find("<skipped message=\"undefined: "), std::string::npos) << junit;
  EXPECT_EQ(junit.find("<skipped message=\"unknown"), std::string::npos) << junit;
  std::string log = read_file(out / "campaign.log");
  EXPECT_NE(log.find("Test MP+agent+agent_diff-wg Allowed\nHistogram"), std::string::npos);
  EXPECT_NE(log.find("Verdict MP+wg+wg_diff-wg undefined"), std::string::npos);

  // A second campaign into the same folder needs --resume; with it nothing is rerun.
  CliRun again = hsalit(campaign_args(out));
  EXPECT_EQ(again.status, 2);
  EXPECT_NE(again.err.find("--resume"), std::string::npos) << again.err;
  CliRun resumed = hsalit(campaign_args(out, {"--resume"}));
  EXPECT_EQ(resumed.status, 1) << resumed.err;
  EXPECT_EQ(without_timings(results(out)), without_timings(j));
  // The simulator's assumptions and the row selection are part of the configuration: a
  // journal of a run without them is not resumed with them.
  EXPECT_EQ(j["campaign"]["assumptions"], json::array());
  EXPECT_EQ(j["campaign"]["sc_orders"], false);
  // The refusal names the keys that differ, with both values, not the two whole configurations.
  const std::vector<std::pair<std::vector<std::string>, std::string>> others = {
      {{"--assume", "one-channel"}, "assumptions: [] in the journal, [\"one-channel\"] now"},
      {{"--sc-orders"}, "sc_orders: false in the journal, true now"}};
  for (auto [other, difference] : others) {
    other.push_back("--resume");
    CliRun refused = hsalit(campaign_args(out, other));
    EXPECT_EQ(refused.status, 2) << other[0];
    EXPECT_NE(refused.err.find("journal is of another campaign: " + difference + " (resume with"), std::string::npos)
        << refused.err;
    EXPECT_EQ(refused.err.find("\"target\""), std::string::npos) << refused.err;
  }
}

// The gfx6-9 table with the L1 invalidation dropped from every acquiring load: a load after
// the flag may then read a stale L1 line (docs/simulator.md, rule 8).
void write_broken_table(const fs::path& file) {
  json table = json::parse(read_file(fs::path(HSALIT_SOURCE_DIR) / "codegen/mappings/gfx6-9.json"));
  table["name"] = "gfx6-9-no-acquire-invalidate";
  std::size_t removed = 0;
  for (json& row : table["rows"]) {
    if (row["operation"] != "load" || !row.contains("sequence")) continue;
    json kept = json::array();
    for (const json& step : row["sequence"])
      if (step == "buffer_wbinvl1_vol")
        ++removed;
      else
        kept.push_back(step);
    row["sequence"] = kept;
  }
  ASSERT_GT(removed, 0u);
  write_file(file, table.dump(1));
}

TEST_F(Campaign, BrokenMappingGivesAViolationWithTheCode) {
  write_broken_table(dir_ / "broken.json");
  fs::remove(dir_ / "tests" / "MP+wg+wg_diff-wg.litmus");
  fs::path out = dir_ / "out";
  CliRun r = hsalit(campaign_args(out, {"--mapping", (dir_ / "broken.json").string()}));
  EXPECT_EQ(r.status, 1) << r.out << r.err;  // a violation
  json j = results(out);
  EXPECT_EQ(j["campaign"]["mapping"], "gfx6-9-no-acquire-invalidate");
  auto v = verdicts(j);
  EXPECT_EQ(v["MP+agent+agent_diff-wg"], "violation");
  for (const json& t : j["tests"]) {
    if (t["name"] != "MP+agent+agent_diff-wg") continue;
    EXPECT_NE(t["reason"].get<std::string>().find("1:r0=1; 1:r1=0;"), std::string::npos) << t["reason"];
    bool forbidden = false;
    for (const json& o : t["run"]["histogram"])
      if (o["judgement"] == "forbidden") {
        forbidden = o["text"] == "1:r0=1; 1:r1=0;" && o["count"] == 1;
        // Why the model forbids it: the hhb cycle through the flag's sso in coh of x.
        ASSERT_TRUE(o.contains("explanation")) << o.dump();
        EXPECT_EQ(o["explanation"]["status"], "forbidden");
        EXPECT_EQ(o["explanation"]["reasons"][0]["axiom"], "hhb is consistent with coh");
      }
    EXPECT_TRUE(forbidden);
  }
  EXPECT_NE(r.out.find("violation: MP+agent+agent_diff-wg"), std::string::npos) << r.out;
  std::string junit = read_file(out / "junit.xml");
  EXPECT_NE(junit.find("<failure type=\"violation\""), std::string::npos);
  std::string why;
  EXPECT_TRUE(well_formed_xml(junit, why)) << why;
  std::string md = read_file(out / "report.md");
  EXPECT_NE(md.find("## Violations"), std::string::npos);
  EXPECT_NE(md.find("global_load_dword"), std::string::npos);  // the code of the threads
  EXPECT_NE(md.find("Why the model forbids `1:r0=1; 1:r1=0;`:"), std::string::npos) << md;
  EXPECT_NE(md.find("a -po-> b -sso-> c -po-> d -fr-> a"), std::string::npos) << md;
  const std::string html = read_file(out / "report.html");
  EXPECT_NE(html.find("Why the model forbids <code>1:r0=1; 1:r1=0;</code>"), std::string::npos);
}

TEST_F(Campaign, TimeLimitAndMissingHardwareGiveUnknownWithTheReason) {
  fs::path out = dir_ / "out";
  // Beside a small test, two threads of 100 stores to one location: seconds for the model and
  // the simulator, far beyond the limit of 0.5 s whatever the machine.
  fs::create_directories(dir_ / "timed");
  fs::copy_file(dir_ / "tests" / (kCanonical[0] + ".litmus"), dir_ / "timed" / (kCanonical[0] + ".litmus"));
  std::string rows;
  for (int i = 1; i <= 100; ++i)
    rows += " w[] x " + std::to_string(i) + " | w[] x " + std::to_string(1000 + i) + " ;\n";
  write_file(dir_ / "timed" / "TwoBy100.litmus",
             "LISA TwoBy100\n{ x = 0; }\n P0 | P1 ;\n" + rows + "scopes: (agent (wg 0) (wg 1))\nexists (x=1)\n");
  CliRun r = hsalit({"campaign", (dir_ / "timed").string(), "--out", out.string(), "--time-limit", "0.5", "-q"});
  ASSERT_EQ(r.status, 1) << r.err;  // unknown tests: the campaign does not pass
  EXPECT_NE(r.out.find("unknown: "), std::string::npos) << r.out;
  json j = results(out);
  EXPECT_EQ(j["summary"]["tests"], 2);
  for (const json& t : j["tests"])
    if (t["verdict"] == "unknown" || t["name"] == "TwoBy100") {
      EXPECT_EQ(t["verdict"], "unknown") << t;
      EXPECT_NE(t["reason"].get<std::string>().find("time"), std::string::npos) << t;
    }
  EXPECT_GT(j["summary"]["unknown"].get<int>(), 0);

  // No GPU runtime here: every run is unknown, with why, and no histogram is made up.
  fs::path hw = dir_ / "hw";
  CliRun h = hsalit(
      {"campaign", (dir_ / "tests").string(), "--out", hw.string(), "--backend", "hip", "--iterations", "1000", "-q"});
  ASSERT_EQ(h.status, 1) << h.err;
  EXPECT_NE(h.out.find(" run\n"), std::string::npos) << h.out;  // unknown: N tests: N run
  json k = results(hw);
  EXPECT_EQ(k["campaign"]["backend"], "hip");
  EXPECT_EQ(k["campaign"]["mode"], "random");
  for (const json& t : k["tests"]) {
    EXPECT_TRUE(t["run"]["histogram"].empty()) << t["name"];
    if (t["verdict"] == "undefined") continue;
    EXPECT_EQ(t["verdict"], "unknown") << t["name"];
    EXPECT_EQ(t["run"]["status"], "unknown");
    EXPECT_FALSE(t["run"]["reason"].get<std::string>().empty());
    EXPECT_FALSE(t["model"]["allowed"].empty());  // the other stages still ran
  }
}

// The CUDA backend runs the litmus test through its PTX mapping: the campaign's target is an
// NVIDIA architecture, the report shows the PTX per thread, and the harness configuration is
// recorded. Without an NVIDIA GPU every run is unknown with the reason; with one, it runs.
TEST_F(Campaign, CudaCampaignShowsThePtxItRuns) {
  fs::path out = dir_ / "cuda";
  CliRun r = hsalit({"campaign", (dir_ / "tests").string(), "--out", out.string(), "--backend", "cuda", "--iterations",
                     "2048", "--incantations", "stress,shuffle", "-q"});
  ASSERT_EQ(r.status == 0 || r.status == 1, true) << r.err;
  json j = results(out);
  EXPECT_EQ(j["campaign"]["target"], "sm_90");
  EXPECT_EQ(j["campaign"]["harness"], "instances=1024 incantations=stress,shuffle");
  bool some_ptx = false;
  for (const json& t : j["tests"]) {
    for (const json& thread : t["compile"]["threads"])
      for (const json& line : thread["code"]) some_ptx |= line.get<std::string>().find(".gpu.b32") != std::string::npos;
    if (t["run"]["status"] == "unknown") {
      EXPECT_TRUE(t["run"]["histogram"].empty()) << t["name"];
      EXPECT_FALSE(t["run"]["reason"].get<std::string>().empty()) << t["name"];
    }
  }
  EXPECT_TRUE(some_ptx);
  EXPECT_EQ(hsalit({"campaign", (dir_ / "tests").string(), "--out", (dir_ / "bad").string(), "--backend", "cuda",
                    "--target", "gfx900", "-q"})
                .status,
            2);
}

// The test records of the journal in `out` (its lines but the header), by test file.
std::map<std::string, int> journal_records(const fs::path& out) {
  std::ifstream journal(out / "journal.jsonl");
  std::map<std::string, int> seen;
  std::string line;
  std::getline(journal, line);  // the header
  while (std::getline(journal, line)) ++seen[json::parse(line)["test"]["file"].get<std::string>()];
  return seen;
}

// Each run is killed at a point the campaign reports: stopped (SIGSTOP, by the preloaded
// tests/results/stop_after_journal_records.cpp) right after the fsync of its k-th journal
// record, checked to hold exactly k records and no results, then SIGKILLed; the next run
// resumes it. Whatever the machine's speed, every kill lands mid-campaign, and the last run
// gives the results of a run never killed, each test journalled once.
TEST_F(Campaign, ResumeAfterSigkillEqualsAnUninterruptedRun) {
  fs::path reference = dir_ / "reference";
  CliRun r = hsalit(campaign_args(reference, {"-q"}));
  ASSERT_EQ(r.status, 0) << r.err;
  const std::vector<std::vector<int>> kill_points = {{1, 3, 4}, {2, 4}, {1, 2, 3, 4}};
  for (std::size_t round = 0; round < kill_points.size(); ++round) {
    fs::path out = dir_ / ("killed" + std::to_string(round));
    for (std::size_t kill = 0; kill < kill_points[round].size(); ++kill) {
      const int records = kill_points[round][kill];
      SCOPED_TRACE("round " + std::to_string(round) + ", killed after record " + std::to_string(records));
      std::vector<std::string> args = campaign_args(out, {"-q", "-j", "2"});
      if (kill > 0) args.push_back("--resume");
      pid_t pid = spawn_hsalit(
          args, dir_ / "stdout", dir_ / "stderr",
          {{"LD_PRELOAD", HSALIT_STOP_AFTER_JOURNAL_RECORDS}, {"HSALIT_STOP_AFTER_RECORDS", std::to_string(records)}});
      int status = 0;
      ::waitpid(pid, &status, WUNTRACED);
      const bool stopped = WIFSTOPPED(status);
      ::kill(pid, SIGKILL);
      if (stopped) ::waitpid(pid, &status, 0);
      ASSERT_TRUE(stopped) << "the campaign ended without journalling record " << records << ":\n"
                           << read_file(dir_ / "stderr");
      // The kill landed mid-campaign: a partial journal, no results.
      EXPECT_EQ(journal_records(out).size(), static_cast<std::size_t>(records));
      EXPECT_FALSE(fs::exists(out / "results.json"));
    }
    std::vector<std::string> args = campaign_args(out, {"-q"});
    args.push_back("--resume");
    CliRun last = hsalit(args);
    ASSERT_EQ(last.status, 0) << last.err;
    EXPECT_EQ(without_timings(results(out)), without_timings(results(reference))) << "round " << round;
    // Each test is in the journal once: nothing was repeated after it finished.
    const std::map<std::string, int> seen = journal_records(out);
    EXPECT_EQ(seen.size(), kCanonical.size());
    for (const auto& [file, times] : seen) EXPECT_EQ(times, 1) << file;
  }
}

TEST_F(Campaign, ShardsMergedEqualOneRun) {
  fs::path whole = dir_ / "whole";
  ASSERT_EQ(hsalit(campaign_args(whole, {"-q"})).status, 0);
  std::vector<std::string> merge = {"results", "merge"};
  for (int i = 0; i < 3; ++i) {
    fs::path shard = dir_ / ("shard" + std::to_string(i));
    CliRun r = hsalit(campaign_args(shard, {"-q", "--shard", std::to_string(i) + "/3"}));
    ASSERT_EQ(r.status, 0) << r.err;
    merge.push_back(shard.string());
  }
  std::vector<std::string> incomplete = merge;
  incomplete.pop_back();
  incomplete.insert(incomplete.end(), {"--out", (dir_ / "partial").string()});
  CliRun partial = hsalit(incomplete);
  EXPECT_EQ(partial.status, 2);
  EXPECT_NE(partial.err.find("missing"), std::string::npos) << partial.err;

  merge.insert(merge.end(), {"--out", (dir_ / "merged").string()});
  CliRun m = hsalit(merge);
  ASSERT_EQ(m.status, 0) << m.err;
  EXPECT_EQ(without_timings(results(dir_ / "merged")), without_timings(results(whole)));

  // A shard of another target is refused.
  json other = results(dir_ / "shard2");
  other["campaign"]["target"] = "gfx90a";
  write_file(dir_ / "shard2" / "results.json", other.dump());
  CliRun refused = hsalit(merge);
  EXPECT_EQ(refused.status, 2);
  EXPECT_NE(refused.err.find("target"), std::string::npos) << refused.err;
}

TEST_F(Campaign, ReportRegeneratesIdenticalFiles) {
  fs::path out = dir_ / "out";
  ASSERT_EQ(hsalit(campaign_args(out, {"-q"})).status, 0);
  std::map<std::string, std::string> before;
  for (const char* f : {"report.md", "report.html", "junit.xml", "campaign.log"}) {
    before[f] = read_file(out / f);
    fs::remove(out / f);
  }
  CliRun r = hsalit({"report", out.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const auto& [f, text] : before) EXPECT_EQ(read_file(out / f), text) << f;

  write_file(out / "results.json", "{\"schema\":\"hsalit-campaign/1\",\"campaign\":{}}");
  CliRun bad = hsalit({"report", out.string()});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("results.json: error:"), std::string::npos) << bad.err;
}

TEST_F(Campaign, HostileTestStringsAreEscapedInTheHtml) {
  write_file(dir_ / "tests" / "Hostile.litmus",
             "LISA Hostile\n\"<script>alert('description')</script> & <img src=x onerror=alert(1)>\"\n"
             "{ x = 0; }\n P0 | P1 ;\n w[atomic,rlx,agent] x 1 | r[atomic,rlx,agent] r0 x ;\n"
             "scopes: (agent (wg 0) (wg 1))\nexists (1:r0=1)\n");
  fs::path out = dir_ / "out";
  CliRun r = hsalit(campaign_args(out, {"-q"}));
  ASSERT_EQ(r.status, 0) << r.err;
  // The description is on the test's detail page; the name in the report's table.
  std::string html = read_file(out / "pages" / "tests-0000.html");
  EXPECT_NE(html.find("&lt;script&gt;alert(&#39;description&#39;)&lt;/script&gt; &amp; &lt;img"), std::string::npos);
  for (const std::string& page : {html, read_file(out / "report.html")}) {
    EXPECT_EQ(page.find("<script>alert"), std::string::npos);
    EXPECT_EQ(page.find("<img"), std::string::npos);
  }
  std::string why;
  EXPECT_TRUE(well_formed_xml(read_file(out / "junit.xml"), why)) << why;
}

TEST_F(Campaign, HtmlRendersInHeadlessChromiumWithoutConsoleErrors) {
  std::optional<fs::path> chromium = test_support::find_program({"chromium", "chromium-browser", "google-chrome"});
  if (!chromium) GTEST_SKIP() << "chromium is not installed (scripts/setup installs it): HTML not rendered";
  fs::path out = dir_ / "out";
  ASSERT_EQ(hsalit(campaign_args(out, {"-q"})).status, 0);
  std::string cmd =
      "'" + chromium->string() + "' --headless=new --no-sandbox --disable-gpu --no-first-run --user-data-dir='" +
      (dir_ / "profile").string() + "' --enable-logging=stderr --v=0 --dump-dom 'file://" +
      (out / "report.html").string() + "' >'" + (dir_ / "dom").string() + "' 2>'" + (dir_ / "console").string() + "'";
  int raw = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(raw) && WEXITSTATUS(raw) == 0) << read_file(dir_ / "console");
  std::string dom = read_file(dir_ / "dom");
  std::string console = read_file(dir_ / "console");
  // The page's script ran (it marks the table's headers sortable) and logged nothing.
  EXPECT_NE(dom.find("class=\"sortable\""), std::string::npos) << dom.substr(0, 2000);
  EXPECT_NE(dom.find("MP+agent+agent_diff-wg"), std::string::npos);
  std::istringstream lines(console);
  for (std::string line; std::getline(lines, line);) EXPECT_EQ(line.find("CONSOLE"), std::string::npos) << line;
}

// A results folder belongs to one run (docs/campaigns.md, "The output folder"): no command
// replaces the results of another kind or configuration without --force, a merge never
// writes into one of its parts, and a second writer fails fast on the folder's lock.
TEST_F(Campaign, AResultsFolderIsNotReplacedByAnotherRun) {
  const fs::path campaign = dir_ / "campaign", verified = dir_ / "verified";
  ASSERT_EQ(hsalit(campaign_args(campaign, {"-q"})).status, 0);
  const std::string campaign_results = read_file(campaign / "results.json");
  const std::string test = (dir_ / "tests" / "MP+agent+agent_diff-wg.litmus").string();

  // verify-mapping onto a campaign: refused; with --force the campaign's journal goes too.
  CliRun onto_campaign = hsalit({"verify-mapping", "--engine", "enum", test, "--out", campaign.string()});
  EXPECT_EQ(onto_campaign.status, 2) << onto_campaign.err;
  EXPECT_NE(onto_campaign.err.find("journal.jsonl"), std::string::npos) << onto_campaign.err;
  EXPECT_NE(onto_campaign.err.find("--force"), std::string::npos) << onto_campaign.err;
  EXPECT_EQ(read_file(campaign / "results.json"), campaign_results);
  CliRun forced = hsalit({"verify-mapping", "--engine", "enum", test, "--out", campaign.string(), "--force"});
  EXPECT_LE(forced.status, 1) << forced.err;
  EXPECT_FALSE(fs::exists(campaign / "journal.jsonl"));
  EXPECT_TRUE(results(campaign).contains("verification"));

  // The same verification again replaces its own results; another configuration does not.
  ASSERT_LE(hsalit({"verify-mapping", "--engine", "enum", test, "--out", verified.string()}).status, 1);
  EXPECT_LE(hsalit({"verify-mapping", "--engine", "enum", test, "--out", verified.string()}).status, 1);
  const std::string verified_results = read_file(verified / "results.json");
  CliRun other = hsalit({"verify-mapping", "--engine", "enum", "--sc-orders", test, "--out", verified.string()});
  EXPECT_EQ(other.status, 2) << other.err;
  EXPECT_NE(other.err.find("another configuration"), std::string::npos) << other.err;
  EXPECT_EQ(read_file(verified / "results.json"), verified_results);

  // A campaign onto a verification: refused, --resume or not.
  for (const char* resume : {"-q", "--resume"}) {
    CliRun onto_verification = hsalit(campaign_args(verified, {"-q", resume}));
    EXPECT_EQ(onto_verification.status, 2) << onto_verification.err;
    EXPECT_NE(onto_verification.err.find("results.json"), std::string::npos) << onto_verification.err;
    EXPECT_FALSE(fs::exists(verified / "journal.jsonl"));
    EXPECT_EQ(read_file(verified / "results.json"), verified_results);
  }
}

TEST_F(Campaign, MergeNeverWritesIntoOneOfItsParts) {
  std::vector<std::string> merge = {"results", "merge"};
  for (int i = 0; i < 2; ++i) {
    const fs::path shard = dir_ / ("shard" + std::to_string(i));
    ASSERT_EQ(hsalit(campaign_args(shard, {"-q", "--shard", std::to_string(i) + "/2"})).status, 0);
    merge.push_back(shard.string());
  }
  const std::string shard0 = read_file(dir_ / "shard0" / "results.json");
  for (const std::string& out :
       {(dir_ / "shard0").string(), (dir_ / "shard0").string() + "/", (dir_ / "shard1" / ".." / "shard0").string()})
    for (bool force : {false, true}) {
      std::vector<std::string> args = merge;
      args.insert(args.end(), {"--out", out});
      if (force) args.push_back("--force");
      CliRun r = hsalit(args);
      EXPECT_EQ(r.status, 2) << out << ": " << r.err;
      EXPECT_NE(r.err.find("one of the folders merged"), std::string::npos) << r.err;
    }
  EXPECT_EQ(read_file(dir_ / "shard0" / "results.json"), shard0);

  // Onto a campaign's folder: refused unless --force; into its own earlier merge: replaced.
  ASSERT_EQ(hsalit(campaign_args(dir_ / "campaign", {"-q"})).status, 0);
  std::vector<std::string> onto_campaign = merge;
  onto_campaign.insert(onto_campaign.end(), {"--out", (dir_ / "campaign").string()});
  CliRun refused = hsalit(onto_campaign);
  EXPECT_EQ(refused.status, 2) << refused.err;
  EXPECT_NE(refused.err.find("journal.jsonl"), std::string::npos) << refused.err;
  std::vector<std::string> into_merged = merge;
  into_merged.insert(into_merged.end(), {"--out", (dir_ / "merged").string()});
  EXPECT_EQ(hsalit(into_merged).status, 0);
  CliRun again = hsalit(into_merged);
  EXPECT_EQ(again.status, 0) << again.err;
}

TEST_F(Campaign, ASecondWriterFailsFastOnTheLock) {
  const fs::path out = dir_ / "out";
  ASSERT_EQ(hsalit(campaign_args(out, {"-q"})).status, 0);
  const std::string before = read_file(out / "journal.jsonl");
  {
    hsalit::results::FolderLock held(out);  // as a campaign running there holds it
    CliRun second = hsalit(campaign_args(out, {"-q", "--resume"}));
    EXPECT_EQ(second.status, 2) << second.err;
    EXPECT_NE(second.err.find((out / "hsalit.lock").string()), std::string::npos) << second.err;
    EXPECT_NE(second.err.find("pid " + std::to_string(::getpid())), std::string::npos) << second.err;
    CliRun merge = hsalit({"results", "merge", out.string(), "--out", out.string() + "-copy"});
    EXPECT_EQ(merge.status, 0) << merge.err;  // reading is not writing
  }
  EXPECT_EQ(read_file(out / "journal.jsonl"), before);
  CliRun after = hsalit(campaign_args(out, {"-q", "--resume"}));
  EXPECT_EQ(after.status, 0) << after.err;
}

// Two campaigns started at once on one folder: one runs, the other stops at the lock; the
// journal holds each test once.
TEST_F(Campaign, TwoCampaignsAtOnceDoNotShareAJournal) {
  const fs::path out = dir_ / "out";
  std::vector<pid_t> runs;
  for (int i = 0; i < 2; ++i)
    runs.push_back(spawn_hsalit(campaign_args(out, {"-q", "--resume"}), dir_ / ("stdout" + std::to_string(i)),
                                dir_ / ("stderr" + std::to_string(i))));
  int ok = 0;
  for (pid_t pid : runs) {
    int raw = 0;
    ::waitpid(pid, &raw, 0);
    ok += WIFEXITED(raw) && WEXITSTATUS(raw) == 0;
  }
  EXPECT_GE(ok, 1);
  std::istringstream journal(read_file(out / "journal.jsonl"));
  std::map<std::string, int> records;
  for (std::string line; std::getline(journal, line);) {
    json j = json::parse(line);
    if (j.contains("test")) ++records[j["test"]["file"]];
  }
  EXPECT_EQ(records.size(), kCanonical.size());
  for (const auto& [file, n] : records) EXPECT_EQ(n, 1) << file;
}

// verify-mapping --out: counterexample files are named after their tests, sanitised and
// unique (docs/verification.md), and none is written outside counterexamples/.
TEST_F(Campaign, CounterexampleFilesStayInsideTheirFolder) {
  write_broken_table(dir_ / "broken.json");
  const std::string mp = read_file(dir_ / "tests" / "MP+agent+agent_diff-wg.litmus");
  auto named = [&](const std::string& name) {
    std::string text = mp;
    const std::size_t at = text.find("MP+agent+agent_diff-wg");
    return text.replace(at, std::string("MP+agent+agent_diff-wg").size(), name);
  };
  fs::create_directories(dir_ / "hostile");
  write_file(dir_ / "hostile" / "a.litmus", named("../../escaped"));
  write_file(dir_ / "hostile" / "b.litmus", named("../../escaped"));
  write_file(dir_ / "hostile" / "c.litmus", named((dir_ / "absolute").string()));
  const fs::path out = dir_ / "out";
  CliRun r = hsalit({"verify-mapping", "--engine", "enum", "--no-minimise", "--mapping",
                     (dir_ / "broken.json").string(), (dir_ / "hostile").string(), "--out", out.string()});
  ASSERT_EQ(r.status, 1) << r.out << r.err;  // three counterexamples
  EXPECT_FALSE(fs::exists(dir_ / "escaped.litmus"));
  EXPECT_FALSE(fs::exists(out / "escaped.litmus"));
  EXPECT_FALSE(fs::exists((dir_ / "absolute").string() + ".litmus"));
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(out / "counterexamples")) files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 3u) << ::testing::PrintToString(files);
  EXPECT_EQ(files[0], "___.._escaped.litmus");
  EXPECT_EQ(files[1], "___.._escaped~2.litmus");
  EXPECT_EQ(files[2].find('/'), std::string::npos);
}

}  // namespace
