// One memory-hierarchy description per generation (codegen/memory_hierarchy.hpp): what the
// cache bits of each generation bypass, what each cache instruction invalidates or writes back,
// and where the waves of a work-group run, as AMDGPUUsage's sections say.
#include "hsalit/codegen/memory_hierarchy.hpp"

#include <gtest/gtest.h>

#include <string>

namespace hsalit::codegen {
namespace {

const MemoryHierarchy& of(const std::string& target) { return memory_hierarchy(TargetCatalog::builtin().get(target)); }

Instruction instruction(const std::string& text) {
  std::string error;
  std::optional<Instruction> ins = parse_instruction(text, error);
  EXPECT_TRUE(ins) << text << ": " << error;
  return ins ? *ins : Instruction{};
}

CachePath path(const std::string& target, const std::string& text, WorkgroupSpan span = WorkgroupSpan::OneCu) {
  return of(target).access(instruction(text), span);
}

CacheMaintenance effect(const std::string& target, const std::string& text, WorkgroupSpan span = WorkgroupSpan::OneCu) {
  return of(target).maintenance(instruction(text), span);
}

TEST(MemoryHierarchy, EveryTargetHasItsGenerationsDescription) {
  for (const std::string& name : TargetCatalog::builtin().names()) {
    const Target& t = TargetCatalog::builtin().get(name);
    EXPECT_NO_THROW(memory_hierarchy(t)) << name;
  }
  EXPECT_EQ(of("gfx900").section(), "Memory Model GFX6-GFX9");
  EXPECT_EQ(of("gfx90a").section(), "Memory Model GFX90A");
  EXPECT_EQ(of("gfx1030").section(), "Memory Model GFX10-GFX11");
  EXPECT_EQ(of("gfx1200").section(), "Memory Model GFX12");
}

// gfx950 is a GFX942 target: it has L2 write-back and invalidation (a target-name prefix once
// missed it, and `--assume l2-per-agent` did nothing there).
TEST(MemoryHierarchy, Gfx950IsAGfx942Target) {
  for (const char* t : {"gfx940", "gfx941", "gfx942", "gfx950"}) {
    EXPECT_EQ(of(t).section(), "Memory Model GFX942") << t;
    EXPECT_TRUE(of(t).l2_maintenance()) << t;
  }
  EXPECT_TRUE(of("gfx90a").l2_maintenance());
  EXPECT_FALSE(of("gfx900").l2_maintenance());
  EXPECT_FALSE(of("gfx1030").l2_maintenance());
}

TEST(MemoryHierarchy, WorkgroupSpanFollowsTheExecutionMode) {
  EXPECT_EQ(of("gfx900").workgroup_span("hsa"), WorkgroupSpan::OneCu);
  EXPECT_EQ(of("gfx90a").workgroup_span("hsa"), WorkgroupSpan::OneCu);
  EXPECT_EQ(of("gfx90a").workgroup_span("tgsplit"), WorkgroupSpan::Agent);
  EXPECT_EQ(of("gfx950").workgroup_span("tgsplit"), WorkgroupSpan::Agent);
  EXPECT_EQ(of("gfx1030").workgroup_span("hsa"), WorkgroupSpan::Wgp);
  EXPECT_EQ(of("gfx1030").workgroup_span("opencl"), WorkgroupSpan::Wgp);
  EXPECT_EQ(of("gfx1030").workgroup_span("cumode"), WorkgroupSpan::OneCu);
  EXPECT_EQ(of("gfx1200").workgroup_span("cumode"), WorkgroupSpan::OneCu);
}

TEST(MemoryHierarchy, LoadBypassBitsPerGeneration) {
  EXPECT_TRUE(path("gfx900", "global_load_dword v1, v0, s[2:3] glc").bypass_l1);
  EXPECT_FALSE(path("gfx900", "global_load_dword v1, v0, s[2:3]").bypass_l1);
  // GFX942: sc1 (agent scope) misses the L1; sc0 (work-group scope) only in tgsplit; nt is a hint.
  EXPECT_TRUE(path("gfx942", "global_load_dword v1, v0, s[2:3] sc1").bypass_l1);
  EXPECT_FALSE(path("gfx942", "global_load_dword v1, v0, s[2:3] sc0").bypass_l1);
  EXPECT_TRUE(path("gfx942", "global_load_dword v1, v0, s[2:3] sc0", WorkgroupSpan::Agent).bypass_l1);
  EXPECT_FALSE(path("gfx942", "global_load_dword v1, v0, s[2:3] nt").bypass_l1);
  EXPECT_TRUE(path("gfx942", "global_atomic_add v0, v1, s[2:3] sc1").system_scope);
  EXPECT_FALSE(path("gfx942", "global_load_dword v1, v0, s[2:3] sc1").system_scope);
  EXPECT_TRUE(path("gfx942", "global_load_dword v1, v0, s[2:3] sc0 sc1").system_scope);
  EXPECT_TRUE(path("gfx942", "global_store_dword v0, v1, s[2:3] sc0 sc1").system_scope);
  // GFX10: glc misses the L0, dlc the GL1; GFX11: glc misses both.
  const CachePath gfx10_glc = path("gfx1030", "global_load_dword v1, v0, s[2:3] glc");
  EXPECT_TRUE(gfx10_glc.bypass_l1);
  EXPECT_FALSE(gfx10_glc.bypass_gl1);
  EXPECT_TRUE(path("gfx1030", "global_load_dword v1, v0, s[2:3] glc dlc").bypass_gl1);
  EXPECT_TRUE(path("gfx1100", "global_load_b32 v1, v0, s[2:3] glc").bypass_gl1);
  // GFX12: the scope names the level that may answer.
  const CachePath se = path("gfx1200", "global_load_b32 v1, v0, s[2:3] scope:SCOPE_SE");
  EXPECT_TRUE(se.bypass_l1);
  EXPECT_FALSE(se.bypass_gl1);
  const CachePath dev = path("gfx1200", "global_load_b32 v1, v0, s[2:3] scope:SCOPE_DEV");
  EXPECT_TRUE(dev.bypass_l1 && dev.bypass_gl1);
  const CachePath cu = path("gfx1200", "global_load_b32 v1, v0, s[2:3] th:TH_LOAD_NT");
  EXPECT_FALSE(cu.bypass_l1 || cu.bypass_gl1);
}

TEST(MemoryHierarchy, CacheInstructionsPerGeneration) {
  EXPECT_TRUE(effect("gfx900", "buffer_wbinvl1_vol").invalidate_l1);
  EXPECT_TRUE(effect("gfx90a", "buffer_invl2").invalidate_l2);
  EXPECT_FALSE(effect("gfx90a", "buffer_invl2").invalidate_l1);
  EXPECT_TRUE(effect("gfx90a", "buffer_wbl2").writeback_l2);
  const CacheMaintenance inv_sc1 = effect("gfx950", "buffer_inv sc1");
  EXPECT_TRUE(inv_sc1.invalidate_l1 && inv_sc1.invalidate_l2);
  EXPECT_FALSE(effect("gfx950", "buffer_inv sc0").invalidate_l2);
  // Work-group scope: the L1 only where the work-group's waves may be on several CUs.
  EXPECT_FALSE(effect("gfx950", "buffer_inv sc0").invalidate_l1);
  EXPECT_TRUE(effect("gfx950", "buffer_inv sc0", WorkgroupSpan::Agent).invalidate_l1);
  EXPECT_TRUE(effect("gfx950", "buffer_wbl2 sc1").writeback_l2);
  EXPECT_TRUE(effect("gfx950", "buffer_wbl2 sc0 sc1").writeback_l2);
  EXPECT_FALSE(effect("gfx950", "buffer_wbl2 sc0").writeback_l2);
  EXPECT_TRUE(effect("gfx1030", "buffer_gl0_inv").invalidate_l1);
  EXPECT_FALSE(effect("gfx1030", "buffer_gl0_inv").invalidate_gl1);
  EXPECT_TRUE(effect("gfx1030", "buffer_gl1_inv").invalidate_gl1);
  EXPECT_FALSE(effect("gfx1030", "buffer_gl1_inv").invalidate_l1);
  const CacheMaintenance se = effect("gfx1200", "global_inv scope:SCOPE_SE");
  EXPECT_TRUE(se.invalidate_l1);
  EXPECT_FALSE(se.invalidate_gl1);
  const CacheMaintenance dev = effect("gfx1200", "global_inv scope:SCOPE_DEV");
  EXPECT_TRUE(dev.invalidate_l1 && dev.invalidate_gl1);
  const CacheMaintenance wb = effect("gfx1200", "global_wb scope:SCOPE_SYS");
  EXPECT_FALSE(wb.invalidate_l1 || wb.invalidate_gl1 || wb.writeback_l2);
}

}  // namespace
}  // namespace hsalit::codegen
