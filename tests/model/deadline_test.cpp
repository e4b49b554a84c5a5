// Both engines stop at their time limit: a test whose thread runs the enumeration engine
// mostly rejects before they become candidates must still end shortly after the deadline,
// and the Z3 engine stops its solver at the limit. Each test needs far longer than its limit
// (checked: the verdict is unknown for the time limit), so a check that finishes early fails.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/random_test.hpp"
#include "hsalit/model/checker.hpp"

namespace hsalit::model {
namespace {

// Seed 12 of these options is a 4-thread test with barriers and three fetch-and-adds: its
// combinations of thread runs number in the millions and almost all are rejected before
// evaluation. Without a deadline check in that loop, a 0.2 s limit took about 230 s.
litmus::RandomTestOptions combination_heavy_options() {
  litmus::RandomTestOptions o;
  o.min_threads = o.max_threads = 4;
  o.max_instructions = 4;
  o.max_total_instructions = 14;
  o.max_fetch_adds = 3;
  o.barriers_with_fetch_adds = true;
  o.max_barrier_threads = 4;
  return o;
}

TEST(Deadline, EnumEngineStopsInTheLoopOverThreadRuns) {
  litmus::Test test = litmus::random_test(12, combination_heavy_options());
  CheckOptions options;
  options.engine = Engine::Enum;
  options.timeout_seconds = 0.2;
  auto start = std::chrono::steady_clock::now();
  CheckResult r = check(test, options);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0);  // generous: CI machines are shared
  ASSERT_TRUE(r.unknown()) << "the engine finished before its limit: the test no longer checks the deadline";
  EXPECT_NE(r.unknown_reason->find("enum engine: time limit"), std::string::npos) << *r.unknown_reason;
}

// Two threads of 60 stores each to one location: about 5 s for the Z3 engine to decide.
litmus::Test two_threads_of_60_stores() {
  std::string rows;
  for (int i = 1; i <= 60; ++i) rows += " w[] x " + std::to_string(i) + " | w[] x " + std::to_string(1000 + i) + " ;\n";
  litmus::ParseResult parsed = litmus::parse_litmus("LISA TwoBy60\n{ x = 0; }\n P0 | P1 ;\n" + rows +
                                                    "scopes: (agent (wg 0) (wg 1))\nexists (x=1)\n");
  EXPECT_TRUE(parsed.ok());
  return *parsed.test;
}

TEST(Deadline, Z3EngineStopsAtTheTimeLimit) {
  CheckOptions options;
  options.engine = Engine::Z3;
  options.timeout_seconds = 0.2;
  auto start = std::chrono::steady_clock::now();
  CheckResult r = check(two_threads_of_60_stores(), options);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 3.0);  // the test needs about 5 s without the limit
  ASSERT_TRUE(r.unknown()) << "the engine finished before its limit: the test no longer checks the deadline";
  EXPECT_NE(r.unknown_reason->find("z3 engine: time limit"), std::string::npos) << *r.unknown_reason;
}

}  // namespace
}  // namespace hsalit::model
