// Semantic checks of a parsed test (HSA SysArch 3.3 rules on annotations, registers,
// labels, the scope tree and the condition).
#pragma once

#include "hsalit/litmus/ast.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/source.hpp"

namespace hsalit::litmus {

// Reports every semantic error and warning of `test` into `diags`, and resolves its scope
// tree (filling in the default tree, with a warning, when the test has none). Returns
// true when there is no error.
bool check_test(Test& test, DiagnosticList& diags, const ParseLimits& limits = {});

}  // namespace hsalit::litmus
