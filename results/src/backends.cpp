#include "hsalit/results/backends.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "hsalit/runner/hardware.hpp"

namespace hsalit::results {

namespace {

// A run of the simulator or of a harness as a backend's result.
runner::BackendResult backend_result(runner::SimResult r) {
  runner::BackendResult out;
  out.observed = std::move(r.observed);
  out.histogram = std::move(r.histogram);
  out.states = r.states;
  out.iterations = r.iterations;
  out.seconds = r.seconds;
  out.unknown = std::move(r.unknown);
  out.traces = std::move(r.traces);
  out.trace_placement = std::move(r.trace_placement);
  out.overlapped = r.overlapped;
  out.instances_per_launch = r.instances_per_launch;
  return out;
}

class SimBackend final : public runner::Backend {
 public:
  explicit SimBackend(runner::SimOptions options) : options_(std::move(options)) {}
  std::string_view name() const override { return "sim"; }
  std::optional<std::string> unavailable() const override { return std::nullopt; }
  runner::BackendResult run(const litmus::Test& test, const codegen::CompiledTest& compiled,
                            const runner::BackendRequest& request) const override {
    runner::SimOptions options = options_;
    options.timeout_seconds = request.timeout_seconds;
    options.keep_traces = request.exhaustive && request.keep_traces;
    runner::SimResult r = request.exhaustive
                              ? runner::run_exhaustive(test, compiled, options)
                              : runner::run_random(test, compiled, request.iterations, request.seed, options);
    return backend_result(std::move(r));
  }
  bool can_trace() const override { return true; }

 private:
  runner::SimOptions options_;
};

// The host emulation needs only the host C++ compiler.
std::optional<std::string> emulation_unavailable() {
  if (!runner::find_host_cxx()) return "no host C++ compiler for the host emulation (HSALIT_CXX, c++, g++ or clang++)";
  return std::nullopt;
}

// The harness options of one hardware run: the campaign's incantations and instances, the
// request's time limit and seed, and as many launches as the requested iterations need.
runner::HarnessOptions harness_for(runner::HarnessOptions options, runner::HardwareBackend backend,
                                   const std::string& target, const runner::BackendRequest& request) {
  options.backend = backend;
  options.target = target;
  options.time_limit_seconds = request.timeout_seconds;
  options.seed = request.seed;
  // `iterations` counts test instances; each launch runs `instances` of them.
  std::uint64_t instances = static_cast<std::uint64_t>(std::max(1, options.instances));
  options.iterations = std::max<std::uint64_t>(1, (request.iterations + instances - 1) / instances);
  return options;
}

// AMD GPUs through HIP: the hardware runner builds a harness around each thread's GCN code
// (docs/hardware.md). Without hipcc or a GPU every test is unknown, with the reason.
class HipBackend final : public runner::Backend {
 public:
  HipBackend(std::string target, runner::HarnessOptions harness)
      : target_(std::move(target)), harness_(std::move(harness)) {}
  std::string_view name() const override { return "hip"; }
  std::optional<std::string> unavailable() const override {
    if (harness_.host_emulation) return emulation_unavailable();
    if (!runner::find_hipcc()) return "no ROCm toolchain on this machine (hipcc not in PATH or HSALIT_HIPCC)";
    if (!std::filesystem::exists("/dev/kfd")) return "no AMD GPU/ROCm runtime on this machine (no /dev/kfd)";
    return std::nullopt;
  }
  runner::BackendResult run(const litmus::Test& test, const codegen::CompiledTest& compiled,
                            const runner::BackendRequest& request) const override {
    runner::BackendResult out;
    out.observed = test.observed();
    if (auto why = unavailable()) {
      out.unknown = *why;
      return out;
    }
    return backend_result(
        runner::run_hardware(test, &compiled, harness_for(harness_, runner::HardwareBackend::Hip, target_, request)));
  }

 private:
  std::string target_;
  runner::HarnessOptions harness_;
};

// NVIDIA GPUs through CUDA: the harness runs the litmus test through the scoped PTX mapping
// of docs/hardware.md (not GCN code); reports show that PTX as the test's code.
class CudaBackend final : public runner::Backend {
 public:
  CudaBackend(std::string arch, runner::HarnessOptions harness)
      : arch_(std::move(arch)), harness_(std::move(harness)) {}
  std::string_view name() const override { return "cuda"; }
  std::optional<std::string> unavailable() const override {
    if (harness_.host_emulation) return emulation_unavailable();
    if (!runner::find_nvcc())
      return "no CUDA toolchain on this machine (nvcc not in HSALIT_NVCC, PATH or /usr/local/cuda)";
    if (!std::filesystem::exists("/dev/nvidiactl"))
      return "no NVIDIA GPU/CUDA runtime on this machine (no /dev/nvidiactl)";
    return std::nullopt;
  }
  std::optional<std::vector<std::string>> own_code(const litmus::Test& test) const override {
    return runner::cuda_thread_code(test, harness_.sc_orders);
  }
  runner::BackendResult run(const litmus::Test& test, const codegen::CompiledTest&,
                            const runner::BackendRequest& request) const override {
    runner::BackendResult out;
    out.observed = test.observed();
    if (auto why = unavailable()) {
      out.unknown = *why;
      return out;
    }
    return backend_result(
        runner::run_hardware(test, nullptr, harness_for(harness_, runner::HardwareBackend::Cuda, arch_, request)));
  }

 private:
  std::string arch_;
  runner::HarnessOptions harness_;
};

}  // namespace

std::vector<std::string_view> backend_names() { return {"sim", "hip", "cuda"}; }

std::unique_ptr<runner::Backend> make_backend(std::string_view name, std::string_view target,
                                              const runner::SimOptions& sim_options,
                                              const runner::HarnessOptions& harness) {
  if (name == "sim") return std::make_unique<SimBackend>(sim_options);
  if (name == "hip") return std::make_unique<HipBackend>(std::string(target), harness);
  if (name == "cuda") return std::make_unique<CudaBackend>(std::string(target), harness);
  return nullptr;
}

}  // namespace hsalit::results
