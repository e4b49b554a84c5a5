// A concrete candidate execution and the relations the model derives from it. The
// enumeration engine builds these directly; the Z3 engine builds one from a model to show
// a witness. `evaluate_execution` is the model's definition on concrete executions.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "hsalit/model/program.hpp"
#include "hsalit/model/relations.hpp"

namespace hsalit::model {

// A binary relation over the nodes of one execution, as a bit matrix.
class Relation {
 public:
  explicit Relation(int n = 0)
      : n_(n), words_((n + 63) / 64), bits_(static_cast<std::size_t>(n) * static_cast<std::size_t>(words_), 0) {}
  int size() const { return n_; }
  bool test(int a, int b) const { return (row(a)[b >> 6] >> (b & 63)) & 1u; }
  void set(int a, int b) { row(a)[b >> 6] |= std::uint64_t{1} << (b & 63); }
  void reset(int a, int b) { row(a)[b >> 6] &= ~(std::uint64_t{1} << (b & 63)); }
  // Adds `bits` (bit b: node b) to row a's successors; up to 64 nodes.
  void set_row_bits(int a, std::uint64_t bits) { row(a)[0] |= bits; }
  // Adds row b of `o` (a relation of the same size) to row a: a gets b's successors.
  void set_row(int a, const Relation& o, int b) {
    for (int w = 0; w < words_; ++w) row(a)[w] |= o.row(b)[w];
  }
  Relation& operator|=(const Relation& o);
  Relation& operator&=(const Relation& o);
  Relation& operator-=(const Relation& o);  // the pairs of `o` removed
  Relation then(const Relation& o) const;   // composition: this ; o
  Relation inverse() const;
  // The transitive closure of the pairs within `mask` (bit i: node i), in place; pairs with
  // a node outside it are left as they are. Up to 64 nodes. True when a pair was added.
  bool close_within(std::uint64_t mask);
  // Transitive closure in place (Warshall on bit rows).
  void close();
  bool irreflexive() const;
  bool any() const;
  // Pairs a < b in row-major order, for output.
  std::vector<std::pair<int, int>> pairs() const;

 private:
  std::uint64_t* row(int a) { return bits_.data() + static_cast<std::size_t>(a) * static_cast<std::size_t>(words_); }
  const std::uint64_t* row(int a) const {
    return bits_.data() + static_cast<std::size_t>(a) * static_cast<std::size_t>(words_);
  }
  int n_;
  int words_;
  // Inline up to 16 nodes (one word per row), the size of the bounds verify-mapping checks:
  // a consistency check builds a dozen relations per candidate execution.
  boost::container::small_vector<std::uint64_t, 16> bits_;
};

// A memory cell: a location, and for group-segment locations the work-group's copy.
struct Cell {
  int location = -1;  // -1: not a valid location (the execution is then undefined)
  std::uint32_t copy = 0;
  friend bool operator==(const Cell&, const Cell&) = default;
  friend auto operator<=>(const Cell&, const Cell&) = default;
};

// Node ids: static events 0..E-1 keep their ids; the initial write of cells[k] is E+k.
struct ConcreteExecution {
  std::vector<char> executed;          // per static event
  std::vector<char> writes;            // per static event: it writes (a failed cas does not)
  std::vector<Cell> cell;              // per static access event
  std::vector<Value> read_value;       // per static event that reads
  std::vector<Value> write_value;      // per static event that writes
  std::vector<std::vector<int>> deps;  // per static event: read events it depends on (ldo)
  std::vector<Cell> cells;             // every cell touched, one initial write each
  std::vector<Value> initial;          // per cell
  std::vector<int> rf;                 // per static event that reads: its source node
  std::vector<std::vector<int>> co;    // per cell: write nodes in coherence order, initial first

  int event_count() const { return static_cast<int>(executed.size()); }
  int node_count() const { return event_count() + static_cast<int>(cells.size()); }
  int cell_index(const Cell& c) const;  // index into cells, -1 if absent
  bool is_init(int node) const { return node >= event_count(); }
  bool node_writes(int node) const {
    return is_init(node) || (executed[static_cast<std::size_t>(node)] && writes[static_cast<std::size_t>(node)]);
  }
  bool node_reads(int node, const Program& p) const;
  Cell node_cell(int node) const;
};

// The derived relations of an execution (HSA SysArch 3.6-3.11).
struct DerivedRelations {
  Relation po, rf, co, fr, sso, hhb, ldo;
};

struct Evaluation {
  bool consistent = false;
  std::string_view inconsistency;  // the first axiom that failed, when not consistent
  // The name of relations.sso in the model's documents: HSA's sso (SysArch 3.9), OpenCL's sw.
  std::string_view synchronisation = "sso";
  std::optional<RaceWitness> race;
  DerivedRelations relations;
};

// Decides whether the execution is a valid candidate execution of the model (the orders
// coh, sc_S and gdo exist as 3.7-3.12 require) and, if so, whether it has an HSA race.
Evaluation evaluate_execution(const Program& p, const ConcreteExecution& x, ModelVariant variant);
// The same with the program's sc domains, `sc_domains(p, variant)`, computed by the caller
// (once per program, not once per candidate).
Evaluation evaluate_execution(const Program& p, const ConcreteExecution& x, ModelVariant variant,
                              std::span<const ScDomain> sc);

// A race the program has without enumerating anything (HSA SysArch 3.12), for a program
// without branches, barriers, compare-and-swaps and a filter whose accesses all name their
// locations: every event then runs in every execution, and two accesses of different threads
// that conflict (`conflict`) on the same cell race. Some sequentially consistent
// interleaving runs them one right after the other, and it is a candidate execution whose
// coh and sc orders are the interleaving itself; hhb only grows along it (po does, and an
// sso edge goes from a write, or a release before it, to a read of it or of a later write),
// so nothing between the two can order them, and they do not order each other (a conflict
// is a plain access, or two atomics whose scopes do not match, so no sso edge joins them).
// Such a program is race-free exactly when it has no conflicting pair (`may_race` false).
// nullopt when the program is not of that form or has no conflicting pair.
std::optional<RaceWitness> certain_race(const Program& p, ModelVariant variant);

// A witness execution ready for display: nodes and labelled edges.
struct ExecutionGraph {
  struct Node {
    int thread = -1;  // -1 for initial writes
    std::string label;
  };
  struct Edge {
    int from = 0, to = 0;
    std::string relation;  // po, rf, co, fr, sso, race
  };
  std::vector<Node> nodes;
  std::vector<Edge> edges;
};

ExecutionGraph make_graph(const Program& p, const ConcreteExecution& x, const Evaluation& e);
std::string to_dot(const ExecutionGraph& g, std::string_view title);

}  // namespace hsalit::model
