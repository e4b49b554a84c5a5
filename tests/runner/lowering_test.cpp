// relower_thread (runner/src/sim_program.hpp): lowering one thread again into a program lowered
// before gives the program a whole lowering gives, instruction for instruction; a program another
// LoweredProgram shares is copied first; a test with other locations is lowered whole.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/runner/sim.hpp"
#include "litmus_support.hpp"
#include "mapping_support.hpp"
#include "sim_program.hpp"

namespace hsalit::runner {
namespace {

using test_support::parse;

// Message passing with P0's second store of order `order`, on locations `x` and `y`: with the
// same locations, two tests of one space whose P0 code differs (a relaxed store, or a
// release, which has a wait or a writeback before it); with others, lowered whole.
litmus::Test mp(const std::string& order, const std::string& x, const std::string& y) {
  return parse(fmt::format(R"(LISA MP-{0}-{1}{2}
{{ {1}=0; {2}=0; }}
 P0                           | P1                           ;
 w[atomic,rlx,agent] {1} 1    | r[atomic,scacq,agent] r0 {2} ;
 w[atomic,{0},agent] {2} 1    | r[atomic,rlx,agent] r1 {1}   ;
scopes: (agent (wg 0) (wg 1))
exists (1:r0=1 /\ 1:r1=0)
)",
                           order, x, y));
}

class Relower : public ::testing::TestWithParam<std::string> {};

TEST_P(Relower, GivesTheProgramAWholeLoweringGives) {
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const codegen::Target& target = catalog.get(GetParam());
  const codegen::MappingTable& table = codegen::MappingTable::builtin(target.mapping);
  const litmus::Test relaxed = mp("rlx", "x", "y"), release = mp("screl", "x", "y"), other = mp("screl", "a", "b");
  codegen::CompiledTest compiled = test_support::compile_for(relaxed, GetParam());
  LoweredProgram lowered = lower_program(relaxed, compiled);
  const LoweredProgram before = lowered;  // shares the program: relower_thread copies it first
  const std::size_t relaxed_p0 = before.program().threads[0].code.size();

  compiled.threads[0] = codegen::compile_thread(release, 0, target, catalog, table);
  relower_thread(lowered, release, compiled, 0);
  EXPECT_NE(&lowered.program(), &before.program());
  EXPECT_EQ(before.program().threads[0].code.size(), relaxed_p0);
  EXPECT_TRUE(lowered.program() == lower_program(release, compiled).program());
  // The release store's code differs from the relaxed one's (a release has a wait or a
  // writeback before it), so the comparison above saw the new thread.
  EXPECT_FALSE(lowered.program().threads[0] == before.program().threads[0]);

  compiled.threads[0] = codegen::compile_thread(other, 0, target, catalog, table);
  compiled.threads[1] = codegen::compile_thread(other, 1, target, catalog, table);
  relower_thread(lowered, other, compiled, 0);
  EXPECT_TRUE(lowered.program() == lower_program(other, compiled).program());
}

INSTANTIATE_TEST_SUITE_P(Targets, Relower, ::testing::Values("gfx900", "gfx942", "gfx1030", "gfx1200"));

}  // namespace
}  // namespace hsalit::runner
