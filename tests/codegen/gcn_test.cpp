#include "hsalit/codegen/gcn.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

namespace hsalit::codegen {
namespace {

// Instructions of every generation, as LLVM prints them: parse, print, parse again.
TEST(Gcn, PrintParseRoundTrip) {
  const char* lines[] = {
      "global_load_dword v1, v0, s[2:3] glc",
      "global_store_dword v0, v2, s[4:5]",
      "global_atomic_swap v1, v0, v3, s[4:5] glc",
      "global_atomic_cmpswap v1, v0, v[4:5], s[2:3] glc",
      "flat_load_dword v5, v[1:2] glc slc",
      "flat_atomic_add v5, v[3:4], v7 glc",
      "buffer_load_dword v1, off, s[4:7], 0 glc",
      "buffer_load_dword v1, v2, s[4:7], 0 offen offset:16",
      "buffer_atomic_swap v1, off, s[8:11], 0 glc",
      "ds_read_b32 v1, v2",
      "ds_write_b32 v2, v3",
      "ds_cmpst_rtn_b32 v1, v2, v3, v4",
      "s_waitcnt vmcnt(0) lgkmcnt(0)",
      "s_waitcnt vmcnt(0) expcnt(0) lgkmcnt(0)",
      "s_waitcnt lgkmcnt(0)",
      "s_waitcnt_vscnt null, 0",
      "s_wait_loadcnt 0",
      "buffer_wbinvl1_vol",
      "buffer_wbinvl1",
      "buffer_inv sc0 sc1",
      "buffer_wbl2 sc1",
      "buffer_gl0_inv",
      "global_load_dword v1, v0, s[2:3] sc0 sc1",
      "global_store_dword v0, v2, s[2:3] nt sc1",
      "global_load_b32 v1, v0, s[2:3] scope:SCOPE_DEV",
      "global_atomic_swap_b32 v1, v0, v2, s[2:3] th:TH_ATOMIC_RETURN scope:SCOPE_SYS",
      "global_inv scope:SCOPE_DEV",
      "global_load_dword v1, v0, s[2:3] glc dlc",
      "v_mov_b32_e32 v1, 42",
      "v_mov_b32_e32 v1, 0x12345678",
      "v_cmp_ne_u32_e32 vcc, 0, v3",
      "s_cbranch_vccnz P1_Skip",
      "s_mov_b32 m0, -1",
      "s_barrier",
      "s_endpgm",
      "s_delay_alu instid0(VALU_DEP_3) | instskip(NEXT) | instid1(VALU_DEP_3)",
      "s_delay_alu instid0(SALU_CYCLE_1)",
      "s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)",
      "s_wait_loadcnt_dscnt 0",
      "v_cmpx_eq_u32_e32 1, v1",
      "v_pk_mov_b32 v[0:1], s[2:3], s[2:3] op_sel:[0,1]",
      "s_wait_alu depctr_sa_sdst(0)",
  };
  for (const char* line : lines) {
    std::string error;
    auto ins = parse_instruction(line, error);
    ASSERT_TRUE(ins) << line << ": " << error;
    EXPECT_EQ(print(*ins), line);
    auto again = parse_instruction(print(*ins), error);
    ASSERT_TRUE(again);
    EXPECT_EQ(*again, *ins) << line;
  }
}

// append_key tells instructions apart exactly as operator== does (the bound's code classes
// and the simulation memo compare code by it): over instructions that differ in one field
// each (mnemonic, operand kind, register, range, immediate, special name, each cache bit,
// temporal hint, scope, each wait counter, offset, flags), and in the origin only with
// KeyOrigin::Instruction or Row.
TEST(Gcn, KeysAreEqualExactlyForEqualInstructions) {
  const char* lines[] = {
      "global_load_dword v1, v0, s[2:3]",
      "global_load_dword v1, v0, s[2:3] glc",
      "global_load_dword v1, v0, s[2:3] slc",
      "global_load_dword v1, v0, s[2:3] glc dlc",
      "global_load_dword v1, v0, s[2:3] sc0",
      "global_load_dword v1, v0, s[2:3] sc1",
      "global_load_dword v1, v0, s[2:3] nt",
      "global_load_dword v2, v0, s[2:3]",
      "global_load_dword v1, v0, s[4:5]",
      "global_load_dword v1, v0, s[2:3] offset:4",
      "global_store_dword v0, v1, s[2:3]",
      "buffer_load_dword v1, v2, s[4:7], 0 offen",
      "buffer_load_dword v1, v2, s[4:7], 0 idxen",
      "buffer_load_dword v1, off, s[4:7], 0",
      "global_load_b32 v1, v0, s[2:3] scope:SCOPE_DEV",
      "global_load_b32 v1, v0, s[2:3] scope:SCOPE_SYS",
      "global_load_b32 v1, v0, s[2:3] th:TH_LOAD_NT",
      "s_waitcnt vmcnt(0)",
      "s_waitcnt vmcnt(1)",
      "s_waitcnt lgkmcnt(0)",
      "s_waitcnt expcnt(0)",
      "s_waitcnt vmcnt(0) lgkmcnt(0)",
      "v_mov_b32_e32 v1, 42",
      "v_mov_b32_e32 v1, 43",
      "v_cmp_ne_u32_e32 vcc, 0, v3",
      "s_mov_b32 m0, -1",
      "s_mov_b32 exec, -1",
  };
  std::vector<Instruction> all;
  for (const char* line : lines) {
    std::string error;
    auto ins = parse_instruction(line, error);
    ASSERT_TRUE(ins) << line << ": " << error;
    all.push_back(*ins);
  }
  auto key = [](const Instruction& ins, KeyOrigin origin) {
    std::string k;
    append_key(k, ins, origin);
    return k;
  };
  for (const Instruction& a : all)
    for (const Instruction& b : all)
      EXPECT_EQ(key(a, KeyOrigin::None) == key(b, KeyOrigin::None), a == b) << print(a) << " | " << print(b);
  // Keys of a sequence do not run into each other: [a, b] differs from every other pair.
  std::set<std::string> pairs;
  for (const Instruction& a : all)
    for (const Instruction& b : all) pairs.insert(key(a, KeyOrigin::None) + key(b, KeyOrigin::None));
  EXPECT_EQ(pairs.size(), all.size() * all.size());

  Instruction from = all.front(), other_thread = from, other_row = from;
  from.origin = {0, 1, "load-global-agent", "access"};
  other_thread.origin = {1, 1, "load-global-agent", "access"};
  other_row.origin = {0, 1, "load-global-system", "access"};
  EXPECT_EQ(key(from, KeyOrigin::None), key(other_thread, KeyOrigin::None));
  EXPECT_NE(key(from, KeyOrigin::Instruction), key(other_thread, KeyOrigin::Instruction));
  EXPECT_EQ(key(from, KeyOrigin::Instruction), key(other_row, KeyOrigin::Instruction));
  EXPECT_NE(key(from, KeyOrigin::Row), key(other_row, KeyOrigin::Row));
}

TEST(Gcn, ParsesFieldsIntoTheirPlaces) {
  std::string error;
  auto ins = parse_instruction("global_atomic_cmpswap v1, v0, v[4:5], s[2:3] offset:8 glc slc", error);
  ASSERT_TRUE(ins);
  EXPECT_EQ(ins->kind(), InstrClass::VectorAtomic);
  ASSERT_EQ(ins->operands.size(), 4u);
  EXPECT_EQ(ins->operands[2], Operand::vgpr(4, 2));
  EXPECT_EQ(ins->operands[3], Operand::sgpr(2, 2));
  EXPECT_EQ(ins->offset, 8);
  EXPECT_TRUE(ins->policy.glc);
  EXPECT_TRUE(ins->policy.slc);
  EXPECT_FALSE(ins->policy.dlc);
  auto wait = parse_instruction("s_waitcnt vmcnt(0) & lgkmcnt(1)", error);
  ASSERT_TRUE(wait);
  EXPECT_EQ(wait->wait.vmcnt, 0);
  EXPECT_EQ(wait->wait.lgkmcnt, 1);
  EXPECT_FALSE(wait->wait.expcnt);
}

TEST(Gcn, ClassifiesByMnemonic) {
  EXPECT_EQ(classify("buffer_load_dword"), InstrClass::VectorLoad);
  EXPECT_EQ(classify("flat_store_dwordx2"), InstrClass::VectorStore);
  EXPECT_EQ(classify("global_atomic_add_x2"), InstrClass::VectorAtomic);
  EXPECT_EQ(classify("ds_read_b32"), InstrClass::LdsLoad);
  EXPECT_EQ(classify("ds_load_b32"), InstrClass::LdsLoad);
  EXPECT_EQ(classify("ds_write_b64"), InstrClass::LdsStore);
  EXPECT_EQ(classify("ds_storexchg_rtn_b32"), InstrClass::LdsAtomic);
  EXPECT_EQ(classify("ds_add_rtn_u32"), InstrClass::LdsAtomic);
  EXPECT_EQ(classify("buffer_wbinvl1_vol"), InstrClass::CacheInvalidate);
  EXPECT_EQ(classify("buffer_invl2"), InstrClass::CacheInvalidate);
  EXPECT_EQ(classify("global_inv"), InstrClass::CacheInvalidate);
  EXPECT_EQ(classify("buffer_wbl2"), InstrClass::CacheWriteback);
  EXPECT_EQ(classify("global_wb"), InstrClass::CacheWriteback);
  EXPECT_EQ(classify("s_waitcnt_vscnt"), InstrClass::Wait);
  EXPECT_EQ(classify("s_wait_storecnt"), InstrClass::Wait);
  EXPECT_EQ(classify("s_barrier"), InstrClass::Barrier);
  EXPECT_EQ(classify("s_cbranch_vccnz"), InstrClass::Branch);
  EXPECT_EQ(classify("s_endpgm"), InstrClass::EndProgram);
  EXPECT_EQ(classify("v_add_u32_e32"), InstrClass::Alu);
  EXPECT_EQ(classify("P0_L:"), InstrClass::Label);
}

TEST(Gcn, ParsesProgramsSkippingCommentsAndDirectivesAndReportsErrorsByLine) {
  ParsedProgram p = parse_assembly(
      "\t.text\n"
      "P0_entry:\n"
      "  global_load_dword v1, v0, s[2:3] glc   ; a comment\n"
      "  // a line comment\n"
      "  s_waitcnt vmcnt(0)\n"
      "  buffer_wbinvl1_vol\n"
      "  v_mov_b32 v1, @bad\n");
  ASSERT_EQ(p.instructions.size(), 4u);
  EXPECT_EQ(p.instructions[0].kind(), InstrClass::Label);
  EXPECT_EQ(p.instructions[1].kind(), InstrClass::VectorLoad);
  ASSERT_EQ(p.errors.size(), 1u);
  EXPECT_EQ(p.errors[0], "line 7: cannot read operand '@bad'");
}

// llc's wave32 code for GFX11 and later pairs VALU instructions into dual-issue VOPD lines.
TEST(Gcn, ReadsADualIssuePairAsItsTwoInstructions) {
  ParsedProgram p = parse_assembly("  v_dual_mov_b32 v0, s0 :: v_dual_mov_b32 v1, s1\n  s_endpgm\n");
  EXPECT_TRUE(p.errors.empty()) << p.errors.front();
  ASSERT_EQ(p.instructions.size(), 3u);
  EXPECT_EQ(print(p.instructions[0]), "v_mov_b32 v0, s0");
  EXPECT_EQ(print(p.instructions[1]), "v_mov_b32 v1, s1");
}

// Fields written as calls are kept, each in its place; a word that is neither a register, a
// known modifier nor a branch's label is refused (an unknown cache bit dropped in silence could
// change what the access does).
TEST(Gcn, ReadsCallFieldsAndRefusesUnknownWords) {
  std::string error;
  auto delay = parse_instruction("s_delay_alu instid0(VALU_DEP_2) | instskip(SKIP_2) | instid1(VALU_DEP_1)", error);
  ASSERT_TRUE(delay) << error;
  EXPECT_TRUE(delay->operands.empty());
  EXPECT_EQ(delay->flags, (std::vector<std::string>{"instid0(VALU_DEP_2)", "instskip(SKIP_2)", "instid1(VALU_DEP_1)"}));
  auto message = parse_instruction("s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)", error);
  ASSERT_TRUE(message) << error;
  EXPECT_EQ(message->flags, std::vector<std::string>{"sendmsg(MSG_DEALLOC_VGPRS)"});
  auto branch = parse_instruction("s_cbranch_execz .LBB1_2", error);
  ASSERT_TRUE(branch) << error;
  EXPECT_EQ(branch->operands, std::vector<Operand>{Operand::label(".LBB1_2")});

  EXPECT_FALSE(parse_instruction("global_load_dword v1, v0, s[2:3] nv", error));
  EXPECT_EQ(error, "unknown modifier or operand 'nv'");
  EXPECT_FALSE(parse_instruction("s_waitcnt vmcnt(0) depctr(0)", error));
  EXPECT_EQ(error, "unknown wait counter 'depctr(0)'");
  EXPECT_FALSE(parse_instruction("s_wait_loadcnt depctr_sa_sdst(0)", error));
  EXPECT_FALSE(parse_instruction("v_add_f32 v0, |v1|, v2", error));
  EXPECT_EQ(error, "cannot read operand '|v1|'");
}

TEST(Gcn, RejectsMalformedRegistersAndOffsets) {
  std::string error;
  EXPECT_FALSE(parse_instruction("global_load_dword v1, v0, s[3:2]", error));
  EXPECT_FALSE(parse_instruction("global_load_dword v1, v0, s[2:3] offset:x", error));
  EXPECT_EQ(error, "bad offset 'offset:x'");
  EXPECT_FALSE(parse_instruction("P0: global_load_dword v1", error));
  EXPECT_EQ(error, "a label stands alone on its line");
}

}  // namespace
}  // namespace hsalit::codegen
