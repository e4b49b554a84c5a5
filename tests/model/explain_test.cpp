// Why a state is forbidden (model::explain): the axiom and the shortest cycle for the
// classic shapes, the race of a racy test, an allowed state's witness, a state no candidate
// ends in, and the state syntax.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "hsalit/litmus/parser.hpp"
#include "hsalit/model/explain.hpp"

namespace hsalit::model {
namespace {

namespace fs = std::filesystem;

const fs::path kLibrary = fs::path(HSALIT_SOURCE_DIR) / "litmus" / "library";

litmus::Test library_test(const std::string& path) {
  litmus::ParseResult parsed = litmus::parse_litmus_file(kLibrary / path);
  EXPECT_TRUE(parsed.ok()) << path;
  return *parsed.test;
}

Explanation explain_text(const litmus::Test& test, const std::string& state) {
  std::string error;
  const std::optional<StateQuery> query = parse_state(state, test, error);
  EXPECT_TRUE(query) << error;
  return explain(test, *query);
}

std::vector<std::string> relations(const CandidateReason& r) {
  std::vector<std::string> out;
  for (const ExplainedEdge& e : r.cycle) out.push_back(e.relation);
  return out;
}

// The cycle's relations from its first edge of `relation` on, so that a test does not depend
// on where the search entered the cycle.
std::vector<std::string> rotated_to(std::vector<std::string> cycle, const std::string& relation) {
  const auto at = std::find(cycle.begin(), cycle.end(), relation);
  std::rotate(cycle.begin(), at, cycle.end());
  return cycle;
}

TEST(Explain, MessagePassingWithReleaseAcquireIsAnHhbCycleThroughSso) {
  const litmus::Test test = library_test("canonical/MP+agent+agent_diff-wg.litmus");
  const Explanation e = explain_text(test, "1:r0=1 /\\ 1:r1=0");
  ASSERT_EQ(e.status, Explanation::Status::Forbidden) << format_explanation(e);
  ASSERT_EQ(e.groups.size(), 1u) << format_explanation(e);
  const CandidateReason& r = e.groups[0].shortest;
  EXPECT_EQ(r.axiom, "hhb is consistent with coh");
  EXPECT_EQ(r.order, "coh of x");
  EXPECT_EQ(rotated_to(relations(r), "sso"), (std::vector<std::string>{"sso", "po", "fr", "po"}))
      << format_explanation(e);
  for (const ExplainedEdge& edge : r.cycle) {
    EXPECT_FALSE(edge.rule.empty());
    const std::string expected = edge.relation == "sso" ? "3.9" : edge.relation == "fr" ? "3.7" : "3.6";
    EXPECT_EQ(edge.section, expected) << edge.relation;
  }
  EXPECT_FALSE(e.race);
  const std::string text = format_explanation(e);
  EXPECT_NE(text.find("-sso->"), std::string::npos) << text;
  EXPECT_NE(text.find("is forbidden"), std::string::npos) << text;
  const std::string dot = explanation_to_dot(e);
  EXPECT_NE(dot.find("digraph"), std::string::npos) << dot;
  EXPECT_NE(dot.find("sso (coh of x)"), std::string::npos) << dot;
}

TEST(Explain, CoRRIsACoherenceCycle) {
  const litmus::Test test = library_test("classic/CoRR+rlx-system_diff-agent.litmus");
  const Explanation e = explain_text(test, "1:r0=1; 1:r1=0;");
  ASSERT_EQ(e.status, Explanation::Status::Forbidden) << format_explanation(e);
  ASSERT_EQ(e.groups.size(), 1u);
  EXPECT_EQ(e.groups[0].shortest.axiom, "coh exists");
  EXPECT_EQ(e.groups[0].shortest.section, "3.7");
  EXPECT_EQ(rotated_to(relations(e.groups[0].shortest), "rf"), (std::vector<std::string>{"rf", "po", "fr"}));
}

TEST(Explain, StoreBufferingWithScAtomicsIsAnScOrderCycle) {
  const litmus::Test test = library_test("classic/SB+sc-system_diff-agent.litmus");
  const Explanation e = explain_text(test, "0:r0=0 /\\ 1:r0=0");
  ASSERT_EQ(e.status, Explanation::Status::Forbidden) << format_explanation(e);
  ASSERT_EQ(e.groups.size(), 1u);
  const CandidateReason& r = e.groups[0].shortest;
  EXPECT_EQ(r.axiom, "sc order exists") << format_explanation(e);
  EXPECT_EQ(r.section, "3.10");
  EXPECT_EQ(r.order, "sc of system instance 0");
  EXPECT_EQ(rotated_to(relations(r), "po"), (std::vector<std::string>{"po", "fr", "po", "fr"}));
}

TEST(Explain, ThinAirIsAGdoCycle) {
  // The enumeration's value domains hold no value out of thin air; the state's values seed them.
  const litmus::Test test = library_test("classic/LB+ctrls-rlx-agent_diff-wg.litmus");
  const Explanation e = explain_text(test, "0:r0=1 /\\ 1:r0=1");
  ASSERT_EQ(e.status, Explanation::Status::Forbidden) << format_explanation(e);
  ASSERT_EQ(e.groups.size(), 1u);
  EXPECT_EQ(e.groups[0].shortest.axiom, "gdo is acyclic");
  EXPECT_EQ(rotated_to(relations(e.groups[0].shortest), "ldo"), (std::vector<std::string>{"ldo", "rf", "ldo", "rf"}));
}

TEST(Explain, TwoFetchAddsReadingOneWriteBreakUpdateAtomicity) {
  const litmus::Test test = library_test("canonical/FetchAdd2+agent_diff-wg.litmus");
  const Explanation e = explain_text(test, "0:r0=0 /\\ 1:r0=0");
  ASSERT_EQ(e.status, Explanation::Status::Forbidden) << format_explanation(e);
  std::size_t counted = 0;
  bool atomicity = false;
  for (const ReasonGroup& g : e.groups) {
    counted += g.candidates;
    atomicity = atomicity || g.shortest.axiom == "updates are atomic";
  }
  EXPECT_TRUE(atomicity) << format_explanation(e);
  EXPECT_EQ(counted, e.candidates);  // every candidate in the state has a reason
}

TEST(Explain, ARacyTestNamesTheRaceAndTheMissingSso) {
  // wg-scope release and acquire in different work-groups: they do not Match.
  const litmus::Test test = library_test("canonical/MP+wg+wg_diff-wg.litmus");
  const Explanation e = explain_text(test, "1:r0=1 /\\ 1:r1=0");
  ASSERT_TRUE(e.race) << format_explanation(e);
  EXPECT_EQ(e.race->kind, "special");
  EXPECT_NE(e.race->conflict.find("do not Match"), std::string::npos) << e.race->conflict;
  EXPECT_TRUE(e.race->sso.empty());
  EXPECT_NE(e.race->why_unordered.find("no sso"), std::string::npos) << e.race->why_unordered;
  const std::string dot = explanation_to_dot(e);
  EXPECT_NE(dot.find("label=\"race\""), std::string::npos) << dot;
  EXPECT_TRUE(explanation_to_json(e).contains("race"));
}

TEST(Explain, AnAllowedStateHasAWitness) {
  const litmus::Test test = library_test("canonical/MP+agent+agent_diff-wg.litmus");
  const Explanation e = explain_text(test, "1:r0=1; 1:r1=1;");
  EXPECT_EQ(e.status, Explanation::Status::Allowed) << format_explanation(e);
  EXPECT_FALSE(e.witness.empty());
  EXPECT_TRUE(e.groups.empty());
  ASSERT_TRUE(e.witness_graph);
  EXPECT_NE(explanation_to_dot(e).find("is allowed"), std::string::npos);
  EXPECT_EQ(explanation_to_json(e)["status"], "allowed");
}

TEST(Explain, AStateNoCandidateEndsInIsImpossible) {
  const litmus::Test test = library_test("canonical/MP+agent+agent_diff-wg.litmus");
  const Explanation e = explain_text(test, "1:r0=5");
  EXPECT_EQ(e.status, Explanation::Status::Impossible) << format_explanation(e);
  ASSERT_EQ(e.values_seen.size(), 1u);
  EXPECT_EQ(e.values_seen[0], "1:r0 ends as 0, 1");
}

TEST(Explain, StatesParseInBothSyntaxesAndBadOnesAreNamed) {
  const litmus::Test test = library_test("canonical/MP+agent+agent_diff-wg.litmus");
  std::string error;
  const auto outcome = parse_state("1:r0=1; 1:r1=0;", test, error);
  const auto condition = parse_state("(1:r0=1 /\\ 1:r1=0)", test, error);
  ASSERT_TRUE(outcome && condition) << error;
  EXPECT_EQ(outcome->refs, condition->refs);
  EXPECT_EQ(outcome->values, condition->values);
  EXPECT_FALSE(parse_state("7:r0=1", test, error));
  EXPECT_NE(error.find("thread 7"), std::string::npos) << error;
  EXPECT_FALSE(parse_state("1:r0=1 \\/ 1:r1=0", test, error));
  EXPECT_FALSE(parse_state("1:r0=one", test, error));
  EXPECT_NE(error.find("neither a number nor a location"), std::string::npos) << error;
  EXPECT_FALSE(parse_state("1:r0=1; 1:r0=0", test, error));
  EXPECT_NE(error.find("twice"), std::string::npos) << error;
  EXPECT_FALSE(parse_state("", test, error));
  EXPECT_FALSE(parse_state("zz=1", test, error));
}

TEST(Explain, HrfDirectIsUnknown) {
  const litmus::Test test = library_test("canonical/MP+agent+agent_diff-wg.litmus");
  std::string error;
  CheckOptions options;
  options.variant = ModelVariant::HrfDirect;
  const Explanation e = explain(test, *parse_state("1:r0=1", test, error), options);
  EXPECT_EQ(e.status, Explanation::Status::Unknown);
  EXPECT_TRUE(e.unknown_reason);
}

}  // namespace
}  // namespace hsalit::model
