// What the two textual emitters of a litmus thread as a kernel share (llvm_ir.cpp writes LLVM
// IR, mlir.cpp writes MLIR): the kernel's arguments, LDS variables and result slots, the width
// and initial value of each register, which atomicrmw a read-modify-write is, the quoting of
// names and strings (MLIR's string literals take LLVM's `\XX` escapes too), and ThreadEmitter,
// the walk over a thread's registers and expressions both emitters derive from. The table
// compiler (compiler.cpp) takes a thread's registers from here too (thread_registers).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/codegen/llvm_ir.hpp"
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

// 64 for a `double` access, else 32.
inline int access_bits(const litmus::Instruction& ins) {
  return ins.annots.size == litmus::AccessSize::Double ? 64 : 32;
}

// Each location the test accesses by name, with the width of its widest access.
std::map<std::string, int> widest_accesses(const litmus::Test& test);

// ` syncscope("...")` of an atomic of this scope, or "" for system scope (LLVM's default); the
// same in LLVM IR and in MLIR's llvm dialect.
std::string sync_scope(litmus::Scope s);
// cmpxchg's failure ordering: the success ordering without its release part.
std::string_view failure_ordering(Ordering success);

// The integer type of `bits` bits, `i32` or `i64`, in LLVM IR and in MLIR alike.
std::string int_type(int bits);

// Every register a thread names: the ones it writes, the ones its expressions read, and the
// ones the test initialises for it.
std::set<std::string> thread_registers(const litmus::Test& test, const litmus::Thread& thread);

// The atomicrmw operation of a read-modify-write and its operand: `(OP REG X)` on the rmw's own
// register is OP ("add", "sub", "and", "or", "xor") with X; a value that does not read the
// register is "xchg". {"", nullptr} when no single atomicrmw computes it.
std::pair<std::string_view, const litmus::Expr*> rmw_operation(const litmus::Instruction& ins);

// Why rmw_operation found none, naming the value.
std::string no_rmw_operation(const litmus::Instruction& ins);

// A register's or an expression's value: an SSA name, or a constant (whose `text` is its literal
// in LLVM IR, and empty in MLIR until an operation needs it as an SSA value).
struct Value {
  std::string text;
  int bits = 32;  // 32 or 64
  std::optional<std::int64_t> constant;
};

// The constant as a value of `bits` bits: a 32-bit value is its low dword, sign-extended.
std::int64_t truncated(std::int64_t v, int bits);

// One thread as a kernel, what both emitters share: its plan (KernelPlan, into `k_`), its
// registers as SSA values and the expressions evaluated into them, the order its atomics are
// written with, and its refusals. The syntax of each operation is the emitter's, written by the
// hooks.
class ThreadEmitter {
 public:
  // `language` ends every refusal's message: "LLVM IR", "MLIR". With `sc_orders`, scacq and
  // screl are written seq_cst (as `compile --sc-orders`).
  ThreadEmitter(const litmus::Test& test, int thread, std::string_view language, bool sc_orders);
  virtual ~ThreadEmitter() = default;

 protected:
  virtual Value constant(std::int64_t value, int bits) = 0;
  // A new value `a OP b` at `bits` bits (OP: add, sub, xor, and, or).
  virtual Value arithmetic(std::string_view op, const Value& a, const Value& b, int bits) = 0;
  // A new value, 1 when `a == b` (`a != b` when not `equal`) else 0, at `bits` bits; a and b
  // have the same width.
  virtual Value comparison(bool equal, const Value& a, const Value& b, int bits) = 0;
  // A new value: `v` sign-extended or truncated to `bits` bits.
  virtual Value converted(const Value& v, int bits) = 0;
  // Throws CompileError: "P1:2 'INSTRUCTION': WHY (LANGUAGE)", at the instruction index_ names.
  [[noreturn]] void fail(const std::string& why) const;

  // Plans the kernel (plan_kernel) into `k_` and gives every register its initial value.
  void bind(bool generic);
  // The LLVM ordering an instruction is written with.
  Ordering ordering_of(const litmus::Annotations& a) const { return llvm_ordering(a.order, sc_orders_); }
  bool is_group(const std::string& loc) const { return test_.segment_of(loc) == litmus::Segment::Group; }
  // Records the access at index_ in k_: among the unreachable ones after an unconditional branch.
  void record_access() {
    k_.accesses.push_back(index_);
    if (!reachable_) k_.unreachable.push_back(index_);
  }
  // The address dependency of an access: its register offset, or nullptr when it has none (no
  // offset, or the constant 0). Refuses an address held in a register and a constant offset.
  const litmus::Expr* dependency_offset(const litmus::Instruction& ins) const;

  Value coerce(const Value& v, int bits);
  // Comparisons compare at their operands' width; arithmetic is done at the result's.
  Value eval(const litmus::Expr& e, int bits);
  // The natural width of an expression: 64 when it reads a 64-bit register.
  int width(const litmus::Expr& e) const;
  void assign(const std::string& reg, const Value& v) { regs_[reg] = coerce(v, reg_bits_.at(reg)); }

  const litmus::Test& test_;
  const litmus::Thread& thread_;
  std::string_view language_;
  bool sc_orders_ = false;
  LlvmKernel k_;                         // the kernel's layout (llvm_ir.hpp)
  int index_ = -1;                       // the instruction being written, -1 outside the code
  bool reachable_ = true;                // the code being written runs (no unconditional branch skips it)
  std::map<std::string, Value> regs_;    // register -> its current value
  std::map<std::string, int> reg_bits_;  // register -> 32 or 64 (KernelPlan::bits)
};

}  // namespace hsalit::codegen::detail
