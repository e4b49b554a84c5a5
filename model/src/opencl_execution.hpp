// The OpenCL model (opencl_model.hpp) on one concrete candidate execution, for the enum
// engine and for explanations: evaluate_execution's counterpart for ModelVariant::OpenCl.
#pragma once

#include "hsalit/model/execution.hpp"

namespace hsalit::model::detail {

// Whether `x` is consistent under the OpenCL model (the first axiom it fails, by its name in
// the .cat files, otherwise), and its first data race if it is. The relations are sb, rf, mo
// (as co), rb (as fr), sw (as sso), ghb | lhb (as hhb) and the dependencies (as ldo).
Evaluation evaluate_opencl_execution(const Program& p, const ConcreteExecution& x);

}  // namespace hsalit::model::detail
