// The backends a campaign can run tests on, by name: `sim` (the GCN simulator), `hip` (AMD
// GPUs through ROCm: the compiled GCN code in a harness, runner/include/hsalit/runner/hardware.hpp)
// and `cuda` (NVIDIA GPUs: the litmus test through the scoped PTX mapping of docs/hardware.md).
// A backend that cannot run on this machine says why (`unavailable`) and its tests are
// `unknown`: no result is ever made up.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "hsalit/runner/backend.hpp"
#include "hsalit/runner/hardware.hpp"
#include "hsalit/runner/sim.hpp"

namespace hsalit::results {

std::vector<std::string_view> backend_names();

// nullptr for a name that is not a backend. `target` is the processor the hardware backends
// build for (gfxNNN for hip, sm_NN for cuda); `harness` gives their incantations and instances.
std::unique_ptr<runner::Backend> make_backend(std::string_view name, std::string_view target,
                                              const runner::SimOptions& sim_options = {},
                                              const runner::HarnessOptions& harness = {});

}  // namespace hsalit::results
