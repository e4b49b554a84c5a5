// Work-groups whose waves may run on several CUs (docs/simulator.md, "Placement"): the
// placements the cursor visits for each span, and what the split costs a work-group-scope
// acquire that does not invalidate its CU's L1 (L0 on GFX10-GFX12).
#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "compile_support.hpp"
#include "hsalit/codegen/compiler.hpp"
#include "hsalit/codegen/gcn.hpp"
#include "hsalit/codegen/mapping.hpp"
#include "hsalit/codegen/target.hpp"
#include "hsalit/litmus/evaluate.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/runner/sim.hpp"
#include "litmus_support.hpp"
#include "mapping_support.hpp"
#include "sim_support.hpp"

namespace hsalit::runner {
namespace {

using nlohmann::json;
using test_support::library_test;
using test_support::parse;

// A test of one store per thread under `scopes`, for the cursor.
litmus::Test stores_under(int threads, const std::string& scopes) {
  std::string heads, stores;
  for (int i = 0; i < threads; ++i) {
    heads += (i ? " | P" : " P") + std::to_string(i);
    stores += (i ? " | w[] x " : " w[] x ") + std::to_string(i + 1);
  }
  return parse("LISA S\n{ x = 0; }\n" + heads + " ;\n" + stores + " ;\nscopes: " + scopes + "\nexists (x=1)\n");
}

// A placement as what the machine can tell apart: per wave, the waves on its CU (the CUs'
// numbers do not matter), and the lane orders.
std::string canonical(const Placement& p) {
  std::string out;
  for (std::size_t w = 0; w < p.cu_of_wave.size(); ++w) {
    out += "{";
    for (std::size_t v = 0; v < p.cu_of_wave.size(); ++v)
      if (p.cu_of_wave[v] == p.cu_of_wave[w]) out += std::to_string(v) + ",";
    out += "}a" + std::to_string(p.agent_of_cu[static_cast<std::size_t>(p.cu_of_wave[w])]);
  }
  for (const std::vector<int>& lanes : p.lanes_of_wave) {
    out += "|";
    for (int t : lanes) out += std::to_string(t);
  }
  return out;
}

// Whether the span allows a placement: a CU holds waves of one agent; OneCu: a work-group on
// one CU; Wgp: on at most two, and the CUs pair up into work-group processors (each CU shares
// work-groups with at most one other); Agent: anything.
bool allowed(const Placement& p, WorkgroupSpan span) {
  std::map<int, std::set<int>> cus_of_group;
  for (std::size_t w = 0; w < p.cu_of_wave.size(); ++w) cus_of_group[p.workgroup_of_wave[w]].insert(p.cu_of_wave[w]);
  std::map<int, std::set<int>> linked;  // per CU, the other CUs a work-group of it is on
  for (const auto& [g, cus] : cus_of_group) {
    if (span == WorkgroupSpan::OneCu && cus.size() > 1) return false;
    if (span == WorkgroupSpan::Wgp && cus.size() > 2) return false;
    for (int a : cus)
      for (int b : cus)
        if (a != b) linked[a].insert(b);
  }
  if (span == WorkgroupSpan::Wgp)
    for (const auto& [cu, others] : linked)
      if (others.size() > 1) return false;
  return true;
}

// Every placement of the test's waves on CUs, by brute force: each wave on any CU (numbered
// up to the number of waves), kept where the span allows it, each way once.
std::set<std::string> every_allowed_placement(const litmus::Test& test, WorkgroupSpan span) {
  const Placement base = placements(test).front();  // waves, work-groups, agents and lanes
  const std::size_t waves = base.cu_of_wave.size();
  std::vector<int> agent_of_wave(waves);
  for (std::size_t w = 0; w < waves; ++w)
    agent_of_wave[w] = base.agent_of_cu[static_cast<std::size_t>(base.cu_of_wave[w])];
  std::set<std::string> out;
  std::vector<int> cu(waves, 0);
  while (true) {
    bool same_agent = true;
    for (std::size_t v = 0; v < waves; ++v)
      for (std::size_t w = 0; w < waves; ++w)
        if (cu[v] == cu[w] && agent_of_wave[v] != agent_of_wave[w]) same_agent = false;
    if (same_agent) {
      Placement p = base;
      p.cu_of_wave = cu;
      p.agent_of_cu.assign(waves, 0);
      for (std::size_t w = 0; w < waves; ++w) p.agent_of_cu[static_cast<std::size_t>(cu[w])] = agent_of_wave[w];
      if (allowed(p, span)) {
        // Every lane order, as the cursor visits them.
        std::function<void(std::size_t)> lanes = [&](std::size_t w) {
          if (w == waves) {
            out.insert(canonical(p));
            return;
          }
          std::vector<int>& order = p.lanes_of_wave[w];
          std::sort(order.begin(), order.end());
          do lanes(w + 1);
          while (std::next_permutation(order.begin(), order.end()));
        };
        lanes(0);
      }
    }
    std::size_t k = 0;
    while (k < waves && cu[k] == static_cast<int>(waves) - 1) cu[k++] = 0;
    if (k == waves) break;
    ++cu[k];
  }
  return out;
}

std::vector<Placement> visited(PlacementCursor cursor) {
  std::vector<Placement> out;
  do out.push_back(cursor.current());
  while (cursor.next());
  return out;
}

std::size_t cus_of(const Placement& p, int group) {
  std::set<int> cus;
  for (std::size_t w = 0; w < p.cu_of_wave.size(); ++w)
    if (p.workgroup_of_wave[w] == group) cus.insert(p.cu_of_wave[w]);
  return cus.size();
}

TEST(PlacementSplit, WavesOfAWorkGroupSpreadAsTheSpanAllows) {
  const litmus::Test two = stores_under(2, "(agent (wg 0 1))");
  EXPECT_EQ(visited(PlacementCursor(two)).size(), 1u);
  EXPECT_EQ(visited(PlacementCursor(two, WorkgroupSpan::Wgp)).size(), 2u);  // one CU, or one each
  EXPECT_EQ(visited(PlacementCursor(two, WorkgroupSpan::Agent)).size(), 2u);
  const std::vector<Placement> split = visited(PlacementCursor(two, WorkgroupSpan::Wgp));
  EXPECT_EQ(split[0].describe(), "P0: wave 0 wg 0 cu 0 agent 0; P1: wave 1 wg 0 cu 0 agent 0");
  EXPECT_EQ(split[1].describe(), "P0: wave 0 wg 0 cu 0 agent 0; P1: wave 1 wg 0 cu 1 agent 0");
  const litmus::Test three = stores_under(3, "(agent (wg 0 1 2))");
  EXPECT_EQ(PlacementCursor(three, WorkgroupSpan::Wgp).count(), 4u);    // one CU, or 3 ways onto two
  EXPECT_EQ(PlacementCursor(three, WorkgroupSpan::Agent).count(), 5u);  // Bell(3)
  // Work-groups of one wave each cannot split: a work-group processor adds nothing.
  const litmus::Test singles = stores_under(3, "(agent (wg 0) (wg 1) (wg 2))");
  std::vector<std::string> one_cu, wgp;
  for (const Placement& p : visited(PlacementCursor(singles))) one_cu.push_back(p.describe());
  for (const Placement& p : visited(PlacementCursor(singles, WorkgroupSpan::Wgp))) wgp.push_back(p.describe());
  EXPECT_EQ(wgp, one_cu);
}

// The cursor visits every placement the span allows exactly once, count() says how many,
// and the separate-CU cursor (rule 5) visits the finest: each work-group on CUs no other
// uses, each on as many CUs as the span allows.
TEST(PlacementSplit, CursorVisitsEveryAllowedPlacementOnceAndCountsThem) {
  for (const auto& [threads, scopes] :
       std::vector<std::pair<int, std::string>>{{4, "(agent (wg 0 1) (wg 2 3))"},
                                                {4, "(agent (wg 0 1 2) (wg 3))"},
                                                {4, "(agent (wg 0) (wg 1) (wg 2 3))"},
                                                {5, "(agent (wg 0 1) (wg 2 3 4))"},
                                                {5, "(agent (wg 0 1) (wg 2)) (agent (wg 3 4))"},
                                                {4, "(agent (wg (wave 0 1) 2 3))"},
                                                {5, "(agent (wg 0 1 2 3 4))"}}) {
    const litmus::Test t = stores_under(threads, scopes);
    for (WorkgroupSpan span : {WorkgroupSpan::OneCu, WorkgroupSpan::Wgp, WorkgroupSpan::Agent}) {
      const std::string what = scopes + ", " + std::string(to_string(span));
      PlacementCursor cursor(t, span);
      const std::vector<Placement> all = visited(cursor);
      std::set<std::string> seen;
      for (const Placement& p : all) {
        EXPECT_TRUE(allowed(p, span)) << what << ": " << p.describe();
        EXPECT_TRUE(seen.insert(canonical(p)).second) << what << ": twice " << p.describe();
      }
      EXPECT_EQ(seen, every_allowed_placement(t, span)) << what;
      EXPECT_EQ(cursor.count(), all.size()) << what;
      std::vector<std::string> in_order, listed;
      for (const Placement& p : all) in_order.push_back(p.describe());
      for (const Placement& p : placements(t, span)) listed.push_back(p.describe());
      EXPECT_EQ(in_order, listed) << what;

      PlacementCursor separate(t, span, true);
      const std::vector<Placement> finest = visited(separate);
      EXPECT_EQ(separate.count(), finest.size()) << what;
      std::set<std::string> expected_finest, got_finest;
      for (const Placement& p : all) {
        bool finest_here = true;
        for (int g = 0; g < p.workgroups(); ++g) {
          std::size_t waves = 0;
          for (int wg : p.workgroup_of_wave) waves += wg == g;
          const std::size_t most = span == WorkgroupSpan::OneCu ? 1 : span == WorkgroupSpan::Wgp ? 2 : waves;
          finest_here = finest_here && cus_of(p, g) == std::min(most, waves);
        }
        std::size_t used = 0;  // CUs shared by two work-groups are not the finest
        for (int g = 0; g < p.workgroups(); ++g) used += cus_of(p, g);
        if (finest_here && used == p.agent_of_cu.size()) expected_finest.insert(canonical(p));
      }
      for (const Placement& p : finest) got_finest.insert(canonical(p));
      EXPECT_EQ(got_finest, expected_finest) << what;
      EXPECT_EQ(got_finest.size(), finest.size()) << what;

      // Random placements are placements the span allows.
      std::mt19937 rng(7);
      for (int i = 0; i < 50; ++i) {
        const Placement p = cursor.draw([&](std::uint32_t n) { return static_cast<std::uint32_t>(rng() % n); });
        EXPECT_TRUE(allowed(p, span)) << what << ": drew " << p.describe();
        EXPECT_TRUE(seen.count(canonical(p))) << what << ": drew " << p.describe();
      }
    }
  }
}

// Counted without being built, saturated where there are more than 2^64.
TEST(PlacementSplit, CountsLargeSpreadsWithoutBuildingThem) {
  std::string sixteen_groups = "(agent";
  for (int i = 0; i < 16; ++i) sixteen_groups += " (wg " + std::to_string(i) + ")";
  sixteen_groups += ")";
  const litmus::Test singles = stores_under(16, sixteen_groups);
  EXPECT_EQ(PlacementCursor(singles, WorkgroupSpan::Wgp).count(), 10'480'142'147u);  // Bell(16), as one CU
  std::string one_group = "(agent (wg";
  for (int i = 0; i < 16; ++i) one_group += " " + std::to_string(i);
  one_group += "))";
  const litmus::Test sixteen_waves = stores_under(16, one_group);
  EXPECT_EQ(PlacementCursor(sixteen_waves, WorkgroupSpan::Agent).count(), 10'480'142'147u);
  EXPECT_EQ(PlacementCursor(sixteen_waves, WorkgroupSpan::Wgp).count(), 32'768u);  // 2^15
  EXPECT_EQ(PlacementCursor(sixteen_waves, WorkgroupSpan::Wgp, true).count(), 32'767u);
  std::string many = "(agent (wg";
  for (int i = 0; i < 30; ++i) many += " " + std::to_string(i);
  many += "))";
  EXPECT_EQ(PlacementCursor(stores_under(30, many), WorkgroupSpan::Agent).count(),
            std::numeric_limits<std::uint64_t>::max());  // Bell(30) > 2^64
}

// A shipped table's document, changed by `edit`.
codegen::MappingTable shipped_table(const std::string& name, const std::function<void(json&)>& edit = {}) {
  std::ifstream in(std::string(HSALIT_SOURCE_DIR) + "/codegen/mappings/" + name + ".json");
  json doc = json::parse(in);
  if (edit) edit(doc);
  return codegen::MappingTable::from_json(doc, name + " (edited)");
}

// The table without the instruction `op` in the sequence of row `id`.
codegen::MappingTable without(const std::string& table, const std::string& id, const std::string& op) {
  return shipped_table(table, [&](json& doc) {
    json& seq = test_support::row(doc, id)["sequence"];
    const auto before = seq.size();
    for (auto it = seq.begin(); it != seq.end();)
      if ((it->is_object() && (*it)["op"] == op) || (it->is_string() && *it == op))
        it = seq.erase(it);
      else
        ++it;
    if (seq.size() == before) throw std::runtime_error("row " + id + " has no " + op);
  });
}

// Whether exhaustive search reaches a final state satisfying the test's condition.
bool reaches(const litmus::Test& test, const std::string& target, const codegen::MappingTable& table,
             const std::string& flavour) {
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  codegen::CompileOptions co;
  co.flavour = flavour;
  const codegen::CompiledTest compiled = codegen::compile(test, catalog.get(target), catalog, table, co);
  const SimResult r = run_exhaustive(test, compiled);
  EXPECT_FALSE(r.unknown) << *r.unknown;
  return test_support::condition_reached(test, r);
}

// Whether random runs reach a final state satisfying the test's condition.
bool reaches_at_random(const litmus::Test& test, const std::string& target, const codegen::MappingTable& table,
                       const std::string& flavour) {
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  codegen::CompileOptions co;
  co.flavour = flavour;
  const codegen::CompiledTest compiled = codegen::compile(test, catalog.get(target), catalog, table, co);
  const SimResult r = run_random(test, compiled, 20'000, 1);
  EXPECT_FALSE(r.unknown) << *r.unknown;
  return test_support::condition_reached(test, r);
}

// GFX10-GFX11 in WGP mode: the two waves of a work-group may run on the two CUs of its
// processor, each with its own L0, so the work-group acquire's buffer_gl0_inv is what keeps
// message passing within the work-group; in CU mode they share the L0 and the table omits it.
TEST(PlacementSplit, WgpModeNeedsTheWorkGroupAcquiresL0Invalidate) {
  const litmus::Test mp = library_test("canonical/MP+wg+wg_same-wg.litmus");
  const codegen::MappingTable shipped = shipped_table("gfx10-11");
  const codegen::MappingTable broken = without("gfx10-11", "load.acquire.workgroup.global", "buffer_gl0_inv");
  EXPECT_FALSE(reaches(mp, "gfx1030", shipped, "hsa"));
  EXPECT_TRUE(reaches(mp, "gfx1030", broken, "hsa"));
  EXPECT_TRUE(reaches(mp, "gfx1030", broken, "opencl"));
  EXPECT_FALSE(reaches(mp, "gfx1030", shipped, "cumode"));
  EXPECT_FALSE(reaches(mp, "gfx1030", broken, "cumode"));
  // Random runs place the waves the same ways.
  EXPECT_TRUE(reaches_at_random(mp, "gfx1030", broken, "hsa"));
  EXPECT_FALSE(reaches_at_random(mp, "gfx1030", broken, "cumode"));
}

// GFX90A in tgsplit mode: the waves of a work-group may run on any CUs of the agent, so the
// work-group acquire needs buffer_wbinvl1_vol there; without tgsplit the table omits it.
TEST(PlacementSplit, TgsplitNeedsTheWorkGroupAcquiresL1Invalidate) {
  const litmus::Test mp = library_test("canonical/MP+wg+wg_same-wg.litmus");
  const codegen::MappingTable shipped = shipped_table("gfx90a");
  const codegen::MappingTable broken = without("gfx90a", "load.acquire.workgroup.global", "buffer_wbinvl1_vol");
  EXPECT_FALSE(reaches(mp, "gfx90a", shipped, "tgsplit"));
  EXPECT_TRUE(reaches(mp, "gfx90a", broken, "tgsplit"));
  EXPECT_FALSE(reaches(mp, "gfx90a", shipped, "hsa"));
  EXPECT_FALSE(reaches(mp, "gfx90a", broken, "hsa"));
  EXPECT_TRUE(reaches_at_random(mp, "gfx90a", broken, "tgsplit"));
}

// Fact 10 of docs/verification.md asks, thread by thread, whether a thread keeps program
// order given which locations threads on other CUs write. Where its own work-group may split
// over CUs, the other threads of its work-group count among them (the caller marks their
// writes): a load through the L1 of a location one of them writes is not read as the latest
// write there, while on one CU (CU mode, no tgsplit) it is.
TEST(PlacementSplit, ThreadKeepsProgramOrderKnowsItsWorkGroupMaySplit) {
  const litmus::Test t = parse(R"(LISA Read
{ x = 0; }
 P0      | P1       ;
 w[] x 1 | r[] r0 x ;
scopes: (agent (wg 0 1))
exists (1:r0=0)
)");
  SimOptions o;
  ASSERT_TRUE(apply_assumption("l1-store-at-l2", o.hw));
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  auto lowered = [&](const std::string& target, const std::string& table, const std::string& flavour) {
    codegen::CompileOptions co;
    co.flavour = flavour;
    return lower_program(t, codegen::compile(t, catalog.get(target), catalog, shipped_table(table), co));
  };
  for (const auto& [target, table, flavour, splits] :
       {std::tuple{"gfx1030", "gfx10-11", "cumode", false}, std::tuple{"gfx1030", "gfx10-11", "hsa", true},
        std::tuple{"gfx90a", "gfx90a", "hsa", false}, std::tuple{"gfx90a", "gfx90a", "tgsplit", true}}) {
    SCOPED_TRACE(std::string(target) + " " + flavour);
    const LoweredProgram program = lowered(target, table, flavour);
    EXPECT_EQ(may_split_workgroups(program), splits);
    // P0 writes x: on another CU where the work-group splits.
    EXPECT_EQ(thread_keeps_program_order(t, program, 1, {splits}, o), !splits);
    // Nobody on another CU writes x: the load through the L1 reads the latest write.
    EXPECT_TRUE(thread_keeps_program_order(t, program, 1, {false}, o));
  }
}

// Two flavours that compile a test to the same code run it on different placements (WGP mode
// or CU mode), so a kept search of one does not answer the other.
TEST(PlacementSplit, KeptSearchesTellTheSpansApart) {
  const litmus::Test t = parse(R"(LISA CoRR
{ x = 0; }
 P0      | P1       ;
 w[] x 1 | r[] r0 x ;
         | r[] r1 x ;
scopes: (agent (wg 0 1))
exists (1:r0=1 /\ 1:r1=0)
)");
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  auto compiled = [&](const std::string& flavour) {
    codegen::CompileOptions co;
    co.flavour = flavour;
    return codegen::compile(t, catalog.get("gfx1030"), catalog, shipped_table("gfx10-11"), co);
  };
  const codegen::CompiledTest wgp = compiled("hsa"), cu = compiled("cumode");
  std::string wgp_code, cu_code;
  for (const codegen::CompiledThread& th : wgp.threads)
    for (const codegen::Instruction& ins : th.code) wgp_code += codegen::print(ins) + "\n";
  for (const codegen::CompiledThread& th : cu.threads)
    for (const codegen::Instruction& ins : th.code) cu_code += codegen::print(ins) + "\n";
  ASSERT_EQ(wgp_code, cu_code);
  EXPECT_NE(simulation_key(t, wgp), simulation_key(t, cu));
  SimulationMemo memo(8);
  const SimOptions o;
  const std::shared_ptr<const SimResult> on_one_cu = run_exhaustive(t, cu, o, memo);
  const std::shared_ptr<const SimResult> split = run_exhaustive(t, wgp, o, memo);
  // The stale second read needs the reader on the other CU of the processor.
  const SimOutcome stale{{1, 0}};  // 1:r0, 1:r1
  EXPECT_EQ(on_one_cu->histogram.count(stale), 0u);
  EXPECT_EQ(split->histogram.count(stale), 1u);
}

// Where the program-order readings (docs/simulator.md, "Program order kept"; facts 8 to 10 of
// docs/verification.md) say yes for code whose work-groups may split, the search reaches only
// SC final states; and one_cu_unordered_pairs answers nothing for a work-group of several
// waves. Every library test, for gfx1030 in WGP mode and gfx90a in tgsplit mode, under the
// default assumptions, `l1-store-at-l2` and the remedies of docs/mappings.md.
TEST(PlacementSplit, ProgramOrderReadingsHoldOnSplitWorkGroups) {
  std::vector<std::pair<std::string, SimOptions>> assumptions(3);
  assumptions[0].first = "default";
  assumptions[1].first = "l1-store-at-l2";
  ASSERT_TRUE(apply_assumption("l1-store-at-l2", assumptions[1].second.hw));
  assumptions[2].first = "remedies";
  ASSERT_TRUE(apply_assumption("l1-store-at-l2", assumptions[2].second.hw) &&
              apply_assumption("one-channel", assumptions[2].second.hw));
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  test_support::Compiler compiler;
  std::size_t kept = 0, threads_kept = 0, not_kept = 0;
  for (const auto& file : litmus::collect_litmus_files({std::string(HSALIT_SOURCE_DIR) + "/litmus/library"})) {
    litmus::ParseResult parsed = litmus::parse_litmus_file(file);
    ASSERT_TRUE(parsed.ok()) << file;
    const litmus::Test& test = *parsed.test;
    for (const auto& [target, table, flavour] :
         {std::tuple{"gfx1030", "gfx10-11", "hsa"}, std::tuple{"gfx90a", "gfx90a", "tgsplit"}}) {
      codegen::CompileOptions co;
      co.flavour = flavour;
      const std::optional<codegen::CompiledTest> compiled_or =
          compiler.compile(test, catalog.get(target), catalog, shipped_table(table), co);
      if (!compiled_or) continue;  // a refusal the documentation states (counted), or a failure
      const codegen::CompiledTest& compiled = *compiled_or;
      const LoweredProgram lowered = lower_program(test, compiled);
      // Per thread, the locations a thread on another CU may write (as fact 10 marks them):
      // with split work-groups, every other thread.
      ASSERT_TRUE(may_split_workgroups(lowered));
      std::vector<std::vector<bool>> written_elsewhere;
      for (std::size_t t = 0; t < test.threads.size(); ++t)
        written_elsewhere.push_back(test_support::other_writers(test, t).on_other_cus);
      const bool several_waves_in_a_group = [&] {
        const Placement first = placements(test).front();
        for (std::size_t w = 1; w < first.workgroup_of_wave.size(); ++w)
          for (std::size_t v = 0; v < w; ++v)
            if (first.workgroup_of_wave[v] == first.workgroup_of_wave[w]) return true;
        return false;
      }();
      for (const auto& [name, o] : assumptions) {
        const std::string what = file.string() + ", " + target + " " + flavour + ", " + name;
        if (several_waves_in_a_group) {
          for (std::size_t t = 0; t < test.threads.size(); ++t) {
            EXPECT_FALSE(one_cu_unordered_pairs(test, lowered, static_cast<int>(t), o)) << what;
          }
        }
        const bool whole = keeps_program_order(test, lowered, o);
        bool each = true;
        for (std::size_t t = 0; t < test.threads.size(); ++t)
          each = each && thread_keeps_program_order(test, lowered, static_cast<int>(t), written_elsewhere[t], o);
        if (!whole && !each) {
          ++not_kept;
          continue;
        }
        const SimResult r = run_exhaustive(test, compiled, o);
        const std::optional<bool> sc = test_support::only_sc_final_states(test, r);
        if (r.unknown || !sc) continue;
        EXPECT_TRUE(*sc) << what << ": its code keeps program order (" << (whole ? "whole" : "thread by thread")
                         << "), yet it reaches a final state that no SC interleaving reaches";
        kept += whole;
        threads_kept += each;
      }
    }
  }
  EXPECT_GT(kept, 20u);
  EXPECT_GT(threads_kept, 20u);
  EXPECT_GT(not_kept, 100u);
  // Only tgsplit's tests with group locations are refused, and few.
  EXPECT_EQ(compiler.dropped(), compiler.dropped("tgsplit allocates no LDS"));
  EXPECT_LT(compiler.dropped() * 5, compiler.compiled());
}

std::set<SimOutcome> outcome_set(const SimResult& r) {
  std::set<SimOutcome> out;
  for (const auto& [o, n] : r.histogram) out.insert(o);
  return out;
}

// The reductions of exhaustive search (docs/simulator.md, "Reductions") keep the outcome set
// where work-groups split: every two-thread library test, for GFX10 in WGP mode and GFX90A in
// tgsplit mode, with the shipped table and the one without the work-group acquire's L1
// invalidation, under the default assumptions and `l1-store-at-l2` (where rule 5 keeps only
// the finest placements); and rule 5 alone on every library test.
TEST(PlacementSplit, ReductionsKeepTheOutcomeSetOfSplitWorkGroups) {
  test_support::Compiler compiler;
  struct Case {
    std::string target, flavour;
    codegen::MappingTable shipped, broken;
  };
  const std::vector<Case> cases = {
      {"gfx1030", "hsa", shipped_table("gfx10-11"),
       without("gfx10-11", "load.acquire.workgroup.global", "buffer_gl0_inv")},
      {"gfx90a", "tgsplit", shipped_table("gfx90a"),
       without("gfx90a", "load.acquire.workgroup.global", "buffer_wbinvl1_vol")},
  };
  HardwareAssumptions through_l2;
  ASSERT_TRUE(apply_assumption("l1-store-at-l2", through_l2));
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  int compared = 0, compared_separate = 0;
  std::uint64_t states_all = 0, states_finest = 0;
  for (const auto& file : litmus::collect_litmus_files({std::string(HSALIT_SOURCE_DIR) + "/litmus/library"})) {
    litmus::ParseResult parsed = litmus::parse_litmus_file(file);
    ASSERT_TRUE(parsed.ok()) << file;
    const litmus::Test& test = *parsed.test;
    for (const Case& c : cases)
      for (const codegen::MappingTable* table : {&c.shipped, &c.broken})
        for (const HardwareAssumptions& hw : {HardwareAssumptions{}, through_l2}) {
          const std::string what = file.string() + ", " + c.target + " " + c.flavour +
                                   (table == &c.broken ? " broken" : "") +
                                   (hw.l1_store_visible_early ? "" : ", l1-store-at-l2");
          codegen::CompileOptions co;
          co.flavour = c.flavour;
          const std::optional<codegen::CompiledTest> compiled_or =
              compiler.compile(test, catalog.get(c.target), catalog, *table, co);
          if (!compiled_or) continue;  // a refusal the documentation states (counted), or a failure
          const codegen::CompiledTest& compiled = *compiled_or;
          SimOptions reduced;
          reduced.hw = hw;
          reduced.keep_traces = false;
          reduced.max_states = 200'000;
          if (test.threads.size() <= 2) {
            SimOptions full = reduced;
            full.partial_order_reduction = false;
            full.max_states = 30'000;
            const SimResult expected = run_exhaustive(test, compiled, full);
            if (!expected.unknown) {
              const SimResult r = run_exhaustive(test, compiled, reduced);
              ASSERT_FALSE(r.unknown) << what;
              EXPECT_EQ(outcome_set(r), outcome_set(expected)) << what;
              ++compared;
            }
          }
          if (hw.l1_store_visible_early) continue;
          SimOptions every = reduced;
          every.separate_cus = false;
          const SimResult expected = run_exhaustive(test, compiled, every);
          if (expected.unknown) continue;
          const SimResult r = run_exhaustive(test, compiled, reduced);
          ASSERT_FALSE(r.unknown) << what;
          EXPECT_EQ(outcome_set(r), outcome_set(expected)) << what;
          ++compared_separate;
          states_all += expected.states;
          states_finest += r.states;
        }
  }
  EXPECT_GT(compared, 150);
  EXPECT_GT(compared_separate, 300);
  // Only tgsplit's tests with group locations are refused, and few.
  EXPECT_EQ(compiler.dropped(), compiler.dropped("tgsplit allocates no LDS"));
  EXPECT_LT(compiler.dropped() * 5, compiler.compiled());
  EXPECT_LT(states_finest, states_all);
}

}  // namespace
}  // namespace hsalit::runner
