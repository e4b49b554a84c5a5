// The width of values on the backends. The model computes with 64-bit values; the GCN code,
// the simulator that runs it and the hardware harnesses hold a value in a 32-bit register
// and a single-size location in a 32-bit dword, and report it as a signed 32-bit number
// (docs/simulator.md, "Values"). A test is compiled or run for them only when its constants
// fit, and judged there only when no value the model can compute leaves that range:
// otherwise the backend would wrap what the model does not, and a final state the model
// forbids would be reported that no program reaches.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "hsalit/litmus/ast.hpp"
#include "hsalit/litmus/source.hpp"

namespace hsalit::litmus {

inline constexpr std::int64_t kBackendValueMin = std::numeric_limits<std::int32_t>::min();
inline constexpr std::int64_t kBackendValueMax = std::numeric_limits<std::int32_t>::max();

inline bool fits_backend_value(std::int64_t v) { return v >= kBackendValueMin && v <= kBackendValueMax; }

// Reports an error into `diags` for every constant of the test (initial values, values
// stored, compared, moved and in the condition or filter) outside the signed 32-bit range,
// at its position. Returns true when there is none.
bool check_backend_constants(const Test& test, DiagnosticList& diags);

// Whether some value the model can compute for the test (an operation's result, a value
// written or read) may leave the signed 32-bit range, over-approximated by intervals: the
// first operation that may, at its position, with the reason. Loop-free threads (litmus
// branches go forward) are followed instruction by instruction; a location holds what its
// initial value and the writes of the threads give, over as many rounds as the test has
// writes plus two (the same bound the model's value domains use: a value of an execution
// without thin-air cycles comes through at most one write of each write event). nullopt
// when every value fits.
std::optional<Diagnostic> value_beyond_backend_width(const Test& test);

// value_beyond_backend_width's reason as one line: `FILE:LINE:COL: MESSAGE` (a reason for a
// verdict `unknown`, not an error of the input); nullopt when every value fits.
std::optional<std::string> value_width_reason(const Test& test, std::string_view file);

}  // namespace hsalit::litmus
