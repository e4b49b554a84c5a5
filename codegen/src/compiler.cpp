// Litmus thread -> GCN program. The memory-model instructions come only from the mapping
// table; this file supplies the glue a kernel needs around them (address registers, value
// registers, ALU for `mov` and branches) in the forms of the target (codegen/targets.json).
#include "hsalit/codegen/compiler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <unordered_map>

#include "hsalit/codegen/memory_hierarchy.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/litmus/value_width.hpp"
#include "kernel_plan.hpp"

namespace hsalit::codegen {

using litmus::Expr;
using litmus::OpKind;

Ordering llvm_ordering(litmus::MemoryOrder order, bool sc_acquire_release) {
  switch (order) {
    case litmus::MemoryOrder::Relaxed: return Ordering::Monotonic;
    case litmus::MemoryOrder::Acquire: return sc_acquire_release ? Ordering::SeqCst : Ordering::Acquire;
    case litmus::MemoryOrder::Release: return sc_acquire_release ? Ordering::SeqCst : Ordering::Release;
    case litmus::MemoryOrder::AcquireRelease: return Ordering::SeqCst;
  }
  return Ordering::Monotonic;
}

SyncScope llvm_sync_scope(litmus::Scope scope) {
  switch (scope) {
    case litmus::Scope::WorkItem: return SyncScope::SingleThread;
    case litmus::Scope::Wavefront: return SyncScope::Wavefront;
    case litmus::Scope::WorkGroup: return SyncScope::Workgroup;
    case litmus::Scope::Agent: return SyncScope::Agent;
    case litmus::Scope::System: return SyncScope::System;
  }
  return SyncScope::System;
}

MemoryOperation memory_operation(const litmus::Test& test, const litmus::Instruction& ins, bool generic,
                                 bool sc_acquire_release) {
  MemoryOperation op;
  switch (ins.kind) {
    case OpKind::Load: op.operation = Operation::Load; break;
    case OpKind::Store: op.operation = Operation::Store; break;
    case OpKind::Rmw: op.operation = Operation::Rmw; break;
    case OpKind::Fence: op.operation = Operation::Fence; break;
    default: throw std::logic_error("memory_operation of a non-memory instruction");
  }
  const litmus::Annotations& a = ins.annots;
  if (ins.kind == OpKind::Fence || a.atomic) {
    op.atomicity = Atomicity::Atomic;
    op.ordering = llvm_ordering(a.order, sc_acquire_release);
    op.scope = llvm_sync_scope(a.scope);
  }
  if (ins.kind != OpKind::Fence) {
    bool group = ins.addr.base.is_location() && test.segment_of(ins.addr.base.name) == litmus::Segment::Group;
    op.space = generic ? AddressSpace::Generic : group ? AddressSpace::Local : AddressSpace::Global;
  }
  return op;
}

namespace {

Instruction from_template(const std::string& text, const std::map<std::string, std::string>& subst = {}) {
  std::string line = text;
  for (const auto& [key, value] : subst) {
    std::string pattern = "{" + key + "}";
    for (auto at = line.find(pattern); at != std::string::npos; at = line.find(pattern))
      line.replace(at, pattern.size(), value);
  }
  // The lines a compiler emits repeat across tests (the same rows, registers and offsets),
  // and a bound compiles millions of threads: each worker parses a line once.
  constexpr std::size_t kParsedLinesKept = 4096;
  thread_local std::unordered_map<std::string, Instruction> parsed;
  if (auto it = parsed.find(line); it != parsed.end()) return it->second;
  std::string error;
  auto ins = parse_instruction(line, error);
  if (!ins) throw std::logic_error(fmt::format("bad instruction template '{}': {}", line, error));
  if (parsed.size() >= kParsedLinesKept) parsed.clear();
  parsed.emplace(std::move(line), *ins);
  return *ins;
}

std::string reg_text(const Operand& o) {
  Instruction i;
  i.mnemonic = "x";
  i.operands.push_back(o);
  std::string s = print(i);
  return s.substr(2);
}

// VGPRs an instruction writes (its first operand, for loads, returning atomics and ALU
// results) and reads (the other register operands).
struct RegisterUse {
  std::vector<int> written, read;
};

RegisterUse register_use(const Instruction& ins) {
  RegisterUse u;
  InstrClass k = ins.kind();
  bool writes_first = k == InstrClass::VectorLoad || k == InstrClass::LdsLoad || k == InstrClass::VectorAtomic ||
                      k == InstrClass::LdsAtomic || (k == InstrClass::Alu && ins.mnemonic.rfind("v_cmp", 0) != 0);
  for (std::size_t i = 0; i < ins.operands.size(); ++i) {
    const Operand& o = ins.operands[i];
    if (o.kind != Operand::Kind::Vgpr) continue;
    bool first = i == 0 && writes_first;
    for (int r = o.reg; r < o.reg + o.count; ++r) {
      if (first) u.written.push_back(r);
      // MUBUF atomics also read their data register.
      if (!first || (k == InstrClass::VectorAtomic && ins.mnemonic.rfind("buffer_", 0) == 0)) u.read.push_back(r);
    }
  }
  return u;
}

// Loads write their VGPRs when they complete, and the hardware does not wait for that: the
// code must wait before reading or overwriting such a register ("additional s_waitcnt
// instructions are required to ensure registers are defined before being used", AMDGPUUsage
// "Memory Model"; LLVM's SIInsertWaitcnts). The target's counter model (target.hpp) says which
// counters each instruction increments: the wait is the weakest that suffices, on each counter
// the load counts in (vmcnt(N) on GFX6-GFX11, where stores count in vscnt from GFX10;
// s_wait_loadcnt N on GFX12) with N the operations that counter counted after the load, so
// that it orders nothing else. A counter the load shares with operations that complete in no
// common order with it (FLAT and LDS in lgkmcnt or dscnt) is waited for to 0. Forward branches
// merge by taking, per register and counter, the smaller count.
std::vector<Instruction> insert_register_waits(const std::vector<Instruction>& body, const CounterModel& model) {
  const std::size_t counters = model.names.size();
  const auto lds_slot = static_cast<std::size_t>(model.slot(model.lds_counter));
  // Per register a load will write: per counter, the operations issued after it that the
  // counter counts (-1: the counter does not count the load).
  using Outstanding = std::vector<int>;
  using PendingMap = std::map<int, Outstanding>;
  auto merge = [](PendingMap a, const PendingMap& b) {
    for (const auto& [r, o] : b) {
      auto [it, fresh] = a.emplace(r, o);
      if (fresh) continue;
      for (std::size_t c = 0; c < o.size(); ++c) {
        int& x = it->second[c];
        x = x < 0 ? o[c] : o[c] < 0 ? x : std::min(x, o[c]);
      }
    }
    return a;
  };
  auto settle = [&](PendingMap& pending, const std::vector<std::pair<std::string, int>>& bounds) {
    for (auto it = pending.begin(); it != pending.end();) {
      for (const auto& [name, bound] : bounds) {
        int c = model.slot(name);
        if (c >= 0 && it->second[static_cast<std::size_t>(c)] >= bound) it->second[static_cast<std::size_t>(c)] = -1;
      }
      bool done = std::all_of(it->second.begin(), it->second.end(), [](int x) { return x < 0; });
      it = done ? pending.erase(it) : std::next(it);
    }
  };
  // FLAT and LDS operations share the LDS counter but complete in no common order with each
  // other (CDNA4 ISA 4.4, LGKM_CNT), so a count above 0 there waits for nothing in particular.
  bool mixed_lds_counter = false;
  {
    bool flat = false, lds = false;
    for (const Instruction& ins : body) {
      flat |= ins.is_memory() && ins.mnemonic.rfind("flat_", 0) == 0;
      lds |= ins.kind() == InstrClass::LdsLoad || ins.kind() == InstrClass::LdsStore ||
             ins.kind() == InstrClass::LdsAtomic;
    }
    mixed_lds_counter = flat && lds;
  }
  std::map<std::string, PendingMap> at_label;
  std::vector<Instruction> out;
  PendingMap pending;
  bool reachable = true;
  for (const Instruction& ins : body) {
    InstrClass k = ins.kind();
    if (k == InstrClass::Label) {
      std::string name = ins.mnemonic.substr(0, ins.mnemonic.size() - 1);
      auto it = at_label.find(name);
      if (it != at_label.end()) pending = reachable ? merge(pending, it->second) : it->second;
      reachable = true;
      out.push_back(ins);
      continue;
    }
    RegisterUse use = register_use(ins);
    std::vector<int> bound(counters, -1);
    for (const std::vector<int>* regs : {&use.read, &use.written})
      for (int r : *regs) {
        auto it = pending.find(r);
        if (it == pending.end()) continue;
        for (std::size_t c = 0; c < counters; ++c) {
          int after = it->second[c];
          if (after < 0) continue;
          if (c == lds_slot && mixed_lds_counter) after = 0;
          bound[c] = bound[c] < 0 ? after : std::min(bound[c], after);
        }
      }
    std::vector<std::pair<std::string, int>> bounds;
    for (std::size_t c = 0; c < counters; ++c)
      if (bound[c] >= 0) bounds.emplace_back(model.names[c], bound[c]);
    if (!bounds.empty()) {
      for (Instruction wait : model.wait_instructions(bounds)) {
        wait.origin = ins.origin;
        wait.origin.row.clear();
        wait.origin.role = "register";
        out.push_back(std::move(wait));
      }
      settle(pending, bounds);
    }
    if (k == InstrClass::Wait) settle(pending, model.waits(ins));
    std::vector<std::string> issued = model.issued(ins);
    if (!issued.empty()) {
      Outstanding here(counters, -1);
      for (const std::string& name : issued) {
        int c = model.slot(name);
        if (c < 0) continue;
        for (auto& [r, o] : pending)
          if (o[static_cast<std::size_t>(c)] >= 0) ++o[static_cast<std::size_t>(c)];
        here[static_cast<std::size_t>(c)] = 0;
      }
      for (int r : use.written) pending[r] = here;
    } else {
      for (int r : use.written) pending.erase(r);
    }
    if (k == InstrClass::Branch) {
      const std::string& target = ins.operands.back().name;
      at_label[target] = at_label.count(target) ? merge(at_label[target], pending) : pending;
      if (ins.mnemonic == "s_branch") reachable = false;
    }
    out.push_back(ins);
  }
  return out;
}

class ThreadCompiler {
 public:
  ThreadCompiler(const litmus::Test& test, int thread, const Target& target, const TargetCatalog& catalog,
                 const MappingTable& table, const CompileOptions& options)
      : test_(test),
        thread_(test.threads[static_cast<std::size_t>(thread)]),
        t_(target),
        cat_(catalog),
        table_(table),
        opt_(options) {
    out_.thread = thread;
  }

  CompiledThread run() {
    bind_registers_and_locations();
    for (std::size_t i = 0; i < thread_.code.size(); ++i) {
      index_ = static_cast<int>(i);
      compile_instruction(thread_.code[i]);
    }
    emit(from_template("s_endpgm"), "", "");
    out_.code = std::move(prologue_);
    std::vector<Instruction> body = insert_register_waits(body_, counter_model(t_));
    out_.code.insert(out_.code.end(), body.begin(), body.end());
    out_.vgprs = next_v_;
    out_.sgprs = next_s_;
    return std::move(out_);
  }

 private:
  [[noreturn]] void fail(const std::string& why, std::string missing_row = {}) const {
    std::string where = index_ >= 0
                            ? fmt::format("P{}:{} '{}'", thread_.id, index_,
                                          litmus::print_instruction(thread_.code[static_cast<std::size_t>(index_)]))
                            : fmt::format("P{}", thread_.id);
    throw CompileError(fmt::format("{}: {} (target {}, table {})", where, why, t_.name, table_.name()),
                       std::move(missing_row));
  }

  int alloc_v(int count = 1) {
    if (count > 1 && t_.even_vgpr_pairs && next_v_ % 2) ++next_v_;
    int r = next_v_;
    next_v_ += count;
    return r;
  }
  int alloc_s(int count, int align) {
    while (next_s_ % align) ++next_s_;
    int r = next_s_;
    next_s_ += count;
    return r;
  }

  void emit(Instruction ins, std::string row, std::string role) {
    ins.origin = {thread_.id, index_, std::move(row), std::move(role)};
    body_.push_back(std::move(ins));
  }
  void emit_prologue(Instruction ins) {
    ins.origin = {thread_.id, -1, "", "prologue"};
    prologue_.push_back(std::move(ins));
  }

  // Address registers for every location the thread names, value registers for every
  // litmus register, and the prologue that fills them.
  void bind_registers_and_locations() {
    const std::vector<std::string> all = test_.location_names();
    std::vector<std::string> used;
    bool wide_use = false;
    for (const litmus::Instruction& ins : thread_.code) {
      if (!ins.is_memory_access()) continue;
      wide_use |= ins.annots.size == litmus::AccessSize::Double;
      if (!ins.addr.base.is_location()) {
        index_ = static_cast<int>(&ins - thread_.code.data());
        fail("an address held in a register is not supported by the code generator");
      }
      if (std::find(used.begin(), used.end(), ins.addr.base.name) == used.end()) used.push_back(ins.addr.base.name);
    }
    (void)wide_use;
    next_s_ = 2;  // s[0:1]: the kernel argument pointer
    zero_ = alloc_v();
    emit_prologue(from_template(fmt::format("v_mov_b32_e32 v{}, 0", zero_)));
    bool any_sload = false, any_lds = false;
    for (const std::string& name : used) {
      LocationBinding b;
      b.name = name;
      bool group = test_.segment_of(name) == litmus::Segment::Group;
      b.space = opt_.generic ? AddressSpace::Generic : group ? AddressSpace::Local : AddressSpace::Global;
      std::int64_t index = std::find(all.begin(), all.end(), name) - all.begin();
      if (b.space == AddressSpace::Local) {
        // The same location must sit at the same LDS address in every thread of a work-group:
        // 8 bytes per group location, in the order the test names them.
        b.lds_offset = 0;
        for (const std::string& other : all) {
          if (other == name) break;
          if (test_.segment_of(other) == litmus::Segment::Group) b.lds_offset += 8;
        }
        b.base = Operand::vgpr(alloc_v());
        emit_prologue(from_template(fmt::format("v_mov_b32_e32 {}, {}", reg_text(b.base), b.lds_offset)));
        any_lds = true;
      } else {
        std::optional<GlobalForm> form = access_form(b.space);
        if (b.space == AddressSpace::Generic && !t_.flat) fail("the target has no flat (generic) instructions");
        if (form == GlobalForm::Buffer) {
          b.kernarg_offset = 16 * index;
          b.base = Operand::sgpr(alloc_s(4, 4), 4);
          emit_prologue(
              from_template(fmt::format("s_load_dwordx4 {}, s[0:1], {}", reg_text(b.base), b.kernarg_offset)));
        } else {
          b.kernarg_offset = 8 * index;
          Operand pair = Operand::sgpr(alloc_s(2, 2), 2);
          emit_prologue(from_template(fmt::format("s_load_dwordx2 {}, s[0:1], {}", reg_text(pair), b.kernarg_offset)));
          b.base = pair;
          if (form == GlobalForm::Flat) {
            b.base = Operand::vgpr(alloc_v(2), 2);
            pending_moves_.push_back(fmt::format("v_mov_b32_e32 v{}, s{}", b.base.reg, pair.reg));
            pending_moves_.push_back(fmt::format("v_mov_b32_e32 v{}, s{}", b.base.reg + 1, pair.reg + 1));
          }
        }
        any_sload = true;
      }
      out_.locations.push_back(b);
    }
    // The kernel arguments in SGPRs before anything uses them: a wait for 0 on the counter the
    // scalar loads count in (lgkmcnt; kmcnt on GFX12).
    if (any_sload) {
      const CounterModel& model = counter_model(t_);
      std::vector<std::pair<std::string, int>> drained;
      auto sload = std::find_if(prologue_.rbegin(), prologue_.rend(),
                                [](const Instruction& i) { return i.kind() == InstrClass::ScalarLoad; });
      for (const std::string& counter : model.issued(*sload)) drained.emplace_back(counter, 0);
      for (Instruction& wait : model.wait_instructions(drained)) emit_prologue(std::move(wait));
    }
    for (const std::string& m : pending_moves_) emit_prologue(from_template(m));
    if (any_lds && t_.lds_needs_m0) emit_prologue(from_template("s_mov_b32 m0, -1"));

    // Litmus registers: initial values, or 0 as herd7 assumes.
    for (const std::string& r : detail::thread_registers(test_, thread_)) {
      int wide = register_is_wide(r) ? 2 : 1;
      int v = alloc_v(wide);
      out_.registers[r] = v;
      std::int64_t initial = 0;
      for (const litmus::InitEntry& e : test_.init)
        if (e.thread == thread_.id && e.name == r) {
          if (e.value.is_location())
            fail(fmt::format("register {} holds an address, which the code generator does not support", r));
          initial = e.value.value;
        }
      emit_prologue(from_template(fmt::format("v_mov_b32_e32 v{}, {}", v, initial)));
      if (wide == 2) emit_prologue(from_template(fmt::format("v_mov_b32_e32 v{}, 0", v + 1)));
    }
  }

  bool register_is_wide(const std::string& r) const {
    for (const litmus::Instruction& ins : thread_.code)
      if (ins.reg == r && ins.annots.size == litmus::AccessSize::Double && ins.reads_memory()) return true;
    return false;
  }

  std::optional<GlobalForm> access_form(AddressSpace space) const {
    if (space == AddressSpace::Local) return std::nullopt;
    if (space == AddressSpace::Generic) return GlobalForm::Flat;
    return t_.global;
  }

  const LocationBinding& binding(const std::string& name) const {
    for (const LocationBinding& b : out_.locations)
      if (b.name == name) return b;
    throw std::logic_error("unbound location " + name);
  }

  // A VGPR holding the value of an expression (a new one unless it is a register).
  int value_register(const Expr& e) {
    switch (e.kind) {
      case Expr::Kind::Register: return out_.registers.at(e.name);
      case Expr::Kind::Constant: {
        int v = alloc_v();
        emit(from_template(fmt::format("v_mov_b32_e32 v{}, {}", v, e.value)), "", "value");
        return v;
      }
      case Expr::Kind::Location: fail(fmt::format("the address of '{}' as a value is not supported", e.name));
      case Expr::Kind::Binary: {
        int a = value_register(e.operands[0]);
        int b = value_register(e.operands[1]);
        int d = alloc_v();
        std::map<std::string, std::string> s = {
            {"d", fmt::format("v{}", d)}, {"a", fmt::format("v{}", a)}, {"b", fmt::format("v{}", b)}};
        switch (e.op) {
          case litmus::BinaryOp::Add: emit(from_template(cat_.alu(t_, "add"), s), "", "value"); break;
          case litmus::BinaryOp::Sub: emit(from_template(cat_.alu(t_, "sub"), s), "", "value"); break;
          case litmus::BinaryOp::Xor: emit(from_template("v_xor_b32_e32 {d}, {a}, {b}", s), "", "value"); break;
          case litmus::BinaryOp::And: emit(from_template("v_and_b32_e32 {d}, {a}, {b}", s), "", "value"); break;
          case litmus::BinaryOp::Or: emit(from_template("v_or_b32_e32 {d}, {a}, {b}", s), "", "value"); break;
          case litmus::BinaryOp::Eq:
          case litmus::BinaryOp::Ne:
            s["vcc"] = vcc();
            emit(from_template(e.op == litmus::BinaryOp::Eq ? "v_cmp_eq_u32_e32 {vcc}, {a}, {b}"
                                                            : "v_cmp_ne_u32_e32 {vcc}, {a}, {b}",
                               s),
                 "", "value");
            emit(from_template("v_cndmask_b32_e64 {d}, 0, 1, {vcc}", s), "", "value");
            break;
        }
        return d;
      }
    }
    return 0;
  }

  // The lane mask a compare writes: vcc in wave64, its low half in wave32.
  std::string vcc() const { return wave_size(t_, opt_) == 32 ? "vcc_lo" : "vcc"; }

  std::string label_name(const std::string& l) const { return fmt::format("P{}_{}", thread_.id, l); }

  void compile_instruction(const litmus::Instruction& ins) {
    switch (ins.kind) {
      case OpKind::Label: {
        Instruction l;
        l.mnemonic = label_name(ins.label) + ":";
        emit(std::move(l), "", "label");
        return;
      }
      case OpKind::Mov: {
        int v = value_register(ins.value);
        emit(from_template(fmt::format("v_mov_b32_e32 v{}, v{}", out_.registers.at(ins.reg), v)), "", "value");
        return;
      }
      case OpKind::Branch: {
        if (!ins.condition) {
          emit(from_template("s_branch " + label_name(ins.label)), "", "branch");
          return;
        }
        int c = value_register(*ins.condition);
        emit(from_template(fmt::format("v_cmp_ne_u32_e32 {}, 0, v{}", vcc(), c)), "", "branch");
        emit(from_template("s_cbranch_vccnz " + label_name(ins.label)), "", "branch");
        return;
      }
      case OpKind::Barrier: compile_barrier(ins); return;
      case OpKind::Fence:
      case OpKind::Load:
      case OpKind::Store:
      case OpKind::Rmw: compile_memory(ins); return;
    }
  }

  // An HSA barrier orders no memory (HSA PRM 9.3): the target's barrier instruction alone. An
  // OpenCL barrier is a work-group release fence, the barrier and a work-group acquire fence,
  // as clang lowers OpenCL's barrier() and work_group_barrier() for AMDGPU, so under the opencl
  // flavour the table's fence rows surround it.
  void compile_barrier(const litmus::Instruction& ins) {
    const bool opencl = opt_.flavour == "opencl";
    auto fence = [&](litmus::MemoryOrder order) {
      litmus::Instruction f;
      f.kind = OpKind::Fence;
      f.annots.order = order;
      f.annots.scope = litmus::Scope::WorkGroup;
      f.pos = ins.pos;
      compile_memory(f);
    };
    if (opencl) fence(litmus::MemoryOrder::Release);
    for (const std::string& b : t_.barrier) emit(from_template(b), "", "barrier");
    if (opencl) fence(litmus::MemoryOrder::Acquire);
  }

  const MappingRow& row_for(const MemoryOperation& op) const {
    const MappingRow* row = table_.find(op, t_.name);
    if (!row) fail(fmt::format("table {} has no row for {}", table_.name(), op.describe()), op.describe());
    return *row;
  }

  // The row's sequence around `access` (absent for fences), in the chosen flavour.
  void emit_sequence(const MappingRow& row, std::optional<Instruction> access) {
    for (Instruction& ins : expand_row(row, t_, std::move(access), opt_.flavour)) {
      Origin o = ins.origin;
      emit(std::move(ins), o.row, o.role);
    }
  }

  // Which atomic an rmw operation is: exchange, cas, or `(OP REG X)` on its own register.
  std::pair<AtomicOp, const Expr*> atomic_kind(const litmus::Instruction& ins) const {
    if (ins.annots.cas) return {AtomicOp::Cas, &ins.value};
    const Expr& v = ins.value;
    if (v.is_constant() || (v.is_register() && v.name != ins.reg)) return {AtomicOp::Swap, &v};
    if (v.kind == Expr::Kind::Binary) {
      const Expr& a = v.operands[0];
      const Expr& b = v.operands[1];
      bool own_a = a.is_register() && a.name == ins.reg;
      bool own_b = b.is_register() && b.name == ins.reg;
      auto plain = [&](const Expr& x) { return x.is_constant() || (x.is_register() && x.name != ins.reg); };
      std::optional<AtomicOp> op;
      switch (v.op) {
        case litmus::BinaryOp::Add: op = AtomicOp::Add; break;
        case litmus::BinaryOp::Sub: op = AtomicOp::Sub; break;
        case litmus::BinaryOp::And: op = AtomicOp::And; break;
        case litmus::BinaryOp::Or: op = AtomicOp::Or; break;
        case litmus::BinaryOp::Xor: op = AtomicOp::Xor; break;
        default: break;
      }
      if (op && own_a && plain(b)) return {*op, &b};
      if (op && *op != AtomicOp::Sub && own_b && plain(a)) return {*op, &a};
    }
    fail(
        fmt::format("no GCN atomic computes '{}' (supported: exchange, cas, and add, sub, and, or, xor "
                    "of the value read with a constant or another register)",
                    litmus::print_expr(v)));
  }

  void compile_memory(const litmus::Instruction& ins) {
    MemoryOperation op = memory_operation(test_, ins, opt_.generic, opt_.sc_acquire_release);
    const MappingRow& row = row_for(op);
    if (ins.kind == OpKind::Fence) {
      emit_sequence(row, std::nullopt);
      return;
    }
    const LocationBinding& b = binding(ins.addr.base.name);
    std::optional<GlobalForm> form = access_form(b.space);
    bool wide = ins.annots.size == litmus::AccessSize::Double;
    int width = wide ? 2 : 1;

    // The address: LDS offset or global base, plus a register offset (an address dependency).
    Operand lds_address = b.base;
    Operand global_offset = Operand::vgpr(zero_);
    if (ins.addr.offset) {
      if (ins.addr.offset->is_constant() && ins.addr.offset->value != 0)
        fail("constant address offsets (arrays) are not supported");
      if (ins.addr.offset->is_register()) {
        if (form == GlobalForm::Flat || form == GlobalForm::Buffer)
          fail(fmt::format("register address offsets need the LDS or global form, not {}", to_string(*form)));
        int scaled = alloc_v();
        emit(from_template(
                 fmt::format("v_lshlrev_b32_e32 v{}, 2, v{}", scaled, out_.registers.at(ins.addr.offset->name))),
             "", "address");
        if (!form) {
          int sum = alloc_v();
          emit(from_template(
                   cat_.alu(t_, "add"),
                   {{"d", fmt::format("v{}", sum)}, {"a", reg_text(b.base)}, {"b", fmt::format("v{}", scaled)}}),
               "", "address");
          lds_address = Operand::vgpr(sum);
        } else {
          global_offset = Operand::vgpr(scaled);
        }
      }
    }

    Instruction a;
    if (ins.kind == OpKind::Load) {
      a.mnemonic = cat_.load(t_, form, wide);
      Operand dst = Operand::vgpr(out_.registers.at(ins.reg), width);
      if (!form)
        a.operands = {dst, lds_address};
      else if (*form == GlobalForm::Flat)
        a.operands = {dst, b.base};
      else if (*form == GlobalForm::Global)
        a.operands = {dst, global_offset, b.base};
      else
        a.operands = {dst, Operand::off(), b.base, Operand::immediate(0)};
    } else if (ins.kind == OpKind::Store) {
      a.mnemonic = cat_.store(t_, form, wide);
      Operand data = data_operand(ins.value, width);
      if (!form)
        a.operands = {lds_address, data};
      else if (*form == GlobalForm::Flat)
        a.operands = {b.base, data};
      else if (*form == GlobalForm::Global)
        a.operands = {global_offset, data, b.base};
      else
        a.operands = {data, Operand::off(), b.base, Operand::immediate(0)};
    } else {
      auto [kind, operand] = atomic_kind(ins);
      a.mnemonic = cat_.atomic(t_, form, kind, wide);
      int dst = out_.registers.at(ins.reg);
      Operand dst_op = Operand::vgpr(dst, width);
      if (!form) {
        if (kind == AtomicOp::Cas) {
          Operand cmp = data_operand(*ins.expected, width);
          Operand nv = data_operand(*operand, width);
          a.operands = cat_.ds_cas_compare_first(t_) ? std::vector<Operand>{dst_op, lds_address, cmp, nv}
                                                     : std::vector<Operand>{dst_op, lds_address, nv, cmp};
        } else {
          a.operands = {dst_op, lds_address, data_operand(*operand, width)};
        }
      } else {
        // Vector atomics take {new, compare} as one register range for cas.
        Operand data = kind == AtomicOp::Cas ? cas_pair(*operand, *ins.expected, width) : data_operand(*operand, width);
        if (*form == GlobalForm::Buffer) {
          // MUBUF atomics return the old value in their data registers.
          Operand in_place = Operand::vgpr(kind == AtomicOp::Cas ? alloc_v(2 * width) : dst, data.count);
          for (int k = 0; k < data.count; ++k)
            emit(from_template(fmt::format("v_mov_b32_e32 v{}, v{}", in_place.reg + k, data.reg + k)), "", "value");
          a.operands = {in_place, Operand::off(), b.base, Operand::immediate(0)};
          if (kind == AtomicOp::Cas) result_copy_ = {dst, in_place.reg, width};
        } else if (*form == GlobalForm::Flat) {
          a.operands = {dst_op, b.base, data};
        } else {
          a.operands = {dst_op, global_offset, data, b.base};
        }
      }
      if (form) a.policy = t_.atomic_return;  // LDS atomics return through their _rtn opcode
    }
    emit_sequence(row, std::move(a));
    if (result_copy_) {
      auto [dst, src, width_copy] = *result_copy_;
      for (int k = 0; k < width_copy; ++k)
        emit(from_template(fmt::format("v_mov_b32_e32 v{}, v{}", dst + k, src + k)), "", "value");
      result_copy_.reset();
    }
  }

  // The value to store as a register range of `width` (wide values have a zero high half).
  Operand data_operand(const Expr& e, int width) {
    int v = value_register(e);
    if (width == 1) return Operand::vgpr(v);
    int pair = alloc_v(2);
    emit(from_template(fmt::format("v_mov_b32_e32 v{}, v{}", pair, v)), "", "value");
    emit(from_template(fmt::format("v_mov_b32_e32 v{}, 0", pair + 1)), "", "value");
    return Operand::vgpr(pair, 2);
  }

  Operand cas_pair(const Expr& new_value, const Expr& compare, int width) {
    int nv = value_register(new_value);
    int cmp = value_register(compare);
    int range = alloc_v(2 * width);
    emit(from_template(fmt::format("v_mov_b32_e32 v{}, v{}", range, nv)), "", "value");
    if (width == 2) emit(from_template(fmt::format("v_mov_b32_e32 v{}, 0", range + 1)), "", "value");
    emit(from_template(fmt::format("v_mov_b32_e32 v{}, v{}", range + width, cmp)), "", "value");
    if (width == 2) emit(from_template(fmt::format("v_mov_b32_e32 v{}, 0", range + 3)), "", "value");
    return Operand::vgpr(range, 2 * width);
  }

  const litmus::Test& test_;
  const litmus::Thread& thread_;
  const Target& t_;
  const TargetCatalog& cat_;
  const MappingTable& table_;
  const CompileOptions& opt_;
  CompiledThread out_;
  std::vector<Instruction> prologue_, body_;
  std::vector<std::string> pending_moves_;
  std::optional<std::tuple<int, int, int>> result_copy_;
  int next_v_ = 0, next_s_ = 0, zero_ = 0, index_ = -1;
};

}  // namespace

namespace {

// An element's cache bits in a flavour: those its `omit_bits_in` leaves out cleared.
CachePolicy bits_in(const SequenceElement& e, const std::string& flavour) {
  CachePolicy p = e.policy;
  if (auto omit = e.omit_bits_in.find(flavour); omit != e.omit_bits_in.end())
    for (const std::string& b : omit->second) p.clear(b);  // names checked when the table was read
  return p;
}

}  // namespace

std::vector<Instruction> expand_row(const MappingRow& row, const Target& target, std::optional<Instruction> access,
                                    std::string_view flavour) {
  std::vector<Instruction> out;
  const std::string f(flavour);
  bool before = true;
  for (const SequenceElement& e : row.sequence) {
    if (e.omit_in.count(f)) continue;
    if (e.is_access) {
      if (!access) throw std::logic_error("a sequence with an access element expanded without an access");
      Instruction a = *access;
      CachePolicy& p = a.policy;
      const CachePolicy bits = bits_in(e, f);
      p.glc |= bits.glc;
      p.slc |= bits.slc;
      p.dlc |= bits.dlc;
      p.sc0 |= bits.sc0;
      p.sc1 |= bits.sc1;
      p.nt |= bits.nt;
      if (!bits.th.empty()) p.th = bits.th;
      if (!bits.scope.empty()) p.scope = bits.scope;
      a.origin.row = row.id;
      a.origin.role = "access";
      out.push_back(std::move(a));
      before = false;
      continue;
    }
    Instruction lit;
    auto sub = target.substitute.find(e.mnemonic);
    lit.mnemonic = sub == target.substitute.end() ? e.mnemonic : sub->second;
    lit.policy = bits_in(e, f);
    lit.wait = e.wait;
    if (auto omit = e.omit_counters_in.find(f); omit != e.omit_counters_in.end()) {
      if (omit->second.count("vmcnt")) lit.wait.vmcnt.reset();
      if (omit->second.count("lgkmcnt")) lit.wait.lgkmcnt.reset();
      if (omit->second.count("expcnt")) lit.wait.expcnt.reset();
      if (lit.mnemonic == "s_waitcnt" && !lit.wait.vmcnt && !lit.wait.lgkmcnt && !lit.wait.expcnt) continue;
    }
    if (e.count) {
      if (lit.mnemonic == "s_waitcnt_vscnt") lit.operands.push_back(Operand::special("null"));
      lit.operands.push_back(Operand::immediate(*e.count));
    }
    lit.origin.row = row.id;
    lit.origin.role = access ? (before ? "before" : "after") : "fence";
    out.push_back(std::move(lit));
  }
  return out;
}

int wave_size(const Target& target, const CompileOptions& options) { return options.wave64 ? 64 : target.wave_size; }

Instruction sample_access(const MemoryOperation& op, const Target& target, const TargetCatalog& catalog) {
  std::optional<GlobalForm> form;
  if (op.space == AddressSpace::Generic)
    form = GlobalForm::Flat;
  else if (op.space != AddressSpace::Local)
    form = target.global;
  Instruction a;
  const Operand dst = Operand::vgpr(1), data = Operand::vgpr(2), zero = Operand::vgpr(0);
  const Operand flat_address = Operand::vgpr(4, 2), sbase = Operand::sgpr(4, 2), resource = Operand::sgpr(4, 4);
  auto vector_operands = [&](std::vector<Operand> lds, std::vector<Operand> flat, std::vector<Operand> global,
                             std::vector<Operand> buffer) {
    if (!form) return lds;
    if (*form == GlobalForm::Flat) return flat;
    if (*form == GlobalForm::Global) return global;
    return buffer;
  };
  switch (op.operation) {
    case Operation::Load:
      a.mnemonic = catalog.load(target, form, false);
      a.operands = vector_operands({dst, zero}, {dst, flat_address}, {dst, zero, sbase},
                                   {dst, Operand::off(), resource, Operand::immediate(0)});
      break;
    case Operation::Store:
      a.mnemonic = catalog.store(target, form, false);
      a.operands = vector_operands({zero, data}, {flat_address, data}, {zero, data, sbase},
                                   {data, Operand::off(), resource, Operand::immediate(0)});
      break;
    case Operation::Rmw:
      a.mnemonic = catalog.atomic(target, form, AtomicOp::Swap, false);
      a.operands = vector_operands({dst, zero, data}, {dst, flat_address, data}, {dst, zero, data, sbase},
                                   {dst, Operand::off(), resource, Operand::immediate(0)});
      if (form) a.policy = target.atomic_return;
      break;
    case Operation::Fence: throw std::logic_error("sample_access of a fence");
  }
  return a;
}

namespace {

// The GCN code holds values in 32-bit registers and dwords: a constant beyond them would be
// emitted truncated (litmus/value_width.hpp).
void check_constants(const litmus::Test& test) {
  litmus::DiagnosticList diags;
  if (litmus::check_backend_constants(test, diags)) return;
  const litmus::Diagnostic& d = diags.all().front();
  throw CompileError(d.pos.valid() ? fmt::format("{}:{}: {}", d.pos.line, d.pos.column, d.message) : d.message);
}

void check_table_applies(const Target& target, const MappingTable& table, const CompileOptions& options) {
  if (!table.supports_target(target.name))
    throw CompileError(fmt::format("table {} does not apply to {} (its targets: {})", table.name(), target.name,
                                   fmt::join(table.targets(), ", ")));
  if (std::find(table.flavours().begin(), table.flavours().end(), options.flavour) == table.flavours().end())
    throw CompileError(fmt::format("table {} has no flavour '{}' (its flavours: {})", table.name(), options.flavour,
                                   fmt::join(table.flavours(), ", ")));
}

// Where a work-group's waves may run on any CUs of the agent (tgsplit) there is no LDS:
// "The exception is when in tgsplit execution mode when no LDS is allocated as wavefronts of
// the same work-group can be in different CUs" (AMDGPUUsage, Memory Model GFX90A and GFX942).
void check_lds_allocated(const litmus::Test& test, const Target& target, const CompileOptions& options) {
  if (memory_hierarchy(target).workgroup_span(options.flavour) != WorkgroupSpan::Agent) return;
  for (const std::string& name : test.location_names())
    if (test.segment_of(name) == litmus::Segment::Group)
      throw CompileError(
          fmt::format("group location '{}': the {} flavour allocates no LDS (AMDGPUUsage, {}: \"no LDS is "
                      "allocated as wavefronts of the same work-group can be in different CUs\")",
                      name, options.flavour, memory_hierarchy(target).section()));
}

}  // namespace

CompiledTest compile(const litmus::Test& test, const Target& target, const TargetCatalog& catalog,
                     const MappingTable& table, const CompileOptions& options) {
  check_table_applies(target, table, options);
  check_constants(test);
  check_lds_allocated(test, target, options);
  CompiledTest out{
      test.name, target.name, table.name(), options.flavour, options.generic, {}, wave_size(target, options)};
  for (std::size_t t = 0; t < test.threads.size(); ++t)
    out.threads.push_back(ThreadCompiler(test, static_cast<int>(t), target, catalog, table, options).run());
  return out;
}

CompiledThread compile_thread(const litmus::Test& test, int thread, const Target& target, const TargetCatalog& catalog,
                              const MappingTable& table, const CompileOptions& options) {
  check_table_applies(target, table, options);
  check_constants(test);
  check_lds_allocated(test, target, options);
  if (thread < 0 || static_cast<std::size_t>(thread) >= test.threads.size())
    throw CompileError(fmt::format("test {} has no thread P{}", test.name, thread));
  return ThreadCompiler(test, thread, target, catalog, table, options).run();
}

std::string emit_assembly(const CompiledTest& c, const litmus::Test& test) {
  std::string out = fmt::format("; {} for {} (wave{}) with mapping table {} ({} flavour{})\n", c.test, c.target,
                                c.wave_size, c.table, c.flavour, c.generic ? ", generic addresses" : "");
  for (const CompiledThread& t : c.threads) {
    out += fmt::format("\n; ---- thread P{} ----\n", t.thread);
    for (const auto& [r, v] : t.registers) out += fmt::format(";   {} in v{}\n", r, v);
    for (const LocationBinding& b : t.locations)
      out += b.space == AddressSpace::Local
                 ? fmt::format(";   {} in LDS at byte {} (address in {})\n", b.name, b.lds_offset, reg_text(b.base))
                 : fmt::format(";   {} ({}) base in {}, from kernel argument byte {}\n", b.name, to_string(b.space),
                               reg_text(b.base), b.kernarg_offset);
    out += fmt::format("P{}_entry:\n", t.thread);
    int last = -2;
    for (const Instruction& ins : t.code) {
      if (ins.origin.instruction != last && ins.origin.instruction >= 0) {
        const auto& li =
            test.threads[static_cast<std::size_t>(t.thread)].code[static_cast<std::size_t>(ins.origin.instruction)];
        out += fmt::format("  ; P{}:{} {}\n", t.thread, ins.origin.instruction, litmus::print_instruction(li));
      }
      last = ins.origin.instruction;
      std::string line = ins.kind() == InstrClass::Label ? ins.mnemonic : "  " + print(ins);
      if (!ins.origin.row.empty())
        line += std::string(line.size() < 48 ? 48 - line.size() : 1, ' ') +
                fmt::format("; {} ({})", ins.origin.row, ins.origin.role);
      out += line + "\n";
    }
  }
  return out;
}

nlohmann::json to_json(const CompiledTest& c) {
  nlohmann::json threads = nlohmann::json::array();
  for (const CompiledThread& t : c.threads) {
    nlohmann::json code = nlohmann::json::array();
    for (const Instruction& ins : t.code) {
      nlohmann::json j = {{"text", ins.kind() == InstrClass::Label ? ins.mnemonic : print(ins)},
                          {"class", to_string(ins.kind())}};
      if (ins.origin.instruction >= 0) j["litmus_instruction"] = ins.origin.instruction;
      if (!ins.origin.row.empty()) j["row"] = ins.origin.row;
      if (!ins.origin.role.empty()) j["role"] = ins.origin.role;
      code.push_back(j);
    }
    nlohmann::json regs = nlohmann::json::object();
    for (const auto& [r, v] : t.registers) regs[r] = fmt::format("v{}", v);
    nlohmann::json locs = nlohmann::json::array();
    for (const LocationBinding& b : t.locations) {
      nlohmann::json l = {{"name", b.name}, {"space", to_string(b.space)}, {"base", reg_text(b.base)}};
      if (b.space == AddressSpace::Local)
        l["lds_offset"] = b.lds_offset;
      else
        l["kernarg_offset"] = b.kernarg_offset;
      locs.push_back(l);
    }
    threads.push_back({{"thread", t.thread},
                       {"registers", regs},
                       {"locations", locs},
                       {"code", code},
                       {"vgprs", t.vgprs},
                       {"sgprs", t.sgprs}});
  }
  return {{"schema", "hsalit-compiled/1"}, {"test", c.test},       {"target", c.target},       {"table", c.table},
          {"flavour", c.flavour},          {"generic", c.generic}, {"wave_size", c.wave_size}, {"threads", threads}};
}

}  // namespace hsalit::codegen
