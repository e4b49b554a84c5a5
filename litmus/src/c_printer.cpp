// Writing a test in herd's C format with its OpenCL extensions (docs/litmus-c.md, "Writing
// C"): the inverse of the C front end's lowering, for the tests it can express.
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "c_parser.hpp"
#include "hsalit/litmus/printer.hpp"

namespace hsalit::litmus {

namespace {

[[noreturn]] void cannot(const Thread& thread, const Instruction& ins, std::string_view why) {
  throw CPrintError(
      fmt::format("P{}: '{}' cannot be written in herd's C format: {}", thread.id, print_instruction(ins), why));
}

std::string_view c_scope(Scope s) {
  switch (s) {
    case Scope::WorkItem:
    case Scope::Wavefront: return "memory_scope_work_item";
    case Scope::WorkGroup: return "memory_scope_work_group";
    case Scope::Agent: return "memory_scope_device";
    case Scope::System: return "memory_scope_all_svm_devices";
  }
  return "memory_scope_device";
}

// The C order of an atomic or fence, read back as the same order by the C front end, or as
// one that behaves the same under HSA's model and OpenCL's: an HSA scar load is an acquire
// load in both (a load releases nothing). What has no such order throws.
std::string_view c_order(const Thread& thread, const Instruction& ins) {
  const Annotations& a = ins.annots;
  if (a.seq_cst) {
    if (a.order != MemoryOrder::AcquireRelease)
      cannot(thread, ins, "seq_cst reads back as scar; an 'sc' beside scacq or screl has no C order");
    return "memory_order_seq_cst";
  }
  switch (a.order) {
    case MemoryOrder::Relaxed: return "memory_order_relaxed";
    case MemoryOrder::Acquire: return "memory_order_acquire";
    case MemoryOrder::Release: return "memory_order_release";
    case MemoryOrder::AcquireRelease:
      if (ins.kind == OpKind::Load) return "memory_order_acquire";
      if (ins.kind == OpKind::Store)
        cannot(thread, ins,
               "an HSA scar store also acquires, which no C11 store does (write screl, or sc for seq_cst)");
      return "memory_order_acq_rel";
  }
  return "memory_order_relaxed";
}

std::string_view c_flags(const std::optional<Segment>& segment) {
  if (!segment) return "CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE";
  return *segment == Segment::Global ? "CLK_GLOBAL_MEM_FENCE" : "CLK_LOCAL_MEM_FENCE";
}

// A LISA register as a C name: r0 as itself, %NAME as NAME (hsalit's temporaries %T0, ... as
// tmp_T0, a name the C front end accepts).
std::string c_register(std::string_view reg) {
  if (!reg.starts_with("%")) return std::string(reg);
  const std::string name(reg.substr(1));
  return detail::is_temporary_name(name) ? "tmp_" + name : name;
}

class ThreadWriter {
 public:
  ThreadWriter(const Test& test, const Thread& thread) : test_(test), thread_(thread) {}

  std::string write() {
    for (const InitEntry& e : test_.init)
      if (e.thread == thread_.id)
        throw CPrintError(fmt::format("P{}: the initial value of register {} cannot be written in herd's C format",
                                      thread_.id, e.name));
    declare_registers_read_first();
    block(0, thread_.code.size(), 1);
    return out_;
  }

  // `int r;` for each register the thread reads before it assigns it (it holds 0 until then).
  void declare_registers_read_first() {
    std::set<std::string> assigned;
    std::vector<std::string> first;
    auto uses = [&](const Expr& e, auto&& self) -> void {
      if (e.is_register() && !assigned.count(e.name) && std::find(first.begin(), first.end(), e.name) == first.end())
        first.push_back(e.name);
      for (const Expr& o : e.operands) self(o, self);
    };
    for (const Instruction& ins : thread_.code) {
      uses(ins.value, uses);
      if (ins.expected) uses(*ins.expected, uses);
      if (ins.condition) uses(*ins.condition, uses);
      uses(ins.addr.base, uses);
      if (ins.addr.offset) uses(*ins.addr.offset, uses);
      if (!ins.reg.empty()) assigned.insert(ins.reg);
    }
    for (const std::string& reg : first) {
      line(1, fmt::format("int {};", c_register(reg)));
      declared_.insert(c_register(reg));
    }
  }

 private:
  void line(int depth, const std::string& text) {
    out_ += std::string(2 * static_cast<std::size_t>(depth), ' ') + text + "\n";
  }

  std::string value(const Instruction& ins, const Expr& e) {
    if (e.is_constant()) return std::to_string(e.value);
    if (e.is_register()) return c_register(e.name);
    cannot(thread_, ins, "a value is a constant or a register there");
  }

  // A value, an operation computed first into a register of its own (`int tmp_e0 = r0 ^ r0;`),
  // since the C front end reads one operator per statement: the same values and dependencies.
  std::string operand(const Instruction& ins, const Expr& e, int depth) {
    if (e.kind != Expr::Kind::Binary) return value(ins, e);
    const std::string name = fmt::format("tmp_e{}", next_temporary_++);
    declared_.insert(name);
    line(depth, fmt::format("int {} = {};", name, operation(ins, e, depth)));
    return name;
  }

  std::string operation(const Instruction& ins, const Expr& e, int depth) {
    if (e.operands.size() != 2) cannot(thread_, ins, "an operation of two operands");
    const std::string a = operand(ins, e.operands[0], depth), b = operand(ins, e.operands[1], depth);
    return fmt::format("{} {} {}", a, detail::find_operator(detail::kCOperators, e.op)->text, b);
  }

  std::string location(const Instruction& ins) {
    if (!ins.addr.base.is_location() || ins.addr.offset)
      cannot(thread_, ins, "an address is a location (no register addresses or offsets)");
    return ins.addr.base.name;
  }

  // `int r = ` the first time a register is assigned, `r = ` after.
  std::string assign(const std::string& reg) {
    const std::string name = c_register(reg);
    return declared_.insert(name).second ? fmt::format("int {} = ", name) : fmt::format("{} = ", name);
  }

  std::string scope_suffix(const Instruction& ins) { return fmt::format(", {}", c_scope(ins.annots.scope)); }

  std::size_t label_index(const Instruction& branch, std::size_t from, std::size_t end) {
    for (std::size_t j = from; j < end; ++j)
      if (thread_.code[j].kind == OpKind::Label && thread_.code[j].label == branch.label) return j;
    cannot(thread_, branch, "only a forward branch over a block is an 'if'");
  }

  // The statements of code[begin, end), at `depth`.
  void block(std::size_t begin, std::size_t end, int depth) {
    for (std::size_t i = begin; i < end; ++i) {
      const Instruction& ins = thread_.code[i];
      if (ins.kind == OpKind::Branch) {
        const std::size_t target = label_index(ins, i + 1, end);
        line(depth, fmt::format("if ({}) {{", run_condition(ins)));
        block(i + 1, target, depth + 1);
        line(depth, "}");
        i = target;  // the label
        continue;
      }
      statement(ins, depth);
    }
  }

  // The C condition under which the code a branch skips runs: the branch not taken.
  std::string run_condition(const Instruction& b) {
    if (!b.condition) cannot(thread_, b, "an unconditional branch is no 'if'");
    const Expr& c = *b.condition;
    if (c.kind == Expr::Kind::Binary && (c.op == BinaryOp::Eq || c.op == BinaryOp::Ne) && c.operands.size() == 2 &&
        c.operands[0].is_register())
      return fmt::format("{} {} {}", c_register(c.operands[0].name),
                         c.op == BinaryOp::Eq ? "!=" : "==", value(b, c.operands[1]));
    if (c.is_register()) return fmt::format("{} == 0", c_register(c.name));
    cannot(thread_, b, "a branch condition is a register or a comparison of one");
  }

  void statement(const Instruction& ins, int depth) {
    const Annotations& a = ins.annots;
    if (a.size == AccessSize::Double) cannot(thread_, ins, "64-bit accesses are not read back");
    switch (ins.kind) {
      case OpKind::Load:
        if (!a.atomic) return line(depth, fmt::format("{}*{};", assign(ins.reg), location(ins)));
        return line(depth, fmt::format("{}atomic_load_explicit({}, {}{});", assign(ins.reg), location(ins),
                                       c_order(thread_, ins), scope_suffix(ins)));
      case OpKind::Store:
        if (!a.atomic) return line(depth, fmt::format("*{} = {};", location(ins), operand(ins, ins.value, depth)));
        return line(depth, fmt::format("atomic_store_explicit({}, {}, {}{});", location(ins),
                                       operand(ins, ins.value, depth), c_order(thread_, ins), scope_suffix(ins)));
      case OpKind::Rmw: return rmw(ins, depth);
      case OpKind::Fence:
        return line(depth, fmt::format("atomic_work_item_fence({}, {}, {});", c_flags(a.fence_segment),
                                       c_order(thread_, ins), c_scope(a.scope)));
      case OpKind::Barrier: return line(depth, fmt::format("barrier({});", c_flags(a.fence_segment)));
      case OpKind::Mov: return mov(ins, depth);
      case OpKind::Label: cannot(thread_, ins, "a label no forward branch ends at");
      case OpKind::Branch: break;  // block() writes branches
    }
  }

  void rmw(const Instruction& ins, int depth) {
    if (ins.annots.cas)
      cannot(thread_, ins, "a compare-and-swap (C's compare-exchange reads its expected value from a location)");
    const Expr& v = ins.value;
    std::string call;
    if (v.kind == Expr::Kind::Binary) {
      const detail::COperator* fetch = detail::find_operator(detail::kCFetchOperations, v.op);
      if (!fetch || v.operands.size() != 2 || !v.operands[0].is_register() || v.operands[0].name != ins.reg)
        cannot(thread_, ins, "a read-modify-write is an exchange or (OP REG V) on its own register");
      call = fmt::format("atomic_fetch_{}_explicit({}, {}", fetch->text, location(ins), value(ins, v.operands[1]));
    } else {
      if (v.is_register() && v.name == ins.reg) cannot(thread_, ins, "an exchange of the register it reads into");
      call = fmt::format("atomic_exchange_explicit({}, {}", location(ins), value(ins, v));
    }
    line(depth, fmt::format("{}{}, {}{});", assign(ins.reg), call, c_order(thread_, ins), scope_suffix(ins)));
  }

  void mov(const Instruction& ins, int depth) {
    const std::string text =
        ins.value.kind == Expr::Kind::Binary ? operation(ins, ins.value, depth) : value(ins, ins.value);
    line(depth, fmt::format("{}{};", assign(ins.reg), text));
  }

  const Test& test_;
  const Thread& thread_;
  std::set<std::string> declared_;
  int next_temporary_ = 0;
  std::string out_;
};

// A condition's references to hsalit's temporaries, as the C text renames them (c_register).
void rename_temporaries(Prop& p) {
  auto rename = [](ObservedRef& r) {
    if (r.thread && r.name.starts_with("%")) r.name = "%" + c_register(r.name);
  };
  rename(p.lhs);
  rename(p.rhs_ref);
  for (Prop& o : p.operands) rename_temporaries(o);
}

}  // namespace

std::string print_c(const Test& test) {
  Test renamed = test;
  rename_temporaries(renamed.condition.prop);
  if (renamed.filter) rename_temporaries(*renamed.filter);
  for (ObservedRef& r : renamed.locations)
    if (r.thread && r.name.starts_with("%")) r.name = "%" + c_register(r.name);
  for (const InitEntry& e : test.init)
    if (!e.thread && !e.value.is_constant())
      throw CPrintError(
          fmt::format("the initial value of {} is an address, which herd's C format cannot write", e.name));
  std::string out = fmt::format("OpenCL {}\n", test.name);
  if (!test.description.empty()) out += fmt::format("\"{}\"\n", test.description);
  out += "{";
  for (const InitEntry& e : test.init)
    if (!e.thread) out += fmt::format(" {} = {};", e.name, e.value.value);
  out += " }\n";
  // Every thread takes every location of the test as a parameter, typed by its segment.
  std::vector<std::string> parameters;
  for (const std::string& name : test.location_names())
    parameters.push_back(fmt::format("{} int* {}", test.segment_of(name) == Segment::Group ? "local" : "global", name));
  const std::string parameter_list = parameters.empty() ? "void" : fmt::format("{}", fmt::join(parameters, ", "));
  for (const Thread& thread : test.threads) {
    out += fmt::format("\nP{}({}) {{\n", thread.id, parameter_list);
    out += ThreadWriter(test, thread).write();
    out += "}\n";
  }
  out += "\n" + print_trailers(renamed, /*regions=*/false);
  return out;
}

}  // namespace hsalit::litmus
