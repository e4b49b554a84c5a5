// hsalit installed like a tool (docs/install.md): `cmake --install` into a prefix that is then
// moved, run from `/`; `hsalit doctor` on a PATH of stub tools; the bash completion.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"

namespace {

namespace fs = std::filesystem;

using test_support::Outcome;
using test_support::quote;
using test_support::read_file;

class Install : public test_support::CliFolder {
 protected:
  // Runs a shell command line from `/`.
  Outcome from_root(const std::string& command_line) { return run("/bin/sh", {"-c", "cd / && " + command_line}); }
};

// An installed prefix, moved after installing, finds its data beside its executable: the
// tables by name, the bundled library as campaign's default input. Without share/hsalit,
// campaign says where it looked.
TEST_F(Install, MovedPrefixFindsItsDataFromRoot) {
  const fs::path installed = dir_ / "installed", moved = dir_ / "moved";
  Outcome install = run(HSALIT_CMAKE, {"--install", HSALIT_BINARY_DIR, "--prefix", installed.string()});
  ASSERT_EQ(install.status, 0) << install.out << install.err;
  fs::rename(installed, moved);
  const fs::path hsalit = moved / "bin" / "hsalit";
  const fs::path library = moved / "share" / "hsalit" / "litmus" / "library";
  ASSERT_TRUE(fs::is_regular_file(library / "spec" / "HSA-3.13.1.2_MP-wg.litmus"));
  for (const char* data :
       {"mappings/gfx6-9.json", "targets.json", "schemas/hsalit-campaign-1.schema.json", "findings.json"})
    EXPECT_TRUE(fs::is_regular_file(moved / "share" / "hsalit" / data)) << data;
  EXPECT_TRUE(fs::is_regular_file(moved / "share" / "doc" / "hsalit" / "docs" / "install.md"));
  EXPECT_TRUE(fs::is_regular_file(moved / "share" / "bash-completion" / "completions" / "hsalit"));
  if (HSALIT_MAN_PAGES) {  // built with help2man
    for (const char* page : {"hsalit.1", "hsalit-campaign.1", "hsalit-results-merge.1", "hsalit-doctor.1"})
      EXPECT_TRUE(fs::is_regular_file(moved / "share" / "man" / "man1" / page)) << page;
  }

  const std::string mp = (library / "spec" / "HSA-3.13.1.2_MP-wg.litmus").string();
  Outcome check = from_root(quote(hsalit.string()) + " check " + quote(mp));
  EXPECT_EQ(check.status, 0) << check.err;
  EXPECT_NE(check.out.find("Test HSA-3.13.1.2_MP-wg Allowed"), std::string::npos) << check.out;
  Outcome compile = from_root(quote(hsalit.string()) + " compile --table gfx6-9 --target gfx900 " + quote(mp));
  EXPECT_EQ(compile.status, 0) << compile.err;
  EXPECT_NE(compile.out.find("with mapping table gfx6-9"), std::string::npos) << compile.out;

  const fs::path out = dir_ / "campaign";
  Outcome campaign =
      from_root(quote(hsalit.string()) + " campaign --quiet --target gfx900 --out " + quote(out.string()));
  EXPECT_LE(campaign.status, 1) << campaign.err;  // 1: the shipped table's documented violations
  const nlohmann::json results = nlohmann::json::parse(read_file(out / "results.json"));
  EXPECT_EQ(results.dump().find(library.string()) != std::string::npos, true) << "inputs not the moved library";
  std::size_t tests = 0;
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(library))
    tests += e.path().extension() == ".litmus";
  EXPECT_NE(campaign.out.find(fmt::format("campaign: {} tests on gfx900", tests)), std::string::npos) << campaign.out;

  fs::remove_all(moved / "share" / "hsalit");
  Outcome lost = from_root(quote(hsalit.string()) + " campaign --out " + quote((dir_ / "lost").string()));
  EXPECT_EQ(lost.status, 2);
  EXPECT_NE(lost.err.find("the bundled litmus library is missing (looked for " + library.string() + ")"),
            std::string::npos)
      << lost.err;
}

class Doctor : public test_support::CliFolder {
 protected:
  // An executable script `name` in the stub folder printing `output` (with shell builtins only:
  // PATH holds nothing else).
  void stub(const std::string& name, const std::string& output) {
    const std::string path = write("stubs/bin/" + name, "#!/bin/sh\nprintf '%s' " + quote(output) + "\n");
    ::chmod(path.c_str(), 0755);
  }
  // `hsalit doctor ARGS` with only the stub folder in PATH.
  Outcome doctor(const std::string& args) {
    fs::create_directories(dir_ / "stubs" / "bin");
    return run("/bin/sh", {"-c", "PATH=" + quote((dir_ / "stubs" / "bin").string()) + " HIP_DEVICE_LIB_PATH= exec " +
                                     quote(HSALIT_CLI) + " doctor " + args});
  }
  static const nlohmann::json* finding(const nlohmann::json& doc, const std::string& name) {
    for (const nlohmann::json& f : doc["findings"])
      if (f["name"] == name) return &f;
    return nullptr;
  }
};

// Every tool missing: each reported with what is unavailable, and the exit status still 0.
TEST_F(Doctor, ReportsMissingToolsAndExitsZero) {
  Outcome text = doctor("");
  EXPECT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("missing  llc-19: no comparison with LLVM 19's AMDGPU code generation"), std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("missing  hipcc: --backend hip cannot build programs"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("missing  NVIDIA GPU"), std::string::npos) << text.out;

  Outcome json = doctor("--json");
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["schema"], "hsalit-doctor/1");
  for (const char* name : {"llc-14", "llc-22", "llvm-mc-19", "mlir-opt-19", "hipcc", "nvcc", "dot", "chromium"}) {
    const nlohmann::json* f = finding(doc, name);
    ASSERT_NE(f, nullptr) << name;
    EXPECT_FALSE((*f)["found"].get<bool>()) << name;
    EXPECT_TRUE(f->contains("unavailable")) << name;
  }
}

// Stub tools in PATH are found with the versions they print; hipcc's offload architectures come
// from its device libraries, nvcc's from --list-gpu-arch, the GPU from nvidia-smi.
TEST_F(Doctor, FindsToolsVersionsArchitecturesAndGpus) {
  stub("llc-19", "LLVM (http://llvm.org/):\n  LLVM version 19.1.7\n  Optimized build.\n");
  stub("mlir-opt-17", "LLVM (http://llvm.org/):\n  LLVM version 17.0.6\n");
  stub("dot", "dot - graphviz version 2.43.0 (0)\n");
  stub("nvcc",
       "Copyright (c) 2005-2024 NVIDIA Corporation\nCuda compilation tools, release 12.4, V12.4.131\ncompute_80\n"
       "compute_90\n");
  stub("hipcc", "HIP version: 5.2.21153-0\nDebian clang version 15.0.6\n");
  stub("nvidia-smi", "NVIDIA H100 80GB HBM3, 9.0, 550.54.15\n");
  for (const char* library : {"oclc_isa_version_90a.bc", "oclc_isa_version_900.bc", "oclc_isa_version_1030.bc",
                              "oclc_isa_version_9999.bc", "ocml.bc"})
    write(std::string("stubs/lib/x86_64-linux-gnu/amdgcn/bitcode/") + library, "");

  Outcome json = doctor("--json");
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  const nlohmann::json* llc = finding(doc, "llc-19");
  ASSERT_NE(llc, nullptr);
  EXPECT_TRUE((*llc)["found"].get<bool>());
  EXPECT_EQ((*llc)["version"], "19.1.7");
  EXPECT_EQ((*llc)["path"], (dir_ / "stubs" / "bin" / "llc-19").string());
  EXPECT_NE((*llc)["enables"].get<std::string>().find("verify-llc --llc llc-19"), std::string::npos);
  EXPECT_EQ((*finding(doc, "llc-16"))["found"], false);
  EXPECT_EQ((*finding(doc, "mlir-opt-17"))["version"], "17.0.6");
  EXPECT_EQ((*finding(doc, "dot"))["version"], "2.43.0");
  EXPECT_EQ((*finding(doc, "nvcc"))["version"], "12.4");
  EXPECT_EQ((*finding(doc, "nvcc"))["details"][0], "architectures: sm_80 sm_90");
  EXPECT_EQ((*finding(doc, "hipcc"))["version"], "5.2.21153");
  // Only the architectures hsalit has a target for, in generation order.
  EXPECT_EQ((*finding(doc, "hipcc"))["details"][0], "offload architectures: gfx900 gfx90a gfx1030");
  const nlohmann::json* gpu = finding(doc, "NVIDIA GPU");
  ASSERT_NE(gpu, nullptr);
  EXPECT_TRUE((*gpu)["found"].get<bool>());
  EXPECT_EQ((*gpu)["details"][0], "NVIDIA H100 80GB HBM3 (sm_90)");

  Outcome text = doctor("");
  EXPECT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("found    llc-19 19.1.7 (" + (dir_ / "stubs" / "bin" / "llc-19").string() + ")"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("offload architectures: gfx900 gfx90a gfx1030"), std::string::npos) << text.out;
}

// The data beside the executable: the build folder's mirror of share/hsalit.
TEST_F(Doctor, FindsTheBundledData) {
  Outcome json = doctor("--json");
  ASSERT_EQ(json.status, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  const nlohmann::json* data = finding(doc, "bundled data");
  ASSERT_NE(data, nullptr);
  EXPECT_TRUE((*data)["found"].get<bool>());
  EXPECT_EQ((*data)["path"], (fs::path(HSALIT_BINARY_DIR) / "share" / "hsalit").string());
}

// The bash completion generated at build time, sourced in bash: each case returns what a user
// pressing Tab there would be offered.
class Completion : public test_support::CliFolder {
 protected:
  // The completions bash offers for the command line `words`, the last word being completed.
  std::vector<std::string> complete(const std::vector<std::string>& words) {
    const fs::path script = fs::path(HSALIT_BINARY_DIR) / "share" / "bash-completion" / "completions" / "hsalit";
    std::string array;
    for (const std::string& w : words) array += " " + quote(w);
    Outcome r = run("/bin/bash", {"-c", "source " + quote(script.string()) + " && COMP_WORDS=(" + array +
                                            ") && COMP_CWORD=" + std::to_string(words.size() - 1) +
                                            " && _hsalit && printf '%s\\n' \"${COMPREPLY[@]}\""});
    EXPECT_EQ(r.status, 0) << r.err;
    std::vector<std::string> offered;
    std::istringstream in(r.out);
    for (std::string line; std::getline(in, line);)
      if (!line.empty()) offered.push_back(line);
    return offered;
  }
};

TEST_F(Completion, OffersSubcommandsOptionsTargetsAndTables) {
  using V = std::vector<std::string>;
  EXPECT_EQ(complete({"hsalit", "c"}), (V{"check", "compile", "campaign"}));
  EXPECT_EQ(complete({"hsalit", "do"}), (V{"doctor"}));
  EXPECT_EQ(complete({"hsalit", "results", ""}), (V{"merge"}));
  EXPECT_EQ(complete({"hsalit", "mappings", "l"}), (V{"list"}));
  EXPECT_EQ(complete({"hsalit", "check", "--eng"}), (V{"--engine"}));
  EXPECT_EQ(complete({"hsalit", "results", "merge", "--f"}), (V{"--force"}));
  EXPECT_EQ(complete({"hsalit", "compile", "--target", "gfx90"}), (V{"gfx900", "gfx906", "gfx908", "gfx90a"}));
  EXPECT_EQ(complete({"hsalit", "campaign", "--table", "gfx6"}), (V{"gfx6-9"}));
  EXPECT_EQ(complete({"hsalit", "run", "--backend", ""}), (V{"sim", "hip", "cuda"}));
  // Every target of codegen/targets.json is offered.
  const nlohmann::json targets =
      nlohmann::json::parse(read_file(fs::path(HSALIT_SOURCE_DIR) / "codegen" / "targets.json"))["targets"];
  EXPECT_EQ(complete({"hsalit", "run", "--mcpu", ""}).size(), targets.size());
}

}  // namespace
