// Systematic litmus tests in the spirit of diy7: every relaxation cycle up to a bound, with
// every assignment of HSA orders, scopes, segments and thread placements, named
// deterministically and deduplicated up to symmetry (docs/generation.md).
//
// A cycle is a list of edges between memory events: program-order edges (Pod: different
// locations, Pos: same location), communication edges (Rfe/Fre/Wse between threads,
// Rfi/Fri/Wsi inside a thread) and Rmw (the read and write of one read-modify-write). Each
// generated test has an `exists` condition on the cycle's critical outcome: the final state
// in which every communication edge of the cycle holds, which the model must forbid for the
// program-order edges to be respected.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hsalit/litmus/ast.hpp"

namespace hsalit::litmus {

// The order of this enumeration is the order in which cycles are enumerated and rotated
// (so MP is written with its writer as P0).
enum class EdgeKind : std::uint8_t {
  PodWW,
  PodWR,
  PodRW,
  PodRR,  // program order, different locations
  PosWW,
  PosWR,
  PosRW,
  PosRR,  // program order, same location
  Rmw,    // the read and the write of one rmw instruction
  Rfi,
  Fri,
  Wsi,  // communication inside a thread
  Rfe,
  Fre,
  Wse,  // communication between threads
};
inline constexpr int kEdgeKindCount = 15;

std::string_view to_string(EdgeKind edge);
std::optional<EdgeKind> edge_from_string(std::string_view text);

using Cycle = std::vector<EdgeKind>;

// Parses `Rfe PodRR Fre PodWW` (edges separated by blanks or commas) and checks that it is a
// cycle the generator can build a test from (see `cycle_error`). Throws
// std::invalid_argument with the reason.
Cycle parse_cycle(std::string_view text);
std::string print_cycle(std::span<const EdgeKind> cycle);
// Why a cycle cannot be a test, or nullopt when it can: consecutive edges must agree on the
// event between them (an edge into a read is followed by an edge out of a read), there are
// no or at least two external edges, at least one communication edge, at least one
// program-order or Rmw edge, never exactly one Pod edge (the location would have to change
// once and come back), and, across Pod edges, each location is communicated.
std::optional<std::string> cycle_error(std::span<const EdgeKind> cycle);
// The rotation the generator uses: it starts at the first event of a thread and is the
// smallest such rotation in EdgeKind order.
Cycle canonical_rotation(std::span<const EdgeKind> cycle);

// A classic shape, by its usual name (MP, SB, LB, IRIW, WRC, ISA2, 2+2W, R, S, RWC, WWC,
// CoRR, CoWR, CoRW1, CoRW2, CoWW).
struct Family {
  std::string_view name;
  std::string_view cycle;
  std::string_view description;
};
std::span<const Family> classic_families();
// The family name of a cycle (compared up to rotation), or nullopt.
std::optional<std::string> family_of(std::span<const EdgeKind> cycle);

// How two threads of a test are placed (HSA SysArch 3.3.6 scope instances).
enum class ThreadRelation : std::uint8_t { SameWorkGroup, DifferentWorkGroup, DifferentAgent };
std::string_view to_string(ThreadRelation relation);  // same-wg, diff-wg, diff-agent
std::optional<ThreadRelation> thread_relation_from_string(std::string_view text);

// Guard: the next access runs only if the read before it saw the value of the critical
// outcome (a branch around it; its register starts at -1), as in message passing that reads
// the data only after seeing the flag. Not a dependency of diy7's; HSA SysArch 3.8 orders it
// as a control dependency.
enum class Dependency : std::uint8_t { Address, Data, Control, Guard };
std::string_view to_string(Dependency dependency);  // addr, data, ctrl, guard
std::optional<Dependency> dependency_from_string(std::string_view text);

// What the access orders and fences may be. Loads are ordinary, rlx or scacq; stores
// ordinary, rlx or screl; rmws rlx, scacq, screl or scar (HSA SysArch 3.3.1, as the issue
// fixes it); an order outside the list is not generated.
struct OrderChoice {
  bool ordinary = true;  // `na`: r[] and w[]
  std::vector<MemoryOrder> atomic = {MemoryOrder::Relaxed, MemoryOrder::Acquire, MemoryOrder::Release,
                                     MemoryOrder::AcquireRelease};
};

struct GenerateOptions {
  // Bounds (ignored for the shapes of `cycles`): threads 1..6, memory-access instructions
  // per thread 1..6 (an rmw counts once).
  int max_threads = 2;
  int max_accesses = 2;
  // When not empty, only these cycles (a family, `--cycle`); the bounds do not apply.
  std::vector<Cycle> cycles;
  // The edges the cycles of the bounds may use, like diy7's relaxation list; empty: all. For
  // example every kind but the Pos edges gives the cycles in which each program-order edge
  // changes location (Shasha and Snir's critical cycles, plus Rmw and internal edges).
  std::vector<EdgeKind> edges;

  OrderChoice orders;
  std::vector<Scope> scopes = {Scope::Wavefront, Scope::WorkGroup, Scope::Agent, Scope::System};
  std::vector<Segment> segments = {Segment::Global, Segment::Group};
  // A placement is generated when every pair of threads is in one of these relations.
  std::vector<ThreadRelation> placements = {ThreadRelation::SameWorkGroup, ThreadRelation::DifferentWorkGroup,
                                            ThreadRelation::DifferentAgent};
  // Fences on program-order edges: their orders (scacq, screl, scar), at every scope of
  // `scopes`. Empty: no fences.
  std::vector<MemoryOrder> fences;
  // Dependencies on program-order edges out of a read (data only into a store).
  std::vector<Dependency> dependencies;

  // Generation stops with std::length_error past this many distinct tests.
  std::size_t max_tests = 1'000'000;

  // Part `index` of `count` (`shard=I/N`, I from 0): the cycles whose position in the
  // enumeration is I modulo N, so that N runs on N machines cover the bound between them.
  // A test two cycles share (the same up to symmetry) may be met in two parts.
  struct Shard {
    std::size_t index = 0, count = 1;
  } shard;
};

// Throws std::invalid_argument naming the option at fault.
void validate(const GenerateOptions& options);

struct GeneratedTest {
  Test test;                  // checked, scope tree resolved
  std::string cycle;          // the cycle, `Rfe PodRR Fre PodWW`
  std::string canonical_key;  // equal for two tests iff they are equal up to symmetry
};

// Every cycle within the bounds (or the options' cycles, rotated canonically and without
// repeats), in enumeration order; of those, only the options' shard.
std::vector<Cycle> enumerate_cycles(const GenerateOptions& options);

// One choice for a slot of a generated test: the annotation of an access (ordinary, or
// atomic with an order and a scope) or what sits on a program-order edge between two
// accesses (nothing, a fence with an order and a scope, or a dependency).
struct Variation {
  enum class Kind : std::uint8_t { Ordinary, Atomic, Nothing, Fence, Dependency };
  Kind kind = Kind::Nothing;
  MemoryOrder order = MemoryOrder::Relaxed;  // Atomic, Fence
  Scope scope = Scope::WorkItem;             // Atomic, Fence
  Dependency dependency = Dependency::Address;
  friend bool operator==(const Variation&, const Variation&) = default;
};
std::string to_string(const Variation& variation);  // na, rlx-agent, fence-scacq-wg, addr, "" (nothing)

// A place of a test that the variations fill: an access, or the program-order gap before
// access `index` of `thread`.
struct Slot {
  bool gap = false;
  int thread = 0;
  int index = 0;
  char access = 'R';  // R (load), W (store), U (rmw): the access, or the access after a gap
  std::vector<Variation> choices;
};

// The tests of one cycle with one placement of its threads and one segment per location:
// one test per choice of a variation for every slot. Slots are the accesses in thread order,
// then the gaps in thread order. Cheap to copy (the skeleton is shared).
class VariationSpace {
 public:
  struct Data;
  explicit VariationSpace(std::shared_ptr<const Data> data);

  const std::string& cycle() const;
  const std::vector<Slot>& slots() const;
  // Where the space's placement puts each thread: its work-group and its agent, each
  // numbered by first appearance.
  const std::vector<int>& workgroup_of_thread() const;
  const std::vector<int>& agent_of_thread() const;
  // Equal for two spaces that differ only in their placement (the compiled code of a choice
  // does not depend on where the threads run).
  const std::string& shape_key() const;
  // Per location (in the order of the tests' locations), its segment.
  const std::vector<Segment>& segments() const;
  // The location an access slot reads or writes (an index into segments()); throws
  // std::out_of_range for a gap or an index past the slots.
  int location_of(std::size_t slot) const;
  // Equal for two threads (of any spaces) whose accesses are the same up to the names of
  // their locations, renamed by first use in the thread: kinds, stored values, program-order
  // gaps and the locations' segments. With the same choices for their slots, two such
  // threads have the same code in the tests with every slot at its first choice.
  std::string thread_key(int thread) const;
  // How many tests the space holds (the product of the slots' choice counts), or
  // 2^64 - 1 (support::kSaturated) when that does not fit in 64 bits.
  std::uint64_t size() const;

  // `choice[i]` indexes `slots()[i].choices`; throws std::invalid_argument for a choice of
  // the wrong length and std::out_of_range for an index past a slot's choices.
  GeneratedTest build(std::span<const std::size_t> choice) const;
  // build() without the key, and without the checks build() makes of each test (check_test,
  // a safety net against a generator bug that the generator's tests exercise through
  // build(); only the scope tree is resolved): a bound's search builds tens of tests per
  // space, and checking them was a quarter of the time building them.
  Test test(std::span<const std::size_t> choice) const;
  // Equal for two choices (of any spaces) iff their tests are equal up to symmetry.
  std::string canonical_key(std::span<const std::size_t> choice) const;
  // The same without the `exists` condition: equal iff the tests are the same program up to
  // symmetry. Cycles that differ only in which final state they ask about (PosWR against
  // Rfi, say) give the same programs.
  std::string program_key(std::span<const std::size_t> choice) const;
  // Equal for two spaces whose tests are, choice for choice, the same programs up to
  // symmetry (equal skeletons, placements and segments, each slot with the same choices).
  // It is skeleton_key() and arrangement_key() joined (built when asked: a bound keeps the
  // two apart).
  std::string program_key() const;
  // Equal for two spaces whose cycles' threads are the same programs up to symmetry, their
  // placements and segments aside (the same for every space of a cycle). Where two cycles
  // have one skeleton key, each space of one holds the programs of a space of the other:
  // a symmetry between their skeletons carries placements and segments across, and a bound
  // offers every placement and segment assignment that its own relations and segments allow.
  const std::string& skeleton_key() const;
  // Among the spaces of cycles with one skeleton key, equal for two that hold the same
  // programs: the placement and segments under the skeleton's own symmetries.
  const std::string& arrangement_key() const;

 private:
  friend class SpaceTests;
  std::shared_ptr<const Data> data_;
};

// The tests of one space, for a search that builds many of them (verify-mapping's bound
// builds tens per space): a test's instructions are laid out once per choice of what the
// gaps hold (nothing, a fence, or which dependency: these add instructions and registers),
// and each test is then that layout with the orders and scopes of its accesses and fences
// set, a walk over its instructions instead of a build. `prepare` is applied to each layout
// as it is built; it must leave the instructions as they are (the bound's search observes
// every register and location). With `named` false the tests are left without a name and
// description, which is a third of what building one costs, for a search that reads
// neither (the name of a choice is VariationSpace::test's). Not thread-safe: one per search.
class SpaceTests {
 public:
  explicit SpaceTests(VariationSpace space, std::function<Test(Test)> prepare = {}, bool named = true);

  // prepare(space.test(choice)), name included (or empty, see above); valid until the next
  // call. Throws as VariationSpace::test for a bad choice.
  const Test& test(std::span<const std::size_t> choice);
  // How many layouts were built (one per choice of the gaps' contents met so far).
  std::size_t layouts() const { return layouts_.size(); }

 private:
  VariationSpace space_;
  std::function<Test(Test)> prepare_;
  bool named_;
  std::map<std::string, Test, std::less<>> layouts_;  // by what the gaps hold, one character each
  std::string key_;                                   // scratch for the key
};

// Placements whose spaces a caller only counts: `skips(agent_of_thread)` says whether a
// placement's spaces are left unbuilt, and `count(spaces, size)` is told, per cycle and
// skipped placement, how many spaces it held, each of `size` tests (VariationSpace::size).
struct SkippedPlacements {
  std::function<bool(const std::vector<int>& agent_of_thread)> skips;
  std::function<void(std::size_t spaces, std::uint64_t size)> count;
};

// Calls `visit` for each space of the bound, in the order `generate` enumerates tests, but
// those of placements `skipped` skips; returns how many spaces the bound holds, skipped or
// not. Throws std::invalid_argument for bad options.
std::size_t for_each_variation_space(const GenerateOptions& options,
                                     const std::function<void(const VariationSpace&)>& visit,
                                     const SkippedPlacements& skipped = {});

// Calls `visit` for each distinct test, in a deterministic order; returns how many. Tests
// equal up to thread permutation, location renaming and value renaming are generated once
// (the first one met). Throws std::invalid_argument for bad options, std::length_error past
// `max_tests`, and std::logic_error if a test fails check_test (a bug of the generator).
std::size_t generate(const GenerateOptions& options, const std::function<void(GeneratedTest&&)>& visit);
std::vector<GeneratedTest> generate_tests(const GenerateOptions& options);
// Counts without building the tests.
std::size_t count_tests(const GenerateOptions& options);

// Parses the inline bound syntax of `verify-mapping --generate` and `gen --spec`:
// comma-separated `key=value` items, keys threads, accesses, orders, scopes, segments,
// placements, fences, deps (list values separated by `+` or `/`), family (names separated
// by `/`), cycle (edges separated by blanks or `.`), edges (edge names, or Pod, Pos, com for
// their groups, separated by `+`), max (the test limit), shard (I/N). E.g.
// `threads=2,accesses=2,orders=rlx+scacq+screl,scopes=agent`. Throws std::invalid_argument naming the item at fault.
GenerateOptions parse_generate_spec(std::string_view spec, GenerateOptions base = {});

// Parsing of the list values shared by the spec and the command line (`na`, `rlx`, ...;
// `wave`, `wg`, ...); each throws std::invalid_argument naming the word.
OrderChoice parse_orders(std::span<const std::string> words);
std::vector<Scope> parse_scopes(std::span<const std::string> words);
std::vector<Segment> parse_segments(std::span<const std::string> words);
std::vector<ThreadRelation> parse_placements(std::span<const std::string> words);
std::vector<MemoryOrder> parse_fence_orders(std::span<const std::string> words);
std::vector<Dependency> parse_dependencies(std::span<const std::string> words);
// Edge names; `Pod` and `Pos` stand for their four kinds, `com` for the six communication
// edges; `-Pos` (or any name with a leading `-`) removes it from all or from the list so far.
std::vector<EdgeKind> parse_edges(std::span<const std::string> words);
// The cycles of a family name (case-sensitive, as in `classic_families`).
std::optional<Cycle> family_cycle(std::string_view name);

}  // namespace hsalit::litmus
