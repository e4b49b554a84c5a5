// Writing a test back as canonical LISA: parse(print(t)) == t for every checked test.
#pragma once

#include <string>

#include "hsalit/litmus/ast.hpp"

namespace hsalit::litmus {

std::string print_litmus(const Test& test);
std::string print_expr(const Expr& e);
std::string print_prop(const Prop& p);
std::string print_address(const Address& a);
std::string print_instruction(const Instruction& ins);

}  // namespace hsalit::litmus
