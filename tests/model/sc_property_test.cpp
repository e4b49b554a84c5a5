// The spec's theorem (HSA SysArch 3.2 and 3.12): "an HSA-race-free program without relaxed
// atomics appears sequentially consistent". On random tests whose atomics are all scacq,
// screl or scar (ordinary accesses allowed), every outcome the model allows for a test it
// finds race-free must be the outcome of some SC interleaving (sc_interleavings.hpp).
//
// Barriers: the model follows HSA PRM 9.3, where a barrier takes part in the memory model
// as a pair of relaxed wg-scope atomics and orders no memory by itself. A program with a
// bare barrier therefore contains relaxed atomics and is outside the theorem; indeed the
// model allows `w[atomic,screl,wg] y 1; barrier || barrier; w[atomic,screl,wg] y 2` to end
// with y=1 (race-free), which an execution barrier forbids. The tests here surround each
// barrier with f[screl,wg] before and f[scacq,wg] after, the idiom that makes a barrier
// order memory, and then the SC enumerator's execution barrier is the right reference.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "differential.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/litmus/random_test.hpp"
#include "litmus_support.hpp"
#include "sc_interleavings.hpp"

namespace hsalit::testing {
namespace {

using test_support::parse;

struct Shard {
  int index = 0;
  std::uint64_t first = 0, count = 0;
};

void PrintTo(const Shard& s, std::ostream* os) { *os << fmt::format("seeds {}..{}", s.first, s.first + s.count - 1); }

constexpr std::uint64_t kPerShard = 600;  // about 35 ms of one core per test (mostly Z3)
constexpr int kShards = 2;

std::vector<Shard> shards() {
  std::vector<Shard> out;
  for (int i = 0; i < kShards; ++i)
    out.push_back({i, 5'000'000 + static_cast<std::uint64_t>(i) * kPerShard, kPerShard});
  return out;
}

litmus::RandomTestOptions sc_atomics_only() {
  litmus::RandomTestOptions o;
  o.relaxed_atomics = false;
  o.barrier_fences = true;
  return o;
}

class ScProperty : public ::testing::TestWithParam<Shard> {};

TEST_P(ScProperty, RaceFreeWithoutRelaxedAtomicsAppearsSequentiallyConsistent) {
  const Shard& shard = GetParam();
  const litmus::RandomTestOptions options = sc_atomics_only();
  std::uint64_t race_free = 0;
  int failures = 0;
  for (std::uint64_t seed = shard.first; seed < shard.first + shard.count && failures < 5; ++seed) {
    const litmus::Test test = litmus::random_test(seed, options);
    const model::CheckResult r = model::check(test);  // z3, hsa
    ASSERT_FALSE(r.unknown()) << describe_failure(seed, test, *r.unknown_reason + "\n");
    const ScComparison sc = compare_with_sc(test, r);
    if (!sc.missing.empty()) {
      ++failures;
      ADD_FAILURE() << describe_failure(seed, test, sc.missing);
    }
    if (r.racy) continue;
    ++race_free;
    if (!sc.not_sc.empty()) {
      ++failures;
      ADD_FAILURE() << describe_failure(seed, test,
                                        sc.not_sc + "which contradicts HSA SysArch 3.12 (no relaxed atomics)\n");
    }
  }
  fmt::print("SC property: {} race-free tests of {} (seeds {}..{}) appear SC\n", race_free, shard.count, shard.first,
             shard.first + shard.count - 1);
  RecordProperty("race_free", static_cast<int>(race_free));
  // Not vacuous: a good share of the tests must be race-free.
  EXPECT_GE(race_free, shard.count / 5);
}

INSTANTIATE_TEST_SUITE_P(Random, ScProperty, ::testing::ValuesIn(shards()),
                         [](const ::testing::TestParamInfo<Shard>& info) {
                           return fmt::format("shard_{}", info.param.index);
                         });

// The enumerator itself on tests whose SC outcomes are known.
std::vector<std::string> sc_outcomes_of(const std::string& text) {
  const litmus::Test test = parse(text);
  const model::CheckResult r = model::check(test);
  std::vector<std::string> out;
  for (const model::Outcome& o : ScInterleavings(test, r.evaluated).outcomes())
    out.push_back(describe_outcome(r.evaluated, o));
  return out;
}

TEST(ScInterleavings, StoreBufferingHasNoZeroZero) {
  EXPECT_EQ(sc_outcomes_of("LISA SB\n{ x = 0; y = 0; }\n"
                           " P0       | P1       ;\n"
                           " w[] x 1  | w[] y 1  ;\n"
                           " r[] r0 y | r[] r0 x ;\n"
                           "exists (0:r0=0 /\\ 1:r0=0)\n"),
            (std::vector<std::string>{"0:r0=0; 1:r0=1", "0:r0=1; 1:r0=0", "0:r0=1; 1:r0=1"}));
}

TEST(ScInterleavings, RmwsAreAtomicAndBranchesFollowValues) {
  // Two fetch-adds always end at 2; the guarded store happens only after reading 1.
  EXPECT_EQ(sc_outcomes_of("LISA T\n{ x = 0; y = 0; }\n"
                           " P0 | P1 ;\n"
                           " rmw[atomic,rlx,agent] r0 (add r0 1) x | "
                           "rmw[atomic,rlx,agent] r0 (add r0 1) x ;\n"
                           " b[ne] r0, 1, L | ;\n"
                           " w[] y 5 | ;\n"
                           " L: | ;\n"
                           "exists (x=2 /\\ y=5)\n"),
            (std::vector<std::string>{"x=2; y=0", "x=2; y=5"}));
}

TEST(ScInterleavings, BarrierSeparatesTheWorkGroupAndGroupMemoryIsPerWorkGroup) {
  // P0 and P1 share a work-group and its copy of g; P2 has its own copy. The barrier makes
  // P1's load follow P0's store; P2's store goes to its own copy, which the condition
  // does not read (it reads the copy of the lowest-numbered thread that accesses g).
  EXPECT_EQ(sc_outcomes_of("LISA B\n{ g = 0; }\n"
                           " P0      | P1       | P2      ;\n"
                           " w[] g 1 | barrier  | w[] g 2 ;\n"
                           " barrier | r[] r0 g |         ;\n"
                           "scopes: (agent (wg 0 1) (wg 2))\n"
                           "regions: g:group\n"
                           "exists (1:r0=1 /\\ g=1)\n"),
            (std::vector<std::string>{"1:r0=1; g=1"}));
}

}  // namespace
}  // namespace hsalit::testing
