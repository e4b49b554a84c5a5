// herd's C litmus format (docs/litmus-c.md): each construct lowers to the LISA test written
// beside it, and every error names its position.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "hsalit/litmus/parser.hpp"
#include "hsalit/litmus/printer.hpp"

namespace hsalit::litmus {
namespace {

std::string lines(std::initializer_list<const char*> ls) {
  std::string out;
  for (const char* l : ls) out += std::string(l) + "\n";
  return out;
}

struct Lowering {
  const char* name;
  std::string c;
  std::string lisa;  // the test the C text must equal
};

std::ostream& operator<<(std::ostream& os, const Lowering& l) { return os << l.name; }

const Lowering kLowerings[] = {
    {"DefaultsAreSeqCstDeviceScopeOneWorkGroupEach",
     lines({"C T", "{ x = 0; y = 0; }", "P0(atomic_int* x, atomic_int* y) {", "  atomic_store(x, 1);",
            "  atomic_store_explicit(y, 1, memory_order_relaxed);", "}", "P1(atomic_int* x, atomic_int* y) {",
            "  int r0 = atomic_load(y);", "  int r1 = atomic_load_explicit(x, memory_order_acquire);", "}",
            "exists (1:r0=1 /\\ 1:r1=0)"}),
     lines({"LISA T", "{ x = 0; y = 0; }", " P0 | P1 ;",
            " w[atomic,scar,sc,agent] x 1 | r[atomic,scar,sc,agent] r0 y ;",
            " w[atomic,rlx,agent] y 1 | r[atomic,scacq,agent] r1 x ;", "exists (1:r0=1 /\\ 1:r1=0)"})},
    {"MemoryOrders",
     lines({"C T", "{ x = 0; }", "P0(atomic_int* x) {",
            "  int r0 = atomic_fetch_add_explicit(x, 1, memory_order_relaxed);",
            "  int r1 = atomic_fetch_add_explicit(x, 1, memory_order_acquire);",
            "  int r2 = atomic_fetch_add_explicit(x, 1, memory_order_release);",
            "  int r3 = atomic_fetch_add_explicit(x, 1, memory_order_acq_rel);",
            "  int r4 = atomic_fetch_add_explicit(x, 1, memory_order_seq_cst);", "}", "exists (0:r0=0)"}),
     lines({"LISA T", "{ x = 0; }", " P0 ;", " rmw[atomic,rlx,agent] r0 (add r0 1) x ;",
            " rmw[atomic,scacq,agent] r1 (add r1 1) x ;", " rmw[atomic,screl,agent] r2 (add r2 1) x ;",
            " rmw[atomic,scar,agent] r3 (add r3 1) x ;", " rmw[atomic,scar,sc,agent] r4 (add r4 1) x ;",
            "exists (0:r0=0)"})},
    {"MemoryScopes",
     lines({"C T", "{ x = 0; }", "P0(atomic_int* x) {",
            "  atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_work_item);",
            "  atomic_store_explicit(x, 2, memory_order_relaxed, memory_scope_work_group);",
            "  atomic_store_explicit(x, 3, memory_order_relaxed, memory_scope_device);",
            "  atomic_store_explicit(x, 4, memory_order_relaxed, memory_scope_all_svm_devices);",
            "  atomic_store_explicit(x, 5, memory_order_relaxed);", "}", "exists (x=5)"}),
     lines({"LISA T", "{ x = 0; }", " P0 ;", " w[atomic,rlx,wave] x 1 ;", " w[atomic,rlx,wg] x 2 ;",
            " w[atomic,rlx,agent] x 3 ;", " w[atomic,rlx,system] x 4 ;", " w[atomic,rlx,agent] x 5 ;",
            "exists (x=5)"})},
    {"PlainAccessesAndRegisters",
     lines({"C T", "{ x = 0; y = 0; }", "P0(int* x, volatile global int* y) {", "  int r0 = *x;", "  int r1 = -1;",
            "  r1 = r0 + 2;", "  int r2 = r1 == r0;", "  *y = r1;", "  *x = 7;", "}", "exists (0:r0=0)"}),
     lines({"LISA T", "{ x = 0; y = 0; }", " P0 ;", " r[] r0 x ;", " mov r1 -1 ;", " mov r1 (add r0 2) ;",
            " mov r2 (eq r1 r0) ;", " w[] y r1 ;", " w[] x 7 ;", "exists (0:r0=0)"})},
    {"ExchangeAndFetchOperationsWithoutAResult",
     lines({"C T", "{ x = 0; }", "P0(atomic_int* x) {",
            "  int r0 = atomic_exchange_explicit(x, 3, memory_order_release, memory_scope_work_group);",
            "  atomic_fetch_sub(x, 1);", "  atomic_fetch_and_explicit(x, r0, memory_order_relaxed);",
            "  atomic_fetch_or(x, 8);", "  atomic_fetch_xor(x, 1);", "}", "exists (0:r0=0)"}),
     lines({"LISA T", "{ x = 0; }", " P0 ;", " rmw[atomic,screl,wg] r0 3 x ;",
            " rmw[atomic,scar,sc,agent] %T0 (sub %T0 1) x ;", " rmw[atomic,rlx,agent] %T1 (and %T1 r0) x ;",
            " rmw[atomic,scar,sc,agent] %T2 (or %T2 8) x ;", " rmw[atomic,scar,sc,agent] %T3 (xor %T3 1) x ;",
            "exists (0:r0=0)"})},
    {"CompareExchangeReadsAndWritesBackTheExpectedLocation",
     lines({"C T", "{ x = 0; e = 0; }", "P0(atomic_int* x, int* e) {",
            "  int r0 = atomic_compare_exchange_strong_explicit(x, e, 1, memory_order_acquire, "
            "memory_order_relaxed, memory_scope_work_group);",
            "}", "exists (0:r0=1)"}),
     lines({"LISA T", "{ x = 0; e = 0; }", " P0 ;", " r[] %T0 e ;", " rmw[cas,atomic,scacq,wg] %T1 %T0 1 x ;",
            " mov r0 (eq %T1 %T0) ;", " b[eq] %T1, %T0, L0 ;", " w[] e %T1 ;", " L0: ;", "exists (0:r0=1)"})},
    {"Fences",
     lines({"C T", "{ x = 0; }", "P0(atomic_int* x) {", "  atomic_thread_fence(memory_order_seq_cst);",
            "  atomic_thread_fence(memory_order_relaxed);",
            "  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, memory_order_release, memory_scope_work_group);",
            "  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE, memory_order_acquire, "
            "memory_scope_all_svm_devices);",
            "  atomic_store(x, 1);", "}", "exists (x=1)"}),
     lines({"LISA T", "{ x = 0; }", " P0 ;", " f[scar,sc,agent] ;", " f[screl,wg,global] ;", " f[scacq,system] ;",
            " w[atomic,scar,sc,agent] x 1 ;", "exists (x=1)"})},
    {"IfAndElseAreForwardBranches",
     lines({"C T", "{ x = 0; }", "P0(atomic_int* x) {", "  int r0 = atomic_load(x);", "  int r1 = 0;",
            "  if (r0 == 1) { r1 = 1; } else { r1 = 2; }", "  if (1 != r0) r1 = 3;", "  if (r0) { *x = 4; }", "}",
            "exists (0:r1=1)"}),
     lines({"LISA T", "{ x = 0; }", " P0 ;", " r[atomic,scar,sc,agent] r0 x ;", " mov r1 0 ;", " b[ne] r0, 1, L0 ;",
            " mov r1 1 ;", " b[] L1 ;", " L0: ;", " mov r1 2 ;", " L1: ;", " b[eq] r0, 1, L2 ;", " mov r1 3 ;",
            " L2: ;", " b[eq] r0, 0, L3 ;", " w[] x 4 ;", " L3: ;", "exists (0:r1=1)"})},
    {"InitialStateFormsAndLocalMemory",
     lines({"C T", "{ [x] = 1; int y = 2; global atomic_int z = 3; local int w = 4; }",
            "P0(global atomic_int* x, atomic_int* y, atomic_int* z, local int* w) {", "  int r0 = *w;", "}",
            "exists (0:r0=4)"}),
     lines(
         {"LISA T", "{ x = 1; y = 2; z = 3; w = 4; }", " P0 ;", " r[] r0 w ;", "regions: w:group", "exists (0:r0=4)"})},
    {"PlacementBuildsTheScopeTree",
     lines({"OpenCL T", "\"a description\"", "{ x = 0; }",
            "P0@wg 0, dev 0 (global atomic_int* x) { atomic_store(x, 1); }",
            "P1@wg 0, dev 0 (global atomic_int* x) { int r0 = atomic_load(x); }",
            "P2 @ dev 0, wg 1 (global atomic_int* x) { int r0 = atomic_load(x); }",
            "P3@dev 1 (global atomic_int* x) { int r0 = atomic_load(x); }", "forall (1:r0=0 \\/ 1:r0=1)"}),
     lines({"LISA T", "\"a description\"", "{ x = 0; }", " P0 | P1 | P2 | P3 ;",
            " w[atomic,scar,sc,agent] x 1 | r[atomic,scar,sc,agent] r0 x | r[atomic,scar,sc,agent] r0 x | "
            "r[atomic,scar,sc,agent] r0 x ;",
            "scopes: (agent (wg 0 1) (wg 2)) (agent (wg 3))", "forall (1:r0=0 \\/ 1:r0=1)"})},
    {"CommentsOfBothLanguagesAndLisaTrailers",
     lines({"(* herd's comment *) OPENCL T", "// a C comment", "{ x = 0; /* another */ }", "P0(void) { }",
            "P1(atomic_int* x) {", "  // nothing to see", "  int r0 = atomic_load(x); (* here *)", "}",
            "locations [x;]", "~exists (1:r0=1)"}),
     lines({"LISA T", "{ x = 0; }", " P0 | P1 ;", " | r[atomic,scar,sc,agent] r0 x ;", "locations [x;]",
            "~exists (1:r0=1)"})},
    {"NamedRegistersAndStatementLabels",
     lines({"OPENCL T", "{ [x]=0; [y]=0; }", "P0@wg 0, dev 0 (global int* x, global int* y) {",
            "  atomic_store_explicit(x, 1, memory_order_release);", "  B1: barrier(CLK_GLOBAL_MEM_FENCE);",
            "  int x1 = atomic_load_explicit(y, memory_order_acquire);", "  int r0 = x1;", "}",
            "P1@wg 0, dev 0 (global int* x, global int* y) {", "  B1: work_group_barrier(CLK_LOCAL_MEM_FENCE);", "}",
            "exists (0:x1=0 /\\ 0:r0=0)"}),
     lines({"LISA T", "{ x = 0; y = 0; }", " P0 | P1 ;", " w[atomic,screl,agent] x 1 | barrier[group] ;",
            " barrier[global] | ;", " r[atomic,scacq,agent] %x1 y | ;", " mov r0 %x1 | ;", "scopes: (agent (wg 0 1))",
            "exists (0:%x1=0 /\\ 0:r0=0)"})},
    {"LoadsAndCallsAsOperands",
     lines({"C T", "{ x = 0; y = 0; d = 0; }", "P0(global int* x, global atomic_int* y, global int* d) {", "  int r;",
            "  if (*x == 1) { *y = 1; }",
            "  if (atomic_load_explicit(y, memory_order_acquire, memory_scope_work_group) == 1) {", "    r = *x;",
            "  }", "  *d = *x; (* a herd comment *)", "}", "exists (0:r=0)"}),
     lines({"LISA T", "{ x = 0; y = 0; d = 0; }", " P0 ;", " r[] %T0 x ;", " b[ne] %T0, 1, L0 ;", " w[] y 1 ;",
            " L0: ;", " r[atomic,scacq,wg] %T1 y ;", " b[ne] %T1, 1, L1 ;", " r[] %r x ;", " L1: ;", " r[] %T2 x ;",
            " w[] d %T2 ;", "exists (0:%r=0)"})},
    {"LisaScopesAndRegionsLines",
     lines({"C T", "{ x = 0; }", "P0(local int* x) { *x = 1; }", "P1(atomic_int* y) { atomic_store(y, 1); }",
            "scopes: (agent (wg 0 1))", "regions: x:group", "exists (x=1)"}),
     lines({"LISA T", "{ x = 0; }", " P0 | P1 ;", " w[] x 1 | w[atomic,scar,sc,agent] y 1 ;",
            "scopes: (agent (wg 0 1))", "regions: x:group", "exists (x=1)"})},
};

class CLowering : public testing::TestWithParam<Lowering> {};

TEST_P(CLowering, EqualsTheLisaTest) {
  const Lowering& l = GetParam();
  ParseResult c = parse_litmus(l.c);
  ParseResult lisa = parse_litmus(l.lisa);
  ASSERT_TRUE(c.ok()) << c.diagnostics.render("c.litmus");
  ASSERT_TRUE(lisa.ok()) << lisa.diagnostics.render("lisa.litmus");
  EXPECT_EQ(print_litmus(*c.test), print_litmus(*lisa.test));
  EXPECT_TRUE(*c.test == *lisa.test);
}

INSTANTIATE_TEST_SUITE_P(Litmus, CLowering, testing::ValuesIn(kLowerings),
                         [](const testing::TestParamInfo<Lowering>& i) { return std::string(i.param.name); });

TEST(CFormat, ARelaxedFenceIsLeftOutWithAWarning) {
  ParseResult r = parse_litmus(lines({"C T", "{ x = 0; }", "P0(atomic_int* x) {",
                                      "  atomic_thread_fence(memory_order_relaxed);", "}", "exists (x=0)"}));
  ASSERT_TRUE(r.ok()) << r.diagnostics.render("f.litmus");
  EXPECT_TRUE(r.test->threads.at(0).code.empty());
  EXPECT_NE(r.diagnostics.render("f.litmus").find("f.litmus:4:3: warning: a relaxed fence orders nothing: left out"),
            std::string::npos)
      << r.diagnostics.render("f.litmus");
}

// herd's published tests give compare-exchanges a release failure order, which C11 forbids: read
// with a warning (a failed compare-exchange releases nothing).
TEST(CFormat, AReleaseFailureOrderIsReadWithAWarning) {
  ParseResult r = parse_litmus(
      lines({"C T", "{ x = 0; e = 0; }", "P0(atomic_int* x, int* e) {",
             "  int r0 = atomic_compare_exchange_strong_explicit(x, e, 1, memory_order_release, memory_order_release);",
             "}", "exists (x=0)"}));
  ASSERT_TRUE(r.ok()) << r.diagnostics.render("f.litmus");
  EXPECT_NE(r.diagnostics.render("f.litmus")
                .find("f.litmus:4:83: warning: a compare-exchange's failure order cannot be memory_order_release (C11 "
                      "7.17.7.4): read as the success order"),
            std::string::npos)
      << r.diagnostics.render("f.litmus");
}

TEST(CFormat, PrintsBackAsLisaThatReadsAsTheSameTest) {
  ParseResult c = parse_litmus(kLowerings[5].c);
  ASSERT_TRUE(c.ok()) << c.diagnostics.render("c.litmus");
  ParseResult again = parse_litmus(print_litmus(*c.test));
  ASSERT_TRUE(again.ok()) << again.diagnostics.render("printed.litmus");
  EXPECT_TRUE(*again.test == *c.test);
}

// The example of docs/litmus-c.md, "Shape of a file": its C block lowers to the LISA block
// that follows it.
TEST(CFormat, TheDocumentedExampleLowersToTheLisaBesideIt) {
  std::ifstream in(std::string(HSALIT_SOURCE_DIR) + "/docs/litmus-c.md");
  std::stringstream text;
  text << in.rdbuf();
  auto block = [&](const std::string& fence) {
    const std::string all = text.str();
    const std::size_t start = all.find(fence + "\n");
    if (start == std::string::npos) return std::string();
    const std::size_t body = start + fence.size() + 1;
    return all.substr(body, all.find("```\n", body) - body);
  };
  const std::string c = block("```c"), lisa = block("```litmus");
  ASSERT_FALSE(c.empty() || lisa.empty()) << "docs/litmus-c.md has no ```c or ```litmus block";
  ParseResult from_c = parse_litmus(c), from_lisa = parse_litmus(lisa);
  ASSERT_TRUE(from_c.ok()) << from_c.diagnostics.render("docs/litmus-c.md (C)");
  ASSERT_TRUE(from_lisa.ok()) << from_lisa.diagnostics.render("docs/litmus-c.md (LISA)");
  EXPECT_EQ(print_litmus(*from_c.test), lisa);
  EXPECT_TRUE(*from_c.test == *from_lisa.test);
}

// Bad input never crashes and always gets a positioned error: every prefix of the C tests
// above and of litmus/library-c, and each with every byte replaced by one of a few characters
// that start or end constructs, is read without an exception, and any error has a position.
TEST(CFormat, DamagedTextGetsPositionedErrors) {
  std::vector<std::string> texts;
  for (const Lowering& l : kLowerings) texts.push_back(l.c);
  for (const auto& entry : std::filesystem::directory_iterator(std::string(HSALIT_SOURCE_DIR) + "/litmus/library-c")) {
    if (entry.path().extension() != ".litmus") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    texts.push_back(text.str());
  }
  ASSERT_GT(texts.size(), std::size(kLowerings));
  auto read = [](const std::string& text) {
    ParseResult r;
    EXPECT_NO_THROW(r = parse_litmus(text)) << text;
    for (const Diagnostic& d : r.diagnostics.all())
      if (d.severity == Severity::Error) {
        EXPECT_TRUE(d.pos.valid()) << d.message << "\n" << text;
      }
    EXPECT_EQ(r.ok(), !r.diagnostics.has_errors());
  };
  for (const std::string& text : texts) {
    for (std::size_t n = 0; n < text.size(); ++n) read(text.substr(0, n));
    for (std::size_t at = 0; at < text.size(); ++at)
      for (char c : {'(', ')', '*', '{', '}', '"', '@', ';', '\0', '\xff'}) {
        std::string damaged = text;
        damaged[at] = c;
        read(damaged);
      }
  }
}

struct Error {
  const char* name;
  std::string text;
  std::string expected;  // one whole line of the rendered diagnostics
};

std::ostream& operator<<(std::ostream& os, const Error& e) { return os << e.name; }

// A one-thread test whose body is line 4 (between `P0(...) {` and `}`).
std::string body(const char* statement) {
  return lines({"C T", "{ x = 0; }", "P0(atomic_int* x) {", statement, "}", "exists (x=0)"});
}

const Error kErrors[] = {
    {"MissingName", lines({"C", "{ x = 0; }"}), "f.litmus:1:2: error: expected a test name after 'C'"},
    {"NoThread", lines({"C T", "{ x = 0; }", "exists (x=0)"}),
     "f.litmus:3:1: error: expected a thread 'P0(...) { ... }', found 'exists'"},
    {"MisnumberedThread", lines({"C T", "{ x = 0; }", "P1(atomic_int* x) { }"}),
     "f.litmus:3:1: error: expected thread name 'P0', found 'P1' (threads are numbered P0, P1, ... in order)"},
    {"UnknownParameterType", lines({"C T", "{ x = 0; }", "P0(float* x) { }"}),
     "f.litmus:3:4: error: unknown type 'float' (expected int, atomic_int, unsigned, global, local, volatile...)"},
    {"ParameterNotAPointer", lines({"C T", "{ x = 0; }", "P0(int x) { }"}),
     "f.litmus:3:8: error: expected '*' before 'x': a parameter is a pointer to a location"},
    {"UnknownPlacement", lines({"C T", "{ x = 0; }", "P0@sg 0 (atomic_int* x) { }"}),
     "f.litmus:3:4: error: unknown placement 'sg' (expected wg N or dev N)"},
    {"SegmentsDisagree", lines({"C T", "{ x = 0; }", "P0(global int* x) { }", "P1(local int* x) { }", "exists (x=0)"}),
     "f.litmus:4:4: error: 'x' is local here but global at 3:4"},
    {"UnknownFunction", body("  atomic_frobnicate(x);"),
     "f.litmus:4:3: error: unknown or unsupported function 'atomic_frobnicate' (docs/litmus-c.md lists what is read)"},
    {"WeakCompareExchange", body("  int r0 = atomic_compare_exchange_weak(x, x, 1);"),
     "f.litmus:4:12: error: atomic_compare_exchange_weak is not supported (it may fail spuriously): write "
     "atomic_compare_exchange_strong"},
    {"UnknownOrder", body("  atomic_store_explicit(x, 1, memory_order_sloppy);"),
     "f.litmus:4:31: error: unknown memory order 'memory_order_sloppy' (expected memory_order_relaxed, _acquire, "
     "_release, _acq_rel or _seq_cst)"},
    {"UnknownScope", body("  atomic_store_explicit(x, 1, memory_order_relaxed, memory_scope_galaxy);"),
     "f.litmus:4:53: error: unknown memory scope 'memory_scope_galaxy' (expected memory_scope_work_item, "
     "_work_group, _device or _all_svm_devices)"},
    {"ReleaseLoad", body("  int r0 = atomic_load_explicit(x, memory_order_release);"),
     "f.litmus:4:36: error: atomic_load_explicit cannot be memory_order_release"},
    {"AcquireStore", body("  atomic_store_explicit(x, 1, memory_order_acq_rel);"),
     "f.litmus:4:31: error: atomic_store_explicit cannot be memory_order_acq_rel"},
    {"FailureOrderStrongerThanSuccess",
     body("  int r0 = atomic_compare_exchange_strong_explicit(x, x, 1, memory_order_relaxed, memory_order_acquire);"),
     "f.litmus:4:83: error: the failure order memory_order_acquire is stronger than the success order "
     "memory_order_relaxed"},
    {"NotAParameter", body("  atomic_store(y, 1);"), "f.litmus:4:16: error: 'y' is not a parameter of P0"},
    {"UndeclaredRegister", body("  r5 = 1;"),
     "f.litmus:4:3: error: register 'r5' is not declared in P0 (write 'int r5 = ...')"},
    {"RegisterNamedAsAParameter", body("  int x = 1;"),
     "f.litmus:4:7: error: 'x' is a parameter of P0: a register needs another name"},
    {"RegisterNamedAsATemporary", body("  int T3 = 1;"),
     "f.litmus:4:7: error: 'T3' is the name of one of hsalit's temporaries (%T0, %T1, ...): rename the register"},
    {"LabelWithoutAStatement", body("  B1:"), "f.litmus:5:1: error: expected a statement after the label, found '}'"},
    {"ValueNotARegister", body("  atomic_store(x, r9);"),
     "f.litmus:4:19: error: 'r9' is not a register of P0 (a value is a constant or a declared register)"},
    {"MissingSemicolon", body("  atomic_store(x, 1)"),
     "f.litmus:5:1: error: expected ';' after the statement, found '}'"},
    {"ConstantCondition", body("  if (1 == 2) { }"),
     "f.litmus:4:7: error: a constant condition: compare a register with a value"},
    {"UnterminatedBlockComment", body("  /* never closed"), "f.litmus:4:3: error: unterminated comment '/*'"},
    {"UnexpectedCharacter", body("  atomic_store(x, 1) $"), "f.litmus:4:22: error: unexpected character '$'"},
    {"EndOfFileInABody", lines({"C T", "{ x = 0; }", "P0(atomic_int* x) {", "  atomic_store(x, 1);"}),
     "f.litmus:5:1: error: expected '}' to close the block, found end of file"},
    {"PlacementAndScopesLine",
     lines({"C T", "{ x = 0; }", "P0@wg 0 (atomic_int* x) { }", "scopes: (agent (wg 0))", "exists (x=0)"}),
     "f.litmus:3:3: error: a thread placed with '@' in a test that has a 'scopes:' line: write one or the other"},
    {"RegionsLineDisagrees", lines({"C T", "{ x = 0; }", "P0(local int* x) { }", "regions: x:global", "exists (x=0)"}),
     "f.litmus:4:10: error: 'x' is local in the C text (3:4)"},
    // What follows the threads is LISA's, with positions in the same file.
    {"ConditionSyntax", lines({"C T", "{ x = 0; }", "P0(atomic_int* x) { }", "exists (x=)"}),
     "f.litmus:4:11: error: expected a value, found ')'"},
    {"ConditionNamesAnUnknownRegister", lines({"C T", "{ x = 0; }", "P0(atomic_int* x) { }", "exists (0:r3=1)"}),
     "f.litmus:4:9: error: condition reads 0:r3 but thread P0 neither initialises nor writes r3"},
};

class CErrors : public testing::TestWithParam<Error> {};

TEST_P(CErrors, ReportTheErrorAtItsPosition) {
  const Error& e = GetParam();
  ParseResult r = parse_litmus(e.text);
  EXPECT_FALSE(r.ok());
  const std::string rendered = r.diagnostics.render("f.litmus");
  EXPECT_NE(rendered.find(e.expected + "\n"), std::string::npos) << rendered;
}

INSTANTIATE_TEST_SUITE_P(Litmus, CErrors, testing::ValuesIn(kErrors),
                         [](const testing::TestParamInfo<Error>& i) { return std::string(i.param.name); });

}  // namespace
}  // namespace hsalit::litmus
