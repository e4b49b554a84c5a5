#include "hsalit/results/backends.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "hsalit/runner/hardware.hpp"

namespace hsalit::results {

namespace {

class SimBackend final : public runner::Backend {
 public:
  explicit SimBackend(runner::SimOptions options) : options_(std::move(options)) {}
  std::string_view name() const override { return "sim"; }
  std::optional<std::string> unavailable() const override { return std::nullopt; }
  runner::BackendResult run(const litmus::Test& test, const codegen::CompiledTest& compiled,
                            const runner::BackendRequest& request) const override {
    runner::SimOptions options = options_;
    options.timeout_seconds = request.timeout_seconds;
    options.keep_traces = false;
    runner::SimResult r = request.exhaustive
                              ? runner::run_exhaustive(test, compiled, options)
                              : runner::run_random(test, compiled, request.iterations, request.seed, options);
    return {std::move(r.observed), std::move(r.histogram), r.states, r.iterations, r.seconds, std::move(r.unknown)};
  }

 private:
  runner::SimOptions options_;
};

// A hardware backend whose runtime is not part of this build: every test is unknown, with
// the reason, never a made-up histogram.
class UnavailableBackend final : public runner::Backend {
 public:
  UnavailableBackend(std::string_view name, std::string reason) : name_(name), reason_(std::move(reason)) {}
  std::string_view name() const override { return name_; }
  std::optional<std::string> unavailable() const override { return reason_; }
  runner::BackendResult run(const litmus::Test& test, const codegen::CompiledTest&,
                            const runner::BackendRequest&) const override {
    runner::BackendResult r;
    r.observed = test.observed();
    r.unknown = reason_;
    return r;
  }

 private:
  std::string_view name_;
  std::string reason_;
};

// AMD GPUs through HIP: the hardware runner builds a harness around each thread's GCN code
// (docs/hardware.md). Without hipcc or a GPU every test is unknown, with the reason.
class HipBackend final : public runner::Backend {
 public:
  explicit HipBackend(std::string target) : target_(std::move(target)) {}
  std::string_view name() const override { return "hip"; }
  std::optional<std::string> unavailable() const override {
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
    runner::HarnessOptions options;
    options.backend = runner::HardwareBackend::Hip;
    options.target = target_;
    options.time_limit_seconds = request.timeout_seconds;
    options.seed = request.seed;
    // `iterations` counts test instances; each launch runs `instances` of them.
    std::uint64_t instances = static_cast<std::uint64_t>(std::max(1, options.instances));
    options.iterations = std::max<std::uint64_t>(1, (request.iterations + instances - 1) / instances);
    runner::SimResult r = runner::run_hardware(test, &compiled, options);
    return {std::move(r.observed), std::move(r.histogram), r.states, r.iterations, r.seconds, std::move(r.unknown)};
  }

 private:
  std::string target_;
};

std::string cuda_reason() {
  return fmt::format(
      "campaigns compile GCN code for AMD targets, and the CUDA harness (hsalit run --backend cuda) runs its own PTX "
      "mapping, not that code{}",
      std::filesystem::exists("/dev/nvidiactl") ? "" : "; this machine has no NVIDIA GPU/CUDA runtime either");
}

}  // namespace

std::vector<std::string_view> backend_names() { return {"sim", "hip", "cuda"}; }

std::unique_ptr<runner::Backend> make_backend(std::string_view name, std::string_view target,
                                              const runner::SimOptions& sim_options) {
  if (name == "sim") return std::make_unique<SimBackend>(sim_options);
  if (name == "hip") return std::make_unique<HipBackend>(std::string(target));
  if (name == "cuda") return std::make_unique<UnavailableBackend>("cuda", cuda_reason());
  return nullptr;
}

}  // namespace hsalit::results
