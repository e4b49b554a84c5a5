// The simulator counts as the target's generation does (codegen::counter_model): GFX10-GFX11
// count stores in vscnt, not vmcnt, and GFX12 has loadcnt/storecnt instead, so a wait on the
// wrong counter leaves the load in flight; and every bundled test compiled for every target
// waits for its loads before it reads their registers.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "compile_support.hpp"
#include "hsalit/codegen/compiler.hpp"
#include "hsalit/litmus/library.hpp"
#include "hsalit/litmus/parser.hpp"
#include "hsalit/runner/sim.hpp"
#include "litmus_support.hpp"
#include "mapping_support.hpp"

namespace hsalit::runner {
namespace {

using test_support::parse;

// A load, a store, and a store of the loaded value: the register wait before the last store
// must wait for the load only. x starts at 1, so z=0 means the store read v1 before the load
// wrote it.
const char* kLoadStoreStore = R"(LISA VS-x1
{ x=1; y=0; z=0; }
 P0 ;
 r[] r0 x ;
 w[] y 1 ;
 w[] z r0 ;
exists (z=0)
)";

using test_support::compile_for;

// The compiled code with its register waits replaced by `s_waitcnt vmcnt(1)`, the wait the
// compiler emitted on every target while it counted stores in vmcnt everywhere.
codegen::CompiledTest with_gfx9_register_wait(codegen::CompiledTest c) {
  std::string error;
  const codegen::Instruction old = *codegen::parse_instruction("s_waitcnt vmcnt(1)", error);
  for (codegen::CompiledThread& t : c.threads)
    for (codegen::Instruction& ins : t.code)
      if (ins.origin.role == "register") {
        codegen::Origin origin = ins.origin;
        ins = old;
        ins.origin = origin;
      }
  return c;
}

bool reaches_z0(const litmus::Test& test, const codegen::CompiledTest& compiled) {
  SimResult r = run_exhaustive(test, compiled);
  EXPECT_FALSE(r.unknown) << *r.unknown;
  std::size_t z = r.observed.size();
  for (std::size_t i = 0; i < r.observed.size(); ++i)
    if (r.observed[i].name == "z") z = i;
  EXPECT_LT(z, r.observed.size());
  return std::any_of(r.histogram.begin(), r.histogram.end(),
                     [&](const auto& entry) { return z < r.observed.size() && entry.first.values[z] == 0; });
}

class GenerationCounters : public ::testing::TestWithParam<std::string> {};

// The compiler's wait: the store of r0 reads v1 only after the load wrote it, on every generation.
TEST_P(GenerationCounters, RegisterWaitKeepsTheLoadedValue) {
  const litmus::Test test = parse(kLoadStoreStore);
  const codegen::CompiledTest compiled = compile_for(test, GetParam());
  EXPECT_TRUE(register_hazards(lower_program(test, compiled)).empty());
  EXPECT_FALSE(reaches_z0(test, compiled));
}

INSTANTIATE_TEST_SUITE_P(Targets, GenerationCounters, ::testing::Values("gfx900", "gfx1030", "gfx1100", "gfx1200"),
                         [](const auto& info) { return info.param; });

// On GFX6-GFX9 vmcnt counts the store of y too, so vmcnt(1) waits for the load.
TEST(SimCounters, Gfx9VmcntCountsStores) {
  const litmus::Test test = parse(kLoadStoreStore);
  const codegen::CompiledTest old = with_gfx9_register_wait(compile_for(test, "gfx900"));
  EXPECT_TRUE(register_hazards(lower_program(test, old)).empty());
  EXPECT_FALSE(reaches_z0(test, old));
}

// The old wait on GFX10-GFX11 (stores in vscnt: vmcnt(1) lets the load be in flight) and on
// GFX12 (no vmcnt: the wait bounds nothing): the store reads v1 before the load wrote it.
TEST(SimCounters, WaitOnTheWrongCounterLeavesTheLoadInFlight) {
  const litmus::Test test = parse(kLoadStoreStore);
  for (const char* target : {"gfx1030", "gfx1100", "gfx1200"}) {
    SCOPED_TRACE(target);
    const codegen::CompiledTest old = with_gfx9_register_wait(compile_for(test, target));
    std::vector<std::string> hazards = register_hazards(lower_program(test, old));
    ASSERT_EQ(hazards.size(), 1u);
    EXPECT_NE(hazards[0].find("reads v1 before"), std::string::npos) << hazards[0];
    EXPECT_TRUE(reaches_z0(test, old));
  }
}

// s_waitcnt_vscnt bounds stores only: it does not make a GFX10 load complete.
TEST(SimCounters, VscntDoesNotWaitForLoads) {
  const litmus::Test test = parse(kLoadStoreStore);
  codegen::CompiledTest c = compile_for(test, "gfx1030");
  std::string error;
  for (codegen::Instruction& ins : c.threads[0].code)
    if (ins.origin.role == "register") {
      codegen::Origin origin = ins.origin;
      ins = *codegen::parse_instruction("s_waitcnt_vscnt null, 0", error);
      ins.origin = origin;
    }
  EXPECT_EQ(register_hazards(lower_program(test, c)).size(), 1u);
  EXPECT_TRUE(reaches_z0(test, c));
}

// Every bundled test, compiled for every target with its own table, through the simulator's
// lowering and counters: no register is read or overwritten before the load that writes it
// has completed.
TEST(SimCounters, EveryLibraryTestWaitsForItsLoadsOnEveryTarget) {
  namespace fs = std::filesystem;
  std::vector<litmus::Test> tests;
  for (const fs::path& f : litmus::collect_litmus_files({fs::path(HSALIT_SOURCE_DIR) / "litmus/library"})) {
    litmus::ParseResult r = litmus::parse_litmus_file(f);
    ASSERT_TRUE(r.ok()) << f;
    tests.push_back(std::move(*r.test));
  }
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  int checked = 0;
  test_support::Compiler compiler;
  for (const std::string& name : catalog.names()) {
    const codegen::Target& target = catalog.get(name);
    const codegen::MappingTable table = codegen::MappingTable::builtin(target.mapping);
    for (const litmus::Test& test : tests) {
      const std::optional<codegen::CompiledTest> compiled = compiler.compile(test, target, catalog, table);
      if (!compiled) continue;  // a refusal the documentation states (counted), or a failure
      for (const std::string& hazard : register_hazards(lower_program(test, *compiled)))
        ADD_FAILURE() << test.name << " on " << name << ": " << hazard;
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
  EXPECT_LT(compiler.dropped() * 10, compiler.compiled());  // the stated refusals are few
}

}  // namespace
}  // namespace hsalit::runner
