// What the two textual emitters of a litmus thread as a kernel share (llvm_ir.cpp writes LLVM
// IR, mlir.cpp writes MLIR): the kernel's arguments, LDS variables and result slots, the width
// and initial value of each register, which atomicrmw a read-modify-write is, and the quoting
// of names and strings (MLIR's string literals take LLVM's `\XX` escapes too).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hsalit/litmus/ast.hpp"

namespace hsalit::codegen::detail {

// A name usable in an LLVM or MLIR identifier: letters, digits and '.' kept, anything else as
// `_XX` (hex).
std::string ident(std::string_view s);

// A string in LLVM's (and MLIR's) quoted syntax: '"', '\\' and non-printable bytes as `\XX`.
std::string string_literal(std::string_view s);

// The kernel of one thread, as both emitters lay it out (llvm_ir.hpp):
struct KernelPlan {
  std::vector<std::string> arguments;           // global locations in Test::location_names() order (every
                                                // location with `generic`), then "out"
  std::vector<std::string> lds;                 // group locations the thread accesses (none with `generic`)
  std::vector<std::string> results;             // the thread's registers, sorted: result slot i is results[i]
  std::map<std::string, int> bits;              // register -> 32, or 64 when a `double` read writes it
  std::map<std::string, std::int64_t> initial;  // register -> its initial value (0 unless the test says)
};

// Throws through `fail` (which must not return) when a register is initialised with an address.
KernelPlan plan_kernel(const litmus::Test& test, const litmus::Thread& thread, bool generic,
                       const std::function<void(const std::string&)>& fail);

// ` syncscope("...")` of an atomic of this scope, or "" for system scope (LLVM's default); the
// same in LLVM IR and in MLIR's llvm dialect.
std::string sync_scope(litmus::Scope s);
// LLVM's name of the order's ordering ("monotonic", "acquire", ...).
std::string_view ordering(litmus::MemoryOrder o);
// cmpxchg's failure ordering: the success ordering without its release part.
std::string_view failure_ordering(litmus::MemoryOrder o);

// Every register an expression reads.
void collect_registers(const litmus::Expr& e, std::set<std::string>& out);

// The atomicrmw operation of a read-modify-write and its operand: `(OP REG X)` on the rmw's own
// register is OP ("add", "sub", "and", "or", "xor") with X; a value that does not read the
// register is "xchg". {"", nullptr} when no single atomicrmw computes it.
std::pair<std::string_view, const litmus::Expr*> rmw_operation(const litmus::Instruction& ins);

// Why rmw_operation found none, naming the value.
std::string no_rmw_operation(const litmus::Instruction& ins);

}  // namespace hsalit::codegen::detail
