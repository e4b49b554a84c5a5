// Checking the real compiler (docs/verification.md, "The real compiler (verify-llc)"): each
// test's LLVM IR (llvm_ir.hpp) compiled by an llc, its kernels turned into a program the
// simulator runs (llc_program.hpp), and, as for a mapping table (verify.hpp), every final state
// the simulator reaches on a race-free test must be one the model allows.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/codegen/llc.hpp"
#include "hsalit/codegen/llvm_ir.hpp"
#include "hsalit/codegen/mlir.hpp"
#include "hsalit/verify/verify.hpp"

namespace hsalit::verify {

struct LlcVerifyOptions {
  std::string target = "gfx900";
  codegen::LlvmIrOptions ir;
  codegen::MlirOptions mlir;  // verify_via_mlir: the module's operations, --volatile, --sc-orders
  runner::SimOptions sim;
  model::CheckOptions model;
  // As VerifyOptions::confirm_engine: each counterexample checked again by this engine.
  std::optional<model::Engine> confirm_engine;
  int jobs = 1;  // tests verified in parallel (one llc process each)
};

// Judges compiled code for a test: the model's allowed final states (computed once per test
// by `cache`) against the simulator's exhaustive set. `test` must observe everything
// (observe_everything). Sound, Counterexample (with `counterexample` filled: outcome, code,
// trace; not minimised; checked again with `confirm_engine` when given), Racy, or Unknown with
// the reason (the model or the simulator gave up, the engines disagree, or the simulator cannot
// execute an instruction: "simulator: the simulator cannot execute '...'").
TestVerification verify_compiled(const litmus::Test& test, const codegen::CompiledTest& compiled,
                                 const runner::SimOptions& sim, const model::CheckOptions& model,
                                 VerificationCache& cache, std::optional<model::Engine> confirm_engine = std::nullopt);

// One test through llc: emit the IR, run llc, convert, judge. Never throws for a test: what
// LLVM IR cannot express is Unsupported; an llc failure or code the conversion or simulator
// cannot handle is Unknown, with the reason.
TestVerification verify_via_llc(const litmus::Test& test, const codegen::LlcTool& llc, const LlcVerifyOptions& options,
                                VerificationCache& cache);

// llc's output for `test` (as observe_everything gives it), already imported
// (codegen::import_llc_assembly), judged as verify_via_llc judges it: the same verdict and
// notes for recorded output, without running llc.
TestVerification verify_llc_result(const litmus::Test& test, const codegen::LlcResult& compiled,
                                   const LlcVerifyOptions& options, VerificationCache& cache);

// Every test, `options.jobs` at a time; the report keeps the order of `tests`.
VerifyReport verify_via_llc(std::span<const litmus::Test> tests, const codegen::LlcTool& llc,
                            const LlcVerifyOptions& options, VerificationCache& cache,
                            const std::function<void(const TestVerification&)>& progress = {});

// The same through the MLIR pipeline (docs/mlir.md): the test as MLIR (options.mlir), mlir-opt,
// mlir-translate and llc of one LLVM version, then judged as verify_via_llc judges llc's code.
// What the MLIR emitter cannot express is Unsupported; a tool failure is Unknown.
TestVerification verify_via_mlir(const litmus::Test& test, const codegen::MlirTools& tools,
                                 const LlcVerifyOptions& options, VerificationCache& cache);
VerifyReport verify_via_mlir(std::span<const litmus::Test> tests, const codegen::MlirTools& tools,
                             const LlcVerifyOptions& options, VerificationCache& cache,
                             const std::function<void(const TestVerification&)>& progress = {});

// Text for people: one line per test (status and reason), each counterexample with its
// outcome, code and trace, and a summary line with the count per status.
std::string render_llc_text(const VerifyReport& report, std::string_view llc, std::string_view target);
// One JSON object per test (`test`, `status`, `reason`, `seconds`, and for a counterexample
// `outcome`, `assembly`, `placement`, `trace`).
nlohmann::json to_json(const TestVerification& v);
// {"llc", "target", "tests", "sound", "counterexample", "racy", "unsupported", "unknown"}.
nlohmann::json summary_json(const VerifyReport& report, std::string_view llc, std::string_view target);

}  // namespace hsalit::verify
