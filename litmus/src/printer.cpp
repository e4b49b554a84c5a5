#include "hsalit/litmus/printer.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace hsalit::litmus {

std::string print_expr(const Expr& e) {
  switch (e.kind) {
    case Expr::Kind::Constant: return std::to_string(e.value);
    case Expr::Kind::Register:
    case Expr::Kind::Location: return e.name;
    case Expr::Kind::Binary:
      return fmt::format("({} {} {})", to_string(e.op), print_expr(e.operands.at(0)), print_expr(e.operands.at(1)));
  }
  return "?";
}

std::string print_address(const Address& a) {
  std::string out = print_expr(a.base);
  if (a.offset) out += "+" + print_expr(*a.offset);
  return out;
}

namespace {

std::string access_annotations(const Instruction& ins) {
  const Annotations& a = ins.annots;
  std::vector<std::string> words;
  if (a.cas) words.emplace_back("cas");
  if (a.atomic) {
    words.emplace_back("atomic");
    words.emplace_back(to_string(a.order));
    if (a.seq_cst) words.emplace_back("sc");
    words.emplace_back(to_string(a.scope));
  }
  if (a.size == AccessSize::Double) words.emplace_back("double");
  return fmt::format("[{}]", fmt::join(words, ","));
}

std::string fence_text(const Annotations& a) {
  return fmt::format("f[{}{},{}{}]", to_string(a.order), a.seq_cst ? ",sc" : "", to_string(a.scope),
                     a.fence_segment ? fmt::format(",{}", to_string(*a.fence_segment)) : "");
}

std::string branch_text(const Instruction& ins) {
  std::vector<std::string> tags = ins.annots.tags;
  if (ins.condition && ins.condition->kind == Expr::Kind::Binary) {
    // The comparison form `b[eq] r0, 1, L`.
    const Expr& c = *ins.condition;
    tags.insert(tags.begin(), c.op == BinaryOp::Eq ? "eq" : "ne");
    return fmt::format("b[{}] {}, {}, {}", fmt::join(tags, ","), print_expr(c.operands.at(0)),
                       print_expr(c.operands.at(1)), ins.label);
  }
  if (ins.condition) return fmt::format("b[{}] {} {}", fmt::join(tags, ","), print_expr(*ins.condition), ins.label);
  return fmt::format("b[{}] {}", fmt::join(tags, ","), ins.label);
}

}  // namespace

std::string print_instruction(const Instruction& ins) {
  switch (ins.kind) {
    case OpKind::Load: return fmt::format("r{} {} {}", access_annotations(ins), ins.reg, print_address(ins.addr));
    case OpKind::Store:
      return fmt::format("w{} {} {}", access_annotations(ins), print_address(ins.addr), print_expr(ins.value));
    case OpKind::Rmw:
      if (ins.expected)
        return fmt::format("rmw{} {} {} {} {}", access_annotations(ins), ins.reg, print_expr(*ins.expected),
                           print_expr(ins.value), print_address(ins.addr));
      return fmt::format("rmw{} {} {} {}", access_annotations(ins), ins.reg, print_expr(ins.value),
                         print_address(ins.addr));
    case OpKind::Fence: return fence_text(ins.annots);
    case OpKind::Barrier:
      return ins.annots.fence_segment ? fmt::format("barrier[{}]", to_string(*ins.annots.fence_segment)) : "barrier";
    case OpKind::Mov: return fmt::format("mov {} {}", ins.reg, print_expr(ins.value));
    case OpKind::Branch: return branch_text(ins);
    case OpKind::Label: return ins.label + ":";
  }
  return "?";
}

// herd7's text for a proposition (lib/constrGen.ml, pp_prop): `not (P)`, and parentheses
// where operators of different kinds nest (/\ binds tighter than \/, and `=>` is always
// parenthesised inside the other two and they inside it). herd7 also drops the parentheses of
// a right-nested chain of one operator (`a \/ (b \/ c)`, `(a => b) => c`); here they stay, so
// that the text parses back to the same tree. So a flat chain prints flat and the printed text
// never nests deeper than the tree (see the nesting limit of the parser).
std::string print_prop(const Prop& p) {
  using K = Prop::Kind;
  auto wrapped = [](const Prop& c, bool parens) { return parens ? "(" + print_prop(c) + ")" : print_prop(c); };
  auto binary = [&](std::string_view op, bool left_parens, bool right_parens) {
    return fmt::format("{} {} {}", wrapped(p.operands.at(0), left_parens), op, wrapped(p.operands.at(1), right_parens));
  };
  auto kind = [&](std::size_t i) { return p.operands.at(i).kind; };
  switch (p.kind) {
    case K::True: return "true";
    case K::False: return "false";
    case K::Equals: return fmt::format("{}={}", p.lhs.to_string(), print_expr(p.rhs));
    case K::SameValue:
      // A location on the right is its value, `[x]` (a bare `x` would be its address).
      return fmt::format("{}={}", p.lhs.to_string(),
                         p.rhs_ref.is_register() ? p.rhs_ref.to_string() : "[" + p.rhs_ref.name + "]");
    case K::Not: return "not (" + print_prop(p.operands.at(0)) + ")";
    case K::And:
      return binary("/\\", kind(0) == K::Or || kind(0) == K::Implies,
                    kind(1) == K::Or || kind(1) == K::Implies || kind(1) == K::And);
    case K::Or: return binary("\\/", kind(0) == K::Implies, kind(1) == K::Implies || kind(1) == K::Or);
    case K::Implies:
      return binary("=>", kind(0) == K::And || kind(0) == K::Or || kind(0) == K::Implies,
                    kind(1) == K::And || kind(1) == K::Or);
  }
  return "?";
}

namespace {

void print_scope_node(const ScopeTree& tree, int index, std::string& out) {
  const ScopeNode& n = tree.nodes().at(static_cast<std::size_t>(index));
  out += "(";
  out += to_string(n.level);
  for (const ScopeNode::Child& c : n.children) {
    out += " ";
    if (c.is_thread)
      out += std::to_string(c.index);
    else
      print_scope_node(tree, c.index, out);
  }
  out += ")";
}

// The program as aligned columns, one instruction or label per row, as herd7 writes it.
void print_program(const Test& test, std::string& out) {
  std::size_t rows = 0;
  std::vector<std::vector<std::string>> cells(test.threads.size());
  std::vector<std::size_t> width(test.threads.size(), 0);
  for (std::size_t t = 0; t < test.threads.size(); ++t) {
    cells[t].push_back(fmt::format("P{}", test.threads[t].id));
    for (const Instruction& ins : test.threads[t].code) cells[t].push_back(print_instruction(ins));
    rows = std::max(rows, cells[t].size());
    for (const std::string& c : cells[t]) width[t] = std::max(width[t], c.size());
  }
  for (std::size_t r = 0; r < rows; ++r) {
    std::string line;
    for (std::size_t t = 0; t < cells.size(); ++t) {
      const std::string cell = r < cells[t].size() ? cells[t][r] : "";
      line += " " + cell + std::string(width[t] - cell.size(), ' ') + " ";
      line += t + 1 < cells.size() ? "|" : ";";
    }
    out += line + "\n";
  }
}

}  // namespace

std::string print_litmus(const Test& test) {
  std::string out = fmt::format("{} {}\n", test.arch, test.name);
  if (!test.description.empty()) out += fmt::format("\"{}\"\n", test.description);
  for (const MetadataEntry& m : test.metadata) out += fmt::format("{}={}\n", m.key, m.value);
  out += "{";
  for (const InitEntry& e : test.init) {
    std::string target = e.thread ? fmt::format("{}:{}", *e.thread, e.name) : e.name;
    out += fmt::format(" {} = {};", target, print_expr(e.value));
  }
  out += " }\n";
  print_program(test, out);
  return out + print_trailers(test);
}

std::string print_trailers(const Test& test, bool regions) {
  std::string out;
  if (!test.scopes.is_default() && !test.scopes.roots().empty()) {
    out += "scopes:";
    for (int root : test.scopes.roots()) {
      out += " ";
      print_scope_node(test.scopes, root, out);
    }
    out += "\n";
  }
  if (regions && !test.regions.empty()) {
    std::vector<std::string> items;
    for (const RegionEntry& r : test.regions) items.push_back(fmt::format("{}:{}", r.location, to_string(r.segment)));
    out += fmt::format("regions: {}\n", fmt::join(items, ", "));
  }
  if (!test.locations.empty()) {
    out += "locations [";
    for (const ObservedRef& r : test.locations) out += r.to_string() + ";";
    out += "]\n";
  }
  if (test.filter) out += fmt::format("filter ({})\n", print_prop(*test.filter));
  out += fmt::format("{} ({})\n", to_string(test.condition.quantifier), print_prop(test.condition.prop));
  return out;
}

}  // namespace hsalit::litmus
