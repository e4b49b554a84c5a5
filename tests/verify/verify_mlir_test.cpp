// verify-mlir (docs/mlir.md): litmus tests as MLIR, lowered by the real MLIR pipeline (mlir-opt,
// mlir-translate, llc of one LLVM version), and the GCN it emits judged as llc's is. The tests
// that run the pipeline skip where the Debian package (mlir-19-tools, mlir-22-tools) is missing.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/codegen/llc_program.hpp"
#include "hsalit/codegen/mlir.hpp"
#include "hsalit/codegen/process.hpp"
#include "hsalit/runner/sim.hpp"
#include "hsalit/verify/verify_llc.hpp"
#include "litmus_support.hpp"

namespace hsalit::verify {
namespace {

std::optional<codegen::MlirTools> mlir_tools(const char* name) {
  try {
    return codegen::find_mlir_tools(name);
  } catch (const codegen::LlcError&) {
    return std::nullopt;
  }
}

const codegen::Target& target(const char* name) { return *codegen::TargetCatalog::builtin().find(name); }

litmus::Test mlir_library_test(const std::string& name) {
  litmus::ParseResult r =
      litmus::parse_litmus_file(std::string(HSALIT_SOURCE_DIR) + "/litmus/library-mlir/" + name + ".litmus");
  if (!r.ok()) ADD_FAILURE() << r.diagnostics.render(name);
  return observe_everything(r.ok() ? *r.test : litmus::Test{});
}

// The final values of one register over every final state the simulator reaches.
std::set<std::int64_t> register_values(const litmus::Test& test, const codegen::LlcResult& compiled,
                                       const std::string& reg) {
  codegen::CompiledTest program = codegen::to_compiled_test(compiled, test);
  runner::SimResult r = runner::run_exhaustive(test, program);
  EXPECT_FALSE(r.unknown) << *r.unknown;
  std::set<std::int64_t> values;
  for (std::size_t k = 0; k < r.observed.size(); ++k)
    if (r.observed[k].to_string() == reg)
      for (const auto& [outcome, n] : r.histogram) values.insert(outcome.values[k]);
  EXPECT_FALSE(values.empty()) << reg << " is not observed";
  return values;
}

// The module's shape (mlir.hpp): a gpu.func kernel per thread, memref arguments, workgroup
// attributions for group locations, ordered atomics in the llvm dialect, the whole test as one
// kernel choosing each thread's code by block and thread id, and with amdgpu operations the
// buffer operations and their fences.
TEST(MlirEmitter, WritesTheDocumentedOperations) {
  const litmus::Test test = test_support::parse(R"(LISA shape
{ x = 0; y = 0; }
 P0                         | P1                                  ;
 w[] x 1                    | r[atomic,scacq,agent] r0 y          ;
 w[atomic,screl,agent] y 1  | rmw[atomic,rlx,wg] r1 (add r1 2) g  ;
 barrier[group]             | rmw[cas,atomic,scar,system] r2 1 5 x ;
 f[scacq,wg]                | barrier                             ;
scopes: (agent (wg 0 1))
regions: g:group
exists (1:r0=1)
)");
  const std::string llvm = codegen::emit_mlir(test).text;
  for (const char* expected :
       {"gpu.module @\"shape\"", "gpu.func @P0(%loc.x: memref<1xi32, #gpu.address_space<global>>",
        "workgroup(%lds.g: memref<1xi32, #gpu.address_space<workgroup>>) kernel",
        "memref.store %c.0, %loc.x[%c0] : memref<1xi32, #gpu.address_space<global>> loc(\"P0:0 w[] x 1\")",
        "atomic syncscope(\"agent\") release {alignment = 4 : i64}", "atomic syncscope(\"agent\") acquire",
        "llvm.atomicrmw add %lds.g.p", "syncscope(\"workgroup\") monotonic", "llvm.cmpxchg %loc.x.p",
        " seq_cst seq_cst ", "llvm.fence syncscope(\"workgroup\") acquire", "gpu.barrier", "hsalit begin P1",
        // The whole test as one kernel, each thread where the harness puts it.
        "gpu.func @test(%loc.x: memref<1xi32, #gpu.address_space<global>>, %loc.y: memref<1xi32, "
        "#gpu.address_space<global>>, %out: memref<3xi64, #gpu.address_space<global>>, %wave_size: i32) "
        "workgroup(%lds.g: memref<1xi32, #gpu.address_space<workgroup>>) kernel",
        "%block.id = gpu.block_id x", "// P1: block 0, wave 1, lane 0", "cf.cond_br %select1.is, ^P1_code, ^select2",
        "%P1_r.r0.0 = llvm.load %P1_loc.y.p atomic", "memref.store %P1_t.", ", %out[%P1_slot."})
    EXPECT_NE(llvm.find(expected), std::string::npos) << expected << "\n" << llvm;
  EXPECT_EQ(llvm.find("amdgpu."), std::string::npos) << llvm;

  const std::string amdgpu = codegen::emit_mlir(test, {codegen::MlirOps::Amdgpu}).text;
  for (const char* expected :
       {"amdgpu.raw_buffer_store %c.0 -> %loc.x[%c0.i32]", "llvm.fence syncscope(\"agent\") release",
        "amdgpu.raw_buffer_load %loc.y[%c0.i32]", "amdgpu.raw_buffer_atomic_cmpswap", "llvm.fence seq_cst",
        "amdgpu.lds_barrier loc(\"P0:2 barrier[group]\")", "gpu.barrier loc(\"P1:3 barrier\")",
        "llvm.atomicrmw add %lds.g.p"})
    EXPECT_NE(amdgpu.find(expected), std::string::npos) << expected << "\n" << amdgpu;

  // --volatile: ordinary accesses are volatile llvm dialect accesses, not memref ones.
  const std::string volatile_text = codegen::emit_mlir(test, {codegen::MlirOps::Llvm, true}).text;
  EXPECT_NE(volatile_text.find("llvm.store volatile %c.0, %loc.x.p {alignment = 4 : i64} : i32, !llvm.ptr<1>"),
            std::string::npos)
      << volatile_text;
  EXPECT_EQ(volatile_text.find("memref.store %c.0, %loc.x"), std::string::npos) << volatile_text;

  const litmus::Test indirect = test_support::parse(R"(LISA indirect
{ x = 0; 0:r1 = x; }
 P0        ;
 w[] r1 1  ;
exists (x=1)
)");
  try {
    codegen::emit_mlir(indirect);
    ADD_FAILURE() << "an address held in a register was emitted";
  } catch (const codegen::CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("(MLIR)"), std::string::npos) << e.what();
  }
}

TEST(MlirEmitter, MissingToolsNameTheirDebianPackage) {
  EXPECT_EQ(codegen::debian_package_for("mlir-opt-19"), "mlir-19-tools");
  EXPECT_EQ(codegen::debian_package_for("mlir-translate-22"), "mlir-22-tools");
  try {
    codegen::find_mlir_tools("mlir-opt-99");
    ADD_FAILURE() << "mlir-opt-99 found";
  } catch (const codegen::LlcError& e) {
    EXPECT_NE(std::string(e.what()).find("install Debian package mlir-99-tools"), std::string::npos) << e.what();
  }
}

// Every bundled test (the HSA, OpenCL and MLIR libraries), in both operation sets, is a module
// that mlir-opt of each installed version verifies (`--verify-each`, one process per version
// and operation set through `--split-input-file`).
TEST(MlirEmitter, EveryBundledTestPassesVerifyEach) {
  std::vector<litmus::Test> tests;
  for (const char* folder : {"litmus/library", "litmus/library-opencl", "litmus/library-mlir"}) {
    std::vector<litmus::Test> more = test_support::folder_tests(folder);
    tests.insert(tests.end(), more.begin(), more.end());
  }
  ASSERT_GT(tests.size(), 200u);
  int versions = 0;
  for (const char* name : {"mlir-opt-19", "mlir-opt-22"}) {
    auto tools = mlir_tools(name);
    if (!tools) continue;
    ++versions;
    for (codegen::MlirOps ops : {codegen::MlirOps::Llvm, codegen::MlirOps::Amdgpu}) {
      SCOPED_TRACE(std::string(name) + " " + std::string(codegen::to_string(ops)));
      codegen::TempDir dir("hsalit-mlir-test");
      const std::filesystem::path file = dir.path() / "all.mlir";
      std::ofstream out(file);
      int modules = 0;
      for (const litmus::Test& t : tests) {
        out << (modules++ ? "// -----\n" : "") << codegen::emit_mlir(t, {ops}).text;
      }
      out.close();
      codegen::ProcessResult r = codegen::run_process(
          {tools->mlir_opt.string(), "--split-input-file", "--verify-each", file.string(), "-o", "/dev/null"});
      EXPECT_TRUE(r.ok()) << r.err.substr(0, 4000);
      EXPECT_EQ(modules, static_cast<int>(tests.size()));
    }
  }
  if (versions == 0) GTEST_SKIP() << "no mlir-opt installed (Debian packages mlir-19-tools, mlir-22-tools)";
}

// The default operations (memref and llvm dialect) through the pipeline give every library
// test the verdict llc gives its LLVM IR on gfx900 (docs/mappings.md, "Through MLIR").
TEST(VerifyMlir, LibraryVerdictsOnGfx900AreLlcs) {
  auto tools = mlir_tools("mlir-opt-19");
  if (!tools) GTEST_SKIP() << "mlir-opt-19 not installed (Debian package mlir-19-tools)";
  const std::vector<litmus::Test> tests = test_support::folder_tests("litmus/library");
  LlcVerifyOptions options;
  options.target = "gfx900";
  options.model.engine = model::Engine::Enum;
  options.jobs = 2;
  VerificationCache cache;
  const VerifyReport mlir = verify_via_mlir(tests, *tools, options, cache);
  const VerifyReport llc = verify_via_llc(tests, tools->llc, options, cache);
  ASSERT_EQ(mlir.tests.size(), llc.tests.size());
  for (std::size_t i = 0; i < tests.size(); ++i)
    EXPECT_EQ(mlir.tests[i].status, llc.tests[i].status) << tests[i].name << ": " << mlir.tests[i].reason;
  EXPECT_EQ(mlir.count(TestStatus::Unknown), 0) << verdict_text(mlir);
  EXPECT_GT(mlir.count(TestStatus::Sound), 90);
}

// amdgpu.lds_barrier "does not force reads to or from global memory to complete" (the amdgpu
// dialect): on gfx1100, whose work-groups span the two CUs of a WGP, the global store before
// it is missed by the load after it; gpu.barrier orders it; LDS data across lds_barrier is
// ordered.
TEST(VerifyMlir, LdsBarrierDoesNotOrderGlobalMemory) {
  auto tools = mlir_tools("mlir-opt-19");
  if (!tools) GTEST_SKIP() << "mlir-opt-19 not installed (Debian package mlir-19-tools)";
  const codegen::Target& gfx1100 = target("gfx1100");
  const litmus::Test global = mlir_library_test("MP+lds_barrier+rlx-wg_same-wg");
  codegen::LlcResult lds = codegen::compile_via_mlir(global, gfx1100, *tools, {codegen::MlirOps::Amdgpu});
  EXPECT_NE(lds.assembly.find("s_barrier"), std::string::npos);
  EXPECT_EQ(register_values(global, lds, "1:r0"), (std::set<std::int64_t>{0, 1}));
  codegen::LlcResult full = codegen::compile_via_mlir(global, gfx1100, *tools, {codegen::MlirOps::Llvm});
  EXPECT_EQ(register_values(global, full, "1:r0"), (std::set<std::int64_t>{1}));

  const litmus::Test group = mlir_library_test("MP+lds_barrier_same-wg+group");
  codegen::LlcResult local = codegen::compile_via_mlir(group, gfx1100, *tools, {codegen::MlirOps::Amdgpu});
  EXPECT_EQ(register_values(group, local, "1:r0"), (std::set<std::int64_t>{1}));

  LlcVerifyOptions options;
  options.target = "gfx1100";
  options.model.variant = model::ModelVariant::OpenCl;
  options.mlir.ops = codegen::MlirOps::Amdgpu;
  VerificationCache cache;
  EXPECT_EQ(verify_via_mlir(group, *tools, options, cache).status, TestStatus::Sound);
  EXPECT_EQ(verify_via_mlir(mlir_library_test("MP+lds_barrier_same-wg"), *tools, options, cache).status,
            TestStatus::Racy);
}

// Raw buffer loads have "the cache coherency bits ... off" (the amdgpu dialect): on gfx900 an
// agent-scope acquire load built from one, even between the acquire fences, can hit an L1 line
// another wave of its CU just wrote, and IRIW's readers disagree (docs/mappings.md, "Through
// MLIR"); the llvm dialect's atomic load (glc) does not.
TEST(VerifyMlir, BufferLoadsWithoutCoherenceBitsBreakAgentScopeAtomics) {
  auto tools = mlir_tools("mlir-opt-19");
  if (!tools) GTEST_SKIP() << "mlir-opt-19 not installed (Debian package mlir-19-tools)";
  const litmus::Test iriw = observe_everything(test_support::library_test("canonical/IRIW+agent_diff-wg.litmus"));
  LlcVerifyOptions options;
  options.model.engine = model::Engine::Enum;
  VerificationCache cache;
  const TestVerification llvm = verify_via_mlir(iriw, *tools, options, cache);
  EXPECT_EQ(llvm.status, TestStatus::Sound) << llvm.reason;
  options.mlir.ops = codegen::MlirOps::Amdgpu;
  const TestVerification buffer = verify_via_mlir(iriw, *tools, options, cache);
  ASSERT_EQ(buffer.status, TestStatus::Counterexample) << buffer.reason;
  ASSERT_TRUE(buffer.counterexample);
  EXPECT_NE(buffer.counterexample->assembly.find("buffer_load_dword"), std::string::npos);
  EXPECT_EQ(buffer.counterexample->assembly.find(" glc"), std::string::npos) << buffer.counterexample->assembly;

  // Buffer atomics are performed at the L2 whatever their bits: message passing through a
  // release and an acquire amdgpu.raw_buffer_atomic_cmpswap is sound (and the compare value
  // and the new one, both in the instruction's first operand, are read).
  const litmus::Test cas = mlir_library_test("MP+cas-rel+cas-acq-agent_diff-wg");
  for (const char* name : {"gfx900", "gfx1100"}) {
    options.target = name;
    const TestVerification v = verify_via_mlir(cas, *tools, options, cache);
    EXPECT_EQ(v.status, TestStatus::Sound) << name << ": " << v.reason;
    EXPECT_EQ(register_values(cas, codegen::compile_via_mlir(cas, target(name), *tools, options.mlir), "1:r0"),
              (std::set<std::int64_t>{0, 1}))
        << name;
  }
}

// A batch is lowered by one mlir-opt and one mlir-translate; when one of its modules fails
// (MLIR 19 cannot lower amdgpu.lds_barrier for GFX12), the others are still lowered and the
// failure stays with its module, as verify-mlir reports it.
TEST(VerifyMlir, AFailingModuleOfABatchKeepsItsError) {
  auto tools = mlir_tools("mlir-opt-19");
  if (!tools) GTEST_SKIP() << "mlir-opt-19 not installed (Debian package mlir-19-tools)";
  const codegen::MlirOptions amdgpu{codegen::MlirOps::Amdgpu};
  const std::vector<std::string> modules = {
      codegen::emit_mlir(test_support::library_test("canonical/MP+agent+agent_diff-wg.litmus"), amdgpu).text,
      codegen::emit_mlir(mlir_library_test("MP+lds_barrier_same-wg+group"), amdgpu).text,
      codegen::emit_mlir(test_support::library_test("classic/SB+rlx-agent_diff-wg.litmus"), amdgpu).text};
  for (const char* name : {"gfx900", "gfx1200"}) {
    SCOPED_TRACE(name);
    const std::vector<codegen::LoweredModule> lowered = codegen::lower_mlir_to_llvm_ir(*tools, modules, target(name));
    ASSERT_EQ(lowered.size(), 3u);
    for (std::size_t i : {0u, 2u}) {
      EXPECT_EQ(lowered[i].error, "");
      EXPECT_NE(lowered[i].ir.find("define amdgpu_kernel void @P1("), std::string::npos);
    }
    if (std::string(name) == "gfx900") {
      EXPECT_EQ(lowered[1].error, "");
      EXPECT_EQ(lowered[1].ir, codegen::lower_mlir_to_llvm_ir(*tools, modules[1], target(name)));
    } else {
      EXPECT_EQ(lowered[1].ir, "");
      EXPECT_NE(lowered[1].error.find("don't know how to lower this for chipset"), std::string::npos)
          << lowered[1].error;
    }
  }
  LlcVerifyOptions options;
  options.target = "gfx1200";
  options.mlir.ops = codegen::MlirOps::Amdgpu;
  options.model.variant = model::ModelVariant::OpenCl;
  VerificationCache cache;
  const std::vector<litmus::Test> tests = {mlir_library_test("MP+lds_barrier_same-wg+group"),
                                           mlir_library_test("MP+lds_barrier+rlx-wg_same-wg")};
  const VerifyReport report = verify_via_mlir(tests, *tools, options, cache);
  for (const TestVerification& v : report.tests) {
    EXPECT_EQ(v.status, TestStatus::Unknown) << v.name;
    EXPECT_NE(v.reason.find("MLIR pipeline: mlir-opt-19 reported errors for gfx1200"), std::string::npos) << v.reason;
    EXPECT_NE(v.reason.find("'amdgpu.lds_barrier' op don't know how to lower this"), std::string::npos) << v.reason;
  }
}

// MLIR 22 and its llc know gfx950: the pipeline's code for it is decoded and simulated.
TEST(VerifyMlir, Mlir22CompilesGfx950) {
  auto tools = mlir_tools("mlir-opt-22");
  if (!tools) GTEST_SKIP() << "mlir-opt-22 not installed (Debian package mlir-22-tools)";
  LlcVerifyOptions options;
  options.target = "gfx950";
  options.model.engine = model::Engine::Enum;
  VerificationCache cache;
  for (codegen::MlirOps ops : {codegen::MlirOps::Llvm, codegen::MlirOps::Amdgpu}) {
    options.mlir.ops = ops;
    const TestVerification v =
        verify_via_mlir(observe_everything(test_support::library_test("canonical/MP+agent+agent_diff-wg.litmus")),
                        *tools, options, cache);
    EXPECT_EQ(v.status, TestStatus::Sound) << v.reason;
  }
}

}  // namespace
}  // namespace hsalit::verify
