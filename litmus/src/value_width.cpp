#include "hsalit/litmus/value_width.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <map>
#include <string>
#include <vector>

#include "hsalit/litmus/printer.hpp"

namespace hsalit::litmus {

namespace {

std::string out_of_range(std::int64_t v) {
  return fmt::format(
      "the constant {} does not fit in the signed 32-bit values the backends hold ({} to {}); the "
      "model alone checks it (`hsalit check`)",
      v, kBackendValueMin, kBackendValueMax);
}

void check_expr(const Expr& e, SourcePos fallback, DiagnosticList& diags, bool& ok) {
  if (e.is_constant() && !fits_backend_value(e.value)) {
    diags.error(e.pos.at.valid() ? e.pos.at : fallback, out_of_range(e.value));
    ok = false;
  }
  for (const Expr& o : e.operands) check_expr(o, e.pos.at.valid() ? e.pos.at : fallback, diags, ok);
}

void check_prop(const Prop& p, DiagnosticList& diags, bool& ok) {
  if (p.kind == Prop::Kind::Equals) check_expr(p.rhs, p.pos.at, diags, ok);
  for (const Prop& o : p.operands) check_prop(o, diags, ok);
}

// A closed interval of values, kept within 64 bits: every interval stored lies within the
// 32-bit range, so one operation on two of them cannot overflow.
struct Interval {
  std::int64_t lo = 0, hi = 0;
  Interval hull(const Interval& o) const { return {std::min(lo, o.lo), std::max(hi, o.hi)}; }
  bool fits() const { return lo >= kBackendValueMin && hi <= kBackendValueMax; }
  friend bool operator==(const Interval&, const Interval&) = default;
};

// The bits of a bitwise operation's result: within [-2^k, 2^k - 1] when both operands are.
Interval bitwise(BinaryOp op, Interval a, Interval b) {
  if (a.lo >= 0 && b.lo >= 0) {
    if (op == BinaryOp::And) return {0, std::min(a.hi, b.hi)};
    const auto top = static_cast<std::uint64_t>(std::max(a.hi, b.hi));
    return {0, static_cast<std::int64_t>(std::bit_ceil(top + 1) - 1)};
  }
  auto bits = [](const Interval& i) {
    const auto magnitude = static_cast<std::uint64_t>(std::max(i.hi, i.lo < 0 ? -(i.lo + 1) : 0));
    return std::bit_width(magnitude);
  };
  const int k = std::max(bits(a), bits(b));
  return {-(std::int64_t{1} << k), (std::int64_t{1} << k) - 1};
}

using Registers = std::map<std::string, Interval>;  // absent: 0, as herd7 assumes

class WidthAnalysis {
 public:
  explicit WidthAnalysis(const Test& test) : test_(test) {
    const std::vector<std::string> names = test.location_names();
    for (const std::string& n : names) memory_[n] = {};
    for (const InitEntry& e : test.init)
      if (!e.thread && e.value.is_constant()) memory_[e.name] = {e.value.value, e.value.value};
  }

  std::optional<Diagnostic> run() {
    std::size_t rounds = 2;
    for (const Thread& t : test_.threads)
      for (const Instruction& ins : t.code) rounds += ins.writes_memory() || ins.kind == OpKind::Barrier;
    for (std::size_t round = 0; round < rounds && !problem_; ++round) {
      written_ = memory_;
      for (const Thread& t : test_.threads) follow(t);
      if (written_ == memory_) break;
      memory_ = written_;
    }
    return problem_;
  }

 private:
  Interval eval(const Expr& e, const Registers& regs) {
    switch (e.kind) {
      case Expr::Kind::Constant: return check({e.value, e.value}, e);
      case Expr::Kind::Register: {
        auto it = regs.find(e.name);
        return it == regs.end() ? Interval{} : it->second;
      }
      case Expr::Kind::Location: return {};  // an address: the backends refuse it as a value
      case Expr::Kind::Binary: {
        const Interval a = eval(e.operands[0], regs), b = eval(e.operands[1], regs);
        if (problem_) return {};
        switch (e.op) {
          case BinaryOp::Add: return check({a.lo + b.lo, a.hi + b.hi}, e);
          case BinaryOp::Sub: return check({a.lo - b.hi, a.hi - b.lo}, e);
          case BinaryOp::Xor:
          case BinaryOp::And:
          case BinaryOp::Or: return check(bitwise(e.op, a, b), e);
          case BinaryOp::Eq:
          case BinaryOp::Ne: return {0, 1};
        }
      }
    }
    return {};
  }

  Interval check(Interval i, const Expr& e) {
    if (!i.fits() && !problem_) {
      const std::int64_t beyond = i.hi > kBackendValueMax ? i.hi : i.lo;
      problem_ = Diagnostic{Severity::Error, e.pos.at,
                            fmt::format("`{}` may compute {}, outside the signed 32-bit values the backends hold "
                                        "({} to {}): they would wrap what the model does not",
                                        print_expr(e), beyond, kBackendValueMin, kBackendValueMax)};
    }
    return i.fits() ? i : Interval{};
  }

  // What a load may read: its location's values, or any location's through a register.
  Interval read(const Address& a) const {
    if (a.base.is_location()) {
      auto it = memory_.find(a.base.name);
      return it == memory_.end() ? Interval{} : it->second;
    }
    Interval any;
    for (const auto& [name, i] : memory_) any = any.hull(i);
    return any;
  }

  void write(const Address& a, Interval v) {
    if (a.base.is_location()) {
      written_[a.base.name] = written_[a.base.name].hull(v);
      return;
    }
    for (auto& [name, i] : written_) i = i.hull(v);
  }

  static void join(std::optional<Registers>& into, const Registers& from) {
    if (!into) {
      into = from;
      return;
    }
    for (auto& [name, i] : *into) {
      auto it = from.find(name);
      i = i.hull(it == from.end() ? Interval{} : it->second);
    }
    for (const auto& [name, i] : from)
      if (!into->count(name)) (*into)[name] = i.hull(Interval{});
  }

  // One pass in program order: branches go forward, so every predecessor of an instruction
  // comes before it.
  void follow(const Thread& t) {
    std::vector<std::optional<Registers>> at(t.code.size() + 1);
    at[0] = Registers{};
    for (const InitEntry& e : test_.init)
      if (e.thread == t.id && e.value.is_constant()) (*at[0])[e.name] = {e.value.value, e.value.value};
    auto label = [&](const std::string& name) {
      for (std::size_t i = 0; i < t.code.size(); ++i)
        if (t.code[i].kind == OpKind::Label && t.code[i].label == name) return i;
      return t.code.size();
    };
    for (std::size_t pc = 0; pc < t.code.size() && !problem_; ++pc) {
      if (!at[pc]) continue;
      Registers regs = *at[pc];
      const Instruction& ins = t.code[pc];
      switch (ins.kind) {
        case OpKind::Mov: regs[ins.reg] = eval(ins.value, regs); break;
        case OpKind::Store: write(ins.addr, eval(ins.value, regs)); break;
        case OpKind::Load: regs[ins.reg] = read(ins.addr); break;
        case OpKind::Rmw: {
          if (ins.expected) eval(*ins.expected, regs);
          regs[ins.reg] = read(ins.addr);
          write(ins.addr, eval(ins.value, regs));  // the new value may read the value just read
          break;
        }
        case OpKind::Branch: {
          if (ins.condition) eval(*ins.condition, regs);
          join(at[label(ins.label)], regs);
          if (!ins.condition) continue;
          break;
        }
        case OpKind::Fence:
        case OpKind::Barrier:
        case OpKind::Label: break;
      }
      join(at[pc + 1], regs);
    }
  }

  const Test& test_;
  std::map<std::string, Interval> memory_, written_;
  std::optional<Diagnostic> problem_;
};

}  // namespace

bool check_backend_constants(const Test& test, DiagnosticList& diags) {
  bool ok = true;
  for (const InitEntry& e : test.init) check_expr(e.value, e.pos.at, diags, ok);
  for (const Thread& t : test.threads)
    for (const Instruction& ins : t.code) {
      if (ins.kind == OpKind::Store || ins.kind == OpKind::Rmw || ins.kind == OpKind::Mov)
        check_expr(ins.value, ins.pos.at, diags, ok);
      if (ins.expected) check_expr(*ins.expected, ins.pos.at, diags, ok);
      if (ins.condition) check_expr(*ins.condition, ins.pos.at, diags, ok);
    }
  if (test.filter) check_prop(*test.filter, diags, ok);
  check_prop(test.condition.prop, diags, ok);
  return ok;
}

std::optional<Diagnostic> value_beyond_backend_width(const Test& test) { return WidthAnalysis(test).run(); }

std::optional<std::string> value_width_reason(const Test& test, std::string_view file) {
  std::optional<Diagnostic> d = value_beyond_backend_width(test);
  if (!d) return std::nullopt;
  if (!d->pos.valid()) return fmt::format("{}: {}", file, d->message);
  return fmt::format("{}:{}:{}: {}", file, d->pos.line, d->pos.column, d->message);
}

}  // namespace hsalit::litmus
