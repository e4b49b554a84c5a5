// `hsalit run --backend hip|cuda`: generate the harness for each test, build it with the vendor
// compiler, run it on the GPU and print the histogram as the simulator backend does.
#include "hardware_run.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "hsalit/codegen/compiler.hpp"
#include "hsalit/litmus/evaluate.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/runner/hardware.hpp"
#include "option_checks.hpp"
#include "run_output.hpp"
#include "test_files.hpp"

namespace hsalit::cli {

namespace {

// The backend and the instances each launch ran, with the number asked when the harness ran
// fewer (each instance of a test with a barrier needs a work-group of its own).
void print_launches(std::string_view backend, const runner::HarnessOptions& options, std::string_view mode,
                    const runner::SimResult& r) {
  const auto asked = static_cast<std::uint64_t>(options.instances);
  const std::uint64_t ran = r.instances_per_launch.value_or(asked);
  fmt::print("Backend {} {} ({}), {} instances per launch{}\n", backend, options.target, mode, ran,
             ran < asked ? fmt::format(" (of {} asked: one work-group each, and no more fit at once)", asked) : "");
}

int run_one(const std::filesystem::path& file, const HardwareRunRequest& req, const runner::HarnessOptions& base,
            const codegen::MappingTable* table) {
  litmus::ParseResult parsed = litmus::parse_litmus_file(file);
  fmt::print(stderr, "{}", parsed.diagnostics.render(file.string()));
  if (!parsed.ok() || !fits_backend_constants(file, *parsed.test)) return kExitBadInput;
  const litmus::Test& test = *parsed.test;
  runner::HarnessOptions options = base;
  std::optional<codegen::CompiledTest> compiled;
  runner::SimResult r;
  r.observed = test.observed();
  if (options.backend == runner::HardwareBackend::Hip && !options.hip_builtins && table) {
    try {
      const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
      compiled =
          codegen::compile(test, catalog.get(options.target), catalog, *table, {req.flavour, false, req.sc_orders});
    } catch (const std::exception& e) {
      r.unknown = fmt::format("unsupported: {}", e.what());
    }
  }
  if (!r.unknown) r = runner::run_hardware(test, compiled ? &*compiled : nullptr, options);
  mark_values_beyond_width(file, test, r);

  const ConditionCount c = count_condition(test, r);
  std::string mode = options.backend == runner::HardwareBackend::Cuda ? "ptx"
                     : options.hip_builtins                           ? "builtins"
                                                                      : "asm";
  if (req.json) {
    nlohmann::json j = run_json(test, file, req.backend, options.target, mode, r, c, req.iterations);
    // What ran: the harness may have run fewer instances per launch, in more launches.
    j["launches"] = r.instances_per_launch ? r.iterations / *r.instances_per_launch : options.iterations;
    j["instances"] = r.instances_per_launch.value_or(static_cast<std::uint64_t>(options.instances));
    j["instances_requested"] = options.instances;
    if (compiled) {
      j["table"] = compiled->table;
      j["flavour"] = compiled->flavour;
    }
    if (r.unknown) j["unknown_reason"] = *r.unknown;
    if (r.overlapped) j["overlapped"] = *r.overlapped;
    fmt::print("{}\n", j.dump());
  } else if (r.unknown && r.histogram.empty()) {
    // Nothing ran: no histogram of zeros that could read as "never observed".
    // The reason as found: no GPU, no compiler, a test the harness cannot run, or a harness
    // that failed (the emulation too, which needs no GPU).
    fmt::print("Test {} unknown: {}\n", test.name, *r.unknown);
    fmt::print("Backend {} {} ({}): nothing ran\n\n", req.backend, options.target, mode);
  } else {
    print_histogram(test, r, c);
    print_launches(req.backend, options, mode, r);
    fmt::print("Runs {} ({:.0f} per second)\n", r.iterations, r.seconds > 0 ? r.iterations / r.seconds : 0.0);
    if (r.overlapped)
      fmt::print("Overlap {} of {} runs ({:.1f}%): their host and GPU threads ran at the same time\n", *r.overlapped,
                 r.iterations, r.iterations ? 100.0 * static_cast<double>(*r.overlapped) / r.iterations : 0.0);
    fmt::print("Time {} {:.3f}\n\n", test.name, r.seconds);
  }
  return r.unknown ? kExitCheckFailed : kExitOk;
}

}  // namespace

bool is_hardware_backend(const std::string& backend) { return backend == "hip" || backend == "cuda"; }

std::shared_ptr<HardwareRunOptions> add_hardware_run_options(CLI::App* run) {
  auto hw = std::make_shared<HardwareRunOptions>();
  run->add_flag("--hip-builtins", hw->hip_builtins,
                "hip: memory operations as __hip_atomic_* builtins (the compiler's mapping) instead of the "
                "table's GCN code as inline assembly");
  run->add_option("--incantations", hw->incantations, "hip/cuda: stress,shuffle,prestress,spacing,delay (or all)");
  run->add_option("--instances", hw->instances, "hip/cuda: test instances per launch (default 1024)")
      ->check(positive_count());
  run->add_option("--keep-source", hw->keep_source, "hip/cuda: keep the generated program and binary in DIR");
  run->add_option("--workgroup-size", hw->workgroup_size, "hip/cuda: threads per work-group (default 256)")
      ->check(positive_count());
  run->add_option("--resident-workgroups", hw->resident_workgroups,
                  "hip/cuda: at most N work-groups at once (default: what the device holds); a test with a "
                  "barrier runs one instance per work-group, so fewer per launch")
      ->check(positive_count());
  run->add_flag("--host-emulation", hw->host_emulation,
                "hip/cuda: build the harness as plain C++ and run it on CPU threads (no GPU needed)");
  return hw;
}

int run_hardware_backend(const HardwareRunOptions& hw, const HardwareRunRequest& req) {
  runner::HarnessOptions options;
  options.backend = req.backend == "cuda" ? runner::HardwareBackend::Cuda : runner::HardwareBackend::Hip;
  options.target = req.target;
  if (options.backend == runner::HardwareBackend::Cuda && !req.target_given) options.target = "sm_90";
  if (options.backend == runner::HardwareBackend::Cuda && options.target.rfind("sm_", 0) != 0) {
    fmt::print(stderr, "hsalit run: error: --backend cuda needs an NVIDIA architecture such as sm_90, not '{}'\n",
               options.target);
    return kExitBadInput;
  }
  options.hip_builtins = hw.hip_builtins;
  options.sc_orders = req.sc_orders;
  std::string error;
  auto inc = runner::parse_incantations(hw.incantations, error);
  if (!inc) {
    fmt::print(stderr, "hsalit run: error: {}\n", error);
    return kExitBadInput;
  }
  options.incantations = *inc;
  if (hw.instances < 1 || hw.workgroup_size < 1) {
    fmt::print(stderr, "hsalit run: error: --instances and --workgroup-size must be positive\n");
    return kExitBadInput;
  }
  options.instances = hw.instances;
  options.workgroup_size = hw.workgroup_size;
  options.resident_workgroups = hw.resident_workgroups;
  // --iterations counts test instances, as on the simulator and in campaigns: the launches
  // that hold them, the last one full (what ran is in the result, and in --json beside it).
  options.iterations = std::max<std::uint64_t>(1, (req.iterations + hw.instances - 1) / hw.instances);
  options.seed = req.seed;
  options.time_limit_seconds = req.timeout;
  options.host_emulation = hw.host_emulation;
  options.keep_source = hw.keep_source;

  std::optional<codegen::MappingTable> table;
  if (options.backend == runner::HardwareBackend::Hip && !options.hip_builtins) {
    const codegen::Target* target = codegen::TargetCatalog::builtin().find(options.target);
    if (!target) {
      fmt::print(stderr, "hsalit run: error: unknown target '{}' (known: {})\n", options.target,
                 fmt::join(codegen::TargetCatalog::builtin().names(), ", "));
      return kExitBadInput;
    }
    try {
      table = req.mapping_file.empty() ? codegen::MappingTable::builtin(req.table.empty() ? target->mapping : req.table)
                                       : codegen::MappingTable::from_file(req.mapping_file);
    } catch (const codegen::MappingError& e) {
      fmt::print(stderr, "{}\n", e.what());
      return kExitBadInput;
    }
  }
  int status = kExitOk;
  std::vector<std::filesystem::path> inputs(req.inputs.begin(), req.inputs.end());
  for (const auto& file : litmus::collect_litmus_files(inputs))
    status = std::max(status, run_one(file, req, options, table ? &*table : nullptr));
  return status;
}

}  // namespace hsalit::cli
