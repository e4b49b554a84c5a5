// The simulator executes each generation's caches as its description says
// (codegen::memory_hierarchy; docs/simulator.md, "Generations" and rule 13): each cache
// instruction a shipped table relies on is shown necessary by a weak outcome the simulator
// reaches without it and not with it.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/runner/sim.hpp"
#include "litmus_support.hpp"
#include "mapping_support.hpp"
#include "sim_support.hpp"

namespace hsalit::runner {
namespace {

using test_support::compile_for;
using test_support::library_test;

// Whether exhaustive search reaches the final state the test's condition describes (its
// `exists` or `~exists` clause: the weak outcome).
bool reaches_weak(const litmus::Test& test, const codegen::CompiledTest& compiled, const SimOptions& options = {}) {
  SimResult r = run_exhaustive(test, compiled, options);
  EXPECT_FALSE(r.unknown) << *r.unknown;
  return test_support::condition_reached(test, r);
}

// The compiled code with every instruction `drop` selects removed, or changed by `change`.
codegen::CompiledTest edited(codegen::CompiledTest c, const std::function<bool(codegen::Instruction&)>& drop) {
  for (codegen::CompiledThread& t : c.threads) std::erase_if(t.code, drop);
  return c;
}
bool mnemonic_is(const codegen::Instruction& ins, const char* m) { return ins.mnemonic == m; }

// GFX10-GFX11: an agent-scope acquire invalidates the GL1 and then the L0. Without
// buffer_gl1_inv the L0 refills from a GL1 line filled before the flag was read.
TEST(SimGenerations, Gfx10AcquireNeedsGl1Invalidate) {
  const litmus::Test test = library_test("canonical/MP+agent+agent_diff-wg.litmus");
  for (const char* target : {"gfx1030", "gfx1100"}) {
    const codegen::CompiledTest shipped = compile_for(test, target);
    EXPECT_FALSE(reaches_weak(test, shipped)) << target;
    EXPECT_TRUE(reaches_weak(test, edited(shipped, [](auto& i) { return mnemonic_is(i, "buffer_gl1_inv"); })))
        << target;
    EXPECT_TRUE(reaches_weak(test, edited(shipped, [](auto& i) { return mnemonic_is(i, "buffer_gl0_inv"); })))
        << target;
  }
}

// GFX12: global_inv of SCOPE_DEV invalidates the GL1 and the L0; one of SCOPE_SE only the L0.
TEST(SimGenerations, Gfx12AgentAcquireNeedsDeviceScopeInvalidate) {
  const litmus::Test test = library_test("canonical/MP+agent+agent_diff-wg.litmus");
  const codegen::CompiledTest shipped = compile_for(test, "gfx1200");
  EXPECT_FALSE(reaches_weak(test, shipped));
  EXPECT_TRUE(reaches_weak(test, edited(shipped, [](auto& i) { return mnemonic_is(i, "global_inv"); })));
  codegen::CompiledTest narrower = shipped;
  int changed = 0;
  for (codegen::CompiledThread& t : narrower.threads)
    for (codegen::Instruction& ins : t.code)
      if (ins.mnemonic == "global_inv" && ins.policy.scope == "SCOPE_DEV") ins.policy.scope = "SCOPE_SE", ++changed;
  EXPECT_GT(changed, 0);
  EXPECT_TRUE(reaches_weak(test, narrower));
}

// A load that bypasses the L0 but not the GL1 (GFX10 glc without dlc) may read a GL1 line
// filled before a store it follows in coherence order: relaxed agent-scope loads need dlc on
// GFX10 for coherence (CoRR), GFX11's glc bypasses both.
TEST(SimGenerations, Gfx10AgentLoadNeedsDlc) {
  const litmus::Test test = test_support::parse(R"(LISA CoRR+rlx-agent_diff-wg
{ x=0; }
 P0                      | P1                       ;
 w[atomic,rlx,agent] x 1 | r[atomic,rlx,agent] r0 x ;
                         | r[atomic,rlx,agent] r1 x ;
scopes: (agent (wg 0) (wg 1))
exists (1:r0=1 /\ 1:r1=0)
)");
  const codegen::CompiledTest shipped = compile_for(test, "gfx1030");
  EXPECT_FALSE(reaches_weak(test, shipped));
  codegen::CompiledTest without_dlc = shipped;
  int changed = 0;
  for (codegen::CompiledThread& t : without_dlc.threads)
    for (codegen::Instruction& ins : t.code)
      if (ins.policy.dlc) ins.policy.dlc = false, ++changed;
  EXPECT_EQ(changed, 2);
  EXPECT_TRUE(reaches_weak(test, without_dlc));
  EXPECT_FALSE(reaches_weak(test, compile_for(test, "gfx1100")));
}

// gfx950 is a GFX942 target: under `l2-per-agent` a system-scope release writes its agent's L2
// back (buffer_wbl2 sc0 sc1); without it the other agent reads the old data from memory.
TEST(SimGenerations, Gfx950SystemReleaseNeedsL2Writeback) {
  const litmus::Test test = library_test("canonical/MP+system+system_diff-agent.litmus");
  SimOptions per_agent;
  per_agent.hw.l2_per_agent = true;
  for (const char* target : {"gfx942", "gfx950"}) {
    const codegen::CompiledTest shipped = compile_for(test, target);
    EXPECT_FALSE(reaches_weak(test, shipped, per_agent)) << target;
    EXPECT_TRUE(reaches_weak(test, edited(shipped, [](auto& i) { return mnemonic_is(i, "buffer_wbl2"); }), per_agent))
        << target;
  }
}

// GFX942 with an agent over several L2s (`l2-per-xcd`): the agent-scope release writes its
// L2 back (buffer_wbl2 sc1) and the acquire invalidates the reader's (buffer_inv sc1); either
// missing, the data is read stale. Atomics stay atomic across the L2s.
TEST(SimGenerations, Gfx942AgentOverSeveralL2sNeedsWritebackAndInvalidate) {
  const litmus::Test test = library_test("canonical/MP+agent+agent_diff-wg.litmus");
  SimOptions xcd;
  xcd.hw.l2_per_xcd = true;
  for (const char* target : {"gfx942", "gfx950"}) {
    const codegen::CompiledTest shipped = compile_for(test, target);
    EXPECT_FALSE(reaches_weak(test, shipped, xcd)) << target;
    EXPECT_TRUE(reaches_weak(test, edited(shipped, [](auto& i) { return mnemonic_is(i, "buffer_wbl2"); }), xcd))
        << target;
    codegen::CompiledTest l1_only = shipped;
    for (codegen::CompiledThread& t : l1_only.threads)
      for (codegen::Instruction& ins : t.code)
        if (ins.mnemonic == "buffer_inv") ins.policy.sc1 = false, ins.policy.sc0 = true;
    EXPECT_TRUE(reaches_weak(test, l1_only, xcd)) << target;
    // One L2 per agent: the agent-scope L2 maintenance has nothing to do.
    EXPECT_FALSE(reaches_weak(test, edited(shipped, [](auto& i) { return mnemonic_is(i, "buffer_wbl2"); }))) << target;
  }
  // gfx90a has one L2 per agent whatever the assumption.
  const codegen::CompiledTest gfx90a = compile_for(test, "gfx90a");
  EXPECT_FALSE(reaches_weak(test, gfx90a, xcd));
}

TEST(SimGenerations, AtomicsStayAtomicAcrossL2s) {
  const litmus::Test test = library_test("canonical/FetchAdd2+agent_diff-wg.litmus");
  SimOptions xcd;
  xcd.hw.l2_per_xcd = true;
  const codegen::CompiledTest shipped = compile_for(test, "gfx942");
  const SimResult r = run_exhaustive(test, shipped, xcd);
  ASSERT_FALSE(r.unknown);
  std::size_t x = r.observed.size();
  for (std::size_t i = 0; i < r.observed.size(); ++i)
    if (!r.observed[i].thread && r.observed[i].name == "x") x = i;
  ASSERT_LT(x, r.observed.size());
  for (const auto& [outcome, count] : r.histogram) EXPECT_EQ(outcome.values[x], 2) << "an increment was lost";
}

// Agent-scope stores and loads (sc1) are coherent across the agent's L2s: IRIW with screl and
// scacq agent atomics over four work-groups keeps its forbidden outcome out under
// `l2-per-xcd` (with the released flag left dirty in its L2 it was reached).
TEST(SimGenerations, AgentScopeAccessesAreCoherentAcrossL2s) {
  const litmus::Test test = library_test("canonical/IRIW+agent_diff-wg.litmus");
  SimOptions xcd;
  xcd.hw.l2_per_xcd = true;
  EXPECT_FALSE(reaches_weak(test, compile_for(test, "gfx942"), xcd));  // 2:r0=1, 2:r1=0, 3:r0=1, 3:r1=0
}

// A wave's later load of a location does not hit a cache line while its earlier request to the
// location waits in the CU's queue: in WGP mode, with the writer on the other CU of the WGP,
// CoRR with work-group atomics stays coherent (the second load once hit a GL1 line filled
// before the store while the first, glc, load was still queued).
TEST(SimGenerations, LaterLoadDoesNotOvertakeTheWavesQueuedRequest) {
  const litmus::Test test = library_test("canonical/CoRR+rlx-wg_same-wg.litmus");
  for (const char* target : {"gfx1030", "gfx1100", "gfx1200"})
    EXPECT_FALSE(reaches_weak(test, compile_for(test, target))) << target;
}

// An access performed at memory past its L2 (system scope under `l2-per-agent`, agent scope
// under `l2-per-xcd`) writes the line back, invalidates it and accesses memory in one step: no
// L1 fill takes the line's old value in between (a wave then read another wave's older store
// after its own, CoWR).
TEST(SimGenerations, AccessAtMemoryIsOneStep) {
  const litmus::Test test = test_support::parse(R"(LISA CoWR
{ x = 0; }
 P0                      | P1                   ;
 w[atomic,rlx,agent] x 2 | w[atomic,rlx,wg] x 1 ;
 r[atomic,rlx,wg] r0 x   |                      ;
scopes: (agent (wg 0 1))
exists (0:r0=1 /\ x=2)
)");
  SimOptions xcd;
  xcd.hw.l2_per_xcd = true;
  EXPECT_FALSE(reaches_weak(test, compile_for(test, "gfx942"), xcd));  // 0:r0=1 with x=2
}

// System-scope seq_cst stores and loads (sc0 sc1) are coherent across agents' L2s under
// `l2-per-agent`: SB with them keeps its forbidden outcome out (the flag store once stayed in
// its agent's L2).
TEST(SimGenerations, SystemScopeAccessesAreCoherentAcrossAgents) {
  const litmus::Test test = library_test("classic/SB+sc-system_diff-agent.litmus");
  SimOptions per_agent;
  per_agent.hw.l2_per_agent = true;
  codegen::CompileOptions sc_orders;
  sc_orders.sc_acquire_release = true;
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const codegen::Target& t = catalog.get("gfx942");
  const codegen::CompiledTest compiled =
      codegen::compile(test, t, catalog, codegen::MappingTable::builtin(t.mapping), sc_orders);
  EXPECT_FALSE(reaches_weak(test, compiled, per_agent));  // 0:r0=0 and 1:r0=0
}

}  // namespace
}  // namespace hsalit::runner
