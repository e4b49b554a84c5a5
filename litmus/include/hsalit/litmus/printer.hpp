// Writing a test back as canonical LISA: parse(print(t)) == t for every checked test.
#pragma once

#include <stdexcept>
#include <string>

#include "hsalit/litmus/ast.hpp"

namespace hsalit::litmus {

std::string print_litmus(const Test& test);
// What follows the threads in LISA (scopes:, regions: when `regions`, locations, filter, the
// final condition), which herd's C format shares.
std::string print_trailers(const Test& test, bool regions = true);

// Why print_c cannot write a test: the thread and instruction, and what C cannot say.
class CPrintError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The test in herd's C format with its OpenCL extensions (docs/litmus-c.md, "Writing C"), which
// the C front end reads back as a test with the same behaviour under HSA's model and OpenCL's:
// the same accesses, orders (an HSA scar load as an acquire load, the same in both models),
// scopes, segments, fences and barriers; registers keep their names (hsalit's temporaries
// %T0, ... become tmp_T0, ...), and an operation of several operators is computed one operator
// per statement into tmp_e0, .... Throws CPrintError for what C cannot write: compare-and-swap,
// register addresses, 64-bit accesses, initial register values, branches that are no `if`, an
// HSA scar store (which also acquires), `sc` beside scacq or screl.
std::string print_c(const Test& test);
std::string print_expr(const Expr& e);
std::string print_prop(const Prop& p);
std::string print_address(const Address& a);
std::string print_instruction(const Instruction& ins);

}  // namespace hsalit::litmus
