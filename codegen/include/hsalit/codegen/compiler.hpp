// Compiling a litmus test for a GPU target: per thread, the GCN program that implements it
// with the sequences of a mapping table, registers allocated by the target's rules.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hsalit/codegen/gcn.hpp"
#include "hsalit/codegen/mapping.hpp"
#include "hsalit/codegen/target.hpp"
#include "hsalit/litmus/ast.hpp"

namespace hsalit::codegen {

struct CompileOptions {
  std::string flavour = "hsa";  // a flavour of the mapping table (hsa, opencl, ...)
  bool generic = false;         // access every location through flat (generic) addresses
  // How HSA orders select LLVM-ordering rows: scacq -> acquire and screl -> release (the
  // default, as compilers map HSA to LLVM), or both -> seq_cst (HSA SysArch 3.3.1 footnotes:
  // scacq and screl are "similar to seq_cst ordering ... not acquire/release ordering").
  bool sc_acquire_release = false;
  // Wave64 code on a target whose default is wave32 (GFX10 and later): `vcc` instead of
  // `vcc_lo`; assembled with `-mattr=+wavefrontsize64` (assembler_flags, target.hpp).
  bool wave64 = false;
};

// The wave size code for the target is compiled for: the target's default, or 64 with `wave64`.
int wave_size(const Target& target, const CompileOptions& options);

// How a location is addressed in a thread's program: the operand that holds its base, and
// for LDS its byte offset.
struct LocationBinding {
  std::string name;
  AddressSpace space = AddressSpace::Global;
  Operand base;                     // s[..] (global: pair, buffer: quad), v[..] pair (flat), vN (LDS)
  std::int64_t kernarg_offset = 0;  // where the prologue loads the base from (global, flat, buffer)
  std::int64_t lds_offset = 0;      // LDS locations
};

struct CompiledThread {
  int thread = 0;
  std::vector<Instruction> code;         // prologue, body, s_endpgm
  std::map<std::string, int> registers;  // litmus register -> VGPR
  std::vector<LocationBinding> locations;
  int vgprs = 0, sgprs = 0;  // registers used
};

struct CompiledTest {
  std::string test;
  std::string target;
  std::string table;
  std::string flavour;
  bool generic = false;
  std::vector<CompiledThread> threads;
  int wave_size = 64;  // 32: lane masks are vcc_lo (GFX10+ by default)
};

// Raised for a test the target or table cannot express, with the thread, the instruction and
// the reason.
struct CompileError : std::runtime_error {
  using std::runtime_error::runtime_error;
  CompileError(const std::string& what, std::string missing)
      : std::runtime_error(what), missing_row(std::move(missing)) {}
  // Set when the table has no row for an operation: the operation, as MemoryOperation::describe.
  std::string missing_row;
};

CompiledTest compile(const litmus::Test& test, const Target& target, const TargetCatalog& catalog,
                     const MappingTable& table, const CompileOptions& options = {});

// One thread of `compile(test, ...)`, the others not compiled (each thread compiles on its
// own); for a caller that reads one thread's code only.
CompiledThread compile_thread(const litmus::Test& test, int thread, const Target& target, const TargetCatalog& catalog,
                              const MappingTable& table, const CompileOptions& options = {});

// A row's sequence in a flavour, for a target: the access (absent for fences) with the row's
// cache bits merged in, and the literal instructions before and after it with the target's
// substitutions. Origins name the row and the role (before, access, after, fence).
std::vector<Instruction> expand_row(const MappingRow& row, const Target& target, std::optional<Instruction> access,
                                    std::string_view flavour);

// A stand-in memory instruction for an operation, with fixed registers, as the compiler would
// emit it on the target (for checking rows on their own, e.g. with the assembler).
Instruction sample_access(const MemoryOperation& op, const Target& target, const TargetCatalog& catalog);

// How HSA orders and scopes read in LLVM's vocabulary: rlx -> monotonic, scacq -> acquire,
// screl -> release, scar -> seq_cst (scacq and screl -> seq_cst with `sc_acquire_release`);
// wi -> singlethread, wave -> wavefront, wg -> workgroup. The table lookup and the LLVM IR
// emitter both use these.
Ordering llvm_ordering(litmus::MemoryOrder order, bool sc_acquire_release = false);
SyncScope llvm_sync_scope(litmus::Scope scope);

// The key a litmus memory operation is looked up by (HSA order and scope in LLVM's names).
MemoryOperation memory_operation(const litmus::Test& test, const litmus::Instruction& ins, bool generic,
                                 bool sc_acquire_release = false);

// Assembly for all threads, each as a labelled block, annotated with the table rows; it
// assembles with llvm-mc for the target.
std::string emit_assembly(const CompiledTest& compiled, const litmus::Test& test);
nlohmann::json to_json(const CompiledTest& compiled);

}  // namespace hsalit::codegen
