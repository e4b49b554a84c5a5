#include "hsalit/litmus/scope_tree.hpp"

#include <gtest/gtest.h>

#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/printer.hpp"

namespace hsalit::litmus {
namespace {

// Parses a two-or-more-thread skeleton with the given scopes line.
ScopeTree tree_of(int threads, const std::string& scopes) {
  std::string text = "LISA T\n{ x = 0; }\n";
  for (int t = 0; t < threads; ++t) text += (t ? " | P" : " P") + std::to_string(t);
  text += " ;\n";
  for (int t = 0; t < threads; ++t) text += (t ? " | " : " ") + std::string("r[] r0 x");
  text += " ;\n" + scopes + "\nexists (0:r0=0)\n";
  ParseResult r = parse_litmus(text);
  EXPECT_TRUE(r.ok()) << r.diagnostics.render("tree");
  return r.ok() ? r.test->scopes : ScopeTree{};
}

TEST(ScopeTree, SameWorkGroupSharesWorkGroupAndAgentButNotWave) {
  ScopeTree t = tree_of(2, "scopes: (agent (wg 0 1))");
  EXPECT_TRUE(t.same_instance(0, 1, Scope::WorkGroup));
  EXPECT_TRUE(t.same_instance(0, 1, Scope::Agent));
  EXPECT_FALSE(t.same_instance(0, 1, Scope::Wavefront));  // skipped level: each its own wave
  EXPECT_EQ(t.common_scope(0, 1), Scope::WorkGroup);
}

TEST(ScopeTree, SkippedLevelAboveAGroupIsSharedByTheGroup) {
  // A top-level wg sits in its own agent; threads inside it share that agent.
  ScopeTree t = tree_of(4, "scopes: (agent (wg 0) (wg 1 2)) (wg 3)");
  EXPECT_TRUE(t.same_instance(0, 1, Scope::Agent));
  EXPECT_FALSE(t.same_instance(0, 3, Scope::Agent));
  EXPECT_FALSE(t.same_instance(0, 1, Scope::WorkGroup));
  EXPECT_TRUE(t.same_instance(1, 2, Scope::WorkGroup));
  EXPECT_EQ(t.common_scope(0, 3), Scope::System);
}

TEST(ScopeTree, OneInstanceHoldsEveryThreadOrNot) {
  ScopeTree same = tree_of(3, "scopes: (agent (wg 0 1 2))");
  EXPECT_TRUE(same.one_instance(Scope::WorkGroup));
  EXPECT_TRUE(same.one_instance(Scope::Agent));
  EXPECT_FALSE(same.one_instance(Scope::Wavefront));
  ScopeTree split = tree_of(3, "scopes: (agent (wg 0 1) (wg 2))");
  EXPECT_FALSE(split.one_instance(Scope::WorkGroup));
  EXPECT_TRUE(split.one_instance(Scope::Agent));
  EXPECT_TRUE(tree_of(1, "scopes: (agent (wg 0))").one_instance(Scope::Wavefront));
}

TEST(ScopeTree, ExplicitWavesAndWorkItems) {
  ScopeTree t = tree_of(3, "scopes: (system (agent (wg (wave (wi P0)) (wave (wi P1) (wi P2)))))");
  EXPECT_FALSE(t.same_instance(0, 1, Scope::Wavefront));
  EXPECT_TRUE(t.same_instance(1, 2, Scope::Wavefront));
  EXPECT_FALSE(t.same_instance(1, 2, Scope::WorkItem));
  EXPECT_EQ(t.common_scope(0, 1), Scope::WorkGroup);
}

TEST(ScopeTree, DefaultTreePutsEachThreadInItsOwnWorkGroupOfOneAgent) {
  ScopeTree t = ScopeTree::default_for(3);
  DiagnosticList d;
  ASSERT_TRUE(t.resolve(3, d));
  EXPECT_TRUE(t.is_default());
  EXPECT_EQ(t.common_scope(0, 2), Scope::Agent);
}

TEST(ScopeTree, RejectsTwicePlacedMissingAndWideningThreads) {
  struct Case {
    int threads;
    const char* scopes;
    const char* message;
  };
  const Case cases[] = {
      {2, "scopes: (agent (wg 0 0 1))", "places thread 0 twice"},
      {2, "scopes: (agent (wg 0))", "does not place thread 1"},
      {2, "scopes: (wg (agent 0 1))", "levels must narrow"},
      {2, "scopes: (agent (wi 0 1))", "holds exactly one thread"},
  };
  for (const Case& c : cases) {
    std::string text = "LISA T\n{ x = 0; }\n P0 | P1 ;\n r[] r0 x | r[] r0 x ;\n";
    text += std::string(c.scopes) + "\nexists (0:r0=0)\n";
    ParseResult r = parse_litmus(text);
    EXPECT_FALSE(r.ok()) << c.scopes;
    EXPECT_NE(r.diagnostics.render("t").find(c.message), std::string::npos) << c.scopes << "\n"
                                                                            << r.diagnostics.render("t");
  }
}

TEST(ScopeTree, ThreadsTheTestDoesNotHaveAreDroppedWithAWarning) {
  // herd7 runs a test whose scope tree names more threads than it has; so does hsalit.
  std::string text = "LISA T\n{ x = 0; }\n P0 | P1 ;\n r[] r0 x | r[] r0 x ;\n";
  ParseResult r = parse_litmus(text + "scopes: (agent (wg 0 2) (wg 1 3) (wg 4 (wave 5)))\nexists (0:r0=0)\n");
  ASSERT_TRUE(r.ok()) << r.diagnostics.render("t");
  const std::string rendered = r.diagnostics.render("t");
  EXPECT_NE(rendered.find("t:5:16: warning: scope tree places thread 2 but the test has 2 threads: ignored, as "
                          "herd7 does"),
            std::string::npos)
      << rendered;
  for (const char* thread : {"thread 3 ", "thread 4 ", "thread 5 "})
    EXPECT_NE(rendered.find(thread), std::string::npos) << rendered;
  // What is left is the tree without them, and the groups that held only them are gone.
  ParseResult same = parse_litmus(text + "scopes: (agent (wg 0) (wg 1))\nexists (0:r0=0)\n");
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(r.test->scopes, same.test->scopes);
  EXPECT_EQ(r.test->scopes.common_scope(0, 1), Scope::Agent);
  EXPECT_EQ(print_litmus(*r.test), print_litmus(*same.test));
}

}  // namespace
}  // namespace hsalit::litmus
