// Semantic checks of a test: what the grammar cannot say. Shared by the text parser and
// the JSON reader so that both accept exactly the same tests.
#include "hsalit/litmus/check.hpp"

#include <fmt/format.h>

#include <map>
#include <set>
#include <string_view>

namespace hsalit::litmus {
namespace {

// Names as the text form spells them, so that a test read from JSON prints back as text.
bool is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '.'; }
bool is_digits(std::string_view s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos; }
bool is_identifier(std::string_view s) {
  if (s.empty() || !is_name_start(s[0])) return false;
  for (char c : s)
    if (!is_name_char(c)) return false;
  return true;
}
// r0, r12 or diy7's temporaries %T1.
bool is_register_name(std::string_view s) {
  if (s.size() > 1 && s[0] == 'r' && is_digits(s.substr(1))) return true;
  return s.size() > 1 && s[0] == '%' && is_identifier(s.substr(1));
}
bool is_location_name(std::string_view s) { return is_identifier(s) && !is_register_name(s); }
// A label cannot be an opcode (the cell would read as an instruction) or a trailer keyword
// (the row would read as the end of the program).
bool is_label_name(std::string_view s) {
  static const std::set<std::string_view> kReserved = {"r",       "w",      "rmw",    "f",       "b",         "mov",
                                                       "barrier", "call",   "scopes", "regions", "locations", "filter",
                                                       "exists",  "forall", "not",    "final"};
  return is_location_name(s) && !kReserved.count(s);
}

class TestChecker {
 public:
  TestChecker(Test& test, DiagnosticList& diags, const ParseLimits& limits)
      : test_(test), diags_(diags), limits_(limits) {}

  void run() {
    if (!check_threads()) return;
    check_init();
    for (const Thread& t : test_.threads) check_thread(t);
    check_scopes();
    check_regions();
    for (const ObservedRef& r : test_.locations) check_observed(r, "'locations'");
    if (test_.filter) check_prop(*test_.filter, "filter");
    check_prop(test_.condition.prop, "condition");
  }

 private:
  int thread_count() const { return static_cast<int>(test_.threads.size()); }

  bool check_threads() {
    if (test_.threads.empty()) {
      diags_.error({}, "the test has no threads");
      return false;
    }
    if (thread_count() > limits_.max_threads) {
      diags_.error(test_.threads[0].pos.at,
                   fmt::format("too many threads ({}; the limit is {})", thread_count(), limits_.max_threads));
      return false;
    }
    bool ok = true;
    for (int i = 0; i < thread_count(); ++i) {
      const Thread& t = test_.threads[static_cast<std::size_t>(i)];
      if (t.id != i) {
        diags_.error(t.pos.at, fmt::format("thread {} is numbered {} (threads are numbered 0, 1, "
                                           "... in order)",
                                           i, t.id));
        ok = false;
      }
      if (static_cast<int>(t.code.size()) > limits_.max_instructions_per_thread) {
        diags_.error(t.pos.at, fmt::format("thread P{} has more than {} instructions", t.id,
                                           limits_.max_instructions_per_thread));
        ok = false;
      }
      registers_.emplace_back();
    }
    return ok;
  }

  void check_init() {
    std::set<std::pair<int, std::string>> seen;
    for (const InitEntry& e : test_.init) {
      if (e.thread && (*e.thread < 0 || *e.thread >= thread_count())) {
        diags_.error(e.pos.at, fmt::format("initial state names thread {} but the test has {} "
                                           "thread{}",
                                           *e.thread, thread_count(), thread_count() == 1 ? "" : "s"));
        continue;
      }
      if (!seen.insert({e.thread.value_or(-1), e.name}).second)
        diags_.error(e.pos.at, fmt::format("'{}' is initialised twice",
                                           e.thread ? fmt::format("{}:{}", *e.thread, e.name) : e.name));
      if (!e.value.is_constant() && !e.value.is_location())
        diags_.error(e.pos.at, "an initial value is a number or a location name");
      if (e.thread) {
        check_register_name(e.pos.at, e.name);
        registers_[static_cast<std::size_t>(*e.thread)].insert(e.name);
      } else {
        check_location_name(e.pos.at, e.name);
      }
      if (e.value.is_location()) check_location_name(e.value.pos.at, e.value.name);
    }
  }

  // Registers a thread can read: initialised ones and those some instruction writes.
  void collect_registers(const Thread& t) {
    auto& regs = registers_[static_cast<std::size_t>(t.id)];
    for (const Instruction& ins : t.code)
      if (ins.kind == OpKind::Load || ins.kind == OpKind::Rmw || ins.kind == OpKind::Mov) regs.insert(ins.reg);
  }

  void check_register_name(SourcePos at, const std::string& name) {
    if (!is_register_name(name))
      diags_.error(at, fmt::format("'{}' is not a register name (r0, r1, ... or %T1)", name));
  }
  void check_location_name(SourcePos at, const std::string& name) {
    if (!is_location_name(name)) diags_.error(at, fmt::format("'{}' is not a location name", name));
  }

  // Checks the names in an expression and that every register it reads has a value.
  void check_expr_registers(const Thread& t, const Expr& e) {
    if (e.is_location()) check_location_name(e.pos.at, e.name);
    if (e.is_register() && !is_register_name(e.name))
      check_register_name(e.pos.at, e.name);
    else if (e.is_register() && !registers_[static_cast<std::size_t>(t.id)].count(e.name))
      diags_.error(e.pos.at, fmt::format("unknown register '{}': thread P{} neither initialises "
                                         "nor writes it",
                                         e.name, t.id));
    if (e.kind == Expr::Kind::Binary && e.operands.size() != 2)
      diags_.error(e.pos.at, "an operation has exactly two operands");
    for (const Expr& o : e.operands) check_expr_registers(t, o);
  }

  void check_address(const Thread& t, const Instruction& ins) {
    const Address& a = ins.addr;
    if (!a.base.is_location() && !a.base.is_register()) {
      diags_.error(a.pos.at, "an address is a location or a register");
      return;
    }
    check_expr_registers(t, a.base);
    if (a.offset) {
      if (!a.offset->is_constant() && !a.offset->is_register())
        diags_.error(a.pos.at, "an address offset is a constant or a register");
      check_expr_registers(t, *a.offset);
    }
  }

  void check_thread(const Thread& t) {
    collect_registers(t);
    std::map<std::string, std::size_t> labels;
    for (std::size_t i = 0; i < t.code.size(); ++i) {
      const Instruction& ins = t.code[i];
      if (ins.kind != OpKind::Label && ins.kind != OpKind::Branch) continue;
      if (!is_label_name(ins.label))
        diags_.error(ins.pos.at, fmt::format("'{}' cannot be a label (a label is a name that is "
                                             "not a register, an instruction or a keyword)",
                                             ins.label));
      if (ins.kind != OpKind::Label) continue;
      if (!labels.emplace(ins.label, i).second)
        diags_.error(ins.pos.at, fmt::format("label '{}' is defined twice in thread P{}", ins.label, t.id));
    }
    for (std::size_t i = 0; i < t.code.size(); ++i) {
      const Instruction& ins = t.code[i];
      check_annotations(ins);
      switch (ins.kind) {
        case OpKind::Load: check_address(t, ins); break;
        case OpKind::Store:
          check_address(t, ins);
          if (!ins.value.is_constant() && !ins.value.is_register())
            diags_.error(ins.pos.at, "a store writes a constant or a register");
          check_expr_registers(t, ins.value);
          break;
        case OpKind::Rmw:
          check_address(t, ins);
          check_expr_registers(t, ins.value);
          if (ins.expected) check_expr_registers(t, *ins.expected);
          if (ins.annots.cas != ins.expected.has_value())
            diags_.error(ins.pos.at, "a compare-and-swap has an expected value and a new value");
          break;
        case OpKind::Mov: check_expr_registers(t, ins.value); break;
        case OpKind::Branch: {
          if (ins.condition) {
            check_expr_registers(t, *ins.condition);
            check_branch_condition(ins);
          }
          for (const std::string& tag : ins.annots.tags)
            if (!is_identifier(tag) || tag == "eq" || tag == "ne" || tag == "neq")
              diags_.error(ins.pos.at, fmt::format("'{}' is not a branch annotation", tag));
          auto target = labels.find(ins.label);
          if (target == labels.end())
            diags_.error(ins.pos.at, fmt::format("unknown label '{}' in thread P{}", ins.label, t.id));
          else if (target->second < i)
            diags_.error(ins.pos.at, fmt::format("backward branch to '{}': only forward branches "
                                                 "are supported (a loop makes executions "
                                                 "unbounded)",
                                                 ins.label));
          break;
        }
        case OpKind::Label:
        case OpKind::Fence:
        case OpKind::Barrier: break;
      }
      if (ins.kind == OpKind::Load || ins.kind == OpKind::Rmw || ins.kind == OpKind::Mov) {
        if (ins.reg.empty())
          diags_.error(ins.pos.at, "missing destination register");
        else
          check_register_name(ins.pos.at, ins.reg);
      }
    }
  }

  // A branch tests a register, or compares one with a value (`b[eq] r1, 0, L`).
  void check_branch_condition(const Instruction& ins) {
    const Expr& c = *ins.condition;
    if (c.is_register()) return;
    bool compare = c.kind == Expr::Kind::Binary && (c.op == BinaryOp::Eq || c.op == BinaryOp::Ne) &&
                   c.operands.size() == 2 && c.operands[0].is_register() &&
                   (c.operands[1].is_register() || c.operands[1].is_constant());
    if (!compare) diags_.error(ins.pos.at, "a branch condition is a register, or (eq|neq REGISTER VALUE)");
  }

  // The annotation rules of HSA SysArch 3.3.1 and 3.3.6 and HSA PRM 6.2: which orders each
  // operation takes, and that only atomics and fences carry a scope.
  void check_annotations(const Instruction& ins) {
    const Annotations& a = ins.annots;
    const SourcePos at = ins.pos.at;
    if (ins.kind != OpKind::Branch && !a.tags.empty())
      diags_.error(at, fmt::format("unknown annotation '{}'", a.tags.front()));
    if (a.cas && ins.kind != OpKind::Rmw) diags_.error(at, "'cas' applies to rmw only");
    if (ins.expected && ins.kind != OpKind::Rmw) diags_.error(at, "only a compare-and-swap has an expected value");
    if (ins.condition && ins.kind != OpKind::Branch) diags_.error(at, "only a branch has a condition");
    if (a.fence_segment && ins.kind != OpKind::Fence && ins.kind != OpKind::Barrier)
      diags_.error(at, "only a fence or a barrier names a segment");
    if (!ins.is_memory_access() && ins.kind != OpKind::Fence) {
      if (a.atomic || a.order != MemoryOrder::Relaxed || a.scope != Scope::WorkItem || a.size != AccessSize::Single ||
          a.seq_cst)
        diags_.error(at, fmt::format("a {} has no atomicity, order, scope or size", to_string(ins.kind)));
      return;
    }

    if (a.seq_cst && a.order == MemoryOrder::Relaxed)
      diags_.error(at, "'sc' (seq_cst) needs an order beside it: scacq, screl or scar");
    if (ins.kind == OpKind::Fence) {
      if (a.atomic) diags_.error(at, "a fence is not 'atomic': write f[ORDER,SCOPE]");
      if (a.order == MemoryOrder::Relaxed)
        diags_.error(at, "a fence needs an order: scacq, screl or scar (HSA has no relaxed fence)");
      if (a.scope == Scope::WorkItem) diags_.error(at, "a fence needs a scope: wave, wg, agent or system");
      if (a.size != AccessSize::Single) diags_.error(at, "a fence has no access size");
      return;
    }
    if (!a.atomic) {
      if (ins.kind == OpKind::Rmw) {  // one message, whatever else the brackets say
        diags_.error(at, "a read-modify-write is atomic: write rmw[atomic,ORDER,SCOPE]");
        return;
      }
      if (a.order != MemoryOrder::Relaxed || a.seq_cst)
        diags_.error(at, fmt::format("an ordinary access cannot be '{}': write 'atomic' for an "
                                     "atomic operation (HSA SysArch 3.3.1)",
                                     to_string(a.order)));
      if (a.scope != Scope::WorkItem)
        diags_.error(at, fmt::format("an ordinary access has work-item scope, not '{}': write "
                                     "'atomic' for an atomic operation (HSA SysArch 3.3.6)",
                                     to_string(a.scope)));
      return;
    }
    if (a.scope == Scope::WorkItem) diags_.error(at, "an atomic operation needs a scope: wave, wg, agent or system");
    if (ins.kind == OpKind::Load && a.order == MemoryOrder::Release)
      diags_.error(at, "a load cannot be 'screl' (loads are rlx, scacq or scar)");
    if (ins.kind == OpKind::Store && a.order == MemoryOrder::Acquire)
      diags_.error(at, "a store cannot be 'scacq' (stores are rlx, screl or scar)");
    if (ins.addr.base.is_location() && a.scope > Scope::WorkGroup &&
        test_.segment_of(ins.addr.base.name) == Segment::Group)
      diags_.warning(at, fmt::format("'{}' is in the group segment: scope '{}' acts as wg "
                                     "(HSA SysArch 3.3.6)",
                                     ins.addr.base.name, to_string(a.scope)));
  }

  void check_scopes() {
    if (test_.scopes.nodes().empty()) {
      test_.scopes = ScopeTree::default_for(thread_count());
      diags_.warning(test_.condition.pos.at,
                     "no 'scopes:' line: each thread is placed in its own work-group of one agent");
    }
    for (const ScopeTree::StrayThread& s : test_.scopes.drop_threads_from(thread_count()))
      diags_.warning(s.group, fmt::format("scope tree places thread {} but the test has {} thread{}: ignored, as "
                                          "herd7 does",
                                          s.thread, thread_count(), thread_count() == 1 ? "" : "s"));
    test_.scopes.resolve(thread_count(), diags_);
  }

  void check_regions() {
    std::set<std::string> seen;
    for (const RegionEntry& r : test_.regions) {
      check_location_name(r.pos.at, r.location);
      if (!seen.insert(r.location).second)
        diags_.error(r.pos.at, fmt::format("'{}' is given a region twice", r.location));
    }
  }

  void check_observed(const ObservedRef& r, std::string_view where) {
    if (!r.thread) {
      check_location_name(r.pos.at, r.name);
      if ((r.name == "true" || r.name == "false") && where != "'locations'")
        diags_.error(r.pos.at, fmt::format("'{}' cannot be a location in a condition", r.name));
      return;
    }
    check_register_name(r.pos.at, r.name);
    if (*r.thread < 0 || *r.thread >= thread_count()) {
      diags_.error(r.pos.at, fmt::format("{} names thread {} but the test has {} thread{}", where, *r.thread,
                                         thread_count(), thread_count() == 1 ? "" : "s"));
      return;
    }
    if (!registers_[static_cast<std::size_t>(*r.thread)].count(r.name))
      diags_.error(r.pos.at, fmt::format("{} reads {}:{} but thread P{} neither initialises nor "
                                         "writes {}",
                                         where, *r.thread, r.name, *r.thread, r.name));
  }

  void check_prop(const Prop& p, std::string_view where) {
    if (p.kind == Prop::Kind::Equals) {
      check_observed(p.lhs, where);
      if (!p.rhs.is_constant() && !p.rhs.is_location())
        diags_.error(p.pos.at, "a condition compares with a number or a location");
      else if (p.rhs.is_location())
        check_location_name(p.rhs.pos.at, p.rhs.name);
    }
    if (p.kind == Prop::Kind::SameValue) {
      check_observed(p.lhs, where);
      check_observed(p.rhs_ref, where);
    }
    const bool binary = p.kind == Prop::Kind::And || p.kind == Prop::Kind::Or || p.kind == Prop::Kind::Implies;
    std::size_t arity = p.kind == Prop::Kind::Not ? 1 : binary ? 2 : 0;
    if (p.operands.size() != arity) diags_.error(p.pos.at, "malformed condition");
    for (const Prop& o : p.operands) check_prop(o, where);
  }

  Test& test_;
  DiagnosticList& diags_;
  const ParseLimits& limits_;
  std::vector<std::set<std::string>> registers_;  // per thread
};

}  // namespace

bool check_test(Test& test, DiagnosticList& diags, const ParseLimits& limits) {
  std::size_t before = diags.error_count();
  TestChecker(test, diags, limits).run();
  return diags.error_count() == before;
}

}  // namespace hsalit::litmus
