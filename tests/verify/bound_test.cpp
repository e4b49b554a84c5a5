// Verification of every variation of a bound by code classes (verify/bound.hpp): the two
// facts the reduction stands on are checked here on whole slices of bounds, not assumed.
#include "hsalit/verify/bound.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <tuple>

#include "compile_support.hpp"
#include "hsalit/codegen/compiler.hpp"
#include "hsalit/litmus/generate.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/model/checker.hpp"
#include "hsalit/runner/sim.hpp"
#include "hsalit/verify/mutation.hpp"
#include "litmus_support.hpp"
#include "sim_support.hpp"

namespace hsalit::verify {
namespace {

using litmus::MemoryOrder;
using litmus::Scope;
using litmus::Variation;
using Kind = litmus::Variation::Kind;

Variation atomic(MemoryOrder order, Scope scope) { return {Kind::Atomic, order, scope, {}}; }
Variation fence(MemoryOrder order, Scope scope) { return {Kind::Fence, order, scope, {}}; }

litmus::GenerateOptions spec(const std::string& text) { return litmus::parse_generate_spec(text); }

model::CheckOptions enum_engine() {
  model::CheckOptions o;
  o.engine = model::Engine::Enum;
  return o;
}

std::set<std::string> counterexample_names(const VerifyReport& report) {
  std::set<std::string> names;
  for (const TestVerification& v : report.tests)
    if (v.status == TestStatus::Counterexample) names.insert(v.name);
  return names;
}

// Each counterexample the reduced check reports is one the plainer check reports too.
void expect_counterexamples_within(const VerifyReport& reduced, const VerifyReport& plain) {
  const std::set<std::string> names = counterexample_names(plain);
  for (const std::string& name : counterexample_names(reduced)) EXPECT_TRUE(names.count(name)) << name;
}

// A slice of a bound, and whether the table is sound on it under the default assumptions.
struct VerdictSlice {
  const char* spec;
  bool sound_by_default;
};

VerifyOptions quick_options() {
  VerifyOptions o;
  o.minimise = false;
  o.model = enum_engine();
  o.sim.keep_traces = false;
  return o;
}

// quick_options with the table's seq_cst rows for scacq and screl (`--sc-orders`) when
// `sc_orders`, and with the remedies of finding 2 (docs/mappings.md: `l1-store-at-l2`,
// `one-channel`) when `remedies`.
VerifyOptions sc_options(bool sc_orders, bool remedies) {
  VerifyOptions o = quick_options();
  o.compile.sc_acquire_release = sc_orders;
  if (remedies) {
    EXPECT_TRUE(runner::apply_assumption("l1-store-at-l2", o.sim.hw));
    EXPECT_TRUE(runner::apply_assumption("one-channel", o.sim.hw));
  }
  return o;
}

// The bound verified with a reduction and without it: the same verdict, `sound` as given, and
// each counterexample the reduced search reports one that the plain search reports.
std::pair<BoundVerification, BoundVerification> verify_with_and_without(const litmus::GenerateOptions& g,
                                                                        const codegen::MappingTable& table,
                                                                        const VerifyOptions& o,
                                                                        const BoundOptions& with,
                                                                        const BoundOptions& without, bool sound) {
  BoundVerification reduced = verify_bound(g, table, o, with);
  BoundVerification plain = verify_bound(g, table, o, without);
  EXPECT_EQ(reduced.report.sound(), plain.report.sound());
  EXPECT_EQ(plain.report.sound(), sound);
  expect_counterexamples_within(reduced.report, plain.report);
  return {std::move(reduced), std::move(plain)};
}

TEST(VariationStrength, FollowsOrdersScopesAndFences) {
  const Variation na{Kind::Ordinary, {}, {}, {}};
  EXPECT_TRUE(at_least_as_strong(atomic(MemoryOrder::Relaxed, Scope::Wavefront), na));
  EXPECT_FALSE(at_least_as_strong(na, atomic(MemoryOrder::Relaxed, Scope::Wavefront)));
  EXPECT_TRUE(
      at_least_as_strong(atomic(MemoryOrder::Acquire, Scope::Agent), atomic(MemoryOrder::Relaxed, Scope::Agent)));
  EXPECT_TRUE(
      at_least_as_strong(atomic(MemoryOrder::Relaxed, Scope::System), atomic(MemoryOrder::Relaxed, Scope::Agent)));
  // Incomparable: a stronger order at a narrower scope.
  EXPECT_FALSE(
      at_least_as_strong(atomic(MemoryOrder::Acquire, Scope::WorkGroup), atomic(MemoryOrder::Relaxed, Scope::System)));
  EXPECT_FALSE(
      at_least_as_strong(atomic(MemoryOrder::Relaxed, Scope::System), atomic(MemoryOrder::Acquire, Scope::WorkGroup)));
  EXPECT_FALSE(
      at_least_as_strong(atomic(MemoryOrder::Acquire, Scope::System), atomic(MemoryOrder::Release, Scope::System)));
  EXPECT_TRUE(at_least_as_strong(atomic(MemoryOrder::AcquireRelease, Scope::Agent),
                                 atomic(MemoryOrder::Release, Scope::WorkGroup)));
  const Variation nothing{};
  EXPECT_TRUE(at_least_as_strong(fence(MemoryOrder::Acquire, Scope::Wavefront), nothing));
  EXPECT_FALSE(at_least_as_strong(nothing, fence(MemoryOrder::Acquire, Scope::Wavefront)));
  const Variation addr{Kind::Dependency, {}, {}, litmus::Dependency::Address};
  EXPECT_FALSE(at_least_as_strong(addr, nothing));
  EXPECT_FALSE(at_least_as_strong(nothing, addr));
}

// Fact 2 of verify/bound.hpp, on a whole slice: strengthening one slot of any test keeps a
// race-free test race-free and never adds an allowed final state, in each model with its own
// strength order (`at_least_as_strong(a, b, model)`: a wider scope is stronger only with HSA's
// scope inclusion; in the hrf models and OpenCL's, an agent-scope release does not
// synchronise with a work-group-scope acquire, so MP with a wg flag in one work-group races
// once its release is widened to agent scope).
void expect_model_monotone(model::ModelVariant variant, int samples, std::size_t min_race_free_pairs) {
  SCOPED_TRACE(model::to_string(variant));
  litmus::GenerateOptions g =
      spec("family=MP/SB/LB/S/R/2+2W/CoRR/CoWR,scopes=wg+agent,placements=same-wg+diff-wg,fences=scacq+screl+scar");
  model::CheckOptions options = enum_engine();
  options.variant = variant;
  std::size_t pairs = 0, race_free_pairs = 0;
  litmus::for_each_variation_space(g, [&](const litmus::VariationSpace& space) {
    const auto& slots = space.slots();
    std::mt19937 rng(static_cast<unsigned>(space.size()));
    // A sample of the space's tests, each against every one-slot strengthening.
    for (int sample = 0; sample < samples; ++sample) {
      const std::vector<std::size_t> choice = test_support::random_choice(space, rng);
      const litmus::Test weak = observe_everything(space.test(choice));
      const model::CheckResult w = model::check(weak, options);
      ASSERT_FALSE(w.unknown()) << weak.name;
      std::set<std::vector<std::int64_t>> weak_allowed;
      for (const model::Outcome& o : w.outcomes) weak_allowed.insert(o.values);
      for (std::size_t i = 0; i < slots.size(); ++i)
        for (std::size_t j = 0; j < slots[i].choices.size(); ++j) {
          if (j == choice[i] || !at_least_as_strong(slots[i].choices[j], slots[i].choices[choice[i]], variant))
            continue;
          std::vector<std::size_t> strong_choice = choice;
          strong_choice[i] = j;
          const litmus::Test strong = observe_everything(space.test(strong_choice));
          const model::CheckResult s = model::check(strong, options);
          ASSERT_FALSE(s.unknown()) << strong.name;
          ++pairs;
          if (w.racy) continue;
          EXPECT_FALSE(s.racy) << strong.name << " is racy but the weaker " << weak.name << " is not";
          ++race_free_pairs;
          ASSERT_EQ(s.evaluated.size(), w.evaluated.size());
          for (const model::Outcome& o : s.outcomes)
            EXPECT_TRUE(weak_allowed.count(o.values))
                << strong.name << " allows a final state that the weaker " << weak.name << " forbids";
        }
    }
  });
  EXPECT_GT(race_free_pairs, min_race_free_pairs) << pairs;
}

TEST(BoundReduction, ModelIsMonotoneInEveryAnnotation) { expect_model_monotone(model::ModelVariant::Hsa, 40, 2000); }

TEST(BoundReduction, HrfAndOpenClModelsAreMonotoneWithScopesCompared) {
  expect_model_monotone(model::ModelVariant::HrfIndirect, 40, 800);
  expect_model_monotone(model::ModelVariant::OpenCl, 40, 400);
}

TEST(VariationStrength, OnlyScopeInclusionMakesAWiderScopeStronger) {
  const Variation agent = atomic(MemoryOrder::Release, Scope::Agent),
                  wg = atomic(MemoryOrder::Release, Scope::WorkGroup);
  EXPECT_TRUE(at_least_as_strong(agent, wg, model::ModelVariant::Hsa));
  for (model::ModelVariant v :
       {model::ModelVariant::HrfIndirect, model::ModelVariant::HrfDirect, model::ModelVariant::OpenCl}) {
    EXPECT_FALSE(at_least_as_strong(agent, wg, v));
    EXPECT_TRUE(at_least_as_strong(atomic(MemoryOrder::AcquireRelease, Scope::Agent), agent, v));
  }
}

// Fact 4: where a thread's instances at two scopes hold the same threads, its accesses and
// fences get the same answer from the model with either scope: the same allowed final
// states, and a race exactly when the other has one. On every placement of two and three
// threads (one work-group alone in its agent, every thread in one work-group, ...).
TEST(BoundReduction, ModelCannotTellApartScopesHoldingTheSameThreads) {
  litmus::GenerateOptions g = spec(
      "family=MP/SB/LB/2+2W/CoRR/WRC/ISA2,orders=rlx+scacq+screl+scar,scopes=wave+wg+agent+system,"
      "placements=same-wg+diff-wg+diff-agent,fences=scacq+screl");
  std::size_t pairs = 0, racy = 0, with_z3 = 0;
  litmus::for_each_variation_space(g, [&](const litmus::VariationSpace& space) {
    const auto& slots = space.slots();
    std::mt19937 rng(static_cast<unsigned>(space.size()) + static_cast<unsigned>(slots.size()));
    for (int sample = 0; sample < 12; ++sample) {
      const std::vector<std::size_t> choice = test_support::random_choice(space, rng);
      const litmus::Test narrow = observe_everything(space.test(choice));
      const auto members = [&](int thread, Scope scope) {
        std::vector<int> out;
        for (int u = 0; u < static_cast<int>(narrow.threads.size()); ++u)
          if (narrow.scopes.same_instance(thread, u, scope)) out.push_back(u);
        return out;
      };
      for (std::size_t i = 0; i < slots.size(); ++i) {
        const Variation& v = slots[i].choices[choice[i]];
        if (v.kind != Kind::Atomic && v.kind != Kind::Fence) continue;
        for (std::size_t j = 0; j < slots[i].choices.size(); ++j) {
          Variation wide = slots[i].choices[j];
          if (wide.scope <= v.scope || members(slots[i].thread, wide.scope) != members(slots[i].thread, v.scope))
            continue;
          wide.scope = v.scope;
          if (!(wide == v)) continue;  // another order or kind
          std::vector<std::size_t> other = choice;
          other[i] = j;
          const litmus::Test widened = observe_everything(space.test(other));
          std::vector<model::CheckOptions> engines{enum_engine()};
          if (pairs % 40 == 0) engines.push_back(model::CheckOptions{});  // z3
          for (const model::CheckOptions& engine : engines) {
            const model::CheckResult a = model::check(narrow, engine), b = model::check(widened, engine);
            ASSERT_FALSE(a.unknown() || b.unknown()) << narrow.name;
            EXPECT_EQ(a.racy, b.racy) << narrow.name << " and " << widened.name;
            EXPECT_EQ(a.evaluated, b.evaluated);
            if (!a.racy) {
              EXPECT_EQ(a.outcomes, b.outcomes) << narrow.name << " and " << widened.name;
            }
            with_z3 += engine.engine == model::Engine::Z3 ? 1 : 0;
          }
          ++pairs;
          racy += model::check(narrow, enum_engine()).racy ? 1 : 0;
        }
      }
    }
  });
  EXPECT_GT(pairs, 1000u);
  EXPECT_GT(pairs - racy, 300u);
  EXPECT_GT(with_z3, 25u);
}

// Fact 6: with every thread in one work-group, the model answers a test with some locations
// in the group segment as it answers the test with all of them global (the same choices of
// the same slots): races, the columns evaluated and the allowed final states, with both
// engines. Not so without scope inclusion: there a group location's agent-scope atomic,
// acting at work-group scope (HSA SysArch 3.3.6), matches a work-group-scope one that a
// global location's does not, so the hrf-indirect model tells the segments apart.
TEST(BoundReduction, ModelCannotTellApartSegmentsInOneWorkGroup) {
  const litmus::GenerateOptions g = spec(
      "family=MP/SB/LB/2+2W/CoRR/WRC/ISA2/IRIW,orders=na+rlx+scacq+screl+scar,scopes=wave+wg+agent+system,"
      "placements=same-wg,segments=global+group,fences=scacq+screl");
  std::map<std::string, litmus::VariationSpace> all_global;
  std::vector<litmus::VariationSpace> with_group;
  litmus::for_each_variation_space(g, [&](const litmus::VariationSpace& space) {
    const litmus::Test first = space.test(std::vector<std::size_t>(space.slots().size(), 0));
    const auto& names = first.location_names();
    if (std::all_of(names.begin(), names.end(),
                    [&](const std::string& l) { return first.segment_of(l) == litmus::Segment::Global; }))
      all_global.emplace(space.cycle(), space);
    else
      with_group.push_back(space);
  });
  std::size_t pairs = 0, race_free = 0, with_z3 = 0, hrf_differ = 0;
  for (const litmus::VariationSpace& space : with_group) {
    const litmus::VariationSpace& global = all_global.at(space.cycle());
    ASSERT_EQ(global.slots().size(), space.slots().size());
    std::mt19937 rng(static_cast<unsigned>(space.size()) + static_cast<unsigned>(pairs));
    for (int sample = 0; sample < 96; ++sample) {
      const std::vector<std::size_t> choice = test_support::random_choice(space, rng);
      const litmus::Test a = observe_everything(global.test(choice));
      const litmus::Test b = observe_everything(space.test(choice));
      std::vector<model::CheckOptions> engines{enum_engine()};
      if (pairs % 40 == 0) engines.push_back(model::CheckOptions{});  // z3
      for (const model::CheckOptions& engine : engines) {
        const model::CheckResult in_global = model::check(a, engine), in_group = model::check(b, engine);
        ASSERT_FALSE(in_global.unknown() || in_group.unknown()) << b.name;
        EXPECT_EQ(in_global.racy, in_group.racy) << a.name << " and " << b.name;
        EXPECT_EQ(in_global.evaluated, in_group.evaluated);
        if (!in_global.racy) {
          EXPECT_EQ(in_global.outcomes, in_group.outcomes) << a.name << " and " << b.name;
          race_free += engine.engine == model::Engine::Enum ? 1 : 0;
        }
        with_z3 += engine.engine == model::Engine::Z3 ? 1 : 0;
      }
      model::CheckOptions hrf = enum_engine();
      hrf.variant = model::ModelVariant::HrfIndirect;
      const model::CheckResult hrf_global = model::check(a, hrf), hrf_group = model::check(b, hrf);
      hrf_differ += hrf_global.racy != hrf_group.racy || hrf_global.outcomes != hrf_group.outcomes ? 1 : 0;
      ++pairs;
    }
  }
  EXPECT_GT(pairs, 2000u);
  EXPECT_GT(race_free, 300u);
  EXPECT_GT(with_z3, 40u);
  EXPECT_GT(hrf_differ, 0u);
}

// The spaces of `g` with work-groups in several agents, each with the space that has the same
// work-groups in one agent (fact 5 of verify/bound.hpp).
std::vector<std::pair<litmus::VariationSpace, litmus::VariationSpace>> spaces_with_agents_merged(
    const litmus::GenerateOptions& g) {
  using Key = std::tuple<std::string, std::vector<int>, std::vector<int>>;
  std::map<Key, litmus::VariationSpace> by_placement;
  std::vector<litmus::VariationSpace> several;
  litmus::for_each_variation_space(g, [&](const litmus::VariationSpace& space) {
    by_placement.emplace(Key{space.cycle(), space.workgroup_of_thread(), space.agent_of_thread()}, space);
    const auto& agents = space.agent_of_thread();
    if (std::any_of(agents.begin(), agents.end(), [](int a) { return a > 0; })) several.push_back(space);
  });
  std::vector<std::pair<litmus::VariationSpace, litmus::VariationSpace>> out;
  for (const litmus::VariationSpace& space : several) {
    const std::vector<int> one(space.agent_of_thread().size(), 0);
    out.emplace_back(space, by_placement.at(Key{space.cycle(), space.workgroup_of_thread(), one}));
  }
  return out;
}

// A random choice per slot, three times in four among its system-scope choices when it has any.
std::vector<std::size_t> mostly_system(const std::vector<litmus::Slot>& slots, std::mt19937& rng) {
  std::vector<std::size_t> choice;
  for (const litmus::Slot& sl : slots) {
    std::vector<std::size_t> system;
    for (std::size_t j = 0; j < sl.choices.size(); ++j)
      if ((sl.choices[j].kind == Kind::Atomic || sl.choices[j].kind == Kind::Fence) &&
          sl.choices[j].scope == Scope::System)
        system.push_back(j);
    if (!system.empty() && std::uniform_int_distribution<int>(0, 3)(rng) > 0)
      choice.push_back(system[std::uniform_int_distribution<std::size_t>(0, system.size() - 1)(rng)]);
    else
      choice.push_back(std::uniform_int_distribution<std::size_t>(0, sl.choices.size() - 1)(rng));
  }
  return choice;
}

// Fact 5, the model's half: with the work-groups of a test in one agent instead of several,
// a race-free test stays race-free and allows no final state it did not. Both variants (an
// agent-scope instance holding more threads only adds synchronisation in either), both
// engines, every order, scope and fence.
TEST(BoundReduction, ModelSynchronisesMoreWithWorkGroupsInOneAgent) {
  const litmus::GenerateOptions g = spec(
      "family=MP/SB/LB/2+2W/CoRR/WRC/ISA2/IRIW,orders=rlx+scacq+screl+scar,scopes=wave+wg+agent+system,"
      "placements=same-wg+diff-wg+diff-agent,fences=scacq+screl");
  std::size_t pairs = 0, race_free = 0, racy_only_apart = 0, fewer_states = 0, with_z3 = 0;
  for (const auto& [apart, together] : spaces_with_agents_merged(g)) {
    const auto& slots = apart.slots();
    std::mt19937 rng(static_cast<unsigned>(apart.size()) + static_cast<unsigned>(apart.agent_of_thread().back()));
    for (int sample = 0; sample < 24; ++sample) {
      // Accesses across agents race unless their scope is system, so most samples take
      // system-scope choices.
      const std::vector<std::size_t> choice = mostly_system(slots, rng);
      const litmus::Test a = observe_everything(apart.test(choice));
      const litmus::Test b = observe_everything(together.test(choice));
      for (const model::ModelVariant variant : {model::ModelVariant::Hsa, model::ModelVariant::HrfIndirect}) {
        std::vector<model::CheckOptions> engines{enum_engine()};
        if (pairs % 30 == 0) engines.push_back(model::CheckOptions{});  // z3
        for (model::CheckOptions engine : engines) {
          engine.variant = variant;
          const model::CheckResult in_several = model::check(a, engine), in_one = model::check(b, engine);
          ASSERT_FALSE(in_several.unknown() || in_one.unknown()) << a.name;
          with_z3 += engine.engine == model::Engine::Z3 ? 1 : 0;
          if (in_several.racy) {
            racy_only_apart += in_one.racy ? 0 : 1;
            continue;
          }
          EXPECT_FALSE(in_one.racy) << b.name << " is racy but " << a.name << " is not";
          std::set<std::vector<std::int64_t>> allowed_apart;
          for (const model::Outcome& o : in_several.outcomes) allowed_apart.insert(o.values);
          for (const model::Outcome& o : in_one.outcomes)
            EXPECT_TRUE(allowed_apart.count(o.values))
                << b.name << " allows a final state that " << a.name << " forbids";
          fewer_states += in_one.outcomes.size() < in_several.outcomes.size() ? 1 : 0;
          ++race_free;
        }
      }
      ++pairs;
    }
  }
  EXPECT_GT(pairs, 1000u);
  EXPECT_GT(race_free, 500u);
  EXPECT_GT(racy_only_apart, 50u);  // merging the agents does make tests race-free
  EXPECT_GT(fewer_states, 0u);      // and forbids final states (agent-scope fences)
  EXPECT_GT(with_z3, 50u);
}

// Fact 5, the simulator's half: with one L2, a test whose work-groups lie in several agents
// reaches no final state that it does not reach with them in one agent (on the shipped
// gfx6-9 and gfx90a tables, under several assumption sets). With an L2 per agent on gfx90a
// it does: the agents' L2s are not coherent.
TEST(BoundReduction, SimulatorRunsSeveralAgentsAsOneWithOneL2) {
  const litmus::GenerateOptions g =
      spec("family=MP/SB/WRC/ISA2/IRIW,orders=rlx+scacq+screl,scopes=agent+system,placements=diff-wg+diff-agent");
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  struct Machine {
    const char* target;
    const char* table;
    std::vector<const char*> assumptions;
  };
  const std::vector<Machine> machines = {{"gfx900", "gfx6-9", {}},
                                         {"gfx900", "gfx6-9", {"l1-store-at-l2", "one-channel"}},
                                         {"gfx900", "gfx6-9", {"lds-sc", "no-l1-fill"}},
                                         {"gfx90a", "gfx90a", {}}};
  std::size_t pairs = 0;
  const auto merged = spaces_with_agents_merged(g);
  for (const Machine& m : machines) {
    runner::SimOptions o;
    o.keep_traces = false;
    for (const char* a : m.assumptions) EXPECT_TRUE(runner::apply_assumption(a, o.hw));
    const codegen::MappingTable table = codegen::MappingTable::builtin(m.table);
    std::mt19937 rng(11);
    for (const auto& [apart, together] : merged)
      for (int sample = 0; sample < 4; ++sample) {
        const std::vector<std::size_t> choice = mostly_system(apart.slots(), rng);
        const litmus::Test a = observe_everything(apart.test(choice));
        const litmus::Test b = observe_everything(together.test(choice));
        const codegen::Target& target = *catalog.find(m.target);
        const runner::SimResult in_several = runner::run_exhaustive(a, codegen::compile(a, target, catalog, table), o);
        const runner::SimResult in_one = runner::run_exhaustive(b, codegen::compile(b, target, catalog, table), o);
        ASSERT_FALSE(in_several.unknown || in_one.unknown) << a.name;
        for (const auto& [outcome, count] : in_several.histogram)
          EXPECT_TRUE(in_one.histogram.count(outcome))
              << a.name << " reaches a final state that " << b.name << " does not (" << m.target << ")";
        ++pairs;
      }
  }
  EXPECT_GT(pairs, 300u);

  // An L2 per agent: message passing with agent-scope release and acquire reads stale data
  // across two agents (the release writes nothing back to memory) and not within one.
  const auto placed = [](const std::string& scopes) {
    const std::string text = R"(LISA MP+rel-acq-agent
{ x = 0; y = 0; }
 P0                        | P1                         ;
 w[] x 1                   | r[atomic,scacq,agent] r0 y ;
 w[atomic,screl,agent] y 1 | r[] r1 x                   ;
scopes: )" + scopes + R"(
exists (1:r0=1 /\ 1:r1=0)
)";
    litmus::ParseResult parsed = litmus::parse_litmus(text);
    EXPECT_TRUE(parsed.ok());
    return *parsed.test;
  };
  const litmus::Test apart = placed("(system (agent (wg 0)) (agent (wg 1)))");
  const litmus::Test together = placed("(system (agent (wg 0) (wg 1)))");
  runner::SimOptions per_agent;
  per_agent.keep_traces = false;
  per_agent.hw.l2_per_agent = true;
  const codegen::MappingTable gfx90a = codegen::MappingTable::builtin("gfx90a");
  const codegen::Target& target = *catalog.find("gfx90a");
  const auto reaches = [&](const litmus::Test& t) {
    const runner::SimResult r = runner::run_exhaustive(t, codegen::compile(t, target, catalog, gfx90a), per_agent);
    return r.histogram.count(runner::SimOutcome{{1, 0}}) > 0;
  };
  EXPECT_TRUE(reaches(apart));
  EXPECT_FALSE(reaches(together));
}

// Fact 1: choices of a slot in one code class give the same whole program whatever the
// other slots hold.
TEST(BoundReduction, ChoicesOfOneCodeClassCompileToTheSameProgram) {
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const codegen::Target& target = *catalog.find("gfx900");
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  litmus::GenerateOptions g = spec("family=MP/SB/WRC,fences=scacq+screl,deps=addr+data+guard");
  std::size_t compared = 0;
  auto program = [&](const litmus::Test& t) {
    std::string out;
    for (const auto& th : codegen::compile(t, target, catalog, table).threads) out += codegen::print(th.code, false);
    return out;
  };
  litmus::for_each_variation_space(g, [&](const litmus::VariationSpace& space) {
    const auto& slots = space.slots();
    std::mt19937 rng(7);
    for (std::size_t i = 0; i < slots.size(); ++i) {
      // The slot's classes as the verification finds them: same code in the base context.
      std::vector<std::size_t> base(slots.size(), 0);
      std::map<std::string, std::vector<std::size_t>> classes;
      for (std::size_t j = 0; j < slots[i].choices.size(); ++j) {
        base[i] = j;
        classes[program(space.test(base))].push_back(j);
      }
      for (const auto& [code, members] : classes) {
        if (members.size() < 2) continue;
        for (int context = 0; context < 3; ++context) {
          std::vector<std::size_t> choice = test_support::random_choice(space, rng);
          choice[i] = members.front();
          const std::string first = program(space.test(choice));
          for (std::size_t m : members) {
            choice[i] = m;
            EXPECT_EQ(program(space.test(choice)), first) << space.cycle() << " slot " << i;
            ++compared;
          }
        }
      }
    }
  });
  EXPECT_GT(compared, 1000u);
}

// The code of slot `slot`'s thread in the test of `choice`.
std::vector<codegen::Instruction> thread_code(const litmus::VariationSpace& space,
                                              const std::vector<std::size_t>& choice, std::size_t slot,
                                              const codegen::CompileOptions& options = {}) {
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const codegen::CompiledTest c = codegen::compile(space.test(choice), *catalog.find("gfx900"), catalog,
                                                   codegen::MappingTable::builtin("gfx6-9"), options);
  return c.threads.at(static_cast<std::size_t>(space.slots()[slot].thread)).code;
}

TEST(CodeStrength, WaitsInvalidationsAndGlcOnLoadsOnly) {
  auto parse = [](const std::string& text) { return codegen::parse_assembly(text).instructions; };
  const auto plain = parse("global_load_dword v1, v0, s[2:3]\ns_endpgm\n");
  const auto acquire =
      parse("global_load_dword v1, v0, s[2:3] glc\ns_waitcnt vmcnt(0)\nbuffer_wbinvl1_vol\ns_endpgm\n");
  const auto wrong = parse("global_load_dword v1, v0, s[2:3] slc\ns_endpgm\n");
  const auto write_back = parse("buffer_wbl2\nglobal_load_dword v1, v0, s[2:3]\ns_endpgm\n");
  EXPECT_TRUE(code_at_least(acquire, plain));
  EXPECT_FALSE(code_at_least(plain, acquire));
  EXPECT_TRUE(code_at_least(plain, plain));
  EXPECT_FALSE(code_at_least(wrong, plain));
  EXPECT_FALSE(code_at_least(write_back, plain));
  const auto store = parse("global_store_dword v0, v1, s[2:3]\ns_endpgm\n");
  const auto store_glc = parse("global_store_dword v0, v1, s[2:3] glc\ns_endpgm\n");
  EXPECT_FALSE(code_at_least(store_glc, store));  // only loads
  // A wait for more counters, or to lower counts, is the weaker wait and another.
  const auto lgkm = parse("s_waitcnt lgkmcnt(0)\nglobal_load_dword v1, v0, s[2:3]\ns_endpgm\n");
  const auto both = parse("s_waitcnt vmcnt(0) lgkmcnt(0)\nglobal_load_dword v1, v0, s[2:3] glc\ns_endpgm\n");
  const auto vm1 = parse("s_waitcnt vmcnt(1)\nglobal_load_dword v1, v0, s[2:3]\ns_endpgm\n");
  const auto vm0 = parse("s_waitcnt vmcnt(0)\nglobal_load_dword v1, v0, s[2:3]\ns_endpgm\n");
  EXPECT_TRUE(code_at_least(both, lgkm));
  EXPECT_FALSE(code_at_least(lgkm, both));
  EXPECT_TRUE(code_at_least(vm0, vm1));
  EXPECT_FALSE(code_at_least(vm1, vm0));
  EXPECT_FALSE(code_at_least(vm0, lgkm));  // waits for something else
}

// Fact 3 of verify/bound.hpp, on whole slices and under each assumption it is used with:
// a program whose slot code is stronger (code_at_least) reaches no final state that the
// weaker one does not.
TEST(BoundReduction, SimulatorIsMonotoneInTheCode) {
  const litmus::GenerateOptions g =
      spec("family=MP/SB/LB/S/R/2+2W/CoRR/WRC/ISA2,scopes=wg+agent,placements=same-wg+diff-wg,segments=global+group");
  std::vector<std::pair<std::string, runner::SimOptions>> assumptions;
  for (const char* a : {"", "lds-sc", "one-channel", "l1-store-at-l2"}) {
    runner::SimOptions o;
    o.keep_traces = false;
    if (*a) {
      EXPECT_TRUE(runner::apply_assumption(a, o.hw));
    }
    assumptions.emplace_back(*a ? a : "default", o);
  }
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  std::size_t pairs = 0, strict = 0, sc_pairs = 0;
  // The table's acquire/release sequences, and its SC ones (--sc-orders: waits for more
  // counters before the access).
  for (const bool sc_orders : {false, true}) {
    codegen::CompileOptions compile;
    compile.sc_acquire_release = sc_orders;
    litmus::for_each_variation_space(g, [&](const litmus::VariationSpace& space) {
      const auto& slots = space.slots();
      std::mt19937 rng(static_cast<unsigned>(space.size()) + static_cast<unsigned>(slots.size()));
      for (int sample = 0; sample < (sc_orders ? 5 : 10); ++sample) {
        const std::vector<std::size_t> choice = test_support::random_choice(space, rng);
        const std::size_t i = std::uniform_int_distribution<std::size_t>(0, slots.size() - 1)(rng);
        const auto weak_code = thread_code(space, choice, i, compile);
        for (std::size_t j = 0; j < slots[i].choices.size(); ++j) {
          std::vector<std::size_t> strong = choice;
          strong[i] = j;
          const auto strong_code = thread_code(space, strong, i, compile);
          if (strong_code == weak_code || !code_at_least(strong_code, weak_code)) continue;
          const litmus::Test weak_test = observe_everything(space.test(choice));
          const litmus::Test strong_test = observe_everything(space.test(strong));
          for (const auto& [name, o] : assumptions) {
            const runner::SimResult w = runner::run_exhaustive(
                weak_test, codegen::compile(weak_test, *catalog.find("gfx900"), catalog, table, compile), o);
            const runner::SimResult st = runner::run_exhaustive(
                strong_test, codegen::compile(strong_test, *catalog.find("gfx900"), catalog, table, compile), o);
            ASSERT_FALSE(w.unknown || st.unknown);
            for (const auto& [outcome, count] : st.histogram)
              EXPECT_TRUE(w.histogram.count(outcome)) << strong_test.name << " reaches a final state that "
                                                      << weak_test.name << " does not (" << name << ")";
            ++pairs;
            sc_pairs += sc_orders ? 1 : 0;
            strict += st.histogram.size() < w.histogram.size() ? 1 : 0;
          }
        }
      }
    });
  }
  EXPECT_GT(pairs, 1000u);
  EXPECT_GT(sc_pairs, 300u);
  EXPECT_GT(strict, 50u);  // the strengthenings do remove final states
}

// Simulator options per assumption set, named by its assumptions joined with `+`
// ("default" for none), without traces and with room for 400,000 states.
std::vector<std::pair<std::string, runner::SimOptions>> assumption_sets(
    std::initializer_list<std::vector<const char*>> sets) {
  std::vector<std::pair<std::string, runner::SimOptions>> out;
  for (const std::vector<const char*>& names : sets) {
    runner::SimOptions o;
    o.keep_traces = false;
    o.max_states = 400'000;
    std::string name = "default";
    for (const char* a : names) {
      EXPECT_TRUE(runner::apply_assumption(a, o.hw));
      name = name == "default" ? a : name + "+" + a;
    }
    out.emplace_back(name, o);
  }
  return out;
}

// `test` compiled for gfx900 with the shipped gfx6-9 table. The table states no refusal on
// gfx900: a test it cannot compile fails the calling test and gives nothing.
std::optional<codegen::CompiledTest> compile_for_gfx900(const litmus::Test& test,
                                                        const codegen::CompileOptions& compile) {
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  static const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  test_support::Compiler compiler;
  std::optional<codegen::CompiledTest> compiled =
      compiler.compile(test, *catalog.find("gfx900"), catalog, table, compile);
  EXPECT_EQ(compiler.dropped(), 0u) << test.name;
  return compiled;
}

// `check` on every library test (the table's default sequences), then on `samples` random
// tests of each space of `slices` under both sequence sets (acquire/release and seq_cst).
void for_library_and_sampled_tests(
    std::initializer_list<const char*> slices, int samples,
    const std::function<void(const litmus::Test&, const codegen::CompileOptions&)>& check) {
  for (const auto& file : litmus::collect_litmus_files({std::string(HSALIT_SOURCE_DIR) + "/litmus/library"})) {
    const litmus::ParseResult parsed = litmus::parse_litmus_file(file);
    ASSERT_TRUE(parsed.ok()) << file;
    check(*parsed.test, {});
  }
  for (const bool sc_orders : {false, true}) {
    codegen::CompileOptions compile;
    compile.sc_acquire_release = sc_orders;
    for (const char* slice : slices)
      litmus::for_each_variation_space(spec(slice), [&](const litmus::VariationSpace& space) {
        std::mt19937 rng(static_cast<unsigned>(space.slots().size()));
        for (int sample = 0; sample < samples; ++sample)
          check(space.test(test_support::random_choice(space, rng)), compile);
      });
  }
}

// Fact 8 of verify/bound.hpp: wherever runner::keeps_program_order says a program's code
// keeps program order, exhaustive search reaches only final states of SC interleavings
// (every register and location observed). On every library test and on slices of generated
// tests in one work-group (global, group and both segments) and across work-groups, with
// fences, dependencies and guards, under each assumption set (the remedies of
// docs/mappings.md among them), with the table's acquire/release and SC sequences; it says
// so for many of them, and not for all.
TEST(BoundReduction, CodeKeepingProgramOrderReachesOnlyScFinalStates) {
  const auto assumptions =
      assumption_sets({{}, {"lds-sc"}, {"one-channel"}, {"l1-store-at-l2"}, {"one-channel", "l1-store-at-l2"}});
  std::size_t kept = 0, not_kept = 0;
  auto check = [&](const litmus::Test& test, const codegen::CompileOptions& compile) {
    const litmus::Test observed = observe_everything(test);
    const std::optional<codegen::CompiledTest> compiled = compile_for_gfx900(observed, compile);
    if (!compiled) return;
    const codegen::CompiledTest& code = *compiled;
    for (const auto& [name, o] : assumptions) {
      if (!runner::keeps_program_order(observed, code, o)) {
        ++not_kept;
        continue;
      }
      const runner::SimResult r = runner::run_exhaustive(observed, code, o);
      const std::optional<bool> sc = test_support::only_sc_final_states(observed, r);
      if (r.unknown || !sc) continue;
      EXPECT_TRUE(*sc) << observed.name << " (" << name << "): its code keeps program order, yet it reaches a final "
                       << "state that no SC interleaving reaches";
      ++kept;
    }
  };
  for_library_and_sampled_tests(
      {"family=MP/SB/LB/WRC/ISA2/IRIW/CoRR,orders=rlx+scacq+screl,scopes=wg+agent,fences=scar,"
       "deps=addr+data+guard,placements=same-wg+diff-wg,segments=global+group,max=1000000000",
       "threads=3,accesses=3,max=1000000000,shard=7/20000"},
      3, check);
  EXPECT_GT(kept, 500u);
  EXPECT_GT(not_kept, 500u);
}

// The machine side of fact 9 (runner::one_cu_unordered_pairs): where every wave runs on one
// CU, exhaustive search reaches exactly the final states of the interleavings that keep
// each thread's program order but for the pairs it names (an LDS access and a later vector
// memory access that no wait orders), every register and location observed. On the
// library's one-work-group tests and on random tests of one-work-group slices with global
// and group locations, fences and both sequence sets, under every assumption set that keeps
// one L2; many of them have such pairs and reach a final state no SC interleaving reaches.
TEST(BoundReduction, OneCuReachesTheFinalStatesOfTheOrderItKeeps) {
  const auto assumptions = assumption_sets(
      {{}, {"lds-sc"}, {"one-channel"}, {"l1-store-at-l2"}, {"no-l1-fill"}, {"one-channel", "l1-store-at-l2"}});
  std::size_t compared = 0, with_pairs = 0, beyond_sc = 0;
  auto check = [&](const litmus::Test& test, const codegen::CompileOptions& compile) {
    if (!test.scopes.one_instance(litmus::Scope::WorkGroup)) return;
    const litmus::Test observed = observe_everything(test);
    const std::optional<codegen::CompiledTest> compiled = compile_for_gfx900(observed, compile);
    if (!compiled) return;
    const codegen::CompiledTest& code = *compiled;
    const runner::LoweredProgram lowered = runner::lower_program(observed, code);
    for (const auto& [name, o] : assumptions) {
      std::vector<std::vector<runner::UnorderedPair>> unordered;
      for (std::size_t t = 0; t < observed.threads.size(); ++t) {
        auto pairs = runner::one_cu_unordered_pairs(observed, lowered, static_cast<int>(t), o);
        if (!pairs) return;
        unordered.push_back(std::move(*pairs));
      }
      const runner::SimResult r = runner::run_exhaustive(observed, code, o);
      const auto kept = test_support::kept_order_final_states(observed, unordered, r.observed);
      const std::optional<bool> sc = test_support::only_sc_final_states(observed, r);
      if (r.unknown || !kept || !sc) continue;
      std::set<model::Outcome> reached;
      for (const auto& [outcome, count] : r.histogram)
        reached.insert(model::Outcome{std::vector<model::Value>(outcome.values.begin(), outcome.values.end())});
      EXPECT_EQ(reached, *kept) << observed.name << " (" << name << ", "
                                << (compile.sc_acquire_release ? "sc" : "acq/rel") << "):\n"
                                << test_support::code_text(code);
      ++compared;
      with_pairs += std::any_of(unordered.begin(), unordered.end(), [](const auto& u) { return !u.empty(); });
      beyond_sc += *sc ? 0 : 1;
    }
  };
  for_library_and_sampled_tests({"family=MP/SB/LB/WRC/ISA2/IRIW/R/S/2+2W,fences=scar+scacq+screl,placements=same-wg,"
                                 "segments=global+group,max=1000000000",
                                 "threads=3,accesses=3,placements=same-wg,max=1000000000,shard=11/4000"},
                                2, check);
  EXPECT_GT(compared, 1000u);
  EXPECT_GT(with_pairs, 300u);
  EXPECT_GT(beyond_sc, 100u);
}

// runner::several_cus_unordered_pairs: where waves may run on several CUs (gfx1030 and gfx1200
// in WGP mode, gfx90a and gfx942 in tgsplit mode), every final state the search reaches is one
// of an interleaving that keeps each pair of a thread's accesses the reading does not name
// (the machine's final states lie within those of the orders it allows; unlike one CU, not
// every such order is a run). On the library's tests and random tests of slices in one
// work-group and across work-groups, with fences, global and group locations, under
// `l1-store-at-l2` with and without `one-channel` and `lds-sc`, with the shipped tables and
// with the work-group acquire's L1 invalidation and the release's waits removed, each thread's
// pairs read with the locations the others write (other_writers) and, where that names fewer
// pairs, without; it fails when the pairs of a load that may hit its L1 or GL1 are left out,
// or when a load's line is taken to hold the L2's value where another CU or work-group writes
// the location.
TEST(BoundReduction, SplitWorkGroupReachesOnlyFinalStatesOfTheOrderItKeeps) {
  const auto assumptions = assumption_sets({{"l1-store-at-l2"},
                                            {"one-channel", "l1-store-at-l2"},
                                            {"lds-sc", "l1-store-at-l2"},
                                            {"lds-sc", "one-channel", "l1-store-at-l2"}});
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  std::size_t compared = 0, with_pairs = 0, beyond_sc = 0, fewer_pairs = 0, across_groups = 0;
  test_support::Compiler compiler;
  for (const auto& [target, flavour] : {std::pair{"gfx1030", "hsa"}, std::pair{"gfx1200", "hsa"},
                                        std::pair{"gfx90a", "tgsplit"}, std::pair{"gfx942", "tgsplit"}}) {
    SCOPED_TRACE(std::string(target) + " " + flavour);
    const codegen::Target& t = *catalog.find(target);
    // The shipped table, and each mutant without an invalidation of a work-group acquire.
    std::vector<codegen::MappingTable> tables{codegen::MappingTable::builtin(t.mapping)};
    std::vector<std::string> rows;
    for (const codegen::MappingRow& row : tables.front().rows())
      if ((row.id.find("acquire") != std::string::npos || row.id.find("seq_cst") != std::string::npos) &&
          (row.id.find("workgroup") != std::string::npos || row.id.find(".wg") != std::string::npos))
        rows.push_back(row.id);
    for (const Mutant& m : mutants(tables.front(), rows, flavour))
      if (m.change.starts_with("remove element") && m.change.find("inv") != std::string::npos)
        tables.push_back(codegen::MappingTable::from_json(m.table, "mutant"));
    EXPECT_GT(tables.size(), 1u);
    for (const codegen::MappingTable& table : tables) {
      auto check = [&](const litmus::Test& test, const codegen::CompileOptions& given) {
        const litmus::Test observed = observe_everything(test);
        codegen::CompileOptions compile = given;
        compile.flavour = flavour;
        const std::optional<codegen::CompiledTest> compiled = compiler.compile(observed, t, catalog, table, compile);
        if (!compiled) return;  // tgsplit refuses group locations (counted), or a failure
        const codegen::CompiledTest& code = *compiled;
        const runner::LoweredProgram lowered = runner::lower_program(observed, code);
        ASSERT_TRUE(runner::may_split_workgroups(lowered));
        for (const auto& [name, o] : assumptions) {
          std::vector<std::vector<runner::UnorderedPair>> unordered;
          bool fewer = false;
          for (std::size_t th = 0; th < observed.threads.size(); ++th) {
            auto pairs = runner::several_cus_unordered_pairs(observed, lowered, static_cast<int>(th), o,
                                                             test_support::other_writers(observed, th));
            const auto every = runner::several_cus_unordered_pairs(observed, lowered, static_cast<int>(th), o);
            if (!pairs || !every) return;
            fewer = fewer || pairs->size() < every->size();
            unordered.push_back(std::move(*pairs));
          }
          runner::SimOptions limited = o;
          limited.max_states = 2'000'000;
          const runner::SimResult r = runner::run_exhaustive(observed, code, limited);
          const auto kept = test_support::kept_order_final_states(observed, unordered, r.observed);
          const std::optional<bool> sc = test_support::only_sc_final_states(observed, r);
          if (r.unknown || !kept || !sc) continue;
          for (const auto& [outcome, count] : r.histogram) {
            const model::Outcome reached{std::vector<model::Value>(outcome.values.begin(), outcome.values.end())};
            EXPECT_TRUE(kept->count(reached))
                << observed.name << " (" << name << ", " << (compile.sc_acquire_release ? "sc" : "acq/rel")
                << "): a final state beyond the orders the pairs allow\n"
                << test_support::code_text(code);
          }
          ++compared;
          with_pairs += std::any_of(unordered.begin(), unordered.end(), [](const auto& u) { return !u.empty(); });
          beyond_sc += *sc ? 0 : 1;
          fewer_pairs += fewer;
          across_groups += !observed.scopes.one_instance(litmus::Scope::WorkGroup);
        }
      };
      for_library_and_sampled_tests({"family=MP/SB/LB/R/S/2+2W/CoRR,fences=scar+scacq+screl,placements=same-wg,"
                                     "segments=global+group,max=1000000000",
                                     "family=MP/SB/CoRR/WRC,orders=rlx+scacq+screl,scopes=wg+agent,fences=scar,"
                                     "placements=diff-wg,segments=global,max=1000000000"},
                                    1, check);
      // Message passing without a branch: the data load after the acquire may hit a line filled
      // before it, unless the acquire's invalidation follows its wait.
      for (const std::string& reader :
           {std::string(" r[atomic,scacq,wg] r0 y ;\n w[atomic,screl,wg] y 1 | r[] r1 x ;\n"),
            std::string(" r[atomic,rlx,wg] r0 y ;\n w[atomic,screl,wg] y 1 | f[scacq,wg] ;\n"
                        " | r[] r1 x ;\n")}) {
        const litmus::ParseResult parsed =
            litmus::parse_litmus("LISA MP\n{ x = 0; y = 0; }\n P0 | P1 ;\n w[] x 1 |" + reader +
                                 "scopes: (agent (wg 0 1))\nexists (1:r0=1 /\\ 1:r1=0)\n");
        ASSERT_TRUE(parsed.ok()) << reader;
        check(*parsed.test, {});
      }
    }
  }
  EXPECT_GT(compared, 500u);
  EXPECT_GT(with_pairs, 200u);
  EXPECT_GT(beyond_sc, 20u);
  EXPECT_GT(fewer_pairs, 50u);
  EXPECT_GT(across_groups, 100u);
  std::printf("compared %zu, with pairs %zu, beyond SC %zu, fewer pairs %zu, across work-groups %zu\n", compared,
              with_pairs, beyond_sc, fewer_pairs, across_groups);
  // Only tgsplit's tests with group locations are refused, and fewer than are compiled.
  EXPECT_EQ(compiler.dropped(), compiler.dropped("tgsplit allocates no LDS"));
  EXPECT_LT(compiler.dropped(), compiler.compiled());
}

// Facts 9 and 10 of verify/bound.hpp, on `slices`: a space `decided` counts holds no
// counterexample. Each space they decide is searched as well (check_unsearched_spaces, which
// throws at a counterexample or an unknown test there), under both sequence sets, under the
// default assumptions and the remedies, with the shipped table and, under the remedies and
// the SC sequences, with every mutant of the rows the slices use. Each configuration decides
// more than `min_decided` spaces, the shipped table has counterexamples under the default
// assumptions (its findings), and at least `min_killed` mutants leave more spaces to the
// search and are killed there.
void expect_unsearched_spaces_hold_no_counterexample(const std::vector<litmus::GenerateOptions>& slices,
                                                     std::size_t BoundStatistics::*decided, std::size_t min_decided,
                                                     std::size_t min_killed) {
  const codegen::MappingTable shipped = codegen::MappingTable::builtin("gfx6-9");
  BoundOptions checked;
  checked.check_unsearched_spaces = true;
  struct Tally {
    std::size_t decided = 0, counterexamples = 0;
  };
  auto verify_all = [&](const codegen::MappingTable& table, bool sc_orders, bool remedies) {
    Tally tally;
    for (const litmus::GenerateOptions& g : slices) {
      const BoundVerification v = verify_bound(g, table, sc_options(sc_orders, remedies), checked);
      tally.decided += v.statistics.*decided;
      tally.counterexamples += v.report.count(TestStatus::Counterexample);
    }
    return tally;
  };
  std::set<std::string> rows;
  for (const litmus::GenerateOptions& g : slices) {
    const BoundVerification v = verify_bound(g, shipped, sc_options(true, true), {});
    rows.insert(v.rows_used.begin(), v.rows_used.end());
  }
  for (const bool sc_orders : {false, true})
    for (const bool remedies : {false, true}) {
      SCOPED_TRACE(std::string(sc_orders ? "sc" : "acq/rel") + (remedies ? " remedies" : " default"));
      const Tally table = verify_all(shipped, sc_orders, remedies);
      EXPECT_GT(table.decided, min_decided);
      if (!remedies) {
        EXPECT_GT(table.counterexamples, 0u);  // the findings
      }
      if (!sc_orders || !remedies) continue;
      std::size_t fewer = 0;
      for (const Mutant& m : mutants(shipped, std::vector<std::string>(rows.begin(), rows.end()))) {
        SCOPED_TRACE(m.row + ": " + m.change);
        const Tally mutant = verify_all(codegen::MappingTable::from_json(m.table, "mutant"), sc_orders, remedies);
        if (mutant.decided < table.decided && mutant.counterexamples > table.counterexamples) ++fewer;
      }
      EXPECT_GE(fewer, min_killed);
    }
}

// Fact 9, on one-work-group slices with global and group locations and fences. Findings 1
// and 3 (acquire/release sequences; a release store, a later store and an acquire fence) and
// the mutants that drop an ordering wait lie in spaces it leaves to the search, which finds
// their counterexamples there. Leaving out any one of its six rules makes it decide a space
// that holds a counterexample.
TEST(BoundReduction, PreservedOrderDecidesOnlySpacesWithoutCounterexamples) {
  expect_unsearched_spaces_hold_no_counterexample(
      {spec("threads=2,accesses=2,placements=same-wg,max=1000000000"),
       spec("family=MP/SB/LB/WRC/ISA2/R/S/2+2W,orders=rlx+scacq+screl,scopes=wave+wg,fences=scar+scacq+screl,"
            "placements=same-wg,max=1000000000")},
      &BoundStatistics::decided_by_preserved_order, 100, 4);
}

// Fact 10, on slices across work-groups and agents with fences. Finding 2 (under the default
// assumptions: loads through an L1 that a store reaches early) and the mutants that clear
// the `glc` bit of an agent-scope load lie in spaces it leaves to the search, which finds
// their counterexamples there. (The mutants that drop a wait or an invalidation are sound
// here under the remedies: without a guard, a load that may read a stale L1 line of a
// location another work-group writes races.) Taking a choice of the scope the race needs as
// racy, or the locations another work-group writes as written by none, makes it decide a
// space that holds a counterexample.
TEST(BoundReduction, RaceFreeInOrderDecidesOnlySpacesWithoutCounterexamples) {
  expect_unsearched_spaces_hold_no_counterexample(
      {spec("threads=2,accesses=2,placements=diff-wg+diff-agent,max=1000000000"),
       spec("family=MP/SB/LB/WRC/ISA2/IRIW/R/S/2+2W/CoRR,orders=rlx+scacq+screl,scopes=wg+agent,fences=scar,"
            "placements=diff-wg,max=1000000000")},
      &BoundStatistics::decided_race_free_in_order, 40, 2);
}

// Facts 9 and 10 where a work-group may split over CUs (GFX10-GFX12 WGP mode, tgsplit), each
// with the other off. Fact 9 reads the pairs runner::several_cus_unordered_pairs names.
// Fact 10: a thread's own work-group may have a wave on another CU, so the locations the other
// threads of its work-group write count as written on another CU, and the spaces in one
// work-group are read this way too. Under the remedies and --sc-orders, with the shipped
// table and every mutant of the rows its slices use, a space either decides holds no
// counterexample (each decided space is searched as well); some mutants are killed in the
// spaces left to the search. Fact 9 also reads spaces across work-groups there (a slice of
// them is added to its runs). Fact 10 marking only other work-groups' writes, or fact 9 reading
// a load that may hit its L1 as performed in order, makes it decide a space that holds a
// counterexample.
TEST(BoundReduction, FactsNineAndTenKnowSplitWorkGroups) {
  const std::vector<litmus::GenerateOptions> slices = {
      spec("threads=2,accesses=2,placements=same-wg,max=1000000000"),
      spec("family=MP/SB/LB/CoRR/R/S,orders=rlx+scacq+screl,scopes=wg+agent,placements=same-wg,max=1000000000")};
  const litmus::GenerateOptions across_groups =
      spec("family=MP/SB/CoRR/WRC,orders=rlx+scacq+screl,scopes=wg+agent,placements=diff-wg,max=1000000000");
  for (const auto& [target, table_name, flavour, segments] :
       {std::tuple{"gfx1030", "gfx10-11", "hsa", ""}, std::tuple{"gfx90a", "gfx90a", "tgsplit", "global"}})
    for (const bool fact9 : {true, false}) {
      SCOPED_TRACE(std::string(target) + " " + flavour + (fact9 ? ", fact 9" : ", fact 10"));
      BoundOptions checked;
      checked.check_unsearched_spaces = true;
      (fact9 ? checked.race_free_in_order : checked.preserved_order) = false;
      VerifyOptions o = sc_options(true, true);
      o.target = target;
      o.compile.flavour = flavour;
      const codegen::MappingTable shipped = codegen::MappingTable::builtin(table_name);
      auto verify_all = [&](const codegen::MappingTable& table, std::set<std::string>* rows) {
        std::pair<std::size_t, std::size_t> decided_and_counterexamples{0, 0};
        std::vector<litmus::GenerateOptions> read = slices;
        if (fact9) read.push_back(across_groups);
        for (litmus::GenerateOptions g : read) {
          if (*segments) g.segments = {litmus::Segment::Global};
          const BoundVerification v = verify_bound(g, table, o, checked);
          decided_and_counterexamples.first +=
              fact9 ? v.statistics.decided_by_preserved_order : v.statistics.decided_race_free_in_order;
          decided_and_counterexamples.second += v.report.count(TestStatus::Counterexample);
          if (rows) rows->insert(v.rows_used.begin(), v.rows_used.end());
        }
        return decided_and_counterexamples;
      };
      std::set<std::string> rows;
      const auto [decided, counterexamples] = verify_all(shipped, &rows);
      EXPECT_GT(decided, 20u);
      EXPECT_EQ(counterexamples, 0u);
      std::size_t killed = 0;
      for (const Mutant& m : mutants(shipped, std::vector<std::string>(rows.begin(), rows.end()), flavour)) {
        SCOPED_TRACE(m.row + ": " + m.change);
        killed += verify_all(codegen::MappingTable::from_json(m.table, "mutant"), nullptr).second > 0;
      }
      EXPECT_GT(killed, 0u);
    }
}

// How many weakest-code simulations a bound's search asked for, counting those left out.
std::size_t weakest_code_tries(const BoundStatistics& s) { return s.weaker_code_simulations + s.weaker_code_left_out; }

// What a search spent on its products: tests checked one by one and weakest-code simulations.
std::size_t search_work(const BoundStatistics& s) { return s.checked + weakest_code_tries(s); }

// Every product a search accounted for: reached and verified, or decided by a pruning.
std::size_t products_accounted(const BoundStatistics& s) {
  return s.classes + s.racy_below_racy + s.decided_below_weaker + s.decided_by_narrower_scope;
}

// `options` with every space searched: facts 9 and 10 decide many spaces before their search
// (BoundOptions::preserved_order, race_free_in_order), and the tests of the search's own
// reductions use such spaces; facts 9 and 10 have tests of their own.
BoundOptions searched(BoundOptions options) {
  options.preserved_order = false;
  options.race_free_in_order = false;
  return options;
}

// Each slice searched with the default options and with `without`, under the default
// assumptions (finding 2 for the slices not sound by default) and under the remedies:
// verify_with_and_without's checks, every product accounted for once by both, and `each`
// for the test's own checks (`sound`: the verdict expected there).
void for_each_slice_with_and_without(
    std::initializer_list<VerdictSlice> slices, const BoundOptions& without,
    const std::function<void(const BoundVerification& with, const BoundVerification& plain, const VerdictSlice& slice,
                             bool sound)>& each) {
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  for (const VerdictSlice& slice : slices)
    for (bool remedies : {false, true}) {
      SCOPED_TRACE(std::string(slice.spec) + (remedies ? " remedies" : " default"));
      const bool sound = remedies || slice.sound_by_default;
      const auto [with, plain] = verify_with_and_without(spec(slice.spec), table, sc_options(true, remedies),
                                                         searched({}), searched(without), sound);
      EXPECT_EQ(products_accounted(with.statistics), products_accounted(plain.statistics));
      each(with, plain, slice, sound);
    }
}

// Whether the weakest-code simulations of some depth kept failing and were left out.
bool expect_code_dominance_agrees(const codegen::MappingTable& table, const litmus::GenerateOptions& g, bool remedies) {
  BoundOptions without;
  without.code_dominance = false;
  const auto [pruned, plain] =
      verify_with_and_without(g, table, sc_options(true, remedies), searched({}), searched(without), remedies);
  EXPECT_GT(pruned.statistics.decided_below_weaker, 0u);
  EXPECT_LT(pruned.statistics.checked, plain.statistics.checked);
  EXPECT_EQ(weakest_code_tries(plain.statistics), 0u);
  return pruned.statistics.weaker_code_left_out > 0;
}

// Pruning by weaker code against the classes alone, with and without counterexamples, at
// three threads (finding 2 under the default assumptions; sound once its causes are off).
// Under the default assumptions the weaker programs of some depths keep failing and are
// left out (with the remedies they decide at once).
TEST(BoundReduction, CodeDominanceAgreesWithTheClassesAlone) {
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  bool some_left_out = false;
  for (const char* slice :
       {"family=ISA2/MP,orders=rlx+scacq+screl,scopes=wg+system,placements=same-wg+diff-wg,segments=global",
        "family=ISA2/WRC,orders=rlx+scacq+screl,scopes=wg+agent,placements=diff-wg,segments=global,fences=scar"})
    for (bool remedies : {false, true}) {
      SCOPED_TRACE(slice);
      const bool left_out = expect_code_dominance_agrees(table, spec(slice), remedies);
      if (remedies) {
        EXPECT_FALSE(left_out);
      }
      some_left_out = some_left_out || left_out;
    }
  EXPECT_TRUE(some_left_out);

  // Not used where lines cannot be evicted at any time.
  VerifyOptions no_fill = quick_options();
  EXPECT_TRUE(runner::apply_assumption("no-l1-fill", no_fill.sim.hw));
  EXPECT_EQ(verify_bound(spec("family=MP,scopes=agent"), table, no_fill, {}).statistics.decided_below_weaker, 0u);
}

// Weakest programs built from the live code classes against those built from every class,
// with counterexamples (finding 2 under the default assumptions) and without, across
// work-groups (where plain loads race, so the weakest live load has `glc`), in one
// work-group (where every class is live) and in both. The same verdict, each counterexample
// one the plainer search finds, and across work-groups more subtrees decided at once.
TEST(BoundReduction, LiveClassesAgreeWithEveryClass) {
  BoundOptions every_class;
  every_class.live_classes = false;
  for_each_slice_with_and_without(
      {VerdictSlice{"family=ISA2/WRC/MP/CoRR,orders=rlx+scacq+screl,scopes=wg+agent,placements=diff-wg,segments=global",
                    true},
       VerdictSlice{"family=ISA2/MP/SB,orders=na+rlx+scacq+screl,scopes=wg+system,placements=same-wg+diff-wg", false}},
      every_class, [](const BoundVerification& live, const BoundVerification& plain, const VerdictSlice&, bool sound) {
        EXPECT_EQ(live.statistics.spaces, plain.statistics.spaces);
        EXPECT_LE(live.statistics.checked, plain.statistics.checked);
        EXPECT_LE(weakest_code_tries(live.statistics), weakest_code_tries(plain.statistics));
        if (sound) {
          EXPECT_LT(weakest_code_tries(live.statistics), weakest_code_tries(plain.statistics));
        }
      });
}

namespace {

// Everything a bound's search counts but the compilations that found its code classes.
void expect_same_search(const BoundVerification& a, const BoundVerification& b) {
  EXPECT_EQ(counterexample_names(a.report), counterexample_names(b.report));
  EXPECT_EQ(a.rows_used, b.rows_used);
  const BoundStatistics& x = a.statistics;
  const BoundStatistics& y = b.statistics;
  EXPECT_EQ(x.spaces, y.spaces);
  EXPECT_EQ(x.classes, y.classes);
  EXPECT_EQ(x.checked, y.checked);
  EXPECT_EQ(x.symmetric, y.symmetric);
  EXPECT_EQ(x.racy_below_racy, y.racy_below_racy);
  EXPECT_EQ(x.decided_below_weaker, y.decided_below_weaker);
  EXPECT_EQ(x.decided_by_narrower_scope, y.decided_by_narrower_scope);
  EXPECT_EQ(x.weaker_code_simulations, y.weaker_code_simulations);
  EXPECT_EQ(x.weaker_code_left_out, y.weaker_code_left_out);
  EXPECT_EQ(x.critical_branchings, y.critical_branchings);
  EXPECT_LT(x.compiles, y.compiles);
}

}  // namespace

// Code classes found once per slot context (the slot's thread with its locations renamed,
// their segments, and its choices) and shared across shapes, against classes found per
// shape: the same search to the last count, with counterexamples (the default assumptions:
// finding 2) and without, with fences, dependencies and group locations, and fewer
// compilations, since the families' threads repeat across cycles; on every shipped table's
// target.
TEST(BoundReduction, SharedSlotClassesAgreeWithClassesPerShape) {
  BoundOptions per_shape;
  per_shape.shared_slot_classes = false;
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  for (const VerdictSlice& slice :
       {VerdictSlice{"family=MP/SB/LB/2+2W/S/R,orders=rlx+scacq+screl,scopes=wg+agent,fences=scar,deps=addr+data,"
                     "placements=same-wg+diff-wg,segments=global",
                     false},
        VerdictSlice{"threads=2,accesses=2,edges=Pod+com,orders=rlx+scacq+screl,scopes=wg+agent,placements=same-wg,"
                     "segments=global+group",
                     true}})
    for (bool remedies : {false, true}) {
      SCOPED_TRACE(std::string(slice.spec) + (remedies ? " remedies" : " default"));
      const auto [shared, plain] = verify_with_and_without(spec(slice.spec), table, sc_options(true, remedies), {},
                                                           per_shape, remedies || slice.sound_by_default);
      expect_same_search(shared, plain);
    }
  // The other tables on their targets, whose compilers place locations in other forms
  // (buffer, flat, scope bits), with group locations and dependencies.
  for (const auto& [target, name] : {std::pair<const char*, const char*>{"gfx90a", "gfx90a"},
                                     {"gfx942", "gfx940"},
                                     {"gfx950", "gfx950"},
                                     {"gfx900", "hsail-finalizer"},
                                     {"gfx1030", "gfx10-11"},
                                     {"gfx1200", "gfx12"}}) {
    SCOPED_TRACE(std::string(target) + " " + name);
    VerifyOptions o = sc_options(true, false);
    o.target = target;
    const litmus::GenerateOptions g = spec(
        "family=MP/SB/S/LB,orders=rlx+scacq+screl,scopes=wg+agent,deps=addr,placements=same-wg+diff-wg,"
        "segments=global+group");
    const codegen::MappingTable other = codegen::MappingTable::builtin(name);
    expect_same_search(verify_bound(g, other, o, {}), verify_bound(g, other, o, per_shape));
  }
}

// Critical slots first against the static slot order, with counterexamples (the default
// assumptions: finding 2) and without, across work-groups and in one work-group with global
// and group locations, where the weakest code does not wait between the LDS and the vector
// memory path. The same verdict and the same counterexamples (a race-free test is never
// pruned unless sound, whatever the order), every product accounted for once, and fewer
// weakest-code simulations wherever a critical slot was taken.
TEST(BoundReduction, CriticalSlotsFirstAgreeWithTheStaticOrder) {
  BoundOptions static_order;
  static_order.critical_slots_first = false;
  for_each_slice_with_and_without(
      {VerdictSlice{"family=ISA2/WRC/MP,orders=rlx+scacq+screl,scopes=wg+agent,placements=diff-wg,segments=global",
                    true},
       VerdictSlice{"family=ISA2/WRC/MP/SB,orders=rlx+scacq+screl+scar,scopes=wg+agent,placements=same-wg", true},
       VerdictSlice{"family=ISA2/MP/SB,orders=na+rlx+scacq+screl,scopes=wg+system,placements=same-wg+diff-wg", false}},
      static_order,
      [](const BoundVerification& critical, const BoundVerification& plain, const VerdictSlice& slice, bool) {
        EXPECT_EQ(counterexample_names(critical.report), counterexample_names(plain.report));
        EXPECT_EQ(plain.statistics.critical_branchings, 0u);
        if (critical.statistics.critical_branchings > 0) {
          EXPECT_LE(critical.statistics.checked, plain.statistics.checked);
          EXPECT_LT(weakest_code_tries(critical.statistics), weakest_code_tries(plain.statistics));
        }
        if (std::string_view(slice.spec).ends_with("placements=same-wg")) {
          EXPECT_GT(critical.statistics.critical_branchings, 0u);
        }
      });
}

// Pairs of slots scored where no slot alone allows a forbidden final state of the weakest
// code, against the search that then keeps the static order, with counterexamples (the
// default assumptions: finding 2) and without, in one work-group with global and group
// locations (where a thread's LDS and vector memory accesses reorder in pairs) and across
// work-groups. The same verdict, each counterexample one the other search finds, every
// product accounted for once, and fewer weakest-code simulations in all.
TEST(BoundReduction, CriticalPairsAgreeWithTheStaticOrderThere) {
  BoundOptions singles;
  singles.critical_pairs = false;
  std::size_t work_pairs = 0, work_plain = 0;
  for_each_slice_with_and_without(
      {VerdictSlice{"threads=2,accesses=3,orders=rlx+scacq+screl+scar,scopes=wg+agent,placements=same-wg,"
                    "max=1000000000,shard=1/40",
                    true},
       VerdictSlice{"cycle=PosWW PosWR Rmw Rfe Rmw PosWR PodRR Rmw Rfe Rmw PodWR Rmw PosWR Rmw Wse,"
                    "placements=same-wg,max=1000000000",
                    true},
       VerdictSlice{"family=ISA2/MP/SB,orders=na+rlx+scacq+screl,scopes=wg+system,placements=same-wg+diff-wg", false}},
      singles, [&](const BoundVerification& pairs, const BoundVerification& plain, const VerdictSlice&, bool) {
        work_pairs += search_work(pairs.statistics);
        work_plain += search_work(plain.statistics);
      });
  EXPECT_LT(work_pairs, work_plain);
}

// The weakest code tried again below a slot fixed at its upper choice, against the search
// that goes on slot by slot there, with counterexamples (the default assumptions: finding 2)
// and without, across work-groups and in one work-group with global and group locations.
// The same verdict, each counterexample one the other search finds, every product
// accounted for once, no more tests checked, and fewer tests checked and simulated in all.
TEST(BoundReduction, WeakestCodeBelowTheUpperChoiceAgreesWithoutIt) {
  BoundOptions slot_by_slot;
  slot_by_slot.weakest_code_below_upper_choice = false;
  std::size_t work_again = 0, work_plain = 0;
  for_each_slice_with_and_without(
      {VerdictSlice{"family=ISA2/WRC/MP,orders=rlx+scacq+screl,scopes=wg+agent,placements=diff-wg,segments=global",
                    true},
       VerdictSlice{"family=ISA2/WRC/MP/SB,orders=rlx+scacq+screl+scar,scopes=wg+agent,placements=same-wg", true},
       VerdictSlice{"family=ISA2/MP/SB,orders=na+rlx+scacq+screl,scopes=wg+system,placements=same-wg+diff-wg", false}},
      slot_by_slot, [&](const BoundVerification& again, const BoundVerification& plain, const VerdictSlice&, bool) {
        EXPECT_LE(again.statistics.checked, plain.statistics.checked);
        work_again += search_work(again.statistics);
        work_plain += search_work(plain.statistics);
      });
  EXPECT_LT(work_again, work_plain);
}

// The statistics line without its time, nor how many weakest programs were judged by their
// code keeping program order rather than simulated (the same search either way).
std::string statistics_without_time(BoundStatistics s) {
  s.weaker_code_in_program_order = 0;
  const std::string line = render_statistics(s);
  return line.substr(0, line.rfind(';'));
}

// Each slice searched with `with` and `without` (options that change what the search costs,
// not what it decides), under the default assumptions and the remedies: the same verdicts,
// counterexamples and statistics to the last count.
void expect_the_same_searches(std::initializer_list<const char*> slices, const BoundOptions& with,
                              const BoundOptions& without) {
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  for (const char* slice : slices)
    for (bool remedies : {false, true}) {
      SCOPED_TRACE(std::string(slice) + (remedies ? " remedies" : " default"));
      const VerifyOptions o = sc_options(true, remedies);
      const BoundVerification a = verify_bound(spec(slice), table, o, searched(with));
      const BoundVerification b = verify_bound(spec(slice), table, o, searched(without));
      EXPECT_EQ(a.report.sound(), b.report.sound());
      EXPECT_EQ(counterexample_names(a.report), counterexample_names(b.report));
      EXPECT_EQ(statistics_without_time(a.statistics), statistics_without_time(b.statistics));
    }
}

// A BoundOptions::on_space that adds `count(cost)` of each space verified to `sum`.
template <typename Count>
std::function<void(const SpaceCost&)> summing(std::size_t& sum, Count count) {
  return [&sum, count](const SpaceCost& c) { sum += count(c); };
}

// Weakest programs' runs kept by the code classes of their choices against runs kept by the
// choices: the same searches to the last count, and each repeat's own code is the kept run's
// and each program's threads kept by their slots' classes are its own code
// (check_weakest_runs), on slices with fences, every dependency and guards, group locations
// and several placements; with the classes, several times the repeats answered without
// compiling.
TEST(BoundReduction, WeakestRunsByClassAgreeWithRunsByChoices) {
  std::size_t kept_by_class = 0, kept_by_choices = 0;
  auto kept = [](const SpaceCost& c) { return c.kept_weakest; };
  BoundOptions by_class, by_choices;
  by_class.on_space = summing(kept_by_class, kept);
  by_class.check_weakest_runs = true;
  by_choices.on_space = summing(kept_by_choices, kept);
  by_choices.weakest_runs_by_class = false;
  expect_the_same_searches({"family=ISA2/WRC/MP/SB/CoRR,orders=rlx+scacq+screl+scar,scopes=wg+agent,"
                            "placements=same-wg+diff-wg,segments=global+group",
                            "family=MP/LB/S,orders=rlx+scacq+screl,scopes=wg+agent,fences=scar+screl,"
                            "deps=addr+data+ctrl+guard,placements=same-wg+diff-wg,segments=global+group",
                            "threads=3,accesses=3,shard=7/20000"},
                           by_class, by_choices);
  EXPECT_GT(kept_by_class, 2 * kept_by_choices);
}

// The model's answers shared between the one-work-group spaces of a cycle that differ only
// in their segments (fact 6) against answers per space: the answers are the same, so the
// searches are the same to the last count, with fewer questions for the engine. (Sharing
// them with the cycle's other placements too changes the counts on the second slice.)
TEST(BoundReduction, AnswersSharedAcrossSegmentsAgreeWithAnswersPerSpace) {
  BoundOptions per_space;
  std::size_t engine_shared = 0, engine_per_space = 0;
  auto engine_queries = [](const SpaceCost& c) { return c.model_queries - c.kept_answers; };
  BoundOptions shared;
  shared.on_space = summing(engine_shared, engine_queries);
  per_space.on_space = summing(engine_per_space, engine_queries);
  per_space.answers_across_segments = false;
  expect_the_same_searches({"family=ISA2/WRC/MP/SB/CoRR,orders=rlx+scacq+screl+scar,scopes=wg+agent,"
                            "placements=same-wg,segments=global+group",
                            "family=MP/SB/WRC/ISA2,orders=rlx+scacq+screl,scopes=wg+agent,placements=same-wg+diff-wg"},
                           shared, per_space);
  EXPECT_LT(engine_shared, engine_per_space);
}

// Upper tests asked, below the root, only about the final states the failed simulation
// nearest above did not reach or found forbidden, against asking about every final state
// that is not SC: the same searches to the last count (the answers decide the same), with
// more subtrees decided without a question (what was reached and allowed above is allowed).
TEST(BoundReduction, PartialUpperAnswersAgreeWithAskingAboutEveryFinalState) {
  std::size_t unasked_partial = 0, unasked_every = 0;
  auto unasked = [](const SpaceCost& c) { return c.decided_unasked; };
  BoundOptions partial, every;
  partial.on_space = summing(unasked_partial, unasked);
  every.on_space = summing(unasked_every, unasked);
  every.partial_upper_answers = false;
  expect_the_same_searches({"family=ISA2/WRC/MP/SB/"
                            "CoRR,orders=rlx+scacq+screl+scar,scopes=wg+agent,placements=same-wg,segments=global+group",
                            "family=ISA2/WRC/MP,orders=rlx+scacq+screl,scopes=wg+agent,placements=diff-wg",
                            "threads=3,accesses=3,shard=7/20000"},
                           partial, every);
  EXPECT_GT(unasked_partial, unasked_every);
}

// Questions narrowed by the answers kept (fact 2: what a stronger test allows, what a weaker
// one forbids or does not allow) against questions asked as they come: the same searches to
// the last count, verdicts and counterexamples included; and each narrowed question's answer
// is the one the question gets asked as it came (check_narrowed_answers).
TEST(BoundReduction, AnswersByStrengthAgreeWithQuestionsAsTheyCome) {
  std::size_t narrowed_on = 0, narrowed_off = 0;
  auto narrowed = [](const SpaceCost& c) { return c.narrowed_questions; };
  BoundOptions by_strength, as_they_come;
  by_strength.on_space = summing(narrowed_on, narrowed);
  by_strength.check_narrowed_answers = true;
  as_they_come.on_space = summing(narrowed_off, narrowed);
  as_they_come.answers_by_strength = false;
  expect_the_same_searches({"family=ISA2/WRC/MP/SB/"
                            "CoRR,orders=rlx+scacq+screl+scar,scopes=wg+agent,placements=same-wg,segments=global+group",
                            "family=ISA2/WRC/MP,orders=rlx+scacq+screl,scopes=wg+agent,placements=diff-wg",
                            "family=ISA2/MP/SB,orders=na+rlx+scacq+screl,scopes=wg+system,placements=same-wg+diff-wg",
                            "threads=3,accesses=3,shard=7/20000"},
                           by_strength, as_they_come);
  EXPECT_GT(narrowed_on, 100u);
  EXPECT_EQ(narrowed_off, 0u);
}

// The final states of SC interleavings taken as allowed without a question (fact 7) against
// asking the model about every final state of the weakest code: the same searches to the
// last count, verdicts and counterexamples included (under the default assumptions the
// slices have counterexamples, finding 2), with dependencies and guards (the SC final states
// are kept by the dependency gaps' choices) and group locations; fewer questions for the
// engine, and many subtrees decided without one.
TEST(BoundReduction, ScFinalStatesAgreeWithAskingTheModel) {
  std::size_t engine_sc = 0, engine_asked = 0, unasked_sc = 0, unasked_asked = 0;
  auto engine_queries = [](const SpaceCost& c) { return c.model_queries - c.kept_answers; };
  auto unasked = [](const SpaceCost& c) { return c.decided_unasked; };
  BoundOptions sc, asked;
  sc.on_space = [&](const SpaceCost& c) {
    engine_sc += engine_queries(c);
    unasked_sc += unasked(c);
  };
  asked.on_space = [&](const SpaceCost& c) {
    engine_asked += engine_queries(c);
    unasked_asked += unasked(c);
  };
  asked.sc_final_states = false;
  expect_the_same_searches(
      {"family=ISA2/WRC/MP/SB/"
       "CoRR,orders=rlx+scacq+screl+scar,scopes=wg+agent,placements=same-wg,segments=global+group",
       "family=MP/WRC/ISA2,orders=na+rlx+scacq+screl,scopes=agent,placements=diff-wg,deps=guard+addr",
       "family=ISA2/MP/SB,orders=na+rlx+scacq+screl,scopes=wg+system,placements=same-wg+diff-wg",
       "threads=3,accesses=3,shard=7/20000"},
      sc, asked);
  EXPECT_LT(engine_sc, engine_asked);
  EXPECT_GT(unasked_sc, unasked_asked + 100);
}

// Weakest programs whose code keeps program order taken as reaching only SC final states
// (fact 8) against simulating them: the same searches to the last count, verdicts and
// counterexamples included, and each such program's simulation reaches only SC final states
// (check_program_order); many are not simulated, all of them under the remedies' one channel.
TEST(BoundReduction, ProgramOrderKeptAgreesWithSimulating) {
  std::size_t in_order = 0, in_order_off = 0;
  auto judged = [](const SpaceCost& c) { return c.in_program_order; };
  BoundOptions kept, simulated;
  kept.on_space = summing(in_order, judged);
  kept.check_program_order = true;
  simulated.on_space = summing(in_order_off, judged);
  simulated.program_order_kept = false;
  expect_the_same_searches(
      {"family=ISA2/WRC/MP/SB/CoRR,orders=rlx+scacq+screl+scar,scopes=wg+agent,placements=same-wg,"
       "segments=global+group",
       "family=MP/WRC/ISA2/IRIW,orders=na+rlx+scacq+screl,scopes=wg+agent,placements=same-wg+diff-wg,deps=guard+addr",
       "threads=3,accesses=3,shard=7/20000"},
      kept, simulated);
  EXPECT_GT(in_order, 100u);
  EXPECT_EQ(in_order_off, 0u);
}

// The reduction against the plain check of every test, on a slice with counterexamples
// (scacq/screl as acquire/release are not SC: docs/mappings.md, finding 1) and without.
TEST(BoundReduction, AgreesWithCheckingEveryVariation) {
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  litmus::GenerateOptions g = spec("family=SB/MP/CoRR,scopes=wg+agent+system,placements=diff-wg+diff-agent");
  for (bool sc_orders : {false, true}) {
    VerifyOptions o = quick_options();
    o.compile.sc_acquire_release = sc_orders;
    BoundOptions every;
    every.every_variation = true;
    // (pruning by weaker code included in by_class)
    const BoundVerification by_class = verify_bound(g, table, o, {});
    const BoundVerification all = verify_bound(g, table, o, every);
    EXPECT_EQ(by_class.statistics.variations, all.statistics.variations);
    EXPECT_LT(by_class.statistics.checked * 2, all.statistics.checked);
    EXPECT_EQ(by_class.report.sound(), all.report.sound()) << "sc-orders " << sc_orders;
    EXPECT_EQ(all.report.sound(), sc_orders);
    EXPECT_EQ(by_class.report.count(TestStatus::Unknown) + all.report.count(TestStatus::Unknown), 0u);
    expect_counterexamples_within(by_class.report, all.report);
  }
}

// Fact 4 in the search: choices decided by a narrower scope holding the same threads,
// against the search without them, with counterexamples (finding 1 without --sc-orders) and
// without. Only for the hsa model: hrf-indirect tells the scopes apart.
TEST(BoundReduction, NarrowerScopesAgreeWithTheSearchWithoutThem) {
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  const litmus::GenerateOptions g = spec(
      "family=MP/SB/ISA2,orders=rlx+scacq+screl,scopes=wg+agent+system,placements=same-wg+diff-wg+diff-agent,"
      "segments=global");
  for (bool sc_orders : {false, true}) {
    SCOPED_TRACE(sc_orders ? "sc-orders" : "acquire/release");
    // Without the weaker-code pruning, which decides this slice at the roots. With
    // --sc-orders, the remedies of finding 2: sound then.
    BoundOptions with = searched({}), without = searched({});
    with.code_dominance = without.code_dominance = false;
    without.equivalent_scopes = false;
    const auto [narrowed, plain] =
        verify_with_and_without(g, table, sc_options(sc_orders, sc_orders), with, without, sc_orders);
    EXPECT_GT(narrowed.statistics.decided_by_narrower_scope, 0u);
    EXPECT_EQ(plain.statistics.decided_by_narrower_scope, 0u);
    EXPECT_LT(narrowed.statistics.checked, plain.statistics.checked);
    EXPECT_EQ(narrowed.report.count(TestStatus::Unknown) + plain.report.count(TestStatus::Unknown), 0u);
  }
  VerifyOptions hrf = quick_options();
  hrf.model.variant = model::ModelVariant::HrfIndirect;
  EXPECT_EQ(verify_bound(spec("family=MP,scopes=wg+agent,placements=same-wg"), table, hrf, {})
                .statistics.decided_by_narrower_scope,
            0u);
}

// Fact 5 in the search: spaces with work-groups in several agents left to the space with
// them in one agent, against the search that verifies them, with counterexamples (finding 1
// without --sc-orders) and without. Not used with an L2 per agent, nor without diff-wg
// placements in the bound (the space that would decide is not in it).
TEST(BoundReduction, OneAgentAgreesWithTheSearchThatVerifiesEveryPlacement) {
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  const litmus::GenerateOptions g =
      spec("family=MP/SB/WRC/IRIW,orders=rlx+scacq+screl,scopes=wg+agent+system,placements=diff-wg+diff-agent");
  for (bool sc_orders : {false, true}) {
    SCOPED_TRACE(sc_orders ? "sc-orders" : "acquire/release");
    // Without live classes, which decide both slices at their roots across work-groups.
    BoundOptions one_agent = searched({}), every_placement = searched({});
    one_agent.live_classes = every_placement.live_classes = false;
    every_placement.one_agent = false;
    const auto [merged, plain] =
        verify_with_and_without(g, table, sc_options(sc_orders, sc_orders), one_agent, every_placement, sc_orders);
    EXPECT_GT(merged.statistics.decided_in_one_agent, 0u);
    EXPECT_EQ(plain.statistics.decided_in_one_agent, 0u);
    EXPECT_EQ(merged.statistics.spaces, plain.statistics.spaces);
    EXPECT_LE(merged.statistics.checked, plain.statistics.checked);
    EXPECT_LT(weakest_code_tries(merged.statistics), weakest_code_tries(plain.statistics));
    EXPECT_EQ(merged.report.count(TestStatus::Unknown) + plain.report.count(TestStatus::Unknown), 0u);
  }
  VerifyOptions per_agent = quick_options();
  per_agent.target = "gfx90a";
  per_agent.sim.hw.l2_per_agent = true;
  EXPECT_EQ(verify_bound(spec("family=MP,scopes=agent,placements=diff-wg+diff-agent"),
                         codegen::MappingTable::builtin("gfx90a"), per_agent, {})
                .statistics.decided_in_one_agent,
            0u);
  EXPECT_EQ(verify_bound(spec("family=MP,scopes=agent,placements=same-wg+diff-agent"), table, quick_options(), {})
                .statistics.decided_in_one_agent,
            0u);
}

TEST(BoundReduction, StopsAtTheFirstCounterexampleAndReportsRows) {
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  BoundOptions b;
  b.stop_at = [](const TestVerification&) { return true; };
  const BoundVerification v =
      verify_bound(spec("family=SB,scopes=system,placements=diff-agent"), table, quick_options(), b);
  ASSERT_FALSE(v.report.sound());
  EXPECT_EQ(v.report.tests.back().status, TestStatus::Counterexample);
  EXPECT_TRUE(v.report.tests.back().counterexample.has_value());
  EXPECT_FALSE(v.rows_used.empty());
  // Sound and racy tests are only counted.
  EXPECT_EQ(v.report.tests.size(), 1u);
  EXPECT_EQ(v.report.total(), v.statistics.checked);
}

// Mutation testing names the test that kills a mutant: the first accepted counterexample in
// enumeration order, the same with one thread as with several (a thread that finds one in a
// later space before another finishes an earlier space must not decide it), and the report
// holds the same tests.
TEST(BoundReduction, StopsAtTheSameCounterexampleWhateverTheThreads) {
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  const litmus::GenerateOptions g = spec("threads=2,accesses=2,orders=rlx+scacq+screl,scopes=agent,segments=global");
  BoundOptions b;
  b.stop_at = [](const TestVerification& v) { return v.counterexample.has_value(); };
  auto run = [&](int jobs) {
    VerifyOptions o = quick_options();
    o.jobs = jobs;
    return verify_bound(g, table, o, b);
  };
  auto names = [](const VerifyReport& r) {
    std::vector<std::string> out;
    for (const TestVerification& v : r.tests) out.push_back(v.name + " " + std::string(to_string(v.status)));
    return out;
  };
  const BoundVerification one = run(1);
  ASSERT_TRUE(one.stopped_at.has_value());
  const VerifyReport whole = verify_bound(g, table, quick_options(), {}).report;
  EXPECT_GT(whole.count(TestStatus::Counterexample), 10u);  // many to choose from
  for (int round = 0; round < 3; ++round)
    for (int jobs : {2, 4}) {
      const BoundVerification many = run(jobs);
      ASSERT_TRUE(many.stopped_at.has_value());
      EXPECT_EQ(many.stopped_at->name, one.stopped_at->name) << jobs << " threads";
      EXPECT_EQ(names(many.report), names(one.report)) << jobs << " threads";
    }
}

// Generated message passing reads its data only after the flag when guarded: the agent
// acquire's L1 invalidation is then needed, and removing it is caught on a generated bound
// (without guards the data read of a generated MP is racy or bypasses the L1).
TEST(BoundMutation, GuardedReadsKillTheMissingL1Invalidation) {
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  VerifyOptions o = quick_options();
  o.compile.sc_acquire_release = true;
  const std::vector<std::string> rows = {"load.atomic.seq_cst.agent.global"};
  const MutationReport guarded =
      run_mutation(spec("family=MP,orders=rlx+scacq+screl,scopes=wg+system,placements=diff-wg,deps=guard"),
                   std::nullopt, table, rows, o);
  const MutationReport unguarded = run_mutation(
      spec("family=MP,orders=rlx+scacq+screl,scopes=wg+system,placements=diff-wg"), std::nullopt, table, rows, o);
  auto invalidation = [](const MutationReport& r) {
    for (const MutantResult& m : r.mutants)
      if (m.change.find("buffer_wbinvl1_vol") != std::string::npos) return m;
    ADD_FAILURE() << "no mutant removes buffer_wbinvl1_vol";
    return MutantResult{};
  };
  EXPECT_TRUE(invalidation(guarded).killed);
  EXPECT_NE(invalidation(guarded).killed_by.find(".guard."), std::string::npos) << invalidation(guarded).killed_by;
  EXPECT_FALSE(invalidation(unguarded).killed);
}

// Found on the 3 x 3 bound (docs/mappings.md, finding 2, early L1 visibility): P0 reads P2's
// store through their CU's L1 before the L2 has it, then releases at system scope; the
// release waits for P0's own requests only, so P1 (another agent) can acquire the flag and
// still read x = 0. The workgroup-release fix of finding 2 does not remove it; the L1
// updated only when the store reaches the L2 (`l1-store-at-l2`) does.
TEST(BoundFinding, SystemReleaseIsNotCumulativeOverEarlyL1Stores) {
  const char* text = R"(LISA WRC-early-l1
{ x = 0; y = 0; }
 P0                             | P1                          | P2                       ;
 r[atomic,rlx,wg] r0 x          | r[atomic,scacq,system] r0 y | w[atomic,rlx,system] x 1 ;
 rmw[atomic,scar,system] r1 1 y | r[atomic,scacq,system] r1 x |                          ;
scopes: (system (agent (wg 0 2)) (agent (wg 1)))
exists (0:r0=1 /\ 0:r1=0 /\ 1:r0=1 /\ 1:r1=0)
)";
  litmus::ParseResult parsed = litmus::parse_litmus(text);
  ASSERT_TRUE(parsed.ok()) << parsed.diagnostics.render("test");
  VerifyOptions o = quick_options();
  o.compile.sc_acquire_release = true;
  VerificationCache cache;
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  EXPECT_EQ(verify_test(*parsed.test, table, o, cache).status, TestStatus::Counterexample);
  EXPECT_TRUE(runner::apply_assumption("l1-store-at-l2", o.sim.hw));
  EXPECT_EQ(verify_test(*parsed.test, table, o, cache).status, TestStatus::Sound);
}

// Found on the bounds with fences (docs/mappings.md, finding 3): in HSA SysArch 3.9 (third
// rule, as the model reads it) a release store X followed by a store A synchronizes with an
// acquire fence after a load that reads A. The gfx6-9 release and seq_cst stores wait only
// before the store, so A can be performed first: through another L2 channel (global x and
// y, default assumptions) or on the vector memory path while X waits in the LDS queues (x in
// the group segment, one channel, stores at the L2). A wait after those stores removes both.
TEST(BoundFinding, ReleaseStoreDoesNotOrderLaterStoresBeforeAnAcquireFence) {
  const auto mp = [](const std::string& scopes, const std::string& regions) {
    const std::string text = R"(LISA MP+screl.rlx+fence-scacq
{ x = 0; y = 0; }
 P0                         | P1                        ;
 w[atomic,screl,system] x 1 | r[atomic,rlx,system] r0 y ;
 w[atomic,rlx,system] y 1   | f[scacq,wg]               ;
                            | r[atomic,rlx,system] r1 x ;
scopes: )" + scopes + "\n" + regions +
                             R"(exists (1:r0=1 /\ 1:r1=0)
)";
    litmus::ParseResult parsed = litmus::parse_litmus(text);
    EXPECT_TRUE(parsed.ok()) << parsed.diagnostics.render("test");
    return *parsed.test;
  };
  // Across work-groups the fence must reach them: agent scope.
  litmus::Test across = mp("(agent (wg 0) (wg 1))", "");
  for (litmus::Thread& t : across.threads)
    for (litmus::Instruction& ins : t.code)
      if (ins.kind == litmus::OpKind::Fence) ins.annots.scope = Scope::Agent;
  const litmus::Test lds = mp("(agent (wg 0 1))", "regions: x:group\n");

  nlohmann::json waits_after = table_to_json(codegen::MappingTable::builtin("gfx6-9"));
  std::size_t edited = 0;
  for (nlohmann::json& row : waits_after["rows"]) {
    bool releases = false;
    for (const nlohmann::json& o : row.value("orderings", nlohmann::json::array()))
      releases |= o == "release" || o == "seq_cst";
    const nlohmann::json operations = row.value("operation", nlohmann::json::array());  // a name or a list
    const bool store = operations == "store" || operations == nlohmann::json::array({"store"});
    if (!store || !releases || !row.contains("sequence") || !row["sequence"].is_array() || row["sequence"].empty() ||
        row["sequence"].back().value("op", "") != "access")
      continue;
    row["sequence"].push_back({{"op", "s_waitcnt"}, {"vmcnt", 0}, {"lgkmcnt", 0}});
    ++edited;
  }
  EXPECT_GT(edited, 3u);
  const codegen::MappingTable shipped = codegen::MappingTable::builtin("gfx6-9");
  const codegen::MappingTable fixed = codegen::MappingTable::from_json(waits_after, "waits after release stores");

  struct Case {
    const litmus::Test& test;
    std::vector<const char*> assumptions;
  };
  for (const Case& c : {Case{across, {}}, Case{lds, {"l1-store-at-l2", "one-channel"}}}) {
    SCOPED_TRACE(litmus::print_litmus(c.test));
    for (const model::Engine engine : {model::Engine::Enum, model::Engine::Z3}) {
      VerifyOptions o = quick_options();
      o.model.engine = engine;
      o.compile.sc_acquire_release = true;
      for (const char* a : c.assumptions) EXPECT_TRUE(runner::apply_assumption(a, o.sim.hw));
      VerificationCache cache;
      EXPECT_EQ(verify_test(c.test, shipped, o, cache).status, TestStatus::Counterexample);
      EXPECT_EQ(verify_test(c.test, fixed, o, cache).status, TestStatus::Sound);
      // Without the fence the model allows the outcome: the fence rule is what forbids it.
      litmus::Test unfenced = c.test;
      std::erase_if(unfenced.threads[1].code,
                    [](const litmus::Instruction& ins) { return ins.kind == litmus::OpKind::Fence; });
      const model::CheckResult m = model::check(unfenced, o.model);
      EXPECT_FALSE(m.racy);
      EXPECT_EQ(m.verdict, model::Verdict::Ok);
    }
  }
}

// Found on the 2 x 2 bound with the ROCm finalizer table (docs/mappings.md, finding 4): its
// screl store waits after the store (seed 001, line 471) but its screl RMW does not (line
// 503), and its scacq loads and RMWs do not wait before the access, so an screl RMW and a
// later scacq load of another location reorder in the L2 channels (seed 000): SB with
// RMWs reaches the outcome the SC order forbids (HSA SysArch 3.10). One channel, or a wait
// after the screl RMW, removes it.
TEST(BoundFinding, FinalizerScrelRmwIsNotOrderedBeforeALaterScacq) {
  const char* text = R"(LISA SB+screl-rmw.scacq
{ x = 0; y = 0; }
 P0                              | P1                              ;
 rmw[atomic,screl,system] r0 1 x | rmw[atomic,screl,system] r0 1 y ;
 r[atomic,scacq,system] r1 y     | r[atomic,scacq,system] r1 x     ;
scopes: (agent (wg 0) (wg 1))
exists (0:r1=0 /\ 1:r1=0)
)";
  litmus::ParseResult parsed = litmus::parse_litmus(text);
  ASSERT_TRUE(parsed.ok()) << parsed.diagnostics.render("test");
  const codegen::MappingTable finalizer = codegen::MappingTable::builtin("hsail-finalizer");
  nlohmann::json waits_after = table_to_json(finalizer);
  std::size_t edited = 0;
  for (nlohmann::json& row : waits_after["rows"])
    if (row["id"] == "global.rmw.screl.agent") {
      row["sequence"].push_back({{"op", "s_waitcnt"}, {"vmcnt", 0}});
      ++edited;
    }
  ASSERT_EQ(edited, 1u);
  const codegen::MappingTable fixed = codegen::MappingTable::from_json(waits_after, "screl rmw waits after");
  for (const model::Engine engine : {model::Engine::Enum, model::Engine::Z3}) {
    VerifyOptions o = quick_options();
    o.model.engine = engine;
    VerificationCache cache;
    EXPECT_EQ(verify_test(*parsed.test, finalizer, o, cache).status, TestStatus::Counterexample);
    EXPECT_EQ(verify_test(*parsed.test, fixed, o, cache).status, TestStatus::Sound);
    VerifyOptions one_channel = o;
    EXPECT_TRUE(runner::apply_assumption("one-channel", one_channel.sim.hw));
    EXPECT_EQ(verify_test(*parsed.test, finalizer, one_channel, cache).status, TestStatus::Sound);
  }
}

TEST(BoundReduction, ParallelVerificationGivesTheSameReport) {
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  const litmus::GenerateOptions g = spec("family=MP/LB/SB/ISA2,scopes=wg+agent,placements=same-wg+diff-wg+diff-agent");
  VerifyOptions one = quick_options(), two = quick_options();
  two.jobs = 2;
  // Symmetric tests are met within one space (spaces with one program key are verified
  // once), so both runs check the same tests; the report keeps only counterexamples and
  // unknowns, so the counts are compared.
  std::size_t progress_calls = 0;
  const BoundVerification a = verify_bound(g, table, one, {});
  const BoundVerification b = verify_bound(g, table, two, {}, [&](const TestVerification&) { ++progress_calls; });
  EXPECT_EQ(a.report.total(), b.report.total());
  EXPECT_EQ(progress_calls, b.report.total());
  EXPECT_EQ(a.report.count(TestStatus::Sound), b.report.count(TestStatus::Sound));
  EXPECT_EQ(a.report.count(TestStatus::Racy), b.report.count(TestStatus::Racy));
  EXPECT_EQ(a.statistics.racy_below_racy + a.statistics.decided_below_weaker + a.statistics.decided_by_narrower_scope,
            b.statistics.racy_below_racy + b.statistics.decided_below_weaker + b.statistics.decided_by_narrower_scope);
  EXPECT_GE(a.report.total(), 10u);
}

// What each space's search cost adds up to the bound's statistics: one report per space
// verified (not those decided by another), the same simulations and checked tests.
TEST(BoundReduction, SpaceCostsAddUpToTheStatistics) {
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  const litmus::GenerateOptions g =
      spec("family=MP/SB/ISA2,scopes=wg+agent,placements=same-wg+diff-wg+diff-agent,segments=global+group");
  std::size_t preserved = 0, in_order = 0, searched_spaces = 0;
  // The default assumptions (spaces across work-groups searched) and the remedies (decided).
  for (const bool remedies : {false, true}) {
    SCOPED_TRACE(remedies ? "remedies" : "default");
    std::vector<SpaceCost> costs;
    BoundOptions b;
    b.on_space = [&](const SpaceCost& c) { costs.push_back(c); };
    VerifyOptions o = sc_options(remedies, remedies);
    o.jobs = 2;
    const BoundVerification v = verify_bound(g, table, o, b);
    const BoundStatistics& s = v.statistics;
    EXPECT_EQ(costs.size(), s.spaces - s.same_program_spaces - s.decided_in_one_agent);
    std::size_t simulations = 0, in_program_order = 0, checked = 0, one_group = 0, group = 0, by_9 = 0, by_10 = 0;
    for (const SpaceCost& c : costs) {
      simulations += c.simulations;
      in_program_order += c.in_program_order;
      checked += c.checked;
      EXPECT_FALSE(c.cycle.empty());
      EXPECT_EQ(c.workgroup_of_thread.size(), c.agent_of_thread.size());
      EXPECT_TRUE(c.global || c.group);
      EXPECT_LE(c.racy_answers, c.model_queries);
      EXPECT_LE(c.kept_answers, c.model_queries);
      const bool in_one_group =
          std::all_of(c.workgroup_of_thread.begin(), c.workgroup_of_thread.end(), [](int w) { return w == 0; });
      if (c.decided_by_fact) {
        // Decided by fact 9 (in one work-group) or 10 (across work-groups), without a question.
        ++(c.decided_by_fact == 9 ? by_9 : by_10);
        EXPECT_EQ(c.model_queries + c.simulations + c.in_program_order + c.checked, 0u);
        EXPECT_EQ(c.decided_by_fact == 9, in_one_group);
      } else {
        ++searched_spaces;
        EXPECT_GT(c.model_queries, 0u);  // every space searched asks at least its root's upper test
      }
      EXPECT_LE(c.model_seconds + c.simulation_seconds + c.checked_seconds, c.seconds * 1.01 + 1e-3);
      if (in_one_group) ++one_group;
      if (c.group) ++group;
    }
    EXPECT_EQ(simulations + in_program_order, s.weaker_code_simulations);
    EXPECT_EQ(in_program_order, s.weaker_code_in_program_order);
    EXPECT_EQ(checked, s.checked);
    EXPECT_EQ(by_9, s.decided_by_preserved_order);
    EXPECT_EQ(by_10, s.decided_race_free_in_order);
    EXPECT_GT(one_group, 0u);
    EXPECT_LT(one_group, costs.size());
    EXPECT_GT(group, 0u);
    preserved += by_9;
    in_order += by_10;
  }
  EXPECT_GT(preserved, 0u);
  EXPECT_GT(in_order, 0u);
  EXPECT_GT(searched_spaces, 0u);
}

// A space whose programs an earlier space holds is counted, not verified again: the
// verification of the pair checks what the first alone checks.
TEST(BoundReduction, SpacesWithTheSameProgramsAreVerifiedOnce) {
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  litmus::GenerateOptions g = spec("orders=rlx+scacq+screl,scopes=agent+system,placements=diff-wg,segments=global");
  g.cycles = {litmus::parse_cycle("PosWW Rfe PosRW Rfe PosRR Rmw Wse")};
  BoundOptions classes_only = searched({});  // so that tests are checked rather than decided at the root
  classes_only.code_dominance = false;
  const BoundVerification one = verify_bound(g, table, quick_options(), classes_only);
  g.cycles.push_back(litmus::parse_cycle("PosWW Rfe PosRR Rmw Rfe PosRW Wse"));
  const BoundVerification both = verify_bound(g, table, quick_options(), classes_only);
  EXPECT_EQ(one.statistics.same_program_spaces, 0u);
  EXPECT_EQ(both.statistics.spaces, 2 * one.statistics.spaces);
  EXPECT_EQ(both.statistics.same_program_spaces, one.statistics.spaces);
  EXPECT_EQ(both.statistics.checked, one.statistics.checked);
  EXPECT_EQ(both.report.sound(), one.report.sound());
  EXPECT_GT(one.statistics.checked, 0u);
}

// Shards of a bound verify it between them: the same tests checked and the same
// counterexamples found.
TEST(BoundReduction, ShardsCoverTheBoundBetweenThem) {
  const codegen::MappingTable table = codegen::MappingTable::builtin("gfx6-9");
  const std::string g = "family=SB/MP/LB/CoRR,scopes=agent+system,placements=diff-wg+diff-agent";
  const BoundVerification whole = verify_bound(spec(g), table, quick_options(), {});
  std::size_t checked = 0, spaces = 0;
  std::set<std::string> found;
  for (const char* shard : {",shard=0/2", ",shard=1/2"}) {
    const BoundVerification part = verify_bound(spec(g + shard), table, quick_options(), {});
    checked += part.statistics.checked;
    spaces += part.statistics.spaces;
    for (const TestVerification& v : part.report.tests) found.insert(v.name);
  }
  std::set<std::string> expected;
  for (const TestVerification& v : whole.report.tests) expected.insert(v.name);
  EXPECT_EQ(found, expected);
  EXPECT_FALSE(expected.empty());  // SB's counterexamples (finding 1)
  EXPECT_EQ(checked, whole.statistics.checked);
  EXPECT_EQ(spaces, whole.statistics.spaces);
}

}  // namespace
}  // namespace hsalit::verify
