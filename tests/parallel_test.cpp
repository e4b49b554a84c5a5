// The shared parallel loop (support/include/hsalit/support/parallel.hpp): every index once,
// `done` one call at a time, and the first exception stops the loop and reaches the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "hsalit/support/parallel.hpp"

namespace hsalit::support {
namespace {

TEST(ParallelForEach, RunsEveryIndexOnceAndDoneOneAtATime) {
  for (int jobs : {0, 1, 3, 64}) {
    constexpr std::size_t kCount = 1000;
    std::vector<std::atomic<int>> runs(kCount);
    std::vector<int> done_order;
    int inside_done = 0, most_inside_done = 0;
    parallel_for_each(
        kCount, jobs, [&](std::size_t i) { ++runs[i]; },
        [&](std::size_t i) {
          most_inside_done = std::max(most_inside_done, ++inside_done);
          done_order.push_back(static_cast<int>(i));
          --inside_done;
        });
    for (std::size_t i = 0; i < kCount; ++i) EXPECT_EQ(runs[i], 1) << "index " << i << " with " << jobs << " jobs";
    EXPECT_EQ(done_order.size(), kCount);
    EXPECT_EQ(most_inside_done, 1);
  }
}

TEST(ParallelForEach, NothingToDoRunsNothing) {
  int calls = 0;
  parallel_for_each(0, 4, [&](std::size_t) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(ParallelForEach, TheFirstExceptionOfATaskReachesTheCaller) {
  EXPECT_THROW(parallel_for_each(1000, 2,
                                 [&](std::size_t i) {
                                   if (i == 10) throw std::runtime_error("task 10");
                                 }),
               std::runtime_error);
  // On one thread the order is the index order: nothing after the failing task runs.
  std::size_t ran = 0;
  EXPECT_THROW(parallel_for_each(1000, 1,
                                 [&](std::size_t i) {
                                   ++ran;
                                   if (i == 10) throw std::runtime_error("task 10");
                                 }),
               std::runtime_error);
  EXPECT_EQ(ran, 11u);
}

TEST(ParallelForEach, AnExceptionOfDoneReachesTheCaller) {
  EXPECT_THROW(parallel_for_each(
                   50, 3, [](std::size_t) {},
                   [](std::size_t i) {
                     if (i == 7) throw std::logic_error("done 7");
                   }),
               std::logic_error);
}

TEST(ParallelForEach, DefaultJobsIsAtLeastOne) { EXPECT_GE(default_jobs(), 1); }

}  // namespace
}  // namespace hsalit::support
