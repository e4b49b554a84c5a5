#include "hsalit/verify/verify.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>

#include "hsalit/litmus/generate.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/verify/mutation.hpp"
#include "litmus_support.hpp"
#include "mapping_support.hpp"

namespace hsalit::verify {
namespace {

using test_support::gfx69;
using test_support::library_test;
using test_support::parse;

using nlohmann::json;

// The agent acquire of global loads without its L1 invalidation.
codegen::MappingTable acquire_without_invalidate() {
  return gfx69([](json& doc) {
    for (json& r : doc["rows"])
      if (r["id"] == "load.atomic.acquire.agent.global") r["sequence"].erase(2);  // buffer_wbinvl1_vol
  });
}

// Message passing across work-groups with a guarded data read (race-free), padded with a
// third thread and an extra access that play no part in the violation.
const char* kPaddedMp = R"(LISA MP-padded
{ x = 0; y = 0; z = 0; 1:r1 = -1; }
 P0                        | P1                         | P2                      ;
 w[] x 1                   | r[atomic,scacq,agent] r0 y | w[atomic,rlx,agent] z 1 ;
 r[atomic,rlx,agent] r3 z  | mov r2 (neq r0 1)          |                         ;
 w[atomic,screl,agent] y 1 | b[] r2 Skip1               |                         ;
                           | r[] r1 x                   |                         ;
                           | Skip1:                     |                         ;
scopes: (agent (wg 0) (wg 1) (wg 2))
exists (1:r0=1 /\ 1:r1=0)
)";

TEST(VerifyMapping, BrokenAcquireGivesAMinimisedCounterexample) {
  VerificationCache cache;
  VerifyOptions options;
  TestVerification v = verify_test(parse(kPaddedMp), acquire_without_invalidate(), options, cache);
  ASSERT_EQ(v.status, TestStatus::Counterexample) << v.reason;
  ASSERT_TRUE(v.counterexample);
  const Counterexample& c = *v.counterexample;
  EXPECT_TRUE(c.minimised);
  EXPECT_EQ(c.found_in, "MP-padded");
  // The unrelated thread and access are gone; the message passing stays.
  ASSERT_EQ(c.test.threads.size(), 2u) << litmus::print_litmus(c.test);
  EXPECT_EQ(litmus::print_litmus(c.test).find(" z"), std::string::npos) << litmus::print_litmus(c.test);
  EXPECT_NE(c.outcome.find("1:r0=1;"), std::string::npos) << c.outcome;
  EXPECT_NE(c.outcome.find("1:r1=0;"), std::string::npos) << c.outcome;
  bool acquire_row = false;
  for (const RowUse& r : c.rows) acquire_row = acquire_row || r.row == "load.atomic.acquire.agent.global";
  EXPECT_TRUE(acquire_row);
  EXPECT_FALSE(c.trace.empty());
  // The minimised test is itself a race-free counterexample, and parses back.
  litmus::ParseResult again = litmus::parse_litmus(litmus::print_litmus(c.test));
  ASSERT_TRUE(again.ok()) << again.diagnostics.render("minimised");
  EXPECT_EQ(verify_test(*again.test, acquire_without_invalidate(), options, cache).status, TestStatus::Counterexample);
  // The shipped table keeps it.
  EXPECT_EQ(verify_test(parse(kPaddedMp), gfx69(), options, cache).status, TestStatus::Sound);
}

// "Sound" needs every test judged: a table without the rows a test needs leaves it unsupported,
// naming the missing operation, and the report's verdict is unknown.
TEST(VerifyMapping, UnsupportedTestsMakeTheVerdictUnknownWithTheMissingRows) {
  VerificationCache cache;
  VerifyOptions options;
  const codegen::MappingTable no_acquire = gfx69([](json& doc) {
    json kept = json::array();
    for (json& r : doc["rows"])
      if (r["id"] != "load.atomic.acquire.agent.global" && r.value("same_as", "") != "load.atomic.acquire.agent.global")
        kept.push_back(r);
    doc["rows"] = kept;
  });
  std::vector<litmus::Test> tests = {library_test("canonical/MP+rlx-agent_diff-wg.litmus"), parse(kPaddedMp)};
  VerifyReport report = verify_tests(tests, no_acquire, options, cache);
  EXPECT_TRUE(report.sound());  // no counterexample...
  EXPECT_FALSE(report.judged_all());
  EXPECT_FALSE(report.verified_sound());  // ...but not every test was judged
  ASSERT_EQ(report.count(TestStatus::Unsupported), 1u) << render_text(report, "t", "gfx900", "two tests");
  EXPECT_EQ(missing_rows(report), std::vector<std::string>{"load atomic acquire agent global"});
  EXPECT_EQ(verdict_text(report), "unknown: 1 of 2 tests not judged (1 unsupported, 0 unknown)");
  const std::string text = render_text(report, "t", "gfx900", "two tests");
  EXPECT_EQ(text.find("sound up to the bound"), std::string::npos) << text;
  EXPECT_NE(text.find("missing row: load atomic acquire agent global"), std::string::npos) << text;

  VerifyReport with_rows = verify_tests(tests, gfx69(), options, cache);
  EXPECT_TRUE(with_rows.verified_sound()) << render_text(with_rows, "gfx6-9", "gfx900", "two tests");
  EXPECT_EQ(verdict_text(with_rows), "sound up to the bound");
}

// A value the simulator's 32-bit registers wrap and the model's 64-bit values do not is not a
// counterexample: the test is unknown, with the operation that may leave the range.
TEST(VerifyMapping, ArithmeticBeyondThirtyTwoBitsIsUnknownNotACounterexample) {
  VerificationCache cache;
  VerifyOptions options;
  TestVerification v = verify_test(parse("LISA ADD\n{ x = 2147483647; }\n P0 ;\n r[] r0 x ;\n mov r1 (add r0 1) ;\n"
                                         "exists (0:r1=0)\n"),
                                   gfx69(), options, cache);
  EXPECT_EQ(v.status, TestStatus::Unknown) << v.reason;
  EXPECT_NE(v.reason.find("ADD:5:9: `(add r0 1)` may compute 2147483648"), std::string::npos) << v.reason;
}

// A small generated bound: the two-thread classic shapes with rlx, screl and scacq agent
// atomics across work-groups.
litmus::GenerateOptions small_bound() {
  return litmus::parse_generate_spec(
      "family=MP/SB/LB/S/R/2+2W/CoRR/CoWR/CoRW2,orders=rlx+scacq+screl,scopes=agent,placements=diff-wg,"
      "segments=global");
}

TEST(VerifyMapping, ShippedTableIsSoundOnASmallBound) {
  std::vector<litmus::Test> tests;
  for (auto& t : litmus::generate_tests(small_bound())) tests.push_back(std::move(t.test));
  ASSERT_GT(tests.size(), 80u);
  VerificationCache cache;
  VerifyOptions options;
  options.sim.hw.l1_store_visible_early = false;  // docs/mappings.md, finding 2
  options.compile.sc_acquire_release = true;      // docs/mappings.md, finding 1
  VerifyReport report = verify_tests(tests, gfx69(), options, cache);
  EXPECT_TRUE(report.sound()) << render_text(report, "gfx6-9", "gfx900", "small");
  EXPECT_EQ(report.count(TestStatus::Unknown), 0u);
  EXPECT_EQ(report.count(TestStatus::Unsupported), 0u);
  EXPECT_GT(report.count(TestStatus::Sound), 40u);
  EXPECT_NE(render_text(report, "gfx6-9", "gfx900", "small").find("sound up to the bound"), std::string::npos);
}

// docs/mappings.md finding 2: under the default assumption the workgroup release is not
// cumulative, and verify-mapping finds it.
TEST(VerifyMapping, FindsTheNonCumulativeWorkgroupRelease) {
  VerificationCache cache;
  VerifyOptions options;
  options.minimise = false;
  TestVerification v = verify_test(library_test("spec/HSA-3.13.1.4_ISA2-wg-system.litmus"), gfx69(), options, cache);
  EXPECT_EQ(v.status, TestStatus::Counterexample) << v.reason;
  options.sim.hw.l1_store_visible_early = false;
  EXPECT_EQ(verify_test(library_test("spec/HSA-3.13.1.4_ISA2-wg-system.litmus"), gfx69(), options, cache).status,
            TestStatus::Sound);
}

TEST(VerifyMapping, RacyTestsAreNotJudged) {
  VerificationCache cache;
  TestVerification v =
      verify_test(library_test("canonical/MP+rlx-agent_diff-wg.litmus"), acquire_without_invalidate(), {}, cache);
  EXPECT_NE(v.status, TestStatus::Counterexample);
  litmus::Test racy = parse(R"(LISA racy
{ x = 0; }
 P0      | P1        ;
 w[] x 1 | r[] r0 x  ;
scopes: (agent (wg 0) (wg 1))
exists (1:r0=0)
)");
  EXPECT_EQ(verify_test(racy, gfx69(), {}, cache).status, TestStatus::Racy);
}

TEST(Mutation, TableRoundTripsThroughJson) {
  for (const std::string& name : codegen::MappingTable::builtin_names()) {
    codegen::MappingTable table = codegen::MappingTable::builtin(name);
    codegen::MappingTable again = codegen::MappingTable::from_json(table_to_json(table), name);
    ASSERT_EQ(again.rows().size(), table.rows().size()) << name;
    EXPECT_EQ(table_to_json(again), table_to_json(table)) << name;
  }
}

TEST(Mutation, TheMessagePassingTestKillsTheAcquireAndReleaseMutants) {
  const std::vector<litmus::Test> tests = {library_test("canonical/MP+agent+agent_diff-wg.litmus")};
  VerificationCache cache;
  VerifyOptions options;
  const codegen::MappingTable table = gfx69();
  VerifyReport report = verify_tests(tests, table, options, cache);
  ASSERT_TRUE(report.sound());
  MutationReport m = run_mutation(tests, {}, table, rows_used(report), options, cache);
  auto fate = [&](const std::string& row, const std::string& change_prefix) -> std::optional<bool> {
    for (const MutantResult& r : m.mutants)
      if (r.row == row && r.change.rfind(change_prefix, 0) == 0) return r.killed;
    return std::nullopt;
  };
  // The acquire's invalidation and its wait, and the release's wait, are needed.
  EXPECT_EQ(fate("load.atomic.acquire.agent.global", "remove element 2 (buffer_wbinvl1_vol)"), true);
  EXPECT_EQ(fate("store.atomic.release.agent", "remove element 0 (s_waitcnt"), true);
  EXPECT_GT(m.killed(), 0u);
  EXPECT_LT(m.killed(), m.mutants.size());  // some survive on one test
  EXPECT_NE(render_text(m).find("mutation score"), std::string::npos);
}

}  // namespace
}  // namespace hsalit::verify
