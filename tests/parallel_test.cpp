// The shared parallel loop (support/include/hsalit/support/parallel.hpp): every index once,
// `done` one call at a time, and the first exception stops the loop and reaches the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <vector>

#include "hsalit/support/memory.hpp"
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

// A loop never starts more threads than it has items or than max_jobs(), whatever -j says
// (`-j 100000` exhausted the system's threads and aborted).
TEST(ParallelForEach, CapsItsThreadsAtTheWorkAndASaneMaximum) {
  EXPECT_EQ(worker_count(100000, 3), 3u);
  EXPECT_EQ(worker_count(100000, 1'000'000), max_jobs());
  EXPECT_EQ(worker_count(0, 10), 1u);
  EXPECT_EQ(worker_count(4, 0), 1u);
  std::atomic<int> runs{0};
  parallel_for_each(5000, 100000, [&](std::size_t) { ++runs; });
  EXPECT_EQ(runs, 5000);
}

TEST(MemoryLimit, SizesParseWithUnitsAndBadOnesDoNot) {
  EXPECT_EQ(parse_byte_size("64M"), std::uint64_t{64} << 20);
  EXPECT_EQ(parse_byte_size("64MiB"), std::uint64_t{64} << 20);
  EXPECT_EQ(parse_byte_size("2G"), std::uint64_t{2} << 30);
  EXPECT_EQ(parse_byte_size("1048576"), std::uint64_t{1} << 20);
  EXPECT_EQ(parse_byte_size("512k"), std::uint64_t{512} << 10);
  for (const char* bad : {"", "M", "0", "-1M", "12Q", "1.5G", "99999999999999999999", "20000000000T", "1 G"})
    EXPECT_FALSE(parse_byte_size(bad)) << bad;
  EXPECT_EQ(format_byte_size(std::uint64_t{64} << 20), "64 MiB");
  EXPECT_GT(resident_bytes(), 0u);
  EXPECT_GT(default_memory_limit(), 0u);
}

}  // namespace
}  // namespace hsalit::support
