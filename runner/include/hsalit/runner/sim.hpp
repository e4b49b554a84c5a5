// The operational simulator of the GCN memory hierarchy (docs/simulator.md): it executes
// the programs the code generator produced on waves, compute units, LDS, vector L1 caches,
// per-channel request queues and the L2, taking every nondeterministic step the documented
// hardware may take.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "hsalit/codegen/compiler.hpp"
#include "hsalit/codegen/memory_hierarchy.hpp"
#include "hsalit/litmus/ast.hpp"
#include "hsalit/support/memory.hpp"
#include "hsalit/support/recently_used.hpp"

namespace hsalit::runner {

// Hardware facts on which the seed documents disagree, or which vary between parts: each
// is a switch so a mapping can be judged under each stated assumption.
struct HardwareAssumptions {
  // LDS operations of different waves can be reordered relative to vector memory operations
  // because the LDS has several request queues (AMDGPUUsage, seed 000, "Memory Model"). Off:
  // LDS operations are performed as they issue, in one global order ("LDS hardware is
  // sequentially consistent", ROCm Code Object Format, seed 001).
  bool lds_queues = true;
  // Each location sits in its own L2 channel (operations to different locations of one CU
  // may reorder on the way to L2). Off: one channel for everything.
  bool channel_per_location = true;
  // A store updates its CU's L1 line as it passes through the L1, before it reaches the
  // L2, so other waves of the CU can read it early (write-through L1). Off: the CU sees its
  // own stores only once they are in the L2 (the L1 line is invalidated at issue). The seeds
  // say the L1 is write-through and shared by the waves of a CU, but not when a store's
  // value becomes visible in it.
  bool l1_store_visible_early = true;
  // The vector L1 may hold a line from before the test and may fill or evict a line at any
  // time (a hardware prefetch, another wave's miss, a replacement).
  bool l1_spontaneous_fill = true;
  // GFX90A and GFX94x (targets with buffer_wbl2): each agent has its own L2 over a shared
  // memory that is not coherent across agents (coarse-grained memory). A store makes its
  // agent's line dirty; buffer_wbl2 writes the agent's dirty lines back, buffer_invl2 (GFX94x:
  // buffer_inv sc1) invalidates its clean ones; lines may also be written back, filled and
  // evicted at any time. Off: one L2 for all agents, the point of coherence
  // (docs/simulator.md, rule 12). Other targets ignore it.
  bool l2_per_agent = false;
  // GFX942: "fewer (possibly one) larger agents with groups of CUs on each agent each sharing
  // separate L2 caches" (AMDGPUUsage, Memory Model GFX942). Each group of CUs that runs one
  // work-group has an L2 of its own, written back and invalidated as under l2_per_agent
  // (buffer_wbl2, buffer_inv sc1), and every atomic is performed at memory (docs/simulator.md,
  // rule 14). Off: one L2 per agent. Other targets ignore it.
  bool l2_per_xcd = false;
};

// The assumptions by the names `--assume` takes; apply_assumption sets one (false for a name
// that is not one of them).
inline constexpr std::string_view kAssumptionNames =
    "lds-sc, lds-queues, one-channel, no-l1-fill, l1-store-at-l2, l2-per-agent, l2-per-xcd";
bool apply_assumption(std::string_view name, HardwareAssumptions& hw);

struct SimOptions {
  HardwareAssumptions hw;
  std::size_t max_states = 5'000'000;  // exhaustive mode gives up (unknown) past this
  // Both modes give up (unknown) past this, checked from the first step on: random mode
  // reports the runs made by then.
  double timeout_seconds = 60;
  // Exhaustive mode gives up (unknown) before the process's resident memory would pass this
  // many bytes (0: no limit); the default is half of physical memory
  // (support::default_memory_limit).
  std::uint64_t memory_limit = support::default_memory_limit();
  bool keep_traces = true;         // one trace per outcome in exhaustive mode (shortest)
  bool explore_placements = true;  // every placement of waves on compute units (docs/simulator.md, "Placement")
  // Exhaustive search takes steps that commute with all others alone and leaves out L1
  // lines no load reads through the L1 (docs/simulator.md, "Reductions"); the set of
  // outcomes is the same either way. Off: every interleaving of every step.
  bool partial_order_reduction = true;
  // With the reductions on, exhaustive search also takes alone a memory step that no step of
  // another wave or queue can conflict with, now or later (docs/simulator.md, "Reductions",
  // rule 4); off: only the steps of rules 1 to 3 are reduced. The outcomes are the same.
  bool independent_steps = true;
  // With the reductions on, lines that may be filled at any time and stores that reach their
  // CU's L1 only through the L2 (`l1-store-at-l2`), exhaustive search explores only the
  // finest placements: each work-group on a CU of its own (split over two, or over one CU
  // per wave, where the work-group span allows it): a CU shared by two sets of waves reaches
  // no final state that separate CUs do not (docs/simulator.md, "Reductions", rule 5). Off:
  // every placement of waves on CUs. The outcomes are the same.
  bool separate_cus = true;
  // With the reductions on, exhaustive search leaves the L1 out of a placement that puts
  // every wave on one CU (one L2, and no instruction that may use a register before the load
  // writing it completes): each load through the L1 misses, and reads what a hit would have
  // read (docs/simulator.md, "Reductions", rule 6). Off: loads hit as anywhere else. The
  // outcomes are the same.
  bool one_cu_misses = true;
  // Exhaustive search without traces: the states that reduction 1 passes through (a wave can
  // issue an invisible instruction, whose issue is then their only successor) are not
  // stored, the issues being taken in place until no wave has one (docs/simulator.md,
  // "Reductions"). The outcomes are the same; `states` counts the states stored. Off by
  // default, so that `states` means the same for every search; verify-mapping's bounds set it.
  bool pass_invisible_steps = false;
  // Random mode: threads sharing the runs. Each run seeds its own generator from the seed
  // and its index, so the histogram is the same for every number of threads.
  int jobs = 1;
};

// How far the waves of one work-group may be spread (docs/simulator.md, "Placement"): the
// target's memory hierarchy says it per table flavour (codegen::MemoryHierarchy::workgroup_span).
using codegen::WorkgroupSpan;

// Where the threads run: thread -> wave, wave -> work-group, wave -> CU, CU -> agent. The
// waves of a work-group are on one CU, or on several where the span allows it.
struct Placement {
  std::vector<int> wave_of_thread;
  std::vector<int> workgroup_of_wave;
  std::vector<int> cu_of_wave;
  std::vector<int> agent_of_cu;
  // Threads of each wave in the order its divergent lanes execute (the compiler's choice).
  std::vector<std::vector<int>> lanes_of_wave;
  int workgroups() const;
  // Per thread its wave, work-group, CU and agent ("P0: wave 0 wg 0 cu 0 agent 0; ..."), so
  // the waves of a work-group split over CUs show each its own CU.
  std::string describe() const;
};

// All placements the scope tree allows: threads of one wavefront share a wave (their lanes
// running one after another, in every order); work-groups of one agent go on the same or
// different CUs (or work-group processors, for WorkgroupSpan::Wgp) in every way (set
// partitions); the waves of a work-group share its CU (OneCu), are spread over the one or two
// CUs of its work-group processor in every way (Wgp), or over the CUs of the agent in every
// way (Agent: set partitions of the agent's waves). Each way of putting waves on CUs comes
// once: a work-group processor's second CU is only used by a work-group that has waves on
// both (otherwise the placement is the same as that of two processors).
std::vector<Placement> placements(const litmus::Test& test, WorkgroupSpan span = WorkgroupSpan::OneCu);

// The placements of placements(), one at a time and in the same order, without holding them
// all: sixteen work-groups of one agent have more than ten billion. With `separate_cus_only`,
// only the finest (the reductions' rule 5): each work-group on a CU of its own (OneCu), each
// on a work-group processor of its own with its waves on both CUs in every way where it has
// two waves or more (Wgp), each wave on a CU of its own (Agent).
class PlacementCursor {
 public:
  explicit PlacementCursor(const litmus::Test& test, WorkgroupSpan span = WorkgroupSpan::OneCu,
                           bool separate_cus_only = false);
  const Placement& current() const { return current_; }
  // Moves to the next placement; false after the last (the cursor is then back on the first).
  bool next();
  // How many placements the cursor visits, saturated at the largest std::uint64_t.
  std::uint64_t count() const;
  // A placement drawn at random, where there are too many to draw one by its index: each
  // work-group of an agent joins one of the CUs (work-group processors) drawn before it or a
  // new one, uniformly; where the span allows, each wave of a CU's (processor's, agent's)
  // work-groups joins one of the CUs drawn before it for them or, while there is room, a new
  // one, uniformly; and each wave's lanes run in a uniformly random order. `below(n)` is
  // uniform in [0, n).
  Placement draw(const std::function<std::uint32_t(std::uint32_t)>& below) const;

 private:
  // The waves that share CUs: those of one CU (OneCu), one work-group processor (Wgp) or one
  // agent (Agent), and how they are spread over the unit's CUs.
  struct Unit {
    int agent = 0;
    std::vector<int> waves;      // ascending
    std::vector<int> cu_blocks;  // per wave, its CU among the unit's (restricted growth)
  };
  std::vector<Unit> units(const std::vector<std::vector<int>>& group_partitions) const;
  int most_cus(const Unit& unit) const;
  int least_cus(const Unit& unit) const;
  bool valid(const Unit& unit) const;
  bool next_spread(Unit& unit) const;
  void place(Placement& p, const std::vector<Unit>& units) const;
  WorkgroupSpan span_ = WorkgroupSpan::OneCu;
  Placement base_;
  std::vector<std::vector<int>> members_;           // per agent, its work-groups
  std::vector<std::vector<int>> waves_of_group_;    // per work-group, its waves
  std::vector<std::vector<int>> group_partitions_;  // per agent, each member's unit among the agent's
  std::vector<Unit> units_;
  bool separate_cus_only_ = false;
  Placement current_;
};

// Whether, under these assumptions, two sets of waves sharing a CU (two work-groups, or the
// parts of a work-group that may be split) reach no final state that they do not reach on
// separate CUs (docs/simulator.md, "Reductions", rule 5): stores reach their CU's L1 only
// through the L2, and lines may be filled at any time, so what one set does to the shared L1
// and queues only narrows what the other may read.
bool shared_cu_adds_nothing(const HardwareAssumptions& hw);

// A final state: the values of the test's observed registers and locations.
struct SimOutcome {
  std::vector<std::int64_t> values;
  friend auto operator<=>(const SimOutcome&, const SimOutcome&) = default;
};

struct SimResult {
  std::vector<litmus::ObservedRef> observed;
  std::map<SimOutcome, std::uint64_t> histogram;          // outcome -> count (exhaustive: 1)
  std::map<SimOutcome, std::vector<std::string>> traces;  // one shortest transition list per outcome
  std::map<SimOutcome, std::string> trace_placement;
  std::uint64_t states = 0;      // exhaustive: distinct states visited
  std::uint64_t iterations = 0;  // random: runs
  double seconds = 0;
  std::optional<std::string> unknown;  // why no exact answer (state bound, time, deadlock)
  // Hardware runs with host threads (docs/hardware.md, "The host as an agent"): the runs
  // whose host and GPU threads overlapped in time (no thread started after another had
  // finished); a weak outcome needs them.
  std::optional<std::uint64_t> overlapped;
  // Hardware: the instances each launch ran; fewer than asked where each instance needs a
  // work-group of its own (a test with a barrier) and the device holds fewer at once.
  std::optional<std::uint64_t> instances_per_launch;
};

SimResult run_exhaustive(const litmus::Test& test, const codegen::CompiledTest& compiled,
                         const SimOptions& options = {});

namespace detail {
struct SimProgram;
}

// A program lowered for the simulator: its instructions decoded, its locations and registers
// bound. keeps_program_order and run_exhaustive lower the code themselves; a caller asking
// both about one code lowers it once (lower_program) and passes it to each.
class LoweredProgram {
 public:
  const detail::SimProgram& program() const {
    if (!program_) throw std::logic_error("an empty LoweredProgram (relower_thread threw)");
    return *program_;
  }

 private:
  friend LoweredProgram lower_program(const litmus::Test& test, const codegen::CompiledTest& compiled);
  friend void relower_thread(LoweredProgram& lowered, const litmus::Test& test, const codegen::CompiledTest& compiled,
                             int thread);
  std::shared_ptr<detail::SimProgram> program_;  // shared by copies; changed only while not shared
};

// Throws std::runtime_error for code the simulator cannot execute.
LoweredProgram lower_program(const litmus::Test& test, const codegen::CompiledTest& compiled);
// Makes `lowered`, lowered from `compiled` as it was but for thread `thread`'s code, the
// program lower_program(test, compiled) gives, lowering that thread alone: for a caller that
// changes one thread's code at a time (the bound's facts 9 and 10). Throws as lower_program,
// leaving `lowered` empty (to be lowered again before use).
void relower_thread(LoweredProgram& lowered, const litmus::Test& test, const codegen::CompiledTest& compiled,
                    int thread);

// Whether every run of the machine performs each thread's memory accesses in program order,
// each at the one copy of its location (the L2, its work-group's LDS) and reading the latest
// write there, so that every final state run_exhaustive can reach is a final state of an SC
// interleaving of the litmus program (docs/simulator.md, "Program order kept"). Read from
// the code alone, for every placement exhaustive search explores: one L2, code that waits for
// its loads' registers (rule 2), no load through the L1 where there are several CUs (a hit
// goes ahead of the wave's queued requests), no barrier, no loop, one thread per wave, and
// each pair of accesses on different paths (vector memory and LDS, or two L2 channels)
// separated by an `s_waitcnt` that waits for the first. False where it cannot tell.
bool keeps_program_order(const litmus::Test& test, const codegen::CompiledTest& compiled,
                         const SimOptions& options = {});
bool keeps_program_order(const litmus::Test& test, const LoweredProgram& lowered, const SimOptions& options);
// Two memory accesses of one thread, as the indices of their litmus instructions in the
// thread's code, the earlier first.
struct UnorderedPair {
  int earlier = 0, later = 0;
  friend bool operator==(const UnorderedPair&, const UnorderedPair&) = default;
};

// Where every placement exhaustive search explores puts every wave on one CU (one L2, one
// thread per wave) and `thread`'s code has no branch, barrier or FLAT access and waits for
// its loads before touching their registers (rule 2): the pairs of its accesses that the
// machine may perform out of program order. Those are an LDS access and a later vector
// memory access with no `s_waitcnt` between them that waits for the LDS access (none
// without LDS queues). Every final state run_exhaustive reaches is then the final state of
// an interleaving of the litmus program's accesses, each performed at once on the one copy
// of its location and reading the latest write there, in which each thread performs every
// other pair of its accesses in program order (docs/simulator.md, "One CU: program order but
// for LDS before vector memory"). nullopt where that does not hold or cannot be told.
std::optional<std::vector<UnorderedPair>> one_cu_unordered_pairs(const litmus::Test& test,
                                                                 const LoweredProgram& lowered, int thread,
                                                                 const SimOptions& options);

// Per location of a test, whether a wave that an explored placement may put on a CU other than
// a thread's may write it (`on_other_cus`), and whether a wave of another work-group may
// (`in_other_workgroups`: in WGP mode another WGP, with a GL1 of its own). Empty: every location.
struct OtherWriters {
  std::vector<bool> on_other_cus, in_other_workgroups;
};

// one_cu_unordered_pairs where waves may run on several CUs (work-groups split in WGP mode or
// tgsplit, or several work-groups; docs/simulator.md, "A split work-group"): with one L2,
// stores that reach the L1s through it (`l1-store-at-l2`) and one thread per wave, every final
// state the search reaches is that of an interleaving of the litmus accesses, each performed
// at once on the one copy of its location and reading the latest write there, in which each
// thread performs in program order every pair of its accesses but those named: two accesses
// on different paths (the LDS and vector memory, or two L2 channels) with no `s_waitcnt`
// between them that waits for the first, and an access followed by a load that may hit a
// cache: unless a wait has waited for the access and, where the line may be older than the
// L2 (`others` writes the location: on another CU for the L1, in another work-group for the
// GL1 and the L1 that fills from it), an invalidation of that level has followed the wait. An
// earlier access of the load's own location is named only where the line may be older than
// the L2. nullopt where that does not hold or cannot be told.
std::optional<std::vector<UnorderedPair>> several_cus_unordered_pairs(const litmus::Test& test,
                                                                      const LoweredProgram& lowered, int thread,
                                                                      const SimOptions& options,
                                                                      const OtherWriters& others = {});

// keeps_program_order's answer for one thread: whether every run performs `thread`'s accesses
// in program order, each at the one copy of its location and reading the latest write there,
// whatever the other threads' code, given `written_on_other_cus` (per location of the test,
// whether a thread that an explored placement may put on a CU other than `thread`'s may write
// it: every thread of another work-group, and where the work-group span lets the thread's own
// work-group split over CUs (WGP or tgsplit mode, `may_split_workgroups`) every other thread of
// its own). Where it is true for every thread, with those locations marked, so is
// keeps_program_order.
bool thread_keeps_program_order(const litmus::Test& test, const LoweredProgram& lowered, int thread,
                                const std::vector<bool>& written_on_other_cus, const SimOptions& options);

// Whether the waves of one work-group may run on several CUs in the program's execution mode
// (codegen::WorkgroupSpan: WGP mode on GFX10-GFX12, tgsplit on GFX90A and GFX942).
bool may_split_workgroups(const LoweredProgram& lowered);

// Exhaustive searches kept for programs searched again, by simulation_key(). The search
// reads the compiled code, the test's scope tree, locations, segments, initial values,
// observed references and the location each instruction names, and its options; not the
// name, the condition's values, nor the atomicity, order and scope of the instructions (the
// code carries their effect). Tests that differ only in those compile to the same code more
// often than not (a weaker order that maps to the same instructions), and get the kept
// result. Where every wave runs on one CU the key is coarser: codes that differ only in
// what that CU cannot tell apart reach the same final states (docs/simulator.md, "Searches
// kept for a program met again"). Keeps the `capacity` latest results (a result that gave up
// is not kept: a later search may get further).
using SimulationMemo = support::RecentlyUsed<SimResult>;

// What SimulationMemo keeps a search by: two programs with one key reach the same final
// states (binary; equal or not is all it says).
std::string simulation_key(const litmus::Test& test, const codegen::CompiledTest& compiled,
                           const SimOptions& options = {});

// run_exhaustive() through `memo`: the same result, searched only when no equal search is kept.
std::shared_ptr<const SimResult> run_exhaustive(const litmus::Test& test, const codegen::CompiledTest& compiled,
                                                const SimOptions& options, SimulationMemo& memo);
// The same, `compiled` lowered already.
std::shared_ptr<const SimResult> run_exhaustive(const litmus::Test& test, const codegen::CompiledTest& compiled,
                                                const LoweredProgram& lowered, const SimOptions& options,
                                                SimulationMemo& memo);

SimResult run_random(const litmus::Test& test, const codegen::CompiledTest& compiled, std::uint64_t iterations,
                     std::uint64_t seed, const SimOptions& options = {});

// Formats an outcome as `1:r0=1; x=2;`.
std::string format_outcome(const litmus::Test& test, const SimResult& r, const SimOutcome& o);

// Where the lowered code may read or overwrite a VGPR before the load (or returning atomic)
// that writes it has completed, as the simulator counts with the target's wait counters
// (docs/simulator.md, rules 2 and 3): one message per thread that does, e.g. "P0: `global_
// store_dword v0, v1, s[6:7]` reads v1 before `global_load_dword v1, v0, s[2:3]` has
// completed". Compiled code must have none: the hardware does not interlock.
std::vector<std::string> register_hazards(const LoweredProgram& lowered);

}  // namespace hsalit::runner
