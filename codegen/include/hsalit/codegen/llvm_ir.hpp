// Litmus test -> LLVM IR for the AMDGPU backend: one `amdgpu_kernel` per thread, so that a real
// llc can be asked how it compiles each memory operation (see llc.hpp and
// docs/llvm-ir.md for the module's shape and how llc's output is tied back).
//
// Shape of a kernel @PN:
//   - arguments: one pointer per global location of the test (all of them, in the order of
//     Test::location_names(), so every kernel has the same signature), then `%out`; group
//     locations are module LDS variables `@lds.NAME` (addrspace(3)); with `generic`, every
//     location, group ones included, is a flat `ptr` argument (as `hsalit compile --generic`
//     addresses them) and so is `%out`;
//   - `entry` starts with the marker `call void asm sideeffect "; hsalit begin PN x=$0 ...
//     @out=$N"` that takes every pointer argument in SGPRs (so the kernel-argument loads and
//     their waits come before it; llc's assembly then names the SGPR pair holding each
//     location) and clobbers memory;
//   - the thread's code: ordinary accesses are plain (or, as an option, volatile) loads and
//     stores, atomics are `load atomic`/`store atomic`/`atomicrmw`/`cmpxchg` with the
//     litmus scope as syncscope and its order as ordering, fences are `fence`, `barrier` is
//     @llvm.amdgcn.s.barrier, registers are SSA values (phis at labels), forward branches
//     are basic blocks;
//   - the exit block: the marker "; hsalit end PN" (memory clobber; it also sets a VGPR to 0
//     that every stored value is xor-ed with, so llc cannot compute the values, nor wait for
//     the loads producing them, before the marker), then every register of the thread stored
//     as i64 (sign-extended) into `%out` at byte 8*i, registers sorted by name, `ret void`.
#pragma once

#include <string>
#include <vector>

#include "hsalit/litmus/ast.hpp"

namespace hsalit::codegen {

struct LlvmIrOptions {
  bool generic = false;            // every location through a flat (addrspace(0)) pointer
  bool volatile_ordinary = false;  // ordinary (non-atomic) accesses become `volatile`
  bool sc_orders = false;          // scacq and screl become seq_cst (as `compile --sc-orders`)
};

struct LlvmKernel {
  int thread = 0;
  std::string name;                    // "P0"
  std::vector<std::string> arguments;  // locations passed as pointers, in order; then "out"
  std::vector<std::string> lds;        // group locations the thread uses (module LDS variables)
  std::vector<std::string> results;    // registers stored to %out: slot i at byte 8*i
  std::vector<int> accesses;           // litmus indices of the loads, stores and rmws, in program order
  std::vector<int> unreachable;        // the accesses after an unconditional branch, which llc removes
};

struct LlvmModule {
  std::string text;
  std::vector<LlvmKernel> kernels;
  bool generic = false;  // emitted with LlvmIrOptions::generic
};

// Markers of the kernel's body in llc's assembly (inside `;;#ASMSTART ... ;;#ASMEND`).
inline constexpr const char* kBeginMarker = "hsalit begin";
inline constexpr const char* kEndMarker = "hsalit end";

// Throws CompileError (compiler.hpp) for what LLVM IR cannot express from the test: an address
// held in a register, a location's address as a value, constant address offsets, a
// read-modify-write no single atomicrmw computes.
LlvmModule emit_llvm_ir(const litmus::Test& test, const LlvmIrOptions& options = {});

}  // namespace hsalit::codegen
