#include "hsalit/verify/verify_llc.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
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

TestVerification verify_via_llc(const litmus::Test& test, const codegen::LlcTool& llc, const LlcVerifyOptions& options,
                                VerificationCache& cache) {
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
    compiled = codegen::compile_via_llc(v.test, *target, llc, options.ir);
  } catch (const codegen::CompileError& e) {
    return finish(TestStatus::Unsupported, fmt::format("LLVM IR: {}", e.what()));
  } catch (const std::exception& e) {
    return finish(TestStatus::Unknown, fmt::format("llc: {}", e.what()));
  }
  codegen::CompiledTest program;
  try {
    program = codegen::to_compiled_test(compiled, v.test);
  } catch (const std::exception& e) {
    return finish(TestStatus::Unknown, fmt::format("llc's code: {}", e.what()));
  }
  TestVerification judged = verify_compiled(v.test, program, options.sim, options.model, cache, options.confirm_engine);
  // What llc removed, merged or reordered (not an error: the program is judged as compiled).
  std::size_t problems = 0;
  for (const codegen::LlcThread& t : compiled.threads) problems += t.problems.size();
  if (problems > 0 && judged.status == TestStatus::Sound)
    judged.reason +=
        fmt::format(" (llc removed, merged or reordered accesses in {} thread{})", problems, problems == 1 ? "" : "s");
  judged.seconds = seconds_since(start);
  return judged;
}

VerifyReport verify_via_llc(std::span<const litmus::Test> tests, const codegen::LlcTool& llc,
                            const LlcVerifyOptions& options, VerificationCache& cache,
                            const std::function<void(const TestVerification&)>& progress) {
  VerifyReport report;
  report.tests.resize(tests.size());
  // Each test runs its own llc process in its own temporary folder (run_llc).
  support::parallel_for_each(
      tests.size(), options.jobs,
      [&](std::size_t i) { report.tests[i] = verify_via_llc(tests[i], llc, options, cache); },
      [&](std::size_t i) {
        if (progress) progress(report.tests[i]);
      });
  return report;
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
