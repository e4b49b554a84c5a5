// Every construct of the litmus format parses into the right AST.
#include "hsalit/litmus/parser.hpp"

#include <gtest/gtest.h>

#include <string>

#include "hsalit/litmus/printer.hpp"
#include "print_to.hpp"

namespace hsalit::litmus {
namespace {

using Litmus = litmus::Test;  // inside a TEST body, `Test` is testing::Test

Litmus parse_ok(const std::string& text) {
  ParseResult r = parse_litmus(text);
  EXPECT_TRUE(r.ok()) << r.diagnostics.render("t.litmus") << "\n" << text;
  if (!r.ok()) return Litmus{};
  // Every accepted test also prints back to an equal one.
  ParseResult again = parse_litmus(print_litmus(*r.test));
  EXPECT_TRUE(again.ok()) << again.diagnostics.render("printed") << print_litmus(*r.test);
  if (again.ok()) {
    EXPECT_EQ(*again.test, *r.test) << print_litmus(*r.test);
  }
  return *r.test;
}

// A one-thread test around some rows of thread P0.
std::string one(const std::string& rows, const std::string& init = "x = 0;",
                const std::string& condition = "exists (x=0)") {
  return "LISA T\n{ " + init + " }\n P0 ;\n" + rows + "scopes: (wg 0)\n" + condition + "\n";
}

const Instruction& only(const Litmus& t, std::size_t index = 0) {
  static const Instruction none;
  if (t.threads.empty() || t.threads[0].code.size() <= index) {
    ADD_FAILURE() << "no instruction " << index;
    return none;
  }
  return t.threads[0].code[index];
}

TEST(Parser, HeaderDescriptionAndMetadata) {
  Litmus t = parse_ok(
      "LISA MP+wg-rel+agent-acq\n"
      "\"Message passing; in one work-group\"\n"
      "Cycle=Rfe PodRR Fre PodWW\n"
      "Scopes = (agent (wg 0 1))\n"
      "Com=Rf Fr\n"
      "{ x = 0; }\n P0 ;\n r[] r0 x ;\nscopes: (wg 0)\nexists (0:r0=0)\n");
  EXPECT_EQ(t.arch, "LISA");
  EXPECT_EQ(t.name, "MP+wg-rel+agent-acq");
  EXPECT_EQ(t.description, "Message passing; in one work-group");
  ASSERT_EQ(t.metadata.size(), 3u);
  EXPECT_EQ(t.metadata[0], (MetadataEntry{"Cycle", "Rfe PodRR Fre PodWW"}));
  EXPECT_EQ(t.metadata[1], (MetadataEntry{"Scopes", "(agent (wg 0 1))"}));
  EXPECT_EQ(t.metadata[2], (MetadataEntry{"Com", "Rf Fr"}));
}

TEST(Parser, NameTakesAnyNonBlankCharactersAndCommentsMayFollow) {
  Litmus t = parse_ok(
      "(* leading *) LISA 2+2W[x]{y}.z (* trailing *)\n"
      "(* before *) \"d\" (* after *)\n{ x = 0; }\n P0 ;\n r[] r0 x ;\n"
      "scopes: (wg 0)\nexists (0:r0=0)\n");
  EXPECT_EQ(t.name, "2+2W[x]{y}.z");
  EXPECT_EQ(t.description, "d");
}

TEST(Parser, InitialState) {
  Litmus t = parse_ok(
      "LISA T\n{ x = 0; y = 0x10; 1:r1 = -1; 0:r3 = h1; h1 = 7; 0:%T1 = 2 }\n"
      " P0 | P1 ;\n r[] r0 r3 | r[] r0 x ;\nscopes: (wg 0 1)\nexists (1:r1=-1)\n");
  ASSERT_EQ(t.init.size(), 6u);
  EXPECT_FALSE(t.init[0].thread);
  EXPECT_EQ(t.init[0].name, "x");
  EXPECT_EQ(t.init[0].value, Expr::constant(0));
  EXPECT_EQ(t.init[1].value, Expr::constant(16));
  EXPECT_EQ(t.init[2].thread, 1);
  EXPECT_EQ(t.init[2].name, "r1");
  EXPECT_EQ(t.init[2].value, Expr::constant(-1));
  EXPECT_EQ(t.init[3].thread, 0);
  EXPECT_EQ(t.init[3].name, "r3");
  EXPECT_EQ(t.init[3].value, Expr::location("h1"));  // a register holding an address
  EXPECT_EQ(t.init[5].name, "%T1");
  EXPECT_EQ(t.location_names(), (std::vector<std::string>{"x", "y", "h1"}));
}

TEST(Parser, EmptyInitialStateAndExtremeNumbers) {
  Litmus t =
      parse_ok(one(" w[] x -9223372036854775808 ;\n w[] x 9223372036854775807 ;\n"
                   " w[] x 0x7fffffffffffffff ;\n w[] x -0X10 ;\n",
                   ""));
  EXPECT_TRUE(t.init.empty());
  EXPECT_EQ(only(t, 0).value, Expr::constant(INT64_MIN));
  EXPECT_EQ(only(t, 1).value, Expr::constant(INT64_MAX));
  EXPECT_EQ(only(t, 2).value, Expr::constant(INT64_MAX));
  EXPECT_EQ(only(t, 3).value, Expr::constant(-16));
}

TEST(Parser, ThreadColumnsWithEmptyCells) {
  Litmus t = parse_ok(
      "LISA T\n{ x = 0; }\n"
      " P0       | P1       | P2       ;\n"
      " w[] x 1  |          | r[] r0 x ;\n"
      "          | r[] r0 x |          ;\n"
      "          |          |          ;\n"
      " w[] x 2  |          | r[] r1 x ;\n"
      "scopes: (agent (wg 0 1 2))\nexists (2:r0=1)\n");
  ASSERT_EQ(t.threads.size(), 3u);
  EXPECT_EQ(t.threads[0].code.size(), 2u);
  EXPECT_EQ(t.threads[1].code.size(), 1u);
  EXPECT_EQ(t.threads[2].code.size(), 2u);
  EXPECT_EQ(t.threads[2].id, 2);
  EXPECT_EQ(t.threads[0].code[1].value, Expr::constant(2));
}

TEST(Parser, SemicolonBeforeTheHeaderRowAndShortRows) {
  Litmus t = parse_ok(
      "LISA T\n{ x = 0; }\n; P0 | P1 ;\n w[] x 1 ;\n | r[] r0 x ;\n"
      "scopes: (wg 0 1)\nexists (1:r0=1)\n");
  EXPECT_EQ(t.threads[0].code.size(), 1u);
  EXPECT_EQ(t.threads[1].code.size(), 1u);
}

TEST(Parser, LoadStoreAndDefaults) {
  Litmus t = parse_ok(one(" r[] r0 x ;\n w[] x 1 ;\n w[] x r0 ;\n r r1 x ;\n"));
  const Instruction& load = only(t, 0);
  EXPECT_EQ(load.kind, OpKind::Load);
  EXPECT_EQ(load.reg, "r0");
  EXPECT_EQ(load.addr.base, Expr::location("x"));
  EXPECT_FALSE(load.addr.offset);
  EXPECT_EQ(load.annots, Annotations{});  // ordinary, relaxed, work-item, single
  EXPECT_FALSE(load.annots.atomic);
  EXPECT_EQ(load.annots.order, MemoryOrder::Relaxed);
  EXPECT_EQ(load.annots.scope, Scope::WorkItem);
  EXPECT_EQ(load.annots.size, AccessSize::Single);

  const Instruction& store = only(t, 1);
  EXPECT_EQ(store.kind, OpKind::Store);
  EXPECT_EQ(store.addr.base, Expr::location("x"));
  EXPECT_EQ(store.value, Expr::constant(1));
  EXPECT_EQ(only(t, 2).value, Expr::reg("r0"));  // a data dependency
  EXPECT_EQ(only(t, 3).kind, OpKind::Load);      // `r r1 x`: the brackets may be left out
  EXPECT_EQ(only(t, 3).annots, Annotations{});
}

TEST(Parser, AnnotationsInAnyOrderAndAliases) {
  struct Case {
    const char* annots;
    bool atomic;
    MemoryOrder order;
    Scope scope;
    AccessSize size;
  };
  const Case cases[] = {
      {"atomic,scacq,agent", true, MemoryOrder::Acquire, Scope::Agent, AccessSize::Single},
      {"agent,scacq,atomic", true, MemoryOrder::Acquire, Scope::Agent, AccessSize::Single},
      {"scacq,atomic,component", true, MemoryOrder::Acquire, Scope::Agent, AccessSize::Single},
      {"atomic,rlx,wavefront", true, MemoryOrder::Relaxed, Scope::Wavefront, AccessSize::Single},
      {"atomic,wave,scar", true, MemoryOrder::AcquireRelease, Scope::Wavefront, AccessSize::Single},
      {"workgroup,atomic", true, MemoryOrder::Relaxed, Scope::WorkGroup, AccessSize::Single},
      {"atomic,wg,double", true, MemoryOrder::Relaxed, Scope::WorkGroup, AccessSize::Double},
      {"double,sys,atomic,scacq", true, MemoryOrder::Acquire, Scope::System, AccessSize::Double},
      {"atomic,system,single", true, MemoryOrder::Relaxed, Scope::System, AccessSize::Single},
      {"atomic,cmp", true, MemoryOrder::Relaxed, Scope::Agent, AccessSize::Single},
      {"ordinary", false, MemoryOrder::Relaxed, Scope::WorkItem, AccessSize::Single},
      {"na,rlx,wi", false, MemoryOrder::Relaxed, Scope::WorkItem, AccessSize::Single},
      {"double", false, MemoryOrder::Relaxed, Scope::WorkItem, AccessSize::Double},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.annots);
    Litmus t = parse_ok(one(std::string(" r[") + c.annots + "] r0 x ;\n"));
    const Annotations& a = only(t).annots;
    EXPECT_EQ(a.atomic, c.atomic);
    EXPECT_EQ(a.order, c.order);
    EXPECT_EQ(a.scope, c.scope);
    EXPECT_EQ(a.size, c.size);
    EXPECT_FALSE(a.cas);
  }
}

TEST(Parser, ReadModifyWrites) {
  Litmus t =
      parse_ok(one(" rmw[atomic,scar,agent] r0 1 x ;\n"
                   " rmw[atomic,scar,agent] r1 (add r1 1) x ;\n"
                   " rmw[cas,atomic,scar,agent] r2 0 1 x ;\n"
                   " rmw[atomic,rlx,wg,cas,double] r3 r2 (xor r3 r2) x+1 ;\n"
                   " rmw[atomic,rlx,wg] r4 y x ;\n"));
  const Instruction& exchange = only(t, 0);
  EXPECT_EQ(exchange.kind, OpKind::Rmw);
  EXPECT_EQ(exchange.reg, "r0");
  EXPECT_EQ(exchange.value, Expr::constant(1));
  EXPECT_FALSE(exchange.expected);
  EXPECT_EQ(exchange.addr.base, Expr::location("x"));
  EXPECT_TRUE(exchange.annots.atomic);
  EXPECT_EQ(exchange.annots.order, MemoryOrder::AcquireRelease);
  EXPECT_EQ(exchange.annots.scope, Scope::Agent);

  // The operation may read the register: it names the value read.
  EXPECT_EQ(only(t, 1).value, Expr::binary(BinaryOp::Add, Expr::reg("r1"), Expr::constant(1)));

  const Instruction& cas = only(t, 2);
  EXPECT_TRUE(cas.annots.cas);
  EXPECT_EQ(cas.reg, "r2");
  EXPECT_EQ(cas.expected, Expr::constant(0));
  EXPECT_EQ(cas.value, Expr::constant(1));

  const Instruction& cas2 = only(t, 3);
  EXPECT_TRUE(cas2.annots.cas);
  EXPECT_EQ(cas2.annots.size, AccessSize::Double);
  EXPECT_EQ(cas2.expected, Expr::reg("r2"));
  EXPECT_EQ(cas2.value, Expr::binary(BinaryOp::Xor, Expr::reg("r3"), Expr::reg("r2")));
  EXPECT_EQ(cas2.addr.offset, Expr::constant(1));

  EXPECT_EQ(only(t, 4).value, Expr::location("y"));  // exchange with the address of y
}

TEST(Parser, FencesAndBarrier) {
  Litmus t =
      parse_ok(one(" f[scacq,wg] ;\n f[agent,screl] ;\n f[scar,system] ;\n"
                   " f[wave,scar] ;\n barrier ;\n barrier[] ;\n"));
  EXPECT_EQ(only(t, 0).kind, OpKind::Fence);
  EXPECT_EQ(only(t, 0).annots.order, MemoryOrder::Acquire);
  EXPECT_EQ(only(t, 0).annots.scope, Scope::WorkGroup);
  EXPECT_EQ(only(t, 1).annots.order, MemoryOrder::Release);
  EXPECT_EQ(only(t, 1).annots.scope, Scope::Agent);
  EXPECT_EQ(only(t, 2).annots.scope, Scope::System);
  EXPECT_EQ(only(t, 3).annots.scope, Scope::Wavefront);
  EXPECT_FALSE(only(t, 0).annots.atomic);
  EXPECT_EQ(only(t, 4).kind, OpKind::Barrier);
  EXPECT_EQ(only(t, 5).kind, OpKind::Barrier);
}

TEST(Parser, MovWithEveryOperator) {
  struct Case {
    const char* op;
    BinaryOp expected;
  };
  const Case cases[] = {{"add", BinaryOp::Add}, {"sub", BinaryOp::Sub}, {"xor", BinaryOp::Xor}, {"and", BinaryOp::And},
                        {"or", BinaryOp::Or},   {"eq", BinaryOp::Eq},   {"neq", BinaryOp::Ne},  {"ne", BinaryOp::Ne}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op);
    Litmus t = parse_ok(one(std::string(" mov r1 (") + c.op + " r0 2) ;\n", "0:r0 = 1;"));
    EXPECT_EQ(only(t).kind, OpKind::Mov);
    EXPECT_EQ(only(t).reg, "r1");
    EXPECT_EQ(only(t).value, Expr::binary(c.expected, Expr::reg("r0"), Expr::constant(2)));
  }
  Litmus t =
      parse_ok(one(" mov r1 5 ;\n mov r2 r1 ;\n mov r3 x ;\n mov r4 (add (sub r1 1) (and r2 x)) ;\n"
                   " mov r5 (or r4, 1) ;\n"));
  EXPECT_EQ(only(t, 0).value, Expr::constant(5));
  EXPECT_EQ(only(t, 1).value, Expr::reg("r1"));
  EXPECT_EQ(only(t, 2).value, Expr::location("x"));  // the address of x
  EXPECT_EQ(only(t, 3).value,
            Expr::binary(BinaryOp::Add, Expr::binary(BinaryOp::Sub, Expr::reg("r1"), Expr::constant(1)),
                         Expr::binary(BinaryOp::And, Expr::reg("r2"), Expr::location("x"))));
  EXPECT_EQ(only(t, 4).value, Expr::binary(BinaryOp::Or, Expr::reg("r4"), Expr::constant(1)));
}

TEST(Parser, Branches) {
  Litmus t =
      parse_ok(one(" r[] r1 x ;\n b[] r1 L1 ;\n b[] L1 ;\n b[eq] r1,0,L1 ;\n"
                   " b[ne] r1, r1, L1 ;\n b[neq,tag] r1 2 L1 ;\n b L1 ;\n b[x86] L1 ;\n"
                   " L1: ;\n"));
  const Instruction& conditional = only(t, 1);
  EXPECT_EQ(conditional.kind, OpKind::Branch);
  EXPECT_EQ(conditional.condition, Expr::reg("r1"));  // taken when non-zero
  EXPECT_EQ(conditional.label, "L1");
  EXPECT_FALSE(only(t, 2).condition);  // unconditional
  EXPECT_EQ(only(t, 2).label, "L1");
  EXPECT_EQ(only(t, 3).condition, Expr::binary(BinaryOp::Eq, Expr::reg("r1"), Expr::constant(0)));
  EXPECT_EQ(only(t, 4).condition, Expr::binary(BinaryOp::Ne, Expr::reg("r1"), Expr::reg("r1")));
  EXPECT_EQ(only(t, 5).condition, Expr::binary(BinaryOp::Ne, Expr::reg("r1"), Expr::constant(2)));
  EXPECT_EQ(only(t, 5).annots.tags, std::vector<std::string>{"tag"});
  EXPECT_FALSE(only(t, 6).condition);
  EXPECT_EQ(only(t, 7).annots.tags, std::vector<std::string>{"x86"});
  EXPECT_EQ(only(t, 8).kind, OpKind::Label);
  EXPECT_EQ(only(t, 8).label, "L1");
}

TEST(Parser, LabelsAloneAndBeforeInstructions) {
  Litmus t = parse_ok(
      "LISA T\n{ x = 0; }\n P0 | P1 ;\n b[] Skip | Top: r[] r0 x ;\n w[] x 1 | Out: ;\n"
      " Skip: w[] x 2 | ;\nscopes: (wg 0 1)\nexists (1:r0=0)\n");
  ASSERT_EQ(t.threads[0].code.size(), 4u);
  EXPECT_EQ(t.threads[0].code[2].kind, OpKind::Label);
  EXPECT_EQ(t.threads[0].code[2].label, "Skip");
  EXPECT_EQ(t.threads[0].code[3].kind, OpKind::Store);
  ASSERT_EQ(t.threads[1].code.size(), 3u);
  EXPECT_EQ(t.threads[1].code[0].label, "Top");
  EXPECT_EQ(t.threads[1].code[1].kind, OpKind::Load);
  EXPECT_EQ(t.threads[1].code[2].label, "Out");
}

TEST(Parser, TemporaryRegisters) {
  Litmus t = parse_ok(one(" r[] %T1 x ;\n mov %T_2 (add %T1 1) ;\n w[] x %T_2 ;\n", "x = 0;", "exists (0:%T1=0)"));
  EXPECT_EQ(only(t, 0).reg, "%T1");
  EXPECT_EQ(only(t, 1).reg, "%T_2");
  EXPECT_EQ(only(t, 2).value, Expr::reg("%T_2"));
  EXPECT_EQ(t.condition.prop.lhs, (ObservedRef{0, "%T1", {}}));
}

TEST(Parser, AddressForms) {
  Litmus t =
      parse_ok(one(" r[] r2 x ;\n r[] r0 x+r2 ;\n r[] r1 x+1 ;\n r[] r3 [y] ;\n"
                   " r[] r4 [x+r2] ;\n w[] r5 1 ;\n w[] r5+r2 2 ;\n r[] r6 x + -4 ;\n",
                   "x = 0; 0:r5 = y;"));
  EXPECT_EQ(only(t, 1).addr.base, Expr::location("x"));
  EXPECT_EQ(only(t, 1).addr.offset, Expr::reg("r2"));  // an address dependency
  EXPECT_EQ(only(t, 2).addr.offset, Expr::constant(1));
  EXPECT_EQ(only(t, 3).addr.base, Expr::location("y"));  // the old [y] form
  EXPECT_FALSE(only(t, 3).addr.offset);
  EXPECT_EQ(only(t, 4).addr.offset, Expr::reg("r2"));
  EXPECT_EQ(only(t, 5).addr.base, Expr::reg("r5"));  // a register holding an address
  EXPECT_EQ(only(t, 6).addr.base, Expr::reg("r5"));
  EXPECT_EQ(only(t, 6).addr.offset, Expr::reg("r2"));
  EXPECT_EQ(only(t, 7).addr.offset, Expr::constant(-4));
}

TEST(Parser, OldCommaOperandForms) {
  Litmus t =
      parse_ok(one(" r[] r2, x ;\n w[] x, r2 ;\n w[] x,1 ;\n mov r3, (ne r2, 0) ;\n"
                   " rmw[atomic,rlx,wg] r4, 1, x ;\n rmw[cas,atomic,rlx,wg] r5, 0, 1, x ;\n"
                   " b[eq] r2,0,L ;\n L: ;\n"));
  EXPECT_EQ(only(t, 0).reg, "r2");
  EXPECT_EQ(only(t, 0).addr.base, Expr::location("x"));
  EXPECT_EQ(only(t, 1).value, Expr::reg("r2"));
  EXPECT_EQ(only(t, 3).value, Expr::binary(BinaryOp::Ne, Expr::reg("r2"), Expr::constant(0)));
  EXPECT_EQ(only(t, 4).value, Expr::constant(1));
  EXPECT_EQ(only(t, 5).expected, Expr::constant(0));
  EXPECT_EQ(only(t, 6).condition, Expr::binary(BinaryOp::Eq, Expr::reg("r2"), Expr::constant(0)));
}

TEST(Parser, ScopeTrees) {
  auto tree = [](int threads, const std::string& scopes) {
    std::string text = "LISA T\n{ x = 0; }\n";
    for (int i = 0; i < threads; ++i) text += (i ? " | P" : " P") + std::to_string(i);
    text += " ;\n";
    for (int i = 0; i < threads; ++i) text += i ? " | r[] r0 x" : " r[] r0 x";
    text += " ;\nscopes: " + scopes + "\nexists (0:r0=0)\n";
    return parse_ok(text).scopes;
  };
  ScopeTree simple = tree(2, "(agent (wg 0 1))");
  ASSERT_EQ(simple.roots().size(), 1u);
  const ScopeNode& agent = simple.nodes()[static_cast<std::size_t>(simple.roots()[0])];
  EXPECT_EQ(agent.level, Scope::Agent);
  ASSERT_EQ(agent.children.size(), 1u);
  EXPECT_FALSE(agent.children[0].is_thread);
  const ScopeNode& wg = simple.nodes()[static_cast<std::size_t>(agent.children[0].index)];
  EXPECT_EQ(wg.level, Scope::WorkGroup);
  EXPECT_EQ(wg.children, (std::vector<ScopeNode::Child>{{true, 0}, {true, 1}}));
  EXPECT_FALSE(simple.is_default());
  EXPECT_TRUE(simple.resolved());

  // Skipped levels: each thread is its own wave; the wg's agent is shared.
  EXPECT_EQ(simple.common_scope(0, 1), Scope::WorkGroup);

  // A forest: thread 3 sits in a second agent.
  ScopeTree forest = tree(4, "(agent (wg 0) (wg 1 2)) (wg 3)");
  EXPECT_EQ(forest.roots().size(), 2u);
  EXPECT_EQ(forest.common_scope(0, 1), Scope::Agent);
  EXPECT_EQ(forest.common_scope(1, 2), Scope::WorkGroup);
  EXPECT_EQ(forest.common_scope(2, 3), Scope::System);

  // P leaves, wi groups, aliases, every level.
  ScopeTree full = tree(3, "(system (agent (wg (wave (wi P0)) (wave (wi P1) (wi P2)))))");
  EXPECT_EQ(full.common_scope(0, 1), Scope::WorkGroup);
  EXPECT_EQ(full.common_scope(1, 2), Scope::Wavefront);
  ScopeTree aliases = tree(2, "(sys (component (workgroup (wavefront P0 P1))))");
  EXPECT_EQ(aliases.common_scope(0, 1), Scope::Wavefront);

  // A top-level wg shares its implicit agent; a skipped wg between an agent and its waves
  // gives each wave its own work-group; threads directly in an agent are alone below it.
  ScopeTree top_wg = tree(2, "(wg 0 1)");
  EXPECT_EQ(top_wg.common_scope(0, 1), Scope::WorkGroup);
  EXPECT_TRUE(top_wg.same_instance(0, 1, Scope::Agent));
  ScopeTree waves = tree(2, "(agent (wave 0) (wave 1))");
  EXPECT_EQ(waves.common_scope(0, 1), Scope::Agent);
  ScopeTree flat = tree(2, "(agent 0 1)");
  EXPECT_EQ(flat.common_scope(0, 1), Scope::Agent);
  EXPECT_FALSE(flat.same_instance(0, 1, Scope::Wavefront));

  // Two top-level agents side by side in one system; a top-level wave.
  ScopeTree agents = tree(3, "(agent (wg 0)) (agent (wg 1)) (wave 2)");
  EXPECT_EQ(agents.common_scope(0, 1), Scope::System);
  EXPECT_EQ(agents.common_scope(0, 2), Scope::System);
}

TEST(Parser, MissingScopesGivesTheDefaultTreeAndAWarning) {
  ParseResult r =
      parse_litmus("LISA T\n{ x = 0; }\n P0 | P1 | P2 ;\n r[] r0 x | r[] r0 x | r[] r0 x ;\nexists (0:r0=0)\n");
  ASSERT_TRUE(r.ok()) << r.diagnostics.render("t");
  EXPECT_EQ(r.diagnostics.error_count(), 0u);
  ASSERT_EQ(r.diagnostics.all().size(), 1u);
  EXPECT_EQ(r.diagnostics.all()[0].severity, Severity::Warning);
  EXPECT_EQ(r.diagnostics.render("t"),
            "t:5:1: warning: no 'scopes:' line: each thread is placed in its own work-group of "
            "one agent\n");
  const ScopeTree& s = r.test->scopes;
  EXPECT_TRUE(s.is_default());
  EXPECT_EQ(s, ScopeTree::default_for(3));
  EXPECT_EQ(s.common_scope(0, 1), Scope::Agent);
  EXPECT_FALSE(s.same_instance(0, 1, Scope::WorkGroup));
}

TEST(Parser, Regions) {
  Litmus t =
      parse_ok(one(" r[] r0 x ;\n", "x = 0; z = 0; w = 0;", "regions: x:global, z:group; w:group\nexists (x=0)"));
  ASSERT_EQ(t.regions.size(), 3u);
  EXPECT_EQ(t.regions[0].location, "x");
  EXPECT_EQ(t.regions[0].segment, Segment::Global);
  EXPECT_EQ(t.regions[1].segment, Segment::Group);
  EXPECT_EQ(t.regions[2].location, "w");
  EXPECT_EQ(t.segment_of("z"), Segment::Group);
  EXPECT_EQ(t.segment_of("unlisted"), Segment::Global);

  Litmus juxtaposed = parse_ok(one(" r[] r0 x ;\n", "x = 0;", "regions: x:group y:global;\nexists (x=0)"));
  EXPECT_EQ(juxtaposed.regions.size(), 2u);
  // After a comma a region always follows, even one named like a trailer.
  Litmus keyword = parse_ok(one(" r[] r0 x ;\n", "x = 0;", "regions: x:group, filter:global\nexists (x=0)"));
  EXPECT_EQ(keyword.regions[1].location, "filter");
}

TEST(Parser, LocationsAndFilter) {
  Litmus t =
      parse_ok(one(" r[] r0 x ;\n", "x = 0;", "locations [x; 0:r0; [y]]\nfilter (0:r0=0 \\/ x=1)\nexists (x=0)"));
  ASSERT_EQ(t.locations.size(), 3u);
  EXPECT_EQ(t.locations[0], (ObservedRef{std::nullopt, "x", {}}));
  EXPECT_EQ(t.locations[1], (ObservedRef{0, "r0", {}}));
  EXPECT_EQ(t.locations[2].name, "y");
  ASSERT_TRUE(t.filter);
  EXPECT_EQ(t.filter->kind, Prop::Kind::Or);
  // observed(): the condition's and the locations' refs, registers first, deduplicated.
  EXPECT_EQ(t.observed(), (std::vector<ObservedRef>{{0, "r0", {}}, {std::nullopt, "x", {}}, {std::nullopt, "y", {}}}));
}

TEST(Parser, TrailersInAnyOrder) {
  Litmus t = parse_ok(one(" r[] r0 x ;\n", "x = 0;", "filter true\nregions: x:group\nlocations [x]\nexists (x=0)"));
  EXPECT_EQ(t.regions.size(), 1u);
  EXPECT_TRUE(t.filter);
}

TEST(Parser, Conditions) {
  auto cond = [](const std::string& c) { return parse_ok(one(" r[] r0 x ;\n r[] r1 x ;\n", "x = 0;", c)).condition; };
  FinalCondition e = cond("exists (0:r0=1 /\\ 0:r1=0)");
  EXPECT_EQ(e.quantifier, Quantifier::Exists);
  EXPECT_EQ(e.prop, Prop::conjunction(Prop::equals({0, "r0", {}}, Expr::constant(1)),
                                      Prop::equals({0, "r1", {}}, Expr::constant(0))));
  EXPECT_EQ(cond("~exists (x=1)").quantifier, Quantifier::NotExists);
  EXPECT_EQ(cond("~ exists x=1").quantifier, Quantifier::NotExists);
  EXPECT_EQ(cond("forall (x=1)").quantifier, Quantifier::Forall);

  Prop t;
  t.kind = Prop::Kind::True;
  Prop f;
  f.kind = Prop::Kind::False;
  EXPECT_EQ(cond("exists true").prop, t);
  EXPECT_EQ(cond("exists (false)").prop, f);

  // /\ binds tighter than \/; both associate to the left; ~ applies to what follows.
  Prop a = Prop::equals({0, "r0", {}}, Expr::constant(1));
  Prop b = Prop::equals({0, "r1", {}}, Expr::constant(2));
  Prop c = Prop::equals({std::nullopt, "x", {}}, Expr::constant(3));
  EXPECT_EQ(cond("exists 0:r0=1 \\/ 0:r1=2 /\\ x=3").prop, Prop::disjunction(a, Prop::conjunction(b, c)));
  EXPECT_EQ(cond("exists (0:r0=1 \\/ 0:r1=2) /\\ x=3").prop, Prop::conjunction(Prop::disjunction(a, b), c));
  EXPECT_EQ(cond("exists 0:r0=1 /\\ 0:r1=2 /\\ x=3").prop, Prop::conjunction(Prop::conjunction(a, b), c));
  EXPECT_EQ(cond("exists 0:r0=1 /\\ (0:r1=2 /\\ x=3)").prop, Prop::conjunction(a, Prop::conjunction(b, c)));
  EXPECT_EQ(cond("exists ~0:r0=1 /\\ x=3").prop, Prop::conjunction(Prop::negation(a), c));
  EXPECT_EQ(cond("exists ~(0:r0=1 /\\ x=3)").prop, Prop::negation(Prop::conjunction(a, c)));
  EXPECT_EQ(cond("exists ~~true").prop, Prop::negation(Prop::negation(t)));
  // Values: numbers and location names (addresses); old [x] references.
  EXPECT_EQ(cond("exists (0:r0=x /\\ [x]=-1)").prop,
            Prop::conjunction(Prop::equals({0, "r0", {}}, Expr::location("x")),
                              Prop::equals({std::nullopt, "x", {}}, Expr::constant(-1))));
}

// herd7's condition language (herdtools7 lib/stateParser.mly and lib/stateLexer.mll), one
// construct per test: the tree it parses to and the text herd7 prints for it.
struct HerdCondition {
  FinalCondition condition;
  std::string printed;  // the proposition as `Condition` prints it
};

HerdCondition herd_condition(const std::string& text) {
  Litmus t = parse_ok(one(" r[] r0 x ;\n r[] r1 y ;\n", "x = 0; y = 0;", text));
  return {t.condition, print_prop(t.condition.prop)};
}

const Prop kR0is1 = Prop::equals({0, "r0", {}}, Expr::constant(1));
const Prop kR1is0 = Prop::equals({0, "r1", {}}, Expr::constant(0));
const Prop kXis1 = Prop::equals({std::nullopt, "x", {}}, Expr::constant(1));

TEST(HerdConditions, NotIsAWordForNegation) {
  HerdCondition c = herd_condition("exists not (0:r0=1)");
  EXPECT_EQ(c.condition.prop, Prop::negation(kR0is1));
  EXPECT_EQ(c.printed, "not (0:r0=1)");
  EXPECT_EQ(herd_condition("exists (not (0:r0=1 /\\ 0:r1=0))").condition.prop,
            Prop::negation(Prop::conjunction(kR0is1, kR1is0)));
  // `not` binds tighter than every operator, as `~` does.
  EXPECT_EQ(herd_condition("exists not 0:r0=1 /\\ 0:r1=0").condition.prop,
            Prop::conjunction(Prop::negation(kR0is1), kR1is0));
  EXPECT_EQ(herd_condition("exists ~0:r0=1").printed, "not (0:r0=1)");
  EXPECT_EQ(herd_condition("exists not not (0:r0=1)").printed, "not (not (0:r0=1))");
}

TEST(HerdConditions, NotExistsIsTildeExists) {
  EXPECT_EQ(herd_condition("not exists (0:r0=1)").condition.quantifier, Quantifier::NotExists);
  EXPECT_EQ(herd_condition("~ exists (0:r0=1)").condition.quantifier, Quantifier::NotExists);
}

TEST(HerdConditions, ImplicationBindsTighterThanAndAndAssociatesToTheRight) {
  EXPECT_EQ(herd_condition("forall (0:r0=1 => 0:r1=0)").condition.prop, Prop::implication(kR0is1, kR1is0));
  EXPECT_EQ(herd_condition("forall (0:r0=1 => 0:r1=0)").printed, "0:r0=1 => 0:r1=0");
  // stateParser.mly: %left OR, %left AND, %right IMPLIES, %nonassoc NOT (tightest last).
  EXPECT_EQ(herd_condition("forall 0:r0=1 /\\ 0:r1=0 => x=1").condition.prop,
            Prop::conjunction(kR0is1, Prop::implication(kR1is0, kXis1)));
  EXPECT_EQ(herd_condition("forall 0:r0=1 /\\ 0:r1=0 => x=1").printed, "0:r0=1 /\\ (0:r1=0 => x=1)");
  EXPECT_EQ(herd_condition("forall 0:r0=1 => 0:r1=0 \\/ x=1").condition.prop,
            Prop::disjunction(Prop::implication(kR0is1, kR1is0), kXis1));
  EXPECT_EQ(herd_condition("forall 0:r0=1 => 0:r1=0 => x=1").condition.prop,
            Prop::implication(kR0is1, Prop::implication(kR1is0, kXis1)));
  EXPECT_EQ(herd_condition("forall 0:r0=1 => 0:r1=0 => x=1").printed, "0:r0=1 => 0:r1=0 => x=1");
  EXPECT_EQ(herd_condition("forall not 0:r0=1 => x=1").condition.prop,
            Prop::implication(Prop::negation(kR0is1), kXis1));
  // herd7 prints `(a => b) => c` without its parentheses; they stay so that it parses back.
  EXPECT_EQ(herd_condition("forall (0:r0=1 => 0:r1=0) => x=1").printed, "(0:r0=1 => 0:r1=0) => x=1");
  EXPECT_EQ(herd_condition("forall (0:r0=1 \\/ 0:r1=0) => x=1").printed, "(0:r0=1 \\/ 0:r1=0) => x=1");
}

TEST(HerdConditions, TrueFalseAndNestedParentheses) {
  Prop t;
  t.kind = Prop::Kind::True;
  Prop f;
  f.kind = Prop::Kind::False;
  EXPECT_EQ(herd_condition("exists ((((true))) /\\ (not (false)))").condition.prop,
            Prop::conjunction(t, Prop::negation(f)));
  EXPECT_EQ(herd_condition("exists ((((true))) /\\ (not (false)))").printed, "true /\\ not (false)");
  EXPECT_EQ(herd_condition("exists ((0:r0=1 \\/ (0:r1=0)) /\\ ((x=1)))").printed, "(0:r0=1 \\/ 0:r1=0) /\\ x=1");
}

TEST(HerdConditions, EqualityAndInequalityOperators) {
  EXPECT_EQ(herd_condition("exists (0:r0==1)").condition.prop, kR0is1);
  EXPECT_EQ(herd_condition("exists (0:r0!=1)").condition.prop, Prop::negation(kR0is1));
  EXPECT_EQ(herd_condition("exists (0:r0<>1)").condition.prop, Prop::negation(kR0is1));
  EXPECT_EQ(herd_condition("exists (0:r0!=1)").printed, "not (0:r0=1)");
}

TEST(HerdConditions, ThreadNamesAndBracketedLocations) {
  EXPECT_EQ(herd_condition("exists (P0:r0=1)").condition.prop, kR0is1);
  EXPECT_EQ(herd_condition("exists ([x]=1)").condition.prop, kXis1);
  EXPECT_EQ(herd_condition("exists (x=1 /\\ P0:r1=0)").printed, "x=1 /\\ 0:r1=0");
}

TEST(HerdConditions, AtomsComparingTwoFinalValues) {
  Prop regs = Prop::same_value({0, "r0", {}}, {0, "r1", {}});
  EXPECT_EQ(herd_condition("exists (0:r0=0:r1)").condition.prop, regs);
  EXPECT_EQ(herd_condition("exists (0:r0=P0:r1)").condition.prop, regs);
  EXPECT_EQ(herd_condition("exists (0:r0=0:r1)").printed, "0:r0=0:r1");
  // `[y]` on the right is y's final value; a bare `y` would be its address.
  Prop loc = Prop::same_value({std::nullopt, "x", {}}, {std::nullopt, "y", {}});
  EXPECT_EQ(herd_condition("exists ([x]=[y])").condition.prop, loc);
  EXPECT_EQ(herd_condition("exists ([x]=[y])").printed, "x=[y]");
  EXPECT_EQ(herd_condition("exists (x=0:r0)").condition.prop, Prop::same_value({std::nullopt, "x", {}}, {0, "r0", {}}));
  EXPECT_EQ(herd_condition("exists (0:r0<>[y])").condition.prop,
            Prop::negation(Prop::same_value({0, "r0", {}}, {std::nullopt, "y", {}})));
  // Both sides are observed.
  Litmus t = parse_ok(one(" r[] r0 x ;\n", "x = 0; y = 0;", "exists (0:r0=[y])"));
  EXPECT_EQ(t.observed(), (std::vector<ObservedRef>{{0, "r0", {}}, {std::nullopt, "y", {}}}));
}

TEST(HerdConditions, OlderConditionForms) {
  // `final P` and a bare `(P)` mean `exists`; a ';' may follow the condition.
  EXPECT_EQ(herd_condition("final (0:r0=1)").condition.quantifier, Quantifier::Exists);
  HerdCondition bare = herd_condition("(0:r0=1 /\\ 0:r1=0)");
  EXPECT_EQ(bare.condition.quantifier, Quantifier::Exists);
  EXPECT_EQ(bare.condition.prop, Prop::conjunction(kR0is1, kR1is0));
  EXPECT_EQ(herd_condition("exists (0:r0=1);").condition.prop, kR0is1);
}

TEST(HerdConditions, NoConditionIsForallTrueWithAWarning) {
  ParseResult r = parse_litmus("LISA T\n{ x = 0; }\n P0 ;\n r[] r0 x ;\nscopes: (wg 0)\n");
  ASSERT_TRUE(r.ok()) << r.diagnostics.render("t.litmus");
  EXPECT_EQ(r.test->condition.quantifier, Quantifier::Forall);
  EXPECT_EQ(r.test->condition.prop.kind, Prop::Kind::True);
  EXPECT_NE(r.diagnostics.render("t.litmus")
                .find("t.litmus:6:1: warning: no final condition: read as 'forall (true)', as herd7 does"),
            std::string::npos)
      << r.diagnostics.render("t.litmus");
}

TEST(HerdConditions, UnsupportedHerdFormsAreNamed) {
  ParseResult fault = parse_litmus(one(" r[] r0 x ;\n", "x = 0;", "exists (fault(P0,x))"));
  EXPECT_NE(fault.diagnostics.render("t").find("fault(...) atoms are not supported"), std::string::npos)
      << fault.diagnostics.render("t");
  ParseResult with = parse_litmus(one(" r[] r0 x ;\n", "x = 0;", "exists (x=0) with tso: exists"));
  EXPECT_NE(with.diagnostics.render("t").find("herd7's 'with' conditions are not supported"), std::string::npos)
      << with.diagnostics.render("t");
}

TEST(Parser, CommentsAreNotDecoded) {
  // herd7 skips a comment's bytes: Latin-1 (here "café" and "Müller" in ISO 8859-1), nested
  // comments and bytes that are no encoding at all are accepted inside `(* ... *)`.
  Litmus plain = parse_ok(one(" r[] r0 x ;\n"));
  Litmus commented = parse_ok(std::string("(* caf\xe9 *)LISA T (* M\xfcller *)\n{ x = 0; }\n P0 ;\n") +
                              " r[] r0 x ; (* (* \xff\xfe\xc3 *) \x80 *)\nscopes: (wg 0)\nexists (x=0) (* \xe9 *)\n");
  EXPECT_EQ(plain, commented);
}

TEST(Parser, NestedCommentsAnywhereBetweenTokens) {
  Litmus plain = parse_ok(
      "LISA T\n{ x = 0; 0:r1 = 1; }\n P0 | P1 ;\n r[atomic,scacq,wg] r0 x+r1 | w[] x 1 ;\n"
      "scopes: (wg 0 1)\nexists (0:r0=1 /\\ x=1)\n");
  Litmus commented = parse_ok(
      "(* a (* b *) c *)LISA T (* t *)\n(* d *){(**) x (* e *)= 0(*;*); 0(*:*):(* *)r1 = 1; }\n"
      "(* f *) P0 (* g *)| P1 ;(* h *)\n r(* i *)[(* j *)atomic(* k *),scacq,(* l *)wg(* m *)]"
      "(* n *) r0 (* o *)x(* p *)+(* q *)r1 (* r *)| w[] x 1 ;\n"
      "(* (* (* deep *) *) *)scopes(* s *):(* t *) ((* u *)wg 0 (* v *)1)\n"
      "exists (* w *)((* x *)0:r0(* y *)=(* z *)1 /\\(* * *) x=1)(* end *)\n(* after *)\n");
  EXPECT_EQ(plain, commented);
  // A comment may open with `(*` right after another `(`.
  Litmus paren = parse_ok(one(" mov r1 ((* c *)add 1 2) ;\n", "x = 0;", "exists ((*c*)x=0)"));
  EXPECT_EQ(paren.threads[0].code[0].value, Expr::binary(BinaryOp::Add, Expr::constant(1), Expr::constant(2)));
}

TEST(Parser, WindowsLineEndingsAndTabs) {
  Litmus t = parse_ok(
      "LISA T\r\n\"d\"\r\nCycle=x\r\n{\tx = 0; }\r\n P0\t;\r\n r[]\tr0 x ;\r\n"
      "scopes: (wg 0)\r\nexists (0:r0=0)\r\n");
  EXPECT_EQ(t.name, "T");
  EXPECT_EQ(t.description, "d");
  EXPECT_EQ(t.metadata[0].value, "x");
}

TEST(Parser, PositionsAreKeptButIgnoredByEquality) {
  Litmus t = parse_ok(
      "LISA T\n{ x = 0; }\n P0 | P1 ;\n w[] x 1 | r[] r0 x ;\n"
      "scopes: (wg 0 1)\nexists (1:r0=1)\n");
  EXPECT_EQ(t.threads[1].code[0].pos.at, (SourcePos{4, 12}));
  EXPECT_EQ(t.threads[1].pos.at, (SourcePos{3, 7}));
  EXPECT_EQ(t.condition.pos.at, (SourcePos{6, 1}));
  Litmus moved = parse_ok(
      "LISA T\n\n{ x = 0; }\n P0 | P1 ;\n\n   w[] x 1 | r[] r0 x ;\n"
      "scopes: (wg 0 1)\nexists (1:r0=1)\n");
  EXPECT_EQ(t, moved);
}

TEST(Printer, CanonicalText) {
  Litmus t = parse_ok(
      "LISA MP\n\"d\"\nCycle=Rfe Fre\n{ x = 0; 1:r1 = -1; }\n P0 | P1 ;\n"
      " w[] x 42 | r[scacq,agent,atomic] r0 flag ;\n w[atomic,screl,wg] flag 1 | b[ne] r0, 1, Skip "
      ";\n"
      " | r[] r1 x ;\n | Skip: ;\nscopes: (agent (wg 0 1))\nregions: x:global, flag:global\n"
      "locations [x]\nfilter ~1:r0=2\n~exists (1:r0=1 /\\ 1:r1=0 \\/ ~(x=1 \\/ x=2))\n");
  EXPECT_EQ(print_litmus(t),
            "LISA MP\n"
            "\"d\"\n"
            "Cycle=Rfe Fre\n"
            "{ x = 0; 1:r1 = -1; }\n"
            " P0                        | P1                            ;\n"
            " w[] x 42                  | r[atomic,scacq,agent] r0 flag ;\n"
            " w[atomic,screl,wg] flag 1 | b[ne] r0, 1, Skip             ;\n"
            "                           | r[] r1 x                      ;\n"
            "                           | Skip:                         ;\n"
            "scopes: (agent (wg 0 1))\n"
            "regions: x:global, flag:global\n"
            "locations [x;]\n"
            "filter (not (1:r0=2))\n"
            "~exists (1:r0=1 /\\ 1:r1=0 \\/ not (x=1 \\/ x=2))\n");
}

TEST(Printer, FlatChainsStayFlat) {
  // A long chain prints without nested parentheses, so it reads back under the nesting
  // limit that bounds the tree.
  std::string chain = "0:r0=0";
  for (int i = 1; i < 60; ++i) chain += " /\\ 0:r0=" + std::to_string(i);
  Litmus t = parse_ok(one(" r[] r0 x ;\n", "x = 0;", "exists (" + chain + ")"));
  EXPECT_EQ(print_prop(t.condition.prop), chain);
}

}  // namespace
}  // namespace hsalit::litmus
