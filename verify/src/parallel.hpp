// The verification's one parallel loop over independent tests.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace hsalit::verify::detail {

// Runs `task(i)` for each i in [0, count) on up to `jobs` threads (the calling one among
// them), in no fixed order, then `done(i)` one call at a time. The first exception a task
// throws stops new tasks from starting and is rethrown once the others have finished.
template <typename Task, typename Done>
void for_each_in_parallel(std::size_t count, int jobs, Task&& task, Done&& done) {
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::exception_ptr failure;
  auto work = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        task(i);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        next = count;
        return;
      }
      std::lock_guard lock(mutex);
      done(i);
    }
  };
  const std::size_t workers = std::min<std::size_t>(static_cast<std::size_t>(std::max(1, jobs)), count);
  std::vector<std::thread> pool;
  for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace hsalit::verify::detail
