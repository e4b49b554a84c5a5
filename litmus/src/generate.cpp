#include "hsalit/litmus/generate.hpp"
#include "hsalit/support/saturating.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <unordered_set>
#include <utility>

#include "hsalit/litmus/check.hpp"
#include "hsalit/litmus/printer.hpp"

namespace hsalit::litmus {
namespace {

// ---------------------------------------------------------------------------------------
// Edges

enum class EdgeClass : std::uint8_t { PoDifferent, PoSame, Rmw, ComInternal, ComExternal };

struct EdgeInfo {
  std::string_view name;
  char from, to;  // 'R' or 'W'
  EdgeClass cls;
};

constexpr std::array<EdgeInfo, kEdgeKindCount> kEdges = {{
    {"PodWW", 'W', 'W', EdgeClass::PoDifferent},
    {"PodWR", 'W', 'R', EdgeClass::PoDifferent},
    {"PodRW", 'R', 'W', EdgeClass::PoDifferent},
    {"PodRR", 'R', 'R', EdgeClass::PoDifferent},
    {"PosWW", 'W', 'W', EdgeClass::PoSame},
    {"PosWR", 'W', 'R', EdgeClass::PoSame},
    {"PosRW", 'R', 'W', EdgeClass::PoSame},
    {"PosRR", 'R', 'R', EdgeClass::PoSame},
    {"Rmw", 'R', 'W', EdgeClass::Rmw},
    {"Rfi", 'W', 'R', EdgeClass::ComInternal},
    {"Fri", 'R', 'W', EdgeClass::ComInternal},
    {"Wsi", 'W', 'W', EdgeClass::ComInternal},
    {"Rfe", 'W', 'R', EdgeClass::ComExternal},
    {"Fre", 'R', 'W', EdgeClass::ComExternal},
    {"Wse", 'W', 'W', EdgeClass::ComExternal},
}};

const EdgeInfo& info(EdgeKind e) { return kEdges[static_cast<std::size_t>(e)]; }
bool is_po(EdgeKind e) { return info(e).cls == EdgeClass::PoDifferent || info(e).cls == EdgeClass::PoSame; }
bool is_com(EdgeKind e) { return info(e).cls == EdgeClass::ComInternal || info(e).cls == EdgeClass::ComExternal; }
bool is_external(EdgeKind e) { return info(e).cls == EdgeClass::ComExternal; }
bool is_pod(EdgeKind e) { return info(e).cls == EdgeClass::PoDifferent; }

constexpr std::array<Family, 16> kFamilies = {{
    {"MP", "PodWW Rfe PodRR Fre", "message passing"},
    {"SB", "PodWR Fre PodWR Fre", "store buffering"},
    {"LB", "PodRW Rfe PodRW Rfe", "load buffering"},
    {"S", "PodWW Rfe PodRW Wse", "a write, then a read that orders a later write"},
    {"R", "PodWW Wse PodWR Fre", "a write-write and a write-read pair over coherence"},
    {"2+2W", "PodWW Wse PodWW Wse", "two pairs of writes"},
    {"WRC", "Rfe PodRW Rfe PodRR Fre", "write-to-read causality"},
    {"ISA2", "PodWW Rfe PodRW Rfe PodRR Fre", "message passing through a third thread"},
    {"IRIW", "Rfe PodRR Fre Rfe PodRR Fre", "independent reads of independent writes"},
    {"RWC", "Rfe PodRR Fre PodWR Fre", "read-to-write causality"},
    {"WWC", "Rfe PodRW Rfe PodRW Wse", "write-to-write causality"},
    {"CoRR", "Rfe PosRR Fre", "coherence of two reads"},
    {"CoWR", "PosWR Fre Wse", "coherence of a write and a later read"},
    {"CoRW1", "PosRW Rfi", "a read does not see its thread's later write"},
    {"CoRW2", "PosRW Wse Rfe", "coherence of a read and a later write"},
    {"CoWW", "PosWW Wsi", "coherence of two writes of one thread"},
}};

// ---------------------------------------------------------------------------------------
// Cycles

int count_if_edges(std::span<const EdgeKind> c, bool (*pred)(EdgeKind)) {
  return static_cast<int>(std::count_if(c.begin(), c.end(), pred));
}

// Whether the rotation of `cycle` from edge `s` starts at the first event of a thread: after
// an external edge, or, in a one-thread cycle (`any_external` false), after an internal
// communication edge. The test's program order is the cycle's order from its start, so every
// edge but the last goes forward in program order and the last goes back to the first event,
// which only a communication edge can (a program-order edge back would contradict the others,
// and an Rmw edge would make the first and last events one instruction).
bool starts_thread(std::span<const EdgeKind> cycle, std::size_t s, bool any_external) {
  const EdgeKind last = cycle[(s + cycle.size() - 1) % cycle.size()];
  return any_external ? is_external(last) : info(last).cls == EdgeClass::ComInternal;
}

// The rotations that start a thread (starts_thread).
std::vector<Cycle> thread_rotations(std::span<const EdgeKind> cycle) {
  std::vector<Cycle> out;
  const std::size_t n = cycle.size();
  const bool any_external = count_if_edges(cycle, is_external) > 0;
  for (std::size_t s = 0; s < n; ++s) {
    if (!starts_thread(cycle, s, any_external)) continue;
    Cycle r;
    for (std::size_t i = 0; i < n; ++i) r.push_back(cycle[(s + i) % n]);
    out.push_back(std::move(r));
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// The skeleton of a test: what a cycle fixes (threads of accesses, locations, values).

struct Access {
  char kind = 'R';  // R (load), W (store), U (rmw)
  int loc = 0;
  std::int64_t write_value = 0;  // W, U
  std::int64_t read_value = 0;   // R, U: the value the critical outcome reads
};

struct Skeleton {
  std::vector<std::vector<Access>> threads;
  // Per thread, per gap between access i and i+1: whether it is a program-order edge
  // (which may carry a fence or a dependency).
  std::vector<std::vector<bool>> po_gap;
  int locations = 0;
  std::vector<std::optional<std::int64_t>> final_value;  // per location with two or more writes
  std::string cycle_text;
  std::string family;  // the family name, or the edges joined by '-'
};

Skeleton build_skeleton(const Cycle& cycle) {
  const std::size_t n = cycle.size();
  // Event i is the source of edge i; edge i leads to event (i + 1) % n.
  std::vector<int> thread_of(n, 0);
  for (std::size_t i = 1; i < n; ++i) thread_of[i] = thread_of[i - 1] + (is_external(cycle[i - 1]) ? 1 : 0);

  // Where the walk that assigns locations and values starts: after the first Pod edge (the
  // locations are then linear runs between Pod edges), else after the first other
  // program-order edge, else after the first Rmw. The edge the walk wraps over is the one
  // the critical outcome violates; every communication edge holds in it.
  auto first_index = [&](auto pred) -> std::optional<std::size_t> {
    for (std::size_t i = 0; i < n; ++i)
      if (pred(cycle[i])) return i;
    return std::nullopt;
  };
  std::optional<std::size_t> cut = first_index(is_pod);
  if (!cut) cut = first_index(is_po);
  if (!cut) cut = first_index([](EdgeKind e) { return e == EdgeKind::Rmw; });
  const std::size_t start = (*cut + 1) % n;

  std::vector<int> raw_loc(n, 0);
  std::vector<std::int64_t> value(n, 0);
  std::map<int, std::int64_t> last_value;  // per raw location: the last write's value
  std::map<int, int> writes;
  int loc = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (start + k) % n;
    if (k > 0 && is_pod(cycle[(i + n - 1) % n])) ++loc;
    raw_loc[i] = loc;
    if (info(cycle[i]).from == 'W') {
      value[i] = ++writes[loc];
      last_value[loc] = value[i];
    } else {
      value[i] = last_value.count(loc) ? last_value[loc] : 0;
    }
  }
  // Locations renamed by first appearance in thread order.
  std::map<int, int> rename;
  for (std::size_t i = 0; i < n; ++i)
    if (!rename.count(raw_loc[i])) rename.emplace(raw_loc[i], static_cast<int>(rename.size()));

  Skeleton s;
  s.locations = static_cast<int>(rename.size());
  s.threads.resize(static_cast<std::size_t>(thread_of[n - 1] + 1));
  s.po_gap.resize(s.threads.size());
  for (std::size_t i = 0; i < n; ++i) {
    auto& code = s.threads[static_cast<std::size_t>(thread_of[i])];
    const bool after_rmw = i > 0 && cycle[i - 1] == EdgeKind::Rmw;
    if (after_rmw) {  // the write half of the rmw started at event i - 1
      code.back().kind = 'U';
      code.back().write_value = value[i];
    } else {
      if (!code.empty()) s.po_gap[static_cast<std::size_t>(thread_of[i])].push_back(is_po(cycle[i - 1]));
      Access a;
      a.kind = info(cycle[i]).from;
      a.loc = rename.at(raw_loc[i]);
      (a.kind == 'W' ? a.write_value : a.read_value) = value[i];
      code.push_back(a);
    }
  }
  s.final_value.assign(static_cast<std::size_t>(s.locations), std::nullopt);
  for (const auto& [raw, count] : writes)
    if (count >= 2) s.final_value[static_cast<std::size_t>(rename.at(raw))] = last_value.at(raw);
  s.cycle_text = print_cycle(cycle);
  if (auto f = family_of(cycle)) {
    s.family = *f;
  } else {
    std::string joined;
    for (EdgeKind e : cycle) joined += (joined.empty() ? "" : "-") + std::string(to_string(e));
    s.family = joined;
  }
  return s;
}

// ---------------------------------------------------------------------------------------
// Variants: orders, decorations, segments and placements on a skeleton.

struct PlacementSpec {
  std::vector<int> agent, wg;  // per thread, numbered by first appearance
};

// One test's choices, per thread: a Variation per access (Ordinary or Atomic) and per gap
// between two accesses (Nothing, Fence or Dependency).
struct Variant {
  std::vector<std::vector<Variation>> accesses;
  std::vector<std::vector<Variation>> gaps;
  std::vector<Segment> segments;
  const PlacementSpec* placement = nullptr;
};

// Every placement of n threads on agents and work-groups (set partitions of the threads
// into work-groups, then of the work-groups into agents), in a fixed order.
std::vector<PlacementSpec> all_placements(int n) {
  std::vector<PlacementSpec> out;
  // Restricted growth strings enumerate set partitions in lexicographic order.
  auto partitions = [](int size) {
    std::vector<std::vector<int>> result;
    std::vector<int> a(static_cast<std::size_t>(size), 0);
    std::function<void(int, int)> rec = [&](int i, int max) {
      if (i == size) {
        result.push_back(a);
        return;
      }
      for (int v = 0; v <= max + 1; ++v) {
        a[static_cast<std::size_t>(i)] = v;
        rec(i + 1, std::max(max, v));
      }
    };
    if (size > 0) {
      a[0] = 0;
      rec(1, 0);
    }
    return result;
  };
  for (const auto& wg : partitions(n)) {
    const int wgs = *std::max_element(wg.begin(), wg.end()) + 1;
    for (const auto& agent_of_wg : partitions(wgs)) {
      PlacementSpec p;
      p.wg = wg;
      for (int t = 0; t < n; ++t)
        p.agent.push_back(agent_of_wg[static_cast<std::size_t>(wg[static_cast<std::size_t>(t)])]);
      out.push_back(std::move(p));
    }
  }
  return out;
}

ThreadRelation relation(const PlacementSpec& p, std::size_t a, std::size_t b) {
  if (p.agent[a] != p.agent[b]) return ThreadRelation::DifferentAgent;
  if (p.wg[a] != p.wg[b]) return ThreadRelation::DifferentWorkGroup;
  return ThreadRelation::SameWorkGroup;
}

bool all_in_one_workgroup(const PlacementSpec& p) {
  return std::all_of(p.wg.begin(), p.wg.end(), [](int w) { return w == 0; });
}

std::string placement_text(const PlacementSpec& p) {
  const std::size_t n = p.wg.size();
  if (n <= 1) return "";
  std::set<ThreadRelation> relations;
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = a + 1; b < n; ++b) relations.insert(relation(p, a, b));
  if (relations.size() == 1) return std::string(to_string(*relations.begin()));
  // Mixed: agents separated by '-', work-groups of an agent by '.', a work-group as `w`
  // and its thread numbers.
  std::map<int, std::map<int, std::string>> tree;
  for (std::size_t t = 0; t < n; ++t) tree[p.agent[t]][p.wg[t]] += std::to_string(t);
  std::string out;
  for (const auto& [agent, wgs] : tree) {
    if (!out.empty()) out += '-';
    std::string part;
    for (const auto& [wg, threads] : wgs) part += (part.empty() ? "w" : ".w") + threads;
    out += part;
  }
  return out;
}

std::string location_name(int loc) {
  static constexpr std::array<const char*, 6> kNames = {"x", "y", "z", "u", "v", "w"};
  if (loc < static_cast<int>(kNames.size())) return kNames[static_cast<std::size_t>(loc)];
  return fmt::format("x{}", loc);
}

// The name: FAMILY+DESCRIPTORS_PLACEMENT[+group-LOCS] (litmus/library/README.md).
std::string test_name(const Skeleton& s, const Variant& v) {
  std::vector<std::string> per_thread;
  std::optional<Variation> common;
  bool uniform = true;
  for (std::size_t t = 0; t < s.threads.size(); ++t) {
    const auto& annots = v.accesses[t];
    bool decorated = std::any_of(v.gaps[t].begin(), v.gaps[t].end(),
                                 [](const Variation& d) { return d.kind != Variation::Kind::Nothing; });
    bool same = std::all_of(annots.begin(), annots.end(), [&](const Variation& a) { return a == annots.front(); });
    if (!decorated && same) {
      per_thread.push_back(to_string(annots.front()));
      if (!common) common = annots.front();
      uniform = uniform && *common == annots.front();
    } else {
      uniform = false;
      std::string text;
      for (std::size_t i = 0; i < annots.size(); ++i) {
        if (i > 0) {
          text += '.';
          if (std::string d = to_string(v.gaps[t][i - 1]); !d.empty()) text += d + '.';
        }
        text += to_string(annots[i]);
      }
      per_thread.push_back(text);
    }
  }
  std::string name = s.family;
  if (uniform && common)
    name += "+" + to_string(*common);
  else
    for (const auto& d : per_thread) name += "+" + d;
  if (std::string p = placement_text(*v.placement); !p.empty()) name += "_" + p;
  std::string group;
  for (int l = 0; l < s.locations; ++l)
    if (v.segments[static_cast<std::size_t>(l)] == Segment::Group) group += "-" + location_name(l);
  if (!group.empty()) name += "+group" + group;
  return name;
}

// What a key tells apart. Test: the whole test. Program: the test without its `exists`
// condition (the values a read compares with a guard stay).
enum class KeyOf : std::uint8_t { Test, Program };

void append_number(std::string& key, std::int64_t value) {
  char digits[24];
  const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, value);
  key.append(digits, end);
}

// An agent's or work-group's number by first appearance (`table`: per id, its number or -1).
int renumber(std::vector<int>& table, int id, int& met) {
  if (static_cast<std::size_t>(id) >= table.size()) table.resize(static_cast<std::size_t>(id) + 1, -1);
  int& fresh = table[static_cast<std::size_t>(id)];
  if (fresh < 0) fresh = met++;
  return fresh;
}

// The names one order of a skeleton's threads gives its locations and values: a location its
// place in the order met, a written value the 1-based place of its first write among its
// location's writes (0 stays 0; a value no write stores, minus itself).
class OrderNaming {
 public:
  explicit OrderNaming(const Skeleton& s)
      : fresh_(static_cast<std::size_t>(s.locations)), written_(static_cast<std::size_t>(s.locations)) {}

  void name(const Skeleton& s, std::span<const std::size_t> order) {
    std::fill(fresh_.begin(), fresh_.end(), -1);
    for (auto& values : written_) values.clear();
    met_.clear();
    for (std::size_t t : order)
      for (const Access& a : s.threads[t]) {
        int& fresh = fresh_[static_cast<std::size_t>(a.loc)];
        if (fresh < 0) {
          fresh = static_cast<int>(met_.size());
          met_.push_back(a.loc);
        }
        if (a.kind != 'R') written_[static_cast<std::size_t>(a.loc)].push_back(a.write_value);
      }
  }
  int location(int l) const { return fresh_[static_cast<std::size_t>(l)]; }
  const std::vector<int>& met() const { return met_; }  // the locations in the order met
  std::int64_t value(int l, std::int64_t value) const {
    if (value == 0) return 0;
    const std::vector<std::int64_t>& values = written_[static_cast<std::size_t>(l)];
    const auto it = std::find(values.begin(), values.end(), value);
    return it == values.end() ? -value : static_cast<std::int64_t>(it - values.begin()) + 1;
  }

 private:
  std::vector<int> fresh_;  // per location, its name (-1: not met)
  std::vector<int> met_;
  std::vector<std::vector<std::int64_t>> written_;  // per location, the values written in order
};

// The symmetry class: the smallest serialisation over thread permutations, with
// locations and values renamed by first appearance. Written with small tables and
// std::to_chars rather than maps and formatting: a bound asks it of every space it searches.
std::string canonical(const Skeleton& s, const Variant& v, KeyOf of = KeyOf::Test) {
  const std::size_t n = s.threads.size();
  std::vector<std::size_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  std::string best, key;
  bool first = true;
  OrderNaming names(s);
  std::vector<int> agent, wg;  // fresh numbers, -1: not yet
  do {
    names.name(s, perm);
    key.clear();
    agent.assign(n + 1, -1);
    wg.assign(n + 1, -1);
    int agents_met = 0, wgs_met = 0;
    for (std::size_t t : perm) {
      key += "|a";
      append_number(key, renumber(agent, v.placement->agent[t], agents_met));
      key += 'w';
      append_number(key, renumber(wg, v.placement->wg[t], wgs_met));
      key += ':';
      const auto& code = s.threads[t];
      for (std::size_t i = 0; i < code.size(); ++i) {
        const Access& a = code[i];
        if (i > 0) {
          key += '/';
          key += to_string(v.gaps[t][i - 1]);
          key += '/';
        }
        key += a.kind;
        append_number(key, names.location(a.loc));
        if (a.kind != 'R') {
          key += 'w';
          append_number(key, names.value(a.loc, a.write_value));
        }
        // The value a read expects is the condition's, and a guard's after it.
        const bool next_po = i + 1 < code.size() && s.po_gap[t][i];
        const bool compared = of == KeyOf::Test || (next_po && v.gaps[t][i].kind == Variation::Kind::Dependency &&
                                                    v.gaps[t][i].dependency == Dependency::Guard);
        if (a.kind != 'W' && compared) {
          key += 'r';
          append_number(key, names.value(a.loc, a.read_value));
        }
        key += to_string(v.accesses[t][i]);
      }
    }
    // The locations in the order met, each with its segment (and, for a whole test, the
    // final value the condition names).
    key += '#';
    for (std::size_t f = 0; f < names.met().size(); ++f) {
      const auto old = static_cast<std::size_t>(names.met()[f]);
      if (f > 0) key += ',';
      key += to_string(v.segments[old]);
      const auto& final_value = of == KeyOf::Test ? s.final_value[old] : std::nullopt;
      if (final_value) {
        key += '=';
        append_number(key, names.value(static_cast<int>(old), *final_value));
      }
    }
    if (first || key < best) best = key;
    first = false;
  } while (std::next_permutation(perm.begin(), perm.end()));
  return best;
}

// The programs of a skeleton up to symmetry, for the keys of its spaces (VariationSpace::
// skeleton_key and arrangement_key): `key` serialises the threads' accesses, values and
// program-order gaps (whether each may hold a fence or a dependency; with `guards`, the
// value a read before such a gap compares), the smallest serialisation over thread orders, and `orders` the thread
// orders that give it, each with its locations in the order met. A space's key is the
// smallest serialisation of its placement and segments over those orders alone: every other
// order gives a larger skeleton part. Computed once per cycle, where canonical() would
// serialise every space over every order.
struct SkeletonSymmetry {
  struct Order {
    std::vector<std::size_t> threads;
    std::vector<int> location_met;  // the locations in the order met
  };
  std::string key;
  std::vector<Order> orders;
};

SkeletonSymmetry skeleton_symmetry(const Skeleton& s, bool guards) {
  const std::size_t n = s.threads.size();
  std::vector<std::size_t> perm(n);
  std::iota(perm.begin(), perm.end(), 0);
  SkeletonSymmetry out;
  std::string key;
  OrderNaming names(s);
  do {
    names.name(s, perm);
    key.clear();
    for (std::size_t t : perm) {
      key += '|';
      const auto& code = s.threads[t];
      for (std::size_t i = 0; i < code.size(); ++i) {
        const Access& a = code[i];
        if (i > 0) key += s.po_gap[t][i - 1] ? "/p/" : "/-/";
        key += a.kind;
        append_number(key, names.location(a.loc));
        if (a.kind != 'R') {
          key += 'w';
          append_number(key, names.value(a.loc, a.write_value));
        }
        // A read's value is compared where a guard may follow it.
        if (a.kind != 'W' && guards && i + 1 < code.size() && s.po_gap[t][i]) {
          key += 'r';
          append_number(key, names.value(a.loc, a.read_value));
        }
      }
    }
    if (out.orders.empty() || key < out.key) {
      out.key = key;
      out.orders.clear();
    }
    if (key == out.key) out.orders.push_back({perm, names.met()});
  } while (std::next_permutation(perm.begin(), perm.end()));
  return out;
}

// A space's placement and segments under the skeleton's smallest orders, the smallest of
// them: per thread in the order, its agent and work-group renumbered by first appearance,
// then the locations' segments in the order met. One byte each (threads and segments are
// few).
std::string arrangement_of(const SkeletonSymmetry& symmetry, const PlacementSpec& placement,
                           std::span<const Segment> segments) {
  std::string best, key;
  std::vector<int> agent, wg;
  for (const SkeletonSymmetry::Order& order : symmetry.orders) {
    key.clear();
    agent.assign(order.threads.size() + 1, -1);
    wg.assign(order.threads.size() + 1, -1);
    int agents_met = 0, wgs_met = 0;
    for (std::size_t t : order.threads) {
      key += static_cast<char>('0' + renumber(agent, placement.agent[t], agents_met));
      key += static_cast<char>('0' + renumber(wg, placement.wg[t], wgs_met));
    }
    key += '#';
    for (int l : order.location_met)
      key += static_cast<char>('0' + static_cast<int>(segments[static_cast<std::size_t>(l)]));
    if (best.empty() || key < best) best = key;
  }
  return best;
}

Instruction access_instruction(const Access& a, const Variation& annot, const std::string& reg) {
  Instruction ins;
  ins.kind = a.kind == 'R' ? OpKind::Load : a.kind == 'W' ? OpKind::Store : OpKind::Rmw;
  ins.annots.atomic = annot.kind == Variation::Kind::Atomic;
  ins.annots.order = annot.order;
  ins.annots.scope = annot.scope;
  ins.addr.base = Expr::location(location_name(a.loc));
  if (a.kind != 'W') ins.reg = reg;
  if (a.kind != 'R') ins.value = Expr::constant(a.write_value);
  return ins;
}

// `check`: run the test's checks (check_test) as a safety net against a generator bug;
// without them only the scope tree is resolved.
// `named` false: without the name and description (a bound's search reads neither).
Test build_test(const Skeleton& s, const Variant& v, bool check = true, bool named = true) {
  Test test;
  if (named) {
    test.name = test_name(s, v);
    test.description = fmt::format("{}: {}; generated", s.family, s.cycle_text);
  }
  test.metadata.push_back({"Cycle", s.cycle_text});
  for (int l = 0; l < s.locations; ++l) test.init.push_back({std::nullopt, location_name(l), Expr::constant(0), {}});
  std::vector<Prop> terms;
  test.threads.reserve(s.threads.size());
  for (std::size_t t = 0; t < s.threads.size(); ++t) {
    Thread thread;
    thread.id = static_cast<int>(t);
    thread.code.reserve(4 * s.threads[t].size());  // an access, two before it, a guard's label after
    int next_reg = 0;
    std::string last_read_reg;  // the register of the previous access, when it reads
    std::string guard_label;    // set while the access being built is guarded
    const auto& code = s.threads[t];
    for (std::size_t i = 0; i < code.size(); ++i) {
      const Access& a = code[i];
      Instruction ins = access_instruction(a, v.accesses[t][i], a.kind == 'W' ? "" : fmt::format("r{}", next_reg));
      std::string own_reg = ins.reg;
      if (!own_reg.empty()) ++next_reg;
      if (i > 0) {
        const Variation& d = v.gaps[t][i - 1];
        if (d.kind == Variation::Kind::Fence) {
          Instruction f;
          f.kind = OpKind::Fence;
          f.annots.order = d.order;
          f.annots.scope = d.scope;
          thread.code.push_back(std::move(f));
        } else if (d.kind == Variation::Kind::Dependency) {
          // diy7's dependencies: a register computed from the value read that is always 0
          // (address), the stored value through that register (data), or a branch on the
          // value read to the next instruction (control) (HSA SysArch 3.8, ldo).
          if (d.dependency == Dependency::Guard) {
            Instruction mov;
            mov.kind = OpKind::Mov;
            mov.reg = fmt::format("r{}", next_reg++);
            mov.value = Expr::binary(BinaryOp::Ne, Expr::reg(last_read_reg), Expr::constant(code[i - 1].read_value));
            Instruction b;
            b.kind = OpKind::Branch;
            b.condition = Expr::reg(mov.reg);
            b.label = fmt::format("LG{}{}", t, i);
            guard_label = b.label;
            thread.code.push_back(std::move(mov));
            thread.code.push_back(std::move(b));
            if (!own_reg.empty())  // a skipped read leaves -1, which no write stores
              test.init.push_back({static_cast<int>(t), own_reg, Expr::constant(-1), {}});
          } else if (d.dependency == Dependency::Control) {
            Instruction b;
            b.kind = OpKind::Branch;
            b.condition = Expr::reg(last_read_reg);
            b.label = fmt::format("LC{}{}", t, i);
            Instruction label;
            label.kind = OpKind::Label;
            label.label = b.label;
            thread.code.push_back(std::move(b));
            thread.code.push_back(std::move(label));
          } else {
            Instruction mov;
            mov.kind = OpKind::Mov;
            mov.reg = fmt::format("r{}", next_reg++);
            Expr zero = Expr::binary(BinaryOp::Xor, Expr::reg(last_read_reg), Expr::reg(last_read_reg));
            if (d.dependency == Dependency::Address) {
              mov.value = std::move(zero);
              ins.addr.offset = Expr::reg(mov.reg);
            } else {
              mov.value = Expr::binary(BinaryOp::Add, std::move(zero), Expr::constant(a.write_value));
              ins.value = Expr::reg(mov.reg);
            }
            thread.code.push_back(std::move(mov));
          }
        }
      }
      thread.code.push_back(std::move(ins));
      if (!guard_label.empty()) {
        Instruction label;
        label.kind = OpKind::Label;
        label.label = std::exchange(guard_label, std::string());
        thread.code.push_back(std::move(label));
      }
      if (a.kind != 'W')
        terms.push_back(Prop::equals(ObservedRef{static_cast<int>(t), own_reg, {}}, Expr::constant(a.read_value)));
      last_read_reg = a.kind == 'W' ? "" : own_reg;
    }
    test.threads.push_back(std::move(thread));
  }
  for (int l = 0; l < s.locations; ++l)
    if (const auto& f = s.final_value[static_cast<std::size_t>(l)])
      terms.push_back(Prop::equals(ObservedRef{std::nullopt, location_name(l), {}}, Expr::constant(*f)));
  Prop prop;
  prop.kind = Prop::Kind::True;
  if (!terms.empty()) {
    prop = terms.front();
    for (std::size_t i = 1; i < terms.size(); ++i) prop = Prop::conjunction(std::move(prop), std::move(terms[i]));
  }
  test.condition.quantifier = Quantifier::Exists;
  test.condition.prop = std::move(prop);

  // The scope tree: one agent `(agent (wg ...) ...)`, or `(system (agent ...) ...)`.
  const PlacementSpec& p = *v.placement;
  ScopeTree tree;
  const int agents = *std::max_element(p.agent.begin(), p.agent.end()) + 1;
  std::vector<ScopeNode::Child> agent_nodes;
  for (int ag = 0; ag < agents; ++ag) {
    ScopeNode agent{Scope::Agent, {}, {}};
    std::map<int, ScopeNode> wgs;
    for (std::size_t t = 0; t < p.wg.size(); ++t)
      if (p.agent[t] == ag) {
        auto [it, fresh] = wgs.try_emplace(p.wg[t], ScopeNode{Scope::WorkGroup, {}, {}});
        it->second.children.push_back({true, static_cast<int>(t)});
      }
    for (auto& [w, node] : wgs) agent.children.push_back({false, tree.add_node(std::move(node))});
    agent_nodes.push_back({false, tree.add_node(std::move(agent))});
  }
  if (agents == 1) {
    tree.add_root(agent_nodes.front().index);
  } else {
    tree.add_root(tree.add_node(ScopeNode{Scope::System, agent_nodes, {}}));
  }
  test.scopes = std::move(tree);
  if (std::any_of(v.segments.begin(), v.segments.end(), [](Segment g) { return g == Segment::Group; }))
    for (int l = 0; l < s.locations; ++l)
      test.regions.push_back({location_name(l), v.segments[static_cast<std::size_t>(l)], {}});

  DiagnosticList diags;
  if (!check) {
    // check_test's one effect on a good test, which the model and the simulator need.
    if (!test.scopes.resolve(static_cast<int>(test.threads.size()), diags))
      throw std::logic_error("hsalit gen built a test whose scope tree does not resolve:\n" + diags.render(test.name));
    return test;
  }
  if (!check_test(test, diags))
    throw std::logic_error("hsalit gen built a test that fails its checks:\n" + diags.render(test.name) + "\n" +
                           print_litmus(test));
  return test;
}

// Odometer over per-position candidate lists; calls visit with the current choice.
template <typename T, typename F>
void for_each_choice(const std::vector<std::vector<T>>& candidates, F&& visit) {
  std::vector<std::size_t> idx(candidates.size(), 0);
  for (const auto& c : candidates)
    if (c.empty()) return;
  std::vector<T> current;
  for (const auto& c : candidates) current.push_back(c.front());
  for (;;) {
    visit(current);
    std::size_t k = candidates.size();
    while (k > 0) {
      --k;
      if (++idx[k] < candidates[k].size()) {
        current[k] = candidates[k][idx[k]];
        break;
      }
      idx[k] = 0;
      current[k] = candidates[k][0];
      if (k == 0) return;
    }
    if (candidates.empty()) return;
  }
}

std::vector<Variation> access_choices(char kind, const GenerateOptions& o) {
  std::vector<Variation> out;
  if (kind != 'U' && o.orders.ordinary) out.push_back({Variation::Kind::Ordinary});
  const std::vector<MemoryOrder> fit =
      kind == 'R'   ? std::vector<MemoryOrder>{MemoryOrder::Relaxed, MemoryOrder::Acquire}
      : kind == 'W' ? std::vector<MemoryOrder>{MemoryOrder::Relaxed, MemoryOrder::Release}
                    : std::vector<MemoryOrder>{MemoryOrder::Relaxed, MemoryOrder::Acquire, MemoryOrder::Release,
                                               MemoryOrder::AcquireRelease};
  for (MemoryOrder order : fit)
    if (std::find(o.orders.atomic.begin(), o.orders.atomic.end(), order) != o.orders.atomic.end())
      for (Scope scope : o.scopes) out.push_back({Variation::Kind::Atomic, order, scope});
  return out;
}

std::vector<Variation> gap_choices(bool po, const Access& from, const Access& to, const GenerateOptions& o) {
  std::vector<Variation> out{Variation{Variation::Kind::Nothing}};
  if (!po) return out;
  for (MemoryOrder order : o.fences)
    for (Scope scope : o.scopes) out.push_back({Variation::Kind::Fence, order, scope});
  if (from.kind != 'W')
    for (Dependency d : o.dependencies)
      if (d != Dependency::Data || to.kind == 'W') out.push_back({Variation::Kind::Dependency, {}, {}, d});
  return out;
}

// Generates every distinct test of every space; `build` says whether to build the tests.
std::size_t run_generation(const GenerateOptions& options, bool build,
                           const std::function<void(GeneratedTest&&)>& visit) {
  std::unordered_set<std::string> seen;
  std::size_t count = 0;
  for_each_variation_space(options, [&](const VariationSpace& space) {
    const auto& slots = space.slots();
    std::vector<std::size_t> choice(slots.size(), 0);
    for (;;) {
      std::string key = space.canonical_key(choice);
      if (seen.insert(key).second) {
        if (++count > options.max_tests)
          throw std::length_error(
              fmt::format("more than {} tests: narrow the bounds or the filters (--orders, --scopes, --segments, "
                          "--placements), or raise the limit",
                          options.max_tests));
        if (build) visit(GeneratedTest{space.test(choice), space.cycle(), std::move(key)});
      }
      // Odometer, the last slot fastest.
      std::size_t k = slots.size();
      while (k > 0 && ++choice[k - 1] == slots[k - 1].choices.size()) choice[--k] = 0;
      if (k == 0) return;
    }
  });
  return count;
}

std::vector<std::string> split_words(std::string_view text, std::string_view separators) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : text) {
    if (separators.find(c) != std::string_view::npos) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------

std::string_view to_string(EdgeKind edge) { return info(edge).name; }

std::optional<EdgeKind> edge_from_string(std::string_view text) {
  for (std::size_t i = 0; i < kEdges.size(); ++i)
    if (kEdges[i].name == text) return static_cast<EdgeKind>(i);
  return std::nullopt;
}

std::string print_cycle(std::span<const EdgeKind> cycle) {
  std::string out;
  for (EdgeKind e : cycle) out += (out.empty() ? "" : " ") + std::string(to_string(e));
  return out;
}

namespace {

// The rules of cycle_error past the edges' agreement, as a fixed message (none: valid); the
// enumeration asks it of every closing edge sequence, so it builds no string.
const char* cycle_shape_error(std::span<const EdgeKind> cycle) {
  const std::size_t n = cycle.size();
  for (std::size_t i = 0; i < n; ++i)
    if (cycle[i] == EdgeKind::Rmw && cycle[(i + 1) % n] == EdgeKind::Rmw)
      return "two Rmw edges cannot follow each other";
  const int external = count_if_edges(cycle, is_external);
  if (external == 1) return "a cycle with one external edge would return to the thread it left";
  if (count_if_edges(cycle, is_com) == 0) return "a cycle needs a communication edge (Rf, Fr or Ws)";
  if (count_if_edges(cycle, is_po) + static_cast<int>(std::count(cycle.begin(), cycle.end(), EdgeKind::Rmw)) == 0)
    return "a cycle needs a program-order or Rmw edge";
  const int pod = count_if_edges(cycle, is_pod);
  if (pod == 1) return "a cycle with exactly one Pod edge changes location once and never comes back";
  if (pod >= 2) {
    // Each run of one location between Pod edges must hold a communication edge.
    std::size_t start = 0;
    while (!is_pod(cycle[start])) ++start;
    bool communicated = false;
    for (std::size_t k = 1; k <= n; ++k) {
      EdgeKind e = cycle[(start + k) % n];
      if (is_pod(e)) {
        if (!communicated) return "a location between two Pod edges is never communicated";
        communicated = false;
      } else if (is_com(e)) {
        communicated = true;
      }
    }
  }
  return nullptr;
}

// Whether canonical_rotation(cycle) == cycle, without building the rotations: the cycle
// starts a thread (thread_rotations) and no rotation that starts one is smaller. A rotation
// equal to the cycle starts a thread exactly when the cycle does, the edge before it being
// the cycle's last.
bool is_canonical_rotation(std::span<const EdgeKind> cycle) {
  const std::size_t n = cycle.size();
  const bool any_external = count_if_edges(cycle, is_external) > 0;
  if (!starts_thread(cycle, 0, any_external)) return false;
  for (std::size_t s = 1; s < n; ++s) {
    if (!starts_thread(cycle, s, any_external)) continue;
    for (std::size_t i = 0; i < n; ++i) {
      const EdgeKind a = cycle[(s + i) % n], b = cycle[i];
      if (a == b) continue;
      if (a < b) return false;
      break;
    }
  }
  return true;
}

// Whether no cycle that starts with `prefix` can be its own canonical rotation: a rotation
// that starts a thread inside the prefix (after one of its external edges) is already smaller
// than the prefix where the two overlap, and stays smaller whatever edges follow. The
// enumeration then skips every extension of the prefix; at threads=4, accesses=3 this keeps
// 79 of the 350 million edge sequences it would visit, and the same cycles.
bool rotation_already_smaller(std::span<const EdgeKind> prefix) {
  const std::size_t m = prefix.size();
  for (std::size_t s = 1; s < m; ++s) {
    if (!is_external(prefix[s - 1])) continue;
    for (std::size_t i = 0; s + i < m; ++i) {
      if (prefix[s + i] == prefix[i]) continue;
      if (prefix[s + i] < prefix[i]) return true;
      break;
    }
  }
  return false;
}

}  // namespace

std::optional<std::string> cycle_error(std::span<const EdgeKind> cycle) {
  const std::size_t n = cycle.size();
  if (n < 2) return "a cycle has at least two edges";
  for (std::size_t i = 0; i < n; ++i) {
    const EdgeInfo& a = info(cycle[i]);
    const EdgeInfo& b = info(cycle[(i + 1) % n]);
    if (a.to != b.from)
      return fmt::format("{} ends at a {} but {} starts at a {}", a.name, a.to == 'R' ? "read" : "write", b.name,
                         b.from == 'R' ? "read" : "write");
  }
  if (const char* why = cycle_shape_error(cycle)) return why;
  return std::nullopt;
}

Cycle canonical_rotation(std::span<const EdgeKind> cycle) {
  std::vector<Cycle> rotations = thread_rotations(cycle);
  return *std::min_element(rotations.begin(), rotations.end());
}

Cycle parse_cycle(std::string_view text) {
  Cycle cycle;
  for (const std::string& word : split_words(text, " \t,.")) {
    auto e = edge_from_string(word);
    if (!e)
      throw std::invalid_argument(fmt::format(
          "unknown edge '{}' (PodWW PodWR PodRW PodRR PosWW PosWR PosRW PosRR Rmw Rfi Fri Wsi Rfe Fre Wse)", word));
    cycle.push_back(*e);
  }
  if (auto why = cycle_error(cycle)) throw std::invalid_argument(fmt::format("cycle '{}': {}", text, *why));
  return cycle;
}

std::span<const Family> classic_families() { return kFamilies; }

std::optional<Cycle> family_cycle(std::string_view name) {
  for (const Family& f : kFamilies)
    if (f.name == name) return parse_cycle(f.cycle);
  return std::nullopt;
}

std::optional<std::string> family_of(std::span<const EdgeKind> cycle) {
  if (cycle.empty()) return std::nullopt;
  // The families' cycles in canonical rotation, parsed once: a bound asks for every cycle.
  static const std::vector<Cycle> families = [] {
    std::vector<Cycle> out;
    for (const Family& f : kFamilies) out.push_back(canonical_rotation(parse_cycle(f.cycle)));
    return out;
  }();
  const Cycle mine = canonical_rotation(cycle);
  for (std::size_t i = 0; i < families.size(); ++i)
    if (families[i] == mine) return std::string(kFamilies[i].name);
  return std::nullopt;
}

std::string_view to_string(ThreadRelation relation) {
  switch (relation) {
    case ThreadRelation::SameWorkGroup: return "same-wg";
    case ThreadRelation::DifferentWorkGroup: return "diff-wg";
    case ThreadRelation::DifferentAgent: return "diff-agent";
  }
  return "?";
}

std::optional<ThreadRelation> thread_relation_from_string(std::string_view text) {
  for (ThreadRelation r :
       {ThreadRelation::SameWorkGroup, ThreadRelation::DifferentWorkGroup, ThreadRelation::DifferentAgent})
    if (to_string(r) == text) return r;
  return std::nullopt;
}

std::string_view to_string(Dependency dependency) {
  switch (dependency) {
    case Dependency::Address: return "addr";
    case Dependency::Data: return "data";
    case Dependency::Control: return "ctrl";
    case Dependency::Guard: return "guard";
  }
  return "?";
}

std::optional<Dependency> dependency_from_string(std::string_view text) {
  for (Dependency d : {Dependency::Address, Dependency::Data, Dependency::Control, Dependency::Guard})
    if (to_string(d) == text) return d;
  return std::nullopt;
}

void validate(const GenerateOptions& o) {
  if (o.cycles.empty()) {
    if (o.max_threads < 1 || o.max_threads > 6)
      throw std::invalid_argument(fmt::format("threads must be 1 to 6, not {}", o.max_threads));
    if (o.max_accesses < 1 || o.max_accesses > 6)
      throw std::invalid_argument(fmt::format("accesses must be 1 to 6, not {}", o.max_accesses));
  }
  for (const Cycle& c : o.cycles) {
    if (auto why = cycle_error(c)) throw std::invalid_argument(fmt::format("cycle '{}': {}", print_cycle(c), *why));
    if (count_if_edges(c, is_external) > 6)
      throw std::invalid_argument(fmt::format("cycle '{}': more than 6 threads", print_cycle(c)));
  }
  if (!o.orders.ordinary && o.orders.atomic.empty()) throw std::invalid_argument("no access order to generate");
  if (o.scopes.empty() && !o.orders.atomic.empty()) throw std::invalid_argument("no scope to generate");
  for (Scope s : o.scopes)
    if (s == Scope::WorkItem) throw std::invalid_argument("an atomic's scope is wave, wg, agent or system, not wi");
  for (MemoryOrder f : o.fences)
    if (f == MemoryOrder::Relaxed)
      throw std::invalid_argument("a fence is scacq, screl or scar (HSA has no rlx fence)");
  if (o.segments.empty()) throw std::invalid_argument("no segment to generate");
  if (o.placements.empty()) throw std::invalid_argument("no placement to generate");
  if (o.max_tests == 0) throw std::invalid_argument("the test limit must be positive");
  if (o.shard.count == 0 || o.shard.index >= o.shard.count)
    throw std::invalid_argument(
        fmt::format("shard {}/{}: the part must be below the number of parts", o.shard.index, o.shard.count));
}

namespace {

// Calls `emit` with each cycle as it is found, so that a caller that stops early (a test
// limit) does not wait for, or hold, every cycle of a large bound: those of threads=4,
// accesses=3 alone took 35 s and 560 MB to list.
void every_cycle(const GenerateOptions& options, const std::function<void(const Cycle&)>& emit) {
  if (!options.cycles.empty()) {
    std::set<Cycle> seen;
    for (const Cycle& c : options.cycles) {
      Cycle r = canonical_rotation(c);
      if (seen.insert(r).second) emit(r);
    }
    return;
  }
  const int max_threads = options.max_threads, max_accesses = options.max_accesses;
  auto allowed = [&](EdgeKind e) {
    return options.edges.empty() || std::find(options.edges.begin(), options.edges.end(), e) != options.edges.end();
  };
  Cycle seq;
  // Depth-first over edge sequences in EdgeKind order; a sequence is kept when it closes
  // into a valid cycle and is its own canonical rotation. Multi-thread cycles end with an
  // external edge (they start at a thread's first event). Internal communication edges are
  // only generated in single-thread cycles (CoWW, CoRW1): elsewhere they mean what the Pos
  // edge of the same kinds means, and would only give duplicates.
  struct State {
    int external = 0, pod = 0, internal_com = 0;
    int thread_events = 1, thread_rmws = 0;
  };
  std::function<void(State)> rec = [&](State st) {
    const char at = info(seq.back()).to;
    const char start = info(seq.front()).from;
    const bool closes = at == start;
    if (closes) {
      const bool multi = is_external(seq.back()) && st.external >= 2;
      const bool single = st.external == 0 && max_threads >= 1;
      // The edges agree by construction (each follows the one before, the last closes), so
      // only the shape rules of cycle_error are left to ask.
      if ((multi || single) && !(st.internal_com > 0 && (st.pod > 0 || st.external > 0)) &&
          is_canonical_rotation(seq) && !cycle_shape_error(seq))
        emit(seq);
    }
    if (st.external > 0 && is_external(seq.back()) && st.external == max_threads) return;
    for (int k = 0; k < kEdgeKindCount; ++k) {
      const EdgeKind e = static_cast<EdgeKind>(k);
      if (info(e).from != at || !allowed(e)) continue;
      State next = st;
      if (is_external(e)) {
        ++next.external;
        next.thread_events = 1;
        next.thread_rmws = 0;
        if (next.external > max_threads) continue;
      } else {
        ++next.thread_events;
        if (e == EdgeKind::Rmw) ++next.thread_rmws;
        // A single-thread cycle's last edge (an internal communication edge, see
        // thread_rotations) leads back to its first event, counted already.
        const bool may_close = next.external == 0 && info(e).cls == EdgeClass::ComInternal && info(e).to == start;
        if (next.thread_events - next.thread_rmws > max_accesses + (may_close ? 1 : 0)) continue;
        if (is_pod(e)) ++next.pod;
        if (info(e).cls == EdgeClass::ComInternal) ++next.internal_com;
      }
      if (next.internal_com > 0 && (next.pod > 0 || next.external > 0)) continue;
      seq.push_back(e);
      if (!rotation_already_smaller(seq)) rec(next);
      seq.pop_back();
    }
  };
  for (int k = 0; k < kEdgeKindCount; ++k) {
    const EdgeKind e = static_cast<EdgeKind>(k);
    if (!allowed(e)) continue;
    State st;
    if (is_external(e)) {
      st.external = 1;
    } else {
      st.thread_events = 2;
      st.thread_rmws = e == EdgeKind::Rmw ? 1 : 0;
      if (st.thread_events - st.thread_rmws > max_accesses) continue;
      st.pod = is_pod(e) ? 1 : 0;
      st.internal_com = info(e).cls == EdgeClass::ComInternal ? 1 : 0;
    }
    seq.push_back(e);
    rec(st);
    seq.pop_back();
  }
}

// every_cycle's cycles of the options' shard, in enumeration order.
void for_each_cycle(const GenerateOptions& options, const std::function<void(const Cycle&)>& visit) {
  std::size_t position = 0;
  every_cycle(options, [&](const Cycle& cycle) {
    if (options.shard.count <= 1 || position % options.shard.count == options.shard.index) visit(cycle);
    ++position;
  });
}

}  // namespace

std::vector<Cycle> enumerate_cycles(const GenerateOptions& options) {
  std::vector<Cycle> out;
  for_each_cycle(options, [&](const Cycle& cycle) { out.push_back(cycle); });
  return out;
}

struct VariationSpace::Data {
  // What the spaces of a cycle share: its skeleton and slots.
  struct Cycle {
    Skeleton skeleton;
    std::vector<Slot> slots;
    std::size_t accesses = 0;  // slots [0, accesses) are accesses, the rest gaps
    bool guards = false;       // the bound has guards (canonical reads it)
    // The skeleton's symmetry, computed when first asked (a bound asks it of cycles with a
    // space it does not skip).
    mutable std::once_flag symmetry_once;
    mutable SkeletonSymmetry symmetry;
    const SkeletonSymmetry& symmetry_of() const {
      std::call_once(symmetry_once, [&] { symmetry = skeleton_symmetry(skeleton, guards); });
      return symmetry;
    }
  };
  std::shared_ptr<const Cycle> cycle;
  PlacementSpec placement;
  std::vector<Segment> segments;                 // per location
  std::shared_ptr<const std::string> shape_key;  // shared by the spaces of a cycle with these segments
  std::uint64_t size = 0;                        // VariationSpace::size
  // Computed when first asked (the generator's other users never ask).
  mutable std::once_flag arrangement_once;
  mutable std::string arrangement_key;

  Variant variant(std::span<const std::size_t> choice) const {
    const std::vector<Slot>& slots = cycle->slots;
    if (choice.size() != slots.size())
      throw std::invalid_argument(
          fmt::format("a choice for {} slots, given for {} slots", slots.size(), choice.size()));
    Variant v;
    v.segments = segments;
    v.placement = &placement;
    std::size_t ai = 0, di = cycle->accesses;
    for (const auto& code : cycle->skeleton.threads) {
      auto& accesses_of_thread = v.accesses.emplace_back();
      auto& gaps_of_thread = v.gaps.emplace_back();
      for (std::size_t i = 0; i < code.size(); ++i) {
        accesses_of_thread.push_back(slots[ai].choices.at(choice[ai]));
        ++ai;
        if (i > 0) {
          gaps_of_thread.push_back(slots[di].choices.at(choice[di]));
          ++di;
        }
      }
    }
    return v;
  }
};

VariationSpace::VariationSpace(std::shared_ptr<const Data> data) : data_(std::move(data)) {}
const std::string& VariationSpace::cycle() const { return data_->cycle->skeleton.cycle_text; }
const std::vector<Slot>& VariationSpace::slots() const { return data_->cycle->slots; }
const std::vector<int>& VariationSpace::workgroup_of_thread() const { return data_->placement.wg; }
const std::vector<int>& VariationSpace::agent_of_thread() const { return data_->placement.agent; }
const std::string& VariationSpace::shape_key() const { return *data_->shape_key; }

const std::vector<Segment>& VariationSpace::segments() const { return data_->segments; }

int VariationSpace::location_of(std::size_t slot) const {
  const Slot& s = data_->cycle->slots.at(slot);
  if (s.gap) throw std::out_of_range("location_of: a gap has no location");
  return data_->cycle->skeleton.threads.at(static_cast<std::size_t>(s.thread))
      .at(static_cast<std::size_t>(s.index))
      .loc;
}

std::string VariationSpace::thread_key(int thread) const {
  const Skeleton& s = data_->cycle->skeleton;
  const auto t = static_cast<std::size_t>(thread);
  const std::vector<Access>& code = s.threads.at(t);
  std::string key;
  std::vector<int> renamed;  // the thread's locations in the order met
  for (std::size_t i = 0; i < code.size(); ++i) {
    const Access& a = code[i];
    if (i > 0) key += s.po_gap[t][i - 1] ? 'p' : '-';
    key += a.kind;
    auto it = std::find(renamed.begin(), renamed.end(), a.loc);
    if (it == renamed.end()) {
      renamed.push_back(a.loc);
      it = renamed.end() - 1;
      key += to_string(data_->segments[static_cast<std::size_t>(a.loc)]);
    }
    key += static_cast<char>('0' + (it - renamed.begin()));
    if (a.kind != 'R') {
      key += 'w';
      char digits[24];
      const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, a.write_value);
      key.append(digits, end);
    }
    key += ';';
  }
  return key;
}

std::uint64_t VariationSpace::size() const { return data_->size; }

GeneratedTest VariationSpace::build(std::span<const std::size_t> choice) const {
  const Variant v = data_->variant(choice);
  return GeneratedTest{build_test(data_->cycle->skeleton, v), data_->cycle->skeleton.cycle_text,
                       canonical(data_->cycle->skeleton, v)};
}

Test VariationSpace::test(std::span<const std::size_t> choice) const {
  return build_test(data_->cycle->skeleton, data_->variant(choice), false);
}

SpaceTests::SpaceTests(VariationSpace space, std::function<Test(Test)> prepare, bool named)
    : space_(std::move(space)), prepare_(std::move(prepare)), named_(named) {}

const Test& SpaceTests::test(std::span<const std::size_t> choice) {
  const VariationSpace::Data& d = *space_.data_;
  if (choice.size() != d.cycle->slots.size())
    throw std::invalid_argument(
        fmt::format("a choice for {} slots, given for {} slots", d.cycle->slots.size(), choice.size()));
  // The layout's key: what each gap holds, a fence's order and scope aside.
  key_.clear();
  for (std::size_t k = d.cycle->accesses; k < d.cycle->slots.size(); ++k) {
    const Variation& g = d.cycle->slots[k].choices.at(choice[k]);
    key_ += g.kind == Variation::Kind::Dependency ? static_cast<char>('a' + static_cast<int>(g.dependency))
                                                  : static_cast<char>('0' + static_cast<int>(g.kind));
  }
  auto it = layouts_.find(key_);
  if (it == layouts_.end()) {
    Test built = build_test(d.cycle->skeleton, d.variant(choice), false, named_);
    return layouts_.emplace(key_, prepare_ ? prepare_(std::move(built)) : std::move(built)).first->second;
  }
  // What build_test sets from a choice: each access's atomicity, order and scope
  // (access_instruction), each fence's order and scope, and the name. The accesses are the
  // loads, stores and rmws of a thread in order; a fence is the gap before the next access.
  Test& test = it->second;
  std::size_t access = 0, gaps_of_thread = d.cycle->accesses;
  for (std::size_t t = 0; t < d.cycle->skeleton.threads.size(); ++t) {
    std::size_t seen = 0;  // accesses of thread t passed
    for (Instruction& ins : test.threads[t].code) {
      if (ins.kind == OpKind::Load || ins.kind == OpKind::Store || ins.kind == OpKind::Rmw) {
        const Variation& a = d.cycle->slots[access].choices.at(choice[access]);
        ins.annots.atomic = a.kind == Variation::Kind::Atomic;
        ins.annots.order = a.order;
        ins.annots.scope = a.scope;
        ++access;
        ++seen;
      } else if (ins.kind == OpKind::Fence) {
        const std::size_t gap = gaps_of_thread + seen - 1;  // the gap before access `seen`
        if (seen == 0 || gap >= d.cycle->slots.size() ||
            d.cycle->slots[gap].choices.at(choice[gap]).kind != Variation::Kind::Fence)
          throw std::logic_error("SpaceTests: a layout's fence is not where its key puts one");
        const Variation& f = d.cycle->slots[gap].choices[choice[gap]];
        ins.annots.order = f.order;
        ins.annots.scope = f.scope;
      }
    }
    gaps_of_thread += d.cycle->skeleton.threads[t].empty() ? 0 : d.cycle->skeleton.threads[t].size() - 1;
  }
  if (named_) test.name = test_name(d.cycle->skeleton, d.variant(choice));
  return test;
}

std::string VariationSpace::canonical_key(std::span<const std::size_t> choice) const {
  return canonical(data_->cycle->skeleton, data_->variant(choice));
}

const std::string& VariationSpace::skeleton_key() const { return data_->cycle->symmetry_of().key; }

const std::string& VariationSpace::arrangement_key() const {
  std::call_once(data_->arrangement_once, [&] {
    data_->arrangement_key = arrangement_of(data_->cycle->symmetry_of(), data_->placement, data_->segments);
  });
  return data_->arrangement_key;
}

std::string VariationSpace::program_key() const { return skeleton_key() + "@" + arrangement_key(); }

std::string VariationSpace::program_key(std::span<const std::size_t> choice) const {
  return canonical(data_->cycle->skeleton, data_->variant(choice), KeyOf::Program);
}

std::string to_string(const Variation& v) {
  switch (v.kind) {
    case Variation::Kind::Ordinary: return "na";
    case Variation::Kind::Atomic: return fmt::format("{}-{}", to_string(v.order), to_string(v.scope));
    case Variation::Kind::Nothing: return "";
    case Variation::Kind::Fence: return fmt::format("fence-{}-{}", to_string(v.order), to_string(v.scope));
    case Variation::Kind::Dependency: return std::string(to_string(v.dependency));
  }
  return "?";
}

std::size_t for_each_variation_space(const GenerateOptions& options,
                                     const std::function<void(const VariationSpace&)>& visit,
                                     const SkippedPlacements& skipped) {
  validate(options);
  std::size_t count = 0;
  const bool guards = std::find(options.dependencies.begin(), options.dependencies.end(), Dependency::Guard) !=
                      options.dependencies.end();
  // The placements the bound's relations allow, per thread count, and their segment choices
  // (group memory only where every thread shares a work-group, HSA SysArch 3.3.3: a group
  // segment is private to a work-group).
  struct AllowedPlacement {
    PlacementSpec placement;
    bool skipped = false;
    std::vector<std::vector<Segment>> segment_choices;  // per location, filled per cycle
  };
  std::map<int, std::vector<AllowedPlacement>> placements_of;
  auto allowed = [&](int n) -> std::vector<AllowedPlacement>& {
    auto [it, fresh] = placements_of.try_emplace(n);
    if (fresh)
      for (PlacementSpec& placement : all_placements(n)) {
        bool fits = true;
        for (std::size_t a = 0; a < placement.wg.size(); ++a)
          for (std::size_t b = a + 1; b < placement.wg.size(); ++b)
            fits = fits && std::find(options.placements.begin(), options.placements.end(), relation(placement, a, b)) !=
                               options.placements.end();
        if (!fits) continue;
        const bool skip = skipped.skips && skipped.skips(placement.agent);
        it->second.push_back({std::move(placement), skip, {}});
      }
    return it->second;
  };
  for_each_cycle(options, [&](const Cycle& cycle) {
    auto base = std::make_shared<VariationSpace::Data::Cycle>();
    base->skeleton = build_skeleton(cycle);
    base->guards = guards;
    const Skeleton& s = base->skeleton;
    const int n = static_cast<int>(s.threads.size());
    std::vector<Slot> gaps;
    for (std::size_t t = 0; t < s.threads.size(); ++t) {
      const auto& code = s.threads[t];
      for (std::size_t i = 0; i < code.size(); ++i) {
        Slot access{false, static_cast<int>(t), static_cast<int>(i), code[i].kind, {}};
        access.choices = access_choices(code[i].kind, options);
        base->slots.push_back(std::move(access));
        if (i > 0) {
          Slot gap{true, static_cast<int>(t), static_cast<int>(i), code[i].kind, {}};
          gap.choices = gap_choices(s.po_gap[t][i - 1], code[i - 1], code[i], options);
          gaps.push_back(std::move(gap));
        }
      }
    }
    base->accesses = base->slots.size();
    for (Slot& g : gaps) base->slots.push_back(std::move(g));
    if (std::any_of(base->slots.begin(), base->slots.end(), [](const Slot& x) { return x.choices.empty(); })) return;
    std::uint64_t size = 1;
    for (const Slot& slot : base->slots) size = support::saturating_multiply(size, slot.choices.size());
    // The shape keys, one per segment assignment, shared by the placements.
    std::map<std::vector<Segment>, std::shared_ptr<const std::string>> shape_keys;
    for (const AllowedPlacement& allowed_placement : allowed(n)) {
      const PlacementSpec& placement = allowed_placement.placement;
      std::vector<Segment> segment_choices;
      for (Segment g : options.segments)
        if (g == Segment::Global || all_in_one_workgroup(placement)) segment_choices.push_back(g);
      if (allowed_placement.skipped) {
        std::size_t spaces = segment_choices.empty() ? 0 : 1;
        for (int l = 0; l < s.locations; ++l) spaces *= segment_choices.size();
        count += spaces;
        if (skipped.count && spaces > 0) skipped.count(spaces, size);
        continue;
      }
      std::vector<std::vector<Segment>> seg_candidates(static_cast<std::size_t>(s.locations), segment_choices);
      for_each_choice(seg_candidates, [&](const std::vector<Segment>& segments) {
        auto data = std::make_shared<VariationSpace::Data>();
        data->cycle = base;
        data->placement = placement;
        data->segments = segments;
        data->size = size;
        std::shared_ptr<const std::string>& shape_key = shape_keys[segments];
        if (!shape_key) {
          std::string key = s.cycle_text + "#";
          for (Segment g : segments) key += std::string(to_string(g)) + ",";
          shape_key = std::make_shared<const std::string>(std::move(key));
        }
        data->shape_key = shape_key;
        ++count;
        visit(VariationSpace(std::move(data)));
      });
    }
  });
  return count;
}

std::size_t generate(const GenerateOptions& options, const std::function<void(GeneratedTest&&)>& visit) {
  return run_generation(options, true, visit);
}

std::vector<GeneratedTest> generate_tests(const GenerateOptions& options) {
  std::vector<GeneratedTest> out;
  generate(options, [&](GeneratedTest&& t) { out.push_back(std::move(t)); });
  return out;
}

std::size_t count_tests(const GenerateOptions& options) { return run_generation(options, false, {}); }

OrderChoice parse_orders(std::span<const std::string> words) {
  OrderChoice c;
  c.ordinary = false;
  c.atomic.clear();
  for (const std::string& w : words) {
    if (w == "na" || w == "ordinary") {
      c.ordinary = true;
      continue;
    }
    const std::map<std::string, MemoryOrder> orders = {{"rlx", MemoryOrder::Relaxed},
                                                       {"scacq", MemoryOrder::Acquire},
                                                       {"screl", MemoryOrder::Release},
                                                       {"scar", MemoryOrder::AcquireRelease}};
    auto it = orders.find(w);
    if (it == orders.end())
      throw std::invalid_argument(fmt::format("unknown order '{}' (na, rlx, scacq, screl, scar)", w));
    if (std::find(c.atomic.begin(), c.atomic.end(), it->second) == c.atomic.end()) c.atomic.push_back(it->second);
  }
  return c;
}

std::vector<Scope> parse_scopes(std::span<const std::string> words) {
  std::vector<Scope> out;
  for (const std::string& w : words) {
    auto s = scope_from_string(w);
    if (!s || *s == Scope::WorkItem)
      throw std::invalid_argument(fmt::format("unknown scope '{}' (wave, wg, agent, system)", w));
    if (std::find(out.begin(), out.end(), *s) == out.end()) out.push_back(*s);
  }
  return out;
}

std::vector<Segment> parse_segments(std::span<const std::string> words) {
  std::vector<Segment> out;
  for (const std::string& w : words) {
    const std::optional<Segment> s = segment_from_string(w);
    if (!s) throw std::invalid_argument(fmt::format("unknown segment '{}' (global, group)", w));
    if (std::find(out.begin(), out.end(), *s) == out.end()) out.push_back(*s);
  }
  return out;
}

std::vector<ThreadRelation> parse_placements(std::span<const std::string> words) {
  std::vector<ThreadRelation> out;
  for (const std::string& w : words) {
    auto r = thread_relation_from_string(w);
    if (!r) throw std::invalid_argument(fmt::format("unknown placement '{}' (same-wg, diff-wg, diff-agent)", w));
    if (std::find(out.begin(), out.end(), *r) == out.end()) out.push_back(*r);
  }
  return out;
}

std::vector<MemoryOrder> parse_fence_orders(std::span<const std::string> words) {
  std::vector<MemoryOrder> out;
  for (const std::string& w : words) {
    const std::map<std::string, MemoryOrder> orders = {
        {"scacq", MemoryOrder::Acquire}, {"screl", MemoryOrder::Release}, {"scar", MemoryOrder::AcquireRelease}};
    auto it = orders.find(w);
    if (it == orders.end())
      throw std::invalid_argument(fmt::format("unknown fence order '{}' (scacq, screl, scar)", w));
    if (std::find(out.begin(), out.end(), it->second) == out.end()) out.push_back(it->second);
  }
  return out;
}

std::vector<Dependency> parse_dependencies(std::span<const std::string> words) {
  std::vector<Dependency> out;
  for (const std::string& w : words) {
    auto d = dependency_from_string(w);
    if (!d) throw std::invalid_argument(fmt::format("unknown dependency '{}' (addr, data, ctrl, guard)", w));
    if (std::find(out.begin(), out.end(), *d) == out.end()) out.push_back(*d);
  }
  return out;
}

std::vector<EdgeKind> parse_edges(std::span<const std::string> words) {
  auto group = [](std::string_view name) -> std::vector<EdgeKind> {
    if (name == "Pod") return {EdgeKind::PodWW, EdgeKind::PodWR, EdgeKind::PodRW, EdgeKind::PodRR};
    if (name == "Pos") return {EdgeKind::PosWW, EdgeKind::PosWR, EdgeKind::PosRW, EdgeKind::PosRR};
    if (name == "com")
      return {EdgeKind::Rfi, EdgeKind::Fri, EdgeKind::Wsi, EdgeKind::Rfe, EdgeKind::Fre, EdgeKind::Wse};
    if (auto e = edge_from_string(name)) return {*e};
    throw std::invalid_argument(fmt::format(
        "unknown edge '{}' (PodWW PodWR PodRW PodRR PosWW PosWR PosRW PosRR Rmw Rfi Fri Wsi Rfe Fre Wse, or Pod, Pos, "
        "com)",
        name));
  };
  std::vector<EdgeKind> out;
  bool first = true;
  for (const std::string& w : words) {
    if (!w.empty() && w.front() == '-') {
      if (first)
        for (int k = 0; k < kEdgeKindCount; ++k) out.push_back(static_cast<EdgeKind>(k));
      for (EdgeKind e : group(std::string_view(w).substr(1))) std::erase(out, e);
    } else {
      for (EdgeKind e : group(w))
        if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(e);
    }
    first = false;
  }
  if (out.empty()) throw std::invalid_argument("no edge left to build cycles from");
  return out;
}

GenerateOptions parse_generate_spec(std::string_view spec, GenerateOptions o) {
  auto number = [](const std::string& key, const std::string& value) {
    try {
      std::size_t used = 0;
      int v = std::stoi(value, &used);
      if (used != value.size()) throw std::invalid_argument("");
      return v;
    } catch (const std::exception&) {
      throw std::invalid_argument(fmt::format("--generate: {}={}: expected a number", key, value));
    }
  };
  // A limit on a count of tests: any size_t, which a 32-bit int (as `number` reads) cannot hold.
  auto count_limit = [](const std::string& key, const std::string& value) {
    std::size_t v = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (error == std::errc::result_out_of_range)
      throw std::invalid_argument(fmt::format("--generate: {}={}: out of range (at most {})", key, value,
                                              std::numeric_limits<std::size_t>::max()));
    if (error != std::errc{} || end != value.data() + value.size())
      throw std::invalid_argument(fmt::format("--generate: {}={}: expected a non-negative number", key, value));
    return v;
  };
  for (const std::string& item : split_words(spec, ",")) {
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw std::invalid_argument(fmt::format("--generate: '{}' is not KEY=VALUE", item));
    const std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    const std::vector<std::string> list = split_words(value, "+/");
    try {
      if (key == "threads")
        o.max_threads = number(key, value);
      else if (key == "accesses")
        o.max_accesses = number(key, value);
      else if (key == "orders")
        o.orders = parse_orders(list);
      else if (key == "scopes")
        o.scopes = parse_scopes(list);
      else if (key == "segments")
        o.segments = parse_segments(list);
      else if (key == "placements")
        o.placements = parse_placements(list);
      else if (key == "fences")
        o.fences = value == "none" ? std::vector<MemoryOrder>{} : parse_fence_orders(list);
      else if (key == "deps")
        o.dependencies = value == "none" ? std::vector<Dependency>{} : parse_dependencies(list);
      else if (key == "family") {
        for (const std::string& name : split_words(value, "/")) {
          auto c = family_cycle(name);
          if (!c) {
            std::vector<std::string_view> names;
            for (const Family& f : kFamilies) names.push_back(f.name);
            throw std::invalid_argument(fmt::format("unknown family '{}' ({})", name, fmt::join(names, ", ")));
          }
          o.cycles.push_back(*c);
        }
      } else if (key == "cycle")
        o.cycles.push_back(parse_cycle(value));
      else if (key == "edges")
        o.edges = parse_edges(split_words(value, "+/ "));
      else if (key == "max")
        o.max_tests = count_limit(key, value);
      else if (key == "shard") {
        const std::vector<std::string> parts = split_words(value, "/");
        if (parts.size() != 2 || value.find('/') == std::string::npos)
          throw std::invalid_argument(fmt::format("--generate: shard={}: expected I/N", value));
        const int index = number(key, parts[0]), count = number(key, parts[1]);
        if (count < 1 || index < 0 || index >= count)
          throw std::invalid_argument(
              fmt::format("--generate: shard={}: expected I/N with N at least 1 and I from 0 to N-1", value));
        o.shard = {static_cast<std::size_t>(index), static_cast<std::size_t>(count)};
      } else
        throw std::invalid_argument(fmt::format(
            "unknown key '{}' (threads, accesses, orders, scopes, segments, placements, fences, deps, family, cycle, "
            "edges, max, shard)",
            key));
    } catch (const std::invalid_argument& e) {
      std::string what = e.what();
      if (what.rfind("--generate", 0) == 0) throw;
      throw std::invalid_argument("--generate: " + what);
    }
  }
  return o;
}

}  // namespace hsalit::litmus
