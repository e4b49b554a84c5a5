// Printing check results: herd7's text format (so that users can diff against herd7) and
// one JSON object per test (schema in docs/check-output.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "hsalit/litmus/ast.hpp"
#include "hsalit/model/checker.hpp"

namespace hsalit::model {

inline constexpr const char* kCheckSchema = "hsalit-check/1";

std::string format_herd(const litmus::Test& test, const CheckResult& r);
nlohmann::json check_to_json(const litmus::Test& test, const CheckResult& r, std::string_view file);
// `1:r0=1; x=2;` for one outcome (observed references only).
std::string format_outcome(const litmus::Test& test, const CheckResult& r, const Outcome& o);

// Always, Sometimes or Never, as herd7 says it of the condition.
std::string_view observation(const CheckResult& r);

}  // namespace hsalit::model
