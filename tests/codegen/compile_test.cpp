#include "hsalit/codegen/compiler.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "hsalit/litmus/parser.hpp"
#include "litmus_support.hpp"

namespace hsalit::codegen {
namespace {

using test_support::parse;

const char* kMessagePassing = R"(LISA MP
{ x = 0; y = 0; }
 P0                       | P1                          ;
 w[] x 1                  | r[atomic,scacq,agent] r0 y  ;
 w[atomic,screl,agent] y 1 | r[] r1 x                   ;
scopes: (agent (wg 0) (wg 1))
exists (1:r0=1 /\ 1:r1=0)
)";

std::vector<std::string> texts(const CompiledThread& t, std::string_view role = {}) {
  std::vector<std::string> out;
  for (const Instruction& i : t.code)
    if (role.empty() || i.origin.role == role) out.push_back(print(i));
  return out;
}

CompiledTest compile_for(const litmus::Test& test, const std::string& target, const std::string& table = "",
                         CompileOptions options = {}) {
  const TargetCatalog& catalog = TargetCatalog::builtin();
  const Target& t = catalog.get(target);
  return compile(test, t, catalog, MappingTable::builtin(table.empty() ? t.mapping : table), options);
}

TEST(Compile, MessagePassingOnGfx900FollowsTheGfx69Table) {
  CompiledTest c = compile_for(parse(kMessagePassing), "gfx900");
  ASSERT_EQ(c.threads.size(), 2u);
  std::vector<std::string> p0 = texts(c.threads[0]);
  // Release store at agent scope: wait for everything before, then the store (AMDGPUUsage
  // GFX6-GFX9 table, store atomic release agent global).
  auto store =
      std::find_if(p0.begin(), p0.end(), [](const std::string& s) { return s.rfind("global_store_dword", 0) == 0; });
  ASSERT_NE(store, p0.end());
  auto release = std::find(p0.begin(), p0.end(), "s_waitcnt vmcnt(0) lgkmcnt(0)");
  ASSERT_NE(release, p0.end());
  // Acquire load at agent scope: glc load, wait for it, invalidate L1.
  std::vector<std::string> p1 = texts(c.threads[1]);
  auto load = std::find(p1.begin(), p1.end(), "global_load_dword v1, v0, s[2:3] glc");
  ASSERT_NE(load, p1.end()) << ::testing::PrintToString(p1);
  EXPECT_EQ(*(load + 1), "s_waitcnt vmcnt(0)");
  EXPECT_EQ(*(load + 2), "buffer_wbinvl1_vol");
  // Every memory-model instruction names its row.
  for (const Instruction& i : c.threads[1].code) {
    if ((i.is_memory() || i.kind() == InstrClass::Wait || i.kind() == InstrClass::CacheInvalidate) &&
        i.origin.role != "prologue") {
      EXPECT_FALSE(i.origin.row.empty()) << print(i);
    }
  }
  EXPECT_EQ(c.threads[1].code.back().mnemonic, "s_endpgm");
}

// One thread compiled alone is that thread of the whole test (verify-mapping's code classes
// compile one thread per choice), with and without group locations; a thread the test does
// not have is an error.
TEST(Compile, OneThreadAloneIsThatThreadOfTheTest) {
  const char* group = R"(LISA MP-group
{ x = 0; y = 0; }
 P0 | P1 ;
 w[] x 1 | r[atomic,scacq,wg] r0 y ;
 w[atomic,screl,wg] y 1 | r[] r1 x ;
scopes: (agent (wg 0 1))
regions: y:group
exists (1:r0=1 /\ 1:r1=0)
)";
  const TargetCatalog& catalog = TargetCatalog::builtin();
  for (const char* target : {"gfx900", "gfx90a", "gfx942"})
    for (const char* text : {kMessagePassing, group}) {
      SCOPED_TRACE(std::string(target) + " " + text);
      const litmus::Test test = parse(text);
      const Target& t = catalog.get(target);
      const MappingTable table = MappingTable::builtin(t.mapping);
      const CompiledTest whole = compile(test, t, catalog, table);
      for (int thread = 0; thread < 2; ++thread) {
        const CompiledThread alone = compile_thread(test, thread, t, catalog, table);
        const CompiledThread& within = whole.threads[static_cast<std::size_t>(thread)];
        EXPECT_EQ(alone.thread, thread);
        EXPECT_EQ(alone.code, within.code);
        EXPECT_EQ(alone.registers, within.registers);
        EXPECT_EQ(alone.vgprs, within.vgprs);
        EXPECT_EQ(alone.sgprs, within.sgprs);
      }
      EXPECT_THROW(compile_thread(test, 2, t, catalog, table), CompileError);
    }
}

TEST(Compile, GenerationsUseTheirForms) {
  litmus::Test mp = parse(kMessagePassing);
  auto has = [](const CompiledTest& c, const std::string& needle) {
    for (const CompiledThread& t : c.threads)
      for (const std::string& s : texts(t))
        if (s.find(needle) != std::string::npos) return true;
    return false;
  };
  CompiledTest gfx600 = compile_for(mp, "gfx600");
  EXPECT_TRUE(has(gfx600, "buffer_load_dword v1, off, s["));
  EXPECT_TRUE(has(gfx600, "buffer_wbinvl1"));
  EXPECT_FALSE(has(gfx600, "buffer_wbinvl1_vol"));  // no _vol on GFX6
  CompiledTest gfx803 = compile_for(mp, "gfx803");
  EXPECT_TRUE(has(gfx803, "flat_load_dword v"));
  CompiledTest generic = compile_for(mp, "gfx900", "", CompileOptions{"hsa", true});
  EXPECT_TRUE(has(generic, "flat_load_dword"));
  EXPECT_FALSE(has(generic, "global_load_dword"));
}

TEST(Compile, GroupLocationsUseLdsAndM0WhereNeeded) {
  litmus::Test t = parse(R"(LISA G
{ x = 0; }
 P0                      | P1                     ;
 w[atomic,screl,wg] x 1  | r[atomic,scacq,wg] r0 x ;
scopes: (agent (wg 0 1))
regions: x:group
exists (1:r0=1)
)");
  CompiledTest gfx900 = compile_for(t, "gfx900");
  std::vector<std::string> p1 = texts(gfx900.threads[1], "access");
  ASSERT_EQ(p1.size(), 1u);
  EXPECT_EQ(p1[0].rfind("ds_read_b32 ", 0), 0u);
  EXPECT_EQ(gfx900.threads[1].locations.at(0).space, AddressSpace::Local);
  CompiledTest gfx803 = compile_for(t, "gfx803");
  std::vector<std::string> pro = texts(gfx803.threads[0], "prologue");
  EXPECT_NE(std::find(pro.begin(), pro.end(), "s_mov_b32 m0, -1"), pro.end());
}

TEST(Compile, Gfx90aAlignsRegisterPairs) {
  litmus::Test t = parse(R"(LISA CAS
{ x = 0; }
 P0                                ;
 rmw[cas,atomic,scar,agent] r0 0 1 x ;
exists (0:r0=0)
)");
  CompiledTest c = compile_for(t, "gfx90a");
  for (const Instruction& i : c.threads[0].code) {
    for (const Operand& o : i.operands) {
      if (o.kind == Operand::Kind::Vgpr && o.count == 2) {
        EXPECT_EQ(o.reg % 2, 0) << print(i);
      }
    }
  }
}

TEST(Compile, OpenClFlavourDropsWhatTheTableSays) {
  litmus::Test mp = parse(kMessagePassing);
  CompiledTest hsa = compile_for(mp, "gfx900");
  CompiledTest opencl = compile_for(mp, "gfx900", "", CompileOptions{"opencl", false});
  std::size_t hsa_waits = 0, opencl_waits = 0;
  for (const auto* c : {&hsa, &opencl})
    for (const CompiledThread& t : c->threads)
      for (const Instruction& i : t.code)
        if (i.mnemonic == "s_waitcnt" && i.origin.role != "prologue") {
          (c == &hsa ? hsa_waits : opencl_waits) += i.wait.lgkmcnt.has_value();
        }
  EXPECT_LT(opencl_waits, hsa_waits);
}

TEST(Compile, UnsupportedCombinationsArePreciseErrors) {
  struct Case {
    std::string test, target, table, flavour, message;
  };
  const std::vector<Case> cases = {
      {"LISA A\n{ 0:r1 = x; x = 0; }\n P0 ;\n r[] r0 r1 ;\nexists (0:r0=0)\n", "gfx900", "", "hsa",
       "P0:0 'r[] r0 r1': an address held in a register is not supported by the code generator (target gfx900, table "
       "gfx6-9)"},
      {"LISA B\n{ x = 0; }\n P0 ;\n rmw[atomic,rlx,agent] r0 (eq r0 1) x ;\nexists (0:r0=0)\n", "gfx900", "", "hsa",
       "P0:0 'rmw[atomic,rlx,agent] r0 (eq r0 1) x': no GCN atomic computes '(eq r0 1)' (supported: exchange, cas, "
       "and add, sub, and, or, xor of the value read with a constant or another register) (target gfx900, table "
       "gfx6-9)"},
      {kMessagePassing, "gfx90a", "gfx6-9", "hsa", "table gfx6-9 does not apply to gfx90a (its targets: "},
      {kMessagePassing, "gfx900", "", "cuda", "table gfx6-9 has no flavour 'cuda' (its flavours: hsa, opencl)"},
      {"LISA C\n{ z = 0; }\n P0 ;\n w[atomic,screl,system] z 1 ;\nscopes: (agent (wg 0))\nregions: z:group\nexists "
       "(z=1)\n",
       "gfx900", "hsail-finalizer", "hsa",
       "P0:0 'w[atomic,screl,system] z 1': table hsail-finalizer has no row for store atomic release system local "
       "(target gfx900, table hsail-finalizer)"},
  };
  for (const Case& c : cases) {
    litmus::ParseResult r = litmus::parse_litmus(c.test);
    ASSERT_TRUE(r.ok()) << r.diagnostics.render("t");
    try {
      compile_for(*r.test, c.target, c.table, CompileOptions{c.flavour, false});
      ADD_FAILURE() << "compiled: " << c.message;
    } catch (const CompileError& e) {
      EXPECT_EQ(std::string(e.what()).substr(0, c.message.size()), c.message);
    }
  }
}

}  // namespace
}  // namespace hsalit::codegen
