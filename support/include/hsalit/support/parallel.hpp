// The one parallel loop over independent items (tests, files, seeds) that the components
// and tools share.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace hsalit::support {

// One job per hardware thread, at least one (std::thread::hardware_concurrency may say 0).
inline int default_jobs() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// Runs `task(i)` for each i in [0, count) on up to `jobs` threads (the calling one among
// them; at least one), in no fixed order, and after each task `done(i)`, under a mutex, one
// call at a time. The first exception a task or a `done` throws stops new tasks from
// starting and is rethrown once the others have finished.
template <typename Task, typename Done>
void parallel_for_each(std::size_t count, int jobs, Task&& task, Done&& done) {
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::exception_ptr failure;
  auto work = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        task(i);
        std::lock_guard lock(mutex);
        done(i);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!failure) failure = std::current_exception();
        next = count;
        return;
      }
    }
  };
  const std::size_t workers = std::min<std::size_t>(static_cast<std::size_t>(std::max(1, jobs)), count);
  std::vector<std::thread> pool;
  for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

// The same without a `done`.
template <typename Task>
void parallel_for_each(std::size_t count, int jobs, Task&& task) {
  parallel_for_each(count, jobs, std::forward<Task>(task), [](std::size_t) {});
}

}  // namespace hsalit::support
