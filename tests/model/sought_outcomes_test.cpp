// Checks that ask only which of some outcomes are allowed (CheckOptions::only_outcomes), and
// the static race check (`may_race`) that lets the enum engine answer them, and whole checks
// of programs that cannot race, from fewer candidate executions.
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <set>

#include "hsalit/litmus/generate.hpp"
#include "hsalit/model/checker.hpp"
#include "hsalit/model/relations.hpp"
#include "litmus_support.hpp"

namespace hsalit::model {
namespace {

// Calls `visit` with a dozen sampled tests of each space of two slices: one with every
// order, three scopes, fences, dependencies, group locations and two placements (mostly
// racy), one of atomics at work-group and agent scope (mostly race-free), and message
// passing whose guarded ordinary accesses synchronisation orders.
template <typename Visit>
void for_sampled_tests(Visit visit) {
  for (const char* spec :
       {"family=MP/SB/LB/2+2W/CoRR/WRC,orders=na+rlx+scacq+screl+scar,scopes=wave+wg+agent,"
        "placements=same-wg+diff-wg,segments=global+group,fences=scar,deps=addr",
        "family=MP/SB/LB/2+2W/CoRR/WRC,orders=rlx+scacq+screl+scar,scopes=wg+agent,placements=same-wg+diff-wg,"
        "segments=global+group,fences=scar",
        "family=MP/WRC/ISA2,orders=na+scacq+screl+scar,scopes=agent,placements=diff-wg,deps=guard"})
    litmus::for_each_variation_space(litmus::parse_generate_spec(spec), [&](const litmus::VariationSpace& space) {
      CandidateMemo memo;
      std::mt19937 rng(static_cast<unsigned>(space.size()));
      for (int sample = 0; sample < 12; ++sample) visit(space.test(test_support::random_choice(space, rng)), memo);
    });
}

CheckOptions enum_options() {
  CheckOptions o;
  o.engine = Engine::Enum;
  return o;
}

// The static check never misses a race the model finds, and it is not trivial: many tests
// cannot race, and some that may race do not (their ordinary accesses are ordered).
TEST(MayRace, HoldsForEveryRacyTest) {
  std::size_t racy = 0, proved_race_free = 0, race_free_but_may_race = 0;
  for_sampled_tests([&](const litmus::Test& test, CandidateMemo&) {
    const CheckResult full = check(test, enum_options());
    ASSERT_FALSE(full.unknown()) << test.name;
    const bool may = may_race(Program(test), ModelVariant::Hsa);
    if (full.racy) {
      ++racy;
      EXPECT_TRUE(may) << test.name;
    } else {
      ++(may ? race_free_but_may_race : proved_race_free);
    }
  });
  EXPECT_GT(racy, 100u);
  EXPECT_GT(proved_race_free, 100u);
  EXPECT_GT(race_free_but_may_race, 0u);
}

// Asked for half of the allowed outcomes and one that no test allows, the engine gives
// exactly those allowed among them, marked partial, for a test that cannot race (with the
// kept candidates and without); a test that may race is checked whole.
TEST(SoughtOutcomes, APartialAnswerIsTheWholeAnswerCutToTheSought) {
  std::size_t partial = 0, whole = 0;
  for_sampled_tests([&](const litmus::Test& test, CandidateMemo& memo) {
    const CheckResult full = check(test, enum_options());
    ASSERT_FALSE(full.unknown()) << test.name;
    std::set<Outcome> sought;
    for (std::size_t i = 0; i < full.outcomes.size(); i += 2) sought.insert(full.outcomes[i]);
    sought.insert(Outcome{std::vector<Value>(full.evaluated.size(), 1000)});
    CheckOptions asking = enum_options();
    asking.only_outcomes = &sought;
    for (const CheckResult& r : {check(test, asking), check(test, asking, memo)}) {
      ASSERT_FALSE(r.unknown()) << test.name;
      EXPECT_EQ(r.racy, full.racy) << test.name;
      if (!r.partial) {
        ++whole;
        EXPECT_EQ(r.outcomes, full.outcomes) << test.name;
        continue;
      }
      ++partial;
      EXPECT_FALSE(full.racy) << test.name;
      std::vector<Outcome> expected;
      std::set_intersection(full.outcomes.begin(), full.outcomes.end(), sought.begin(), sought.end(),
                            std::back_inserter(expected));
      EXPECT_EQ(r.outcomes, expected) << test.name;
    }
  });
  EXPECT_GT(partial, 100u);
  EXPECT_GT(whole, 100u);
}

}  // namespace
}  // namespace hsalit::model
