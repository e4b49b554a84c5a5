// Checks that ask only which of some outcomes are allowed (CheckOptions::only_outcomes), and
// the static race check (`may_race`) that lets the enum engine answer them, and whole checks
// of programs that cannot race, from fewer candidate executions; the races of branch-free
// programs, found without enumerating (`certain_race`).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <set>

#include "hsalit/litmus/generate.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/model/checker.hpp"
#include "hsalit/model/execution.hpp"
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

// What `certain_race` requires of a program: no branch, barrier, compare-and-swap or filter,
// and every access at a location named without a register.
bool every_event_runs_at_its_location(const litmus::Test& test) {
  if (test.filter) return false;
  for (const litmus::Thread& thread : test.threads)
    for (const litmus::Instruction& ins : thread.code)
      if (ins.kind == litmus::OpKind::Branch || ins.kind == litmus::OpKind::Barrier ||
          (ins.kind == litmus::OpKind::Rmw && ins.annots.cas))
        return false;
  const Program program(test);
  return std::all_of(program.events().begin(), program.events().end(),
                     [](const StaticEvent& e) { return !e.is_access() || e.location.has_value(); });
}

// A branch-free program races exactly when it has a conflicting pair, under every model
// variant, as both engines find by enumerating; with a branch (the guards of the third slice)
// a conflicting pair may be ordered, and `certain_race` says nothing.
// Besides the slices of for_sampled_tests, tests of a three-thread bound's cycles.
TEST(CertainRace, IsExactlyWhetherABranchFreeProgramRaces) {
  std::size_t racy = 0, race_free = 0, ordered_by_a_guard = 0, by_z3 = 0;
  auto visit = [&](const litmus::Test& test) {
    const bool applies = every_event_runs_at_its_location(test);
    for (ModelVariant variant : {ModelVariant::Hsa, ModelVariant::HrfIndirect, ModelVariant::HrfDirect}) {
      CheckOptions o = enum_options();
      o.variant = variant;
      const CheckResult full = check(test, o);
      ASSERT_FALSE(full.unknown()) << test.name;
      const Program program(test);
      const std::optional<RaceWitness> race = certain_race(program, variant);
      if (!applies) {
        EXPECT_FALSE(race) << test.name;
        if (!full.racy && may_race(program, variant)) ++ordered_by_a_guard;
        continue;
      }
      EXPECT_EQ(race.has_value(), full.racy) << test.name << " " << to_string(variant);
      ++(full.racy ? racy : race_free);
      if (variant == ModelVariant::Hsa && (racy + race_free) % 25 == 0) {
        o.engine = Engine::Z3;
        EXPECT_EQ(race.has_value(), check(test, o).racy) << test.name;
        ++by_z3;
      }
    }
  };
  for_sampled_tests([&](const litmus::Test& test, CandidateMemo&) { visit(test); });
  litmus::for_each_variation_space(litmus::parse_generate_spec("threads=3,accesses=3,shard=7/40000"),
                                   [&](const litmus::VariationSpace& space) {
                                     std::mt19937 rng(static_cast<unsigned>(space.size()));
                                     for (int sample = 0; sample < 6; ++sample)
                                       visit(space.test(test_support::random_choice(space, rng)));
                                   });
  EXPECT_GT(racy, 1000u);
  EXPECT_GT(race_free, 600u);
  EXPECT_GT(ordered_by_a_guard, 0u);
  EXPECT_GT(by_z3, 25u);
}

// With stop_at_race, a certain race is the answer of both engines at once: racy, with its
// pair and no outcomes. A graph is only drawn from an enumerated execution.
TEST(CertainRace, AnswersAStopAtRaceCheckWithoutEnumerating) {
  litmus::ParseResult parsed = litmus::parse_litmus(R"(LISA MP-plain
{ x = 0; y = 0; }
 P0        | P1        ;
 w[] x 1   | r[] r0 y  ;
 w[] y 1   | r[] r1 x  ;
scopes: (agent (wg 0) (wg 1))
exists (1:r0=1 /\ 1:r1=0)
)");
  ASSERT_TRUE(parsed.ok()) << parsed.diagnostics.render("MP-plain.litmus");
  const std::optional<RaceWitness> race = certain_race(Program(*parsed.test), ModelVariant::Hsa);
  ASSERT_TRUE(race);
  for (Engine engine : {Engine::Enum, Engine::Z3}) {
    CheckOptions o;
    o.engine = engine;
    o.stop_at_race = true;
    const CheckResult fast = check(*parsed.test, o);
    EXPECT_TRUE(fast.racy);
    ASSERT_TRUE(fast.race);
    EXPECT_EQ(fast.race->first_event, race->first);
    EXPECT_EQ(fast.race->second_event, race->second);
    EXPECT_TRUE(fast.outcomes.empty());
    o.want_graph = true;
    const CheckResult drawn = check(*parsed.test, o);
    EXPECT_TRUE(drawn.racy);
    EXPECT_TRUE(drawn.graph);
    EXPECT_FALSE(drawn.outcomes.empty());
  }
}

// Plain accesses of a group location from two work-groups touch two copies (HSA SysArch
// 3.3.3): no conflict, no race; in one work-group they race.
TEST(CertainRace, GroupLocationsOfTwoWorkGroupsAreTwoCells) {
  for (const auto& [scopes, races] : {std::pair{"(agent (wg 0) (wg 1))", false}, {"(agent (wg 0 1))", true}}) {
    litmus::ParseResult parsed = litmus::parse_litmus(fmt::format(R"(LISA W+R-group
{{ x = 0; }}
 P0      | P1       ;
 w[] x 1 | r[] r0 x ;
scopes: {}
regions: x:group
exists (1:r0=1)
)",
                                                                  scopes));
    ASSERT_TRUE(parsed.ok()) << parsed.diagnostics.render("W+R-group.litmus");
    EXPECT_EQ(certain_race(Program(*parsed.test), ModelVariant::Hsa).has_value(), races) << scopes;
    EXPECT_EQ(check(*parsed.test, enum_options()).racy, races) << scopes;
  }
}

}  // namespace
}  // namespace hsalit::model
