// The hardware harness (docs/hardware.md): generated sources, builds with the vendor compilers
// when present, behaviour without a GPU, the outcome encoding, and the harness logic run on CPU
// threads (HSALIT_HOST_EMULATION).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <optional>
#include <regex>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/codegen/process.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/runner/hardware.hpp"
#include "litmus_support.hpp"
#include "mapping_support.hpp"

namespace hsalit::runner {
namespace {

using test_support::parse;

const std::filesystem::path kLibrary = std::filesystem::path(HSALIT_SOURCE_DIR) / "litmus" / "library";

litmus::Test load(const std::string& relative) {
  litmus::ParseResult r = litmus::parse_litmus_file(kLibrary / relative);
  EXPECT_TRUE(r.ok()) << relative;
  return *r.test;
}

using test_support::compile_for;

bool contains(const std::string& text, std::string_view what) { return text.find(what) != std::string::npos; }

const char* const kMp = "canonical/MP+wg+agent_diff-wg.litmus";

// ---- Generated sources.

TEST(HardwareSource, HipInlineAssemblyCarriesTheTableSequencesForMp) {
  litmus::Test mp = load(kMp);
  HarnessOptions o;
  o.target = "gfx900";
  codegen::CompiledTest c = compile_for(mp, "gfx900");
  HarnessProgram p = generate_hip_program(mp, &c, o);
  EXPECT_EQ(p.file_name, "MP+wg+agent_diff-wg.hip");
  // P1's acquire load at agent scope (gfx6-9 table): glc load, wait, L1 invalidate.
  EXPECT_TRUE(contains(p.source, "\"global_load_dword v1, v0, s[2:3] glc\\n\\t\""));
  EXPECT_TRUE(contains(p.source, "\"buffer_wbinvl1_vol\\n\\t\""));
  // Bases and the instance offset come in through operands, not kernel-argument loads.
  EXPECT_TRUE(contains(p.source, "v_mov_b32_e32 v0, %[offset]"));
  EXPECT_FALSE(contains(p.source, "s_load_dwordx2"));
  // The data read is guarded by a scalar branch: lanes one at a time, labels unique per asm.
  EXPECT_TRUE(contains(p.source, "__builtin_amdgcn_readfirstlane"));
  EXPECT_TRUE(contains(p.source, "s_cbranch_vccnz hsalit_P1_Skip1_%="));
  EXPECT_TRUE(contains(p.source, "hsalit_P1_Skip1_%=:"));

  codegen::CompiledTest c940 = compile_for(mp, "gfx940");
  o.target = "gfx940";
  HarnessProgram p940 = generate_hip_program(mp, &c940, o);
  EXPECT_TRUE(contains(p940.source, "\"global_load_dword v1, v0, s[2:3] sc1\\n\\t\""));
  EXPECT_TRUE(contains(p940.source, "\"buffer_inv sc1\\n\\t\""));
}

TEST(HardwareSource, HipBuiltinsUseOrdersAndScopes) {
  litmus::Test mp = load(kMp);
  HarnessOptions o;
  o.hip_builtins = true;
  HarnessProgram p = generate_hip_program(mp, nullptr, o);
  EXPECT_TRUE(contains(p.source,
                       "__hip_atomic_store(((int*)e.loc[1]), (int)(1LL), __ATOMIC_RELEASE, "
                       "__HIP_MEMORY_SCOPE_WORKGROUP)"));
  EXPECT_TRUE(contains(p.source, "__hip_atomic_load(((int*)e.loc[1]), __ATOMIC_ACQUIRE, __HIP_MEMORY_SCOPE_AGENT)"));
  // Ordinary accesses are plain.
  EXPECT_TRUE(contains(p.source, "*((int*)e.loc[0]) = (int)(1LL);"));
}

TEST(HardwareSource, CudaUsesPtxWithScopesMapped) {
  litmus::Test mp = load(kMp);
  HarnessOptions o;
  o.backend = HardwareBackend::Cuda;
  o.target = "sm_90";
  HarnessProgram p = generate_cuda_program(mp, o);
  EXPECT_EQ(p.file_name, "MP+wg+agent_diff-wg.cu");
  // A name that is a path, or holds a NUL, names a file inside --keep-source's folder.
  litmus::Test hostile = mp;
  hostile.name = std::string("../../tmp/x\0y", 13);
  EXPECT_EQ(generate_cuda_program(hostile, o).file_name, "___.._tmp_x_y.cu");
  EXPECT_TRUE(contains(p.source, "st.release.cta.b32 [%0], %1;"));  // screl wg
  EXPECT_TRUE(contains(p.source, "ld.acquire.gpu.b32 %0, [%1];"));  // scacq agent

  litmus::Test rmw = parse(R"(LISA RMW
{ x = 0; y = 0; }
 P0                                   | P1                                    ;
 rmw[atomic,scar,system] r0 (add r0 2) x | rmw[cas,atomic,scacq,wave] r1 0 5 y ;
 f[scar,agent]                        | f[screl,wg]                           ;
 w[atomic,scar,agent] y 3             | r[double,atomic,scar,agent] r2 x     ;
scopes: (agent (wg 0 1))
exists (0:r0=0 /\ 1:r1=0 /\ 1:r2=0)
)");
  HarnessProgram q = generate_cuda_program(rmw, o);
  EXPECT_TRUE(contains(q.source, "fence.sc.sys; atom.acq_rel.sys.add.u32 %0, [%1], %2;"));
  EXPECT_TRUE(contains(q.source, "atom.acquire.cta.cas.b32 %0, [%1], %2, %3;"));  // wave -> cta
  EXPECT_TRUE(contains(q.source, "fence.sc.gpu;"));
  EXPECT_TRUE(contains(q.source, "fence.acq_rel.cta;"));
  EXPECT_TRUE(contains(q.source, "fence.sc.gpu; st.relaxed.gpu.b32 [%0], %1;"));
  EXPECT_TRUE(contains(q.source, "fence.sc.gpu; ld.acquire.gpu.b64 %0, [%1];"));
}

// With sc_orders (`--sc-orders`), scacq and screl take the seq_cst sequences: the remedy of
// docs/mappings.md finding 1, whose store-buffering outcome an H100 shows with the plain
// acquire/release mapping (docs/campaigns/). Fences and the emulation's C++ orders follow.
TEST(HardwareSource, CudaScOrdersPutAnScFenceBeforeAcquireAndRelease) {
  litmus::Test mp = load(kMp);
  HarnessOptions o;
  o.backend = HardwareBackend::Cuda;
  o.target = "sm_90";
  o.sc_orders = true;
  const HarnessProgram p = generate_cuda_program(mp, o);
  EXPECT_TRUE(contains(p.source, "fence.sc.cta; st.relaxed.cta.b32 [%0], %1;")) << p.source;  // screl wg
  EXPECT_TRUE(contains(p.source, "fence.sc.gpu; ld.acquire.gpu.b32 %0, [%1];"));              // scacq agent
  EXPECT_FALSE(contains(p.source, "st.release"));
  EXPECT_TRUE(contains(p.source, ".load(std::memory_order_seq_cst)"));  // the host-emulation bodies
  EXPECT_TRUE(contains(p.source, "std::memory_order_seq_cst);"));
  HarnessOptions plain = o;
  plain.sc_orders = false;
  EXPECT_FALSE(contains(generate_cuda_program(mp, plain).source, ".load(std::memory_order_seq_cst)"));
  const std::vector<std::string> shown = cuda_thread_code(mp, true);
  EXPECT_TRUE(contains(shown[1], "fence.sc.gpu; ld.acquire.gpu.b32")) << shown[1];
  EXPECT_FALSE(contains(cuda_thread_code(mp)[1], "fence.sc")) << cuda_thread_code(mp)[1];

  litmus::Test fences = parse(R"(LISA FENCES
{ x = 0; }
 P0           | P1          ;
 f[screl,agent] | f[scacq,wg] ;
 w[atomic,rlx,agent] x 1 | r[atomic,rlx,agent] r0 x ;
scopes: (agent (wg 0) (wg 1))
exists (1:r0=1)
)");
  const HarnessProgram f = generate_cuda_program(fences, o);
  EXPECT_TRUE(contains(f.source, "fence.sc.gpu;")) << f.source;
  EXPECT_TRUE(contains(f.source, "fence.sc.cta;"));
  EXPECT_FALSE(contains(f.source, "fence.acq_rel"));
}

TEST(HardwareSource, UnsupportedTestsSayWhy) {
  HarnessOptions o;
  o.hip_builtins = true;
  // Threads of another agent than P0's run on the host, which has no work-group barrier.
  EXPECT_FALSE(hardware_unsupported_reason(load("classic/MP+system_diff-agent.litmus"), o));
  litmus::Test host_barrier = parse(R"(LISA host_barrier
{ x = 0; }
 P0                           | P1                           ;
 w[atomic,rlx,system] x 1     | barrier                      ;
                              | r[atomic,rlx,system] r0 x    ;
scopes: (system (agent (wg 0)) (agent (wg 1)))
exists (1:r0=0))");
  auto why = hardware_unsupported_reason(host_barrier, o);
  ASSERT_TRUE(why);
  EXPECT_TRUE(contains(*why, "P1 runs on the host (another agent than P0's), which has no work-group barrier")) << *why;
  EXPECT_THROW(generate_hip_program(host_barrier, nullptr, o), HardwareUnsupported);
  SimResult r = run_hardware(host_barrier, nullptr, o);
  ASSERT_TRUE(r.unknown);
  EXPECT_TRUE(contains(*r.unknown, "unsupported")) << *r.unknown;
  EXPECT_TRUE(r.histogram.empty());

  // Work-group barriers run, one instance per work-group, when every thread of the
  // work-group reaches the same barriers unconditionally.
  EXPECT_FALSE(hardware_unsupported_reason(load("canonical/MP+barrier_same-wg.litmus"), o));
  litmus::Test uneven = parse(R"(LISA uneven
{ x = 0; }
 P0      | P1       ;
 w[] x 1 | r[] r0 x ;
 barrier |          ;
scopes: (agent (wg 0 1))
exists (1:r0=0))");
  why = hardware_unsupported_reason(uneven, o);
  ASSERT_TRUE(why);
  EXPECT_TRUE(contains(*why, "P0 and P1 share a work-group but reach 1 and 0 barriers")) << *why;
  litmus::Test guarded = parse(R"(LISA guarded
{ x = 0; }
 P0         | P1       ;
 r[] r0 x   | w[] x 1  ;
 b[] r0 End | barrier  ;
 barrier    |          ;
 End:       |          ;
scopes: (agent (wg 0 1))
exists (0:r0=0))");
  why = hardware_unsupported_reason(guarded, o);
  ASSERT_TRUE(why);
  EXPECT_TRUE(contains(*why, "P0: a work-group barrier in a thread with branches")) << *why;
  // Threads of different work-groups may reach different numbers of barriers.
  litmus::Test apart = parse(R"(LISA apart
{ x = 0; }
 P0      | P1       ;
 w[] x 1 | r[] r0 x ;
 barrier |          ;
scopes: (agent (wg 0) (wg 1))
exists (1:r0=0))");
  EXPECT_FALSE(hardware_unsupported_reason(apart, o));
}

// Every test of the libraries with threads in several agents or a work-group barrier runs on
// the harness (none is refused): the main library's and the heterogeneous library.
TEST(HardwareSource, HeterogeneousAndBarrierTestsAreSupported) {
  HarnessOptions o;
  o.backend = HardwareBackend::Cuda;
  int counted = 0;
  for (const char* folder : {"litmus/library", "litmus/library-hetero"})
    for (const std::filesystem::path& file :
         litmus::collect_litmus_files({std::filesystem::path(HSALIT_SOURCE_DIR) / folder})) {
      const litmus::ParseResult r = litmus::parse_litmus_file(file);
      ASSERT_TRUE(r.ok()) << file;
      const litmus::Test& t = *r.test;
      bool agents = false, barrier = false;
      for (int p = 1; p < static_cast<int>(t.threads.size()); ++p)
        agents = agents || !t.scopes.same_instance(0, p, litmus::Scope::Agent);
      for (const litmus::Thread& thread : t.threads)
        for (const litmus::Instruction& ins : thread.code) barrier = barrier || ins.kind == litmus::OpKind::Barrier;
      if (!agents && !barrier) continue;
      ++counted;
      EXPECT_EQ(hardware_unsupported_reason(t, o), std::nullopt) << file;
    }
  EXPECT_EQ(counted, 14 + 4 + 20);  // the main library's two-agent and barrier tests, the hetero library
}

// A test with a barrier: one instance per work-group, each work-group class with the barriers
// its threads reach, in every dialect.
TEST(HardwareSource, BarrierTestsGetAWorkGroupPerInstance) {
  const litmus::Test t = load("canonical/MP+barrier+fences-wg_same-wg.litmus");
  HarnessOptions o;
  o.hip_builtins = true;
  const std::string hip = generate_hip_program(t, nullptr, o).source;
  EXPECT_TRUE(contains(hip, "constexpr bool kOneInstancePerWorkgroup = true;"));
  EXPECT_TRUE(contains(hip, "static const int kClassBarriers[kWgClasses] = {1};"));
  EXPECT_TRUE(contains(hip, "hsalit_block_barrier();"));
  o.backend = HardwareBackend::Cuda;
  const std::string cuda = generate_cuda_program(t, o).source;
  EXPECT_TRUE(contains(cuda, "constexpr bool kOneInstancePerWorkgroup = true;"));
  EXPECT_FALSE(contains(generate_cuda_program(load(kMp), o).source, "kOneInstancePerWorkgroup = true"));
}

// ---- Outcome encoding.

TEST(HardwareEncoding, RoundTrips) {
  litmus::Test mp = load(kMp);
  OutcomeEncoding enc = outcome_encoding(mp);
  ASSERT_EQ(enc.observed.size(), 2u);  // 1:r0, 1:r1
  EXPECT_EQ(enc.domains[0], (std::vector<std::int64_t>{0, 1}));
  EXPECT_EQ(enc.domains[1], (std::vector<std::int64_t>{-1, 0, 1}));
  EXPECT_EQ(enc.outcome_count(), 3u * 4u);
  int decoded = 0;
  for (std::uint64_t i = 0; i < enc.outcome_count(); ++i) {
    auto values = enc.decode(i);
    if (!values) continue;
    ++decoded;
    EXPECT_EQ(enc.encode(*values), i);
  }
  EXPECT_EQ(decoded, 2 * 3);
  // A value outside a domain encodes to that digit's "other" and does not decode.
  std::uint64_t other = enc.encode({1, 42});
  EXPECT_FALSE(enc.decode(other));

  // The harness's JSON, read back: indices decoded, "other" outcomes taken raw.
  std::string json = fmt::format(
      R"({{"schema": "hsalit-harness/1", "iterations": 2, "instances": 3, "histogram": [[{}, 4], [{}, 1]], )"
      R"("other": [[1, 42]], "other_lost": 0}})",
      enc.encode({1, 1}), enc.encode({0, -1}));
  SimResult r = parse_harness_output("noise\n" + json + "\n", enc);
  EXPECT_FALSE(r.unknown);
  EXPECT_EQ(r.iterations, 6u);
  EXPECT_EQ(r.histogram.at(SimOutcome{{1, 1}}), 4u);
  EXPECT_EQ(r.histogram.at(SimOutcome{{0, -1}}), 1u);
  EXPECT_EQ(r.histogram.at(SimOutcome{{1, 42}}), 1u);

  SimResult none = parse_harness_output(
      R"({"schema": "hsalit-harness/1", "error": "no-device", "message": "no ROCm-capable device is detected"})", enc);
  ASSERT_TRUE(none.unknown);
  EXPECT_TRUE(contains(*none.unknown, "no GPU")) << *none.unknown;
}

TEST(HardwareEncoding, IncantationsParse) {
  std::string error;
  auto inc = parse_incantations("stress,spacing", error);
  ASSERT_TRUE(inc);
  EXPECT_TRUE(inc->stress && inc->spacing && !inc->shuffle && !inc->prestress && !inc->delay);
  EXPECT_EQ(parse_incantations("all", error), (Incantations{true, true, true, true, true}));
  EXPECT_EQ(parse_incantations("delay", error), (Incantations{.delay = true}));
  EXPECT_FALSE(parse_incantations("stress,warp-drive", error));
  EXPECT_TRUE(contains(error, "warp-drive"));
}

TEST(HardwareEncoding, LayoutFollowsTheScopeTree) {
  InstanceLayout diff_wg = instance_layout(load(kMp));
  ASSERT_EQ(diff_wg.workgroups.size(), 2u);
  InstanceLayout same_wg = instance_layout(load("canonical/SB+wg_same-wg.litmus"));
  ASSERT_EQ(same_wg.workgroups.size(), 1u);
  EXPECT_EQ(same_wg.workgroups[0].size(), 2u);  // one work-group, two waves
  InstanceLayout same_wave = instance_layout(load("classic/SB+sc-wave_same-wave.litmus"));
  ASSERT_EQ(same_wave.workgroups.size(), 1u);
  ASSERT_EQ(same_wave.workgroups[0].size(), 1u);
  EXPECT_EQ(same_wave.workgroups[0][0], (std::vector<int>{0, 1}));
}

// ---- Host emulation: the harness logic on CPU threads.

struct EmulationCase {
  std::string file;
  Incantations incantations;
};

class HardwareEmulation : public ::testing::TestWithParam<EmulationCase> {};

// The harness on CPU threads, small: `instances` per launch in work-groups of 8, `launches`
// launches, one stressing work-group where `stress` is asked; HIP with its builtins, or CUDA.
HarnessOptions emulated(HardwareBackend backend, int instances, std::uint64_t launches, Incantations incantations) {
  HarnessOptions o;
  o.host_emulation = true;
  o.backend = backend;
  o.hip_builtins = backend == HardwareBackend::Hip;
  o.instances = instances;
  o.iterations = launches;
  o.workgroup_size = 8;
  o.stress_workgroups = 1;
  o.incantations = incantations;
  return o;
}

TEST_P(HardwareEmulation, CountsEveryInstanceWithOutcomesTheTestCanProduce) {
  if (!find_host_cxx()) GTEST_SKIP() << "no host C++ compiler";
  litmus::Test test = load(GetParam().file);
  const HarnessOptions o = emulated(HardwareBackend::Hip, 6, 40, GetParam().incantations);
  SimResult r = run_hardware(test, nullptr, o);
  ASSERT_FALSE(r.unknown) << *r.unknown;
  EXPECT_EQ(r.iterations, 40u * 6u);
  std::uint64_t total = 0;
  OutcomeEncoding enc = outcome_encoding(test);
  for (const auto& [outcome, count] : r.histogram) {
    total += count;
    // Every value is one the test can produce (no "other" digit, so no mixed-up instances).
    EXPECT_TRUE(enc.decode(enc.encode(outcome.values))) << format_outcome(test, r, outcome);
  }
  EXPECT_EQ(total, r.iterations);
}

// A GoogleTest name: the file's name and the incantations, every other character as '_'
// (`MP_rlx_agent_diff_wg__stress_shuffle_prestress_spacing`).
std::string emulation_case_name(const ::testing::TestParamInfo<EmulationCase>& info) {
  const Incantations& i = info.param.incantations;
  std::string name = std::filesystem::path(info.param.file).stem().string() + "_";
  for (auto [on, what] :
       {std::pair{i.stress, "stress"}, std::pair{i.shuffle, "shuffle"}, std::pair{i.prestress, "prestress"},
        std::pair{i.spacing, "spacing"}, std::pair{i.delay, "delay"}})
    if (on) name += std::string("_") + what;
  if (i == Incantations{}) name += "_none";
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(
    Library, HardwareEmulation,
    ::testing::Values(EmulationCase{kMp, {}},
                      EmulationCase{kMp, {.stress = true, .shuffle = true, .prestress = true, .spacing = true}},
                      EmulationCase{"canonical/SB+wg_same-wg.litmus", {.shuffle = true, .spacing = true}},
                      EmulationCase{"canonical/MP+wave+wave_diff-wave.litmus", {.shuffle = true}},
                      EmulationCase{"classic/MP+agent_same-wg+group-data.litmus", {.stress = true, .shuffle = true}},
                      EmulationCase{"classic/MP+xchg-rel+rmw-acq-agent_diff-wg.litmus", {.prestress = true}},
                      EmulationCase{"canonical/FetchAdd2+agent_diff-wg.litmus", {}},
                      EmulationCase{"classic/SB+sc-wave_same-wave.litmus", {.shuffle = true}},
                      EmulationCase{"canonical/MP+barrier_same-wg.litmus", {.stress = true, .shuffle = true}},
                      EmulationCase{"canonical/CoWW+barrier+fences-wg_same-wg.litmus", {.spacing = true}},
                      EmulationCase{"classic/SB+sc-system_diff-agent.litmus", {.shuffle = true, .delay = true}},
                      EmulationCase{"classic/IRIW+sc-system_diff-agent.litmus", {.prestress = true}},
                      EmulationCase{"canonical/LB+rlx+datas-system_diff-agent.litmus", {.stress = true}}),
    emulation_case_name);

TEST(HardwareEmulationMp, TheForbiddenOutcomeNeverAppearsWithReleaseAcquire) {
  if (!find_host_cxx()) GTEST_SKIP() << "no host C++ compiler";
  // C++ release/acquire on the host forbids MP's weak outcome: a harness that mixed instances
  // up or read results before the threads finished would show it.
  litmus::Test mp = load("classic/MP+fence-rel+scacq-agent_diff-wg.litmus");
  const HarnessOptions o = emulated(HardwareBackend::Hip, 8, 60, {false, true, false, true});
  SimResult r = run_hardware(mp, nullptr, o);
  ASSERT_FALSE(r.unknown) << *r.unknown;
  for (const auto& [outcome, count] : r.histogram) {
    std::string text = format_outcome(mp, r, outcome);
    EXPECT_FALSE(contains(text, "1:r0=1;") && contains(text, "1:r1=0;")) << text;
  }
}

// The emulation's work-group barrier is a std::barrier, which synchronises in C++: a reader
// past it sees the write made before it, in every instance. An instance whose threads sat
// in work-groups of other instances, or whose work-group's idle threads did not join the
// barrier, would show the old value or not finish.
TEST(HardwareEmulationBarrier, TheBarrierHoldsTheWorkGroupTogether) {
  if (!find_host_cxx()) GTEST_SKIP() << "no host C++ compiler";
  litmus::Test mp = load("canonical/MP+barrier_same-wg.litmus");
  const HarnessOptions o =
      emulated(HardwareBackend::Hip, 6, 50, {.stress = true, .shuffle = true, .prestress = true, .spacing = false});
  SimResult r = run_hardware(mp, nullptr, o);
  ASSERT_FALSE(r.unknown) << *r.unknown;
  EXPECT_EQ(r.iterations, 50u * 6u);
  std::uint64_t total = 0;
  for (const auto& [outcome, count] : r.histogram) {
    total += count;
    EXPECT_FALSE(contains(format_outcome(mp, r, outcome), "1:r0=0;")) << format_outcome(mp, r, outcome);
  }
  EXPECT_EQ(total, r.iterations);
  EXPECT_EQ(r.instances_per_launch, 6u);
}

// A test with a barrier takes a work-group per instance, so a device that holds fewer
// work-groups than asked runs fewer instances per launch, in more launches: 4 resident
// work-groups, one of them a stressing one, hold 3 instances; 50 launches of 6 asked become
// 100 launches of 3, as many runs as asked, and the result says 3 per launch.
TEST(HardwareEmulationBarrier, AFullDeviceRunsFewerInstancesInMoreLaunches) {
  if (!find_host_cxx()) GTEST_SKIP() << "no host C++ compiler";
  litmus::Test mp = load("canonical/MP+barrier_same-wg.litmus");
  HarnessOptions o = emulated(HardwareBackend::Cuda, 6, 50, {.stress = true});
  o.resident_workgroups = 4;
  SimResult r = run_hardware(mp, nullptr, o);
  ASSERT_FALSE(r.unknown) << *r.unknown;
  EXPECT_EQ(r.instances_per_launch, 3u);
  EXPECT_EQ(r.iterations, 100u * 3u);
  std::uint64_t total = 0;
  for (const auto& [outcome, count] : r.histogram) total += count;
  EXPECT_EQ(total, r.iterations);
  // A test without a barrier packs its instances: MP across two work-groups takes one of each
  // kind for all 6 instances, and the stressing one; where those 3 do not fit, the run says so.
  o.resident_workgroups = 3;
  SimResult packed = run_hardware(load(kMp), nullptr, o);
  ASSERT_FALSE(packed.unknown) << *packed.unknown;
  EXPECT_EQ(packed.instances_per_launch, 6u);
  EXPECT_EQ(packed.iterations, 50u * 6u);
  o.resident_workgroups = 2;
  SimResult full = run_hardware(load(kMp), nullptr, o);
  ASSERT_TRUE(full.unknown);
  EXPECT_TRUE(contains(*full.unknown, "3 work-groups cannot all be resident (at most 2)")) << *full.unknown;
}

// The host as an agent: P1 of MP+system_diff-agent (another agent than P0's) runs on host
// threads, its GPU side on the emulated GPU, through memory both see. Release and acquire at
// system scope forbid the weak outcome in C++, on both sides: an instance whose host half
// read another instance's memory, or ran before its GPU half had started, would show it or
// leave a count short. The runs say how many overlapped in time.
TEST(HardwareEmulationHost, HostThreadsTakePartInEveryInstance) {
  if (!find_host_cxx()) GTEST_SKIP() << "no host C++ compiler";
  litmus::Test mp = load("classic/MP+system_diff-agent.litmus");
  const HarnessOptions o = emulated(HardwareBackend::Cuda, 8, 60, {.shuffle = true, .prestress = true, .delay = true});
  SimResult r = run_hardware(mp, nullptr, o);
  ASSERT_FALSE(r.unknown) << *r.unknown;
  EXPECT_EQ(r.iterations, 60u * 8u);
  ASSERT_TRUE(r.overlapped);
  EXPECT_LE(*r.overlapped, r.iterations);
  std::uint64_t total = 0;
  for (const auto& [outcome, count] : r.histogram) {
    total += count;
    const std::string text = format_outcome(mp, r, outcome);
    EXPECT_FALSE(contains(text, "1:r0=1;") && contains(text, "1:r1=0;")) << text;
  }
  EXPECT_EQ(total, r.iterations);
  // Tests with one agent say nothing of overlap.
  EXPECT_FALSE(run_hardware(load(kMp), nullptr, o).overlapped);
}

// ---- Vendor compilers (compile only; skipped when absent).

void expect_builds(const HarnessProgram& p, const HarnessOptions& o, const std::string& what) {
  codegen::TempDir dir("hsalit-hw-test");
  BuildResult b = build_program(p, o, dir.path(), /*compile_only=*/true);
  if (!b.ok && contains(b.log, "invalid target ID"))
    GTEST_SKIP() << what << ": this hipcc does not know " << o.target << " (Debian's ROCm 5.2 clang-15 knows gfx940 "
                 << "but not gfx941/gfx942)";
  EXPECT_TRUE(b.ok) << what << "\n" << b.log;
}

class HipBuild : public ::testing::TestWithParam<std::string> {};

TEST_P(HipBuild, MpCompilesInBothModes) {
  if (!find_hipcc()) GTEST_SKIP() << "hipcc not found (Debian packages hipcc, libamdhip64-dev, rocm-device-libs)";
  litmus::Test mp = load(kMp);
  HarnessOptions o;
  o.target = GetParam();
  codegen::CompiledTest c = compile_for(mp, o.target);
  expect_builds(generate_hip_program(mp, &c, o), o, "inline assembly");
  o.hip_builtins = true;
  expect_builds(generate_hip_program(mp, nullptr, o), o, "builtins");
}

TEST_P(HipBuild, RmwAndGroupTestsCompile) {
  if (!find_hipcc()) GTEST_SKIP() << "hipcc not found";
  HarnessOptions o;
  o.target = GetParam();
  for (const char* file :
       {"classic/MP+agent_same-wg+group-data.litmus", "classic/MP+xchg-rel+rmw-acq-agent_diff-wg.litmus",
        "classic/SB+sc-wave_same-wave.litmus", "canonical/MP+barrier+fences-wg_same-wg.litmus"}) {
    litmus::Test t = load(file);
    codegen::CompiledTest c = compile_for(t, o.target);
    expect_builds(generate_hip_program(t, &c, o), o, file);
  }
  o.hip_builtins = true;
  expect_builds(generate_hip_program(load("canonical/MP+barrier+fences-wg_same-wg.litmus"), nullptr, o), o,
                "barrier with builtins");
  // Host threads: their code is host C++ in both modes.
  expect_builds(generate_hip_program(load("classic/IRIW+sc-system_diff-agent.litmus"), nullptr, o), o,
                "host threads with builtins");
  o.hip_builtins = false;
  const litmus::Test host = load("canonical/MP+agent+system_diff-agent.litmus");
  codegen::CompiledTest c = compile_for(host, o.target);
  expect_builds(generate_hip_program(host, &c, o), o, "host threads with inline assembly");
}

INSTANTIATE_TEST_SUITE_P(Targets, HipBuild, ::testing::Values("gfx900", "gfx90a", "gfx940"));

TEST(HipBuildTemporaries, ABuildLeavesNothingBehind) {
  if (!find_hipcc()) GTEST_SKIP() << "hipcc not found";
  // clang's HIP offloading keeps an empty folder under TMPDIR per compile; the build gives
  // the compiler a TMPDIR of its own and removes it.
  codegen::TempDir tmp("hsalit-tmpdir-test");
  const char* saved = std::getenv("TMPDIR");
  std::optional<std::string> previous = saved ? std::optional<std::string>(saved) : std::nullopt;
  ::setenv("TMPDIR", tmp.path().c_str(), 1);
  HarnessOptions o;
  o.hip_builtins = true;
  o.instances = 4;
  o.iterations = 1;
  SimResult r = run_hardware(load("classic/SB+sc-wave_same-wave.litmus"), nullptr, o);
  if (previous)
    ::setenv("TMPDIR", previous->c_str(), 1);
  else
    ::unsetenv("TMPDIR");
  ASSERT_FALSE(r.unknown && contains(*r.unknown, "was not built")) << *r.unknown;
  std::vector<std::string> left;
  for (const auto& entry : std::filesystem::directory_iterator(tmp.path())) left.push_back(entry.path().string());
  EXPECT_TRUE(left.empty()) << fmt::format("{}", fmt::join(left, ", "));
}

TEST(CudaBuild, MpCompilesForSm90) {
  if (!find_nvcc())
    GTEST_SKIP() << "needs a CUDA toolkit, which Debian 12 does not ship (NVIDIA's own packages): nvcc not found "
                    "(HSALIT_NVCC, PATH, /usr/local/cuda/bin/nvcc); CudaSource.HarnessCompilesAsHostCxxWithCudaStubbed "
                    "checks the source's C++ without it";
  HarnessOptions o;
  o.backend = HardwareBackend::Cuda;
  o.target = "sm_90";
  expect_builds(generate_cuda_program(load(kMp), o), o, "cuda");
  expect_builds(generate_cuda_program(load("canonical/MP+barrier+fences-wg_same-wg.litmus"), o), o, "cuda barrier");
  expect_builds(generate_cuda_program(load("classic/IRIW+sc-system_diff-agent.litmus"), o), o, "cuda host threads");
}

// The generated CUDA harness compiled as host C++ (-fsyntax-only) with the CUDA parts stubbed
// by tests/support/cuda_host_stubs.hpp: its C++ parses and type-checks on a machine without a
// CUDA toolkit (Debian 12 ships none), for tests with ordinary, atomic, rmw, group and fence
// accesses and both sets of sequences. The PTX inside its inline assembly is nvcc's to check
// (CudaBuild.MpCompilesForSm90).
TEST(CudaSource, HarnessCompilesAsHostCxxWithCudaStubbed) {
  const std::optional<std::filesystem::path> cxx = find_host_cxx();
  ASSERT_TRUE(cxx) << "no host C++ compiler (Debian package g++, installed by scripts/setup)";
  const std::string stubs = std::string(HSALIT_SOURCE_DIR) + "/tests/support/cuda_host_stubs.hpp";
  codegen::TempDir dir("hsalit-cuda-syntax");
  int checked = 0;
  for (const char* file :
       {kMp, "classic/MP+agent_same-wg+group-data.litmus", "classic/MP+xchg-rel+rmw-acq-agent_diff-wg.litmus",
        "classic/SB+sc-wave_same-wave.litmus", "classic/MP+fence-rel+scacq-agent_diff-wg.litmus",
        "canonical/FetchAdd2+agent_diff-wg.litmus", "canonical/MP+barrier_same-wg.litmus",
        "classic/MP+system_diff-agent.litmus"})
    for (const bool sc_orders : {false, true}) {
      SCOPED_TRACE(std::string(file) + (sc_orders ? ", sc orders" : ""));
      HarnessOptions o;
      o.backend = HardwareBackend::Cuda;
      o.target = "sm_90";
      o.sc_orders = sc_orders;
      const HarnessProgram program = generate_cuda_program(load(file), o);
      // nvcc's launch syntax is not C++: `k<<<g, b>>>(args)` becomes `hsalit_cuda_launch(k, g, b)(args)`.
      const std::string source =
          std::regex_replace(program.source, std::regex(R"((\w+)<<<([^>]*)>>>)"), "hsalit_cuda_launch($1, $2)");
      ASSERT_NE(source, program.source) << "the harness launches no kernel";
      const std::filesystem::path cu = dir.path() / ("harness" + std::to_string(checked) + ".cu");
      std::ofstream(cu) << source;
      const codegen::ProcessResult r = codegen::run_process(
          {cxx->string(), "-std=c++17", "-fsyntax-only", "-include", stubs, "-x", "c++", cu.string()});
      EXPECT_TRUE(r.ok()) << r.err;
      ++checked;
    }
  EXPECT_EQ(checked, 16);
}

// ---- No GPU: unknown with a clear reason, no crash.

TEST(HardwareNoGpu, HipSaysSo) {
  if (std::filesystem::exists("/dev/kfd")) GTEST_SKIP() << "an AMD GPU driver is present";
  HarnessOptions o;
  o.hip_builtins = true;
  o.instances = 4;
  o.iterations = 1;
  SimResult r = run_hardware(load(kMp), nullptr, o);
  ASSERT_TRUE(r.unknown);
  EXPECT_TRUE(r.histogram.empty());
  if (find_hipcc())
    EXPECT_TRUE(contains(*r.unknown, "no AMD GPU: /dev/kfd is missing")) << *r.unknown;
  else
    EXPECT_TRUE(contains(*r.unknown, "hipcc not found")) << *r.unknown;
}

TEST(HardwareNoGpu, CudaSaysSo) {
  if (std::filesystem::exists("/dev/nvidia0")) GTEST_SKIP() << "an NVIDIA GPU is present";
  HarnessOptions o;
  o.backend = HardwareBackend::Cuda;
  o.target = "sm_90";
  o.instances = 4;
  o.iterations = 1;
  SimResult r = run_hardware(load(kMp), nullptr, o);
  ASSERT_TRUE(r.unknown);
  EXPECT_TRUE(r.histogram.empty());
  if (find_nvcc())
    EXPECT_TRUE(contains(*r.unknown, "no GPU")) << *r.unknown;
  else
    EXPECT_TRUE(contains(*r.unknown, "nvcc not found")) << *r.unknown;
}

}  // namespace
}  // namespace hsalit::runner
