// Why a final state is forbidden (docs/model.md, "Why a state is forbidden").
//
// Each candidate execution that ends in the state is judged by evaluate_execution, as in a
// check. For one that is not valid, the reason is sought as a cycle in the orders the axioms
// ask for. Every order is built from pairs it must contain:
//   - hhb: po and sso (3.11); a cycle there fails the first axiom;
//   - coh of a cell: rf, co, fr on the cell, and hhb between two of its accesses (3.7, 3.11);
//   - sc of a scope instance: hhb between two events of its domain (3.10);
//   - an order also contains what another order that shares the pair must contain ("consistent
//     with", 3.10), so the forced pairs of each order are passed to the others until none
//     changes, as OrderSearch's propagation shares a pair between the orders that hold it;
//   - gdo: ldo and every coh (3.8).
// A cycle in the forced pairs of one order is a contradiction, and the shortest one (in base
// edges: po, rf, co, fr, sso, ldo) is the explanation. The search for it runs on Boost.Graph
// graphs built from the candidate's bit matrices, only on request.
#include "hsalit/model/explain.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <set>
#include <sstream>

// GCC's -Wmaybe-uninitialized misreads the optional inside Boost.Graph's edge iterator.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/dijkstra_shortest_paths.hpp>
#include <boost/graph/graphviz.hpp>
#include <boost/graph/strong_components.hpp>
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#include "engines.hpp"
#include "hsalit/model/relations.hpp"

namespace hsalit::model {

std::string_view to_string(Explanation::Status s) {
  switch (s) {
    case Explanation::Status::Allowed: return "allowed";
    case Explanation::Status::Forbidden: return "forbidden";
    case Explanation::Status::Impossible: return "impossible";
    case Explanation::Status::Unknown: return "unknown";
  }
  return "?";
}

namespace {

std::string trimmed(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '(' && c != ')') out += c;
  return out;
}

}  // namespace

std::optional<StateQuery> parse_state(std::string_view text, const litmus::Test& test, std::string& error) {
  // `/\` joins the atoms of a condition, `;` those of an outcome as check prints it.
  std::string items(text);
  for (std::size_t at; (at = items.find("/\\")) != std::string::npos;) items.replace(at, 2, ";");
  if (items.find("\\/") != std::string::npos || items.find('~') != std::string::npos ||
      items.find("=>") != std::string::npos) {
    error = "a state is values joined by ';' or '/\\' (no '\\/', '~' or '=>')";
    return std::nullopt;
  }
  StateQuery state;
  std::istringstream in(items);
  for (std::string item; std::getline(in, item, ';');) {
    const std::string atom = trimmed(item);
    if (atom.empty()) continue;
    const std::size_t eq = atom.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == atom.size()) {
      error = fmt::format("'{}' is not REF=VALUE", atom);
      return std::nullopt;
    }
    const std::string ref_text = atom.substr(0, eq), value_text = atom.substr(eq + 1);
    litmus::ObservedRef ref;
    if (const std::size_t colon = ref_text.find(':'); colon != std::string::npos) {
      int thread = -1;
      const auto [end, ec] = std::from_chars(ref_text.data(), ref_text.data() + colon, thread);
      if (ec != std::errc() || end != ref_text.data() + colon || thread < 0 || colon + 1 == ref_text.size()) {
        error = fmt::format("'{}' is not a register T:REG or a location", ref_text);
        return std::nullopt;
      }
      if (thread >= static_cast<int>(test.threads.size())) {
        error = fmt::format("'{}' names thread {}, which test {} lacks (threads 0 to {})", ref_text, thread, test.name,
                            test.threads.size() - 1);
        return std::nullopt;
      }
      ref.thread = thread;
      ref.name = ref_text.substr(colon + 1);
    } else {
      const std::vector<std::string> names = test.location_names();
      if (std::find(names.begin(), names.end(), ref_text) == names.end()) {
        error = fmt::format("'{}' is no location of test {} ({})", ref_text, test.name, fmt::join(names, ", "));
        return std::nullopt;
      }
      ref.name = ref_text;
    }
    Value value = 0;
    const auto [end, ec] = std::from_chars(value_text.data(), value_text.data() + value_text.size(), value);
    if (ec != std::errc() || end != value_text.data() + value_text.size()) {
      const std::vector<std::string> names = test.location_names();
      const auto at = std::find(names.begin(), names.end(), value_text);
      if (at == names.end()) {
        error = fmt::format("'{}': '{}' is neither a number nor a location", atom, value_text);
        return std::nullopt;
      }
      value = kAddressBase + kAddressStride * static_cast<Value>(at - names.begin());
    }
    if (std::find(state.refs.begin(), state.refs.end(), ref) != state.refs.end()) {
      error = fmt::format("'{}' is given twice", ref.to_string());
      return std::nullopt;
    }
    state.refs.push_back(std::move(ref));
    state.values.push_back(value);
  }
  if (state.refs.empty()) {
    error = "no value given (e.g. '1:r0=1; 1:r1=0')";
    return std::nullopt;
  }
  return state;
}

namespace {

enum class Rel : std::uint8_t { Po, Rf, Co, Fr, Sso, Ldo };
constexpr std::string_view kRelNames[] = {"po", "rf", "co", "fr", "sso", "ldo"};

struct Step {
  int from = 0, to = 0;  // execution nodes
  Rel rel = Rel::Po;
};
using Path = std::vector<Step>;

// A directed graph with weighted edges, each edge carrying the path of base edges it stands for.
struct EdgeProps {
  int weight = 1;
  int path = 0;  // index into WeightedGraph::paths
};
using BoostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property, EdgeProps>;

struct WeightedGraph {
  explicit WeightedGraph(int n) : g(static_cast<std::size_t>(n)) {}
  void add(int a, int b, Path path) {
    const int w = static_cast<int>(path.size());
    paths.push_back(std::move(path));
    boost::add_edge(static_cast<std::size_t>(a), static_cast<std::size_t>(b),
                    EdgeProps{w, static_cast<int>(paths.size()) - 1}, g);
  }
  BoostGraph g;
  std::vector<Path> paths;
};

constexpr int kInfinity = std::numeric_limits<int>::max() / 4;

// Shortest paths from `source` (Dijkstra): distance and the edge into each node.
struct ShortestPaths {
  std::vector<int> distance;
  std::vector<BoostGraph::edge_descriptor> into;
  std::vector<char> reached;

  Path path_to(const WeightedGraph& wg, int source, int target) const {
    std::vector<const Path*> parts;
    for (int v = target; v != source;) {
      const auto e = into[static_cast<std::size_t>(v)];
      parts.push_back(&wg.paths[static_cast<std::size_t>(wg.g[e].path)]);
      v = static_cast<int>(boost::source(e, wg.g));
    }
    Path out;
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) out.insert(out.end(), (*it)->begin(), (*it)->end());
    return out;
  }
};

ShortestPaths shortest_paths(const WeightedGraph& wg, int source) {
  const std::size_t n = boost::num_vertices(wg.g);
  ShortestPaths sp;
  sp.distance.assign(n, kInfinity);
  sp.into.resize(n);
  sp.reached.assign(n, 0);
  std::vector<std::size_t> predecessor(n);
  auto weights = boost::get(&EdgeProps::weight, wg.g);
  struct RecordInto : boost::default_dijkstra_visitor {
    std::vector<BoostGraph::edge_descriptor>* into;
    void edge_relaxed(BoostGraph::edge_descriptor e, const BoostGraph& g) const { (*into)[boost::target(e, g)] = e; }
  };
  RecordInto visitor;
  visitor.into = &sp.into;
  boost::dijkstra_shortest_paths(
      wg.g, static_cast<std::size_t>(source),
      boost::weight_map(weights)
          .distance_map(boost::make_iterator_property_map(sp.distance.begin(), boost::get(boost::vertex_index, wg.g)))
          .predecessor_map(
              boost::make_iterator_property_map(predecessor.begin(), boost::get(boost::vertex_index, wg.g)))
          .distance_inf(kInfinity)
          .visitor(visitor));
  for (std::size_t v = 0; v < n; ++v) sp.reached[v] = sp.distance[v] < kInfinity;
  return sp;
}

// The shortest cycle of `wg` in base edges, if any: only nodes of a strongly connected
// component with an edge inside it can be on one.
std::optional<Path> shortest_cycle(const WeightedGraph& wg) {
  const std::size_t n = boost::num_vertices(wg.g);
  std::vector<int> component(n);
  boost::strong_components(wg.g,
                           boost::make_iterator_property_map(component.begin(), boost::get(boost::vertex_index, wg.g)));
  // Per node on a cycle, the edges into it from its own component.
  std::vector<std::vector<BoostGraph::edge_descriptor>> closing(n);
  for (std::size_t a = 0; a < n; ++a)
    for (auto [it, end] = boost::out_edges(a, wg.g); it != end; ++it) {
      const std::size_t s = boost::target(*it, wg.g);
      if (component[a] == component[s]) closing[s].push_back(*it);
    }
  std::optional<Path> best;
  for (std::size_t s = 0; s < n; ++s) {
    if (closing[s].empty()) continue;
    const ShortestPaths sp = shortest_paths(wg, static_cast<int>(s));
    for (const auto& e : closing[s]) {
      const auto a = static_cast<int>(boost::source(e, wg.g));
      if (!sp.reached[static_cast<std::size_t>(a)]) continue;
      const int length = sp.distance[static_cast<std::size_t>(a)] + wg.g[e].weight;
      if (best && static_cast<int>(best->size()) <= length) continue;
      Path cycle = sp.path_to(wg, static_cast<int>(s), a);
      const Path& last = wg.paths[static_cast<std::size_t>(wg.g[e].path)];
      cycle.insert(cycle.end(), last.begin(), last.end());
      best = std::move(cycle);
    }
  }
  return best;
}

// The names a person reads: events by thread and instruction, initial writes by location.
class Namer {
 public:
  Namer(const Program& p, const ConcreteExecution& x) : p_(p), x_(x) {}

  std::string location(const Cell& c) const {
    if (c.location < 0) return "?";
    const std::string& name = p_.locations()[static_cast<std::size_t>(c.location)].name;
    return c.copy == 0 ? name : fmt::format("{} (work-group copy {})", name, c.copy);
  }
  std::string short_name(int node) const {
    if (x_.is_init(node)) return fmt::format("init {}", location(x_.node_cell(node)));
    const StaticEvent& e = p_.events()[static_cast<std::size_t>(node)];
    const char* part = e.barrier == StaticEvent::Barrier::Arrive   ? " arrive"
                       : e.barrier == StaticEvent::Barrier::Depart ? " depart"
                                                                   : "";
    return fmt::format("P{}:{}{}", e.thread, e.instruction, part);
  }
  // `P1:0 r[atomic,scacq,agent] r0 y (reads 1)`, `init x=0`.
  std::string label(int node) const {
    if (x_.is_init(node))
      return fmt::format("init {}={}", location(x_.node_cell(node)),
                         p_.describe_value(x_.initial[static_cast<std::size_t>(node - x_.event_count())]));
    const StaticEvent& e = p_.events()[static_cast<std::size_t>(node)];
    std::string text = p_.describe_event(node);
    if (e.reads()) text += fmt::format(" (reads {})", p_.describe_value(x_.read_value[static_cast<std::size_t>(node)]));
    if (e.reads() && e.writes() && !x_.node_writes(node)) text += " (writes nothing)";
    return text;
  }
  // The candidate's rf and co choices.
  std::string choice() const {
    std::vector<std::string> rf, co;
    for (int r = 0; r < x_.event_count(); ++r)
      if (x_.node_reads(r, p_))
        rf.push_back(fmt::format("{}<-{}", short_name(r), short_name(x_.rf[static_cast<std::size_t>(r)])));
    for (std::size_t k = 0; k < x_.co.size(); ++k) {
      if (x_.co[k].size() < 3) continue;  // the initial write and at most one other: one order
      std::vector<std::string> order;
      for (int w : x_.co[k]) order.push_back(x_.is_init(w) ? std::string("init") : short_name(w));
      co.push_back(fmt::format("co {}: {}", location(x_.cells[k]), fmt::join(order, " ")));
    }
    std::string out = rf.empty() ? std::string("no reads") : fmt::format("rf {}", fmt::join(rf, ", "));
    if (!co.empty()) out += fmt::format("; {}", fmt::join(co, "; "));
    return out;
  }

 private:
  const Program& p_;
  const ConcreteExecution& x_;
};

// One edge's rule and section.
std::pair<std::string, std::string> rule_of(const Program& p, const ConcreteExecution& x, const Namer& names,
                                            const Step& s) {
  switch (s.rel) {
    case Rel::Po: return {"program order", "3.6"};
    case Rel::Rf: return {x.is_init(s.from) ? "reads the initial value" : "reads the value written (rf)", "3.7"};
    case Rel::Co: return {fmt::format("coherence order of the writes to {}", names.location(x.node_cell(s.to))), "3.7"};
    case Rel::Fr: return {"reads from a write co-before the write it points to (fr = rf^-1;co)", "3.7"};
    case Rel::Ldo: return {"depends on the value read (address, data or control: ldo)", "3.8"};
    case Rel::Sso: {
      const StaticEvent& from = p.events()[static_cast<std::size_t>(s.from)];
      const StaticEvent& to = p.events()[static_cast<std::size_t>(s.to)];
      const std::string scopes =
          fmt::format("scopes {} and {} Match", litmus::to_string(from.scope), litmus::to_string(to.scope));
      if (from.is_fence())
        return {fmt::format("release fence, then a write that is read by, or before, the acquire ({})", scopes), "3.9"};
      if (to.is_fence()) return {fmt::format("release atomic, read before an acquire fence ({})", scopes), "3.9"};
      return {fmt::format("release atomic read by an acquire atomic, in coh ({})", scopes), "3.9"};
    }
  }
  return {"?", "?"};
}

// Why one candidate is not valid: the axiom, the order, a shortest cycle of base edges.
struct Reason {
  std::string axiom, section, order, detail;
  Path cycle;
};

struct Domain {
  std::string name;
  bool cell = false;
  std::vector<int> nodes;
  std::vector<char> in;  // per execution node
};

class CandidateAnalysis {
 public:
  CandidateAnalysis(const Program& p, const ConcreteExecution& x, const Evaluation& e, std::span<const ScDomain> sc)
      : p_(p), x_(x), e_(e), sc_(sc), names_(p, x), n_(x.node_count()) {}

  Reason run() {
    WeightedGraph hb(n_);
    for (const auto& [a, b] : e_.relations.po.pairs()) hb.add(a, b, {Step{a, b, Rel::Po}});
    for (const auto& [a, b] : e_.relations.sso.pairs()) hb.add(a, b, {Step{a, b, Rel::Sso}});
    build_domains_nodes();
    // sso is defined through coh (3.9): a cell whose rf, co, fr and po alone have a cycle has
    // no coh, and that is the reason, whatever hhb the sso pairs it implies would make.
    if (auto r = coherence_cycle()) return *r;
    if (e_.inconsistency == "hhb is cyclic") {
      Reason r{"hhb is acyclic", "3.11", "hhb", "happens-before would order an event before itself", {}};
      if (auto c = shortest_cycle(hb)) r.cycle = std::move(*c);
      return r;
    }
    hhb_.assign(static_cast<std::size_t>(n_), {});
    for (int a = 0; a < n_; ++a) {
      if (!live(a)) continue;
      const ShortestPaths sp = shortest_paths(hb, a);
      hhb_[static_cast<std::size_t>(a)].resize(static_cast<std::size_t>(n_));
      for (int b = 0; b < n_; ++b)
        if (b != a && sp.reached[static_cast<std::size_t>(b)])
          hhb_[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = sp.path_to(hb, a, b);
    }
    build_forced_pairs();
    if (auto r = order_cycle()) return *r;
    if (auto r = gdo_cycle()) return *r;
    return {"coh, sc and gdo orders exist together",
            "3.7, 3.8, 3.10",
            "coh, sc, gdo",
            "no choice of the orders satisfies every axiom at once, yet no single cycle of the pairs they must "
            "contain shows it: each way of ordering some free pair leads to a different cycle",
            {}};
  }

 private:
  bool live(int node) const { return x_.is_init(node) || x_.executed[static_cast<std::size_t>(node)]; }

  std::optional<Reason> coherence_cycle() const {
    std::optional<Reason> best;
    for (std::size_t i = 0; i < domains_.size(); ++i) {
      const Domain& d = domains_[i];
      if (!d.cell) continue;
      WeightedGraph wg(n_);
      for (const auto& [rel, relation] : {std::pair{Rel::Rf, &e_.relations.rf}, std::pair{Rel::Co, &e_.relations.co},
                                          std::pair{Rel::Fr, &e_.relations.fr}, std::pair{Rel::Po, &e_.relations.po}})
        for (const auto& [a, b] : relation->pairs())
          if (d.in[static_cast<std::size_t>(a)] && d.in[static_cast<std::size_t>(b)]) wg.add(a, b, {Step{a, b, rel}});
      if (auto c = shortest_cycle(wg); c && (!best || c->size() < best->cycle.size()))
        best = reason_in(i, std::move(*c));
    }
    return best;
  }

  void build_domains_nodes() {
    const int events = x_.event_count();
    for (std::size_t k = 0; k < x_.cells.size(); ++k) {
      Domain d{fmt::format("coh of {}", names_.location(x_.cells[k])), true, {}, {}};
      d.nodes.push_back(events + static_cast<int>(k));
      for (int a = 0; a < events; ++a)
        if (live(a) && p_.events()[static_cast<std::size_t>(a)].is_access() &&
            x_.cell[static_cast<std::size_t>(a)] == x_.cells[k])
          d.nodes.push_back(a);
      domains_.push_back(std::move(d));
    }
    for (const ScDomain& sc : sc_) {
      const ScopeInstance& s = p_.scope_instances()[static_cast<std::size_t>(sc.instance)];
      Domain d{fmt::format("sc of {} instance {}", litmus::to_string(s.level), s.id), false, {}, {}};
      for (int a : sc.events)
        if (live(a)) d.nodes.push_back(a);
      if (d.nodes.size() > 1) domains_.push_back(std::move(d));
    }
    for (Domain& d : domains_) {
      d.in.assign(static_cast<std::size_t>(n_), 0);
      for (int a : d.nodes) d.in[static_cast<std::size_t>(a)] = 1;
    }
  }

  // Per order, the pairs it must contain: rf, co and fr in a cell's coh, hhb in every order.
  void build_forced_pairs() {
    forced_.assign(domains_.size(), {});
    for (std::size_t i = 0; i < domains_.size(); ++i) {
      const Domain& d = domains_[i];
      auto offer = [&](int a, int b, const Path& path) { improve(i, a, b, path); };
      if (d.cell)
        for (const auto& [rel, relation] : {std::pair{Rel::Rf, &e_.relations.rf}, std::pair{Rel::Co, &e_.relations.co},
                                            std::pair{Rel::Fr, &e_.relations.fr}})
          for (const auto& [a, b] : relation->pairs())
            if (d.in[static_cast<std::size_t>(a)] && d.in[static_cast<std::size_t>(b)]) offer(a, b, {Step{a, b, rel}});
      for (int a : d.nodes)
        for (int b : d.nodes)
          if (a != b && !hhb_[static_cast<std::size_t>(a)].empty() &&
              hhb_[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)])
            offer(a, b, *hhb_[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)]);
    }
  }

  // Keeps `path` as domain i's reason for the pair (a, b) when it is shorter; true if it was.
  bool improve(std::size_t i, int a, int b, const Path& path) {
    auto [it, inserted] = forced_[i].try_emplace({a, b}, path);
    if (inserted) return true;
    if (it->second.size() <= path.size()) return false;
    it->second = path;
    return true;
  }

  WeightedGraph graph_of(std::size_t i) const {
    WeightedGraph wg(n_);
    for (const auto& [pair, path] : forced_[i]) wg.add(pair.first, pair.second, path);
    return wg;
  }

  // Passes the forced pairs between the orders until one has a cycle or none changes.
  std::optional<Reason> order_cycle() {
    for (int round = 0; round < 2 * static_cast<int>(domains_.size()) + 2; ++round) {
      std::optional<Reason> best;
      for (std::size_t i = 0; i < domains_.size(); ++i)
        if (auto c = shortest_cycle(graph_of(i)); c && (!best || c->size() < best->cycle.size()))
          best = reason_in(i, std::move(*c));
      if (best) return best;
      // Every order's transitive pairs first, then shared: a cycle is found in the order
      // that needs the fewest pairs from others.
      closure_.assign(domains_.size(), {});
      for (std::size_t i = 0; i < domains_.size(); ++i) {
        const WeightedGraph wg = graph_of(i);
        for (int a : domains_[i].nodes) {
          const ShortestPaths sp = shortest_paths(wg, a);
          for (int b : domains_[i].nodes)
            if (b != a && sp.reached[static_cast<std::size_t>(b)]) closure_[i][{a, b}] = sp.path_to(wg, a, b);
        }
      }
      bool changed = false;
      for (std::size_t i = 0; i < domains_.size(); ++i)
        for (const auto& [pair, path] : closure_[i])
          for (std::size_t j = 0; j < domains_.size(); ++j)
            if (j != i && domains_[j].in[static_cast<std::size_t>(pair.first)] &&
                domains_[j].in[static_cast<std::size_t>(pair.second)])
              changed = improve(j, pair.first, pair.second, path) || changed;
      if (!changed) return std::nullopt;
    }
    return std::nullopt;
  }

  Reason reason_in(std::size_t i, Path cycle) const {
    const Domain& d = domains_[i];
    Reason r;
    r.order = d.name;
    if (!d.cell) {
      r.axiom = "sc order exists";
      r.section = "3.10";
      r.detail = fmt::format("{} must contain hhb on its events and agree with every coh order on the pairs they share",
                             d.name);
    } else {
      auto on_cell = [&](int node) { return d.in[static_cast<std::size_t>(node)] != 0; };
      const bool update_atomicity = cycle.size() == 2 && cycle[0].rel == Rel::Fr && cycle[1].rel == Rel::Co &&
                                    cycle[0].from == cycle[1].to && x_.node_writes(cycle[0].from);
      const bool coherence_only = std::all_of(cycle.begin(), cycle.end(), [&](const Step& s) {
        return s.rel == Rel::Rf || s.rel == Rel::Co || s.rel == Rel::Fr ||
               (s.rel == Rel::Po && on_cell(s.from) && on_cell(s.to));
      });
      if (update_atomicity) {
        r.axiom = "updates are atomic";
        r.section = "3.3.2";
        r.detail = "an update reads from the write just before it in coh: no other write may come between them";
      } else if (coherence_only) {
        r.axiom = "coh exists";
        r.section = "3.7";
        r.detail = fmt::format("{} must contain po, rf, co and fr on its accesses", d.name);
      } else {
        r.axiom = "hhb is consistent with coh";
        r.section = "3.11, 3.12";
        r.detail = fmt::format("{} must contain hhb between its accesses, with rf, co and fr", d.name);
      }
    }
    std::set<std::string> other_cells;
    for (const Step& s : cycle)
      if ((s.rel == Rel::Rf || s.rel == Rel::Co || s.rel == Rel::Fr) && !d.in[static_cast<std::size_t>(s.from)])
        other_cells.insert(names_.location(x_.node_cell(s.to)));
    if (!other_cells.empty())
      r.detail += fmt::format("; the pairs on {} come from their coh order, which the sc orders agree with (3.10)",
                              fmt::join(other_cells, ", "));
    r.cycle = std::move(cycle);
    return r;
  }

  std::optional<Reason> gdo_cycle() const {
    WeightedGraph wg(n_);
    for (const auto& [a, b] : e_.relations.ldo.pairs()) wg.add(a, b, {Step{a, b, Rel::Ldo}});
    if (boost::num_edges(wg.g) == 0) return std::nullopt;
    for (std::size_t i = 0; i < domains_.size() && i < closure_.size(); ++i)
      if (domains_[i].cell)
        for (const auto& [pair, path] : closure_[i]) wg.add(pair.first, pair.second, path);
    std::optional<Path> c = shortest_cycle(wg);
    if (!c) return std::nullopt;
    return Reason{"gdo is acyclic", "3.8", "gdo",
                  "ldo and every coh order together would have a cycle: a value out of thin air", std::move(*c)};
  }

  const Program& p_;
  const ConcreteExecution& x_;
  const Evaluation& e_;
  std::span<const ScDomain> sc_;
  Namer names_;
  int n_;
  std::vector<std::vector<std::optional<Path>>> hhb_;  // per pair of nodes, a shortest po/sso path
  std::vector<Domain> domains_;
  std::vector<std::map<std::pair<int, int>, Path>> forced_;   // per domain, the shortest reason per pair
  std::vector<std::map<std::pair<int, int>, Path>> closure_;  // per domain, the pairs forced transitively
};

// Builds the Explanation's events and edges from executions' node numbers.
class Builder {
 public:
  explicit Builder(Explanation& out) : out_(out) {}

  int event(const std::string& label) {
    auto [it, inserted] = index_.try_emplace(label, static_cast<int>(out_.events.size()));
    if (inserted) out_.events.push_back(label);
    return it->second;
  }
  ExplainedEdge edge(const Program& p, const ConcreteExecution& x, const Namer& names, const Step& s) {
    auto [rule, section] = rule_of(p, x, names, s);
    return {event(names.label(s.from)), event(names.label(s.to)), std::string(kRelNames[static_cast<int>(s.rel)]),
            std::move(rule), std::move(section)};
  }

 private:
  Explanation& out_;
  std::map<std::string, int> index_;
};

std::string conflict_reason(const StaticEvent& a, const StaticEvent& b, Conflict kind) {
  if (kind == Conflict::Ordinary)
    return fmt::format("one of them writes and {} ordinary", !a.atomic && !b.atomic ? "both are" : "one is");
  if (a.size != b.size) return "two atomics of different sizes";
  return fmt::format(
      "two atomics, one writing, whose scopes ({} and {}) do not Match: the threads share no "
      "instance of the narrower scope",
      litmus::to_string(a.scope), litmus::to_string(b.scope));
}

RaceExplanation explain_race(const Program& p, const ConcreteExecution& x, const Evaluation& e, Builder& b) {
  const Namer names(p, x);
  const RaceWitness& w = *e.race;
  RaceExplanation r;
  r.first = b.event(names.label(w.first));
  r.second = b.event(names.label(w.second));
  r.kind = std::string(to_string(w.kind));
  const StaticEvent& first = p.events()[static_cast<std::size_t>(w.first)];
  const StaticEvent& second = p.events()[static_cast<std::size_t>(w.second)];
  r.conflict = conflict_reason(first, second, w.kind);
  for (int n = 0; n < x.node_count(); ++n) {
    if (e.relations.hhb.test(w.first, n)) r.hhb_after_first.push_back(names.label(n));
    if (e.relations.hhb.test(n, w.second)) r.hhb_before_second.push_back(names.label(n));
  }
  for (const auto& [from, to] : e.relations.sso.pairs()) r.sso.push_back(b.edge(p, x, names, Step{from, to, Rel::Sso}));
  r.why_unordered =
      r.sso.empty() ? fmt::format(
                          "the execution has no sso pair: no release and acquire synchronise, so hhb is po alone "
                          "and orders no two events of P{} and P{}",
                          first.thread, second.thread)
                    : fmt::format(
                          "no chain of po and the sso pairs below leads from one of them to the other: nothing "
                          "hhb-after {} is at or po-before {}, and nothing hhb-after it is at or po-before the first",
                          names.short_name(w.first), names.short_name(w.second));
  r.choice = names.choice();
  r.graph = make_graph(p, x, e);
  return r;
}

}  // namespace

Explanation explain(const litmus::Test& test, const StateQuery& state, const CheckOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  Explanation out;
  out.test = test.name;
  out.variant = options.variant;
  auto finish = [&](Explanation::Status status) {
    out.status = status;
    out.time_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return out;
  };
  const Program program(test);
  for (std::size_t i = 0; i < state.refs.size(); ++i)  // as check prints an outcome
    out.state += fmt::format("{}={}; ", state.refs[i].to_string(), program.describe_value(state.values[i]));
  if (!out.state.empty()) out.state.pop_back();
  if (program.unsupported()) {
    out.unknown_reason = *program.unsupported();
    return finish(Explanation::Status::Unknown);
  }
  if (options.variant == ModelVariant::HrfDirect) {
    out.unknown_reason = "explanations are given under hsa and hrf-indirect (hrf-direct's hhb is not (po | sso)+)";
    return finish(Explanation::Status::Unknown);
  }
  // What each candidate's outcome holds: the filter's references, then the state's.
  std::vector<litmus::ObservedRef> refs;
  if (test.filter) litmus::append_references(*test.filter, refs);
  std::vector<std::size_t> state_column;
  for (const litmus::ObservedRef& ref : state.refs) {
    auto it = std::find(refs.begin(), refs.end(), ref);
    if (it == refs.end()) it = refs.insert(refs.end(), ref);
    state_column.push_back(static_cast<std::size_t>(it - refs.begin()));
  }
  for (litmus::ObservedRef& ref : refs) ref.pos = {};
  const std::vector<ScDomain> sc = sc_domains(program, options.variant);
  const bool may_race_at_all = may_race(program, options.variant);
  std::vector<std::set<Value>> seen(state.refs.size());
  std::map<std::pair<std::string, std::string>, std::size_t> group_of;  // (axiom, order) -> index into groups
  Builder builder(out);
  bool race_settled = !may_race_at_all, stopped_here = false;
  std::size_t listed = 0;

  auto visit = [&](const ConcreteExecution& x, const Outcome& o) {
    if (++listed > options.max_candidates) return false;
    bool in_state = true;
    for (std::size_t i = 0; i < state_column.size(); ++i) {
      const Value v = o.values[state_column[i]];
      in_state = in_state && v == state.values[i];
      if (out.candidates == 0 && seen[i].size() < 64) seen[i].insert(v);
    }
    if (!in_state && race_settled) return true;
    const Evaluation e = evaluate_execution(program, x, options.variant, sc);
    const bool kept = e.consistent && (!test.filter || holds(*test.filter, refs, o, program));
    if (kept && e.race && !out.race) {
      out.race = explain_race(program, x, e, builder);
      race_settled = true;
    }
    if (!in_state) return true;
    ++out.candidates;
    const Namer names(program, x);
    if (kept) {
      if (out.witness.empty()) {
        out.witness = names.choice();
        out.witness_graph = make_graph(program, x, e);
      }
      if (race_settled) {  // allowed, and whether it races is known: nothing more to learn
        stopped_here = true;
        return false;
      }
      return true;
    }
    Reason reason;
    if (e.consistent) {
      ++out.filtered;
      reason = {"the filter keeps it", "", "filter", "the test's filter discards this execution", {}};
    } else if (options.variant == ModelVariant::OpenCl) {
      // The OpenCL model's axioms are named as in its .cat files; no cycle is searched for.
      reason = {std::string(e.inconsistency),
                "OpenCL",
                std::string(e.inconsistency),
                fmt::format("the execution fails {} of the OpenCL model (docs/model.md, \"The OpenCL model\")",
                            e.inconsistency),
                {}};
    } else {
      reason = CandidateAnalysis(program, x, e, sc).run();
    }
    CandidateReason c{reason.axiom, reason.section, reason.order, {}, reason.detail, names.choice(), std::nullopt};
    if (options.variant == ModelVariant::OpenCl) c.graph = make_graph(program, x, e);
    // The cycle from its earliest event (by thread, then program order), as a person reads it.
    std::rotate(reason.cycle.begin(),
                std::min_element(reason.cycle.begin(), reason.cycle.end(),
                                 [](const Step& a, const Step& b) { return a.from < b.from; }),
                reason.cycle.end());
    for (const Step& s : reason.cycle) c.cycle.push_back(builder.edge(program, x, names, s));
    auto [it, inserted] = group_of.try_emplace({c.axiom, c.order}, out.groups.size());
    if (inserted) out.groups.push_back({c, 0});
    ReasonGroup& g = out.groups[it->second];
    ++g.candidates;
    if (!c.cycle.empty() && (g.shortest.cycle.empty() || c.cycle.size() < g.shortest.cycle.size())) g.shortest = c;
    if (out.per_candidate.size() < 64) out.per_candidate.push_back(std::move(c));
    return true;
  };

  CheckOptions enum_options = options;
  enum_options.engine = Engine::Enum;
  const Deadline deadline(options.timeout_seconds, options.memory_limit);
  const litmus::Prop always;
  detail::EngineQuery query{program, enum_options, refs, nullptr, always, deadline};
  query.visit = visit;
  query.seed_values = state.values;
  const detail::EngineResult r = detail::run_enum_engine(query);
  if (r.unknown && !stopped_here) {
    out.unknown_reason = *r.unknown;
    return finish(Explanation::Status::Unknown);
  }
  std::stable_sort(out.groups.begin(), out.groups.end(),
                   [](const ReasonGroup& a, const ReasonGroup& b) { return a.candidates > b.candidates; });
  if (!out.witness.empty()) {
    out.groups.clear();
    out.per_candidate.clear();
    return finish(Explanation::Status::Allowed);
  }
  if (out.candidates == 0) {
    for (std::size_t i = 0; i < state.refs.size(); ++i) {
      std::vector<std::string> values;
      for (Value v : seen[i]) values.push_back(program.describe_value(v));
      out.values_seen.push_back(
          fmt::format("{} ends as {}", state.refs[i].to_string(),
                      values.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(values, ", "))));
    }
    return finish(Explanation::Status::Impossible);
  }
  return finish(Explanation::Status::Forbidden);
}

namespace {

// Letters for the events of one cycle, in the order they appear: a, b, ..., z, e26, ...
std::string letter(std::size_t i) {
  return i < 26 ? std::string(1, static_cast<char>('a' + i)) : fmt::format("e{}", i);
}

void format_cycle(std::string& out, const Explanation& e, const std::vector<ExplainedEdge>& cycle,
                  std::string_view indent) {
  std::vector<int> order;
  auto name = [&](int event) {
    auto it = std::find(order.begin(), order.end(), event);
    if (it == order.end()) it = order.insert(order.end(), event);
    return letter(static_cast<std::size_t>(it - order.begin()));
  };
  std::string line = name(cycle.front().from);
  for (const ExplainedEdge& edge : cycle) line += fmt::format(" -{}-> {}", edge.relation, name(edge.to));
  out += fmt::format("{}{}\n", indent, line);
  for (std::size_t i = 0; i < order.size(); ++i)
    out += fmt::format("{}  {} = {}\n", indent, letter(i), e.events[static_cast<std::size_t>(order[i])]);
  for (const ExplainedEdge& edge : cycle)
    out += fmt::format("{}  {} -{}-> {}: {} (HSA SysArch {})\n", indent, name(edge.from), edge.relation, name(edge.to),
                       edge.rule, edge.section);
}

nlohmann::json edge_json(const Explanation& e, const ExplainedEdge& edge) {
  return {{"from", e.events[static_cast<std::size_t>(edge.from)]},
          {"to", e.events[static_cast<std::size_t>(edge.to)]},
          {"relation", edge.relation},
          {"rule", edge.rule},
          {"section", edge.section}};
}

nlohmann::json reason_json(const Explanation& e, const CandidateReason& r) {
  nlohmann::json cycle = nlohmann::json::array();
  for (const ExplainedEdge& edge : r.cycle) cycle.push_back(edge_json(e, edge));
  return {{"axiom", r.axiom},   {"section", r.section}, {"order", r.order},
          {"detail", r.detail}, {"cycle", cycle},       {"choice", r.choice}};
}

}  // namespace

std::string format_explanation(const Explanation& e) {
  std::string out =
      fmt::format("Test {}: state {} is {} under {}\n", e.test, e.state, to_string(e.status), to_string(e.variant));
  switch (e.status) {
    case Explanation::Status::Unknown: out += fmt::format("  unknown: {}\n", e.unknown_reason.value_or("?")); break;
    case Explanation::Status::Impossible:
      out += "  no candidate execution of the test ends in this state (whatever the model allows):\n";
      for (const std::string& v : e.values_seen) out += fmt::format("    {}\n", v);
      break;
    case Explanation::Status::Allowed:
      out += fmt::format("  {} candidate execution{} end{} in it; a valid one: {}\n", e.candidates,
                         e.candidates == 1 ? "" : "s", e.candidates == 1 ? "s" : "", e.witness);
      out += "  (--explain-dot draws it)\n";
      break;
    case Explanation::Status::Forbidden:
      out += fmt::format("  {} candidate execution{} end{} in it; none is valid:\n", e.candidates,
                         e.candidates == 1 ? "" : "s", e.candidates == 1 ? "s" : "");
      for (const ReasonGroup& g : e.groups) {
        out += fmt::format("  {} of {} fail{} \"{}\"{}, in {}: {}\n", g.candidates, e.candidates,
                           g.candidates == 1 ? "s" : "", g.shortest.axiom,
                           g.shortest.section.empty() ? "" : fmt::format(" (HSA SysArch {})", g.shortest.section),
                           g.shortest.order, g.shortest.detail);
        if (!g.shortest.cycle.empty()) {
          out += fmt::format("    shortest cycle ({}):\n", g.shortest.choice);
          format_cycle(out, e, g.shortest.cycle, "      ");
        }
      }
      break;
  }
  if (e.race) {
    const RaceExplanation& r = *e.race;
    out += fmt::format("  the program races (HSA SysArch 3.12: its behaviour is undefined), {} {} conflict:\n",
                       r.kind == "ordinary" ? "an" : "a", r.kind);
    out += fmt::format("    {}\n    {}\n    they conflict: {}\n", e.events[static_cast<std::size_t>(r.first)],
                       e.events[static_cast<std::size_t>(r.second)], r.conflict);
    out += fmt::format("    no hhb orders them in the execution {}: {}\n", r.choice, r.why_unordered);
    for (const ExplainedEdge& s : r.sso)
      out += fmt::format("      sso: {} -> {}\n", e.events[static_cast<std::size_t>(s.from)],
                         e.events[static_cast<std::size_t>(s.to)]);
  }
  return out;
}

nlohmann::json explanation_to_json(const Explanation& e) {
  nlohmann::json j{{"test", e.test},
                   {"state", e.state},
                   {"model", to_string(e.variant)},
                   {"status", to_string(e.status)},
                   {"candidates", e.candidates},
                   {"time_ms", e.time_ms}};
  if (e.unknown_reason) j["unknown_reason"] = *e.unknown_reason;
  if (e.status == Explanation::Status::Allowed) j["witness"] = e.witness;
  if (e.status == Explanation::Status::Impossible) j["values_seen"] = e.values_seen;
  if (e.status == Explanation::Status::Forbidden) {
    nlohmann::json groups = nlohmann::json::array();
    for (const ReasonGroup& g : e.groups) {
      nlohmann::json one = reason_json(e, g.shortest);
      one["candidates"] = g.candidates;
      groups.push_back(std::move(one));
    }
    j["reasons"] = std::move(groups);
    nlohmann::json each = nlohmann::json::array();
    for (const CandidateReason& r : e.per_candidate) each.push_back(reason_json(e, r));
    j["per_candidate"] = std::move(each);
    j["filtered"] = e.filtered;
  }
  if (e.race) {
    const RaceExplanation& r = *e.race;
    nlohmann::json sso = nlohmann::json::array();
    for (const ExplainedEdge& s : r.sso) sso.push_back(edge_json(e, s));
    j["race"] = {{"first", e.events[static_cast<std::size_t>(r.first)]},
                 {"second", e.events[static_cast<std::size_t>(r.second)]},
                 {"kind", r.kind},
                 {"conflict", r.conflict},
                 {"hhb_after_first", r.hhb_after_first},
                 {"hhb_before_second", r.hhb_before_second},
                 {"sso", sso},
                 {"why_unordered", r.why_unordered},
                 {"choice", r.choice}};
  }
  return j;
}

std::string explanation_to_dot(const Explanation& e) {
  if (e.status == Explanation::Status::Allowed && e.race && e.race->graph)
    return to_dot(*e.race->graph, fmt::format("{}: {} is allowed; the program races", e.test, e.state));
  if (e.witness_graph) return to_dot(*e.witness_graph, fmt::format("{}: {} is allowed", e.test, e.state));
  struct VertexProps {
    std::string label;
  };
  struct DotEdge {
    std::string label, color, style;
  };
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, VertexProps, DotEdge>;
  Graph g;
  std::map<int, std::size_t> vertex;  // event -> vertex
  auto at = [&](int event) {
    auto [it, inserted] = vertex.try_emplace(event, boost::num_vertices(g));
    if (inserted) boost::add_vertex(VertexProps{e.events[static_cast<std::size_t>(event)]}, g);
    return it->second;
  };
  auto color = [](std::string_view rel) -> std::string {
    return rel == "po"    ? "black"
           : rel == "rf"  ? "red"
           : rel == "co"  ? "blue"
           : rel == "fr"  ? "orange"
           : rel == "sso" ? "darkgreen"
                          : "purple";
  };
  // Without cycles (the OpenCL model's axioms), the first group's candidate, its axiom named.
  if (e.status == Explanation::Status::Forbidden && !e.groups.empty() && e.groups.front().shortest.cycle.empty() &&
      e.groups.front().shortest.graph)
    return to_dot(*e.groups.front().shortest.graph, fmt::format("{}: {} is forbidden: this candidate fails {}", e.test,
                                                                e.state, e.groups.front().shortest.axiom));
  for (const ReasonGroup& group : e.groups)
    for (const ExplainedEdge& edge : group.shortest.cycle)
      boost::add_edge(at(edge.from), at(edge.to),
                      DotEdge{fmt::format("{} ({})", edge.relation, group.shortest.order), color(edge.relation), ""},
                      g);
  if (e.race) {
    for (const ExplainedEdge& s : e.race->sso)
      boost::add_edge(at(s.from), at(s.to), DotEdge{"sso", color("sso"), ""}, g);
    boost::add_edge(at(e.race->first), at(e.race->second), DotEdge{"race: no hhb", "purple", "dashed"}, g);
  }
  auto quote = [](const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    return out + "\"";
  };
  std::ostringstream dot;
  const std::string title = fmt::format("{}: {} is {}", e.test, e.state, to_string(e.status));
  boost::write_graphviz(
      dot, g,
      [&](std::ostream& os, std::size_t v) {
        os << "[shape=box, fontname=\"monospace\", label=" << quote(g[v].label) << "]";
      },
      [&](std::ostream& os, Graph::edge_descriptor d) {
        const DotEdge& edge = g[d];
        os << "[label=" << quote(edge.label) << ", color=" << edge.color << ", fontcolor=" << edge.color
           << (edge.style.empty() ? "" : ", style=" + edge.style) << "]";
      },
      [&](std::ostream& os) { os << "label=" << quote(title) << ";\n"; });
  return dot.str();
}

}  // namespace hsalit::model
