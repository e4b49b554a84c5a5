// Shared between the hardware harness generators (hardware_program.cpp, hip_asm.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/litmus/ast.hpp"
#include "hsalit/runner/hardware.hpp"

namespace hsalit::runner::detail {

// The atomic operation a litmus rmw is: an exchange, a fetch-and-op with an operand that does
// not read the register, or a compare-and-swap.
struct RmwShape {
  enum class Kind : std::uint8_t { Exchange, Add, Sub, And, Or, Xor, Cas };
  Kind kind = Kind::Exchange;
  litmus::Expr operand;  // the value exchanged or combined; the new value for Cas
};
// nullopt when no single atomic computes the rmw's new value.
std::optional<RmwShape> rmw_shape(const litmus::Instruction& ins);

// Test facts the generators need.
struct TestFacts {
  std::vector<std::string> locations;               // Test::location_names()
  std::vector<bool> group;                          // per location: group segment
  std::vector<bool> wide;                           // per location: some 64-bit access
  std::vector<std::vector<std::string>> registers;  // per thread: every register, sorted
  std::vector<std::vector<bool>> wide_registers;    // per thread, per register: written by a 64-bit read
};
TestFacts test_facts(const litmus::Test& test);
int location_index(const TestFacts& facts, const std::string& name);

// The asm block of one thread for HIP's inline-assembly mode: a C++ statement sequence that
// declares its outputs, runs the compiled thread as one `asm volatile`, and assigns the
// litmus registers (C++ variables named `r_<name>`, long long). Raises HardwareUnsupported.
std::string hip_asm_thread_body(const litmus::Test& test, const TestFacts& facts, const codegen::CompiledTest& compiled,
                                int thread);

// A C identifier for a litmus register (`r0` -> `r_r0`, `%T1` -> `r__25T1`).
std::string register_variable(const std::string& name);

// Per thread, how many work-group barriers its code holds.
std::vector<int> barrier_counts(const litmus::Test& test);

// Per thread, whether it runs on the host: the threads of every agent but P0's
// (docs/hardware.md, "The host as an agent").
std::vector<bool> host_threads(const litmus::Test& test);

}  // namespace hsalit::runner::detail
