#include "hsalit/verify/verify_llc.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <stdexcept>

#include "elapsed.hpp"
#include "hsalit/codegen/llc_program.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/support/parallel.hpp"
#include "judge.hpp"

namespace hsalit::verify {

using detail::seconds_since;

namespace {

Counterexample make_counterexample(const TestVerification& v) {
  Counterexample c = counterexample_outcome(v);
  // Which instruction of llc's code implements each litmus access (the ties of llc.hpp).
  std::set<std::pair<int, int>> seen;
  for (const codegen::CompiledThread& t : v.compiled->threads)
    for (const codegen::Instruction& ins : t.code) {
      const codegen::Origin& origin = ins.origin;
      if (origin.role != "access" || origin.instruction < 0 || !seen.insert({origin.thread, origin.instruction}).second)
        continue;
      RowUse use;
      use.thread = origin.thread;
      use.instruction = origin.instruction;
      use.litmus = litmus::print_instruction(
          v.test.threads[static_cast<std::size_t>(origin.thread)].code[static_cast<std::size_t>(origin.instruction)]);
      use.row = codegen::print(ins);
      use.source = fmt::format("{} for {}", v.compiled->table, v.compiled->target);
      c.rows.push_back(std::move(use));
    }
  c.assembly = codegen::emit_assembly(*v.compiled, v.test);
  return c;
}

// The threads that share a wave with another, e.g. "P0 and P1": llc compiles each thread as a
// kernel of its own, so its waits do not count what the wave's other lanes issued, which a
// kernel holding every lane would (docs/verification.md, "Threads of one wave").
std::string lanes_compiled_apart(const litmus::Test& test) {
  std::map<std::uint32_t, std::vector<std::string>> by_wave;
  for (int t = 0; t < static_cast<int>(test.threads.size()); ++t)
    by_wave[test.scopes.instance(t, litmus::Scope::Wavefront)].push_back(fmt::format("P{}", t));
  std::vector<std::string> groups;
  for (const auto& [wave, threads] : by_wave)
    if (threads.size() > 1) groups.push_back(fmt::format("{}", fmt::join(threads, " and ")));
  return fmt::format("{}", fmt::join(groups, "; "));
}

}  // namespace

TestVerification verify_compiled(const litmus::Test& test, const codegen::CompiledTest& compiled,
                                 const runner::SimOptions& sim, const model::CheckOptions& model,
                                 VerificationCache& cache, std::optional<model::Engine> confirm_engine) {
  const auto start = std::chrono::steady_clock::now();
  TestVerification v;
  v.name = test.name;
  v.test = test;
  v.compiled = compiled;
  auto finish = [&](TestStatus status, std::string reason) {
    v.status = status;
    v.reason = std::move(reason);
    v.seconds = seconds_since(start);
    return v;
  };
  const model::CheckResult& m = cache.check(v.test, model);
  v.model = m;
  if (m.unknown()) return finish(TestStatus::Unknown, "model: " + *m.unknown_reason);
  if (m.racy) return finish(TestStatus::Racy, racy_reason(m));
  detail::judge(v, m, sim, model, confirm_engine, cache);
  if (v.status == TestStatus::Counterexample) v.counterexample = make_counterexample(v);
  v.seconds = seconds_since(start);
  return v;
}

TestVerification verify_llc_result(const litmus::Test& test, const codegen::LlcResult& compiled,
                                   const LlcVerifyOptions& options, VerificationCache& cache) {
  codegen::CompiledTest program;
  try {
    program = codegen::to_compiled_test(compiled, test);
  } catch (const std::exception& e) {
    TestVerification v;
    v.name = test.name;
    v.test = test;
    v.status = TestStatus::Unknown;
    v.reason = fmt::format("llc's code: {}", e.what());
    return v;
  }
  TestVerification judged = verify_compiled(test, program, options.sim, options.model, cache, options.confirm_engine);
  // What llc removed, merged or reordered (not an error: the program is judged as compiled).
  std::size_t problems = 0;
  for (const codegen::LlcThread& t : compiled.threads) problems += t.problems.size();
  if (problems > 0 && judged.status == TestStatus::Sound)
    judged.reason +=
        fmt::format(" (llc removed, merged or reordered accesses in {} thread{})", problems, problems == 1 ? "" : "s");
  if (judged.status == TestStatus::Counterexample)
    if (std::string lanes = lanes_compiled_apart(test); !lanes.empty())
      judged.reason += fmt::format(
          " ({} are lanes of one wave, which llc compiled as kernels of their own: its waits do not count the "
          "other lanes' accesses, as one kernel's would)",
          lanes);
  return judged;
}

namespace {

// How a test becomes kernels that llc compiled: straight from LLVM IR, or through MLIR. compile
// takes the test (as observe_everything gives it) and its index in the run.
struct KernelCompiler {
  std::string_view source;  // what CompileError is about: "LLVM IR", "MLIR"
  std::string_view tools;   // what failed otherwise: "llc", "MLIR pipeline"
  std::function<codegen::LlcResult(const litmus::Test&, std::size_t, const codegen::Target&)> compile;
};

TestVerification verify_via(const litmus::Test& test, std::size_t index, const KernelCompiler& compiler,
                            const LlcVerifyOptions& options, VerificationCache& cache) {
  const auto start = std::chrono::steady_clock::now();
  TestVerification v;
  v.name = test.name;
  auto finish = [&](TestStatus status, std::string reason) {
    v.status = status;
    v.reason = std::move(reason);
    v.seconds = seconds_since(start);
    return v;
  };
  if (test.filter) return finish(TestStatus::Unsupported, "the test has a filter, which the simulator does not apply");
  try {
    v.test = observe_everything(test);
  } catch (const std::exception& e) {
    return finish(TestStatus::Unsupported, e.what());
  }
  // Racy and undecided tests are not compiled.
  const model::CheckResult& m = cache.check(v.test, options.model);
  if (m.unknown() || m.racy) {
    codegen::CompiledTest none;
    TestVerification judged = verify_compiled(v.test, none, options.sim, options.model, cache, options.confirm_engine);
    judged.compiled.reset();
    judged.seconds = seconds_since(start);
    return judged;
  }
  const codegen::Target* target = codegen::TargetCatalog::builtin().find(options.target);
  if (!target) return finish(TestStatus::Unsupported, fmt::format("unknown target '{}'", options.target));
  codegen::LlcResult compiled;
  try {
    compiled = compiler.compile(v.test, index, *target);
  } catch (const codegen::CompileError& e) {
    return finish(TestStatus::Unsupported, fmt::format("{}: {}", compiler.source, e.what()));
  } catch (const std::exception& e) {
    return finish(TestStatus::Unknown, fmt::format("{}: {}", compiler.tools, e.what()));
  }
  TestVerification judged = verify_llc_result(v.test, compiled, options, cache);
  judged.seconds = seconds_since(start);
  return judged;
}

VerifyReport verify_all_via(std::span<const litmus::Test> tests, const KernelCompiler& compiler,
                            const LlcVerifyOptions& options, VerificationCache& cache,
                            const std::function<void(const TestVerification&)>& progress) {
  VerifyReport report;
  report.tests.resize(tests.size());
  // Each test runs its own processes in their own temporary folders (run_llc).
  support::parallel_for_each(
      tests.size(), options.jobs,
      [&](std::size_t i) { report.tests[i] = verify_via(tests[i], i, compiler, options, cache); },
      [&](std::size_t i) {
        if (progress) progress(report.tests[i]);
      });
  return report;
}

KernelCompiler through_llc(const codegen::LlcTool& llc, const LlcVerifyOptions& options) {
  return {"LLVM IR", "llc", [&llc, &options](const litmus::Test& test, std::size_t, const codegen::Target& target) {
            return codegen::compile_via_llc(test, target, llc, options.ir);
          }};
}

// Every test's MLIR, lowered before the tests are judged: one batch of mlir-opt and
// mlir-translate per job (codegen::lower_mlir_to_llvm_ir), so that a test then costs one llc.
struct LoweredTests {
  std::vector<std::optional<codegen::LlvmModule>> modules;  // per test; none when it could not be emitted
  std::vector<std::string> emit_errors;                     // per test: the emitter's CompileError
  std::vector<codegen::LoweredModule> lowered;              // per test
};

LoweredTests lower_all(std::span<const litmus::Test> tests, const codegen::MlirTools& tools,
                       const LlcVerifyOptions& options, const codegen::Target& target) {
  LoweredTests out;
  out.modules.resize(tests.size());
  out.emit_errors.resize(tests.size());
  out.lowered.resize(tests.size());
  std::vector<std::size_t> emitted;
  for (std::size_t i = 0; i < tests.size(); ++i) {
    try {
      out.modules[i] = codegen::emit_mlir(observe_everything(tests[i]), options.mlir);
      emitted.push_back(i);
    } catch (const codegen::CompileError& e) {
      out.emit_errors[i] = e.what();
    } catch (const std::exception&) {
      // observe_everything refused the test: verify_via says why.
    }
  }
  const std::size_t batches = std::max<std::size_t>(1, std::min<std::size_t>(emitted.size(), options.jobs));
  support::parallel_for_each(batches, options.jobs, [&](std::size_t b) {
    const std::size_t from = emitted.size() * b / batches, to = emitted.size() * (b + 1) / batches;
    std::vector<std::string> texts;
    for (std::size_t k = from; k < to; ++k) texts.push_back(out.modules[emitted[k]]->text);
    std::vector<codegen::LoweredModule> lowered = codegen::lower_mlir_to_llvm_ir(tools, texts, target);
    for (std::size_t k = from; k < to; ++k) out.lowered[emitted[k]] = std::move(lowered[k - from]);
  });
  return out;
}

}  // namespace

TestVerification verify_via_llc(const litmus::Test& test, const codegen::LlcTool& llc, const LlcVerifyOptions& options,
                                VerificationCache& cache) {
  return verify_via(test, 0, through_llc(llc, options), options, cache);
}

VerifyReport verify_via_llc(std::span<const litmus::Test> tests, const codegen::LlcTool& llc,
                            const LlcVerifyOptions& options, VerificationCache& cache,
                            const std::function<void(const TestVerification&)>& progress) {
  return verify_all_via(tests, through_llc(llc, options), options, cache, progress);
}

TestVerification verify_via_mlir(const litmus::Test& test, const codegen::MlirTools& tools,
                                 const LlcVerifyOptions& options, VerificationCache& cache) {
  return verify_via_mlir(std::span(&test, 1), tools, options, cache).tests.front();
}

VerifyReport verify_via_mlir(std::span<const litmus::Test> tests, const codegen::MlirTools& tools,
                             const LlcVerifyOptions& options, VerificationCache& cache,
                             const std::function<void(const TestVerification&)>& progress) {
  // An unknown target is refused by verify_via before anything is compiled.
  const codegen::Target* target = codegen::TargetCatalog::builtin().find(options.target);
  const LoweredTests lowered = target ? lower_all(tests, tools, options, *target) : LoweredTests{};
  KernelCompiler batched{
      "MLIR", "MLIR pipeline", [&](const litmus::Test& test, std::size_t i, const codegen::Target& t) {
        if (!lowered.modules[i]) throw codegen::CompileError(lowered.emit_errors[i]);
        if (!lowered.lowered[i].error.empty()) throw codegen::LlcError(lowered.lowered[i].error);
        return codegen::compile_lowered_mlir(test, t, tools, *lowered.modules[i], lowered.lowered[i].ir);
      }};
  return verify_all_via(tests, batched, options, cache, progress);
}

std::string render_llc_text(const VerifyReport& report, std::string_view llc, std::string_view target) {
  std::string out;
  for (const TestVerification& v : report.tests)
    out += fmt::format("{:<16} {}: {}\n", to_string(v.status), v.name, v.reason);
  for (const TestVerification& v : report.tests) {
    if (!v.counterexample) continue;
    const Counterexample& c = *v.counterexample;
    out += fmt::format("\nCounterexample in {}: {} reaches {}, which the model forbids\n", v.name, llc, c.outcome);
    for (const RowUse& r : c.rows)
      out += fmt::format("  P{}:{} {}  ->  {}\n", r.thread, r.instruction, r.litmus, r.row);
    out += "\n" + c.assembly;
    out += fmt::format("\nTrace ({}):\n", c.placement);
    for (const std::string& step : c.trace) out += "  " + step + "\n";
  }
  out += fmt::format("\n{} on {}: {} tests: {} sound, {} counterexample, {} racy, {} unsupported, {} unknown\n", llc,
                     target, report.tests.size(), report.count(TestStatus::Sound),
                     report.count(TestStatus::Counterexample), report.count(TestStatus::Racy),
                     report.count(TestStatus::Unsupported), report.count(TestStatus::Unknown));
  out += fmt::format("verdict: {}\n", verdict_text(report));
  return out;
}

nlohmann::json to_json(const TestVerification& v) {
  nlohmann::json j = {{"test", v.name}, {"status", to_string(v.status)}, {"reason", v.reason}, {"seconds", v.seconds}};
  if (v.sim) j["states"] = v.sim->states;
  if (v.counterexample) {
    j["outcome"] = v.counterexample->outcome;
    j["assembly"] = v.counterexample->assembly;
    j["placement"] = v.counterexample->placement;
    j["trace"] = v.counterexample->trace;
  }
  return j;
}

nlohmann::json summary_json(const VerifyReport& report, std::string_view llc, std::string_view target) {
  return {{"llc", llc},
          {"target", target},
          {"tests", report.tests.size()},
          {"sound", report.count(TestStatus::Sound)},
          {"counterexample", report.count(TestStatus::Counterexample)},
          {"racy", report.count(TestStatus::Racy)},
          {"unsupported", report.count(TestStatus::Unsupported)},
          {"unknown", report.count(TestStatus::Unknown)},
          {"verdict", verdict_text(report)}};
}

}  // namespace hsalit::verify
