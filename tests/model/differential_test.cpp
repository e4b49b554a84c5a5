// Differential testing of the model engines: on thousands of random tests
// (litmus::random_test) the Z3 engine and the enumeration engine must list the same
// outcomes, agree on whether the test is racy and on the condition's verdict, and neither
// may answer unknown. Every outcome of a sequentially consistent interleaving must also be
// among the model's outcomes (an SC execution is consistent in every variant).
//
// The seeds are split into shards (one CTest test each) so that `ctest -j` runs them in
// parallel. A failure names the seed and prints the test, ready to save as a .litmus file;
// `hsalit_differential --seed S --count 1` (scripts/differential) reproduces it, and
// scripts/differential runs the same check on many more seeds.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "differential.hpp"
#include "hsalit/litmus/generate.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/litmus/random_test.hpp"
#include "hsalit/model/program.hpp"

namespace hsalit::testing {
namespace {

using model::ModelVariant;

struct Shard {
  std::string name;
  ModelVariant variant = ModelVariant::Hsa;
  std::uint64_t first = 0, count = 0;
  bool observe_everything = false;
};

void PrintTo(const Shard& s, std::ostream* os) {
  *os << fmt::format("{}: seeds {}..{} under {}", s.name, s.first, s.first + s.count - 1, to_string(s.variant));
}

// Of one core (RelWithDebInfo), a test takes about 15 ms under hsa (both engines and the
// SC enumerator) and about 25 ms under the hrf variants, more where a barrier and several
// threads make the enumeration engine slow. The 7600 tests of the fixed ranges
// (differential.hpp) take about two minutes of one core; the whole model_tests target about
// two and a half (ctest -R model).

// The first seed of today's rotating range: HSALIT_DIFF_SEED when set (to replay a range a
// failure names), else from the UTC date.
std::uint64_t rotating_first_seed() {
  if (const char* given = std::getenv("HSALIT_DIFF_SEED"); given && *given) return std::stoull(given);
  const auto today = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  const auto day = static_cast<std::uint64_t>(today.time_since_epoch().count());
  return kRotatingFirstSeed + day * kRotatingPerDay;
}

std::vector<Shard> shards() {
  std::vector<Shard> out;
  for (int i = 0; i < kHsaShards; ++i) {
    // Half the hsa shards report the whole final state, not only what the condition names.
    const bool everything = i % 2 == 1;
    out.push_back({fmt::format("hsa_{}{}", i, everything ? "_everything" : ""), ModelVariant::Hsa,
                   1 + static_cast<std::uint64_t>(i) * kHsaPerShard, kHsaPerShard, everything});
  }
  for (int i = 0; i < kHrfShards; ++i) {
    const std::uint64_t first = 1 + static_cast<std::uint64_t>(i) * kHrfPerShard;
    out.push_back(
        {fmt::format("hrf_indirect_{}", i), ModelVariant::HrfIndirect, kHrfIndirectBase + first, kHrfPerShard, false});
    out.push_back(
        {fmt::format("hrf_direct_{}", i), ModelVariant::HrfDirect, kHrfDirectBase + first, kHrfPerShard, false});
  }
  for (int i = 0; i < kOpenClShards; ++i)
    out.push_back({fmt::format("opencl_{}", i), ModelVariant::OpenCl,
                   kOpenClBase + 1 + static_cast<std::uint64_t>(i) * kOpenClPerShard, kOpenClPerShard, i % 2 == 1});
  // Other seeds every day, so that the suite does not replay the same tests forever; the
  // range is printed, and HSALIT_DIFF_SEED replays it.
  const std::uint64_t rotating = rotating_first_seed();
  out.push_back({"hsa_rotating", ModelVariant::Hsa, rotating, kRotatingPerDay, rotating / kRotatingPerDay % 2 == 1});
  return out;
}

class Differential : public ::testing::TestWithParam<Shard> {};

TEST_P(Differential, EnginesAgreeOnRandomTests) {
  const Shard& shard = GetParam();
  // Printed, so that a failure of the rotating range can be replayed on another day.
  std::printf("seeds %llu..%llu; replay: HSALIT_DIFF_SEED=%llu ctest -R 'Differential.*%s'\n",
              static_cast<unsigned long long>(shard.first),
              static_cast<unsigned long long>(shard.first + shard.count - 1),
              static_cast<unsigned long long>(shard.first), shard.name.c_str());
  RecordProperty("first_seed", std::to_string(shard.first));
  const litmus::RandomTestOptions options = differential_options(shard.variant, shard.observe_everything);
  constexpr int kMaxReported = 5;  // per shard, so that one bug does not flood the log
  int failures = 0;
  std::size_t racy = 0, outcomes = 0;
  for (std::uint64_t seed = shard.first; seed < shard.first + shard.count; ++seed) {
    const litmus::Test test = litmus::random_test(seed, options);
    EngineComparison c = compare_engines(test, shard.variant);
    std::string problem = c.difference;
    if (c.agree) {
      racy += c.z3.racy;
      outcomes += c.z3.outcomes.size();
      problem = compare_with_sc(test, c.z3).missing;
    }
    if (problem.empty()) continue;
    ADD_FAILURE() << describe_failure(seed, test, problem);
    if (++failures == kMaxReported) {
      ADD_FAILURE() << "stopping this shard after " << kMaxReported << " failures";
      return;
    }
  }
  // The generator must keep producing both racy and race-free tests.
  EXPECT_GT(racy, shard.count / 10) << "too few racy tests";
  EXPECT_LT(racy, shard.count * 9 / 10) << "too few race-free tests";
  RecordProperty("racy", static_cast<int>(racy));
  RecordProperty("outcomes", static_cast<int>(outcomes));
}

INSTANTIATE_TEST_SUITE_P(Random, Differential, ::testing::ValuesIn(shards()),
                         [](const ::testing::TestParamInfo<Shard>& info) { return info.param.name; });

// The random tests hold nothing the model cannot handle (a barrier in conditional code,
// unequal barrier counts, address offsets): no differential comparison is lost to them.
TEST(Differential, ModelSupportsEveryRandomTest) {
  for (std::uint64_t seed = 0; seed < 3000; ++seed) {
    const litmus::Test test = litmus::random_test(seed);
    const model::Program program(test);
    EXPECT_FALSE(program.unsupported().has_value())
        << "seed " << seed << ": " << program.unsupported().value_or("") << "\n"
        << litmus::print_litmus(test);
  }
}

// Chains of exchanges on one location (the generated coherence shapes with Rmw edges): the
// enum engine tests each choice of thread runs for values nobody writes and for two updates
// reading a value only one write produces (RMW atomicity) before building it, and cuts a
// partial choice as soon as no run of the threads left can pass those tests; these tests
// are where that decides most choices, so both engines must still agree on them, racy
// (relaxed ordinary accesses) and race-free alike.
TEST(Differential, EnginesAgreeOnChainsOfExchanges) {
  const litmus::GenerateOptions g = litmus::parse_generate_spec(
      "cycle=PodRR Rmw PosWR Rmw Rfe Rmw PosWR Rmw Rfe Rmw PosWR Rmw PodWR Rmw Rfe,cycle=Rmw Rfe Rmw PosWR Rmw "
      "Rfe Rmw Rfe,orders=na+rlx+scar,scopes=agent,placements=diff-wg+same-wg,segments=global+group");
  std::size_t compared = 0, racy = 0, index = 0;
  litmus::generate(g, [&](litmus::GeneratedTest&& t) {
    if (index++ % 31 != 0) return;
    const EngineComparison c = compare_engines(t.test, model::ModelVariant::Hsa);
    EXPECT_TRUE(c.agree) << t.test.name << ": " << c.difference;
    ++compared;
    racy += c.z3.racy;
  });
  EXPECT_GT(compared, 10u);
  EXPECT_GT(racy, 0u);
  EXPECT_LT(racy, compared);
}

}  // namespace
}  // namespace hsalit::testing
