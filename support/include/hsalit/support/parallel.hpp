// The one parallel loop over independent items (tests, files, seeds) that the components
// and tools share.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace hsalit::support {

// One job per hardware thread, at least one (std::thread::hardware_concurrency may say 0).
inline int default_jobs() { return static_cast<int>(std::max(1u, std::thread::hardware_concurrency())); }

// The most threads a loop starts: four per hardware thread, at least 64. More gain nothing
// on work bound by the processors, and `-j 100000` would exhaust the system's threads.
inline std::size_t max_jobs() {
  return std::max<std::size_t>(64, 4 * static_cast<std::size_t>(std::thread::hardware_concurrency()));
}

// The threads that share `items` independent items when `jobs` are asked for (0 or less:
// one): at least one, at most the items and max_jobs().
inline std::size_t worker_count(int jobs, std::size_t items) {
  return std::max<std::size_t>(1, std::min({static_cast<std::size_t>(std::max(1, jobs)), items, max_jobs()}));
}

// Runs `work()` on the calling thread and on up to `workers - 1` more, and returns once all
// have returned. Where the system refuses to start a thread (std::system_error), the threads
// started so far do the work: `work` must take its items from a shared source until none is
// left, so that any number of threads finishes it.
template <typename Work>
void run_on_threads(std::size_t workers, Work& work) {
  std::vector<std::thread> pool;
  try {
    pool.reserve(workers > 0 ? workers - 1 : 0);
    for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  } catch (const std::system_error&) {
    // Fewer threads than asked: the calling thread and those started share the work.
  }
  work();
  for (std::thread& t : pool) t.join();
}

// Runs `task(i)` for each i in [0, count) on worker_count(jobs, count) threads (the calling
// one among them), in no fixed order, and after each task `done(i)`, under a mutex, one call
// at a time. The first exception a task or a `done` throws stops new tasks from
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
  run_on_threads(worker_count(jobs, count), work);
  if (failure) std::rethrow_exception(failure);
}

// The same without a `done`.
template <typename Task>
void parallel_for_each(std::size_t count, int jobs, Task&& task) {
  parallel_for_each(count, jobs, std::forward<Task>(task), [](std::size_t) {});
}

}  // namespace hsalit::support
