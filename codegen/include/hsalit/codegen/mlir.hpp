// Litmus test -> MLIR (the `gpu`, `memref`, `arith`, `cf`, `llvm` and `amdgpu` dialects), and the
// real MLIR pipeline from there to GCN: `mlir-opt` (GPU and AMDGPU to ROCDL), `mlir-translate
// --mlir-to-llvmir`, then `llc` of the same LLVM version (docs/mlir.md).
//
// The module is one `gpu.module` per test holding one `gpu.func ... kernel` per thread, laid out
// as the LLVM IR module's kernels are (llvm_ir.hpp: the same arguments in the same order, the
// same begin and end markers, the same result slots), so that the assembly the pipeline emits is
// tied back and simulated exactly as llc's is (llc.hpp, llc_program.hpp):
//   - arguments: one `memref<1xiN, #gpu.address_space<global>>` per global location, then
//     `%out : memref<Kxi64, #gpu.address_space<global>>`; group locations are workgroup
//     attributions (`memref<1xiN, #gpu.address_space<workgroup>>`);
//   - ordinary accesses are `memref.load`/`memref.store`; atomics are `llvm.load`/`llvm.store`
//     with `atomic`, `llvm.atomicrmw` and `llvm.cmpxchg`, with the order as ordering and the
//     scope as `syncscope` (the same correspondence as the LLVM IR's), on the pointer
//     `memref.extract_aligned_pointer_as_index` gives (the memref dialect has no ordered atomics);
//   - fences are `llvm.fence`, barriers `gpu.barrier`;
//   - with MlirOps::Amdgpu, accesses to global locations are `amdgpu.raw_buffer_load`/
//     `raw_buffer_store`/`raw_buffer_atomic_cmpswap` (an atomic's order and scope as
//     `llvm.fence`s around it: release part before, acquire part after, as MLIR-based compilers
//     emit ordered buffer atomics), and barriers of the group segment alone (`barrier[group]`)
//     `amdgpu.lds_barrier` (it waits for LDS operations only); read-modify-writes the dialect
//     has no operation for (exchange, add, sub, and, or, xor) stay `llvm.atomicrmw`.
// After the per-thread kernels, `@test(locations..., %out, %wave_size: i32)` is the whole test
// as one kernel to rerun: launched with one block per work-group of the test and waves of
// %wave_size lanes, each hardware thread picks by `gpu.block_id`/`gpu.thread_id` the litmus
// thread the HIP harness would put there (one instance: threads of one work-group in one block,
// of one wave in one wave, in consecutive lanes), runs its code without markers, and stores its
// registers to %out (P0's first); the other threads return.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hsalit/codegen/llc.hpp"
#include "hsalit/codegen/llvm_ir.hpp"
#include "hsalit/codegen/target.hpp"
#include "hsalit/litmus/ast.hpp"

namespace hsalit::codegen {

enum class MlirOps : std::uint8_t {
  Llvm,    // memref and llvm dialect operations (the default)
  Amdgpu,  // amdgpu.raw_buffer_* for global accesses, amdgpu.lds_barrier for group barriers
};
std::string_view to_string(MlirOps ops);
std::optional<MlirOps> mlir_ops_from_string(std::string_view text);  // "llvm" or "amdgpu"

struct MlirOptions {
  MlirOps ops = MlirOps::Llvm;
  bool volatile_ordinary = false;  // ordinary accesses become `llvm.load volatile`/`llvm.store volatile`
  bool sc_orders = false;          // scacq and screl become seq_cst (as `compile --sc-orders`)
};

// The module's text and, per kernel, what the LLVM IR emitter records (arguments, result slots,
// accesses). Throws CompileError for what the emitter cannot express (as emit_llvm_ir).
LlvmModule emit_mlir(const litmus::Test& test, const MlirOptions& options = {});

// The MLIR tools of one LLVM version: `mlir-opt-19` names mlir-translate-19 and llc-19 beside it.
struct MlirTools {
  std::string name;  // as asked for: "mlir-opt-19", "mlir-opt", or a path
  std::filesystem::path mlir_opt, mlir_translate;
  int version = 0;  // LLVM major version of mlir-opt (`--version`)
  LlcTool llc;      // the llc of the same version
};

// Finds mlir-opt, the mlir-translate and llc of its version. Throws LlcError "mlir-opt-19 not
// found: install Debian package mlir-19-tools" when one is missing, or when versions differ.
MlirTools find_mlir_tools(std::string_view mlir_opt);

// mlir-opt's `--pass-pipeline` for a target: GPU (with the AMDGPU patterns) to ROCDL for the
// chipset, kernel memrefs as bare pointers, then the left-over casts reconciled.
std::string mlir_pass_pipeline(const Target& target);

// Runs mlir-opt and mlir-translate on the module and returns its kernels as LLVM IR for the
// amdgcn-amd-amdhsa triple. Throws LlcError with the tool's messages when one fails.
std::string lower_mlir_to_llvm_ir(const MlirTools& tools, std::string_view mlir, const Target& target);

// The same for many modules at once, in one mlir-opt and one mlir-translate process
// (`--split-input-file`): the per-test cost is then llc's alone. When a batch fails, its
// modules are lowered one by one, so that each failure stays with its module. Per module, the
// LLVM IR, or the message lower_mlir_to_llvm_ir would throw for it.
struct LoweredModule {
  std::string ir;
  std::string error;  // not empty when the module could not be lowered
};
std::vector<LoweredModule> lower_mlir_to_llvm_ir(const MlirTools& tools, std::span<const std::string> modules,
                                                 const Target& target);

// emit_mlir, lower_mlir_to_llvm_ir, run_llc and import_llc_assembly in one.
LlcResult compile_via_mlir(const litmus::Test& test, const Target& target, const MlirTools& tools,
                           const MlirOptions& options = {});

// run_llc and import_llc_assembly on a module emit_mlir wrote for `test` and its LLVM IR.
LlcResult compile_lowered_mlir(const litmus::Test& test, const Target& target, const MlirTools& tools,
                               const LlvmModule& module, std::string ir);

}  // namespace hsalit::codegen
