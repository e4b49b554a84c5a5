// verify-llc (docs/verification.md, "The real compiler (verify-llc)"): llc's code turned into a
// simulator program (codegen/llc_program.hpp) and judged against the model.
#include "hsalit/verify/verify_llc.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <set>

#include "hsalit/codegen/llc_program.hpp"
#include "hsalit/codegen/mapping.hpp"
#include "hsalit/litmus/parser.hpp"
#include "litmus_support.hpp"

namespace hsalit::verify {
namespace {

litmus::Test library_test(const std::string& relative) {
  return observe_everything(test_support::library_test(relative));
}

// The newest llc installed, or nullopt (the tests that need one are skipped).
std::optional<codegen::LlcTool> any_llc() {
  for (const char* name : {"llc-19", "llc-16", "llc-14", "llc"}) {
    try {
      return codegen::find_llc(name);
    } catch (const codegen::LlcError&) {
    }
  }
  return std::nullopt;
}

const codegen::Target& gfx900() { return *codegen::TargetCatalog::builtin().find("gfx900"); }

std::set<runner::SimOutcome> outcomes(const litmus::Test& test, const codegen::CompiledTest& compiled) {
  runner::SimResult r = runner::run_exhaustive(test, compiled);
  EXPECT_FALSE(r.unknown) << *r.unknown;
  std::set<runner::SimOutcome> out;
  for (const auto& [o, n] : r.histogram) out.insert(o);
  return out;
}

codegen::CompiledTest table_compiled(const litmus::Test& test) {
  return codegen::compile(test, gfx900(), codegen::TargetCatalog::builtin(), codegen::MappingTable::builtin("gfx6-9"));
}

// llc's code for message passing reaches exactly the final states of the table's code: the
// uniform branch (MP+agent+agent), the divergent one with exec masking (the rmw-acquire MP),
// and LDS addresses laid out per kernel by llc (the work-group MP on group locations).
TEST(VerifyLlc, LlcMessagePassingRunsLikeTheTables) {
  auto llc = any_llc();
  if (!llc) GTEST_SKIP() << "no llc installed (Debian package llvm-19)";
  for (const char* name : {"canonical/MP+agent+agent_diff-wg.litmus",
                           "classic/MP+xchg-rel+rmw-acq-agent_diff-wg.litmus", "spec/HSA-3.13.1.2_MP-wg.litmus"}) {
    SCOPED_TRACE(name);
    litmus::Test test = library_test(name);
    codegen::LlcResult r = codegen::compile_via_llc(test, gfx900(), *llc);
    codegen::CompiledTest program = codegen::to_compiled_test(r, test);
    ASSERT_EQ(program.threads.size(), test.threads.size());
    EXPECT_EQ(outcomes(test, program), outcomes(test, table_compiled(test)));
  }
}

// GFX10 and later: llc's code in the target's default wave32 (vcc_lo, single-SGPR masks,
// s_and_saveexec_b32 ... s_or_b32 exec_lo) reaches the final states of its wave64 code, for a
// uniform branch, divergent exec masking and control dependencies.
TEST(VerifyLlc, Wave32CodeRunsLikeWave64Code) {
  auto llc = any_llc();
  if (!llc || llc->version < 19) GTEST_SKIP() << "llc-19 not installed (Debian package llvm-19)";
  const codegen::Target& gfx1030 = codegen::TargetCatalog::builtin().get("gfx1030");
  codegen::Target wave64 = gfx1030;
  wave64.assembler_flags.push_back("-mattr=+wavefrontsize64");
  bool wave32_masks = false;
  for (const char* name :
       {"canonical/MP+agent+agent_diff-wg.litmus", "classic/MP+xchg-rel+rmw-acq-agent_diff-wg.litmus",
        "canonical/LB+ctrls-ordinary_diff-wg.litmus"}) {
    SCOPED_TRACE(name);
    litmus::Test test = library_test(name);
    codegen::LlcResult r32 = codegen::compile_via_llc(test, gfx1030, *llc);
    codegen::LlcResult r64 = codegen::compile_via_llc(test, wave64, *llc);
    for (const codegen::LlcThread& t : r32.threads)
      for (const codegen::Instruction& i : t.code)
        for (const codegen::Operand& o : i.operands)
          wave32_masks |= o.kind == codegen::Operand::Kind::Special && (o.name == "vcc_lo" || o.name == "exec_lo");
    const std::set<runner::SimOutcome> reached = outcomes(test, codegen::to_compiled_test(r32, test));
    EXPECT_FALSE(reached.empty());
    EXPECT_EQ(reached, outcomes(test, codegen::to_compiled_test(r64, test)));
  }
  EXPECT_TRUE(wave32_masks) << "llc's gfx1030 code names no wave32 lane mask";
}

TEST(VerifyLlc, FindsTheScOrdersFindingAndPassesMessagePassing) {
  auto llc = any_llc();
  if (!llc) GTEST_SKIP() << "no llc installed (Debian package llvm-19)";
  VerificationCache cache;
  LlcVerifyOptions options;
  // docs/mappings.md finding 1: scacq/screl as acquire/release allow SB.
  TestVerification sb = verify_via_llc(library_test("classic/SB+sc-system_diff-agent.litmus"), *llc, options, cache);
  EXPECT_EQ(sb.status, TestStatus::Counterexample) << sb.reason;
  ASSERT_TRUE(sb.counterexample);
  EXPECT_NE(sb.counterexample->outcome.find("0:r0=0; 1:r0=0;"), std::string::npos) << sb.counterexample->outcome;
  EXPECT_FALSE(sb.counterexample->trace.empty());
  EXPECT_FALSE(sb.counterexample->rows.empty());  // which llc instruction implements each access

  TestVerification mp = verify_via_llc(library_test("canonical/MP+agent+agent_diff-wg.litmus"), *llc, options, cache);
  EXPECT_EQ(mp.status, TestStatus::Sound) << mp.reason;

  // With the seq_cst orderings the SB outcome is gone.
  options.ir.sc_orders = true;
  TestVerification sc = verify_via_llc(library_test("classic/SB+sc-system_diff-agent.litmus"), *llc, options, cache);
  EXPECT_EQ(sc.status, TestStatus::Sound) << sc.reason;
}

// An instruction the simulator does not model makes the verdict unknown, naming it (never a
// silent result). No llc needed: the table's code with one foreign instruction.
TEST(VerifyLlc, UnsupportedInstructionIsUnknown) {
  litmus::Test test = library_test("canonical/MP+agent+agent_diff-wg.litmus");
  codegen::CompiledTest program = table_compiled(test);
  std::string error;
  auto foreign = codegen::parse_instruction("v_mbcnt_lo_u32_b32 v9, -1, 0", error);
  ASSERT_TRUE(foreign) << error;
  auto& code = program.threads[1].code;
  code.insert(code.end() - 1, *foreign);
  VerificationCache cache;
  TestVerification v = verify_compiled(test, program, {}, {}, cache);
  EXPECT_EQ(v.status, TestStatus::Unknown);
  EXPECT_NE(v.reason.find("the simulator cannot execute"), std::string::npos) << v.reason;
  EXPECT_NE(v.reason.find("v_mbcnt_lo_u32_b32"), std::string::npos) << v.reason;

  // Exec masking outside llc's if-then shape is refused too.
  program = table_compiled(test);
  auto exec = codegen::parse_instruction("s_mov_b64 exec, 0", error);
  ASSERT_TRUE(exec) << error;
  program.threads[1].code.insert(program.threads[1].code.begin(), *exec);
  v = verify_compiled(test, program, {}, {}, cache);
  EXPECT_EQ(v.status, TestStatus::Unknown);
  EXPECT_NE(v.reason.find("exec"), std::string::npos) << v.reason;
}

// Shapes the conversion refuses are errors that say why, not programs that run wrongly.
TEST(VerifyLlc, ConversionRejectsOutputWithoutMarkers) {
  litmus::Test test = library_test("canonical/MP+agent+agent_diff-wg.litmus");
  codegen::LlcResult r;
  r.llc = "llc-test";
  r.target = "gfx900";
  r.assembly = "P0:\n\ts_endpgm\n.Lfunc_end0:\n";
  r.threads.resize(1);
  try {
    codegen::to_compiled_test(r, test);
    FAIL() << "converted a kernel without markers";
  } catch (const codegen::CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("marker"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hsalit::verify
