// Candidates kept between checks (model::CandidateMemo): a check that evaluates the list kept
// for an earlier program of the same variation space answers exactly what a fresh check does.
#include <gtest/gtest.h>

#include <random>

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
