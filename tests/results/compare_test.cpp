// Campaigns side by side (`hsalit report --compare`, docs/campaigns.md): how tests are matched
// and rows ordered, what a cell counts, the three outputs, and the command run as a user would
// on campaigns of two targets, of a verification, and on bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "hsalit/results/compare.hpp"
#include "hsalit/results/report.hpp"

namespace {

namespace fs = std::filesystem;
using hsalit::results::Agreement;
using hsalit::results::AllowedOutcome;
using hsalit::results::CampaignResults;
using hsalit::results::ComparedCampaign;
using hsalit::results::Comparison;
using hsalit::results::ObservedOutcome;
using hsalit::results::Outcome;
using hsalit::results::StageStatus;
using hsalit::results::TestRecord;
using hsalit::results::VerdictClass;

// A decided, non-racy test whose model allows `allowed` (one value each) and whose backend
// observed `observed` (value -> count).
TestRecord record(std::string name, VerdictClass verdict, std::vector<std::string> allowed,
                  std::vector<std::pair<std::string, std::uint64_t>> observed, std::string hash = "h") {
  TestRecord t;
  t.name = name;
  t.file = name + ".litmus";
  t.content_hash = std::move(hash);
  t.verdict = verdict;
  t.observed_refs = {"1:r0"};
  t.model.status = StageStatus::Ok;
  for (std::string& v : allowed) {
    AllowedOutcome a;
    a.outcome = Outcome{{v}};
    for (const auto& [value, count] : observed)
      if (value == v) a.observed = count;
    t.model.allowed.push_back(a);
  }
  for (const auto& [value, count] : observed) {
    ObservedOutcome o;
    o.outcome = Outcome{{value}};
    o.count = count;
    t.run.histogram.push_back(o);
  }
  return t;
}

ComparedCampaign campaign(std::string target, std::vector<TestRecord> tests) {
  CampaignResults r;
  r.info.target = target;
  r.info.mapping = "gfx6-9";
  r.tests = std::move(tests);
  return {hsalit::results::campaign_label(r.info), target + "/results.json", std::move(r)};
}

const hsalit::results::ComparisonRow& row_of(const Comparison& c, const std::string& test) {
  for (const auto& row : c.rows)
    if (row.test == test) return row;
  throw std::runtime_error("no row " + test);
}

TEST(Compare, RowsWhereCampaignsDisagreeComeFirstEachWithItsKindOfDisagreement) {
  const Comparison c = hsalit::results::compare_campaigns({
      campaign("gfx900", {record("A-agree", VerdictClass::Consistent, {"0", "1"}, {{"0", 1}, {"1", 1}}),
                          record("B-verdict", VerdictClass::Consistent, {"0"}, {{"0", 1}}),
                          record("C-allowed", VerdictClass::Consistent, {"0"}, {{"0", 1}}),
                          record("D-source", VerdictClass::Consistent, {"0"}, {{"0", 1}}, "one"),
                          record("E-missing", VerdictClass::Consistent, {"0"}, {{"0", 1}})}),
      campaign("gfx1100", {record("A-agree", VerdictClass::Consistent, {"0", "1"}, {{"0", 5}}),
                           record("B-verdict", VerdictClass::Violation, {"0"}, {{"0", 1}, {"1", 1}}),
                           record("C-allowed", VerdictClass::Consistent, {"0", "1"}, {{"0", 1}}),
                           record("D-source", VerdictClass::Consistent, {"0"}, {{"0", 1}}, "two")}),
  });
  ASSERT_EQ(c.rows.size(), 5u);
  const std::vector<std::string> order = {"B-verdict", "C-allowed", "D-source", "E-missing", "A-agree"};
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(c.rows[i].test, order[i]) << i;
  EXPECT_EQ(row_of(c, "B-verdict").agreement, Agreement::VerdictsDiffer);
  EXPECT_EQ(row_of(c, "C-allowed").agreement, Agreement::AllowedSetsDiffer);
  EXPECT_EQ(row_of(c, "D-source").agreement, Agreement::SourcesDiffer);
  EXPECT_EQ(row_of(c, "E-missing").agreement, Agreement::Missing);
  EXPECT_FALSE(row_of(c, "E-missing").cells[1].has_value());
  EXPECT_EQ(row_of(c, "A-agree").agreement, Agreement::Agree);
  EXPECT_EQ(c.disagreements(), 4u);
  EXPECT_FALSE(c.passes());

  // A cell counts the allowed outcomes observed; the agreeing test was covered 2/2, then 1/2.
  EXPECT_EQ(row_of(c, "A-agree").cells[0]->covered, 2u);
  EXPECT_EQ(row_of(c, "A-agree").cells[1]->covered, 1u);
  EXPECT_EQ(row_of(c, "A-agree").cells[1]->observations, 5u);
  // Coverage is read over the four tests both campaigns judged, the same four for both.
  EXPECT_EQ(c.coverage[0].common_tests, 4u);
  EXPECT_EQ(c.coverage[0].allowed, 5u);
  EXPECT_EQ(c.coverage[0].covered, 5u);
  EXPECT_EQ(c.coverage[1].allowed, 6u);
  EXPECT_EQ(c.coverage[1].covered, 4u);
}

TEST(Compare, CampaignsThatAgreeEverywherePass) {
  std::vector<TestRecord> tests = {record("MP", VerdictClass::Consistent, {"0", "1"}, {{"0", 3}})};
  const Comparison c = hsalit::results::compare_campaigns({campaign("gfx900", tests), campaign("gfx900", tests)});
  EXPECT_TRUE(c.passes());
  EXPECT_EQ(c.disagreements(), 0u);
  // Two columns of one configuration get labels told apart by their folders.
  EXPECT_NE(c.campaigns[0].label, c.campaigns[1].label);
}

TEST(Compare, AnUnknownCellFailsAComparisonThatOtherwiseAgrees) {
  std::vector<TestRecord> tests = {record("MP", VerdictClass::Unknown, {}, {})};
  EXPECT_FALSE(hsalit::results::compare_campaigns({campaign("a", tests), campaign("b", tests)}).passes());
}

TEST(Compare, TestsOfOneNameInTwoFoldersAreMatchedByFile) {
  TestRecord one = record("MP", VerdictClass::Consistent, {"0"}, {{"0", 1}});
  TestRecord two = record("MP", VerdictClass::Violation, {"0"}, {{"1", 1}});
  one.file = "a/MP.litmus";
  two.file = "b/MP.litmus";
  const Comparison c = hsalit::results::compare_campaigns({campaign("x", {one, two}), campaign("y", {one, two})});
  ASSERT_EQ(c.rows.size(), 2u);
  for (const auto& row : c.rows) EXPECT_EQ(row.agreement, Agreement::Agree) << row.test;
  EXPECT_EQ(c.rows[0].test, "a/MP.litmus");
}

TEST(Compare, FewerThanTwoCampaignsAreRefused) {
  EXPECT_THROW(hsalit::results::compare_campaigns({campaign("x", {})}), hsalit::results::ResultsError);
}

TEST(Compare, TheOutputsCarryEveryRowAndThePlots) {
  ComparedCampaign hw =
      campaign("sm_90", {record("MP", VerdictClass::Consistent, {"0", "1"}, {{"0", 900}, {"1", 100}})});
  hw.results.tests[0].run.iterations = 1000;
  hw.results.tests[0].run.seconds = 0.5;
  const Comparison c = hsalit::results::compare_campaigns(
      {campaign("gfx900", {record("MP", VerdictClass::Consistent, {"0", "1"}, {{"0", 1}, {"1", 1}}),
                           record("<SB>", VerdictClass::Violation, {"0"}, {{"1", 1}})}),
       std::move(hw)});
  const nlohmann::json j = hsalit::results::to_json(c);
  EXPECT_EQ(j["schema"], "hsalit-compare/1");
  ASSERT_EQ(j["rows"].size(), 2u);
  EXPECT_EQ(j["rows"][0]["test"], "<SB>");
  EXPECT_EQ(j["rows"][0]["agreement"], "missing");
  EXPECT_TRUE(j["rows"][0]["cells"][1].is_null());
  EXPECT_DOUBLE_EQ(j["rows"][1]["cells"][1]["runs_per_second"].get<double>(), 2000.0);
  EXPECT_EQ(j["campaigns"][1]["common_coverage"]["covered_outcomes"], 2);

  const std::string md = hsalit::results::render_compare_markdown(c);
  EXPECT_NE(md.find("| &lt;SB&gt; | missing | violation 0/1 | - |"), std::string::npos) << md;
  EXPECT_NE(md.find("consistent 2/2, 2.0 k/s"), std::string::npos) << md;

  const std::string html = hsalit::results::render_compare_html(c);
  EXPECT_EQ(html.find("<SB>"), std::string::npos) << "test names are escaped";
  for (const char* part : {"id=\"matrix\"", "data-agreement=\"missing\"", "id=\"plot-coverage\"",
                           "id=\"plot-observations\"", "id=\"plot-rates\"", "button class=\"filter"})
    EXPECT_NE(html.find(part), std::string::npos) << part;
  // No campaign counts runs: no rate plot.
  const Comparison sims =
      hsalit::results::compare_campaigns({campaign("a", {record("MP", VerdictClass::Consistent, {"0"}, {{"0", 1}})}),
                                          campaign("b", {record("MP", VerdictClass::Consistent, {"0"}, {{"0", 1}})})});
  EXPECT_EQ(hsalit::results::render_compare_html(sims).find("id=\"plot-rates\""), std::string::npos);
}

class CompareCli : public test_support::CliFolder {
 protected:
  // A campaign over two library tests on `target`, into DIR/NAME.
  fs::path campaign_on(const std::string& target, const std::string& name) {
    const fs::path library = fs::path(HSALIT_SOURCE_DIR) / "litmus" / "library" / "canonical";
    const fs::path out = dir_ / name;
    const test_support::Outcome r =
        hsalit({"campaign", (library / "SB+wg_same-wg.litmus").string(),
                (library / "MP+agent+agent_diff-wg.litmus").string(), "--target", target, "--out", out.string(), "-q"});
    EXPECT_LE(r.status, 1) << r.err;
    return out;
  }
};

// gfx900 against gfx1100 (finding 1 shows only in WGP mode), and a verification beside them.
TEST_F(CompareCli, TwoTargetsSideBySideDisagreeFirstAndExitOne) {
  const fs::path a = campaign_on("gfx900", "gfx900"), b = campaign_on("gfx1100", "gfx1100");
  const test_support::Outcome r =
      hsalit({"report", "--compare", a.string(), (b / "results.json").string(), "--out", (dir_ / "cmp").string()});
  ASSERT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("2 campaigns, 2 tests, 1 where they disagree"), std::string::npos) << r.out;
  const nlohmann::json j = nlohmann::json::parse(test_support::read_file(dir_ / "cmp" / "compare.json"));
  EXPECT_EQ(j["rows"][0]["test"], "SB+wg_same-wg");
  EXPECT_EQ(j["rows"][0]["agreement"], "verdicts differ");
  EXPECT_EQ(j["rows"][0]["cells"][0]["verdict"], "consistent");
  EXPECT_EQ(j["rows"][0]["cells"][1]["verdict"], "violation");
  EXPECT_EQ(j["rows"][1]["agreement"], "agree");
  EXPECT_TRUE(fs::exists(dir_ / "cmp" / "compare.html"));
  EXPECT_TRUE(fs::exists(dir_ / "cmp" / "compare.md"));

  // A campaign compared with a copy of itself agrees; on MP alone nothing fails: exit 0.
  const fs::path library = fs::path(HSALIT_SOURCE_DIR) / "litmus" / "library" / "canonical";
  ASSERT_EQ(
      hsalit({"campaign", (library / "MP+agent+agent_diff-wg.litmus").string(), "--out", (dir_ / "mp").string(), "-q"})
          .status,
      0);
  fs::copy(dir_ / "mp", dir_ / "mp-copy");
  const test_support::Outcome same = hsalit(
      {"report", "--compare", (dir_ / "mp").string(), (dir_ / "mp-copy").string(), "--out", (dir_ / "same").string()});
  EXPECT_EQ(same.status, 0) << same.out << same.err;

  // verify-mapping results compare as campaigns do.
  const test_support::Outcome v =
      hsalit({"verify-mapping", "--table", "gfx6-9", "--target", "gfx900",
              (library / "MP+agent+agent_diff-wg.litmus").string(), "--out", (dir_ / "verify").string()});
  ASSERT_EQ(v.status, 0) << v.out << v.err;
  const test_support::Outcome with_verify = hsalit(
      {"report", "--compare", (dir_ / "mp").string(), (dir_ / "verify").string(), "--out", (dir_ / "cmp2").string()});
  EXPECT_LE(with_verify.status, 1) << with_verify.err;
  EXPECT_NE(test_support::read_file(dir_ / "cmp2" / "compare.md").find("sound up to the bound over 1 given tests"),
            std::string::npos);
}

TEST_F(CompareCli, BadInputIsRefusedWithExitTwo) {
  const fs::path a = campaign_on("gfx900", "gfx900");
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"report", "--compare", a.string(), "--out", (dir_ / "c").string()}, "at least two campaigns"},
      {{"report", "--compare", a.string(), a.string()}, "--compare needs --out"},
      {{"report", "--compare", a.string(), (dir_ / "none").string(), "--out", (dir_ / "c").string()}, "none"},
      {{"report", "--compare", a.string(), a.string(), "--out", a.string()}, "holds the results of"},
      {{"report", a.string(), "--out", (dir_ / "c").string()}, "--out is for --compare"},
  };
  for (const Case& c : cases) {
    const test_support::Outcome r = hsalit(c.args);
    EXPECT_EQ(r.status, 2) << c.message << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(a / "compare.html"));
}

}  // namespace
