// `hsalit doctor`: the external tools and devices hsalit can use on this machine, their
// versions, and what each enables or what is unavailable without it (docs/install.md). Every
// one of them is optional: the exit status is 0 whatever is missing.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "bundled_data.hpp"
#include "commands.hpp"
#include "hsalit/codegen/process.hpp"
#include "hsalit/codegen/target.hpp"

namespace hsalit::cli {
namespace {
namespace fs = std::filesystem;

struct Finding {
  std::string name;  // llc-19, hipcc, AMD GPU, ...
  std::string kind;  // tool, device or data
  bool found = false;
  std::string path;                  // where it is, when found
  std::string version;               // its version, when it says one
  std::vector<std::string> details;  // offload architectures, GPUs, ...
  std::string enables;               // what it gives when found
  std::string without;               // what is unavailable when it is missing
};

Finding finding(std::string name, std::string kind, std::string enables, std::string without) {
  Finding f;
  f.name = std::move(name);
  f.kind = std::move(kind);
  f.enables = std::move(enables);
  f.without = std::move(without);
  return f;
}

// The output of a command, standard output and error together; nullopt when it cannot be
// started or fails.
std::optional<std::string> output_of(const std::vector<std::string>& argv) {
  try {
    codegen::ProcessResult r = codegen::run_process(argv);
    if (!r.ok()) return std::nullopt;
    return r.out + r.err;
  } catch (const codegen::ProcessError&) {
    return std::nullopt;
  }
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The version a `--version` text states: the first number after "version" or "release" on the
// first line that has one ("LLVM version 19.1.7", "release 13.0"), else the first number.
std::string version_in(const std::string& text) {
  static const std::regex keyword_number(R"((?:version|release)\D*?(\d+(?:\.\d+)+))", std::regex::icase);
  static const std::regex number(R"((\d+(?:\.\d+)+))");
  std::smatch m;
  for (const std::string& line : lines_of(text))
    if (std::regex_search(line, m, keyword_number)) return m[1];
  if (std::regex_search(text, m, number)) return m[1];
  return "";
}

// A tool found in PATH (or at `path` when it is given), with its version from `version_args`.
Finding tool(std::string name, std::vector<std::string> version_args, std::string enables, std::string without) {
  Finding f = finding(std::move(name), "tool", std::move(enables), std::move(without));
  const std::optional<fs::path> path = codegen::find_program(f.name);
  if (!path) return f;
  f.found = true;
  f.path = path->string();
  std::vector<std::string> argv = {f.path};
  argv.insert(argv.end(), version_args.begin(), version_args.end());
  if (std::optional<std::string> text = output_of(argv)) f.version = version_in(*text);
  return f;
}

// The folders that may hold the ROCm device libraries of the hipcc at `hipcc`: the one
// HIP_DEVICE_LIB_PATH names (hipcc reads it too), then those of its prefix, Debian's multiarch
// one among them.
std::vector<fs::path> device_library_folders(const fs::path& hipcc) {
  std::vector<fs::path> folders;
  if (const char* env = std::getenv("HIP_DEVICE_LIB_PATH"); env && *env) folders.emplace_back(env);
  std::error_code ec;
  const fs::path real = fs::weakly_canonical(hipcc, ec);  // /usr/bin/hipcc may link into /usr/lib/hip/bin
  const fs::path prefix = (ec ? hipcc : real).parent_path().parent_path();
  folders.push_back(prefix / "amdgcn" / "bitcode");
  folders.push_back(prefix / "lib" / "amdgcn" / "bitcode");
  for (const fs::directory_entry& e : fs::directory_iterator(prefix / "lib", ec))
    if (e.is_directory(ec)) folders.push_back(e.path() / "amdgcn" / "bitcode");
  return folders;
}

// The offload architectures hipcc can build among hsalit's targets: those whose device library
// (oclc_isa_version_NNN.bc) is installed. The clang behind hipcc may still reject a newer one
// (docs/hardware.md lists Debian 12's).
std::vector<std::string> hipcc_offload_archs(const fs::path& hipcc) {
  std::set<std::string> archs;
  const std::vector<std::string> targets = codegen::TargetCatalog::builtin().names();
  const std::set<std::string> known(targets.begin(), targets.end());
  std::error_code ec;
  for (const fs::path& folder : device_library_folders(hipcc)) {
    for (const fs::directory_entry& e : fs::directory_iterator(folder, ec)) {
      const std::string file = e.path().filename().string();
      const std::string prefix = "oclc_isa_version_";
      if (!file.starts_with(prefix) || !file.ends_with(".bc")) continue;
      const std::string arch = "gfx" + file.substr(prefix.size(), file.size() - prefix.size() - 3);
      if (known.contains(arch)) archs.insert(arch);
    }
    if (!archs.empty()) break;  // the first folder that has them is the one hipcc uses
  }
  std::vector<std::string> sorted(archs.begin(), archs.end());
  // Numeric order of the generation: gfx90a before gfx1030.
  std::stable_sort(sorted.begin(), sorted.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;
  });
  return sorted;
}

Finding hipcc_finding() {
  Finding f = tool("hipcc", {"--version"}, "run and campaign --backend hip: builds the litmus programs for AMD GPUs",
                   "--backend hip cannot build programs (Debian: hipcc, rocm-device-libs; or set HSALIT_HIPCC)");
  if (!f.found) return f;
  const std::vector<std::string> archs = hipcc_offload_archs(f.path);
  f.details.push_back(archs.empty() ? "offload architectures: none (no ROCm device libraries found)"
                                    : fmt::format("offload architectures: {}", fmt::join(archs, " ")));
  return f;
}

Finding nvcc_finding() {
  Finding f = tool("nvcc", {"--version"}, "run and campaign --backend cuda: builds the litmus programs for NVIDIA GPUs",
                   "--backend cuda cannot build programs (the CUDA toolkit; or set HSALIT_NVCC)");
  if (!f.found) return f;
  std::vector<std::string> archs;
  if (std::optional<std::string> text = output_of({f.path, "--list-gpu-arch"}))
    for (const std::string& line : lines_of(*text))
      if (line.starts_with("compute_")) archs.push_back("sm_" + line.substr(8));
  f.details.push_back(archs.empty() ? "architectures: unknown"
                                    : fmt::format("architectures: {}", fmt::join(archs, " ")));
  return f;
}

Finding amd_gpu_finding() {
  Finding f = finding("AMD GPU", "device", "run and campaign --backend hip run on it",
                      "--backend hip builds the programs but cannot run them (no /dev/kfd: no amdgpu driver)");
  std::error_code ec;
  f.found = fs::exists("/dev/kfd", ec);
  if (f.found) f.path = "/dev/kfd";
  if (!codegen::find_program("rocminfo")) {
    f.details.push_back("rocminfo: not found (Debian: rocminfo)");
    return f;
  }
  std::set<std::string> agents;
  static const std::regex gfx_name(R"(^\s*Name:\s+(gfx[0-9a-z]+)\s*$)");
  std::smatch m;
  if (std::optional<std::string> text = output_of({"rocminfo"}))
    for (const std::string& line : lines_of(*text))
      if (std::regex_match(line, m, gfx_name)) agents.insert(m[1]);
  f.details.push_back(agents.empty() ? "rocminfo: no GPU agent"
                                     : fmt::format("rocminfo agents: {}", fmt::join(agents, " ")));
  return f;
}

Finding nvidia_gpu_finding() {
  Finding f = finding("NVIDIA GPU", "device", "run and campaign --backend cuda run on it",
                      "--backend cuda builds the programs but cannot run them (no nvidia-smi or no GPU)");
  const std::optional<std::string> text =
      output_of({"nvidia-smi", "--query-gpu=name,compute_cap,driver_version", "--format=csv,noheader"});
  if (!text) return f;
  static const std::regex gpu(R"(^\s*(.+?),\s*(\d+)\.(\d+),\s*(\S+)\s*$)");
  std::smatch m;
  for (const std::string& line : lines_of(*text))
    if (std::regex_match(line, m, gpu)) {
      f.found = true;
      f.version = m[4];  // the driver's
      f.details.push_back(fmt::format("{} (sm_{}{})", std::string(m[1]), std::string(m[2]), std::string(m[3])));
    }
  return f;
}

Finding data_finding() {
  Finding f = finding("bundled data", "data", "campaign without inputs runs the bundled litmus library",
                      "campaign needs its inputs named (share/hsalit is not beside the executable)");
  if (std::optional<fs::path> dir = bundled_data_dir()) {
    f.found = true;
    f.path = dir->string();
  }
  return f;
}

std::vector<Finding> examine() {
  std::vector<Finding> findings;
  findings.push_back(data_finding());
  // Debian's LLVM releases, one package per major version (llvm-N).
  for (int n = 14; n <= 22; ++n)
    findings.push_back(
        tool(fmt::format("llc-{}", n), {"--version"},
             fmt::format("verify-llc --llc llc-{0} and compile --via-llc llc-{0} (docs/llvm-ir.md)", n),
             fmt::format("no comparison with LLVM {}'s AMDGPU code generation (Debian: llvm-{})", n, n)));
  for (int n = 14; n <= 22; ++n)
    findings.push_back(tool(
        fmt::format("llvm-mc-{}", n), {"--version"},
        fmt::format("assembling the generated GCN code with LLVM {} (the codegen tests, docs/mapping-tables.md)", n),
        fmt::format("the generated code is not assembled with LLVM {} (Debian: llvm-{})", n, n)));
  for (int n = 14; n <= 22; ++n)
    findings.push_back(tool(
        fmt::format("mlir-opt-{}", n), {"--version"},
        fmt::format("MLIR {}'s mlir-opt, for the route through MLIR (no subcommand of this version runs it yet)", n),
        fmt::format("no MLIR {} (Debian: mlir-{}-tools)", n, n)));
  findings.push_back(hipcc_finding());
  findings.push_back(nvcc_finding());
  findings.push_back(tool("c++", {"--version"}, "run --backend hip|cuda --host-emulation: the harness on the CPU",
                          "no host emulation of the GPU harness (Debian: g++; or set HSALIT_CXX)"));
  findings.push_back(tool("dot", {"-V"}, "the HTML reports draw witness graphs as SVG",
                          "the HTML reports show witness graphs as DOT text (Debian: graphviz)"));
  findings.push_back(tool("chromium", {"--version"}, "the test that renders the HTML report (headless)",
                          "the report rendering test is skipped (Debian: chromium)"));
  findings.push_back(amd_gpu_finding());
  findings.push_back(nvidia_gpu_finding());
  return findings;
}

nlohmann::json to_json(const std::vector<Finding>& findings) {
  nlohmann::json items = nlohmann::json::array();
  for (const Finding& f : findings) {
    nlohmann::json j = {{"name", f.name}, {"kind", f.kind}, {"found", f.found}};
    if (f.found) j["path"] = f.path;
    if (!f.version.empty()) j["version"] = f.version;
    if (!f.details.empty()) j["details"] = f.details;
    j[f.found ? "enables" : "unavailable"] = f.found ? f.enables : f.without;
    items.push_back(std::move(j));
  }
  return {{"schema", "hsalit-doctor/1"}, {"findings", std::move(items)}};
}

void print_text(const std::vector<Finding>& findings) {
  for (const Finding& f : findings) {
    if (!f.found) {
      fmt::print("missing  {}: {}\n", f.name, f.without);
      for (const std::string& d : f.details) fmt::print("         {}\n", d);
      continue;
    }
    fmt::print("found    {}{} ({}): {}\n", f.name, f.version.empty() ? "" : " " + f.version, f.path, f.enables);
    for (const std::string& d : f.details) fmt::print("         {}\n", d);
  }
  const auto found = std::count_if(findings.begin(), findings.end(), [](const Finding& f) { return f.found; });
  fmt::print("doctor: {} of {} found; every one is optional\n", found, findings.size());
}

}  // namespace

Command add_doctor_command(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "doctor",
      "List the external tools and devices hsalit can use here (llc-N, llvm-mc-N, mlir-opt-N, hipcc, nvcc, dot, "
      "chromium, AMD and NVIDIA GPUs), their versions and what each enables; exit 0 whatever is missing");
  cmd->add_flag("--json", *json, "one JSON document (schema hsalit-doctor/1) instead of text");
  cmd->allow_extras(false);
  return {cmd, [json] {
            const std::vector<Finding> findings = examine();
            if (*json)
              fmt::print("{}\n", to_json(findings).dump(2));
            else
              print_text(findings);
            return kExitOk;
          }};
}

}  // namespace hsalit::cli
