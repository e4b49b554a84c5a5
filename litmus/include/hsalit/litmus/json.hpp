// JSON form of the AST (documented in docs/litmus-format.md). to_json then from_json gives
// an equal test.
#pragma once

#include <nlohmann/json.hpp>

#include "hsalit/litmus/ast.hpp"
#include "hsalit/litmus/parser.hpp"

namespace hsalit::litmus {

inline constexpr const char* kAstSchema = "hsalit-litmus/1";

nlohmann::json to_json(const Test& test);
// Reads and checks a test; malformed documents get diagnostics naming the JSON pointer of
// the offending member.
ParseResult test_from_json(const nlohmann::json& doc, const ParseLimits& limits = {});

}  // namespace hsalit::litmus
