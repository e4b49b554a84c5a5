// llc's kernels for a litmus test as a program the simulator runs (docs/verification.md,
// "The real compiler"): the output of compile_via_llc (llc.hpp) turned into a CompiledTest.
//
// Per kernel PN, the whole function is kept (prologue, body, exit blocks), with four changes:
//   - the kernel-argument loads before the begin marker are replaced, at the marker, by one
//     `s_load_dwordx2 PAIR, s[0:1], 8*i` per location the marker names (PAIR is the SGPR pair
//     llc passes to the marker, i the location's index in Test::location_names(): the
//     simulator's convention for kernel arguments, as in `compile`);
//   - the stores of the results to `%out` (after the end marker, slot i at byte 8*i, registers
//     sorted by name, llvm_ir.hpp) become `v_mov_b32 vR, vDATA` into one VGPR per litmus
//     register (the low dword of each slot; results are i32 sign-extended), and the waits after
//     the first of them wait for every vector memory operation (vmcnt(0)), as the removed
//     stores no longer count;
//   - LDS addresses: llc lays out each kernel's LDS variables on its own, so each `ds_`
//     instruction's address (a constant) is mapped to its group location through the tied
//     accesses and rewritten to the simulator's layout (8 bytes per group location);
//   - VALU instructions whose results nothing reads any more (the sign extensions of the
//     results) are removed.
// Instructions between the markers keep the origins import_llc_assembly gave them.
#pragma once

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/codegen/llc.hpp"
#include "hsalit/litmus/ast.hpp"

namespace hsalit::codegen {

// Throws CompileError with the thread and the reason when llc's code does not have the shape
// described above (a missing marker, an address that is not a constant, a result never stored).
CompiledTest to_compiled_test(const LlcResult& llc, const litmus::Test& test);

}  // namespace hsalit::codegen
