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
