// The HSA model on one concrete candidate execution (HSA SysArch 3.6-3.12).
#include "hsalit/model/execution.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "bit_relations.hpp"
#include "hsa_model.hpp"
#include "hsalit/litmus/printer.hpp"
#include "opencl_execution.hpp"

namespace hsalit::model {

Relation& Relation::operator|=(const Relation& o) {
  for (std::size_t i = 0; i < bits_.size(); ++i) bits_[i] |= o.bits_[i];
  return *this;
}

Relation& Relation::operator&=(const Relation& o) {
  for (std::size_t i = 0; i < bits_.size(); ++i) bits_[i] &= o.bits_[i];
  return *this;
}

Relation& Relation::operator-=(const Relation& o) {
  for (std::size_t i = 0; i < bits_.size(); ++i) bits_[i] &= ~o.bits_[i];
  return *this;
}

Relation Relation::then(const Relation& o) const {
  Relation out(n_);
  for (int a = 0; a < n_; ++a)
    for (int k = 0; k < n_; ++k)
      if (test(a, k)) out.set_row(a, o, k);
  return out;
}

Relation Relation::inverse() const {
  Relation out(n_);
  for (int a = 0; a < n_; ++a)
    for (int b = 0; b < n_; ++b)
      if (test(a, b)) out.set(b, a);
  return out;
}

bool Relation::close_within(std::uint64_t mask) {
  if (n_ > 64) throw std::logic_error("Relation::close_within: more than 64 nodes");
  bool changed = false;
  for (std::uint64_t ks = mask; ks; ks &= ks - 1) {
    const int k = std::countr_zero(ks);
    const std::uint64_t through = bits_[static_cast<std::size_t>(k)] & mask;
    for (std::uint64_t is = mask; is; is &= is - 1) {
      std::uint64_t& ri = bits_[static_cast<std::size_t>(std::countr_zero(is))];
      if ((ri >> k & 1) && (ri | through) != ri) {
        ri |= through;
        changed = true;
      }
    }
  }
  return changed;
}

void Relation::close() {
  if (words_ == 1) {  // one word per row: Warshall on the rows that reach k
    std::uint64_t* bits = bits_.data();
    for (int k = 0; k < n_; ++k) {
      const std::uint64_t bit = std::uint64_t{1} << k, rk = bits[k];
      for (int i = 0; i < n_; ++i)
        if (bits[i] & bit) bits[i] |= rk;
    }
    return;
  }
  for (int k = 0; k < n_; ++k) {
    const std::uint64_t* rk = row(k);
    for (int i = 0; i < n_; ++i) {
      if (!test(i, k)) continue;
      std::uint64_t* ri = row(i);
      for (int w = 0; w < words_; ++w) ri[w] |= rk[w];
    }
  }
}

bool Relation::irreflexive() const {
  for (int i = 0; i < n_; ++i)
    if (test(i, i)) return false;
  return true;
}

bool Relation::any() const {
  return std::any_of(bits_.begin(), bits_.end(), [](std::uint64_t w) { return w != 0; });
}

std::vector<std::pair<int, int>> Relation::pairs() const {
  std::vector<std::pair<int, int>> out;
  for (int a = 0; a < n_; ++a)
    for (int b = 0; b < n_; ++b)
      if (test(a, b)) out.emplace_back(a, b);
  return out;
}

int ConcreteExecution::cell_index(const Cell& c) const {
  auto it = std::find(cells.begin(), cells.end(), c);
  return it == cells.end() ? -1 : static_cast<int>(it - cells.begin());
}

bool ConcreteExecution::node_reads(int node, const Program& p) const {
  return !is_init(node) && executed[static_cast<std::size_t>(node)] &&
         p.events()[static_cast<std::size_t>(node)].reads();
}

Cell ConcreteExecution::node_cell(int node) const {
  return is_init(node) ? cells[static_cast<std::size_t>(node - event_count())] : cell[static_cast<std::size_t>(node)];
}

namespace {

using detail::BitAlgebra;
using detail::HsaExecution;
using detail::HsaHappensBefore;

// The nodes of one order's domain. Inline for the bounds verify-mapping checks: an order
// search is built for every candidate execution evaluated.
using Domain = boost::container::small_vector<int, 16>;
using Domains = boost::container::small_vector<Domain, 8>;

// Searches for the existential orders of a candidate execution: one total order per memory
// cell (coh, 3.7) and per scope instance (sc_S, 3.10), agreeing on every pair they share,
// containing the fixed edges, with ldo | coh acyclic (gdo, 3.8). Pairs that several orders
// cover are one decision, which is what "consistent with" requires of total orders.
class OrderSearch {
 public:
  OrderSearch(int n, Domains domains, std::size_t cell_domains, const Relation& ldo)
      : n_(n), domains_(std::move(domains)), cell_domains_(cell_domains), ldo_(ldo), covered_(n), same_cell_(n) {
    if (n_ > 64) {
      for (std::size_t d = 0; d < domains_.size(); ++d)
        for (int a : domains_[d])
          for (int b : domains_[d])
            if (a != b) {
              covered_.set(a, b);
              if (d < cell_domains_) same_cell_.set(a, b);
            }
      return;
    }
    for (std::size_t d = 0; d < domains_.size(); ++d) {
      std::uint64_t mask = 0;
      for (int a : domains_[d]) mask |= std::uint64_t{1} << a;
      masks_.push_back(mask);
      for (int a : domains_[d]) {
        const std::uint64_t others = mask & ~(std::uint64_t{1} << a);
        covered_.set_row_bits(a, others);
        if (d < cell_domains_) same_cell_.set_row_bits(a, others);
      }
    }
  }

  // True when orders exist that contain `fixed` (restricted to covered pairs).
  bool solve(const Relation& fixed) {
    Relation ord = fixed;
    ord &= covered_;
    // Fast path: if the required pairs and ldo are acyclic together, one linear extension
    // of them, restricted to each domain, gives every order at once, consistent on shared
    // pairs and with gdo (ldo and coh) acyclic.
    Relation all = ord;
    all |= ldo_;
    all.close();
    if (all.irreflexive()) return true;
    return search(ord, 0);
  }

 private:
  static constexpr int kMaxDepth = 4096;

  bool propagate(Relation& ord) const {
    for (bool changed = true; changed;) {
      changed = false;
      if (!masks_.empty()) {
        // Each domain's closure on bit rows (n <= 64): one pass of Warshall's algorithm
        // within the domain's mask, the same fixpoint as pair by pair.
        for (std::uint64_t mask : masks_) changed = ord.close_within(mask) || changed;
        continue;
      }
      for (const Domain& d : domains_)
        for (int k : d)
          for (int i : d) {
            if (!ord.test(i, k)) continue;
            for (int j : d)
              if (ord.test(k, j) && !ord.test(i, j)) {
                ord.set(i, j);
                changed = true;
              }
          }
    }
    for (int a = 0; a < n_; ++a) {
      if (ord.test(a, a)) return false;
      for (int b = a + 1; b < n_; ++b)
        if (ord.test(a, b) && ord.test(b, a)) return false;
    }
    return true;
  }

  bool gdo_acyclic(const Relation& ord) const {
    Relation g = ord;
    g &= same_cell_;
    g |= ldo_;
    g.close();
    return g.irreflexive();
  }

  bool search(Relation ord, int depth) {
    if (!propagate(ord) || !gdo_acyclic(ord) || depth > kMaxDepth) return false;
    for (int a = 0; a < n_; ++a)
      for (int b = a + 1; b < n_; ++b) {
        if (!covered_.test(a, b) || ord.test(a, b) || ord.test(b, a)) continue;
        Relation left = ord;
        left.set(a, b);
        if (search(std::move(left), depth + 1)) return true;
        ord.set(b, a);
        return search(std::move(ord), depth + 1);
      }
    return true;
  }

  int n_;
  Domains domains_;
  std::size_t cell_domains_;
  const Relation& ldo_;
  Relation covered_, same_cell_;
  boost::container::small_vector<std::uint64_t, 8> masks_;  // per domain, its nodes (when n <= 64)
};

// What hsa_model.hpp reads of `x`, on bit matrices: releasers and acquirers (the lists the
// caller made), po, the coh order from writes to reads of one cell and size, and Match (and
// for hrf-direct the instances both ends specify) between releasers and acquirers only, the
// only pairs sso can join.
HsaHappensBefore<BitAlgebra> happens_before(const Program& p, const ConcreteExecution& x, ModelVariant variant,
                                            const DerivedRelations& r, std::span<const int> releasers,
                                            std::span<const int> acquirers) {
  const int n = x.node_count(), e_count = x.event_count();
  const auto un = static_cast<std::size_t>(n);
  auto event = [&](int a) -> const StaticEvent& { return p.events()[static_cast<std::size_t>(a)]; };
  HsaExecution<BitAlgebra> f;
  for (auto* set : {&f.release_atomic, &f.release_fence, &f.acquire_atomic, &f.acquire_fence, &f.acquire,
                    &f.global_write, &f.group_write})
    set->assign(un, false);
  for (int a : releasers)
    (event(a).is_fence() ? f.release_fence : f.release_atomic)[static_cast<std::size_t>(a)] = true;
  for (int b : acquirers) {
    (event(b).is_fence() ? f.acquire_fence : f.acquire_atomic)[static_cast<std::size_t>(b)] = true;
    f.acquire[static_cast<std::size_t>(b)] = true;
  }
  f.po = r.po;
  f.coh_write_read = Relation(n);
  for (int a = 0; a < e_count; ++a) {
    if (!x.node_writes(a)) continue;
    (event(a).segment == Segment::Group ? f.group_write : f.global_write)[static_cast<std::size_t>(a)] = true;
    for (int b = 0; b < e_count; ++b) {
      if (!x.node_reads(b, p) || x.cell[static_cast<std::size_t>(a)] != x.cell[static_cast<std::size_t>(b)] ||
          event(a).size != event(b).size)
        continue;
      const int source = x.rf[static_cast<std::size_t>(b)];
      if (a == source || r.co.test(a, source)) f.coh_write_read.set(a, b);
    }
  }
  f.match_global = f.match_group = Relation(n);
  const auto& instances = p.scope_instances();
  if (variant == ModelVariant::HrfDirect) f.specify_global.assign(instances.size(), Relation(n));
  if (variant == ModelVariant::HrfDirect) f.specify_group.assign(instances.size(), Relation(n));
  for (int a : releasers)
    for (int b : acquirers) {
      const StaticEvent &ea = event(a), &eb = event(b);
      for (Segment seg : {Segment::Global, Segment::Group}) {
        if (match(p, ea, eb, seg, variant)) (seg == Segment::Global ? f.match_global : f.match_group).set(a, b);
        for (std::size_t s = 0; s < f.specify_global.size(); ++s)
          if (specifies(p, ea, instances[s], seg, variant) && specifies(p, eb, instances[s], seg, variant))
            (seg == Segment::Global ? f.specify_global : f.specify_group)[s].set(a, b);
      }
    }
  BitAlgebra algebra(n);
  return detail::hsa_happens_before(algebra, f, variant);
}

}  // namespace

Evaluation evaluate_execution(const Program& p, const ConcreteExecution& x, ModelVariant variant) {
  return evaluate_execution(p, x, variant, sc_domains(p, variant));
}

Evaluation evaluate_execution(const Program& p, const ConcreteExecution& x, ModelVariant variant,
                              std::span<const ScDomain> sc) {
  if (variant == ModelVariant::OpenCl) return detail::evaluate_opencl_execution(p, x);
  const int e_count = x.event_count();
  const int n = x.node_count();
  const auto& ev = p.events();
  auto live = [&](int node) { return x.is_init(node) || x.executed[static_cast<std::size_t>(node)]; };
  auto event = [&](int node) -> const StaticEvent& { return ev[static_cast<std::size_t>(node)]; };

  Evaluation result;
  DerivedRelations& r = result.relations;
  r.po = r.rf = r.co = r.fr = r.sso = r.hhb = r.ldo = Relation(n);

  // The executed events, and those of them that may release or acquire: the loops below run
  // over these lists rather than over every event.
  boost::container::small_vector<int, 32> executed, releasers, acquirers;
  for (int a = 0; a < e_count; ++a) {
    if (!live(a)) continue;
    executed.push_back(a);
    // An atomic releaser writes (a failed cas does not release).
    if (event(a).is_release() && !(event(a).atomic && !x.node_writes(a))) releasers.push_back(a);
    if (event(a).is_acquire()) acquirers.push_back(a);
  }

  // po (3.6), rf, co and fr (3.7), ldo (3.8).
  for (int a : executed) {
    for (int b : executed)
      if (event(a).thread == event(b).thread && event(a).po < event(b).po) r.po.set(a, b);
    for (int dep : x.deps[static_cast<std::size_t>(a)]) r.ldo.set(dep, a);
    if (event(a).reads()) r.rf.set(x.rf[static_cast<std::size_t>(a)], a);
  }
  for (const std::vector<int>& order : x.co)
    for (std::size_t i = 0; i < order.size(); ++i)
      for (std::size_t j = i + 1; j < order.size(); ++j) r.co.set(order[i], order[j]);
  for (int b = 0; b < e_count; ++b) {  // fr: the writes co-after b's source, but b itself
    if (!x.node_reads(b, p)) continue;
    r.fr.set_row(b, r.co, x.rf[static_cast<std::size_t>(b)]);
    r.fr.reset(b, b);
  }
  // sso (3.9) and hhb (3.11), as hsa_model.hpp defines them.
  const HsaHappensBefore<BitAlgebra> hb =
      happens_before(p, x, variant, r, {releasers.data(), releasers.size()}, {acquirers.data(), acquirers.size()});
  r.sso = hb.sso;
  r.hhb = hb.hhb;
  if (!hb.acyclic) {
    result.inconsistency = "hhb is cyclic";
    return result;
  }

  // The existential orders: coh per cell, sc_S per scope instance, gdo.
  Domains domains(x.cells.size());
  for (std::size_t k = 0; k < x.cells.size(); ++k) domains[k].push_back(e_count + static_cast<int>(k));
  for (int a = 0; a < e_count; ++a)
    if (live(a) && event(a).is_access()) {
      int k = x.cell_index(x.cell[static_cast<std::size_t>(a)]);
      if (k >= 0) domains[static_cast<std::size_t>(k)].push_back(a);
    }
  const std::size_t cell_domains = domains.size();
  for (const ScDomain& d : sc) {
    Domain& dom = domains.emplace_back();
    for (int a : d.events)
      if (live(a)) dom.push_back(a);
    if (dom.size() <= 1) domains.pop_back();
  }
  Relation fixed = r.co;
  fixed |= r.rf;
  fixed |= r.fr;
  fixed |= r.hhb;
  OrderSearch orders(n, std::move(domains), cell_domains, r.ldo);
  if (!orders.solve(fixed)) {
    result.inconsistency = "no coh, sc or gdo order exists";
    return result;
  }
  result.consistent = true;

  // Races (3.12): a conflicting pair unordered by hhb.
  for (int a = 0; a < e_count && !result.race; ++a) {
    if (!live(a) || !event(a).is_access()) continue;
    for (int b = a + 1; b < e_count; ++b) {
      if (!live(b) || !event(b).is_access() ||
          x.cell[static_cast<std::size_t>(a)] != x.cell[static_cast<std::size_t>(b)])
        continue;
      Conflict k = conflict(p, event(a), x.node_writes(a), event(b), x.node_writes(b), variant);
      if (k != Conflict::None && !r.hhb.test(a, b) && !r.hhb.test(b, a)) {
        result.race = RaceWitness{a, b, k};
        break;
      }
    }
  }
  return result;
}

std::optional<RaceWitness> certain_race(const Program& p, ModelVariant variant) {
  const litmus::Test& test = p.test();
  if (test.filter) return std::nullopt;  // a race counts only in executions the filter keeps
  for (const litmus::Thread& thread : test.threads)
    for (const litmus::Instruction& ins : thread.code)
      if (ins.kind == litmus::OpKind::Branch || ins.kind == litmus::OpKind::Barrier ||
          (ins.kind == litmus::OpKind::Rmw && ins.annots.cas))
        return std::nullopt;
  for (const StaticEvent& e : p.events())
    if (e.is_access() && !e.location) return std::nullopt;
  return first_conflict(p, variant, SameCell::Certainly);
}

namespace {

std::string event_label(const Program& p, const ConcreteExecution& x, int node) {
  if (x.is_init(node)) {
    const Cell& c = x.node_cell(node);
    const LocationInfo& loc = p.locations()[static_cast<std::size_t>(c.location)];
    return fmt::format("init: W {}={}", loc.name,
                       p.describe_value(x.initial[static_cast<std::size_t>(node - x.event_count())]));
  }
  const StaticEvent& e = p.events()[static_cast<std::size_t>(node)];
  const litmus::Instruction& ins =
      p.test().threads[static_cast<std::size_t>(e.thread)].code[static_cast<std::size_t>(e.instruction)];
  std::string text = litmus::print_instruction(ins);
  if (e.barrier != StaticEvent::Barrier::None)
    text = e.barrier == StaticEvent::Barrier::Arrive ? "barrier arrive" : "barrier depart";
  std::string values;
  if (e.reads()) values += fmt::format(" read {}", p.describe_value(x.read_value[static_cast<std::size_t>(node)]));
  if (x.node_writes(node))
    values += fmt::format(" wrote {}", p.describe_value(x.write_value[static_cast<std::size_t>(node)]));
  return fmt::format("P{}: {}{}", e.thread, text, values);
}

}  // namespace

ExecutionGraph make_graph(const Program& p, const ConcreteExecution& x, const Evaluation& e) {
  ExecutionGraph g;
  std::vector<int> index(static_cast<std::size_t>(x.node_count()), -1);
  for (int node = 0; node < x.node_count(); ++node) {
    if (!x.is_init(node) && !x.executed[static_cast<std::size_t>(node)]) continue;
    index[static_cast<std::size_t>(node)] = static_cast<int>(g.nodes.size());
    g.nodes.push_back(
        {x.is_init(node) ? -1 : p.events()[static_cast<std::size_t>(node)].thread, event_label(p, x, node)});
  }
  const DerivedRelations& r = e.relations;
  auto add = [&](const Relation& rel, std::string_view name, bool immediate_only) {
    for (auto [a, b] : rel.pairs()) {
      if (index[static_cast<std::size_t>(a)] < 0 || index[static_cast<std::size_t>(b)] < 0) continue;
      if (immediate_only) {
        bool skip = false;
        for (int c = 0; c < rel.size() && !skip; ++c) skip = rel.test(a, c) && rel.test(c, b);
        if (skip) continue;
      }
      g.edges.push_back({index[static_cast<std::size_t>(a)], index[static_cast<std::size_t>(b)], std::string(name)});
    }
  };
  add(r.po, "po", true);
  add(r.rf, "rf", false);
  add(r.co, "co", true);
  add(r.fr, "fr", false);
  add(r.sso, e.synchronisation, false);
  if (e.race)
    g.edges.push_back(
        {index[static_cast<std::size_t>(e.race->first)], index[static_cast<std::size_t>(e.race->second)], "race"});
  return g;
}

std::string to_dot(const ExecutionGraph& g, std::string_view title) {
  auto escape = [](std::string_view s) {
    std::string out;
    for (char c : s) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out;
  };
  std::string out = fmt::format("digraph \"{}\" {{\n  label=\"{}\";\n  node [shape=box, fontname=\"monospace\"];\n",
                                escape(title), escape(title));
  int max_thread = -1;
  for (const auto& n : g.nodes) max_thread = std::max(max_thread, n.thread);
  for (int t = -1; t <= max_thread; ++t) {
    out += t < 0 ? "  subgraph cluster_init {\n    label=\"initial\";\n"
                 : fmt::format("  subgraph cluster_P{} {{\n    label=\"P{}\";\n", t, t);
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
      if (g.nodes[i].thread == t) out += fmt::format("    n{} [label=\"{}\"];\n", i, escape(g.nodes[i].label));
    out += "  }\n";
  }
  for (const auto& edge : g.edges) {
    std::string_view color = edge.relation == "po"                             ? "black"
                             : edge.relation == "rf"                           ? "red"
                             : edge.relation == "co"                           ? "blue"
                             : edge.relation == "fr"                           ? "orange"
                             : edge.relation == "sso" || edge.relation == "sw" ? "darkgreen"
                                                                               : "purple";
    out += fmt::format("  n{} -> n{} [label=\"{}\", color={}, fontcolor={}{}];\n", edge.from, edge.to, edge.relation,
                       color, color, edge.relation == "race" ? ", style=dashed, dir=both" : "");
  }
  out += "}\n";
  return out;
}

}  // namespace hsalit::model
