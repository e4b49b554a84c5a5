#include "kernel_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/litmus/printer.hpp"

namespace hsalit::codegen::detail {

using litmus::Expr;

std::string ident(std::string_view s) {
  std::string out;
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '.')
      out += c;
    else
      out += fmt::format("_{:02X}", u);
  }
  return out;
}

std::string string_literal(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || u < 0x20 || u >= 0x7f)
      out += fmt::format("\\{:02X}", u);
    else
      out += c;
  }
  return out + "\"";
}

std::map<std::string, int> widest_accesses(const litmus::Test& test) {
  std::map<std::string, int> out;
  for (const litmus::Thread& t : test.threads)
    for (const litmus::Instruction& ins : t.code)
      if (ins.is_memory_access() && ins.addr.base.is_location()) {
        int& bits = out[ins.addr.base.name];
        bits = std::max(bits, access_bits(ins));
      }
  return out;
}

std::string sync_scope(litmus::Scope s) {
  SyncScope scope = llvm_sync_scope(s);
  return scope == SyncScope::System ? "" : fmt::format(" syncscope(\"{}\")", to_string(scope));
}

std::string_view failure_ordering(Ordering success) {
  return to_string(success == Ordering::Release ? Ordering::Monotonic : success);
}

std::string int_type(int bits) { return fmt::format("i{}", bits); }

namespace {
void collect_registers(const Expr& e, std::set<std::string>& out) {
  if (e.is_register()) out.insert(e.name);
  for (const Expr& o : e.operands) collect_registers(o, out);
}
}  // namespace

std::set<std::string> thread_registers(const litmus::Test& test, const litmus::Thread& thread) {
  std::set<std::string> regs;
  for (const litmus::Instruction& ins : thread.code) {
    if (!ins.reg.empty()) regs.insert(ins.reg);
    collect_registers(ins.value, regs);
    if (ins.expected) collect_registers(*ins.expected, regs);
    if (ins.condition) collect_registers(*ins.condition, regs);
    if (ins.addr.offset) collect_registers(*ins.addr.offset, regs);
  }
  for (const litmus::InitEntry& e : test.init)
    if (e.thread == thread.id) regs.insert(e.name);
  return regs;
}

KernelPlan plan_kernel(const litmus::Test& test, const litmus::Thread& thread, bool generic,
                       const std::function<void(const std::string&)>& fail) {
  KernelPlan k;
  auto is_group = [&](const std::string& loc) { return test.segment_of(loc) == litmus::Segment::Group; };
  for (const std::string& loc : test.location_names())
    if (!is_group(loc) || generic) k.arguments.push_back(loc);
  k.arguments.push_back("out");
  const std::set<std::string> regs = thread_registers(test, thread);
  std::set<std::string> lds;
  for (const litmus::Instruction& ins : thread.code)
    if (ins.is_memory_access() && ins.addr.base.is_location() && is_group(ins.addr.base.name) && !generic)
      lds.insert(ins.addr.base.name);
  for (const std::string& loc : test.location_names())
    if (lds.count(loc)) k.lds.push_back(loc);
  k.results.assign(regs.begin(), regs.end());
  for (const std::string& r : regs) {
    int bits = 32;
    for (const litmus::Instruction& ins : thread.code)
      if (ins.reg == r && ins.reads_memory()) bits = std::max(bits, access_bits(ins));
    std::int64_t initial = 0;
    for (const litmus::InitEntry& e : test.init)
      if (e.thread == thread.id && e.name == r) {
        if (e.value.is_location())
          fail(fmt::format("register {} holds the address of {}, which the emitter does not support", r, e.value.name));
        initial = e.value.value;
      }
    k.bits[r] = bits;
    k.initial[r] = initial;
  }
  return k;
}

namespace {
bool mentions(const Expr& e, const std::string& reg) {
  if (e.is_register() && e.name == reg) return true;
  return std::any_of(e.operands.begin(), e.operands.end(), [&](const Expr& o) { return mentions(o, reg); });
}
}  // namespace

std::pair<std::string_view, const Expr*> rmw_operation(const litmus::Instruction& ins) {
  const Expr& v = ins.value;
  if (!mentions(v, ins.reg)) return {"xchg", &v};
  if (v.kind == Expr::Kind::Binary) {
    const Expr& a = v.operands[0];
    const Expr& b = v.operands[1];
    bool own_a = a.is_register() && a.name == ins.reg;
    bool own_b = b.is_register() && b.name == ins.reg;
    std::string_view op;
    switch (v.op) {
      case litmus::BinaryOp::Add: op = "add"; break;
      case litmus::BinaryOp::Sub: op = "sub"; break;
      case litmus::BinaryOp::And: op = "and"; break;
      case litmus::BinaryOp::Or: op = "or"; break;
      case litmus::BinaryOp::Xor: op = "xor"; break;
      default: break;
    }
    if (!op.empty() && own_a && !mentions(b, ins.reg)) return {op, &b};
    if (!op.empty() && op != "sub" && own_b && !mentions(a, ins.reg)) return {op, &a};
  }
  return {"", nullptr};
}

std::int64_t truncated(std::int64_t v, int bits) {
  return bits == 32 ? static_cast<std::int32_t>(static_cast<std::uint32_t>(v)) : v;
}

ThreadEmitter::ThreadEmitter(const litmus::Test& test, int thread, std::string_view language, bool sc_orders)
    : test_(test), thread_(test.threads[static_cast<std::size_t>(thread)]), language_(language), sc_orders_(sc_orders) {
  k_.thread = thread_.id;
  k_.name = fmt::format("P{}", thread_.id);
}

void ThreadEmitter::bind(bool generic) {
  KernelPlan plan = plan_kernel(test_, thread_, generic, [this](const std::string& why) { fail(why); });
  k_.arguments = std::move(plan.arguments);
  k_.lds = std::move(plan.lds);
  k_.results = std::move(plan.results);
  reg_bits_ = std::move(plan.bits);
  for (const auto& [r, initial] : plan.initial) regs_[r] = constant(initial, reg_bits_.at(r));
}

const Expr* ThreadEmitter::dependency_offset(const litmus::Instruction& ins) const {
  if (!ins.addr.base.is_location())
    fail(fmt::format("an address held in a register is not supported by the {} emitter", language_));
  const std::optional<Expr>& offset = ins.addr.offset;
  if (!offset) return nullptr;
  if (offset->is_constant()) {
    if (offset->value == 0) return nullptr;
    fail("constant address offsets (arrays) are not supported");
  }
  return &*offset;
}

void ThreadEmitter::fail(const std::string& why) const {
  std::string where = index_ >= 0
                          ? fmt::format("P{}:{} '{}'", thread_.id, index_,
                                        litmus::print_instruction(thread_.code[static_cast<std::size_t>(index_)]))
                          : fmt::format("P{}", thread_.id);
  throw CompileError(fmt::format("{}: {} ({})", where, why, language_));
}

Value ThreadEmitter::coerce(const Value& v, int bits) {
  if (v.bits == bits) return v;
  if (v.constant) return constant(*v.constant, bits);
  return converted(v, bits);
}

Value ThreadEmitter::eval(const Expr& e, int bits) {
  switch (e.kind) {
    case Expr::Kind::Constant: return constant(e.value, bits);
    case Expr::Kind::Register: {
      auto it = regs_.find(e.name);
      if (it == regs_.end()) fail(fmt::format("unknown register {}", e.name));
      return coerce(it->second, bits);
    }
    case Expr::Kind::Location: fail(fmt::format("the address of '{}' as a value is not supported", e.name));
    case Expr::Kind::Binary: {
      const bool compare = e.op == litmus::BinaryOp::Eq || e.op == litmus::BinaryOp::Ne;
      const int w = compare ? std::max(width(e.operands[0]), width(e.operands[1])) : bits;
      const Value a = eval(e.operands[0], w);
      const Value b = eval(e.operands[1], w);
      switch (e.op) {
        case litmus::BinaryOp::Add: return arithmetic("add", a, b, bits);
        case litmus::BinaryOp::Sub: return arithmetic("sub", a, b, bits);
        case litmus::BinaryOp::Xor: return arithmetic("xor", a, b, bits);
        case litmus::BinaryOp::And: return arithmetic("and", a, b, bits);
        case litmus::BinaryOp::Or: return arithmetic("or", a, b, bits);
        case litmus::BinaryOp::Eq: return comparison(true, a, b, bits);
        case litmus::BinaryOp::Ne: return comparison(false, a, b, bits);
      }
    }
  }
  return {};
}

int ThreadEmitter::width(const Expr& e) const {
  if (e.is_register()) {
    auto it = reg_bits_.find(e.name);
    return it == reg_bits_.end() ? 32 : it->second;
  }
  int w = 32;
  for (const Expr& o : e.operands) w = std::max(w, width(o));
  return w;
}

std::string no_rmw_operation(const litmus::Instruction& ins) {
  return fmt::format(
      "no atomicrmw computes '{}' (supported: exchange, cas, and add, sub, and, or, xor of the value read with a "
      "value that does not read it)",
      litmus::print_expr(ins.value));
}

}  // namespace hsalit::codegen::detail
