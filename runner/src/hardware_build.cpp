// Building and running the generated harness programs: the vendor compilers (or the host C++
// compiler for emulation) are started without a shell (codegen::run_process), the program runs
// under coreutils' `timeout` as the host-side watchdog, and its JSON line is read back.
#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>

#include "hsalit/codegen/process.hpp"
#include "hsalit/runner/hardware.hpp"

namespace hsalit::runner {

namespace {

std::optional<std::filesystem::path> from_env(const char* variable) {
  const char* v = std::getenv(variable);
  if (!v || !*v) return std::nullopt;
  return codegen::find_program(v);
}

SimResult unknown_result(const litmus::Test& test, std::string why) {
  SimResult r;
  r.observed = test.observed();
  r.unknown = std::move(why);
  return r;
}

// The first lines of a compiler log, enough to say what went wrong.
std::string head(std::string_view log, std::size_t lines = 12) {
  std::string out;
  std::size_t at = 0;
  for (std::size_t n = 0; n < lines && at < log.size(); ++n) {
    std::size_t nl = log.find('\n', at);
    if (nl == std::string_view::npos) nl = log.size();
    out += std::string(log.substr(at, nl - at)) + "\n";
    at = nl + 1;
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace

std::optional<std::filesystem::path> find_hipcc() {
  if (auto p = from_env("HSALIT_HIPCC")) return p;
  return codegen::find_program("hipcc");
}

std::optional<std::filesystem::path> find_nvcc() {
  if (auto p = from_env("HSALIT_NVCC")) return p;
  if (auto p = codegen::find_program("nvcc")) return p;
  return codegen::find_program("/usr/local/cuda/bin/nvcc");
}

std::optional<std::filesystem::path> find_host_cxx() {
  if (auto p = from_env("HSALIT_CXX")) return p;
  for (const char* name : {"c++", "g++", "clang++"})
    if (auto p = codegen::find_program(name)) return p;
  return std::nullopt;
}

BuildResult build_program(const HarnessProgram& program, const HarnessOptions& options,
                          const std::filesystem::path& dir, bool compile_only) {
  BuildResult b;
  std::filesystem::create_directories(dir);
  std::filesystem::path source = dir / program.file_name;
  {
    std::ofstream out(source, std::ios::binary);
    out << program.source;
    if (!out) {
      b.log = fmt::format("cannot write {}", source.string());
      return b;
    }
  }
  std::filesystem::path stem = dir / std::filesystem::path(program.file_name).stem();
  b.binary = compile_only ? stem.string() + ".o" : options.host_emulation ? stem.string() + "-emulated" : stem.string();
  std::vector<std::string> cmd;
  if (options.host_emulation) {
    auto cxx = find_host_cxx();
    if (!cxx) {
      b.log = "no host C++ compiler (c++, g++ or clang++; or set HSALIT_CXX)";
      return b;
    }
    cmd = {cxx->string(), "-std=c++20", "-O2", "-pthread", "-DHSALIT_HOST_EMULATION", "-x", "c++", source.string()};
  } else if (options.backend == HardwareBackend::Hip) {
    auto hipcc = find_hipcc();
    if (!hipcc) {
      b.log =
          "hipcc not found: install the Debian packages hipcc, libamdhip64-dev and rocm-device-libs (or set "
          "HSALIT_HIPCC)";
      return b;
    }
    cmd = {hipcc->string(), "--offload-arch=" + options.target, "-O2", "-std=c++17", source.string()};
  } else {
    auto nvcc = find_nvcc();
    if (!nvcc) {
      b.log = "nvcc not found: install the CUDA toolkit (HSALIT_NVCC, nvcc in PATH, or /usr/local/cuda/bin/nvcc)";
      return b;
    }
    cmd = {nvcc->string(), "-arch=" + options.target, "-O2", "-std=c++17", source.string()};
  }
  if (compile_only) cmd.push_back("-c");
  cmd.push_back("-o");
  cmd.push_back(b.binary.string());
  b.command = cmd;
  try {
    // The compiler's own temporaries go to a folder removed afterwards (hipcc leaves some).
    codegen::TempDir scratch("hsalit-cc");
    codegen::ProcessResult r = codegen::run_process(cmd, {.temp_dir = scratch.path()});
    b.log = r.err + r.out;
    b.ok = r.ok();
    if (!b.ok && r.signal) b.log += fmt::format("\n(compiler killed by signal {})", r.signal);
  } catch (const codegen::ProcessError& e) {
    b.log = e.what();
  }
  return b;
}

SimResult parse_harness_output(std::string_view json_text, const OutcomeEncoding& encoding) {
  SimResult r;
  r.observed = encoding.observed;
  nlohmann::json j;
  // The last line that starts with '{' is the harness's result.
  std::string line;
  std::size_t at = 0;
  while (at < json_text.size()) {
    std::size_t nl = json_text.find('\n', at);
    if (nl == std::string_view::npos) nl = json_text.size();
    std::string_view l = json_text.substr(at, nl - at);
    if (!l.empty() && l.front() == '{') line = std::string(l);
    at = nl + 1;
  }
  try {
    j = nlohmann::json::parse(line);
  } catch (const nlohmann::json::exception&) {
    r.unknown = fmt::format("the harness printed no result line ({})", head(json_text, 3));
    return r;
  }
  if (j.contains("error")) {
    std::string kind = j.value("error", "");
    std::string message = j.value("message", "");
    if (kind == "no-device")
      r.unknown = fmt::format("no GPU: the runtime finds no device ({})", message);
    else
      r.unknown = fmt::format("the harness failed: {}: {}", kind, message);
    return r;
  }
  try {
    const std::uint64_t instances = j.at("instances").get<std::uint64_t>();
    r.iterations = j.at("iterations").get<std::uint64_t>() * instances;
    r.instances_per_launch = instances;
    r.seconds = j.value("seconds", 0.0);
    for (const auto& entry : j.at("histogram")) {
      std::uint64_t index = entry.at(0).get<std::uint64_t>(), count = entry.at(1).get<std::uint64_t>();
      if (index >= encoding.outcome_count()) throw std::runtime_error("outcome index out of range");
      if (auto values = encoding.decode(index)) r.histogram[SimOutcome{*values}] += count;
    }
    for (const auto& entry : j.at("other")) r.histogram[SimOutcome{entry.get<std::vector<std::int64_t>>()}] += 1;
    std::uint64_t lost = j.value("other_lost", std::uint64_t{0});
    if (j.contains("overlapped")) r.overlapped = j.at("overlapped").get<std::uint64_t>();
    if (j.value("barrier_timeout", false))
      r.unknown = "the start barrier timed out: not every work-group was resident (lower --instances)";
    else if (lost > 0)
      r.unknown = fmt::format("{} outcomes outside the value domains were not logged", lost);
    else if (r.iterations == 0)
      r.unknown = j.value("time_limit", false) ? "the time limit passed before the first launch" : "no iterations ran";
  } catch (const std::exception& e) {
    r.histogram.clear();
    r.unknown = fmt::format("unreadable harness output: {}", e.what());
  }
  return r;
}

SimResult run_program(const HarnessProgram& program, const BuildResult& build, const HarnessOptions& options) {
  SimResult none;
  none.observed = program.encoding.observed;
  if (!build.ok) {
    none.unknown = "the harness was not built: " + head(build.log);
    return none;
  }
  if (!options.host_emulation && options.backend == HardwareBackend::Hip && !std::filesystem::exists("/dev/kfd")) {
    none.unknown =
        "no AMD GPU: /dev/kfd is missing (no ROCm-capable amdgpu kernel driver); the HIP program was built but not run";
    return none;
  }
  const Incantations& inc = options.incantations;
  // The host-side watchdog: the harness stops launching at the time limit; `timeout` kills it
  // if a launch itself hangs.
  int kill_after = static_cast<int>(options.time_limit_seconds) + 60;
  std::vector<std::string> argv;
  if (codegen::find_program("timeout")) argv = {"timeout", "--kill-after=5", std::to_string(kill_after)};
  argv.push_back(std::filesystem::absolute(build.binary).string());
  for (const std::string& a :
       {fmt::format("instances={}", options.instances), fmt::format("iterations={}", options.iterations),
        fmt::format("time-limit={}", options.time_limit_seconds), fmt::format("seed={}", options.seed),
        fmt::format("stress={}", inc.stress ? 1 : 0), fmt::format("shuffle={}", inc.shuffle ? 1 : 0),
        fmt::format("prestress={}", inc.prestress ? 1 : 0), fmt::format("spacing={}", inc.spacing ? 1 : 0),
        fmt::format("delay={}", inc.delay ? 1 : 0), fmt::format("stress-workgroups={}", options.stress_workgroups),
        fmt::format("resident-workgroups={}", options.resident_workgroups)})
    argv.push_back(a);
  codegen::ProcessResult p;
  try {
    p = codegen::run_process(argv);
  } catch (const codegen::ProcessError& e) {
    none.unknown = fmt::format("the harness could not be started: {}", e.what());
    return none;
  }
  if (p.exit_status == 124 || p.signal == 9) {
    none.unknown = fmt::format("the harness did not finish within {} s and was killed", kill_after);
    return none;
  }
  SimResult r = parse_harness_output(p.out, program.encoding);
  if (!r.unknown && !p.ok())
    r.unknown = fmt::format("the harness exited with status {}{}: {}", p.exit_status,
                            p.signal ? fmt::format(" (signal {})", p.signal) : "", head(p.err, 4));
  if (r.unknown && r.unknown->rfind("the harness printed no result", 0) == 0 && !p.err.empty())
    *r.unknown += ": " + head(p.err, 4);
  return r;
}

SimResult run_hardware(const litmus::Test& test, const codegen::CompiledTest* compiled, const HarnessOptions& options) {
  if (auto why = hardware_unsupported_reason(test, options)) return unknown_result(test, "unsupported: " + *why);
  HarnessProgram program;
  try {
    program = options.backend == HardwareBackend::Hip ? generate_hip_program(test, compiled, options)
                                                      : generate_cuda_program(test, options);
  } catch (const HardwareUnsupported& e) {
    return unknown_result(test, std::string("unsupported: ") + e.what());
  } catch (const codegen::CompileError& e) {
    return unknown_result(test, std::string("unsupported: ") + e.what());
  }
  std::optional<codegen::TempDir> temp;
  std::filesystem::path dir = options.keep_source;
  if (dir.empty()) {
    temp.emplace("hsalit-hw");
    dir = temp->path();
  }
  BuildResult build = build_program(program, options, dir);
  return run_program(program, build, options);
}

}  // namespace hsalit::runner
