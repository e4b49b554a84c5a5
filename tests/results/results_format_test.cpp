// The results library on its own: results.json round trip, the journal's torn tail, shard
// selection, merge refusals, and escaping in every report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "hsalit/results/campaign.hpp"
#include "hsalit/results/execute.hpp"
#include "hsalit/results/journal.hpp"
#include "hsalit/results/report.hpp"

namespace {

namespace fs = std::filesystem;
using namespace hsalit::results;

const std::string kHostile = "<script>alert(\"x\")</script>&'\x01";

TestRecord sample_record(std::string file, std::string name) {
  TestRecord t;
  t.file = std::move(file);
  t.name = std::move(name);
  t.description = kHostile;
  t.content_hash = content_hash(t.name);
  t.condition = "exists (1:r0=1 /\\ 1:r1=0)";
  t.observed_refs = {"1:r0", "1:r1"};
  t.model.status = StageStatus::Ok;
  t.model.result = "No";
  t.model.allowed = {{{{"0", "0"}}, false, 1}, {{{"1", "1"}}, false, 0}};
  t.model.witness_dot = "digraph G { a [label=\"" + std::string("<script>") + "\"]; }";
  t.compile.status = StageStatus::Ok;
  t.compile.threads = {{0, {"global_store_dword v[0:1], v2, off ; " + kHostile}}, {1, {"s_endpgm"}}};
  t.run.status = StageStatus::Ok;
  t.run.histogram = {{{{"0", "0"}}, 3, false, Judgement::Allowed}, {{{"1", "0"}}, 2, true, Judgement::Forbidden}};
  t.run.states = 42;
  t.verdict = VerdictClass::Violation;
  t.reason = "forbidden outcome observed: " + kHostile;
  t.seconds = 0.5;
  return t;
}

CampaignResults sample_results() {
  CampaignResults r;
  r.info.hsalit_version = "0.1.0";
  r.info.target = "gfx900";
  r.info.mapping = "gfx6-9<b>";
  r.info.mapping_hash = "0123456789abcdef";
  r.info.inputs = {"tests/" + kHostile};
  r.info.started = "2024-01-01T00:00:00Z";
  r.info.finished = "2024-01-01T00:00:01Z";
  r.tests = {sample_record("a/one.litmus", "one" + kHostile), sample_record("a/two.litmus", "two")};
  r.tests[1].verdict = VerdictClass::Consistent;
  r.tests[1].run.histogram.pop_back();
  return r;
}

TEST(ResultsFormat, JsonRoundTrip) {
  CampaignResults r = sample_results();
  nlohmann::json j = to_json(r);
  EXPECT_EQ(j["schema"], "hsalit-campaign/1");
  EXPECT_EQ(j["summary"]["violation"], 1);
  CampaignResults back = campaign_results_from_json(j, "");
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.tests[0].violations().size(), 1u);
}

TEST(ResultsFormat, MalformedResultsNameTheEntry) {
  nlohmann::json j = to_json(sample_results());
  j["tests"][1]["run"]["histogram"][0]["count"] = "many";
  try {
    campaign_results_from_json(j, "");
    FAIL() << "accepted a bad count";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("tests[1].run.histogram[0]"), std::string::npos) << e.what();
  }
  j = to_json(sample_results());
  j["schema"] = "hsalit-campaign/99";
  EXPECT_THROW(campaign_results_from_json(j, ""), ResultsError);
}

TEST(ResultsFormat, JournalDropsATornLastLine) {
  fs::path dir = fs::temp_directory_path() / ("hsalit-journal-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path file = dir / "journal.jsonl";
  CampaignResults r = sample_results();
  {
    Journal j = Journal::create(file, r.info);
    j.append(r.tests[0]);
  }
  std::uintmax_t whole = fs::file_size(file);
  {
    std::ofstream torn(file, std::ios::app | std::ios::binary);
    torn << "{\"test\":{\"file\":\"a/tw";  // a kill in the middle of a write
  }
  JournalContents c = read_journal(file);
  EXPECT_TRUE(c.torn_tail);
  EXPECT_EQ(c.valid_bytes, whole);
  ASSERT_EQ(c.records.size(), 1u);
  {
    Journal j = Journal::reopen(file, c.valid_bytes);
    j.append(r.tests[1]);
  }
  c = read_journal(file);
  EXPECT_FALSE(c.torn_tail);
  ASSERT_EQ(c.records.size(), 2u);
  EXPECT_EQ(c.records[1].file, "a/two.litmus");
  fs::remove_all(dir);
}

TEST(ResultsFormat, ShardsPartitionTheSortedTests) {
  std::vector<fs::path> files = {"d", "a", "c", "b", "e"};
  std::vector<fs::path> all;
  for (unsigned i = 0; i < 3; ++i)
    for (const fs::path& f : shard_files(files, {i, 3})) all.push_back(f);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<fs::path>{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(shard_files(files, {1, 3}), (std::vector<fs::path>{"b", "e"}));
  EXPECT_TRUE(parse_shard("0/1"));
  EXPECT_FALSE(parse_shard("3/3"));
  EXPECT_FALSE(parse_shard("1/0"));
  EXPECT_FALSE(parse_shard("x/2"));
  EXPECT_FALSE(parse_shard("1/2/3"));
}

TEST(ResultsFormat, MergeRefusesAnotherConfiguration) {
  CampaignResults a = sample_results(), b = sample_results();
  a.tests.pop_back();
  b.tests.erase(b.tests.begin());
  std::vector<std::string> names = {"a", "b"};
  CampaignResults merged = merge_results(std::vector<CampaignResults>{a, b}, names);
  EXPECT_EQ(merged.tests.size(), 2u);
  for (auto change : std::vector<std::function<void(CampaignInfo&)>>{
           [](CampaignInfo& i) { i.target = "gfx90a"; }, [](CampaignInfo& i) { i.mapping_hash = "x"; },
           [](CampaignInfo& i) { i.backend = "hip"; }, [](CampaignInfo& i) { i.model = "hrf-direct"; }}) {
    CampaignResults other = b;
    change(other.info);
    EXPECT_THROW(merge_results(std::vector<CampaignResults>{a, other}, names), ResultsError);
  }
  EXPECT_THROW(merge_results(std::vector<CampaignResults>{a, a}, names), ResultsError);  // a test twice
}

TEST(ResultsFormat, ReportsEscapeEveryTestString) {
  CampaignResults r = sample_results();
  std::string html = render_html(r, [](std::string_view) { return std::nullopt; });
  EXPECT_EQ(html.find("<script>alert"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;"), std::string::npos);
  // One script element: the report's own.
  EXPECT_EQ(html.find("<script>"), html.rfind("<script>"));
  EXPECT_EQ(html.find('\x01'), std::string::npos);
  EXPECT_EQ(html.find("http://") == std::string::npos ? 0 : html.find("http://www.w3.org/2000/svg"),
            html.find("http://"));  // no reference other than the SVG namespace
  std::string junit = render_junit(r);
  EXPECT_EQ(junit.find("<script>"), std::string::npos);
  EXPECT_EQ(junit.find('\x01'), std::string::npos);
  // Markdown: HTML outside code blocks is escaped (inside fenced blocks it is shown as text).
  std::string md = render_markdown(r), outside_code;
  bool in_code = false;
  std::istringstream lines(md);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("```", 0) == 0) in_code = !in_code;
    if (!in_code) outside_code += line + "\n";
  }
  EXPECT_FALSE(in_code);
  EXPECT_NE(md.find("```\nglobal_store_dword"), std::string::npos);
  EXPECT_EQ(outside_code.find("<script>"), std::string::npos);
}

}  // namespace
