// What a campaign asks of a backend: run one compiled test and return a histogram of final
// states, or say why it could not ("unknown: why"). The simulator is one backend; the
// hardware backends (HIP on AMD GPUs, CUDA) implement the same interface. Header only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/litmus/ast.hpp"
#include "hsalit/runner/sim.hpp"

namespace hsalit::runner {

struct BackendRequest {
  bool exhaustive = true;        // every reachable outcome (the simulator only)
  std::uint64_t iterations = 0;  // otherwise: runs
  std::uint64_t seed = 1;
  double timeout_seconds = 60;  // past it, the result is unknown (with what was seen so far)
  // Also keep, for each outcome reached, the transitions that reach it (BackendResult::traces):
  // only a backend that can_trace() does, and the simulator only in exhaustive mode.
  bool keep_traces = false;
};

struct BackendResult {
  std::vector<litmus::ObservedRef> observed;      // the columns of every outcome
  std::map<SimOutcome, std::uint64_t> histogram;  // outcome -> count
  std::uint64_t states = 0;                       // exhaustive simulation
  std::uint64_t iterations = 0;
  double seconds = 0;
  // Set when the histogram is not the answer asked for: partial (bound, time limit) or empty
  // (no device, no runtime). Never a made-up histogram.
  std::optional<std::string> unknown;
  // With BackendRequest::keep_traces: per outcome, a shortest list of transitions that reaches
  // it and where the threads ran, as `hsalit run --trace` prints them.
  std::map<SimOutcome, std::vector<std::string>> traces;
  std::map<SimOutcome, std::string> trace_placement;
  std::optional<std::uint64_t> overlapped;            // hardware with host threads (SimResult::overlapped)
  std::optional<std::uint64_t> instances_per_launch;  // hardware (SimResult::instances_per_launch)
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string_view name() const = 0;
  // Why this backend cannot run anything on this machine, checked once per campaign.
  virtual std::optional<std::string> unavailable() const = 0;
  virtual BackendResult run(const litmus::Test& test, const codegen::CompiledTest& compiled,
                            const BackendRequest& request) const = 0;
  // For a backend that runs its own translation of the litmus test rather than the compiled
  // GCN code (CUDA: inline PTX), that code per thread, shown in reports in place of the GCN
  // code; it throws std::runtime_error with the reason for a test it cannot express.
  // std::nullopt: the backend runs the compiled code.
  virtual std::optional<std::vector<std::string>> own_code(const litmus::Test&) const { return std::nullopt; }
  // Whether the backend can say how it reached an outcome (BackendRequest::keep_traces): the
  // simulator can; a GPU cannot.
  virtual bool can_trace() const { return false; }
};

}  // namespace hsalit::runner
