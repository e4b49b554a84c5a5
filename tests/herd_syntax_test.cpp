// What herd7 accepts, checked end to end by `hsalit check` with both engines: each construct
// of herd7's condition language (herdtools7 lib/stateParser.mly), comments holding bytes
// that are not UTF-8, and a scope tree naming a thread the test does not have. Each case
// gives the verdict and the header word herd7's HSA model gives for it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_support.hpp"

namespace {

using test_support::Outcome;

// MP whose data read is guarded by the flag (litmus/library/canonical/MP+agent+agent_diff-wg):
// its final states are 1:r0=0; 1:r1=-1; and 1:r0=1; 1:r1=1; (x ends at 1).
std::string mp(const std::string& condition, const std::string& scopes = "scopes: (agent (wg 0) (wg 1))") {
  return "LISA MP\n{ x = 0; y = 0; 1:r1 = -1; }\n"
         " P0                        | P1                         ;\n"
         " w[] x 1                   | r[atomic,scacq,agent] r0 y ;\n"
         " w[atomic,screl,agent] y 1 | mov r2 (neq r0 1)          ;\n"
         "                           | b[] r2 Skip1               ;\n"
         "                           | r[] r1 x                   ;\n"
         "                           | Skip1:                     ;\n" +
         scopes + "\n" + condition + "\n";
}

class HerdSyntax : public test_support::CliFolder {
 protected:
  // Checks `text` with each engine; both must agree. Returns the z3 engine's output.
  Outcome check(const std::string& text) {
    const std::string file = write("t.litmus", text);
    Outcome z3 = hsalit({"check", "--engine", "z3", file});
    Outcome enumerated = hsalit({"check", "--engine", "enum", file});
    EXPECT_EQ(z3.status, 0) << z3.err << text;
    EXPECT_EQ(enumerated.status, 0) << enumerated.err;
    EXPECT_EQ(without_time(z3.out), without_time(enumerated.out)) << text;
    return z3;
  }

  // Expects the verdict, the header word and the `Condition` line herd7 prints.
  void expect_herd(const std::string& condition, const std::string& kind, const std::string& verdict,
                   const std::string& printed) {
    SCOPED_TRACE(condition);
    Outcome r = check(mp(condition));
    EXPECT_NE(r.out.find("Test MP " + kind + "\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\n" + verdict + "\n"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nCondition " + printed + "\n"), std::string::npos) << r.out;
  }

  static std::string without_time(const std::string& out) { return out.substr(0, out.find("Time ")); }
};

TEST_F(HerdSyntax, Not) {
  expect_herd("exists not (1:r0=0 \\/ 1:r1=1)", "Allowed", "No", "exists (not (1:r0=0 \\/ 1:r1=1))");
  expect_herd("exists (not (1:r0=0) /\\ 1:r1=1)", "Allowed", "Ok", "exists (not (1:r0=0) /\\ 1:r1=1)");
}

TEST_F(HerdSyntax, Tilde) {
  expect_herd("exists (~1:r0=0 /\\ ~1:r1=1)", "Allowed", "No", "exists (not (1:r0=0) /\\ not (1:r1=1))");
}

TEST_F(HerdSyntax, NotExistsAndTildeExists) {
  expect_herd("~exists (1:r0=1 /\\ 1:r1=0)", "Forbidden", "Ok", "~exists (1:r0=1 /\\ 1:r1=0)");
  expect_herd("not exists (1:r0=1 /\\ 1:r1=0)", "Forbidden", "Ok", "~exists (1:r0=1 /\\ 1:r1=0)");
}

TEST_F(HerdSyntax, Implies) {
  expect_herd("forall (1:r0=1 => 1:r1=1)", "Required", "Ok", "forall (1:r0=1 => 1:r1=1)");
  expect_herd("forall (1:r0=1 => 1:r1=0)", "Required", "No", "forall (1:r0=1 => 1:r1=0)");
  // `=>` binds tighter than `/\`: this reads 1:r0=0 /\ (1:r1=-1 => x=1), which the state
  // 1:r0=1; 1:r1=1; fails; (1:r0=0 /\ 1:r1=-1) => x=1 would hold in both states.
  expect_herd("forall 1:r0=0 /\\ 1:r1=-1 => x=1", "Required", "No", "forall (1:r0=0 /\\ (1:r1=-1 => x=1))");
}

TEST_F(HerdSyntax, TrueFalseAndNestedParentheses) {
  expect_herd("forall (true)", "Required", "Ok", "forall (true)");
  expect_herd("exists false", "Allowed", "No", "exists (false)");
  expect_herd("exists (((1:r0=1)) /\\ ((true) /\\ (((1:r1=1)))))", "Allowed", "Ok",
              "exists (1:r0=1 /\\ (true /\\ 1:r1=1))");
}

TEST_F(HerdSyntax, ComparisonOperators) {
  expect_herd("exists (1:r0!=0 /\\ 1:r1<>1)", "Allowed", "No", "exists (not (1:r0=0) /\\ not (1:r1=1))");
  expect_herd("exists (1:r0==1 /\\ 1:r1==1)", "Allowed", "Ok", "exists (1:r0=1 /\\ 1:r1=1)");
}

TEST_F(HerdSyntax, AtomForms) {
  expect_herd("exists (P1:r0=1 /\\ [x]=1)", "Allowed", "Ok", "exists (1:r0=1 /\\ x=1)");
  // Two final values compared: r0 and r1 are equal in the state 1:r0=1; 1:r1=1; only.
  expect_herd("forall (1:r0=1:r1 \\/ 1:r0=0)", "Required", "Ok", "forall (1:r0=1:r1 \\/ 1:r0=0)");
  expect_herd("forall (1:r0=P1:r1)", "Required", "No", "forall (1:r0=1:r1)");
  expect_herd("forall (1:r0=1 => 1:r1=[x])", "Required", "Ok", "forall (1:r0=1 => 1:r1=[x])");
}

TEST_F(HerdSyntax, OlderConditionForms) {
  expect_herd("final (1:r0=1 /\\ 1:r1=1)", "Allowed", "Ok", "exists (1:r0=1 /\\ 1:r1=1)");
  expect_herd("(1:r0=1 /\\ 1:r1=0);", "Allowed", "No", "exists (1:r0=1 /\\ 1:r1=0)");
}

TEST_F(HerdSyntax, NoConditionIsForallTrue) {
  Outcome r = check(mp(""));
  EXPECT_NE(r.out.find("Test MP Required\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nCondition forall (true)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("warning: no final condition: read as 'forall (true)', as herd7 does"), std::string::npos)
      << r.err;
}

TEST_F(HerdSyntax, Latin1InComments) {
  // "(* café *)" and "(* Müller *)" written in ISO 8859-1, as some of herd's tests are.
  Outcome plain = check(mp("exists (1:r0=1 /\\ 1:r1=0)"));
  Outcome latin1 = check("(* caf\xe9 *)\n" + mp("exists (1:r0=1 /\\ 1:r1=0) (* M\xfcller *)"));
  EXPECT_NE(latin1.out.find("\nNo\n"), std::string::npos) << latin1.out;
  EXPECT_EQ(without_time(latin1.out), without_time(plain.out));
  // Outside a comment the same byte is an error at its position.
  Outcome bad = hsalit({"check", write("bad.litmus", "LISA MP\n\"caf\xe9\"\n" + mp("exists (1:r0=1)").substr(8))});
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("bad.litmus:2:5: error: invalid UTF-8 (byte 0xe9)"), std::string::npos) << bad.err;
}

TEST_F(HerdSyntax, ScopeTreeNamingAThreadTheTestDoesNotHave) {
  // Threads 2 and 3 do not exist: herd7 runs the test; hsalit too, with a warning, and gives
  // the verdict of the tree without them.
  Outcome r = check(mp("exists (1:r0=1 /\\ 1:r1=0)", "scopes: (agent (wg 0 2) (wg 1) (wg 3))"));
  EXPECT_NE(r.out.find("\nNo\n"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("warning: scope tree places thread 2 but the test has 2 threads: ignored, as herd7 does"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("thread 3"), std::string::npos) << r.err;
}

// herd7's text (herd/top_herd.ml): the header word of each kind of condition, the witnesses
// counted for the condition's kind, the time to two decimals and diy7's Hash repeated.
TEST_F(HerdSyntax, HerdTextOfEachKind) {
  const std::string forbid = check(mp("~exists (1:r0=1 /\\ 1:r1=0)")).out;
  EXPECT_EQ(forbid.substr(0, forbid.find("Time ")),
            "Test MP Forbidden\nStates 2\n1:r0=0; 1:r1=-1;\n1:r0=1; 1:r1=1;\nOk\nWitnesses\n"
            "Positive: 2 Negative: 0\nCondition ~exists (1:r0=1 /\\ 1:r1=0)\nObservation MP Never 0 2\n");
  const std::string require = check(mp("forall (1:r0=1 => 1:r1=1)")).out;
  EXPECT_NE(require.find("Test MP Required\n"), std::string::npos) << require;
  EXPECT_NE(require.find("Positive: 2 Negative: 0\nCondition forall (1:r0=1 => 1:r1=1)\nObservation MP Always 2 0\n"),
            std::string::npos)
      << require;
  const std::string allow = check(mp("exists (1:r0=1 /\\ 1:r1=1)")).out;
  EXPECT_NE(allow.find("Test MP Allowed\n"), std::string::npos) << allow;
  EXPECT_NE(allow.find("Positive: 1 Negative: 1\n"), std::string::npos) << allow;

  // `Time NAME 0.01`: two decimals, then diy7's Hash metadata, then an empty line.
  const std::string hashed = check("LISA MP\nHash=0123abcd\n" + mp("exists (1:r0=1)").substr(8)).out;
  const std::size_t time = hashed.find("\nTime MP ");
  ASSERT_NE(time, std::string::npos) << hashed;
  const std::string tail = hashed.substr(time + 9);
  ASSERT_GE(tail.size(), 4u) << hashed;
  EXPECT_EQ(tail.find('.'), tail.find_first_not_of("0123456789")) << hashed;
  EXPECT_EQ(tail.substr(tail.find('.') + 3), "\nHash=0123abcd\n\n") << hashed;
}

TEST_F(HerdSyntax, RunPrintsTheHeaderWordToo) {
  Outcome r = hsalit({"run", "--exhaustive", write("t.litmus", mp("~exists (1:r0=1 /\\ 1:r1=0)"))});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("Test MP Forbidden\n", 0), 0u) << r.out;
}

}  // namespace
