// hsalit_differential: the nightly differential run (scripts/differential). Generates random
// tests (litmus::random_test) for a range of seeds and checks each, under each model
// given, with both engines: same outcomes, same racy verdict, same condition verdict,
// neither unknown, and every outcome of an SC interleaving among the outcomes. Reports every
// failing test and writes it as a .litmus file (the difference in a closing comment).
//
//   hsalit_differential --count N --seed FIRST --jobs J --model hsa[,hrf-indirect,...]
//                       [--failures DIR] [--timeout SECONDS] [generator options]
//
// Prints progress, then `N passed, M failed` (tests, i.e. seeds); exits 1 on a failure.
#include <fmt/format.h>
#include <sys/resource.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <vector>

#include "differential.hpp"
#include "hsalit/support/parallel.hpp"

namespace {

using hsalit::model::ModelVariant;

struct Totals {
  std::atomic<std::uint64_t> done{0}, passed{0}, failed{0};
  std::atomic<std::uint64_t> disagreements{0}, undecided{0}, not_sc{0}, errors{0};
  std::atomic<std::uint64_t> race_free{0};  // --sc-atomics: race-free tests under hsa
  std::mutex mutex;                         // guards what follows and the output
  double slowest_ms = 0;
  std::string slowest;
};

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Differential testing of the Z3 and enumeration engines on random litmus tests"};
  // From the first seed after the fixed ranges of the differential tests (differential.hpp).
  std::uint64_t count = 100000, first = hsalit::testing::kNightlyFirstSeed;
  unsigned jobs = static_cast<unsigned>(hsalit::support::default_jobs());
  std::string models = "hsa", failures;
  double timeout = 120;
  int max_threads = 4, max_instructions = 4, max_total = 10;
  bool sc_only = false, verbose = false, no_barriers = false, no_rmws = false, observe_everything = false;
  app.add_option("--count", count, "number of seeds")->capture_default_str();
  app.add_option("--seed", first, "first seed")->capture_default_str();
  app.add_option("--jobs,-j", jobs, "worker threads")->capture_default_str();
  app.add_option("--model", models,
                 "comma-separated models: hsa, hrf-indirect, hrf-direct, opencl (opencl: the tests carry OpenCL's "
                 "annotations, for every model of the run)")
      ->capture_default_str();
  app.add_option("--failures", failures, "folder for the failing tests (.litmus files)");
  app.add_option("--timeout", timeout, "per engine and test, seconds")->capture_default_str();
  app.add_option("--max-threads", max_threads, "threads per test (2..8)")->capture_default_str();
  app.add_option("--max-instructions", max_instructions, "memory operations per thread (1..8)")->capture_default_str();
  app.add_option("--max-total", max_total, "memory operations per test")->capture_default_str();
  app.add_flag("--sc-atomics", sc_only,
               "atomics are scacq, screl or scar only, barriers come with fences, and race-free "
               "tests must appear SC under hsa (HSA SysArch 3.12)");
  app.add_flag("--no-barriers", no_barriers, "generate no barriers");
  app.add_flag("--no-rmws", no_rmws, "generate no read-modify-writes");
  app.add_flag("--observe-everything", observe_everything, "outcomes report every register read and every location");
  app.add_flag("--verbose,-v", verbose, "one line per test and model");
  CLI11_PARSE(app, argc, argv);

  std::vector<ModelVariant> variants;
  for (const std::string& m : split(models, ',')) {
    auto v = hsalit::model::model_variant_from_string(m);
    if (!v) {
      fmt::print(stderr, "unknown model '{}' (hsa, hrf-indirect, hrf-direct, opencl)\n", m);
      return 2;
    }
    variants.push_back(*v);
  }
  if (variants.empty()) variants.push_back(ModelVariant::Hsa);
  hsalit::litmus::RandomTestOptions options;
  options.max_threads = max_threads;
  options.max_instructions = max_instructions;
  options.max_total_instructions = max_total;
  options.relaxed_atomics = !sc_only;
  options.barrier_fences = sc_only;
  options.barriers = !no_barriers;
  options.rmws = !no_rmws;
  options.observe_everything = observe_everything;
  if (std::find(variants.begin(), variants.end(), ModelVariant::OpenCl) != variants.end()) {
    options.opencl_annotations = true;
  }
  try {
    hsalit::litmus::validate(options);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }
  if (!failures.empty()) std::filesystem::create_directories(failures);
  jobs = std::max(1u, jobs);

  fmt::print("differential: {} seeds from {}, models {}, {} jobs{}\n", count, first, models, jobs,
             failures.empty() ? "" : fmt::format(", failures into {}", failures));
  std::fflush(stdout);
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  Totals totals;
  double last_report = 0;

  auto record_failure = [&](std::uint64_t seed, const hsalit::litmus::Test& test, ModelVariant v,
                            const std::string& problem) {
    std::lock_guard lock(totals.mutex);
    fmt::print("FAIL {}\n", hsalit::testing::describe_failure(seed, test, problem));
    if (!failures.empty()) {
      std::filesystem::path file =
          std::filesystem::path(failures) / fmt::format("{}-{}.litmus", test.name, to_string(v));
      std::ofstream out(file);
      out << hsalit::litmus::print_litmus(test) << "(* differential failure, seed " << seed << "\n"
          << problem << "*)\n";
      if (!out) fmt::print("cannot write {}\n", file.string());
    }
    std::fflush(stdout);
  };

  // Each seed on its own; the task prints (under totals.mutex) as it goes.
  hsalit::support::parallel_for_each(static_cast<std::size_t>(count), static_cast<int>(jobs), [&](std::size_t i) {
    const std::uint64_t seed = first + i;
    bool ok = true;
    try {
      const hsalit::litmus::Test test = hsalit::litmus::random_test(seed, options);
      for (ModelVariant v : variants) {
        auto c = hsalit::testing::compare_engines(test, v, timeout);
        const double ms = c.z3.time_ms + c.enumeration.time_ms;
        {
          std::lock_guard lock(totals.mutex);
          if (verbose) {
            fmt::print("seed {} {}: z3 {:.1f} ms, enum {:.1f} ms, {} outcomes{}\n", seed, to_string(v), c.z3.time_ms,
                       c.enumeration.time_ms, c.z3.outcomes.size(), c.z3.racy ? ", racy" : "");
            std::fflush(stdout);
          }
          if (ms > totals.slowest_ms) {
            totals.slowest_ms = ms;
            totals.slowest = fmt::format("seed {} under {} (z3 {:.0f} ms, enum {:.0f} ms)", seed, to_string(v),
                                         c.z3.time_ms, c.enumeration.time_ms);
          }
        }
        std::string problem = c.difference;
        if (c.agree) {
          const auto sc = hsalit::testing::compare_with_sc(test, c.z3);
          problem = sc.missing;
          // --sc-atomics: the theorem of HSA SysArch 3.12 on race-free tests.
          if (sc_only && v == ModelVariant::Hsa && !c.z3.racy) {
            totals.race_free++;
            problem += sc.not_sc;
          }
        }
        if (problem.empty()) continue;
        ok = false;
        (c.undecided ? totals.undecided : c.agree ? totals.not_sc : totals.disagreements)++;
        record_failure(seed, test, v, problem);
      }
    } catch (const std::exception& e) {
      ok = false;
      totals.errors++;
      std::lock_guard lock(totals.mutex);
      fmt::print("FAIL seed {}: {}\n", seed, e.what());
    }
    (ok ? totals.passed : totals.failed)++;
    const std::uint64_t done = ++totals.done;
    std::lock_guard lock(totals.mutex);
    const double now = elapsed();
    if (now - last_report >= 30 || done == count) {
      last_report = now;
      const double rate = done / std::max(now, 1e-9);
      fmt::print("{}/{} tests, {} failed, {:.1f} tests/s, {:.0f} s elapsed, about {:.0f} s left\n", done, count,
                 totals.failed.load(), rate, now, static_cast<double>(count - done) / std::max(rate, 1e-9));
      std::fflush(stdout);
    }
  });

  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const double cpu = static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                     static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
  fmt::print("time {:.1f} s wall, {:.1f} s cpu ({:.1f} ms cpu per test); slowest: {}\n", elapsed(), cpu,
             1000.0 * cpu / std::max<double>(1.0, static_cast<double>(count)),
             totals.slowest.empty() ? "-" : totals.slowest);
  if (totals.failed)
    fmt::print(
        "failures (per test and model): {} engine disagreements, {} SC mismatches, {} "
        "undecided (an engine answered unknown), {} errors\n",
        totals.disagreements.load(), totals.not_sc.load(), totals.undecided.load(), totals.errors.load());
  if (sc_only) fmt::print("{} tests race-free under hsa\n", totals.race_free.load());
  fmt::print("{} passed, {} failed\n", totals.passed.load(), totals.failed.load());
  return totals.failed ? 1 : 0;
}
