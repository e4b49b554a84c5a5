#include "hsalit/runner/sim.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string_view>

#include "compile_support.hpp"
#include "hsalit/litmus/evaluate.hpp"
#include "hsalit/litmus/generate.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/model/checker.hpp"
#include "litmus_support.hpp"
#include "mapping_support.hpp"
#include "sim_support.hpp"

namespace hsalit::runner {
namespace {

using test_support::code_text;
using test_support::gfx69;
using test_support::library_test;
using test_support::only_sc_final_states;
using test_support::parse;
using test_support::row;

using nlohmann::json;

// Does some reachable final state satisfy the test's condition proposition?
bool reaches_condition(const litmus::Test& test, const codegen::MappingTable& table, const SimOptions& options = {},
                       const std::string& target = "gfx900", const codegen::CompileOptions& co = {}) {
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  codegen::CompiledTest compiled = codegen::compile(test, catalog.get(target), catalog, table, co);
  SimResult r = run_exhaustive(test, compiled, options);
  EXPECT_FALSE(r.unknown) << *r.unknown;
  return test_support::condition_reached(test, r);
}

const char* kMpAgent = R"(LISA MP-agent
{ x = 0; y = 0; 1:r1 = -1; }
 P0                        | P1                          ;
 w[] x 1                   | r[atomic,scacq,agent] r0 y  ;
 w[atomic,screl,agent] y 1 | mov r2 (neq r0 1)           ;
                           | b[] r2 Skip                 ;
                           | r[] r1 x                    ;
                           | Skip:                       ;
scopes: (agent (wg 0) (wg 1))
exists (1:r0=1 /\ 1:r1=0)
)";

TEST(Simulator, ShippedMappingKeepsMessagePassingAcrossCus) {
  EXPECT_FALSE(reaches_condition(parse(kMpAgent), gfx69()));
}

// Rules 5 and 9: relaxed accesses across CUs show the stale read.
TEST(Simulator, RelaxedMessagePassingAcrossCusShowsTheStaleRead) {
  EXPECT_TRUE(reaches_condition(library_test("canonical/MP+rlx-agent_diff-wg.litmus"), gfx69()));
}

// Rules 5, 6 and 8: an acquire without buffer_wbinvl1_vol reads a stale L1 line; without
// spontaneous fills no line could be stale and the bug would go unseen.
TEST(Simulator, AcquireWithoutL1InvalidateReadsStaleData) {
  codegen::MappingTable broken = gfx69([](json& d) {
    json& seq = row(d, "load.atomic.acquire.agent.global")["sequence"];
    seq.erase(seq.end() - 1);  // drop buffer_wbinvl1_vol
  });
  litmus::Test mp = parse(kMpAgent);
  EXPECT_TRUE(reaches_condition(mp, broken));
  SimOptions no_fill;
  no_fill.hw.l1_spontaneous_fill = false;
  EXPECT_FALSE(reaches_condition(mp, broken, no_fill));
}

// A shipped GFX90A/GFX94x table, changed by `edit`.
codegen::MappingTable table_of(const std::string& file, const std::function<void(json&)>& edit = {}) {
  std::ifstream in(std::string(HSALIT_SOURCE_DIR) + "/codegen/mappings/" + file);
  json doc = json::parse(in);
  if (edit) edit(doc);
  return codegen::MappingTable::from_json(doc, file + " (edited)");
}

// Drops every literal instruction of a row's sequence whose text starts with `op`.
void drop(json& doc, const std::string& id, const std::string& op) {
  json& seq = row(doc, id)["sequence"];
  for (auto it = seq.begin(); it != seq.end();)
    if (it->is_string() && it->get<std::string>().rfind(op, 0) == 0)
      it = seq.erase(it);
    else
      ++it;
}

const char* kMpSystem = R"(LISA MP-system
{ x = 0; y = 0; 1:r1 = -1; }
 P0                         | P1                           ;
 w[] x 1                    | r[atomic,scacq,system] r0 y  ;
 w[atomic,screl,system] y 1 | mov r2 (neq r0 1)            ;
                            | b[] r2 Skip                  ;
                            | r[] r1 x                     ;
                            | Skip:                        ;
scopes: (system (agent (wg 0)) (agent (wg 1)))
exists (1:r0=1 /\ 1:r1=0)
)";

// Rule 12 under l2-per-agent (GFX90A): the system-scope release writes the agent's L2 back
// (buffer_wbl2) and the acquire invalidates the other agent's L2 (buffer_invl2); without
// either the consumer reads x = 0. With one L2 for all agents both broken tables pass.
TEST(Simulator, Gfx90aSystemMessagePassingNeedsL2WritebackAndInvalidate) {
  SimOptions per_agent;
  per_agent.hw.l2_per_agent = true;
  litmus::Test mp = parse(kMpSystem);
  EXPECT_FALSE(reaches_condition(mp, table_of("gfx90a.json"), per_agent, "gfx90a"));
  codegen::MappingTable no_wb =
      table_of("gfx90a.json", [](json& d) { drop(d, "store.release.system.global", "buffer_wbl2"); });
  codegen::MappingTable no_inv =
      table_of("gfx90a.json", [](json& d) { drop(d, "load.acquire.system.global", "buffer_invl2"); });
  EXPECT_TRUE(reaches_condition(mp, no_wb, per_agent, "gfx90a"));
  EXPECT_TRUE(reaches_condition(mp, no_inv, per_agent, "gfx90a"));
  EXPECT_FALSE(reaches_condition(mp, no_wb, {}, "gfx90a"));
  EXPECT_FALSE(reaches_condition(mp, no_inv, {}, "gfx90a"));
}

// Rule 9: a release without s_waitcnt vmcnt(0) lets the flag overtake the data in another
// L2 channel; with one channel for everything it could not.
TEST(Simulator, ReleaseWithoutVmcntWaitLetsTheFlagOvertakeTheData) {
  codegen::MappingTable broken = gfx69([](json& d) {
    json& seq = row(d, "store.atomic.release.agent")["sequence"];
    for (json& e : seq)
      if (e.is_object() && e["op"] == "s_waitcnt") e.erase("vmcnt");
  });
  litmus::Test mp = parse(kMpAgent);
  SimOptions no_fill;  // isolate the queues from the L1
  no_fill.hw.l1_spontaneous_fill = false;
  EXPECT_TRUE(reaches_condition(mp, broken, no_fill));
  SimOptions one_channel = no_fill;
  one_channel.hw.channel_per_location = false;
  EXPECT_FALSE(reaches_condition(mp, broken, one_channel));
}

// Rule 10: LDS operations wait in queues and can be overtaken by vector memory operations of
// the same wave; under the ROCm document's "LDS is sequentially consistent" they cannot.
TEST(Simulator, LdsQueuesReorderAgainstVectorMemoryUnlessLdsIsSequentiallyConsistent) {
  litmus::Test t = parse(R"(LISA MP-lds-data
{ x = 0; y = 0; 1:r1 = -1; }
 P0                     | P1                       ;
 w[] x 1                | r[atomic,scacq,wg] r0 y  ;
 w[atomic,screl,wg] y 1 | mov r2 (neq r0 1)        ;
                        | b[] r2 Skip              ;
                        | r[] r1 x                 ;
                        | Skip:                    ;
scopes: (agent (wg (wave 0) (wave 1)))
regions: x:group
exists (1:r0=1 /\ 1:r1=0)
)");
  // Without the lgkmcnt(0) of the workgroup release (what OpenCL omits), the ds_write can be
  // performed after the flag store is visible.
  codegen::MappingTable broken =
      gfx69([](json& d) { row(d, "store.atomic.release.wg.global")["sequence"] = json::array({"access"}); });
  SimOptions queues;
  queues.hw.l1_spontaneous_fill = false;
  EXPECT_TRUE(reaches_condition(t, broken, queues));
  SimOptions sc = queues;
  sc.hw.lds_queues = false;
  EXPECT_FALSE(reaches_condition(t, broken, sc));
  EXPECT_FALSE(reaches_condition(t, gfx69(), queues));  // the shipped row waits
}

// Rules 2 and 3: a load's register is written when it completes; the code generator's wait
// before the branch on it is what makes the guarded read happen.
TEST(Simulator, LoadedRegistersAreWrittenAtCompletionSoCodeMustWait) {
  // A relaxed flag read has no wait of its own in the table: only the register wait orders
  // the branch after the load.
  litmus::Test mp = parse(R"(LISA MP-rlx-guarded
{ x = 0; y = 0; 1:r1 = -1; }
 P0                      | P1                        ;
 w[atomic,rlx,agent] x 1 | r[atomic,rlx,agent] r0 y  ;
 w[atomic,rlx,agent] y 1 | mov r2 (neq r0 1)         ;
                         | b[] r2 Skip               ;
                         | r[atomic,rlx,agent] r1 x  ;
                         | Skip:                     ;
scopes: (agent (wg 0) (wg 1))
exists (1:r0=1 /\ 1:r1=0)
)");
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  codegen::CompiledTest compiled = codegen::compile(mp, catalog.get("gfx900"), catalog, gfx69());
  auto guarded_read_skipped = [&](const codegen::CompiledTest& c) {
    SimResult r = run_exhaustive(mp, c);
    for (const auto& [o, n] : r.histogram)
      if (o.values[0] == 1 && o.values[1] == -1) return true;  // r0 = 1 yet the read was skipped
    return false;
  };
  EXPECT_FALSE(guarded_read_skipped(compiled));
  for (codegen::CompiledThread& t : compiled.threads)
    std::erase_if(t.code, [](const codegen::Instruction& i) { return i.origin.role == "register"; });
  EXPECT_TRUE(guarded_read_skipped(compiled));
}

// Rule 7: whether a CU's other waves see a store before it reaches the L2 decides whether the
// gfx6-9 workgroup release is transitive (HSA SysArch 3.13.1.4; docs/mappings.md).
TEST(Simulator, EarlyL1VisibilityOfStoresBreaksTransitivityOfTheWorkgroupRelease) {
  litmus::Test isa2 = library_test("spec/HSA-3.13.1.4_ISA2-wg-system.litmus");
  EXPECT_TRUE(reaches_condition(isa2, gfx69()));
  SimOptions at_l2;
  at_l2.hw.l1_store_visible_early = false;
  EXPECT_FALSE(reaches_condition(isa2, gfx69(), at_l2));
}

// Finding 1 of docs/mappings.md: with scacq -> acquire and screl -> release, store buffering
// with synchronizing operations (forbidden by HSA SysArch 3.10) shows across agents; the
// seq_cst rows (--sc-orders) keep it away.
TEST(Simulator, ScAcquireAsLlvmAcquireIsNotSequentiallyConsistent) {
  litmus::Test sb = library_test("classic/SB+sc-system_diff-agent.litmus");
  auto reaches_sb = [&](bool sc_orders) {
    const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
    codegen::CompileOptions co;
    co.sc_acquire_release = sc_orders;
    codegen::CompiledTest c = codegen::compile(sb, catalog.get("gfx900"), catalog, gfx69(), co);
    SimResult r = run_exhaustive(sb, c);
    EXPECT_FALSE(r.unknown);
    for (const auto& [o, n] : r.histogram)
      if (o.values[0] == 0 && o.values[1] == 0) return true;
    return false;
  };
  EXPECT_TRUE(reaches_sb(false));
  EXPECT_FALSE(reaches_sb(true));
}

// Message passing across a work-group barrier, two threads of one work-group, the data `x`
// in `segment`, with or without a work-group release fence before the barrier and an
// acquire fence after it (canonical/MP+barrier+fences-wg_same-wg, MP+barrier_same-wg).
litmus::Test mp_across_barrier(bool fences, const std::string& segment) {
  const std::string code =
      fences ? " w[] x 1     | barrier     ;\n f[screl,wg] | f[scacq,wg] ;\n barrier     | r[] r0 x    ;\n"
             : " w[] x 1 | barrier  ;\n barrier | r[] r0 x ;\n";
  return parse("LISA MP+barrier\n{ x = 0; }\n P0 | P1 ;\n" + code + "scopes: (agent (wg 0 1))\nregions: x:" + segment +
               "\nexists (1:r0=0)\n");
}

// Rule 11: the barrier holds each wave until both arrived, and orders nothing in memory by
// itself (HSA PRM 9.3: it "does not ensure that the memory instructions that precede it
// become visible to the memory instructions that succeed it"; the release fence before it and
// the acquire fence after it do). Where the fences matter on the machine:
// - LDS data (rule 10, the LDS queues of each wave): without the fences the reader's load
//   may be performed before the writer's queued store; the release fence's `s_waitcnt
//   lgkmcnt(0)` before the barrier forbids it; under `lds-sc` nothing is queued.
// - a work-group split over two CUs (GFX10+ WGP mode): without the fences the reader's L0
//   may hold a stale line; the acquire fence's `buffer_gl0_inv` after the barrier drops it.
// Global data on GFX6-GFX9 needs no fence in one work-group (its waves share a CU's L1 and
// its FIFO queues to the L2: seed 000, "no special action is required ... for coherence
// between wavefronts in the same work-group"): the stale read never shows, though the model
// calls the test without fences racy.
TEST(Simulator, BarrierWithFencesOrdersMemoryInAWorkGroup) {
  HardwareAssumptions lds_sc;
  ASSERT_TRUE(apply_assumption("lds-sc", lds_sc));
  SimOptions lds_in_order;
  lds_in_order.hw = lds_sc;
  // LDS data on gfx900.
  EXPECT_TRUE(reaches_condition(mp_across_barrier(false, "group"), gfx69()));
  EXPECT_FALSE(reaches_condition(mp_across_barrier(true, "group"), gfx69()));
  EXPECT_FALSE(reaches_condition(mp_across_barrier(false, "group"), gfx69(), lds_in_order));
  // Global data in WGP mode (gfx1030: its work-group's waves may run on both CUs).
  const codegen::MappingTable gfx10 = codegen::MappingTable::builtin("gfx10-11");
  EXPECT_TRUE(reaches_condition(mp_across_barrier(false, "global"), gfx10, {}, "gfx1030"));
  EXPECT_FALSE(reaches_condition(mp_across_barrier(true, "global"), gfx10, {}, "gfx1030"));
  // Global data on gfx900: never stale, with or without the fences.
  EXPECT_FALSE(reaches_condition(mp_across_barrier(false, "global"), gfx69()));
  EXPECT_FALSE(reaches_condition(mp_across_barrier(true, "global"), gfx69()));
}

TEST(Simulator, PlacementsCoverSameAndDifferentCus) {
  litmus::Test t = library_test("canonical/IRIW+agent_diff-wg.litmus");
  std::vector<Placement> all = placements(t);
  EXPECT_EQ(all.size(), 15u);  // four work-groups of one agent: Bell(4) ways onto CUs
  for (const Placement& p : all) EXPECT_EQ(p.wave_of_thread.size(), 4u);
}

// The cursor visits the placements of placements(), in the same order, one at a time; with
// separate CUs only, those that put every work-group on a CU of its own.
TEST(Simulator, PlacementCursorVisitsEveryPlacementInOrder) {
  for (const char* scopes : {"(agent (wg 0) (wg 1) (wg 2) (wg 3))", "(agent (wg 0 1) (wg 2)) (agent (wg 3))",
                             "(agent (wg (wave 0 1 2) 3))", "(agent (wg 0) (wg 1)) (agent (wg 2) (wg 3))"}) {
    litmus::Test t = parse(std::string("LISA P\n{ x = 0; }\n P0 | P1 | P2 | P3 ;\n w[] x 1 | w[] x 2 | w[] x 3 | "
                                       "w[] x 4 ;\nscopes: ") +
                           scopes + "\nexists (x=1)\n");
    const std::vector<Placement> all = placements(t);
    PlacementCursor cursor(t);
    EXPECT_EQ(cursor.count(), all.size()) << scopes;
    std::vector<std::string> visited;
    do visited.push_back(cursor.current().describe());
    while (cursor.next());
    std::vector<std::string> expected;
    for (const Placement& p : all) expected.push_back(p.describe());
    EXPECT_EQ(visited, expected) << scopes;
    PlacementCursor separate(t, WorkgroupSpan::OneCu, true);
    std::vector<std::string> separated;
    do separated.push_back(separate.current().describe());
    while (separate.next());
    std::vector<std::string> expected_separate;
    for (const Placement& p : all)
      if (static_cast<std::size_t>(p.workgroups()) == p.agent_of_cu.size()) expected_separate.push_back(p.describe());
    EXPECT_EQ(separated, expected_separate) << scopes;
    EXPECT_EQ(separate.count(), separated.size()) << scopes;
  }
  // Bell(16) placements of sixteen work-groups, counted without being built.
  std::string heads, stores;
  for (int i = 0; i < 16; ++i) {
    heads += (i ? " | P" : " P") + std::to_string(i);
    stores += (i ? " | w[] x " : " w[] x ") + std::to_string(i + 1);
  }
  litmus::Test sixteen = parse("LISA S\n{ x = 0; }\n" + heads + " ;\n" + stores + " ;\nexists (x=1)\n");
  EXPECT_EQ(PlacementCursor(sixteen).count(), 10'480'142'147u);
}

// A search that outgrows its memory limit stops with `unknown`, and one past its time limit
// stops too, in either mode (random mode reports the runs it made).
TEST(Simulator, SearchesStopAtTheirLimits) {
  std::string heads, stores;
  for (int i = 0; i < 8; ++i) {
    heads += (i ? " | P" : " P") + std::to_string(i);
    stores += (i ? " | w[] x " : " w[] x ") + std::to_string(i + 1);
  }
  litmus::Test t = parse("LISA S\n{ x = 0; }\n" + heads + " ;\n" + stores + " ;\nexists (x=1)\n");
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  codegen::CompiledTest c = codegen::compile(t, catalog.get("gfx900"), catalog, gfx69());
  SimOptions small;
  small.memory_limit = support::resident_bytes() + (8u << 20);  // a few blocks of states more
  small.max_states = 1'000'000'000;
  SimResult r = run_exhaustive(t, c, small);
  ASSERT_TRUE(r.unknown);
  EXPECT_NE(r.unknown->find("memory limit"), std::string::npos) << *r.unknown;

  SimOptions quick;
  quick.timeout_seconds = 0.05;
  quick.max_states = 1'000'000'000;
  quick.memory_limit = 0;
  r = run_exhaustive(t, c, quick);
  ASSERT_TRUE(r.unknown);
  EXPECT_NE(r.unknown->find("time limit"), std::string::npos) << *r.unknown;
  EXPECT_LT(r.seconds, 5.0);

  quick.jobs = 3;
  r = run_random(t, c, 1'000'000'000'000, 1, quick);
  ASSERT_TRUE(r.unknown);
  EXPECT_NE(r.unknown->find("time limit"), std::string::npos) << *r.unknown;
  EXPECT_NE(r.unknown->find(" of 1000000000000 iterations ran"), std::string::npos) << *r.unknown;
  EXPECT_LT(r.iterations, 1'000'000'000'000u);
  EXPECT_LT(r.seconds, 5.0);
}

TEST(Simulator, RandomModeCountsRunsAndFindsTheWeakOutcome) {
  litmus::Test t = library_test("canonical/MP+rlx-agent_diff-wg.litmus");
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  codegen::CompiledTest c = codegen::compile(t, catalog.get("gfx900"), catalog, gfx69());
  SimResult r = run_random(t, c, 20000, 7);
  std::uint64_t total = 0;
  for (const auto& [o, n] : r.histogram) total += n;
  EXPECT_EQ(total, 20000u);
  EXPECT_EQ(r.iterations, 20000u);
  bool weak = false;
  for (const auto& [o, n] : r.histogram) weak |= o.values[0] == 1 && o.values[1] == 0;
  EXPECT_TRUE(weak);
  // Same seed, same histogram.
  EXPECT_EQ(run_random(t, c, 20000, 7).histogram, r.histogram);
}

// ---- the reductions of exhaustive search, checked against the search without them ----------

std::set<SimOutcome> outcome_set(const SimResult& r) {
  std::set<SimOutcome> out;
  for (const auto& [o, n] : r.histogram) out.insert(o);
  return out;
}

// The hardware assumptions the reductions are checked under, each on its own, by the names
// `--assume` takes.
std::vector<std::pair<std::string, HardwareAssumptions>> every_assumption() {
  std::vector<std::pair<std::string, HardwareAssumptions>> out = {{"default", {}}};
  for (const char* name : {"lds-sc", "l1-store-at-l2", "one-channel", "no-l1-fill"}) {
    HardwareAssumptions hw;
    EXPECT_TRUE(apply_assumption(name, hw)) << name;
    out.emplace_back(name, hw);
  }
  return out;
}

// The shipped gfx6-9 table and two broken ones, whose weak outcomes a reduction must not hide.
std::vector<std::pair<std::string, codegen::MappingTable>> shipped_and_broken_tables() {
  std::vector<std::pair<std::string, codegen::MappingTable>> tables;
  tables.emplace_back("shipped", gfx69());
  tables.emplace_back("acquire without buffer_wbinvl1_vol", gfx69([](json& d) {
                        json& seq = row(d, "load.atomic.acquire.agent.global")["sequence"];
                        seq.erase(seq.end() - 1);
                      }));
  tables.emplace_back("release without vmcnt(0)", gfx69([](json& d) {
                        json& seq = row(d, "store.atomic.release.agent")["sequence"];
                        for (json& e : seq)
                          if (e.is_object() && e["op"] == "s_waitcnt") e.erase("vmcnt");
                      }));
  return tables;
}

// The broken tables are compared under the two assumptions that decide what they show.
bool compared_under(const std::string& table_name, const std::string& hw_name) {
  return table_name == "shipped" || hw_name == "default" || hw_name == "l1-store-at-l2";
}

struct ReductionCounts {
  int compared = 0;
  int gave_up = 0;  // searches not compared: the reference search reached its state limit
  std::uint64_t states_reference = 0, states_reduced = 0;
};

// Compiles `test` for gfx900 and searches it exhaustively under `reference` and under
// `reduced` (the same options with more reductions): the same outcome set, no more states,
// and, when `reduced` keeps traces, one trace per outcome. A test the table cannot compile
// fails the calling test; one whose reference search gives up is counted, not compared.
void expect_reduction_keeps_outcomes(const litmus::Test& test, const codegen::MappingTable& table,
                                     const SimOptions& reference, const SimOptions& reduced, const std::string& what,
                                     ReductionCounts& counts) {
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  test_support::Compiler compiler;
  const std::optional<codegen::CompiledTest> compiled = compiler.compile(test, catalog.get("gfx900"), catalog, table);
  EXPECT_EQ(compiler.dropped(), 0u) << what;  // gfx900 states no refusal: every failure fails
  if (!compiled) return;
  const SimResult expected = run_exhaustive(test, *compiled, reference);
  if (expected.unknown) {
    ++counts.gave_up;
    return;
  }
  const SimResult r = run_exhaustive(test, *compiled, reduced);
  ASSERT_FALSE(r.unknown) << what << " " << *r.unknown;
  EXPECT_EQ(outcome_set(r), outcome_set(expected)) << what;
  EXPECT_LE(r.states, expected.states) << what;
  if (reduced.keep_traces) {
    EXPECT_EQ(r.traces.size(), r.histogram.size()) << what;
  }
  ++counts.compared;
  counts.states_reference += expected.states;
  counts.states_reduced += r.states;
}

// Exhaustive search with and without the reductions (docs/simulator.md, "Reductions"): the
// same outcomes, on every small library test, under every hardware assumption, with the
// shipped mapping and with broken ones.
TEST(SimulatorReductions, KeepTheOutcomeSetOfEverySmallLibraryTest) {
  const auto tables = shipped_and_broken_tables();
  ReductionCounts counts;
  for (const auto& file : litmus::collect_litmus_files({std::string(HSALIT_SOURCE_DIR) + "/litmus/library"})) {
    litmus::ParseResult parsed = litmus::parse_litmus_file(file);
    ASSERT_TRUE(parsed.ok()) << file;
    if (parsed.test->threads.size() > 2) continue;  // unreduced search of larger tests is slow
    for (const auto& [table_name, table] : tables)
      for (const auto& [hw_name, hw] : every_assumption()) {
        if (!compared_under(table_name, hw_name)) continue;
        SimOptions full;
        full.hw = hw;
        full.partial_order_reduction = false;
        full.max_states = 30'000;
        SimOptions reduced = full;
        reduced.partial_order_reduction = true;
        expect_reduction_keeps_outcomes(*parsed.test, table, full, reduced,
                                        file.string() + ", " + table_name + ", " + hw_name, counts);
      }
  }
  EXPECT_GT(counts.compared, 400);
  EXPECT_LE(counts.gave_up * 20, counts.compared);  // at most 1 in 20 not compared
}

// Rule 4 (memory steps no other step conflicts with, taken alone) keeps the outcome set of
// rules 1 to 3 on every library test, under every assumption, with the shipped table and
// with broken ones, and on generated tests with many accesses to one location (the
// coherence shapes, where loads through the L1 and queued writes interact most).
// One reduction switch (`rule`, a member of SimOptions) off and on: the same outcomes.
void expect_rule_keeps_outcomes(bool SimOptions::*rule, std::size_t max_states, const litmus::Test& test,
                                const codegen::MappingTable& table, const HardwareAssumptions& hw,
                                const std::string& what, ReductionCounts& counts) {
  SimOptions without;
  without.hw = hw;
  without.*rule = false;
  without.keep_traces = false;
  without.max_states = max_states;
  SimOptions with = without;
  with.*rule = true;
  with.keep_traces = true;
  expect_reduction_keeps_outcomes(test, table, without, with, what, counts);
}

// A comparison of one test's searches under one table and one assumption set (`what` names
// them), such as expect_rule_keeps_outcomes.
using CompareUnder = std::function<void(const litmus::Test&, const codegen::MappingTable&, const HardwareAssumptions&,
                                        const std::string& what, ReductionCounts&)>;

// `compare` over every library test, under every assumption, with the shipped table and the
// broken ones (those under the two assumptions that decide them).
ReductionCounts every_library_test_compared(const CompareUnder& compare) {
  const auto tables = shipped_and_broken_tables();
  ReductionCounts counts;
  for (const auto& file : litmus::collect_litmus_files({std::string(HSALIT_SOURCE_DIR) + "/litmus/library"})) {
    litmus::ParseResult parsed = litmus::parse_litmus_file(file);
    EXPECT_TRUE(parsed.ok()) << file;
    if (!parsed.ok()) continue;
    for (const auto& [table_name, table] : tables)
      for (const auto& [hw_name, hw] : every_assumption())
        if (compared_under(table_name, hw_name))
          compare(*parsed.test, table, hw, file.string() + ", " + table_name + ", " + hw_name, counts);
  }
  return counts;
}

// One reduction switch off and on over every library test (every_library_test_compared).
ReductionCounts rule_keeps_outcomes_of_every_library_test(bool SimOptions::*rule, std::size_t max_states) {
  return every_library_test_compared(
      [&](const litmus::Test& test, const codegen::MappingTable& table, const HardwareAssumptions& hw,
          const std::string& what,
          ReductionCounts& counts) { expect_rule_keeps_outcomes(rule, max_states, test, table, hw, what, counts); });
}

// `compare` over every `every`-th test of the generated bound `spec`, with the shipped table,
// under each of `assumptions`; returns how many tests the bound holds.
std::size_t every_nth_generated_test_compared(
    std::string_view spec, std::size_t every,
    const std::vector<std::pair<std::string, HardwareAssumptions>>& assumptions, const CompareUnder& compare,
    ReductionCounts& counts) {
  const codegen::MappingTable table = gfx69();
  std::size_t index = 0;
  litmus::generate(litmus::parse_generate_spec(spec), [&](litmus::GeneratedTest&& g) {
    if (index++ % every != 0) return;
    for (const auto& [hw_name, hw] : assumptions) compare(g.test, table, hw, g.test.name + ", " + hw_name, counts);
  });
  return index;
}

// expect_rule_keeps_outcomes for `rule` with at most `max_states` states, as a CompareUnder.
CompareUnder rule_compared(bool SimOptions::*rule, std::size_t max_states) {
  return [rule, max_states](const litmus::Test& test, const codegen::MappingTable& table, const HardwareAssumptions& hw,
                            const std::string& what, ReductionCounts& counts) {
    expect_rule_keeps_outcomes(rule, max_states, test, table, hw, what, counts);
  };
}

// The default assumptions and the remedies of docs/mappings.md (`one-channel`, `l1-store-at-l2`).
std::vector<std::pair<std::string, HardwareAssumptions>> default_and_remedies() {
  HardwareAssumptions remedies;
  EXPECT_TRUE(apply_assumption("one-channel", remedies) && apply_assumption("l1-store-at-l2", remedies));
  return {{"default", {}}, {"remedies", remedies}};
}

TEST(SimulatorReductions, IndependentStepsKeepTheOutcomeSetOfEveryLibraryTest) {
  const ReductionCounts counts = rule_keeps_outcomes_of_every_library_test(&SimOptions::independent_steps, 400'000);
  EXPECT_GT(counts.compared, 500);
  EXPECT_LE(counts.gave_up * 20, counts.compared);  // at most 1 in 20 not compared
  EXPECT_LT(counts.states_reduced, counts.states_reference);
}

TEST(SimulatorReductions, IndependentStepsKeepTheOutcomeSetOfCoherenceShapes) {
  // Every 211th test of two threads with up to three accesses to one location, under every
  // assumption; every 499th of two three-thread cycles with many reads of one location,
  // under the default assumptions and the remedies of docs/mappings.md (their unreduced
  // searches take about a second each).
  const auto two = default_and_remedies();
  const struct {
    const char* spec;
    std::size_t every;
    std::vector<std::pair<std::string, HardwareAssumptions>> assumptions;
  } slices[] = {
      {"threads=2,accesses=3,edges=Pos+com+Rmw,orders=na+rlx,scopes=agent", 211, every_assumption()},
      {"cycle=PodWW PosWR Fre PosWR PosRR Rmw Rfe PosRR PodRR Fre,cycle=PodWR PosRR Fre PosWR PosRW Rfe PosRR PodRR "
       "Fre,orders=na+rlx,scopes=agent,segments=global",
       499, two},
  };
  for (const auto& slice : slices) {
    ReductionCounts counts;
    const std::size_t index = every_nth_generated_test_compared(
        slice.spec, slice.every, slice.assumptions, rule_compared(&SimOptions::independent_steps, 400'000), counts);
    EXPECT_GT(counts.compared, static_cast<int>(index / slice.every)) << slice.spec;
    EXPECT_LE(counts.gave_up * 20, counts.compared);  // at most 1 in 20 not compared
    // The rule does reduce: 2.1x fewer states on the first slice, 3.3x on the second.
    EXPECT_LT(counts.states_reduced * 3, counts.states_reference * 2) << slice.spec;
  }
}

// The assumptions under which rule 5 is used, and a search with and without it.
std::vector<std::pair<std::string, HardwareAssumptions>> stores_through_l2() {
  std::vector<std::pair<std::string, HardwareAssumptions>> out;
  for (const char* extra : {"", "one-channel", "lds-sc"}) {
    HardwareAssumptions hw;
    EXPECT_TRUE(apply_assumption("l1-store-at-l2", hw));
    if (*extra) {
      EXPECT_TRUE(apply_assumption(extra, hw));
    }
    out.emplace_back(std::string("l1-store-at-l2 ") + extra, hw);
  }
  return out;
}

void expect_separate_cus_keep_outcomes(const litmus::Test& test, const codegen::MappingTable& table,
                                       const HardwareAssumptions& hw, const std::string& what,
                                       ReductionCounts& counts) {
  expect_rule_keeps_outcomes(&SimOptions::separate_cus, 200'000, test, table, hw, what, counts);
}

TEST(SimulatorReductions, SeparateCusAreUsedOnlyWhereStoresReachTheL1ThroughTheL2) {
  for (const auto& [name, hw] : stores_through_l2()) EXPECT_TRUE(shared_cu_adds_nothing(hw)) << name;
  EXPECT_FALSE(shared_cu_adds_nothing(HardwareAssumptions{}));  // finding 2 needs the shared CU
  for (const char* other : {"l2-per-agent", "no-l1-fill"}) {
    HardwareAssumptions hw;
    EXPECT_TRUE(apply_assumption("l1-store-at-l2", hw) && apply_assumption(other, hw));
    EXPECT_FALSE(shared_cu_adds_nothing(hw)) << other;
  }
}

// Rule 5 (separate CUs cover a shared one): where stores reach the L1 only through the L2,
// exploring only the placements with each work-group on a CU of its own keeps the outcome
// set of every library test, with the shipped table under each assumption above and with
// the broken ones under `l1-store-at-l2`.
TEST(SimulatorReductions, SeparateCusKeepTheOutcomeSetOfEveryLibraryTest) {
  const auto assumptions = stores_through_l2();
  const auto tables = shipped_and_broken_tables();
  ReductionCounts counts;
  for (const auto& file : litmus::collect_litmus_files({std::string(HSALIT_SOURCE_DIR) + "/litmus/library"})) {
    litmus::ParseResult parsed = litmus::parse_litmus_file(file);
    ASSERT_TRUE(parsed.ok()) << file;
    for (const auto& [table_name, table] : tables)
      for (const auto& [hw_name, hw] : assumptions)
        if (table_name == "shipped" || hw_name == assumptions.front().first)
          expect_separate_cus_keep_outcomes(*parsed.test, table, hw, file.string() + ", " + table_name + ", " + hw_name,
                                            counts);
  }
  EXPECT_GT(counts.compared, 400);
  EXPECT_LE(counts.gave_up * 20, counts.compared);  // at most 1 in 20 not compared
  EXPECT_LT(counts.states_reduced, counts.states_reference);
}

// The same on generated three-thread tests in different work-groups of one agent (five
// placements of their work-groups on CUs, one kept), with the shipped table.
TEST(SimulatorReductions, SeparateCusKeepTheOutcomeSetOfThreeWorkGroups) {
  ReductionCounts counts;
  std::size_t index = 0;
  litmus::generate(
      litmus::parse_generate_spec("threads=3,accesses=2,orders=na+rlx+scacq+screl,scopes=agent,placements=diff-wg"),
      [&](litmus::GeneratedTest&& g) {
        if (index++ % 19997 != 0) return;
        for (const auto& [hw_name, hw] : stores_through_l2())
          expect_separate_cus_keep_outcomes(g.test, gfx69(), hw, g.test.name + ", " + hw_name, counts);
      });
  EXPECT_GT(counts.compared, 30);
  EXPECT_LE(counts.gave_up * 20, counts.compared);  // at most 1 in 20 not compared
  EXPECT_LT(counts.states_reduced * 2, counts.states_reference);
}

// Rule 6 (one CU, loads that miss): a placement with every wave on one CU is searched without
// L1 lines, keeping the outcome set of every library test (those in one work-group, and the
// shared-CU placements of the others) under every assumption, with the shipped table and the
// broken ones, and of generated three-thread tests in one work-group with global and group
// locations (every 37th test of three cycles with several accesses to a location), under
// the default assumptions and the remedies of docs/mappings.md.
TEST(SimulatorReductions, OneCuMissesKeepTheOutcomeSetOfEveryLibraryTest) {
  const ReductionCounts counts = rule_keeps_outcomes_of_every_library_test(&SimOptions::one_cu_misses, 400'000);
  EXPECT_GT(counts.compared, 500);
  EXPECT_LE(counts.gave_up * 20, counts.compared);  // at most 1 in 20 not compared
  EXPECT_LT(counts.states_reduced, counts.states_reference);
}

TEST(SimulatorReductions, OneCuMissesKeepTheOutcomeSetOfOneWorkGroup) {
  ReductionCounts counts;
  const std::size_t index = every_nth_generated_test_compared(
      "cycle=PodWR PosRR Fre PodWR PosRR Fre PosWW PosWR Fre,"
      "cycle=PodWW PosWR Fre PodWR Rmw PosWR Rmw Rfe PodRW Wse,"
      "cycle=PodWW PosWR Rmw Rfe PosRR Rmw PosWR Rmw Wse PosWR PodRR Fre,"
      "orders=na+rlx,scopes=wg,placements=same-wg,segments=global+group",
      37, default_and_remedies(), rule_compared(&SimOptions::one_cu_misses, 400'000), counts);
  EXPECT_GT(counts.compared, static_cast<int>(index / 37));
  EXPECT_LE(counts.gave_up * 20, counts.compared);  // at most 1 in 20 not compared
  EXPECT_LT(counts.states_reduced * 4, counts.states_reference);
}

litmus::Test mp_with_flag_scope(const std::string& scope);

// Searches without traces that pass through the states of invisible steps
// (SimOptions::pass_invisible_steps) reach the outcomes of those that store them, on every
// library test under every assumption with the shipped and broken tables, and on three-thread
// cycles with global and group locations in one work-group and across work-groups, storing
// fewer states; with traces the option changes nothing.
TEST(SimulatorReductions, PassingInvisibleStepsKeepsTheOutcomeSet) {
  const CompareUnder passing = [](const litmus::Test& test, const codegen::MappingTable& table,
                                  const HardwareAssumptions& hw, const std::string& what, ReductionCounts& counts) {
    SimOptions stored;
    stored.hw = hw;
    stored.keep_traces = false;
    stored.max_states = 400'000;
    SimOptions pass = stored;
    pass.pass_invisible_steps = true;
    expect_reduction_keeps_outcomes(test, table, stored, pass, what, counts);
  };
  ReductionCounts counts = every_library_test_compared(passing);
  EXPECT_GT(counts.compared, 500);
  EXPECT_LE(counts.gave_up * 20, counts.compared);  // at most 1 in 20 not compared
  every_nth_generated_test_compared(
      "cycle=PodWR PosRR Fre PodWR PosRR Fre PosWW PosWR Fre,cycle=PodWW PosWR Fre PodWR Rmw PosWR Rmw Rfe PodRW Wse,"
      "orders=rlx+scacq+screl,scopes=wg,placements=same-wg+diff-wg,segments=global+group",
      97, default_and_remedies(), passing, counts);
  EXPECT_GT(counts.compared, 520);
  EXPECT_LE(counts.gave_up * 20, counts.compared);  // at most 1 in 20 not compared
  EXPECT_LT(counts.states_reduced * 4, counts.states_reference * 3);
  // With traces kept, every state is stored: the option changes nothing.
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const litmus::Test mp = mp_with_flag_scope("wg");
  const codegen::CompiledTest code = codegen::compile(mp, catalog.get("gfx900"), catalog, gfx69());
  SimOptions traced;
  SimOptions traced_pass = traced;
  traced_pass.pass_invisible_steps = true;
  const SimResult t = run_exhaustive(mp, code, traced), u = run_exhaustive(mp, code, traced_pass);
  EXPECT_EQ(u.states, t.states);
  EXPECT_EQ(u.traces, t.traces);
}

// ---- code that keeps program order (keeps_program_order) -----------------------------------

// Where the machine reorders, keeps_program_order says no, and the search reaches an
// outcome no SC interleaving gives: store buffering with a vector memory store and an LDS
// load in one wave (no wait between them: rule 10), and with loads that hit the L1 of their
// CU ahead of the wave's queued store (rule 5); message passing across CUs with its two
// stores in two L2 channels (rule 9). With one channel, and loads that bypass the L1 or a
// work-group alone on its CU, the same code keeps program order.
TEST(SimulatorProgramOrder, SaysNoWhereTheMachineReorders) {
  // The condition names every register, so that the outcomes tell SC apart.
  auto test = [](const std::pair<std::string, std::string>& code, const std::string& scopes,
                 const std::string& regions) {
    return parse("LISA T\n{ x = 0; y = 0; }\n" + code.first + "scopes: " + scopes + "\n" + regions + code.second);
  };
  const std::pair<std::string, std::string> sb = {R"( P0                    | P1                    ;
 w[atomic,rlx,wg] x 1  | w[atomic,rlx,wg] y 1  ;
 r[atomic,rlx,wg] r0 y | r[atomic,rlx,wg] r0 x ;
)",
                                                  "exists (0:r0=0 /\\ 1:r0=0)\n"};
  const std::pair<std::string, std::string> mp = {R"( P0                       | P1                       ;
 w[atomic,rlx,agent] x 1  | r[atomic,rlx,agent] r0 y ;
 w[atomic,rlx,agent] y 1  | r[atomic,rlx,agent] r1 x ;
)",
                                                  "exists (1:r0=1 /\\ 1:r1=0)\n"};
  const std::string one_wg = "(agent (wg (wave 0) (wave 1)))", two_wgs = "(agent (wg 0) (wg 1))";
  HardwareAssumptions one_channel;
  ASSERT_TRUE(apply_assumption("one-channel", one_channel));
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  auto check = [&](const std::string& what, const litmus::Test& t, const HardwareAssumptions& hw, bool kept) {
    SCOPED_TRACE(what);
    const codegen::CompiledTest code = codegen::compile(t, catalog.get("gfx900"), catalog, gfx69());
    SimOptions options;
    options.hw = hw;
    options.keep_traces = false;
    EXPECT_EQ(keeps_program_order(t, code, options), kept);
    const SimResult r = run_exhaustive(t, code, options);
    EXPECT_EQ(only_sc_final_states(t, r), std::optional<bool>(kept));
  };
  check("SB in one work-group", test(sb, one_wg, ""), one_channel, true);
  check("SB with a group location", test(sb, one_wg, "regions: y:group\n"), one_channel, false);
  check("SB across CUs, loads through the L1", test(sb, two_wgs, ""), one_channel, false);
  check("MP across CUs, one channel", test(mp, two_wgs, ""), one_channel, true);
  check("MP across CUs, a channel per location", test(mp, two_wgs, ""), {}, false);
}

// Rule 6 needs code that waits for a load before it uses the load's register (rule 2): a
// hit writes the register sooner than a miss. Without the waits the codegen inserts, the
// search keeps the L1 (as many states as without the rule); with them, it leaves it out.
TEST(SimulatorReductions, OneCuMissesOnlyWhereCodeWaitsForLoadedRegisters) {
  litmus::Test mp = parse(R"(LISA MP-guarded-one-wg
{ x = 0; y = 0; 1:r1 = -1; }
 P0       | P1                 ;
 w[] x 1  | r[] r0 y           ;
 w[] y 1  | mov r2 (neq r0 1)  ;
          | b[] r2 Skip        ;
          | r[] r1 x           ;
          | Skip:              ;
scopes: (agent (wg 0 1))
exists (1:r0=1 /\ 1:r1=0)
)");
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const codegen::CompiledTest waits = codegen::compile(mp, catalog.get("gfx900"), catalog, gfx69());
  codegen::CompiledTest no_waits = waits;
  for (codegen::CompiledThread& t : no_waits.threads)
    std::erase_if(t.code, [](const codegen::Instruction& i) { return i.origin.role == "register"; });
  SimOptions with, without;
  without.one_cu_misses = false;
  for (const codegen::CompiledTest* code : {&waits, static_cast<const codegen::CompiledTest*>(&no_waits)}) {
    const SimResult a = run_exhaustive(mp, *code, with), b = run_exhaustive(mp, *code, without);
    ASSERT_FALSE(a.unknown || b.unknown);
    EXPECT_EQ(outcome_set(a), outcome_set(b));
    if (code == &waits) {
      EXPECT_LT(a.states, b.states);
    } else {
      EXPECT_EQ(a.states, b.states);
    }
  }
}

// Registers are written when a load completes, without interlock (rule 2): an ALU step that
// reads a register an outstanding load will write does not commute with that load's
// completion, so the reduction must not take it alone.
TEST(SimulatorReductions, KeepReadsOfRegistersBeforeTheLoadCompletes) {
  litmus::Test mp = parse(R"(LISA MP-rlx-guarded
{ x = 0; y = 0; 1:r1 = -1; }
 P0                      | P1                        ;
 w[atomic,rlx,agent] x 1 | r[atomic,rlx,agent] r0 y  ;
 w[atomic,rlx,agent] y 1 | mov r2 (neq r0 1)         ;
                         | b[] r2 Skip               ;
                         | r[atomic,rlx,agent] r1 x  ;
                         | Skip:                     ;
scopes: (agent (wg 0) (wg 1))
exists (1:r0=1 /\ 1:r1=0)
)");
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  codegen::CompiledTest compiled = codegen::compile(mp, catalog.get("gfx900"), catalog, gfx69());
  for (codegen::CompiledThread& t : compiled.threads)
    std::erase_if(t.code, [](const codegen::Instruction& i) { return i.origin.role == "register"; });
  SimOptions full;
  full.partial_order_reduction = false;
  SimResult reference = run_exhaustive(mp, compiled, full);
  SimResult reduced = run_exhaustive(mp, compiled);
  ASSERT_FALSE(reference.unknown);
  ASSERT_FALSE(reduced.unknown);
  EXPECT_EQ(outcome_set(reduced), outcome_set(reference));
  // The guarded read taken with r0 = 1 (the compare ran after the load completed) and
  // skipped with r0 = 1 (it ran before) are both reachable.
  bool taken = false, skipped = false;
  for (const SimOutcome& o : outcome_set(reduced)) {
    taken |= o.values[0] == 1 && o.values[1] != -1;
    skipped |= o.values[0] == 1 && o.values[1] == -1;
  }
  EXPECT_TRUE(taken);
  EXPECT_TRUE(skipped);
}

TEST(SimulatorReductions, TracesAreShortestAndNameTheSteps) {
  litmus::Test t = library_test("canonical/MP+rlx-agent_diff-wg.litmus");
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  codegen::CompiledTest c = codegen::compile(t, catalog.get("gfx900"), catalog, gfx69());
  SimResult r = run_exhaustive(t, c);
  ASSERT_EQ(r.traces.size(), r.histogram.size());
  for (const auto& [o, steps] : r.traces) {
    EXPECT_FALSE(steps.empty());
    EXPECT_FALSE(r.trace_placement.at(o).empty());
  }
  // The weak outcome needs both stores issued, the flag performed first, both loads: no
  // cache steps (the loads bypass the L1).
  for (const auto& [o, steps] : r.traces) {
    if (o.values[0] != 1 || o.values[1] != 0) continue;
    for (const std::string& s : steps) EXPECT_EQ(s.find("L1"), std::string::npos) << s;
  }
}

// Random mode: the runs of each seed are the same however many threads share them, and every
// outcome they reach is one exhaustive search reaches.
TEST(SimulatorRandom, ThreadsDoNotChangeTheHistogramAndOutcomesAreReachable) {
  for (const char* name : {"canonical/MP+rlx-agent_diff-wg.litmus", "classic/SB+sc-system_diff-agent.litmus"}) {
    litmus::Test t = library_test(name);
    const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
    codegen::CompiledTest c = codegen::compile(t, catalog.get("gfx900"), catalog, gfx69());
    SimOptions one, three;
    three.jobs = 3;
    SimResult a = run_random(t, c, 30000, 11, one), b = run_random(t, c, 30000, 11, three);
    EXPECT_EQ(a.histogram, b.histogram) << name;
    EXPECT_EQ(b.iterations, 30000u);
    std::set<SimOutcome> reachable = outcome_set(run_exhaustive(t, c));
    for (const auto& [o, n] : a.histogram) EXPECT_TRUE(reachable.contains(o)) << name;
    EXPECT_NE(run_random(t, c, 30000, 12, one).histogram, a.histogram) << name;
  }
}

// Message passing with the flag read at scope SCOPE (wavefront and work-group compile alike
// on gfx900: a load without glc).
litmus::Test mp_with_flag_scope(const std::string& scope) {
  return parse("LISA MP-flag-" + scope + R"(
{ x = 0; y = 0; }
 P0                        | P1                                ;
 w[atomic,rlx,agent] x 1   | r[atomic,rlx,)" +
               scope + R"(] r0 y ;
 w[atomic,rlx,agent] y 1   | r[atomic,rlx,agent] r1 x          ;
scopes: (agent (wg 0) (wg 1))
exists (1:r0=1 /\ 1:r1=0)
)");
}

TEST(SimulationMemo, KeptSearchesAnswerTestsThatCompileToTheSameCode) {
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const litmus::Test wave = mp_with_flag_scope("wave"), wg = mp_with_flag_scope("wg"),
                     agent = mp_with_flag_scope("agent");
  auto code = [&](const litmus::Test& t) { return codegen::compile(t, catalog.get("gfx900"), catalog, gfx69()); };
  SimOptions options;
  options.keep_traces = false;
  SimulationMemo memo(32);
  const auto first = run_exhaustive(wave, code(wave), options, memo);
  EXPECT_EQ(first->histogram, run_exhaustive(wave, code(wave), options).histogram);
  // Another name and scope, the same instructions: the kept search answers.
  const auto same_code = run_exhaustive(wg, code(wg), options, memo);
  EXPECT_EQ(memo.hits(), 1u);
  EXPECT_EQ(same_code.get(), first.get());
  EXPECT_EQ(same_code->histogram, run_exhaustive(wg, code(wg), options).histogram);
  // Other instructions (the agent-scope load has glc): searched.
  const auto other = run_exhaustive(agent, code(agent), options, memo);
  EXPECT_EQ(memo.misses(), 2u);
  EXPECT_EQ(other->histogram, run_exhaustive(agent, code(agent), options).histogram);
  // Other options: searched.
  SimOptions traced = options;
  traced.keep_traces = true;
  EXPECT_FALSE(run_exhaustive(wave, code(wave), traced, memo)->traces.empty());
  EXPECT_EQ(memo.misses(), 3u);
}

// Message passing in one work-group with the flag in the group segment and the data
// global, the reader's flag load and data load annotated as given.
litmus::Test mp_in_one_workgroup(const std::string& flag, const std::string& data) {
  return parse("LISA MP-one-wg-" + flag + "-" + data + R"(
{ x = 0; y = 0; }
 P0                        | P1                              ;
 w[atomic,rlx,agent] x 1   | r[atomic,)" +
               flag + R"(] r0 y ;
 w[atomic,screl,wg] y 1    | r[atomic,)" +
               data + R"(] r1 x ;
scopes: (agent (wg 0 1))
regions: x:global, y:group
exists (1:r0=1 /\ 1:r1=0)
)");
}

// On one CU the key keeps of the code what the CU can tell apart: a load with glc and one
// without, which both miss there (rule 6), share a search; a flag load followed by a wait
// for it does not. Across CUs the glc load is searched on its own
// (KeptSearchesAnswerTestsThatCompileToTheSameCode).
TEST(SimulationMemo, OneCuCodesThatWaitAlikeShareASearch) {
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const litmus::Test plain = mp_in_one_workgroup("rlx,wg", "rlx,wave"),
                     glc = mp_in_one_workgroup("rlx,wg", "rlx,agent"),
                     acquire = mp_in_one_workgroup("scacq,wg", "rlx,agent");
  auto code = [&](const litmus::Test& t) { return codegen::compile(t, catalog.get("gfx900"), catalog, gfx69()); };
  ASSERT_NE(code_text(code(plain)), code_text(code(glc)));
  SimOptions options;
  options.keep_traces = false;
  SimulationMemo memo(32);
  const auto first = run_exhaustive(plain, code(plain), options, memo);
  const auto same_waits = run_exhaustive(glc, code(glc), options, memo);
  EXPECT_EQ(memo.hits(), 1u);
  EXPECT_EQ(same_waits.get(), first.get());
  EXPECT_EQ(simulation_key(plain, code(plain), options), simulation_key(glc, code(glc), options));
  EXPECT_EQ(run_exhaustive(glc, code(glc), options).histogram, first->histogram);
  // The acquire waits for the flag before loading x: searched, and it reaches fewer states.
  const auto waits = run_exhaustive(acquire, code(acquire), options, memo);
  EXPECT_EQ(memo.misses(), 2u);
  EXPECT_LT(waits->histogram.size(), first->histogram.size());
  // With traces (which name the instructions) or rule 6 off, keyed by the code.
  SimOptions traced = options;
  traced.keep_traces = true;
  EXPECT_NE(simulation_key(plain, code(plain), traced), simulation_key(glc, code(glc), traced));
  SimOptions without_rule = options;
  without_rule.one_cu_misses = false;
  EXPECT_NE(simulation_key(plain, code(plain), without_rule), simulation_key(glc, code(glc), without_rule));
}

// Programs keyed alike reach the same final states. Tests of three-thread cycles with every
// thread in one work-group and global and group locations: per space, a few random tests
// with one slot taken through all its choices, compiled with the shipped table (both sets
// of sequences) and a broken one, under the default assumptions, the remedies and
// `lds-sc`. Every two codes with one key but different instructions reach the same final
// states; and codes that differ only in their waits, keyed apart, often do not (what the
// key keeps of the waits is needed).
TEST(SimulationMemo, OneCuProgramsKeyedAlikeReachTheSameFinalStates) {
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  std::vector<std::pair<std::string, HardwareAssumptions>> assumptions = default_and_remedies();
  HardwareAssumptions lds_sc;
  EXPECT_TRUE(apply_assumption("lds-sc", lds_sc));
  assumptions.emplace_back("lds-sc", lds_sc);
  const auto tables = shipped_and_broken_tables();
  test_support::Compiler compiler;
  std::size_t gave_up = 0;  // searches past their state limit, not compared
  std::size_t shared = 0, apart_by_waits = 0, spaces = 0;
  litmus::for_each_variation_space(
      litmus::parse_generate_spec("threads=3,accesses=3,placements=same-wg,max=1000000000,shard=5/12000"),
      [&](const litmus::VariationSpace& space) {
        const litmus::Test first = space.test(std::vector<std::size_t>(space.slots().size(), 0));
        const auto group = std::count_if(first.regions.begin(), first.regions.end(), [](const litmus::RegionEntry& r) {
          return r.segment == litmus::Segment::Group;
        });
        if (group == 0 || group == static_cast<std::ptrdiff_t>(first.regions.size())) return;
        ++spaces;
        std::mt19937 rng(static_cast<unsigned>(spaces));
        std::vector<litmus::Test> tests;
        for (int base = 0; base < 2; ++base) {
          std::vector<std::size_t> choice = test_support::random_choice(space, rng);
          const std::size_t k = std::uniform_int_distribution<std::size_t>(0, space.slots().size() - 1)(rng);
          for (std::size_t c = 0; c < space.slots()[k].choices.size(); ++c) {
            choice[k] = c;
            tests.push_back(space.test(choice));
          }
        }
        for (const auto& [table_name, table] : {tables[0], tables[1]})
          for (const bool sc_orders : {false, true})
            for (const auto& [hw_name, hw] : assumptions) {
              codegen::CompileOptions compile;
              compile.sc_acquire_release = sc_orders;
              SimOptions options;
              options.hw = hw;
              options.keep_traces = false;
              options.max_states = 400'000;
              struct Searched {
                std::string code;
                std::map<SimOutcome, std::uint64_t> histogram;
              };
              std::map<std::string, Searched> by_key;
              std::map<std::string, std::vector<std::pair<std::string, std::map<SimOutcome, std::uint64_t>>>> by_code;
              for (const litmus::Test& test : tests) {
                const std::optional<codegen::CompiledTest> compiled =
                    compiler.compile(test, catalog.get("gfx900"), catalog, table, compile);
                if (!compiled) continue;  // a failure, or a stated refusal (none on gfx900: checked below)
                const codegen::CompiledTest& code = *compiled;
                const SimResult r = run_exhaustive(test, code, options);
                if (r.unknown) {
                  ++gave_up;
                  continue;
                }
                const std::string key = simulation_key(test, code, options);
                const auto [it, fresh] = by_key.emplace(key, Searched{code_text(code), r.histogram});
                if (!fresh && it->second.code != code_text(code)) {
                  ++shared;
                  EXPECT_EQ(r.histogram, it->second.histogram)
                      << test.name << " (" << table_name << ", " << hw_name << "): keyed as\n"
                      << it->second.code << "\nbut its code\n"
                      << code_text(code) << "\nreaches other final states";
                }
                auto& alike = by_code[code_text(code, false)];
                for (const auto& [other_key, histogram] : alike)
                  if (other_key != key && histogram != r.histogram) ++apart_by_waits;
                alike.emplace_back(key, r.histogram);
              }
            }
      });
  EXPECT_GT(spaces, 20u);
  EXPECT_GT(shared, 500u);
  EXPECT_GT(apart_by_waits, 500u);
  EXPECT_EQ(compiler.dropped(), 0u);
  EXPECT_LE(gave_up * 20, compiler.compiled());  // at most 1 in 20 not compared
}

TEST(SimulationMemo, KeepsNoSearchThatGaveUpAndDropsTheLeastRecentlyUsed) {
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const litmus::Test wave = mp_with_flag_scope("wave"), agent = mp_with_flag_scope("agent");
  const codegen::CompiledTest wave_code = codegen::compile(wave, catalog.get("gfx900"), catalog, gfx69());
  const codegen::CompiledTest agent_code = codegen::compile(agent, catalog.get("gfx900"), catalog, gfx69());
  SimOptions cut;
  cut.max_states = 3;
  SimulationMemo memo(1);
  EXPECT_TRUE(run_exhaustive(wave, wave_code, cut, memo)->unknown);
  EXPECT_TRUE(run_exhaustive(wave, wave_code, cut, memo)->unknown);
  EXPECT_EQ(memo.hits(), 0u);
  const SimOptions options;
  run_exhaustive(wave, wave_code, options, memo);
  run_exhaustive(agent, agent_code, options, memo);  // the one kept now
  run_exhaustive(wave, wave_code, options, memo);
  EXPECT_EQ(memo.hits(), 0u);
  run_exhaustive(wave, wave_code, options, memo);
  EXPECT_EQ(memo.hits(), 1u);
}

}  // namespace
}  // namespace hsalit::runner
