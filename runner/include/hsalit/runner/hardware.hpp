// Running litmus tests on real GPUs (docs/hardware.md): a generated, self-contained harness
// program per test, for AMD GPUs through HIP and for NVIDIA GPUs through CUDA, built with the
// vendor compiler, run, and its histogram read back in the simulator's terms (SimResult).
//
// The harness runs many instances of the test per kernel launch, each on its own memory, with
// the threads of an instance placed in waves and work-groups as the scope tree says, a
// device-wide start barrier, optional incantations (stress, shuffle, pre-stress, spacing), and
// outcome counting on the device. The same source also builds as plain C++ with
// -DHSALIT_HOST_EMULATION, where std::thread and std::atomic_ref stand in for the GPU, so the
// harness logic is tested without a GPU.
//
// The one call a driver needs is run_hardware(): it never throws for a missing compiler, a
// missing GPU or an unsupported test; it returns a SimResult whose `unknown` says why there is
// no histogram.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/litmus/ast.hpp"
#include "hsalit/runner/sim.hpp"

namespace hsalit::runner {

enum class HardwareBackend : std::uint8_t {
  Hip,   // AMD GPUs: hipcc --offload-arch=TARGET
  Cuda,  // NVIDIA GPUs: nvcc -arch=TARGET
};
std::string_view to_string(HardwareBackend b);  // hip, cuda

// Incantations that make weak behaviours more likely (docs/hardware.md, "Incantations").
struct Incantations {
  bool stress = false;     // spare work-groups and idle lanes hammer a scratch region
  bool shuffle = false;    // random thread-to-instance assignment, new every iteration
  bool prestress = false;  // test threads touch the scratch region just before the start barrier
  bool spacing = false;    // each location of each instance on its own 256-byte line
  bool delay = false;      // each test thread waits a random while after the start (per instance with host threads)
  friend bool operator==(const Incantations&, const Incantations&) = default;
};
// "stress,shuffle,prestress,spacing,delay" (any subset; "" or "none" for none, "all" for all).
// nullopt with `error` set for an unknown word.
std::optional<Incantations> parse_incantations(std::string_view list, std::string& error);

struct HarnessOptions {
  HardwareBackend backend = HardwareBackend::Hip;
  // HIP: the --offload-arch (gfx900, gfx90a, gfx940, ...); CUDA: the -arch (sm_90, ...).
  std::string target = "gfx900";
  // HIP only: __hip_atomic_* builtins (the compiler's own mapping) instead of the mapping
  // table's GCN sequences as inline assembly.
  bool hip_builtins = false;
  // scacq and screl atomics and fences as scar (seq_cst), as `--sc-orders` selects a table's
  // seq_cst rows (docs/mappings.md, finding 1): CUDA `fence.sc` before the access, seq_cst
  // builtins and C++ orders. HIP inline assembly takes the code compiled with that option.
  bool sc_orders = false;
  Incantations incantations;
  int instances = 1024;            // test instances per kernel launch
  std::uint64_t iterations = 100;  // kernel launches
  int workgroup_size = 256;        // threads per work-group (block); a multiple of 64
  int stress_workgroups = 8;       // extra work-groups with `stress`
  // At most this many work-groups resident at once (0: what the device holds; the emulation
  // has no limit of its own): a share of a GPU, or a small GPU's layout tried in the emulation.
  // A test with a barrier, one instance per work-group, then runs fewer instances per launch.
  int resident_workgroups = 0;
  double time_limit_seconds = 60;  // host-side watchdog over all launches
  std::uint64_t seed = 1;          // the shuffle's random generator
  // Build the program as plain C++ (-DHSALIT_HOST_EMULATION) with the host compiler and run
  // it on CPU threads: no GPU or vendor compiler needed.
  bool host_emulation = false;
  // Keep the generated source (and the binary) in this folder; empty: a temporary folder.
  std::filesystem::path keep_source;
};

// Raised by the generators for a test the harness cannot run (the message says why).
struct HardwareUnsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Why the harness cannot run the test with these options; nullopt when it can. Covers host
// threads (those of other agents than P0's) with barriers or group memory, work-group
// barriers whose count the harness cannot know (in a thread with branches, or different
// between the threads of a work-group), registers holding addresses, constant address offsets, filters, observed group
// locations and read-modify-writes that no single atomic computes.
std::optional<std::string> hardware_unsupported_reason(const litmus::Test& test, const HarnessOptions& options);

// The outcome encoding shared by the generator and the reader: per observed ref (the order
// of Test::observed()), the values a static analysis says it can take. A final state is
// encoded as a mixed-radix index, digit i = the position of value i in domains[i], or
// domains[i].size() for a value outside it ("other"; such outcomes are also logged raw).
struct OutcomeEncoding {
  std::vector<litmus::ObservedRef> observed;
  std::vector<std::vector<std::int64_t>> domains;
  std::uint64_t outcome_count() const;  // product of (domain size + 1)
  std::uint64_t encode(const std::vector<std::int64_t>& values) const;
  // The values of an index; nullopt when some digit is "other".
  std::optional<std::vector<std::int64_t>> decode(std::uint64_t index) const;
};
// Raises HardwareUnsupported when the domains would give more than `max_outcomes` outcomes.
OutcomeEncoding outcome_encoding(const litmus::Test& test, std::uint64_t max_outcomes = 1u << 16);

// Where the GPU threads of one instance go: test threads grouped by shared work-group (one
// hardware work-group per group and per batch of instances) and, inside, by shared wave. The
// threads of other agents than P0's run on the host and are not in it.
struct InstanceLayout {
  std::vector<std::vector<std::vector<int>>> workgroups;  // [work-group class][wave class] -> test threads
};
InstanceLayout instance_layout(const litmus::Test& test);

struct HarnessProgram {
  std::string source;     // one file: HIP or CUDA, and host emulation under HSALIT_HOST_EMULATION
  std::string file_name;  // e.g. "MP.hip", "MP.cu"
  OutcomeEncoding encoding;
};

// A HIP program. With hip_builtins off, `compiled` (codegen::compile for the same test and
// an AMD target) gives each thread's GCN code, inlined as one asm block per thread.
HarnessProgram generate_hip_program(const litmus::Test& test, const codegen::CompiledTest* compiled,
                                    const HarnessOptions& options);
// A CUDA program: inline PTX per memory operation (docs/hardware.md, "CUDA mapping").
HarnessProgram generate_cuda_program(const litmus::Test& test, const HarnessOptions& options);
// Each thread's device code in the CUDA program (inline PTX per memory operation), as it
// appears in the generated source (with HarnessOptions::sc_orders when `sc_orders`). Throws
// HardwareUnsupported for a test the harness cannot run.
std::vector<std::string> cuda_thread_code(const litmus::Test& test, bool sc_orders = false);

// The compilers: HIP: `hipcc` (HSALIT_HIPCC, else PATH); CUDA: HSALIT_NVCC, else `nvcc` in
// PATH, else /usr/local/cuda/bin/nvcc; host emulation: HSALIT_CXX, else c++, g++, clang++.
std::optional<std::filesystem::path> find_hipcc();
std::optional<std::filesystem::path> find_nvcc();
std::optional<std::filesystem::path> find_host_cxx();

struct BuildResult {
  bool ok = false;
  std::filesystem::path binary;  // the executable (or object with compile_only)
  std::vector<std::string> command;
  std::string log;  // the compiler's messages; or why it did not run
};
// Writes the source into `dir` and builds it. `compile_only`: device and host code to an
// object file (`-c`), enough to check that the program compiles for the target.
BuildResult build_program(const HarnessProgram& program, const HarnessOptions& options,
                          const std::filesystem::path& dir, bool compile_only = false);

// Runs a built harness and reads its histogram. The result's `unknown` is set when the
// program finds no GPU, times out, fails, or prints something unreadable.
SimResult run_program(const HarnessProgram& program, const BuildResult& build, const HarnessOptions& options);

// Reads the harness's JSON line into a SimResult (exposed for tests).
SimResult parse_harness_output(std::string_view json_text, const OutcomeEncoding& encoding);

// Generate, build and run; every failure becomes `unknown` with its reason. `compiled` is
// needed for HIP without hip_builtins (it may be null otherwise).
SimResult run_hardware(const litmus::Test& test, const codegen::CompiledTest* compiled, const HarnessOptions& options);

}  // namespace hsalit::runner
