// Candidates kept between checks (model::CandidateMemo): a check that evaluates the list kept
// for an earlier program of the same variation space answers exactly what a fresh check does.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>

#include "hsalit/litmus/generate.hpp"
#include "hsalit/model/checker.hpp"
#include "litmus_support.hpp"

namespace hsalit::model {
namespace {

void expect_same(const CheckResult& kept, const CheckResult& fresh) {
  const std::string& name = fresh.name;
  EXPECT_EQ(kept.unknown_reason, fresh.unknown_reason) << name;
  EXPECT_EQ(kept.outcomes, fresh.outcomes) << name;
  EXPECT_EQ(kept.racy, fresh.racy) << name;
  ASSERT_EQ(kept.race.has_value(), fresh.race.has_value()) << name;
  if (fresh.race) {
    // The same first race: the candidates are evaluated in the order they were listed.
    EXPECT_EQ(kept.race->first_event, fresh.race->first_event) << name;
    EXPECT_EQ(kept.race->second_event, fresh.race->second_event) << name;
    EXPECT_EQ(kept.race->kind, fresh.race->kind) << name;
  }
  EXPECT_EQ(kept.verdict, fresh.verdict) << name;
  EXPECT_EQ(kept.positive, fresh.positive) << name;
  EXPECT_EQ(kept.negative, fresh.negative) << name;
}

// Spaces whose slots hold orders, scopes, fences and dependencies: the orders and scopes
// share a list; a fence or a dependency makes another program, with a list of its own.
TEST(CandidateMemo, KeptCandidatesGiveTheFreshAnswer) {
  const litmus::GenerateOptions g = litmus::parse_generate_spec(
      "family=MP/SB/LB/2+2W/CoRR/WRC,orders=na+rlx+scacq+screl+scar,scopes=wg+agent,"
      "placements=same-wg+diff-wg,fences=scar,deps=addr");
  std::size_t spaces = 0, hits = 0, misses = 0;
  for (const bool stop_at_race : {false, true}) {
    CheckOptions options;
    options.engine = Engine::Enum;
    options.stop_at_race = stop_at_race;
    litmus::for_each_variation_space(g, [&](const litmus::VariationSpace& space) {
      ++spaces;
      CandidateMemo memo;
      std::mt19937 rng(static_cast<unsigned>(space.size()));
      for (int sample = 0; sample < 12; ++sample) {
        const litmus::Test test = space.test(test_support::random_choice(space, rng));
        expect_same(check(test, options, memo), check(test, options));
      }
      hits += memo.hits();
      misses += memo.misses();
    });
  }
  ASSERT_GT(spaces, 20u);
  EXPECT_GT(hits, misses) << "the tests of a space share their lists";
  EXPECT_GT(misses, spaces) << "fences and dependencies make programs of their own";
}

// The listing reads the scope tree and the segments only through the cells (a group
// location has a copy per work-group) and barriers, so the placements of a cycle's program
// with global locations share one list, and so do its segment assignments where every
// thread shares a work-group. Each answer is a fresh check's.
TEST(CandidateMemo, PlacementsAndSegmentsShareAListWhereTheCellsAreTheSame) {
  const litmus::GenerateOptions g = litmus::parse_generate_spec(
      "family=MP/SB/LB/IRIW/WRC/CoRR,orders=rlx+scacq+screl,scopes=wg+agent,"
      "placements=same-wg+diff-wg+diff-agent,segments=global+group");
  CheckOptions options;
  options.engine = Engine::Enum;
  std::optional<CandidateMemo> memo;
  std::string cycle;
  std::size_t spaces = 0, misses = 0, cycles = 0, group_spaces = 0;
  auto count = [&] {
    if (memo) misses += memo->misses();
  };
  litmus::for_each_variation_space(g, [&](const litmus::VariationSpace& space) {
    if (space.cycle() != cycle) {  // the spaces of a cycle come one after the other
      count();
      memo.emplace();
      cycle = space.cycle();
      ++cycles;
    }
    ++spaces;
    std::mt19937 rng(static_cast<unsigned>(space.size()));
    const litmus::Test first = space.test(test_support::random_choice(space, rng));
    for (const std::string& location : first.location_names())
      if (first.segment_of(location) == litmus::Segment::Group) {
        ++group_spaces;
        break;
      }
    for (int sample = 0; sample < 4; ++sample) {
      const litmus::Test test = space.test(test_support::random_choice(space, rng));
      expect_same(check(test, options, *memo), check(test, options));
    }
  });
  count();
  ASSERT_GT(group_spaces, 10u);
  ASSERT_GT(spaces, 3 * cycles);
  EXPECT_EQ(misses, cycles) << "one list per cycle, whatever the placement and the segments";
}

// A group location in two work-groups has a copy in each: its program is not the one with
// that location global (message passing through it does not pass), and gets a list of its
// own.
TEST(CandidateMemo, AGroupLocationInSeveralWorkGroupsHasAListOfItsOwn) {
  const litmus::Test group = test_support::library_test("classic/MP+agent_diff-wg+group-data.litmus");
  litmus::Test global = group;
  for (litmus::RegionEntry& r : global.regions) r.segment = litmus::Segment::Global;
  CheckOptions options;
  options.engine = Engine::Enum;
  CandidateMemo memo;
  const CheckResult global_answer = check(global, options, memo);
  const CheckResult group_answer = check(group, options, memo);
  expect_same(global_answer, check(global, options));
  expect_same(group_answer, check(group, options));
  EXPECT_EQ(memo.misses(), 2u);
  EXPECT_NE(global_answer.outcomes, group_answer.outcomes);
}

// A list longer than the memo's limit is not kept, and the answers stay those of fresh checks.
TEST(CandidateMemo, ListsOverTheLimitAreNotKept) {
  const litmus::GenerateOptions g = litmus::parse_generate_spec("family=MP/SB,orders=rlx+scacq+screl,scopes=agent");
  CheckOptions options;
  options.engine = Engine::Enum;
  litmus::for_each_variation_space(g, [&](const litmus::VariationSpace& space) {
    CandidateMemo memo(4, 1);
    for (std::size_t i = 0; i < space.slots().front().choices.size(); ++i) {
      std::vector<std::size_t> choice(space.slots().size(), 0);
      choice.front() = i;
      const litmus::Test test = space.test(choice);
      expect_same(check(test, options, memo), check(test, options));
    }
    EXPECT_EQ(memo.hits(), 0u);
  });
}

}  // namespace
}  // namespace hsalit::model
