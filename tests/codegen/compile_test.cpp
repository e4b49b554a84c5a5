#include "hsalit/codegen/compiler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

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
  // GFX6-GFX9 table, store atomic release agent global). In program order: the data store,
  // the release's wait, and the flag store right after it.
  std::vector<std::size_t> stores;
  for (std::size_t i = 0; i < p0.size(); ++i)
    if (p0[i].rfind("global_store_dword", 0) == 0) stores.push_back(i);
  ASSERT_EQ(stores.size(), 2u) << ::testing::PrintToString(p0);
  EXPECT_NE(p0[stores[0]].find("s[2:3]"), std::string::npos) << p0[stores[0]];  // x, the data
  EXPECT_NE(p0[stores[1]].find("s[4:5]"), std::string::npos) << p0[stores[1]];  // y, the flag
  const auto release = std::find(p0.begin(), p0.end(), "s_waitcnt vmcnt(0) lgkmcnt(0)");
  ASSERT_NE(release, p0.end());
  const auto release_at = static_cast<std::size_t>(release - p0.begin());
  EXPECT_LT(stores[0], release_at) << ::testing::PrintToString(p0);
  EXPECT_EQ(release_at + 1, stores[1]) << ::testing::PrintToString(p0);
  EXPECT_EQ(c.threads[0].code[release_at].origin.row, "store.atomic.release.agent");
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

// A barrier: the target's barrier instruction alone under HSA's flavours (HSA PRM 9.3: no
// memory ordering of its own); under the opencl flavour, as clang lowers OpenCL's barrier(),
// between the table's workgroup release and acquire fences.
TEST(Compile, AnOpenClBarrierIsFencedAndAnHsaBarrierIsNot) {
  const litmus::Test mp = parse(R"(LISA MP+barrier
{ x = 0; }
 P0      | P1       ;
 w[] x 1 | barrier  ;
 barrier | r[] r0 x ;
scopes: (agent (wg 0 1))
exists (1:r0=0)
)");
  CompileOptions opencl;
  opencl.flavour = "opencl";
  // The rows of fences in a thread's code, in order.
  auto fence_rows = [](const CompiledThread& t) {
    std::vector<std::string> rows;
    for (const Instruction& i : t.code)
      if (i.origin.row.rfind("fence.", 0) == 0 && (rows.empty() || rows.back() != i.origin.row))
        rows.push_back(i.origin.row);
    return rows;
  };
  for (const char* target : {"gfx900", "gfx1030", "gfx1200"}) {
    SCOPED_TRACE(target);
    const CompiledTest hsa = compile_for(mp, target);
    const CompiledTest ocl = compile_for(mp, target, "", opencl);
    for (const CompiledThread& t : hsa.threads)
      EXPECT_TRUE(fence_rows(t).empty()) << ::testing::PrintToString(texts(t));
    for (const CompiledThread& t : ocl.threads) {
      const std::vector<std::string> rows = fence_rows(t);
      ASSERT_EQ(rows.size(), 2u) << ::testing::PrintToString(texts(t));
      EXPECT_NE(rows[0].find("release"), std::string::npos) << rows[0];
      EXPECT_NE(rows[1].find("acquire"), std::string::npos) << rows[1];
    }
  }
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

// Execution-mode flavours leave the bits out that the document omits in that mode
// (omit_bits_in): "If not TgSplit execution mode, omit glc=1" (GFX90A), "If CU wavefront
// execution mode, omit glc=1" (GFX10-GFX11), and GFX12's work-group scope, SCOPE_SE in WGP mode
// and none in CU mode.
TEST(Compile, ExecutionModeFlavoursSetTheAccessBitsTheDocumentGives) {
  const litmus::Test load = parse(R"(LISA wg-load
{ x = 0; }
 P0                    ;
 r[atomic,rlx,wg] r0 x ;
exists (0:r0=0)
)");
  auto access = [&](const std::string& target, const std::string& flavour) {
    const CompiledTest c = compile_for(load, target, "", CompileOptions{flavour, false});
    const std::vector<std::string> a = texts(c.threads[0], "access");
    return a.empty() ? std::string() : a.front();
  };
  EXPECT_NE(access("gfx90a", "tgsplit").find(" glc"), std::string::npos) << access("gfx90a", "tgsplit");
  EXPECT_EQ(access("gfx90a", "hsa").find(" glc"), std::string::npos) << access("gfx90a", "hsa");
  EXPECT_NE(access("gfx1030", "hsa").find(" glc"), std::string::npos) << access("gfx1030", "hsa");
  EXPECT_EQ(access("gfx1030", "cumode").find(" glc"), std::string::npos) << access("gfx1030", "cumode");
  EXPECT_NE(access("gfx1200", "hsa").find("scope:SCOPE_SE"), std::string::npos) << access("gfx1200", "hsa");
  EXPECT_EQ(access("gfx1200", "cumode").find("scope:"), std::string::npos) << access("gfx1200", "cumode");
}

// tgsplit allocates no LDS ("no LDS is allocated as wavefronts of the same work-group can be in
// different CUs", AMDGPUUsage, Memory Model GFX90A and GFX942): a test with a group location
// is refused in that flavour, naming the location and the sentence.
TEST(Compile, TgsplitRefusesGroupLocations) {
  const litmus::Test group = parse(R"(LISA group
{ x = 0; }
 P0      ;
 w[] x 1 ;
regions: x:group
exists (x=1)
)");
  for (const char* target : {"gfx90a", "gfx942", "gfx950"}) {
    EXPECT_NO_THROW(compile_for(group, target, "", CompileOptions{"hsa", false})) << target;
    try {
      compile_for(group, target, "", CompileOptions{"tgsplit", false});
      ADD_FAILURE() << target << ": compiled";
    } catch (const CompileError& e) {
      EXPECT_NE(std::string(e.what()).find("group location 'x': the tgsplit flavour allocates no LDS"),
                std::string::npos)
          << e.what();
    }
  }
}

// The register wait before the store of a loaded value, per generation: GFX6-GFX9 count the
// store between them in vmcnt (vmcnt(1) waits for the load), GFX10-GFX11 count it in vscnt
// (vmcnt(0): the load is the last vmcnt operation), GFX12 has loadcnt (AMDGPUUsage, Memory
// Model GFX10-GFX11 and GFX12). The store of r0 comes right after the wait.
const char* kLoadStoreStore = R"(LISA VS
{ x=0; y=0; z=0; }
 P0 ;
 r[] r0 x ;
 w[] y 1 ;
 w[] z r0 ;
exists (z=0)
)";

TEST(Compile, RegisterWaitIsOnTheCounterThatCountsTheLoad) {
  const litmus::Test test = parse(kLoadStoreStore);
  const std::vector<std::pair<std::string, std::string>> expected = {{"gfx900", "s_waitcnt vmcnt(1)"},
                                                                     {"gfx1010", "s_waitcnt vmcnt(0)"},
                                                                     {"gfx1030", "s_waitcnt vmcnt(0)"},
                                                                     {"gfx1100", "s_waitcnt vmcnt(0)"},
                                                                     {"gfx1200", "s_wait_loadcnt 0"}};
  for (const auto& [target, wait] : expected) {
    SCOPED_TRACE(target);
    CompiledTest c = compile_for(test, target);
    std::vector<std::string> waits = texts(c.threads[0], "register");
    EXPECT_EQ(waits, std::vector<std::string>{wait});
    std::vector<std::string> code = texts(c.threads[0]);
    auto at = std::find(code.begin(), code.end(), wait);
    ASSERT_NE(at, code.end());
    ASSERT_NE(at + 1, code.end());
    // The store of r0 (in v1, the register the load writes) right after it.
    EXPECT_NE((at + 1)->find("_store_"), std::string::npos) << *(at + 1);
    EXPECT_NE((at + 1)->find(", v1, "), std::string::npos) << *(at + 1);
  }
}

// The kernel arguments are waited for on the counter scalar loads count in.
TEST(Compile, PrologueWaitsForScalarLoadsOnTheirCounter) {
  const litmus::Test test = parse(kLoadStoreStore);
  for (const auto& [target, wait] : std::vector<std::pair<std::string, std::string>>{
           {"gfx900", "s_waitcnt lgkmcnt(0)"}, {"gfx1100", "s_waitcnt lgkmcnt(0)"}, {"gfx1200", "s_wait_kmcnt 0"}}) {
    SCOPED_TRACE(target);
    std::vector<std::string> prologue = texts(compile_for(test, target).threads[0], "prologue");
    EXPECT_NE(std::find(prologue.begin(), prologue.end(), wait), prologue.end()) << ::testing::PrintToString(prologue);
  }
}

// GFX10 and later compile for wave32 by default (what `llvm-mc -mcpu=gfx1030` assembles with
// no -mattr): a compare writes vcc_lo. `wave64` keeps vcc.
TEST(Compile, Gfx10AndLaterAreWave32UnlessWave64IsAsked) {
  const litmus::Test test = parse(R"(LISA BR
{ x=0; }
 P0 ;
 r[] r0 x ;
 mov r1 (eq r0 1) ;
 b[] r1 End ;
 w[] x 2 ;
 End: ;
exists (x=2)
)");
  auto masks = [](const CompiledTest& c) {
    std::set<std::string> out;
    for (const Instruction& i : c.threads[0].code)
      for (const Operand& o : i.operands)
        if (o.kind == Operand::Kind::Special) out.insert(o.name);
    return out;
  };
  EXPECT_EQ(masks(compile_for(test, "gfx900")), std::set<std::string>{"vcc"});
  for (const char* target : {"gfx1010", "gfx1030", "gfx1100", "gfx1200"}) {
    SCOPED_TRACE(target);
    CompiledTest c = compile_for(test, target);
    EXPECT_EQ(c.wave_size, 32);
    EXPECT_EQ(masks(c), std::set<std::string>{"vcc_lo"});
    CompileOptions wave64;
    wave64.wave64 = true;
    CompiledTest c64 = compile_for(test, target, "", wave64);
    EXPECT_EQ(c64.wave_size, 64);
    EXPECT_EQ(masks(c64), std::set<std::string>{"vcc"});
  }
}

// The one counter model: per generation, what a load, a store and a returning atomic count
// in, and the wait instructions that bound counters, in that generation's syntax.
TEST(CounterModel, EachGenerationCountsAndWaitsInItsOwnCounters) {
  const TargetCatalog& catalog = TargetCatalog::builtin();
  auto ins = [](const std::string& text) {
    std::string error;
    return *parse_instruction(text, error);
  };
  auto printed = [](const std::vector<Instruction>& v) {
    std::vector<std::string> out;
    for (const Instruction& i : v) out.push_back(print(i));
    return out;
  };
  using Names = std::vector<std::string>;
  const CounterModel g9 = counter_model(catalog.get("gfx900"));
  EXPECT_EQ(g9.issued(ins("global_store_dword v0, v1, s[2:3]")), Names{"vmcnt"});
  EXPECT_EQ(g9.issued(ins("flat_store_dword v[2:3], v1")), (Names{"vmcnt", "lgkmcnt"}));
  EXPECT_EQ(printed(g9.wait_instructions({{"vmcnt", 1}, {"lgkmcnt", 0}})), Names{"s_waitcnt vmcnt(1) lgkmcnt(0)"});
  const CounterModel g10 = counter_model(catalog.get("gfx1100"));
  EXPECT_EQ(g10.names, (Names{"vmcnt", "vscnt", "lgkmcnt"}));
  EXPECT_EQ(g10.issued(ins("global_load_b32 v1, v0, s[2:3]")), Names{"vmcnt"});
  EXPECT_EQ(g10.issued(ins("global_store_b32 v0, v1, s[2:3]")), Names{"vscnt"});
  EXPECT_EQ(g10.issued(ins("global_atomic_swap_b32 v0, v1, s[2:3]")), Names{"vscnt"});  // no return
  EXPECT_EQ(g10.issued(ins("global_atomic_swap_b32 v1, v0, v2, s[2:3] glc")), Names{"vmcnt"});
  EXPECT_EQ(printed(g10.wait_instructions({{"vmcnt", 0}, {"vscnt", 2}})),
            (Names{"s_waitcnt vmcnt(0)", "s_waitcnt_vscnt null, 2"}));
  EXPECT_EQ(g10.waits(ins("s_waitcnt 0")), (std::vector<std::pair<std::string, int>>{{"vmcnt", 0}, {"lgkmcnt", 0}}));
  const CounterModel g12 = counter_model(catalog.get("gfx1200"));
  EXPECT_EQ(g12.issued(ins("global_load_b32 v1, v0, s[2:3]")), Names{"loadcnt"});
  EXPECT_EQ(g12.issued(ins("global_store_b32 v0, v1, s[2:3]")), Names{"storecnt"});
  EXPECT_EQ(g12.issued(ins("s_load_b64 s[2:3], s[0:1], 0")), Names{"kmcnt"});
  EXPECT_EQ(printed(g12.wait_instructions({{"loadcnt", 0}, {"dscnt", 1}})),
            (Names{"s_wait_loadcnt 0", "s_wait_dscnt 1"}));
  EXPECT_TRUE(g12.waits(ins("s_waitcnt vmcnt(1)")).size() == 1 && g12.slot("vmcnt") < 0);  // no vmcnt on GFX12
  // Field widths: the target's wait fields.
  EXPECT_EQ(counter_model(catalog.get("gfx803")).max_counts, (std::vector<int>{15, 15}));
  EXPECT_EQ(g9.max_counts, (std::vector<int>{63, 15}));
  EXPECT_EQ(g10.max_counts, (std::vector<int>{63, 63, 63}));
  EXPECT_EQ(g12.max_counts, (std::vector<int>{63, 63, 63, 31}));
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
