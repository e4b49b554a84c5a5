// Google Benchmark over the model: one benchmark per litmus test and engine. Each test is
// parsed once at start-up; the timed loop is `model::check` alone (Program construction,
// encoding or enumeration, solving). See docs/PERFORMANCE.md for how scripts/bench-model
// drives it and what the numbers were.
//
// Benchmarks (names are what --benchmark_filter matches):
//   library/<engine>/<folder>/<test>   every test of the bundled library (or --library DIR)
//   scaling/<engine>/<test>            every test under --scaling DIR (scripts/gen-scaling)
//   parallel/<engine>/library/threads:T   every library test once per iteration, in T threads
//                                      at once (T = 1, 2 and the core count): items_per_second
//                                      is the throughput; per thread and iteration, the time
//                                      spent waiting for a core (runqueue_wait_ms: other
//                                      processes) and blocked (blocked_ms: locks, I/O), from
//                                      /proc/self/task/TID/schedstat
//   z3_fixed/context                   constructing and destroying one z3::context
//   z3_fixed/context+trivial_check     the same plus one solver, one check, one push/pop
//
// Options (before or among Google Benchmark's own --benchmark_* flags):
//   --library=DIR    default: the source tree's litmus/library (env HSALIT_BENCH_LIBRARY)
//   --scaling=DIR    no default (env HSALIT_BENCH_SCALING); without it no scaling benchmarks
//   --engines=LIST   comma-separated, default "z3,enum" (env HSALIT_BENCH_ENGINES)
//   --model=NAME     hsa (default), hrf-indirect, hrf-direct (env HSALIT_BENCH_MODEL)
//   --timeout=S      per check, default 10 (env HSALIT_BENCH_TIMEOUT); a check that ends
//                    `unknown` (time limit, enumeration bound) is reported as an error
//                    ("skipped" in the output) with the reason
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <algorithm>

#include <z3++.h>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <sys/syscall.h>
#include <unistd.h>

#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/model/checker.hpp"
#include "hsalit/model/program.hpp"

namespace {

namespace fs = std::filesystem;
using hsalit::litmus::Test;
namespace model = hsalit::model;

struct BenchOptions {
  fs::path library = fs::path(HSALIT_SOURCE_DIR) / "litmus" / "library";
  std::optional<fs::path> scaling;
  std::vector<model::Engine> engines = {model::Engine::Z3, model::Engine::Enum};
  model::ModelVariant variant = model::ModelVariant::Hsa;
  double timeout = 10;
};

// A parsed test kept alive for the whole run (benchmarks refer to it).
struct LoadedTest {
  std::string name;  // benchmark name suffix: <folder>/<test> or <test>
  Test test;
  std::size_t events = 0;
  int threads = 0;
};

std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

bool parse_engines(std::string_view text, std::vector<model::Engine>& out) {
  out.clear();
  while (!text.empty()) {
    std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    auto e = model::engine_from_string(item);
    if (!e) {
      fmt::print(stderr, "bench_model: error: unknown engine '{}'\n", item);
      return false;
    }
    out.push_back(*e);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
  }
  return !out.empty();
}

// Reads our options from the environment and then from argv, removing the flags we consume so
// that Google Benchmark sees only its own.
bool parse_options(int& argc, char** argv, BenchOptions& opt) {
  std::map<std::string, std::string> values;
  if (auto v = env("HSALIT_BENCH_LIBRARY")) values["library"] = *v;
  if (auto v = env("HSALIT_BENCH_SCALING")) values["scaling"] = *v;
  if (auto v = env("HSALIT_BENCH_ENGINES")) values["engines"] = *v;
  if (auto v = env("HSALIT_BENCH_MODEL")) values["model"] = *v;
  if (auto v = env("HSALIT_BENCH_TIMEOUT")) values["timeout"] = *v;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    bool consumed = false;
    for (const char* key : {"library", "scaling", "engines", "model", "timeout"}) {
      std::string prefix = fmt::format("--{}=", key);
      if (arg.substr(0, prefix.size()) == prefix) {
        values[key] = std::string(arg.substr(prefix.size()));
        consumed = true;
      }
    }
    if (!consumed) argv[kept++] = argv[i];
  }
  argc = kept;
  if (values.count("library")) opt.library = values["library"];
  if (values.count("scaling")) opt.scaling = fs::path(values["scaling"]);
  if (values.count("engines") && !parse_engines(values["engines"], opt.engines)) return false;
  if (values.count("model")) {
    auto v = model::model_variant_from_string(values["model"]);
    if (!v) {
      fmt::print(stderr, "bench_model: error: unknown model '{}'\n", values["model"]);
      return false;
    }
    opt.variant = *v;
  }
  if (values.count("timeout")) {
    char* end = nullptr;
    opt.timeout = std::strtod(values["timeout"].c_str(), &end);
    if (end == values["timeout"].c_str() || *end != '\0' || opt.timeout <= 0) {
      fmt::print(stderr, "bench_model: error: bad timeout '{}'\n", values["timeout"]);
      return false;
    }
  }
  return true;
}

// Parses every *.litmus file under `root`; names are relative to it, without the extension.
bool load_tests(const fs::path& root, std::vector<std::unique_ptr<LoadedTest>>& out) {
  if (!fs::is_directory(root)) {
    fmt::print(stderr, "bench_model: error: '{}' is not a folder\n", root.string());
    return false;
  }
  bool ok = true;
  for (const fs::path& file : hsalit::litmus::collect_litmus_files({root})) {
    hsalit::litmus::ParseResult parsed = hsalit::litmus::parse_litmus_file(file);
    if (!parsed.ok()) {
      fmt::print(stderr, "{}", parsed.diagnostics.render(file.string()));
      ok = false;
      continue;
    }
    auto t = std::make_unique<LoadedTest>();
    t->name = fs::relative(file, root).replace_extension().generic_string();
    t->test = std::move(*parsed.test);
    model::Program program(t->test);
    t->events = program.events().size();
    t->threads = program.thread_count();
    out.push_back(std::move(t));
  }
  return ok;
}

void bm_check(benchmark::State& state, const LoadedTest* t, model::CheckOptions options) {
  model::CheckResult last;
  for (auto _ : state) {
    last = model::check(t->test, options);
    benchmark::DoNotOptimize(last.outcomes.data());
    if (last.unknown()) {
      state.SkipWithError(("unknown: " + *last.unknown_reason).c_str());
      break;
    }
  }
  state.counters["threads"] = t->threads;
  state.counters["events"] = static_cast<double>(t->events);
  state.counters["outcomes"] = static_cast<double>(last.outcomes.size());
  state.counters["racy"] = last.racy ? 1 : 0;
  state.SetLabel(std::string(model::to_string(last.verdict)));
}

void register_checks(std::string_view prefix, const std::vector<std::unique_ptr<LoadedTest>>& tests,
                     const BenchOptions& opt) {
  for (model::Engine engine : opt.engines)
    for (const auto& t : tests) {
      model::CheckOptions co;
      co.engine = engine;
      co.variant = opt.variant;
      co.timeout_seconds = opt.timeout;
      std::string name = fmt::format("{}/{}/{}", prefix, model::to_string(engine), t->name);
      benchmark::RegisterBenchmark(name.c_str(), bm_check, t.get(), co)->Unit(benchmark::kMillisecond);
    }
}

// The scheduler's account of the calling thread (Linux): time on a core and time runnable but
// waiting for one, in milliseconds; nullopt where /proc does not say.
struct SchedStat {
  double cpu_ms = 0, wait_ms = 0;
};
std::optional<SchedStat> thread_schedstat() {
  long tid = syscall(SYS_gettid);
  std::ifstream in(fmt::format("/proc/self/task/{}/schedstat", tid));
  double cpu_ns = 0, wait_ns = 0;
  if (!(in >> cpu_ns >> wait_ns)) return std::nullopt;
  return SchedStat{cpu_ns / 1e6, wait_ns / 1e6};
}

void bm_parallel(benchmark::State& state, const std::vector<std::unique_ptr<LoadedTest>>* tests,
                 model::CheckOptions options) {
  auto s0 = thread_schedstat();
  auto w0 = std::chrono::steady_clock::now();
  for (auto _ : state)
    for (const auto& t : *tests) {
      model::CheckResult r = model::check(t->test, options);
      benchmark::DoNotOptimize(r.outcomes.data());
    }
  double wall = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - w0).count();
  auto s1 = thread_schedstat();
  const double iters = static_cast<double>(state.iterations());
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(tests->size()));
  if (s0 && s1 && iters > 0) {
    double wait = s1->wait_ms - s0->wait_ms;
    double blocked = wall - (s1->cpu_ms - s0->cpu_ms) - wait;
    state.counters["runqueue_wait_ms"] = benchmark::Counter(wait / iters, benchmark::Counter::kAvgThreads);
    state.counters["blocked_ms"] = benchmark::Counter(blocked / iters, benchmark::Counter::kAvgThreads);
  }
}

// The fixed cost every Z3 check pays before encoding anything.
void bm_z3_context(benchmark::State& state) {
  for (auto _ : state) {
    z3::context ctx;
    benchmark::DoNotOptimize(&ctx);
  }
}

void bm_z3_context_check(benchmark::State& state) {
  for (auto _ : state) {
    z3::context ctx;
    z3::solver solver(ctx);
    z3::params params(ctx);
    params.set("timeout", 10000u);
    solver.set(params);
    z3::expr x = ctx.int_const("x");
    solver.add(x > 1);
    solver.push();
    solver.add(x < 3);
    benchmark::DoNotOptimize(solver.check());
    solver.pop();
  }
}

}  // namespace

int main(int argc, char** argv) {
  BenchOptions opt;
  if (!parse_options(argc, argv, opt)) return 2;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;

  // Kept alive until the benchmarks have run: they hold pointers into these.
  std::vector<std::unique_ptr<LoadedTest>> library, scaling;
  if (!load_tests(opt.library, library)) return 2;
  if (opt.scaling && !load_tests(*opt.scaling, scaling)) return 2;

  benchmark::RegisterBenchmark("z3_fixed/context", bm_z3_context)->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark("z3_fixed/context+trivial_check", bm_z3_context_check)->Unit(benchmark::kMillisecond);
  register_checks("library", library, opt);
  const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  for (model::Engine engine : opt.engines) {
    model::CheckOptions co;
    co.engine = engine;
    co.variant = opt.variant;
    co.timeout_seconds = opt.timeout;
    std::string name = fmt::format("parallel/{}/library", model::to_string(engine));
    auto* b = benchmark::RegisterBenchmark(name.c_str(), bm_parallel, &library, co);
    b->Unit(benchmark::kMillisecond)->UseRealTime()->Threads(1)->Threads(2);
    if (cores > 2) b->Threads(cores);
  }
  register_checks("scaling", scaling, opt);

  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
