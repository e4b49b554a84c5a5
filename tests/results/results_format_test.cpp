// The results library on its own: results.json round trip, the journal's torn tail, shard
// selection, merge refusals, and escaping in every report.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "hsalit/results/atomic_file.hpp"
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

// The log's header word for each kind of condition is herd7's and litmus7's.
TEST(ResultsLog, HeaderWordIsTheKindOfTheCondition) {
  CampaignResults r = sample_results();
  r.tests[0].condition = "~exists (1:r0=1 /\\ 1:r1=0)";
  r.tests[1].condition = "forall (1:r0=0)";
  const std::string log = render_log(r);
  EXPECT_NE(log.find("Test one" + kHostile + " Forbidden\n"), std::string::npos) << log;
  EXPECT_NE(log.find("Test two Required\n"), std::string::npos) << log;
  r.tests[1].condition = "exists (1:r0=0)";
  EXPECT_NE(render_log(r).find("Test two Allowed\n"), std::string::npos);
}

TEST(ResultsFormat, JsonRoundTrip) {
  CampaignResults r = sample_results();
  // A hardware run with host threads: its overlap and the instances each launch ran.
  r.tests[1].run.states = 0;
  r.tests[1].run.iterations = 300;
  r.tests[1].run.overlapped = 7;
  r.tests[1].run.instances_per_launch = 3;
  nlohmann::json j = to_json(r);
  EXPECT_EQ(j["schema"], "hsalit-campaign/1");
  EXPECT_EQ(j["summary"]["violation"], 1);
  EXPECT_FALSE(j["tests"][0]["run"].contains("instances_per_launch"));
  CampaignResults back = campaign_results_from_json(j, "");
  EXPECT_EQ(to_json(back), j);
  EXPECT_EQ(back.tests[0].violations().size(), 1u);
  EXPECT_EQ(back.tests[1].run.overlapped, 7u);
  EXPECT_EQ(back.tests[1].run.instances_per_launch, 3u);
  std::string pages;
  for (const ReportPage& page : render_test_pages(back, [](std::string_view) { return std::nullopt; }))
    pages += page.html;
  EXPECT_NE(pages.find("300 iterations in launches of 3 (7 with the host and GPU threads overlapping)"),
            std::string::npos);
}

// A violation's explanation (check --explain's answer) is kept in results.json and shown, as
// its text, under the violation in the Markdown report; a fence inside it cannot close the block.
TEST(ResultsFormat, AViolationsExplanationRoundTripsAndIsInTheMarkdownReport) {
  CampaignResults r = sample_results();
  r.tests[0].run.histogram[1].explanation = nlohmann::json{
      {"status", "forbidden"}, {"text", "state 1:r0=1; 1:r1=0; is forbidden\n  a -po-> b -sso-> c\n```\n  end\n"}};
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j["tests"][0]["run"]["histogram"][1]["explanation"]["status"], "forbidden");
  EXPECT_FALSE(j["tests"][0]["run"]["histogram"][0].contains("explanation"));
  const CampaignResults back = campaign_results_from_json(j, "");
  EXPECT_EQ(to_json(back), j);
  ASSERT_TRUE(back.tests[0].run.histogram[1].explanation);
  const std::string md = render_markdown(back);
  EXPECT_NE(md.find("Why the model forbids `1:r0=1; 1:r1=0;`:\n\n```\nstate 1:r0=1; 1:r1=0; is forbidden\n  a -po-> b "
                    "-sso-> c\n\n  end\n```\n"),
            std::string::npos)
      << md;

  // The HTML report shows it open under the test, escaped, with its graph's DOT text when
  // Graphviz cannot draw it.
  CampaignResults drawn = back;
  (*drawn.tests[0].run.histogram[1].explanation)["dot"] = "digraph G { a -> b [label=\"<sso>\"]; }";
  const std::string html = render_html(drawn, [](std::string_view) { return std::nullopt; });
  EXPECT_NE(html.find("<details open class=\"explanation\"><summary>Why the model forbids <code>1:r0=1; 1:r1=0;</code>"
                      "</summary>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("a -po-&gt; b -sso-&gt; c"), std::string::npos);
  EXPECT_NE(html.find("[label=&quot;&lt;sso&gt;&quot;]"), std::string::npos);

  nlohmann::json bad = j;
  bad["tests"][0]["run"]["histogram"][1]["explanation"] = "forbidden";
  EXPECT_THROW(campaign_results_from_json(bad, ""), ResultsError);
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

// A number past a double's range is a JSON error of the file like any other, not an escaping
// json::out_of_range (found by fuzz/results_fuzzer.cpp).
TEST(ResultsFormat, AnOverflowingNumberIsAnErrorOfTheFile) {
  const fs::path file = fs::temp_directory_path() / ("hsalit-results-overflow-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << R"({"schema": "hsalit-campaign/1", "tests": [], "n": 1e400})";
  try {
    read_results(file);
    ADD_FAILURE() << "accepted 1e400";
  } catch (const ResultsError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(file.string() + ": error: not JSON", 0), 0u) << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a ResultsError: " << e.what();
  }
  fs::remove(file);
}

// A reference listed twice in observed_refs was accepted, but its outcomes (objects keyed by
// reference) could not be written back and read again (found by fuzz/results_fuzzer.cpp).
TEST(ResultsFormat, ARepeatedObservedReferenceIsRefused) {
  nlohmann::json j = to_json(sample_results());
  j["tests"][0]["observed_refs"] = {"1:r0", "1:r0"};
  try {
    campaign_results_from_json(j, "");
    FAIL() << "accepted a repeated reference";
  } catch (const ResultsError& e) {
    EXPECT_NE(std::string(e.what()).find("tests[0]: observed_refs lists '1:r0' twice"), std::string::npos) << e.what();
  }
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

// A journal that records a test twice (two writers before the folder lock) reads as one record
// of it, the later, so the results it gives can be written and read back (found by
// fuzz/results_fuzzer.cpp: read_results refuses a test listed twice).
TEST(ResultsFormat, JournalKeepsOneRecordPerTest) {
  fs::path dir = fs::temp_directory_path() / ("hsalit-journal-twice-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path file = dir / "journal.jsonl";
  CampaignResults r = sample_results();
  TestRecord again = r.tests[0];
  again.reason = "the later record";
  {
    Journal j = Journal::create(file, r.info);
    j.append(r.tests[0]);
    j.append(r.tests[1]);
    j.append(again);
  }
  const JournalContents c = read_journal(file);
  ASSERT_EQ(c.records.size(), 2u);
  EXPECT_EQ(c.records[0].file, r.tests[0].file);
  EXPECT_EQ(c.records[0].reason, "the later record");
  EXPECT_EQ(c.records[1].file, r.tests[1].file);
  fs::remove_all(dir);
}

// A file written piece by piece appears whole or not at all: before the commit the target
// keeps its old content, a writer dropped without a commit leaves no temporary file.
TEST(ResultsFormat, AtomicFileWriterReplacesTheTargetOnlyOnCommit) {
  fs::path dir = fs::temp_directory_path() / ("hsalit-atomic-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path file = dir / "costs.tsv";
  auto content = [&] {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  write_file_atomically(file, "old\n");
  {
    AtomicFileWriter w(file);
    w.write("new ");
    w.write("lines\n");
    EXPECT_EQ(content(), "old\n");
  }
  EXPECT_EQ(content(), "old\n");
  {
    AtomicFileWriter w(file);
    w.write("new ");
    w.write("lines\n");
    w.commit();
    EXPECT_THROW(w.write("more"), std::logic_error);
  }
  EXPECT_EQ(content(), "new lines\n");
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1u);
  EXPECT_THROW(AtomicFileWriter(dir / "missing" / "x"), std::runtime_error);
  fs::remove_all(dir);
}

// Many files into one folder with one sync (gen --out): before the commit every target keeps
// its old content (or does not exist), a writer dropped without a commit leaves nothing, and
// after it each target is whole and no temporary file is left.
TEST(ResultsFormat, AtomicFolderWriterRenamesEveryFileOnlyOnCommit) {
  fs::path dir = fs::temp_directory_path() / ("hsalit-atomic-folder-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto content = [&](const std::string& name) {
    std::ifstream in(dir / name, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  auto entries = [&] {
    std::size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
    return n;
  };
  write_file_atomically(dir / "a.litmus", "old a\n");
  {
    AtomicFolderWriter w(dir);
    w.write(dir / "a.litmus", "new a\n");
    w.write(dir / "b.litmus", "b\n");
    EXPECT_EQ(content("a.litmus"), "old a\n");
    EXPECT_FALSE(fs::exists(dir / "b.litmus"));
  }
  EXPECT_EQ(content("a.litmus"), "old a\n");
  EXPECT_EQ(entries(), 1u);
  {
    AtomicFolderWriter w(dir);
    for (int i = 0; i < 100; ++i) w.write(dir / ("t" + std::to_string(i) + ".litmus"), std::to_string(i) + "\n");
    w.write(dir / "a.litmus", "first\n");
    w.write(dir / "a.litmus", "second\n");  // the same target twice: the second content
    EXPECT_FALSE(fs::exists(dir / "t99.litmus"));
    w.commit();
  }
  EXPECT_EQ(content("a.litmus"), "second\n");
  EXPECT_EQ(content("t0.litmus"), "0\n");
  EXPECT_EQ(content("t99.litmus"), "99\n");
  EXPECT_EQ(entries(), 101u);
  AtomicFolderWriter bad(dir);
  fs::create_directories(dir / "folder");
  EXPECT_THROW(bad.write(dir / "folder", "x"), std::runtime_error);
  EXPECT_THROW(bad.write(dir / "missing" / "x", "x"), std::runtime_error);
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
           [](CampaignInfo& i) { i.backend = "hip"; }, [](CampaignInfo& i) { i.model = "hrf-direct"; },
           [](CampaignInfo& i) { i.sc_orders = true; }, [](CampaignInfo& i) { i.assumptions = {"one-channel"}; }}) {
    CampaignResults other = b;
    change(other.info);
    EXPECT_THROW(merge_results(std::vector<CampaignResults>{a, other}, names), ResultsError);
  }
  EXPECT_THROW(merge_results(std::vector<CampaignResults>{a, a}, names), ResultsError);  // a test twice
}

// The row selection and the simulator's assumptions are part of the configuration: written,
// read back, and absent from older files (read as the defaults those runs had).
TEST(ResultsFormat, SettingsAreRecorded) {
  CampaignResults r = sample_results();
  r.info.sc_orders = true;
  r.info.assumptions = {"l1-store-at-l2", "one-channel"};
  nlohmann::json j = to_json(r);
  EXPECT_EQ(j["campaign"]["sc_orders"], true);
  EXPECT_EQ(j["campaign"]["assumptions"], nlohmann::json({"l1-store-at-l2", "one-channel"}));
  CampaignResults back = campaign_results_from_json(j, "");
  EXPECT_TRUE(back.info.sc_orders);
  EXPECT_EQ(back.info.assumptions, r.info.assumptions);
  j["campaign"]["assumptions"] = {"one-channel", "l1-store-at-l2", "one-channel"};  // read as a set
  EXPECT_EQ(campaign_results_from_json(j, "").info.assumptions, r.info.assumptions);
  j["campaign"].erase("sc_orders");
  j["campaign"].erase("assumptions");
  back = campaign_results_from_json(j, "");
  EXPECT_FALSE(back.info.sc_orders);
  EXPECT_TRUE(back.info.assumptions.empty());
  EXPECT_NE(render_markdown(r).find("seq_cst rows for scacq and screl; assumptions: l1-store-at-l2, one-channel"),
            std::string::npos);
}

Verification sample_verification(std::size_t sound, std::size_t counterexamples, std::vector<std::string> rows) {
  Verification v;
  v.bound = "threads=2,accesses=2";
  v.sound = sound;
  v.counterexamples = counterexamples;
  v.racy = 1;
  v.tests = sound + counterexamples + v.racy;
  v.rows_used = std::move(rows);
  v.statistics = {{"spaces", 10}, {"checked", sound + counterexamples}};
  v.cpu_seconds = 1.5;
  return v;
}

// Shards of one bound merge into its verification: counts and statistics add up, rows join,
// a test both shards met is kept once, and the verdict follows the sum.
TEST(ResultsFormat, VerificationsOfShardsMerge) {
  CampaignResults a = sample_results(), b = sample_results();
  a.info.shard = Shard{0, 2};
  b.info.shard = Shard{1, 2};
  a.verification = sample_verification(5, 0, {"load.rlx", "store.rlx"});
  b.verification = sample_verification(3, 2, {"load.acq", "store.rlx"});
  a.tests.pop_back();  // b holds both tests: one of them both shards met
  nlohmann::json j = to_json(a);
  EXPECT_EQ(j["verification"]["verdict"], "sound up to the bound");
  EXPECT_EQ(to_json(campaign_results_from_json(j, "")), j);
  std::vector<std::string> names = {"a", "b"};
  CampaignResults merged = merge_results(std::vector<CampaignResults>{a, b}, names);
  ASSERT_TRUE(merged.verification);
  const Verification& v = *merged.verification;
  EXPECT_EQ(v.sound, 8u);
  EXPECT_EQ(v.counterexamples, 2u);
  EXPECT_EQ(v.tests, 12u);
  EXPECT_EQ(v.statistics.at("spaces"), 20u);
  EXPECT_EQ(v.statistics.at("checked"), 10u);
  EXPECT_EQ(v.rows_used, (std::vector<std::string>{"load.acq", "load.rlx", "store.rlx"}));
  {
    // Variations past 2^64 saturate in the sum instead of wrapping (docs/verification.md).
    CampaignResults big_a = a, big_b = b;
    big_a.verification->statistics["variations"] = std::numeric_limits<std::uint64_t>::max() - 5;
    big_b.verification->statistics["variations"] = 10;
    const CampaignResults sum = merge_results(std::vector<CampaignResults>{big_a, big_b}, names);
    EXPECT_EQ(sum.verification->statistics.at("variations"), std::numeric_limits<std::uint64_t>::max());
  }
  EXPECT_DOUBLE_EQ(v.cpu_seconds, 3.0);
  EXPECT_EQ(v.verdict(), "2 counterexamples");
  EXPECT_EQ(merged.tests.size(), 2u);
  EXPECT_FALSE(merged.info.shard);
  EXPECT_NE(render_log(merged).find("# 2 counterexamples over threads=2,accesses=2: 12 tests"), std::string::npos);

  CampaignResults other_bound = b;
  other_bound.verification->bound = "threads=3,accesses=2";
  EXPECT_THROW(merge_results(std::vector<CampaignResults>{a, other_bound}, names), ResultsError);
  CampaignResults campaign = b;
  campaign.verification.reset();
  EXPECT_THROW(merge_results(std::vector<CampaignResults>{a, campaign}, names), ResultsError);
  CampaignResults changed = b;  // the same test decided otherwise
  changed.tests[0].verdict = VerdictClass::Consistent;
  EXPECT_THROW(merge_results(std::vector<CampaignResults>{a, changed}, names), ResultsError);
  EXPECT_THROW(merge_results(std::vector<CampaignResults>{a}, names), ResultsError);  // shard 1/2 missing

  j = to_json(a);
  j["verification"]["tests"] = 99;  // not the sum of its classes
  EXPECT_THROW(campaign_results_from_json(j, ""), ResultsError);
  j = to_json(a);
  j["verification"]["statistics"]["spaces"] = -1;
  EXPECT_THROW(campaign_results_from_json(j, ""), ResultsError);
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
