// A violation's whole story and the report that answers what went wrong (docs/campaigns.md,
// "A violation's story" and "The HTML report"): the simulator's trace to the forbidden state
// (as `hsalit run --trace` prints it), the litmus source beside the code, the documented
// finding it matches (docs/findings.json), in results.json, report.md and report.html; the
// report's first screen (rows ordered by what needs attention, counts that filter the table,
// the forbidden state marked, per-test pages); and the report in headless Chromium (a filter
// click through chromedriver, the explanation graph).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_support.hpp"
#include "hsalit/codegen/compiler.hpp"
#include "hsalit/results/campaign.hpp"
#include "hsalit/results/execute.hpp"
#include "hsalit/results/findings.hpp"
#include "hsalit/results/report.hpp"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace hsalit::results;

const fs::path kSource = fs::path(HSALIT_SOURCE_DIR);
const fs::path kLibrary = kSource / "litmus" / "library";

using test_support::find_program;
using test_support::read_file;
using test_support::run_hsalit;
using test_support::write_file;
using CliRun = test_support::Outcome;

class Report : public testing::Test {
 protected:
  void SetUp() override {
    const auto* info = testing::UnitTest::GetInstance()->current_test_info();
    dir_ =
        fs::temp_directory_path() / (std::string("hsalit-report-") + info->name() + "-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "tests");
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  void add_test(const std::string& library_path) {
    fs::copy_file(kLibrary / library_path, dir_ / "tests" / fs::path(library_path).filename());
  }
  CliRun hsalit(const std::vector<std::string>& args) { return run_hsalit(args, dir_); }
  // A campaign of the tests folder on gfx900 into `out`, with extra arguments.
  CliRun campaign(const fs::path& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {
        "campaign", (dir_ / "tests").string(), "--target", "gfx900", "--out", out.string(), "--time-limit", "30", "-q"};
    args.insert(args.end(), extra.begin(), extra.end());
    return hsalit(args);
  }
  fs::path dir_;
};

const json* test_named(const json& results, const std::string& name) {
  for (const json& t : results["tests"])
    if (t["name"] == name) return &t;
  return nullptr;
}

const json* forbidden_outcome(const json& test) {
  for (const json& o : test["run"]["histogram"])
    if (o["judgement"] == "forbidden") return &o;
  return nullptr;
}

// The `Trace of ...` block `hsalit run --trace` prints, from its first line to its end.
std::string run_trace_text(const std::string& run_output) {
  const std::size_t at = run_output.find("Trace of ");
  return at == std::string::npos ? "" : run_output.substr(at);
}

// The violation of finding 1 (docs/mappings.md) on gfx900: results.json carries the trace that
// `run --trace` prints for the forbidden state, the litmus source and the finding; report.md
// and report.html show all three.
TEST_F(Report, AViolationCarriesItsTraceSourceAndFinding) {
  add_test("mechanisms/SB+sc-agent_diff-wg.litmus");
  add_test("canonical/MP+agent+agent_diff-wg.litmus");
  const fs::path out = dir_ / "out";
  CliRun r = campaign(out, {"--exhaustive"});
  ASSERT_EQ(r.status, 1) << r.out << r.err;  // the violation
  const json results = json::parse(read_file(out / "results.json"));
  const json* sb = test_named(results, "SB+sc-agent_diff-wg");
  ASSERT_NE(sb, nullptr);
  ASSERT_EQ((*sb)["verdict"], "violation");
  const json* o = forbidden_outcome(*sb);
  ASSERT_NE(o, nullptr);
  ASSERT_TRUE(o->contains("trace")) << o->dump();
  const json& trace = (*o)["trace"];
  ASSERT_TRUE(trace.contains("steps")) << trace.dump();

  // The same trace as `hsalit run --trace` prints.
  CliRun traced = hsalit({"run", "--target", "gfx900", "--exhaustive", "--trace", "0:r0=0; 1:r0=0",
                          (dir_ / "tests" / "SB+sc-agent_diff-wg.litmus").string()});
  ASSERT_EQ(traced.status, 0) << traced.err;
  std::string expected = "Trace of 0:r0=0; 1:r0=0; (" + trace["placement"].get<std::string>() + "):\n";
  for (std::size_t i = 0; i < trace["steps"].size(); ++i) {
    std::ostringstream line;
    line << "  "
         << std::string(i + 1 < 10    ? "  "
                        : i + 1 < 100 ? " "
                                      : "")
         << i + 1 << ". " << trace["steps"][i].get<std::string>() << "\n";
    expected += line.str();
  }
  EXPECT_EQ(run_trace_text(traced.out), expected);

  EXPECT_EQ((*sb)["source"], read_file(dir_ / "tests" / "SB+sc-agent_diff-wg.litmus"));
  ASSERT_TRUE(sb->contains("findings"));
  ASSERT_EQ((*sb)["findings"].size(), 1u);
  EXPECT_EQ((*sb)["findings"][0]["id"], "mappings-1");
  EXPECT_EQ((*sb)["findings"][0]["doc"], "docs/mappings.md");
  // Only a violation carries them.
  const json* mp = test_named(results, "MP+agent+agent_diff-wg");
  ASSERT_NE(mp, nullptr);
  EXPECT_EQ((*mp)["verdict"], "consistent");
  EXPECT_FALSE(mp->contains("source"));
  EXPECT_FALSE(mp->contains("findings"));

  const std::string md = read_file(out / "report.md");
  EXPECT_NE(md.find("How the simulator reaches `0:r0=0; 1:r0=0;`:\n\n```\nTrace of 0:r0=0; 1:r0=0; ("),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("    1. P0 issues "), std::string::npos);
  EXPECT_NE(md.find("- finding mappings-1: HSA scacq/screl as LLVM acquire/release"), std::string::npos) << md;
  EXPECT_NE(md.find("The litmus source:\n\n```\nLISA SB+sc-agent_diff-wg"), std::string::npos) << md;

  const std::string html = read_file(out / "report.html");
  EXPECT_NE(html.find("How the simulator reaches <code>0:r0=0; 1:r0=0;</code>"), std::string::npos);
  EXPECT_NE(html.find("<pre class=\"source\">LISA SB+sc-agent_diff-wg"), std::string::npos);
  EXPECT_NE(html.find("<strong>mappings-1</strong>"), std::string::npos);
  // The forbidden state is marked in the outcome table.
  EXPECT_NE(html.find("<tr class=\"forbidden\"><td><code>0:r0=0; 1:r0=0;</code></td><td>FORBIDDEN</td>"),
            std::string::npos);
}

// A random-mode campaign keeps no trace while it runs: the violation's trace comes from the
// search replayed with traces; with --sc-orders the table is right and no finding applies.
TEST_F(Report, ARandomModeViolationIsTracedByAReplay) {
  add_test("mechanisms/SB+sc-agent_diff-wg.litmus");
  const fs::path out = dir_ / "out";
  CliRun r = campaign(out, {"--iterations", "20000"});
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  const json results = json::parse(read_file(out / "results.json"));
  const json* o = forbidden_outcome(results["tests"][0]);
  ASSERT_NE(o, nullptr);
  ASSERT_TRUE((*o)["trace"].contains("steps")) << o->dump();
  EXPECT_GT((*o)["trace"]["steps"].size(), 10u);

  CliRun fixed = campaign(dir_ / "fixed", {"--iterations", "20000", "--sc-orders"});
  EXPECT_EQ(fixed.status, 0) << fixed.out << fixed.err;
}

// A backend that reports SB's forbidden outcome `0:r0=0; 1:r0=0;` (and nothing else), as a GPU
// would, or as a simulator whose replay does not reach it.
class ForbiddenOutcomeBackend final : public hsalit::runner::Backend {
 public:
  explicit ForbiddenOutcomeBackend(bool can_trace) : can_trace_(can_trace) {}
  std::string_view name() const override { return "fake"; }
  std::optional<std::string> unavailable() const override { return std::nullopt; }
  bool can_trace() const override { return can_trace_; }
  hsalit::runner::BackendResult run(const hsalit::litmus::Test& test, const hsalit::codegen::CompiledTest&,
                                    const hsalit::runner::BackendRequest& request) const override {
    hsalit::runner::BackendResult r;
    r.observed = test.observed();
    r.histogram[hsalit::runner::SimOutcome{{0, 0}}] = 1;
    if (request.keep_traces) r.unknown = "the replay's own limit";
    return r;
  }

 private:
  bool can_trace_ = false;
};

// A forbidden outcome without a trace says why: the backend cannot tell how a run reached
// it, or the replay stopped before reaching it.
TEST(ViolationTrace, AnUntracedViolationSaysWhy) {
  const hsalit::codegen::Target* target = hsalit::codegen::TargetCatalog::builtin().find("gfx900");
  ASSERT_NE(target, nullptr);
  const hsalit::codegen::MappingTable table = hsalit::codegen::MappingTable::builtin("gfx6-9");
  for (const bool can_trace : {false, true}) {
    const ForbiddenOutcomeBackend backend(can_trace);
    const TestContext context{*target, table, {}, {}, backend, {}, 30};
    const TestRecord rec = run_test(kLibrary / "mechanisms" / "SB+sc-agent_diff-wg.litmus", context);
    ASSERT_EQ(rec.verdict, VerdictClass::Violation) << rec.reason;
    const std::vector<const ObservedOutcome*> forbidden = rec.violations();
    ASSERT_EQ(forbidden.size(), 1u);
    ASSERT_TRUE(forbidden[0]->trace);
    EXPECT_TRUE(forbidden[0]->trace->steps.empty());
    EXPECT_EQ(forbidden[0]->trace->missing,
              can_trace ? "the replay with traces stopped before reaching it: the replay's own limit"
                        : "the fake backend does not report how a run reaches its final state");
    EXPECT_NE(render_markdown(CampaignResults{{}, {rec}, std::nullopt}).find("No trace to `0:r0=0; 1:r0=0;`: the "),
              std::string::npos);
  }
}

// --findings FILE replaces the bundled findings; a file that cannot be read, or does not follow
// the schema, is bad input (exit status 2) named with the entry, before any test runs.
TEST_F(Report, FindingsOptionReadsAnotherFileAndRefusesABadOne) {
  add_test("mechanisms/SB+sc-agent_diff-wg.litmus");
  write_file(dir_ / "mine.json",
             json{{"schema", "hsalit-findings/1"},
                  {"findings",
                   {{{"id", "mine-1"},
                     {"title", "my own write-up"},
                     {"exhibited_by", {{{"tests", {"SB+sc-agent_diff-wg"}}, {"targets", {"gfx900"}}}}}}}}}
                 .dump());
  CliRun r = campaign(dir_ / "out", {"--exhaustive", "--findings", (dir_ / "mine.json").string()});
  ASSERT_EQ(r.status, 1) << r.err;
  const json results = json::parse(read_file(dir_ / "out" / "results.json"));
  ASSERT_EQ(results["tests"][0]["findings"].size(), 1u);
  EXPECT_EQ(results["tests"][0]["findings"][0]["id"], "mine-1");

  CliRun missing = campaign(dir_ / "missing", {"--findings", (dir_ / "none.json").string()});
  EXPECT_EQ(missing.status, 2);
  EXPECT_NE(missing.err.find((dir_ / "none.json").string() + ": error: cannot read the findings file"),
            std::string::npos)
      << missing.err;
  write_file(dir_ / "bad.json", R"({"schema": "hsalit-findings/1", "findings": [{"id": "x", "exhibited_by": []}]})");
  CliRun bad = campaign(dir_ / "bad", {"--findings", (dir_ / "bad.json").string()});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("bad.json: findings[0]: error: missing 'title'"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(dir_ / "bad" / "results.json"));
}

// The findings file: a test matches a finding only under the configurations the finding
// names, and only as a violation.
TEST(Findings, MatchByTestAndConfiguration) {
  const json file = {{"schema", "hsalit-findings/1"},
                     {"findings",
                      {{{"id", "f1"},
                        {"title", "one"},
                        {"doc", "docs/mappings.md"},
                        {"exhibited_by",
                         {{{"tests", {"SB"}}, {"tables", {"gfx6-9"}}, {"sc_orders", false}},
                          {{"tests", {"SB"}}, {"tables", {"gfx90a"}}, {"assumptions", {"l2-per-agent"}}}}}},
                       {{"id", "f2"}, {"title", "two"}, {"exhibited_by", {{{"tests", {"SB", "MP"}}}}}}}}};
  const std::vector<Finding> findings = findings_from_json(file, "findings.json");
  ASSERT_EQ(findings.size(), 2u);
  CampaignInfo info;
  info.mapping = "gfx6-9";
  TestRecord sb;
  sb.name = "SB";
  sb.verdict = VerdictClass::Violation;
  auto ids = [&] {
    std::vector<std::string> out;
    for (const FindingRef& f : matching_findings(findings, info, sb)) out.push_back(f.id);
    return out;
  };
  EXPECT_EQ(ids(), (std::vector<std::string>{"f1", "f2"}));
  info.sc_orders = true;
  EXPECT_EQ(ids(), (std::vector<std::string>{"f2"}));
  info.mapping = "gfx90a";
  EXPECT_EQ(ids(), (std::vector<std::string>{"f2"}));
  info.assumptions = {"l2-per-agent", "one-channel"};
  EXPECT_EQ(ids(), (std::vector<std::string>{"f1", "f2"}));
  sb.verdict = VerdictClass::Consistent;
  EXPECT_TRUE(ids().empty());
  sb.verdict = VerdictClass::Violation;
  sb.name = "LB";
  EXPECT_TRUE(ids().empty());

  // A file that does not follow the schema names the entry.
  json bad = file;
  bad["findings"][0]["exhibited_by"][1]["assume"] = {"x"};
  try {
    findings_from_json(bad, "findings.json");
    FAIL() << "accepted an unknown key";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("findings.json: findings[0].exhibited_by[1]: error: unknown key 'assume'"),
              std::string::npos)
        << e.what();
  }
  bad = file;
  bad["findings"][1]["id"] = "f1";
  EXPECT_THROW(findings_from_json(bad, "findings.json"), ResultsError);
}

// The shipped findings file reads, and every test it names is a test of the library or of the
// campaigns docs/ records (a renamed test would silently stop matching).
TEST(Findings, TheShippedFileNamesTestsThatExist) {
  const std::vector<Finding> findings = read_findings(kSource / "docs" / "findings.json");
  ASSERT_FALSE(findings.empty());
  std::vector<std::string> known;
  for (const auto& entry : fs::recursive_directory_iterator(kLibrary))
    if (entry.path().extension() == ".litmus") known.push_back(entry.path().stem().string());
  const std::string recorded = read_file(kSource / "docs" / "campaigns" / "h100-2026-11-23" / "README.md");
  std::string mappings = read_file(kSource / "docs" / "mappings.md");
  std::erase(mappings, '`');  // sections are named as the headings read, without code marks
  for (const Finding& f : findings) {
    EXPECT_NE(mappings.find(f.ref.section), std::string::npos) << f.ref.id << ": section not in docs/mappings.md";
    for (const FindingCondition& c : f.exhibited_by)
      for (const std::string& test : c.tests)
        EXPECT_TRUE(std::find(known.begin(), known.end(), test) != known.end() ||
                    recorded.find(test) != std::string::npos)
            << f.ref.id << ": " << test;
  }
}

CampaignResults four_verdicts() {
  CampaignResults r;
  r.info.target = "gfx900";
  r.info.mapping = "gfx6-9";
  auto record = [](std::string name, VerdictClass verdict) {
    TestRecord t;
    t.file = name + ".litmus";
    t.name = std::move(name);
    t.verdict = verdict;
    t.observed_refs = {"1:r0"};
    t.model.status = StageStatus::Ok;
    t.model.result = "Ok";
    t.model.allowed = {{{{"0"}}, false, 1}};
    t.run.status = StageStatus::Ok;
    t.run.histogram = {{{{"0"}}, 1, false, Judgement::Allowed}};
    t.reason = "reason of " + t.name;
    return t;
  };
  // File order: a consistent, undefined, unknown, violation.
  r.tests = {record("a-consistent", VerdictClass::Consistent), record("b-undefined", VerdictClass::Undefined),
             record("c-unknown", VerdictClass::Unknown), record("d-violation", VerdictClass::Violation)};
  r.tests[3].run.histogram.push_back({{{"1"}}, 2, true, Judgement::Forbidden});
  r.tests[3].run.histogram.back().trace = OutcomeTrace{"P0: wave 0", {"P0 issues s_endpgm"}, ""};
  return r;
}

// The first screen: the counts filter the table by verdict, rows come violations first, then
// unknown, undefined and the rest, and what went wrong is listed before the table; each
// test has its own page, linked from its row.
TEST(HtmlReport, FirstScreenOrdersByWhatWentWrong) {
  const CampaignResults r = four_verdicts();
  const std::string html = render_html(r, [](std::string_view) { return std::nullopt; });
  std::vector<std::string> order;
  const std::regex row("<tr data-verdict=\"([a-z]+)\">");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), row); it != std::sregex_iterator(); ++it)
    order.push_back((*it)[1]);
  EXPECT_EQ(order, (std::vector<std::string>{"violation", "unknown", "undefined", "consistent"}));
  for (const char* verdict : {"violation", "unknown", "undefined", "consistent"})
    EXPECT_NE(html.find(std::string("data-only=\"") + verdict + "\""), std::string::npos) << verdict;
  const std::size_t wrong = html.find("<section id=\"what-went-wrong\">");
  ASSERT_NE(wrong, std::string::npos);
  EXPECT_LT(wrong, html.find("<table id=\"tests\">"));
  EXPECT_NE(html.find("c-unknown</a>: reason of c-unknown"), std::string::npos);
  EXPECT_NE(html.find("simulator: <a href=\"#t3\">a trace of 1 steps</a>"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"pages/tests-0000.html#t0\">a-consistent</a>"), std::string::npos);
  // report.md lists them in the same order.
  const std::string md = render_markdown(r);
  std::vector<std::size_t> at;
  for (const char* name : {"| d-violation |", "| c-unknown |", "| b-undefined |", "| a-consistent |"})
    at.push_back(md.find(name));
  EXPECT_TRUE(std::is_sorted(at.begin(), at.end()) && at.back() != std::string::npos) << md;
  // The detail pages: 100 tests a page, each test's section by its index, back to the report.
  std::vector<ReportPage> pages = render_test_pages(r, [](std::string_view) { return std::nullopt; });
  ASSERT_EQ(pages.size(), 1u);
  EXPECT_EQ(pages[0].file, "tests-0000.html");
  EXPECT_NE(pages[0].html.find("<a href=\"../report.html\">"), std::string::npos);
  EXPECT_NE(pages[0].html.find("<section id=\"t3\">\n<h2>d-violation"), std::string::npos);
  EXPECT_NE(pages[0].html.find("<tr class=\"forbidden\">"), std::string::npos);
  CampaignResults many = r;
  while (many.tests.size() < 250) many.tests.push_back(r.tests[0]);
  pages = render_test_pages(many, [](std::string_view) { return std::nullopt; });
  ASSERT_EQ(pages.size(), 3u);
  EXPECT_EQ(pages[2].file, "tests-0002.html");
  EXPECT_NE(pages[2].html.find("<section id=\"t249\">"), std::string::npos);
  EXPECT_EQ(pages[2].html.find("<section id=\"t199\">"), std::string::npos);
  EXPECT_NE(render_html(many, [](std::string_view) { return std::nullopt; }).find("pages/tests-0002.html#t249"),
            std::string::npos);
}

// A campaign with many violations (a broken table over a generated family) tells the first
// 50 in report.html and the rest on the detail pages, drawing no more graphs than that: the
// report stays one that opens.
TEST(HtmlReport, ManyViolationsTellTheFirstFiftyInTheReport) {
  CampaignResults r = four_verdicts();
  r.tests[3].run.histogram.back().explanation =
      json{{"status", "forbidden"}, {"text", "why"}, {"dot", "digraph G { a -> b; }"}};
  CampaignResults many;
  many.info = r.info;
  for (int i = 0; i < 600; ++i) {
    many.tests.push_back(r.tests[3]);
    many.tests.back().name = "v" + std::to_string(i);
  }
  std::size_t drawn = 0;
  const DotRenderer counting = [&](std::string_view) -> std::optional<std::string> {
    ++drawn;
    return std::string("<svg></svg>");
  };
  const std::string html = render_html(many, counting);
  EXPECT_EQ(drawn, 50u);
  EXPECT_NE(html.find("<section id=\"t49\">"), std::string::npos);
  EXPECT_EQ(html.find("<section id=\"t50\">"), std::string::npos);
  EXPECT_NE(html.find("and 550 more violations"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"#t49\">v49</a>"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"pages/tests-0000.html#t50\">v50</a>"), std::string::npos);
  drawn = 0;
  const std::vector<ReportPage> pages = render_test_pages(many, counting);
  EXPECT_EQ(drawn, 50u);  // 600 tests: past the size that draws every graph
  EXPECT_NE(pages[0].html.find("Not drawn in a report of this size"), std::string::npos);
}

// Spec sections in an explanation are marked as references to the spec's sections.
TEST(HtmlReport, SpecSectionsAreMarked) {
  CampaignResults r = four_verdicts();
  r.tests[3].run.histogram.back().explanation =
      json{{"status", "forbidden"}, {"text", "fails \"sc order exists\" (HSA SysArch 3.10)\n  po (HSA SysArch 3.6)\n"}};
  const std::string html = render_html(r, [](std::string_view) { return std::nullopt; });
  EXPECT_NE(html.find("<cite class=\"spec\" title=\"HSA Platform System Architecture Specification 1.01, chapter 3, "
                      "section 3.10\">HSA SysArch 3.10</cite>"),
            std::string::npos)
      << html;
}

// An explanation in a results.json written by hand may hold anything: the report shows what
// it can and does not fail.
TEST(HtmlReport, AMalformedExplanationDoesNotBreakTheReport) {
  CampaignResults r = four_verdicts();
  r.tests[3].run.histogram.back().explanation =
      json{{"status", 7}, {"text", "why"}, {"reasons", {{{"axiom", 1}, {"cycle", {{{"relation", false}}, 3}}}}}};
  std::string html;
  ASSERT_NO_THROW(html = render_html(r, [](std::string_view) { return std::nullopt; }));
  EXPECT_NE(html.find("model: fails &quot;&quot; (HSA SysArch ) in : cycle a -?-&gt; b -?-&gt; a"), std::string::npos)
      << html;
  r.tests[3].run.histogram.back().explanation = json{{"status", 7}, {"text", "why"}, {"reasons", 3}};
  EXPECT_NO_THROW(render_html(r, [](std::string_view) { return std::nullopt; }));
}

// `hsalit report` writes the detail pages again, byte for byte, and removes a page that is
// no longer part of the report.
TEST_F(Report, ReportRewritesThePagesAndDropsStaleOnes) {
  add_test("canonical/MP+agent+agent_diff-wg.litmus");
  add_test("canonical/MP+wg+wg_diff-wg.litmus");
  const fs::path out = dir_ / "out";
  ASSERT_EQ(campaign(out, {"--exhaustive"}).status, 0);
  const fs::path page = out / "pages" / "tests-0000.html";
  const std::string before = read_file(page);
  ASSERT_FALSE(before.empty());
  fs::remove(page);
  write_file(out / "pages" / "tests-0001.html", "a page of an earlier, longer campaign");
  CliRun r = hsalit({"report", out.string()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(read_file(page), before);
  EXPECT_FALSE(fs::exists(out / "pages" / "tests-0001.html"));
}

// A free TCP port on the loopback interface (bound, read back, released).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof a;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &length) == 0)
    port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

// A WebDriver client of chromedriver (the W3C HTTP API, one request per connection): a
// headless Chromium with the flags that work in a container, a fresh profile, and the few
// commands the report needs. No npm, no Selenium.
class Browser {
 public:
  Browser(const fs::path& chromedriver, const fs::path& chromium, const fs::path& profile) : port_(free_port()) {
    driver_ = ::fork();
    if (driver_ == 0) {
      std::freopen("/dev/null", "w", stdout);
      std::freopen("/dev/null", "w", stderr);
      const std::string port = "--port=" + std::to_string(port_);
      ::execl(chromedriver.c_str(), chromedriver.c_str(), port.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    for (int i = 0; i < 100 && !ready(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const json args = {"--headless",
                       "--no-sandbox",
                       "--disable-gpu",
                       "--disable-quic",
                       "--no-first-run",
                       "--disable-background-networking",
                       "--disable-component-update",
                       "--disable-sync",
                       "--window-size=1280,900",
                       "--user-data-dir=" + profile.string()};
    const json session = request(
        "POST", "/session",
        {{"capabilities",
          {{"alwaysMatch",
            {{"browserName", "chrome"}, {"goog:chromeOptions", {{"binary", chromium.string()}, {"args", args}}}}}}}});
    if (session.contains("value") && session["value"].contains("sessionId"))
      session_ = session["value"]["sessionId"].get<std::string>();
    else
      error_ = session.dump();
  }
  ~Browser() {
    if (!session_.empty()) request("DELETE", "/session/" + session_, nullptr);
    if (driver_ > 0) {
      ::kill(driver_, SIGTERM);
      ::waitpid(driver_, nullptr, 0);
    }
  }
  Browser(const Browser&) = delete;
  Browser& operator=(const Browser&) = delete;

  bool started() const { return !session_.empty(); }
  const std::string& error() const { return error_; }
  void open(const fs::path& file) { command("POST", "/url", {{"url", "file://" + file.string()}}); }
  // The value of a script's `return`.
  json run(const std::string& script) {
    return command("POST", "/execute/sync", {{"script", script}, {"args", json::array()}})["value"];
  }
  void click(const std::string& css) {
    const json found = command("POST", "/element", {{"using", "css selector"}, {"value", css}});
    ASSERT_TRUE(found.contains("value") && found["value"].is_object() && !found["value"].empty()) << found.dump();
    const std::string element = found["value"].begin().value().get<std::string>();
    command("POST", "/element/" + element + "/click", json::object());
  }

 private:
  bool ready() { return request("GET", "/status", nullptr).value("value", json::object()).value("ready", false); }
  json command(const std::string& method, const std::string& path, const json& body) {
    return request(method, "/session/" + session_ + path, body);
  }
  json request(const std::string& method, const std::string& path, const json& body) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port_));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      ::close(fd);
      return json::object();
    }
    const std::string content = body.is_null() ? "" : body.dump();
    const std::string message = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
                                "Content-Type: application/json\r\nContent-Length: " + std::to_string(content.size()) +
                                "\r\n\r\n" + content;
    for (std::size_t sent = 0; sent < message.size();) {
      const ssize_t n = ::send(fd, message.data() + sent, message.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<std::size_t>(n);
    }
    // The answer: headers, then Content-Length bytes (chromedriver may keep the connection).
    std::string response;
    char buffer[65536];
    std::optional<std::size_t> body_start, length;
    for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
      response.append(buffer, static_cast<std::size_t>(n));
      if (!body_start && response.find("\r\n\r\n") != std::string::npos) {
        body_start = response.find("\r\n\r\n") + 4;
        std::string headers = response.substr(0, *body_start);
        std::transform(headers.begin(), headers.end(), headers.begin(),
                       [](unsigned char c) { return std::tolower(c); });
        const std::size_t at = headers.find("content-length:");
        if (at != std::string::npos) length = std::stoul(headers.substr(at + 15));
      }
      if (body_start && length && response.size() >= *body_start + *length) break;
    }
    ::close(fd);
    if (!body_start) return json::object();
    const std::string payload = response.substr(*body_start, length.value_or(std::string::npos));
    json j = json::parse(payload, nullptr, false);
    return j.is_discarded() ? json::object() : j;
  }

  int port_ = 0;
  pid_t driver_ = -1;
  std::string session_, error_;
};

// The report in a real browser: the first screen shows what went wrong, a click on a count
// filters the table to that verdict (the visible rows change as expected), and a violation's
// explanation graph is drawn. Skipped without Chromium and chromedriver (scripts/setup
// installs both).
TEST_F(Report, FirstScreenFilterClickAndGraphInHeadlessChromium) {
  const std::optional<fs::path> chromium = find_program({"chromium", "chromium-browser", "google-chrome"});
  const std::optional<fs::path> chromedriver = find_program({"chromedriver"});
  if (!chromium || !chromedriver)
    GTEST_SKIP() << "chromium or chromedriver is not installed (scripts/setup installs them)";
  add_test("mechanisms/SB+sc-agent_diff-wg.litmus");     // a violation
  add_test("canonical/MP+agent+agent_diff-wg.litmus");   // consistent
  add_test("canonical/FetchAdd2+agent_diff-wg.litmus");  // consistent
  add_test("canonical/CoRR+rlx-wg_diff-wg.litmus");      // undefined (racy)
  const fs::path out = dir_ / "out";
  ASSERT_EQ(campaign(out, {"--exhaustive"}).status, 1);

  Browser browser(*chromedriver, *chromium, dir_ / "profile");
  ASSERT_TRUE(browser.started()) << browser.error();
  browser.open(out / "report.html");
  const std::string visible_rows =
      "return Array.prototype.filter.call(document.querySelectorAll('#tests tbody tr'), "
      "function (r) { return r.getClientRects().length > 0; }).map(function (r) { "
      "return r.getAttribute('data-verdict'); });";
  // The first screen: the violation's summary is above the fold, and every row is shown,
  // the violation first.
  EXPECT_EQ(browser.run("var w = document.querySelector('#what-went-wrong .wrong'); "
                        "return w !== null && w.getBoundingClientRect().top < window.innerHeight && "
                        "w.textContent.indexOf('SB+sc-agent_diff-wg') >= 0;"),
            true);
  EXPECT_EQ(browser.run(visible_rows), json({"violation", "undefined", "consistent", "consistent"}));

  browser.click("button[data-only='consistent']");
  EXPECT_EQ(browser.run(visible_rows), json({"consistent", "consistent"}));
  EXPECT_EQ(browser.run("return document.getElementById('shown').textContent;"), "2 of 4 tests shown");
  browser.click("button[data-only='violation']");
  EXPECT_EQ(browser.run(visible_rows), json({"violation"}));
  EXPECT_EQ(browser.run("return document.querySelector(\"button[data-only='violation']\")"
                        ".getAttribute('aria-pressed');"),
            "true");
  browser.click("button[data-only='']");
  EXPECT_EQ(browser.run(visible_rows).size(), 4u);

  // The violation's story: the explanation graph (drawn when Graphviz is installed, its DOT
  // text otherwise), the trace, and the forbidden state marked in the outcome table.
  const std::string graph = find_program({"dot"}) ? "svg" : "pre";
  EXPECT_EQ(browser.run("var g = document.querySelector('.explanation " + graph +
                        "'); return g !== null && g.getBoundingClientRect().height > 0;"),
            true);
  EXPECT_EQ(browser.run("return document.querySelectorAll('.trace pre').length;"), 1);
  EXPECT_EQ(browser.run("var f = document.querySelector('tr.forbidden td'); "
                        "return f === null ? '' : getComputedStyle(f).color;"),
            "rgb(183, 28, 28)");
}

// The compare matrix of `report --compare` in a real browser: gfx900 against gfx1100 on three
// tests, the one where their verdicts differ (finding 1 shows in WGP mode only) first; a click
// on a kind's button shows only its rows, and the plots are drawn.
TEST_F(Report, CompareMatrixFilterClickInHeadlessChromium) {
  const std::optional<fs::path> chromium = find_program({"chromium", "chromium-browser", "google-chrome"});
  const std::optional<fs::path> chromedriver = find_program({"chromedriver"});
  if (!chromium || !chromedriver)
    GTEST_SKIP() << "chromium or chromedriver is not installed (scripts/setup installs them)";
  add_test("canonical/SB+wg_same-wg.litmus");
  add_test("canonical/MP+agent+agent_diff-wg.litmus");
  add_test("canonical/FetchAdd2+agent_diff-wg.litmus");
  ASSERT_EQ(campaign(dir_ / "gfx900").status, 0);
  ASSERT_EQ(
      hsalit({"campaign", (dir_ / "tests").string(), "--target", "gfx1100", "--out", (dir_ / "gfx1100").string(), "-q"})
          .status,
      1);
  const CliRun compared = hsalit({"report", "--compare", (dir_ / "gfx900").string(), (dir_ / "gfx1100").string(),
                                  "--out", (dir_ / "compare").string()});
  ASSERT_EQ(compared.status, 1) << compared.out << compared.err;

  Browser browser(*chromedriver, *chromium, dir_ / "profile");
  ASSERT_TRUE(browser.started()) << browser.error();
  browser.open(dir_ / "compare" / "compare.html");
  const std::string visible_rows =
      "return Array.prototype.filter.call(document.querySelectorAll('#matrix tbody tr'), "
      "function (r) { return r.getClientRects().length > 0; }).map(function (r) { "
      "return r.cells[0].textContent + ' ' + r.getAttribute('data-agreement'); });";
  EXPECT_EQ(browser.run(visible_rows),
            json({"SB+wg_same-wg verdicts-differ", "FetchAdd2+agent_diff-wg agree", "MP+agent+agent_diff-wg agree"}));
  browser.click("button[data-agreement='verdicts-differ']");
  EXPECT_EQ(browser.run(visible_rows), json({"SB+wg_same-wg verdicts-differ"}));
  EXPECT_EQ(browser.run("return document.querySelector('#matrix tbody tr td.violation') !== null;"), true);
  browser.click("button[data-agreement='agree']");
  EXPECT_EQ(browser.run(visible_rows).size(), 2u);
  browser.click("button[data-agreement='all']");
  EXPECT_EQ(browser.run(visible_rows).size(), 3u);
  EXPECT_EQ(browser.run("var p = document.getElementById('plot-coverage'); "
                        "return p !== null && p.getBoundingClientRect().height > 0 && "
                        "p.querySelectorAll('rect').length;"),
            4);
  EXPECT_EQ(browser.run("return document.getElementById('plot-observations') !== null;"), true);
}

}  // namespace
