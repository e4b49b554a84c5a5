// Asking a real llc how it compiles a litmus test, and comparing its code with a mapping
// table's (docs/llvm-ir.md).
//
// 1. emit_llvm_ir (llvm_ir.hpp) writes one kernel per thread;
// 2. run_llc runs `llc-NN -march=amdgcn -mcpu=TARGET -O2` on it (with the atomic optimizer
//    off where the llc has the option);
// 3. import_llc_assembly cuts each kernel's body out of the assembly (between the "hsalit
//    begin" and "hsalit end" markers), parses it with parse_assembly and ties it back:
//    - memory instructions are matched to the litmus loads, stores and rmws IN ORDER: the
//      k-th memory instruction of the body implements the k-th reachable litmus access of
//      the thread, and must be of its kind (load, store, atomic). When the counts or kinds
//      differ (llc merged, dropped or reordered non-atomic accesses, or moved a block), the
//      thread gets a precise problem and only the longest agreeing prefix and suffix are tied;
//    - the memory-model instructions between two accesses (waits, cache invalidates and
//      writebacks, barriers) are given to the access before them ("after"), to a fence or
//      barrier between them ("fence", "barrier") or to the access after them ("before"), by
//      the shape of the legalizer's sequences (see assign_gap in llc.cpp);
// 4. compare_with_table puts the table's sequence beside llc's for every litmus memory
//    operation and reports differences semantically: per gap between two accesses, which
//    counters are known to be zero before each cache operation and before the next access
//    (so merged waits and waits llc drops because nothing is outstanding compare equal), and
//    which cache invalidates/writebacks (with their bits) and barriers appear.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/codegen/gcn.hpp"
#include "hsalit/codegen/llvm_ir.hpp"
#include "hsalit/codegen/target.hpp"
#include "hsalit/litmus/ast.hpp"

namespace hsalit::codegen {

struct LlcError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct LlcTool {
  std::string name;  // as asked for: "llc-19", "llc", or a path
  std::filesystem::path path;
  int version = 0;                 // LLVM major version, from `--version`
  std::vector<std::string> flags;  // what this version needs: -opaque-pointers (14),
                                   // the atomic optimizer off
};

// Finds an llc (`llc-19`, `llc`, or a path) and probes its version and options. Throws
// LlcError "llc-19 not found: install Debian package llvm-19" when it is missing.
LlcTool find_llc(std::string_view name);

// The AMDGPU processors this llc knows (`llc -march=amdgcn -mcpu=help`, read once per llc);
// empty when it lists none (then nothing is known either way).
std::vector<std::string> llc_processors(const LlcTool& llc);

// The Debian package that provides a tool named like `llc-19` or `opt-16`; "" if unknown.
std::string debian_package_for(std::string_view tool);

// The llc command line for a target (without input and output files).
std::vector<std::string> llc_command(const LlcTool& llc, const Target& target);

// Runs llc on the module for the target and returns the assembly. Throws LlcError with llc's
// messages when it fails, and when it does not know the processor (llc then compiles for a
// generic one, or crashes: its code is not the target's either way).
std::string run_llc(const LlcTool& llc, std::string_view ir, const Target& target);

struct LlcThread {
  int thread = 0;
  std::vector<Instruction> code;      // the body between the markers; origins set where tied
  std::vector<int> tied;              // per reachable litmus access (LlvmKernel::accesses order):
                                      // index in `code` of its memory instruction, or -1
  std::vector<int> unreachable;       // litmus accesses after an unconditional branch (not tied)
  std::vector<std::string> problems;  // tying problems, parse errors
  bool complete() const;              // every reachable access tied and no problem
};

struct LlcResult {
  std::string llc;  // the tool's name
  int llvm_version = 0;
  std::string target;
  std::string ir, assembly;
  std::vector<LlcThread> threads;
};

// Cuts the kernels out of llc's assembly, parses them and ties them to the test's litmus
// instructions.
LlcResult import_llc_assembly(std::string_view assembly, const litmus::Test& test, const LlvmModule& module,
                              const Target& target);

// emit_llvm_ir, run_llc and import_llc_assembly in one.
LlcResult compile_via_llc(const litmus::Test& test, const Target& target, const LlcTool& llc,
                          const LlvmIrOptions& options = {});

// One litmus instruction that has memory-model code (a load, store, rmw, fence or barrier),
// with the table's and llc's instructions for it.
struct OperationComparison {
  int thread = 0;
  int instruction = 0;                   // index in the thread's code
  std::string litmus;                    // the instruction as written
  std::string operation;                 // MemoryOperation::describe(), "barrier" for barriers
  std::string row;                       // the table row
  std::vector<Instruction> table, llc;   // origin.role: before, access, after, fence, barrier
  std::vector<std::string> differences;  // "missing wait: ...", "extra ...", ...
  bool tied = false;                     // llc's code has the access (always true for fences, barriers)
  bool unreachable = false;              // after an unconditional branch: llc removes it
};

struct ThreadComparison {
  int thread = 0;
  std::vector<OperationComparison> operations;
  std::vector<std::string> problems;  // from tying (the comparison is partial when not empty)
};

struct Comparison {
  std::string test, target, table, llc;
  std::vector<ThreadComparison> threads;
  int difference_count() const;
  int problem_count() const;
};

// Compares the table's code for the test (`compile` with the same generic setting) with llc's.
Comparison compare_with_table(const litmus::Test& test, const CompiledTest& table, const LlcResult& llc,
                              const Target& target);

// llc's code alone, per litmus memory operation (for a target without a table): a Comparison
// whose table side is empty and whose `table` is "".
Comparison describe_llc(const litmus::Test& test, const LlcResult& llc, bool generic);

// Human-readable side-by-side report and JSON.
std::string render_comparison(const Comparison& c);
nlohmann::json to_json(const Comparison& c);

}  // namespace hsalit::codegen
