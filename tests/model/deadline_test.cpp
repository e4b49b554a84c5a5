// Both engines stop at their time limit: a test whose thread runs the enumeration engine
// mostly rejects before they become candidates must still end shortly after the deadline.
#include <gtest/gtest.h>

#include <chrono>

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
  if (r.unknown()) {
    EXPECT_NE(r.unknown_reason->find("time limit"), std::string::npos) << *r.unknown_reason;
  }
}

}  // namespace
}  // namespace hsalit::model
