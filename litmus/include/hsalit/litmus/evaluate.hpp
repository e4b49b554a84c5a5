// Evaluating a condition's proposition on one final state. The model and the simulators each
// describe a final state their own way; they share this one definition of the proposition.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "hsalit/litmus/ast.hpp"

namespace hsalit::litmus {

// `value` gives the final value of a register or location the proposition names; `address`
// gives the value that stands for a location's address (for `0:r3=x`).
bool evaluate(const Prop& prop, const std::function<std::int64_t(const ObservedRef&)>& value,
              const std::function<std::int64_t(const std::string&)>& address);

}  // namespace hsalit::litmus
