#include "hsalit/litmus/ast.hpp"

#include <algorithm>
#include <set>

namespace hsalit::litmus {

std::string_view to_string(MemoryOrder order) {
  switch (order) {
    case MemoryOrder::Relaxed: return "rlx";
    case MemoryOrder::Acquire: return "scacq";
    case MemoryOrder::Release: return "screl";
    case MemoryOrder::AcquireRelease: return "scar";
  }
  return "?";
}

std::string_view to_string(Segment segment) { return segment == Segment::Global ? "global" : "group"; }

std::optional<Segment> segment_from_string(std::string_view text) {
  if (text == "global") return Segment::Global;
  if (text == "group") return Segment::Group;
  return std::nullopt;
}

std::string_view to_string(AccessSize size) { return size == AccessSize::Single ? "single" : "double"; }

std::string_view to_string(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "add";
    case BinaryOp::Sub: return "sub";
    case BinaryOp::Xor: return "xor";
    case BinaryOp::And: return "and";
    case BinaryOp::Or: return "or";
    case BinaryOp::Eq: return "eq";
    case BinaryOp::Ne: return "neq";
  }
  return "?";
}

std::string_view to_string(OpKind kind) {
  switch (kind) {
    case OpKind::Load: return "load";
    case OpKind::Store: return "store";
    case OpKind::Rmw: return "rmw";
    case OpKind::Fence: return "fence";
    case OpKind::Barrier: return "barrier";
    case OpKind::Mov: return "mov";
    case OpKind::Branch: return "branch";
    case OpKind::Label: return "label";
  }
  return "?";
}

std::string_view herd_kind(Quantifier q) {
  switch (q) {
    case Quantifier::Exists: return "Allowed";
    case Quantifier::NotExists: return "Forbidden";
    case Quantifier::Forall: return "Required";
  }
  return "?";
}

std::string_view to_string(Quantifier q) {
  switch (q) {
    case Quantifier::Exists: return "exists";
    case Quantifier::NotExists: return "~exists";
    case Quantifier::Forall: return "forall";
  }
  return "?";
}

Expr Expr::constant(std::int64_t v, SourcePos p) {
  Expr e;
  e.kind = Kind::Constant;
  e.value = v;
  e.pos.at = p;
  return e;
}

Expr Expr::reg(std::string name, SourcePos p) {
  Expr e;
  e.kind = Kind::Register;
  e.name = std::move(name);
  e.pos.at = p;
  return e;
}

Expr Expr::location(std::string name, SourcePos p) {
  Expr e;
  e.kind = Kind::Location;
  e.name = std::move(name);
  e.pos.at = p;
  return e;
}

Expr Expr::binary(BinaryOp op, Expr lhs, Expr rhs, SourcePos p) {
  Expr e;
  e.kind = Kind::Binary;
  e.op = op;
  e.operands.push_back(std::move(lhs));
  e.operands.push_back(std::move(rhs));
  e.pos.at = p;
  return e;
}

std::string ObservedRef::to_string() const { return thread ? std::to_string(*thread) + ":" + name : name; }

Prop Prop::equals(ObservedRef lhs, Expr rhs, SourcePos p) {
  Prop r;
  r.kind = Kind::Equals;
  r.lhs = std::move(lhs);
  r.rhs = std::move(rhs);
  r.pos.at = p;
  return r;
}

Prop Prop::same_value(ObservedRef lhs, ObservedRef rhs, SourcePos p) {
  Prop r;
  r.kind = Kind::SameValue;
  r.lhs = std::move(lhs);
  r.rhs_ref = std::move(rhs);
  r.pos.at = p;
  return r;
}

Prop Prop::negation(Prop p, SourcePos pos) {
  Prop r;
  r.kind = Kind::Not;
  r.operands.push_back(std::move(p));
  r.pos.at = pos;
  return r;
}

Prop Prop::conjunction(Prop a, Prop b, SourcePos p) {
  Prop r;
  r.kind = Kind::And;
  r.operands.push_back(std::move(a));
  r.operands.push_back(std::move(b));
  r.pos.at = p;
  return r;
}

Prop Prop::disjunction(Prop a, Prop b, SourcePos p) {
  Prop r = conjunction(std::move(a), std::move(b), p);
  r.kind = Kind::Or;
  return r;
}

Prop Prop::implication(Prop a, Prop b, SourcePos p) {
  Prop r = conjunction(std::move(a), std::move(b), p);
  r.kind = Kind::Implies;
  return r;
}

Segment Test::segment_of(std::string_view location) const {
  for (const RegionEntry& r : regions)
    if (r.location == location) return r.segment;
  return Segment::Global;
}

namespace {

void collect_expr_locations(const Expr& e, std::vector<std::string>& out) {
  if (e.is_location()) out.push_back(e.name);
  for (const Expr& o : e.operands) collect_expr_locations(o, out);
}

void collect_prop(const Prop& p, std::vector<std::string>* locations, std::vector<ObservedRef>* refs) {
  if (p.kind == Prop::Kind::Equals) {
    if (refs) refs->push_back(p.lhs);
    if (locations) {
      if (!p.lhs.is_register()) locations->push_back(p.lhs.name);
      collect_expr_locations(p.rhs, *locations);
    }
  } else if (p.kind == Prop::Kind::SameValue) {
    for (const ObservedRef* r : {&p.lhs, &p.rhs_ref}) {
      if (refs) refs->push_back(*r);
      if (locations && !r->is_register()) locations->push_back(r->name);
    }
  }
  for (const Prop& o : p.operands) collect_prop(o, locations, refs);
}

}  // namespace

std::vector<std::string> Test::location_names() const {
  std::vector<std::string> all;
  for (const InitEntry& i : init) {
    if (!i.thread) all.push_back(i.name);
    collect_expr_locations(i.value, all);
  }
  for (const Thread& t : threads) {
    for (const Instruction& ins : t.code) {
      if (ins.is_memory_access()) collect_expr_locations(ins.addr.base, all);
      collect_expr_locations(ins.value, all);
      if (ins.expected) collect_expr_locations(*ins.expected, all);
      if (ins.condition) collect_expr_locations(*ins.condition, all);
    }
  }
  for (const RegionEntry& r : regions) all.push_back(r.location);
  for (const ObservedRef& r : locations)
    if (!r.is_register()) all.push_back(r.name);
  if (filter) collect_prop(*filter, &all, nullptr);
  collect_prop(condition.prop, &all, nullptr);

  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (std::string& name : all)
    if (seen.insert(name).second) unique.push_back(std::move(name));
  return unique;
}

void append_references(const Prop& prop, std::vector<ObservedRef>& out) {
  if (prop.is_atom()) {
    for (const ObservedRef* ref : {&prop.lhs, &prop.rhs_ref}) {
      if (ref == &prop.rhs_ref && prop.kind != Prop::Kind::SameValue) break;
      ObservedRef r = *ref;
      r.pos = {};
      if (std::find(out.begin(), out.end(), r) == out.end()) out.push_back(r);
    }
  }
  for (const Prop& o : prop.operands) append_references(o, out);
}

std::vector<ObservedRef> Test::observed() const {
  std::vector<ObservedRef> refs = locations;
  collect_prop(condition.prop, nullptr, &refs);
  for (ObservedRef& r : refs) r.pos = {};
  std::sort(refs.begin(), refs.end(), [](const ObservedRef& a, const ObservedRef& b) {
    // Registers first (by thread, then name), then locations.
    if (a.is_register() != b.is_register()) return a.is_register();
    return a < b;
  });
  refs.erase(
      std::unique(refs.begin(), refs.end(),
                  [](const ObservedRef& a, const ObservedRef& b) { return a.thread == b.thread && a.name == b.name; }),
      refs.end());
  return refs;
}

}  // namespace hsalit::litmus
