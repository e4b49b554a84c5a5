// herd's C litmus format (with its OpenCL extensions) as a second input language, lowered to
// the same `Test` the LISA parser produces (docs/litmus-c.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "hsalit/litmus/ast.hpp"
#include "hsalit/litmus/parser.hpp"
#include "lexer.hpp"

namespace hsalit::litmus::detail {

// hsalit's temporary registers are %T0, %T1, ...: whether a C name (without the `%`) is
// one of theirs, T<digits>. The C reader refuses such a register name, the C printer renames
// the temporaries so that they read back.
inline bool is_temporary_name(std::string_view s) {
  return s.size() > 1 && s[0] == 'T' && s.find_first_not_of("0123456789", 1) == std::string_view::npos;
}

// C's binary operators as herd's C tests write them (`r0 = a OP b`), and the operations of
// `atomic_fetch_OP_explicit`: one table each, which the C reader reads and the C printer writes.
struct COperator {
  std::string_view text;
  BinaryOp op;
};
inline constexpr COperator kCOperators[] = {{"+", BinaryOp::Add}, {"-", BinaryOp::Sub}, {"^", BinaryOp::Xor},
                                            {"&", BinaryOp::And}, {"|", BinaryOp::Or},  {"==", BinaryOp::Eq},
                                            {"!=", BinaryOp::Ne}};
inline constexpr COperator kCFetchOperations[] = {{"add", BinaryOp::Add},
                                                  {"sub", BinaryOp::Sub},
                                                  {"and", BinaryOp::And},
                                                  {"or", BinaryOp::Or},
                                                  {"xor", BinaryOp::Xor}};

// The entry of `table` with that text, or that operation.
template <std::size_t N>
const COperator* find_operator(const COperator (&table)[N], std::string_view text) {
  for (const COperator& o : table)
    if (o.text == text) return &o;
  return nullptr;
}
template <std::size_t N>
const COperator* find_operator(const COperator (&table)[N], BinaryOp op) {
  for (const COperator& o : table)
    if (o.op == op) return &o;
  return nullptr;
}

// What a front end reads in a way a reader may not expect; printed as a warning.
struct ParseWarning {
  SourcePos pos;
  std::string message;
};

// Whether the first word of the file is `C`, `OpenCL` or `OPENCL` (herd's C dialects).
bool starts_c_test(std::string_view text);

// Reads a test in herd's C format. Throws SyntaxError at the first error; the test still has
// to pass check_test.
Test parse_c_test(std::string_view text, const ParseLimits& limits, std::vector<ParseWarning>& warnings);

// The LISA reader of what follows the threads (scopes:, regions:, locations, filter, the final
// condition), from where `lexer` stands, into `test` (parser.cpp). With `named_registers`, a
// condition's `N:NAME` may name a register by any identifier (herd's C tests name registers
// freely), which the caller then renames. Throws SyntaxError.
Test parse_lisa_trailers(Lexer lexer, Test test, const ParseLimits& limits, std::vector<ParseWarning>& warnings,
                         bool named_registers = false);

}  // namespace hsalit::litmus::detail
