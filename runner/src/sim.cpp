// The operational model of the GCN memory hierarchy (docs/simulator.md states each rule
// with the sentence of the seed it implements, and the reductions exhaustive search makes).
#include "hsalit/runner/sim.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <chrono>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <type_traits>
#include <vector>

#include "hsalit/litmus/printer.hpp"
#include "hsalit/support/binary_key.hpp"
#include "hsalit/support/interrupt.hpp"
#include "hsalit/support/memory.hpp"
#include "hsalit/support/parallel.hpp"
#include "sim_program.hpp"

namespace hsalit::runner {

using detail::AddressForm;
using detail::RegFile;
using detail::SimInstruction;
using detail::SimOp;
using detail::SimProgram;
using detail::Src;

bool apply_assumption(std::string_view name, HardwareAssumptions& hw) {
  if (name == "lds-sc")
    hw.lds_queues = false;
  else if (name == "lds-queues")
    hw.lds_queues = true;
  else if (name == "one-channel")
    hw.channel_per_location = false;
  else if (name == "no-l1-fill")
    hw.l1_spontaneous_fill = false;
  else if (name == "l1-store-at-l2")
    hw.l1_store_visible_early = false;
  else if (name == "l2-per-agent")
    hw.l2_per_agent = true;
  else if (name == "l2-per-xcd")
    hw.l2_per_xcd = true;
  else
    return false;
  return true;
}

int Placement::workgroups() const {
  int count = 0;
  for (int g : workgroup_of_wave) count = std::max(count, g + 1);
  return count;
}

std::string Placement::describe() const {
  std::string out;
  for (std::size_t t = 0; t < wave_of_thread.size(); ++t) {
    int w = wave_of_thread[t];
    int g = workgroup_of_wave[static_cast<std::size_t>(w)];
    int cu = cu_of_wave[static_cast<std::size_t>(w)];
    out += fmt::format("{}P{}: wave {} wg {} cu {} agent {}", t ? "; " : "", t, w, g, cu,
                       agent_of_cu[static_cast<std::size_t>(cu)]);
  }
  for (const std::vector<int>& lanes : lanes_of_wave)
    if (lanes.size() > 1) out += fmt::format("; lanes run P{}", fmt::join(lanes, " then P"));
  return out;
}

namespace {

// The first set partition with at least `least` blocks in the order of restricted growth
// strings (each item's block is at most one more than the largest before it): every item in
// block 0 but the last least - 1, which open a block each.
std::vector<int> first_partition(std::size_t items, int least) {
  std::vector<int> blocks(items, 0);
  const auto opened = static_cast<std::size_t>(std::max(least, 1) - 1);
  for (std::size_t i = items > opened ? items - opened : 0; i < items; ++i)
    blocks[i] = static_cast<int>(i - (items - opened) + 1);
  return blocks;
}

// The next set partition after `blocks` with between `least` and `most` blocks, in the order
// of restricted growth strings: false after the last, the string then back on the first.
bool next_partition(std::vector<int>& blocks, int most = std::numeric_limits<int>::max(), int least = 1) {
  const std::size_t n = blocks.size();
  std::vector<int> largest_before(n, -1);
  for (std::size_t i = 1; i < n; ++i) largest_before[i] = std::max(largest_before[i - 1], blocks[i - 1]);
  for (std::size_t i = n; i-- > 1;) {
    const auto tail = static_cast<int>(n - i - 1);
    for (int v = blocks[i] + 1; v <= largest_before[i] + 1 && v < most; ++v) {
      const int used = std::max(largest_before[i], v) + 1;
      if (used + tail < least) continue;
      blocks[i] = v;
      // The smallest tail that reaches `least` blocks: zeros, then a new block per item.
      const int opened = std::max(least - used, 0);
      for (int k = 0; k < tail; ++k)
        blocks[i + 1 + static_cast<std::size_t>(k)] = k < tail - opened ? 0 : used + k - (tail - opened);
      return true;
    }
  }
  blocks = first_partition(n, least);
  return false;
}

std::uint64_t saturating_multiply(std::uint64_t a, std::uint64_t b) {
  std::uint64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<std::uint64_t>::max() : product;
}

std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  std::uint64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<std::uint64_t>::max() : sum;
}

// 2^k, saturated.
std::uint64_t saturating_power_of_two(std::size_t k) {
  return k < 64 ? std::uint64_t{1} << k : std::numeric_limits<std::uint64_t>::max();
}

// The number of set partitions of `n` items (the Bell number), saturated.
std::uint64_t partition_count(std::size_t n) {
  // The Bell triangle: each row starts with the last entry of the row before.
  std::vector<std::uint64_t> row = {1};
  for (std::size_t i = 1; i < n; ++i) {
    std::vector<std::uint64_t> next = {row.back()};
    for (std::uint64_t x : row) next.push_back(saturating_add(next.back(), x));
    row = std::move(next);
  }
  return row.back();
}

// The ways to put the waves of the work-groups on one work-group processor on its CUs, each
// way once: all on one CU, or on both with a work-group that has waves on each (otherwise it
// is the placement of two processors): 1 + (2^(waves-1) - 1) - (2^(groups-1) - 1), saturated.
std::uint64_t wgp_spreads(std::size_t waves, std::size_t groups) {
  if (waves == 0) return 1;
  if (waves - 1 >= 64) return std::numeric_limits<std::uint64_t>::max();
  return (std::uint64_t{1} << (waves - 1)) - (std::uint64_t{1} << (groups - 1)) + 1;
}

// Summed over the set partitions of work-groups onto work-group processors, the product of
// each processor's wgp_spreads, saturated. Work-groups with as many waves are alike, so the
// sum runs over how many of each kind remain (`left`, by kind), memoised: the block of the
// first work-group left takes some of each kind along.
std::uint64_t wgp_placement_count(const std::vector<std::size_t>& waves_of_kind, std::vector<std::size_t> left,
                                  std::map<std::vector<std::size_t>, std::uint64_t>& memo) {
  auto first = std::find_if(left.begin(), left.end(), [](std::size_t n) { return n > 0; });
  if (first == left.end()) return 1;
  if (auto it = memo.find(left); it != memo.end()) return it->second;
  const std::vector<std::size_t> key = left;
  const auto kind = static_cast<std::size_t>(first - left.begin());
  --left[kind];
  // Pascal's triangle up to the largest count, for the ways to choose the companions.
  std::size_t largest = *std::max_element(left.begin(), left.end());
  std::vector<std::vector<std::uint64_t>> choose(largest + 1);
  for (std::size_t n = 0; n <= largest; ++n) {
    choose[n].assign(n + 1, 1);
    for (std::size_t k = 1; k < n; ++k) choose[n][k] = saturating_add(choose[n - 1][k - 1], choose[n - 1][k]);
  }
  std::uint64_t total = 0;
  std::vector<std::size_t> taken(left.size(), 0);
  while (true) {
    std::uint64_t ways = 1;
    std::size_t waves = waves_of_kind[kind], groups = 1;
    std::vector<std::size_t> rest = left;
    for (std::size_t k = 0; k < left.size(); ++k) {
      ways = saturating_multiply(ways, choose[left[k]][taken[k]]);
      waves += taken[k] * waves_of_kind[k];
      groups += taken[k];
      rest[k] -= taken[k];
    }
    ways = saturating_multiply(ways, wgp_spreads(waves, groups));
    total = saturating_add(total, saturating_multiply(ways, wgp_placement_count(waves_of_kind, rest, memo)));
    // The next choice of companions (an odometer over the kinds).
    std::size_t k = 0;
    while (k < taken.size() && taken[k] == left[k]) taken[k++] = 0;
    if (k == taken.size()) break;
    ++taken[k];
  }
  memo.emplace(key, total);
  return total;
}

}  // namespace

bool shared_cu_adds_nothing(const HardwareAssumptions& hw) {
  return !hw.l1_store_visible_early && hw.l1_spontaneous_fill && !hw.l2_per_agent && !hw.l2_per_xcd;
}

PlacementCursor::PlacementCursor(const litmus::Test& test, WorkgroupSpan span, bool separate_cus_only)
    : span_(span), separate_cus_only_(separate_cus_only) {
  const litmus::ScopeTree& tree = test.scopes;
  const int n = static_cast<int>(test.threads.size());
  std::map<std::uint32_t, int> waves, wgs, agents;
  std::vector<int> wg_agent;
  for (int t = 0; t < n; ++t) {
    std::uint32_t wv = tree.instance(t, litmus::Scope::Wavefront);
    std::uint32_t wg = tree.instance(t, litmus::Scope::WorkGroup);
    std::uint32_t ag = tree.instance(t, litmus::Scope::Agent);
    auto w = waves.emplace(wv, static_cast<int>(waves.size())).first->second;
    base_.wave_of_thread.push_back(w);
    auto g = wgs.emplace(wg, static_cast<int>(wgs.size()));
    if (g.second) wg_agent.push_back(agents.emplace(ag, static_cast<int>(agents.size())).first->second);
    if (static_cast<int>(base_.workgroup_of_wave.size()) <= w) base_.workgroup_of_wave.push_back(g.first->second);
  }
  members_.resize(agents.size());
  for (int g = 0; g < static_cast<int>(wg_agent.size()); ++g)
    members_[static_cast<std::size_t>(wg_agent[g])].push_back(g);
  waves_of_group_.resize(wg_agent.size());
  for (int w = 0; w < static_cast<int>(base_.workgroup_of_wave.size()); ++w)
    waves_of_group_[static_cast<std::size_t>(base_.workgroup_of_wave[static_cast<std::size_t>(w)])].push_back(w);
  // The first placement: every work-group of an agent on one CU or processor (separately:
  // each on its own; with Agent, the agent is the one unit).
  for (const std::vector<int>& members : members_) {
    group_partitions_.emplace_back(members.size(), 0);
    if (separate_cus_only_ && span_ != WorkgroupSpan::Agent)
      for (std::size_t i = 0; i < members.size(); ++i) group_partitions_.back()[i] = static_cast<int>(i);
  }
  // Lanes of a wave run one after another, in an order the compiler chooses: every order,
  // the first that of the threads.
  base_.lanes_of_wave.resize(base_.workgroup_of_wave.size());
  for (int t = 0; t < n; ++t)
    base_.lanes_of_wave[static_cast<std::size_t>(base_.wave_of_thread[static_cast<std::size_t>(t)])].push_back(t);
  current_ = base_;
  units_ = units(group_partitions_);
  place(current_, units_);
}

// The units of the agents' partitions, each spread the first way: the agents in order, an
// agent's units by their block.
std::vector<PlacementCursor::Unit> PlacementCursor::units(const std::vector<std::vector<int>>& group_partitions) const {
  std::vector<Unit> out;
  for (std::size_t agent = 0; agent < members_.size(); ++agent) {
    const std::vector<int>& part = group_partitions[agent];
    const int blocks = part.empty() ? 0 : *std::max_element(part.begin(), part.end()) + 1;
    const std::size_t first = out.size();
    out.resize(first + static_cast<std::size_t>(blocks), Unit{static_cast<int>(agent), {}, {}});
    for (std::size_t i = 0; i < part.size(); ++i) {
      Unit& unit = out[first + static_cast<std::size_t>(part[i])];
      const std::vector<int>& waves = waves_of_group_[static_cast<std::size_t>(members_[agent][i])];
      unit.waves.insert(unit.waves.end(), waves.begin(), waves.end());
    }
  }
  for (Unit& unit : out) {
    std::sort(unit.waves.begin(), unit.waves.end());
    unit.cu_blocks = first_partition(unit.waves.size(), least_cus(unit));
  }
  return out;
}

// The most CUs a unit's waves may use: one (OneCu), the processor's two (Wgp), one per wave
// (Agent).
int PlacementCursor::most_cus(const Unit& unit) const {
  switch (span_) {
    case WorkgroupSpan::OneCu: return 1;
    case WorkgroupSpan::Wgp: return 2;
    case WorkgroupSpan::Agent: return std::max(static_cast<int>(unit.waves.size()), 1);
  }
  return 1;
}

// The fewest: one, or with separate CUs only the most there is room for.
int PlacementCursor::least_cus(const Unit& unit) const {
  return separate_cus_only_ ? std::min(most_cus(unit), std::max(static_cast<int>(unit.waves.size()), 1)) : 1;
}

// Whether a unit's spread is one of those the cursor visits: on a work-group processor, two
// CUs only where a work-group has waves on both (else it is two processors' placement).
bool PlacementCursor::valid(const Unit& unit) const {
  if (span_ != WorkgroupSpan::Wgp) return true;
  if (std::find(unit.cu_blocks.begin(), unit.cu_blocks.end(), 1) == unit.cu_blocks.end()) return true;
  std::map<int, int> first_block;  // per work-group, the CU of its first wave here
  for (std::size_t i = 0; i < unit.waves.size(); ++i) {
    const int g = base_.workgroup_of_wave[static_cast<std::size_t>(unit.waves[i])];
    if (auto [it, fresh] = first_block.emplace(g, unit.cu_blocks[i]); !fresh && it->second != unit.cu_blocks[i])
      return true;
  }
  return false;
}

// The unit's next spread over its CUs that the cursor visits: false after the last (then back
// on the first).
bool PlacementCursor::next_spread(Unit& unit) const {
  while (next_partition(unit.cu_blocks, most_cus(unit), least_cus(unit)))
    if (valid(unit)) return true;
  return false;
}

void PlacementCursor::place(Placement& p, const std::vector<Unit>& units) const {
  p.agent_of_cu.clear();
  p.cu_of_wave.assign(base_.workgroup_of_wave.size(), -1);
  for (const Unit& unit : units) {
    const int first_cu = static_cast<int>(p.agent_of_cu.size());
    const int blocks = unit.cu_blocks.empty() ? 0 : *std::max_element(unit.cu_blocks.begin(), unit.cu_blocks.end()) + 1;
    p.agent_of_cu.insert(p.agent_of_cu.end(), static_cast<std::size_t>(blocks), unit.agent);
    for (std::size_t i = 0; i < unit.waves.size(); ++i)
      p.cu_of_wave[static_cast<std::size_t>(unit.waves[i])] = first_cu + unit.cu_blocks[i];
  }
}

// The order of placements(): the agents' partitions of their work-groups vary slowest, the
// first agent's slowest of all, then the spread of each unit's waves over its CUs, the last
// unit's fastest, then the waves' lane orders, the last wave's fastest.
bool PlacementCursor::next() {
  for (std::size_t w = current_.lanes_of_wave.size(); w-- > 0;) {
    std::vector<int>& lanes = current_.lanes_of_wave[w];
    if (std::next_permutation(lanes.begin(), lanes.end())) return true;
  }
  for (std::size_t u = units_.size(); u-- > 0;)
    if (next_spread(units_[u])) {
      place(current_, units_);
      return true;
    }
  if (!separate_cus_only_ && span_ != WorkgroupSpan::Agent)
    for (std::size_t agent = group_partitions_.size(); agent-- > 0;)
      if (next_partition(group_partitions_[agent])) {
        units_ = units(group_partitions_);
        place(current_, units_);
        return true;
      }
  units_ = units(group_partitions_);
  place(current_, units_);
  return false;
}

std::uint64_t PlacementCursor::count() const {
  std::uint64_t count = 1;
  for (std::size_t agent = 0; agent < members_.size(); ++agent) {
    std::size_t waves = 0;
    for (int g : members_[agent]) waves += waves_of_group_[static_cast<std::size_t>(g)].size();
    if (separate_cus_only_) {
      // Only a work-group processor of its own has several ways: its waves on both CUs.
      if (span_ == WorkgroupSpan::Wgp)
        for (int g : members_[agent]) {
          const std::size_t own = waves_of_group_[static_cast<std::size_t>(g)].size();
          if (own >= 2) count = saturating_multiply(count, saturating_power_of_two(own - 1) - 1);
        }
      continue;
    }
    switch (span_) {
      case WorkgroupSpan::OneCu: count = saturating_multiply(count, partition_count(members_[agent].size())); break;
      case WorkgroupSpan::Agent: count = saturating_multiply(count, partition_count(waves)); break;
      case WorkgroupSpan::Wgp: {
        std::map<std::size_t, std::size_t> groups_with;  // waves -> work-groups with as many
        for (int g : members_[agent]) ++groups_with[waves_of_group_[static_cast<std::size_t>(g)].size()];
        std::vector<std::size_t> waves_of_kind, left;
        for (const auto& [w, groups] : groups_with) waves_of_kind.push_back(w), left.push_back(groups);
        std::map<std::vector<std::size_t>, std::uint64_t> memo;
        count = saturating_multiply(count, wgp_placement_count(waves_of_kind, left, memo));
        break;
      }
    }
  }
  for (const std::vector<int>& lanes : base_.lanes_of_wave)
    for (std::size_t k = 2; k <= lanes.size(); ++k) count = saturating_multiply(count, k);
  return count;
}

Placement PlacementCursor::draw(const std::function<std::uint32_t(std::uint32_t)>& below) const {
  std::vector<std::vector<int>> partitions = group_partitions_;
  if (!separate_cus_only_ && span_ != WorkgroupSpan::Agent)
    for (std::vector<int>& part : partitions) {
      int blocks = 0;
      for (int& block : part) {
        block = static_cast<int>(below(static_cast<std::uint32_t>(blocks) + 1));
        blocks = std::max(blocks, block + 1);
      }
    }
  std::vector<Unit> drawn = units(partitions);
  for (Unit& unit : drawn) {
    const int most = most_cus(unit), least = least_cus(unit);
    if (most == 1 || least >= static_cast<int>(unit.waves.size())) continue;  // one way only: the first
    // Each wave joins a CU drawn before it or, while there is room, a new one; drawn again
    // until it has the fewest CUs asked for.
    int blocks = 0;
    do {
      blocks = 0;
      for (int& block : unit.cu_blocks) {
        block = static_cast<int>(below(static_cast<std::uint32_t>(std::min(blocks + 1, most))));
        blocks = std::max(blocks, block + 1);
      }
    } while (blocks < least);
  }
  Placement p = base_;
  place(p, drawn);
  for (std::vector<int>& lanes : p.lanes_of_wave)
    for (std::size_t i = lanes.size(); i > 1; --i) std::swap(lanes[i - 1], lanes[below(static_cast<std::uint32_t>(i))]);
  return p;
}

std::vector<Placement> placements(const litmus::Test& test, WorkgroupSpan span) {
  std::vector<Placement> out;
  PlacementCursor cursor(test, span);
  do out.push_back(cursor.current());
  while (cursor.next());
  return out;
}
namespace {

// ---- machine state --------------------------------------------------------------------------
//
// A state is a fixed number of 32-bit words whose layout is fixed per program and placement
// (Machine's constructor), so exhaustive search hashes and stores states without allocating
// and random mode copies one array per run. Everything that can affect the future is in the
// words and nothing else is: two states are the same state exactly when their words are equal.
//
// Per wave:  header (lane | at_barrier << 8 | vcc << 16), barriers arrived at, list sizes
//            (vm | lds << 16), the SGPRs, per lane (pc | done << 16) and its VGPRs, then
//            the pending vector memory entries and the pending LDS entries (kEntryWords each,
//            in issue order; unused entries are zero).
// Per CU:    per L1 line that can ever be valid and be read: with the reductions the set of
//            values it may hold (count, then sorted lo, hi pairs); without, (valid, lo, hi),
//            zero when invalid. Per L2 channel a FIFO: its length, then (wave | index in the
//            wave's vm list << 8).
// Then the L2 (lo, hi per location) and the LDS copies (lo, hi per work-group and slot).

using Word = std::uint32_t;
__extension__ typedef unsigned __int128 Uint128;  // for 64x64->128 multiplications (hash, generator)

struct Value64 {
  Word lo = 0, hi = 0;
};

// A pending entry: meta (instruction | location << 16 | lane << 24 | performed), then two
// 64-bit operands: data and compare before the entry is performed, result and 0 after it.
constexpr int kEntryWords = 5;
constexpr Word kPerformed = 1u << 28;
constexpr int kMaxLanes = 15, kMaxLocations = 255, kMaxInstructions = 0xffff, kMaxUnits = 255;

Word entry_instruction(Word meta) { return meta & 0xffff; }
Word entry_location(Word meta) { return (meta >> 16) & 0xff; }
Word entry_lane(Word meta) { return (meta >> 24) & 0xf; }

enum class Step : std::uint8_t {
  Issue,
  Drain,
  LdsPerform,
  Evict,
  Fill,
  L2Writeback,
  L2Fill,
  L2Evict,
  Gl1Fill,
  Gl1Evict
};

struct Transition {
  Step step = Step::Issue;
  // Issue: wave, and for a load through a lazy L1 line 0 = miss or i = hit the i-th value;
  // LdsPerform: wave; Drain: cu, channel; Evict, Fill: cu, location; L2*: agent, location.
  std::uint8_t a = 0, b = 0;
  Word pack() const { return static_cast<Word>(step) | static_cast<Word>(a) << 8 | static_cast<Word>(b) << 16; }
  static Transition unpack(Word w) {
    return {static_cast<Step>(w & 0xff), static_cast<std::uint8_t>(w >> 8), static_cast<std::uint8_t>(w >> 16)};
  }
};

// The enabled steps of a state, in storage sized once (Machine::max_transitions), so that
// listing them never allocates.
class Transitions {
 public:
  void reserve(std::size_t n) {
    if (items_.size() < n) items_.resize(n);
  }
  void clear() { size_ = 0; }
  void push_back(Transition t) { items_[size_++] = t; }
  std::size_t size() const { return size_; }
  const Transition& operator[](std::size_t i) const { return items_[i]; }
  const Transition* begin() const { return items_.data(); }
  const Transition* end() const { return items_.data() + size_; }

 private:
  std::vector<Transition> items_;
  std::size_t size_ = 0;
};

// A register operand resolved to the state word that holds it, or an immediate.
struct Operand {
  std::int32_t word = -1;
  Word imm = 0;
};

// One instruction of one thread, with its registers resolved to state words.
struct Code {
  SimOp op = SimOp::Nop;
  AddressForm form = AddressForm::Global;
  bool scalar_move = false;  // s_mov_b32 writes an SGPR
  bool has_source = false;   // Move: a source operand the lowering understood
  bool bypass_l1 = false, bypass_gl1 = true, flat = false, invalidate_l1 = false, invalidate_gl1 = false,
       invalidate_l2 = false, system_scope = false, agent_scope = false;
  std::uint8_t width = 1;
  int atomic_kind = 0;
  std::int32_t dst = -1;  // word of the destination register
  int dst_count = 1;
  Operand a, b, base, offset;
  std::int64_t imm_offset = 0;
  std::int32_t data = -1, compare = -1;  // words of the first data and compare VGPRs
  int target = -1;
  std::uint8_t counters = 0;  // memory operations: the counters that count it (SimInstruction::counters)
  std::array<int, detail::kCounters> bounds{-1, -1, -1, -1};  // Wait: SimInstruction::bounds
  std::int64_t kernel_argument = 0;                           // ScalarLoad: the immediate offset
  // The VGPR words an ALU instruction reads or writes (-1: none), for the partial-order
  // reduction: such an instruction does not commute with the completion of a load that
  // writes one of them.
  std::array<std::int32_t, 3> vgprs{-1, -1, -1};
};

struct WaveLayout {
  int header = 0;  // header; header + 1: barriers; header + 2: list sizes
  int sgprs = 0;
  std::vector<int> lane;  // per lane: the word (pc | done << 16), its VGPRs follow
  int vm = 0, vm_cap = 0, lds = 0, lds_cap = 0;
  int cu = 0, workgroup = 0;
  std::vector<int> threads;  // the thread each lane runs, in order
};

struct CuLayout {
  std::vector<int> line;   // per location: first word of the line, or -1 if never valid and read
  std::vector<int> queue;  // per channel: the length word, entries follow
  int queue_cap = 0;
};

bool is_vector_memory(SimOp op) {
  return op == SimOp::VectorLoad || op == SimOp::VectorStore || op == SimOp::VectorAtomic;
}
bool is_lds(SimOp op) { return op == SimOp::LdsLoad || op == SimOp::LdsStore || op == SimOp::LdsAtomic; }

// A memory access of a wave as its waits count it: the counters of the target's counter model
// that count it (SimInstruction::counters: on GFX6-GFX9 vmcnt for vector memory, lgkmcnt for
// LDS, FLAT in both, rule 4; from GFX10 loads and stores in different counters), how many
// operations each counter counted after it, and whether a wait since has waited for it.
// Completion is reported in issue order per counter (rule 3), so a wait for N on a counter
// waits for every operation it counts with at least N more issued after it; where the thread
// has a FLAT operation only a wait for 0 on the LDS counter tells, since FLAT and LDS
// operations complete in no common order (detail::wait_completes).
struct CountedAccess {
  std::uint8_t counters = 0;
  std::array<int, detail::kCounters> after{};
  bool waited = false;

  explicit CountedAccess(const SimInstruction& access) : counters(access.counters) {}
  void issued_after(const CountedAccess& later) {
    for (std::size_t c = 0; c < detail::kCounters; ++c) after[c] += later.counters >> c & 1;
  }
  void pass(const SimInstruction& wait, int lds_counter, bool thread_has_flat) {
    if (detail::wait_completes(wait, counters, after, lds_counter, thread_has_flat)) waited = true;
  }
};

// What a thread may still do from an instruction on, for the independence of memory steps
// (docs/simulator.md, "Reductions", rule 4): per kind of access the locations it names (bit
// `loc`; every bit when an address is not known statically) and the VGPRs it reads (bit
// min(register, 63)).
struct Future {
  std::uint64_t vm = 0, vm_write = 0, l1_read = 0, lds = 0, lds_write = 0, reads = 0;
  bool invalidates_l1 = false;
  Future& operator|=(const Future& o) {
    vm |= o.vm, vm_write |= o.vm_write, l1_read |= o.l1_read, lds |= o.lds, lds_write |= o.lds_write;
    reads |= o.reads;
    invalidates_l1 |= o.invalidates_l1;
    return *this;
  }
};

std::uint64_t location_bit(int loc) { return loc >= 0 ? std::uint64_t{1} << loc : ~std::uint64_t{0}; }
std::uint64_t register_bits(int first, int count) {
  std::uint64_t bits = 0;
  for (int r = first; first >= 0 && r < first + count; ++r) bits |= std::uint64_t{1} << std::min(r, 63);
  return bits;
}

// What one instruction does, as a Future; `loc` the location it names (-1: unknown).
Future future_of_instruction(const SimInstruction& ins, int loc) {
  Future f;
  const std::uint64_t at = location_bit(loc);
  switch (ins.op) {
    case SimOp::VectorLoad:
      f.vm = at;
      if (!ins.bypass_l1 || !ins.bypass_gl1) f.l1_read = at;
      break;
    case SimOp::VectorStore:
    case SimOp::VectorAtomic: f.vm = f.vm_write = at; break;
    case SimOp::LdsLoad: f.lds = at; break;
    case SimOp::LdsStore:
    case SimOp::LdsAtomic: f.lds = f.lds_write = at; break;
    case SimOp::Invalidate: f.invalidates_l1 = ins.invalidate_l1 || ins.invalidate_gl1; break;
    default: break;
  }
  for (const Src* src : {&ins.a, &ins.b, &ins.base, &ins.offset})
    if (src->file == RegFile::Vgpr)
      f.reads |= register_bits(src->reg, src == &ins.base && ins.form == AddressForm::Flat ? 2 : 1);
  f.reads |= register_bits(ins.data, ins.width) | register_bits(ins.compare, ins.width);
  return f;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Whether an instruction's destination is SGPRs (a scalar load or move) rather than VGPRs.
bool scalar_destination(const SimInstruction& ins) {
  return ins.op == SimOp::ScalarLoad || ins.sgpr_destination ||
         (ins.op == SimOp::Move && ins.source && ins.source->mnemonic.rfind("s_", 0) == 0);
}

// Rule 6's condition on a thread's code: whether an instruction may read or write a VGPR
// that an outstanding vector load or atomic of the thread will write when it completes
// (compiled code waits first: codegen's insert_register_waits). The thread is explored
// alone, over its program counter and the vector operations outstanding (oldest first),
// more loosely than it runs: both ways at every branch, the oldest outstanding operation
// completing between any two instructions, a wait passing once no more than its bounds are
// outstanding on each counter (LDS operations not counted). Past a bound it answers yes.
bool may_use_outstanding_result(const detail::SimThread& th) {
  using Local = std::pair<int, std::vector<int>>;
  constexpr std::size_t kMaxLocal = 4096, kMaxOutstanding = 64;
  std::set<Local> seen;
  std::vector<Local> work{{0, {}}};
  while (!work.empty()) {
    Local local = std::move(work.back());
    work.pop_back();
    if (!seen.insert(local).second) continue;
    if (seen.size() > kMaxLocal) return true;
    const auto& [pc, outstanding] = local;
    if (pc < 0 || pc >= static_cast<int>(th.code.size())) continue;
    if (!outstanding.empty()) work.emplace_back(pc, std::vector<int>(outstanding.begin() + 1, outstanding.end()));
    const SimInstruction& ins = th.code[static_cast<std::size_t>(pc)];
    // The VGPRs it reads (as rule 4 reads them: bit min(register, 63)) and writes.
    const std::uint64_t touched =
        future_of_instruction(ins, -1).reads |
        (scalar_destination(ins) ? 0 : register_bits(ins.dst, std::max(ins.width, ins.dst_count)));
    for (int o : outstanding) {
      const SimInstruction& load = th.code[static_cast<std::size_t>(o)];
      if (load.dst >= 0 && load.op != SimOp::VectorStore && (register_bits(load.dst, load.width) & touched))
        return true;
    }
    switch (ins.op) {
      case SimOp::Wait: {
        std::array<int, detail::kCounters> counts{};
        for (int o : outstanding)
          for (std::size_t c = 0; c < detail::kCounters; ++c)
            counts[c] += th.code[static_cast<std::size_t>(o)].counters >> c & 1;
        if (detail::wait_passes(ins, counts)) work.emplace_back(pc + 1, outstanding);
        break;
      }
      case SimOp::End: break;
      case SimOp::Branch: work.emplace_back(ins.target, outstanding); break;
      case SimOp::BranchVcc:
        work.emplace_back(ins.target, outstanding);
        work.emplace_back(pc + 1, outstanding);
        break;
      case SimOp::VectorLoad:
      case SimOp::VectorStore:
      case SimOp::VectorAtomic: {
        if (outstanding.size() >= kMaxOutstanding) return true;
        std::vector<int> more = outstanding;
        more.push_back(pc);
        work.emplace_back(pc + 1, std::move(more));
        break;
      }
      default: work.emplace_back(pc + 1, outstanding);
    }
  }
  return false;
}

// The location a litmus instruction names (an index into the program's locations), or -1.
int litmus_location(const litmus::Test& test, const SimProgram& program, int thread, int instruction) {
  const auto& code = test.threads[static_cast<std::size_t>(thread)].code;
  if (instruction < 0 || static_cast<std::size_t>(instruction) >= code.size()) return -1;
  const litmus::Instruction& li = code[static_cast<std::size_t>(instruction)];
  if (!li.is_memory_access() || !li.addr.base.is_location()) return -1;
  auto it = std::find(program.locations.begin(), program.locations.end(), li.addr.base.name);
  return it == program.locations.end() ? -1 : static_cast<int>(it - program.locations.begin());
}

// The locations a thread reads through the L1 (`l1_reads`) or writes with vector memory
// operations: per location of the program, every one when an address is not known from the code.
std::vector<bool> vector_locations(const litmus::Test& test, const SimProgram& program, int thread, bool l1_reads) {
  std::vector<bool> out(program.locations.size());
  for (const SimInstruction& ins : program.threads[static_cast<std::size_t>(thread)].code) {
    const bool counted = l1_reads ? ins.op == SimOp::VectorLoad && (!ins.bypass_l1 || !ins.bypass_gl1)
                                  : ins.op == SimOp::VectorStore || ins.op == SimOp::VectorAtomic;
    if (!counted) continue;
    const int loc = litmus_location(test, program, thread, ins.litmus_instruction);
    if (loc < 0)
      out.assign(out.size(), true);
    else
      out[static_cast<std::size_t>(loc)] = true;
  }
  return out;
}

// keeps_program_order's reading of one thread's code: whether each of its memory accesses is
// performed after every access before it in program order. Accesses on one path keep their
// order by themselves: the vector memory requests of a wave join its CU's FIFO for their
// channel and the L2 performs them in that order (rule 9), and its LDS operations are
// performed in its order (rule 10). Accesses on different paths (vector memory and LDS, or
// two channels) are ordered only by a wait between them that waits for the earlier one:
// completion is reported in issue order per counter (rule 3), so a wait for N on a counter
// waits for every operation it counts with at least N more issued after it before the wait,
// counted as the target's counter model counts them (CountedAccess). The code is walked once, with
// forward branches only: at a join each earlier access keeps the fewest operations issued
// after it on any path and is waited for only if it is on every path that has it.
bool accesses_in_program_order(const litmus::Test& test, const SimProgram& program, int thread,
                               const HardwareAssumptions& hw) {
  const detail::SimThread& th = program.threads[static_cast<std::size_t>(thread)];
  struct Earlier : CountedAccess {
    using CountedAccess::CountedAccess;
    int path = 0;  // -1: LDS; otherwise the L2 channel
  };
  using Pending = std::map<int, Earlier>;  // by the access's instruction index
  auto join = [](Pending& into, const Pending& from) {
    for (const auto& [pc, e] : from) {
      auto [it, fresh] = into.emplace(pc, e);
      if (fresh) continue;
      for (std::size_t c = 0; c < detail::kCounters; ++c)
        it->second.after[c] = std::min(it->second.after[c], e.after[c]);
      it->second.waited = it->second.waited && e.waited;
    }
  };
  const bool has_flat = std::any_of(th.code.begin(), th.code.end(), [](const SimInstruction& i) { return i.flat; });
  std::vector<std::optional<Pending>> at(th.code.size() + 1);
  at[0] = Pending{};
  for (std::size_t pc = 0; pc < th.code.size(); ++pc) {
    if (!at[pc]) continue;  // not reached
    Pending pending = std::move(*at[pc]);
    const SimInstruction& ins = th.code[pc];
    auto flow_to = [&](std::size_t next, const Pending& state) {
      if (next >= at.size()) return;
      if (at[next])
        join(*at[next], state);
      else
        at[next] = state;
    };
    switch (ins.op) {
      case SimOp::Barrier: return false;  // a wave may wait forever: not a question of order
      case SimOp::End: continue;
      case SimOp::Branch:
      case SimOp::BranchVcc:
        if (ins.target <= static_cast<int>(pc)) return false;  // loops
        flow_to(static_cast<std::size_t>(ins.target), pending);
        if (ins.op == SimOp::Branch) continue;
        break;
      case SimOp::Wait:
        for (auto& [earlier, e] : pending) e.pass(ins, program.lds_counter, has_flat);
        break;
      case SimOp::VectorLoad:
      case SimOp::VectorStore:
      case SimOp::VectorAtomic:
      case SimOp::LdsLoad:
      case SimOp::LdsStore:
      case SimOp::LdsAtomic: {
        Earlier here(ins);
        here.path = -1;
        const bool vm = is_vector_memory(ins.op);
        if (vm && hw.channel_per_location) {
          here.path = litmus_location(test, program, thread, ins.litmus_instruction);
          if (here.path < 0) return false;  // a channel not known from the code
        } else if (vm) {
          here.path = 0;
        }
        for (auto& [earlier, e] : pending) {
          if (!e.waited && e.path != here.path) return false;
          e.issued_after(here);
        }
        pending.insert_or_assign(static_cast<int>(pc), here);
        break;
      }
      default: break;
    }
    flow_to(pc + 1, pending);
  }
  return true;
}

// Whether the L2 is not one point of coherence: per agent (`l2-per-agent`, targets with L2
// maintenance) or per group of CUs of an agent (`l2-per-xcd`, GFX942); rules 12 and 14.
bool several_l2s(const HardwareAssumptions& hw, const SimProgram& program) {
  return program.l2_maintenance && (hw.l2_per_agent || (hw.l2_per_xcd && program.l2_per_xcd));
}

class Machine {
 public:
  // `one_cu_misses`: with the reductions on, a placement that puts every wave on one CU is
  // searched without L1 lines where the rest allows it (docs/simulator.md, rule 6).
  Machine(const litmus::Test& test, const SimProgram& program, const Placement& placement, const SimOptions& options,
          bool one_cu_misses = true)
      : p_(program), placement_(placement), opt_(options) {
    const std::size_t locations = p_.locations.size();
    if (locations > kMaxLocations) throw std::runtime_error("the simulator handles at most 255 locations");
    channels_ = opt_.hw.channel_per_location ? static_cast<int>(std::max<std::size_t>(locations, 1)) : 1;
    int wave_count = 0;
    for (int w : placement.wave_of_thread) wave_count = std::max(wave_count, w + 1);
    std::vector<std::vector<int>> lanes_of_wave(static_cast<std::size_t>(wave_count));
    if (placement.lanes_of_wave.size() == lanes_of_wave.size()) {
      lanes_of_wave = placement.lanes_of_wave;
    } else {
      for (std::size_t t = 0; t < placement.wave_of_thread.size(); ++t)
        lanes_of_wave[static_cast<std::size_t>(placement.wave_of_thread[t])].push_back(static_cast<int>(t));
    }
    const int cus = static_cast<int>(placement.agent_of_cu.size());
    if (wave_count > kMaxUnits || cus > kMaxUnits) throw std::runtime_error("too many waves or compute units");
    workgroups_ = placement.workgroups();
    group_count_ = 0;
    for (int slot : p_.lds_slot) group_count_ = std::max(group_count_, slot + 1);
    lane_of_thread_.assign(p_.threads.size(), 0);

    // Registers each thread uses, L1 lines each CU may fill (what its waves read, as before
    // the reduction) and lines some L1-reading load of the CU may read.
    std::vector<int> vgprs(p_.threads.size(), 1), sgprs(p_.threads.size(), 1);
    std::vector<std::vector<std::uint8_t>> fillable(static_cast<std::size_t>(cus),
                                                    std::vector<std::uint8_t>(locations));
    std::vector<std::vector<std::uint8_t>> read(static_cast<std::size_t>(cus), std::vector<std::uint8_t>(locations));
    for (std::size_t t = 0; t < p_.threads.size(); ++t) {
      const detail::SimThread& th = p_.threads[t];
      if (th.code.size() > kMaxInstructions) throw std::runtime_error("a thread has too many instructions");
      auto use = [&](std::vector<int>& count, int first, int n) {
        if (first >= 0) count[t] = std::max(count[t], first + n);
      };
      auto use_src = [&](const Src& s) {
        if (s.file == RegFile::Vgpr) use(vgprs, s.reg, 1);
        if (s.file == RegFile::Sgpr) use(sgprs, s.reg, 1);
      };
      for (const SimInstruction& ins : th.code) {
        use_src(ins.a), use_src(ins.b), use_src(ins.base), use_src(ins.offset);
        use(vgprs, ins.data, ins.width);
        use(vgprs, ins.compare, ins.width);
        use(scalar_destination(ins) ? sgprs : vgprs, ins.dst, ins.op == SimOp::ScalarLoad ? ins.dst_count : ins.width);
      }
      for (const auto& [name, vgpr] : th.registers) use(vgprs, vgpr, 1);
      int cu = placement.cu_of_wave[static_cast<std::size_t>(placement.wave_of_thread[t])];
      for (int loc : th.non_glc_loads) fillable[static_cast<std::size_t>(cu)][static_cast<std::size_t>(loc)] = 1;
      for (const SimInstruction& ins : th.code) {
        if (ins.op != SimOp::VectorLoad || ins.bypass_l1) continue;
        int loc = litmus_location(test, static_cast<int>(t), ins.litmus_instruction);
        if (loc >= 0) {
          read[static_cast<std::size_t>(cu)][static_cast<std::size_t>(loc)] = 1;
        } else {  // unknown address: every line the thread names may be read
          for (int l : th.non_glc_loads) read[static_cast<std::size_t>(cu)][static_cast<std::size_t>(l)] = 1;
        }
      }
    }

    // Layout.
    lazy_lines_ = opt_.partial_order_reduction;
    // Rule 6: every wave on one CU, one L2, code that waits for its loads' registers.
    bool one_cu = true;
    for (std::size_t w = 1; w < static_cast<std::size_t>(wave_count); ++w)
      one_cu = one_cu && placement.cu_of_wave[w] == placement.cu_of_wave[0];
    one_cu_misses_ = one_cu_misses && one_cu && lazy_lines_ && opt_.one_cu_misses && !several_l2s(opt_.hw, p_) &&
                     std::none_of(p_.threads.begin(), p_.threads.end(), may_use_outstanding_result);
    candidates_cap_ = 1;  // the initial value, then at most one value per write to the L2
    for (const detail::SimThread& th : p_.threads)
      for (const SimInstruction& ins : th.code) {
        candidates_cap_ += ins.op == SimOp::VectorStore || ins.op == SimOp::VectorAtomic;
        if ((ins.op == SimOp::Branch || ins.op == SimOp::BranchVcc) &&
            ins.target <= static_cast<int>(&ins - th.code.data()))
          candidates_cap_ += 8;  // loops: more room (a run that needs more reports it)
      }
    int next = 0;
    waves_.resize(static_cast<std::size_t>(wave_count));
    for (int w = 0; w < wave_count; ++w) {
      WaveLayout& L = waves_[static_cast<std::size_t>(w)];
      L.threads = lanes_of_wave[static_cast<std::size_t>(w)];
      if (L.threads.size() > kMaxLanes) throw std::runtime_error("a wave has too many lanes");
      L.workgroup = placement.workgroup_of_wave[static_cast<std::size_t>(w)];
      L.cu = placement.cu_of_wave[static_cast<std::size_t>(w)];
      L.header = next;
      next += 3;
      L.sgprs = next;
      int sgpr_count = 1, vm = 0, lds = 0;
      bool backward = false;
      for (int t : L.threads) {
        sgpr_count = std::max(sgpr_count, sgprs[static_cast<std::size_t>(t)]);
        const auto& code = p_.threads[static_cast<std::size_t>(t)].code;
        for (std::size_t pc = 0; pc < code.size(); ++pc) {
          SimOp op = code[pc].op;
          vm += is_vector_memory(op);
          lds += is_lds(op);
          backward |= (op == SimOp::Branch || op == SimOp::BranchVcc) && code[pc].target <= static_cast<int>(pc);
        }
      }
      // Without loops an instruction is outstanding at most once; with them, room for more
      // (a run that needs still more reports it).
      L.vm_cap = backward ? 4 * vm + 4 : vm;
      L.lds_cap = backward ? 4 * lds + 4 : lds;
      next += sgpr_count;
      for (std::size_t lane = 0; lane < L.threads.size(); ++lane) {
        int t = L.threads[lane];
        lane_of_thread_[static_cast<std::size_t>(t)] = static_cast<int>(lane);
        L.lane.push_back(next);
        next += 1 + vgprs[static_cast<std::size_t>(t)];
      }
      L.vm = next;
      next += L.vm_cap * kEntryWords;
      L.lds = next;
      next += L.lds_cap * kEntryWords;
    }
    cus_.resize(static_cast<std::size_t>(cus));
    for (int c = 0; c < cus; ++c) {
      CuLayout& C = cus_[static_cast<std::size_t>(c)];
      C.line.assign(locations, -1);
      for (std::size_t l = 0; l < locations; ++l)
        if (opt_.hw.l1_spontaneous_fill && !one_cu_misses_ && fillable[static_cast<std::size_t>(c)][l] &&
            (!lazy_lines_ || read[static_cast<std::size_t>(c)][l])) {
          C.line[l] = next;
          next += lazy_lines_ ? 1 + 2 * candidates_cap_ : 3;
        }
      for (const WaveLayout& L : waves_)
        if (L.cu == c) C.queue_cap += L.vm_cap;
      for (int ch = 0; ch < channels_; ++ch) {
        C.queue.push_back(next);
        next += 1 + C.queue_cap;
      }
    }
    fillable_ = std::move(fillable);
    next = layout_gl1(test, next);
    memory_ = next;
    next += 2 * static_cast<int>(locations);
    // Per-agent L2 (docs/simulator.md, rule 12): per L2 and location (state, lo, hi), state
    // 0 invalid, 1 clean, 2 dirty; lines of locations no thread of the L2 names are left out.
    // One L2 per agent; under `l2-per-xcd` (GFX942) one per group of CUs that run one
    // work-group's waves (rule 14).
    l2_agents_ = several_l2s(opt_.hw, p_);
    l2_per_xcd_ = l2_agents_ && opt_.hw.l2_per_xcd && p_.l2_per_xcd;
    if (l2_agents_) {
      l2_of_cu_ = l2_per_xcd_ ? workgroup_cu_groups() : placement.agent_of_cu;
      for (int a : l2_of_cu_) agents_ = std::max(agents_, a + 1);
      agent_line_.assign(static_cast<std::size_t>(agents_), std::vector<int>(locations, -1));
      for (std::size_t t = 0; t < p_.threads.size(); ++t) {
        const int cu = waves_[static_cast<std::size_t>(placement.wave_of_thread[t])].cu;
        auto a = static_cast<std::size_t>(l2_of_cu_[static_cast<std::size_t>(cu)]);
        for (int loc : p_.threads[t].non_glc_loads)
          if (agent_line_[a][static_cast<std::size_t>(loc)] < 0) {
            agent_line_[a][static_cast<std::size_t>(loc)] = next;
            next += 3;
          }
      }
    }
    lds_ = next;
    next += 2 * workgroups_ * std::max(group_count_, 1);
    words_ = static_cast<std::size_t>(next);

    // Instructions with their registers resolved.
    code_.resize(p_.threads.size());
    for (std::size_t t = 0; t < p_.threads.size(); ++t) {
      const WaveLayout& L = waves_[static_cast<std::size_t>(placement.wave_of_thread[t])];
      int vbase = L.lane[static_cast<std::size_t>(lane_of_thread_[t])] + 1;
      auto resolve = [&](const Src& s) -> Operand {
        switch (s.file) {
          case RegFile::Vgpr: return {vbase + s.reg, 0};
          case RegFile::Sgpr: return {L.sgprs + s.reg, 0};
          case RegFile::Imm: return {-1, static_cast<Word>(s.imm)};
          case RegFile::None: return {};
        }
        return {};
      };
      for (const SimInstruction& ins : p_.threads[t].code) {
        Code c;
        c.op = ins.op;
        c.form = ins.form;
        c.scalar_move = ins.op == SimOp::Move && scalar_destination(ins);
        c.has_source = ins.a.file != RegFile::None;
        c.bypass_l1 = ins.bypass_l1;
        c.bypass_gl1 = ins.bypass_gl1;
        c.invalidate_l1 = ins.invalidate_l1;
        c.invalidate_gl1 = ins.invalidate_gl1;
        c.flat = ins.flat;
        c.invalidate_l2 = ins.invalidate_l2;
        c.system_scope = ins.system_scope;
        c.agent_scope = ins.agent_scope;
        c.width = static_cast<std::uint8_t>(ins.width);
        c.atomic_kind = ins.atomic_kind;
        const bool scalar_dst = scalar_destination(ins);
        if (ins.dst >= 0) c.dst = (scalar_dst ? L.sgprs : vbase) + ins.dst;
        c.dst_count = ins.dst_count;
        c.a = resolve(ins.a), c.b = resolve(ins.b), c.base = resolve(ins.base), c.offset = resolve(ins.offset);
        c.imm_offset = ins.imm_offset;
        if (ins.data >= 0) c.data = vbase + ins.data;
        if (ins.compare >= 0) c.compare = vbase + ins.compare;
        c.target = ins.target, c.counters = ins.counters, c.bounds = ins.bounds;
        c.kernel_argument = ins.a.imm;
        int k = 0;
        for (const Src* s : {&ins.a, &ins.b})
          if (s->file == RegFile::Vgpr) c.vgprs[static_cast<std::size_t>(k++)] = vbase + s->reg;
        if (ins.dst >= 0 && !scalar_dst) c.vgprs[static_cast<std::size_t>(k++)] = c.dst;
        code_[t].push_back(c);
      }
    }

    // What each thread may still do from each instruction on (rule 4), with the location each
    // memory instruction names by its litmus instruction (checked when it issues).
    independent_ = opt_.partial_order_reduction && opt_.independent_steps && !l2_agents_ && !gl1_ && locations <= 64;
    if (independent_) {
      future_.resize(p_.threads.size());
      own_.resize(p_.threads.size());
      static_location_.resize(p_.threads.size());
      vgpr_base_.resize(p_.threads.size());
      for (std::size_t t = 0; t < p_.threads.size(); ++t) {
        const auto& code = p_.threads[t].code;
        const WaveLayout& L = waves_[static_cast<std::size_t>(placement.wave_of_thread[t])];
        vgpr_base_[t] = L.lane[static_cast<std::size_t>(lane_of_thread_[t])] + 1;
        std::vector<Future>& after = future_[t];
        after.assign(code.size() + 1, Future{});
        own_[t].resize(code.size());
        static_location_[t].assign(code.size(), -1);
        bool loops = false;
        for (std::size_t pc = code.size(); pc-- > 0;) {
          const SimInstruction& ins = code[pc];
          static_location_[t][pc] = litmus_location(test, static_cast<int>(t), ins.litmus_instruction);
          own_[t][pc] = future_of_instruction(ins, static_location_[t][pc]);
          after[pc] = after[pc + 1];
          after[pc] |= own_[t][pc];
          loops |= (ins.op == SimOp::Branch || ins.op == SimOp::BranchVcc) && ins.target <= static_cast<int>(pc);
        }
        if (loops) std::fill(after.begin(), after.end(), after.front());  // a loop may run anything again
      }
    }

    // Where each observed value is read from in a final state.
    for (const litmus::ObservedRef& r : test.observed()) {
      int word = -1;
      if (r.thread) {
        auto t = static_cast<std::size_t>(*r.thread);
        const WaveLayout& L = waves_[static_cast<std::size_t>(placement.wave_of_thread[t])];
        for (const auto& [name, vgpr] : p_.threads[t].registers)
          if (name == r.name) word = L.lane[static_cast<std::size_t>(lane_of_thread_[t])] + 1 + vgpr;
      } else {
        auto it = std::find(p_.locations.begin(), p_.locations.end(), r.name);
        auto loc = static_cast<std::size_t>(it - p_.locations.begin());
        if (it != p_.locations.end())
          word = p_.lds_slot[loc] >= 0
                     ? lds_cell(observed_workgroup(test, static_cast<int>(loc)), static_cast<int>(loc))
                     : memory_ + 2 * static_cast<int>(loc);
      }
      observed_words_.push_back(word);
    }

    initial_.assign(words_, 0);
    for (std::size_t l = 0; l < locations; ++l) {
      Value64 v = split(p_.initial[l]);
      if (p_.lds_slot[l] >= 0) {
        for (int g = 0; g < workgroups_; ++g) put(initial_.data(), lds_cell(g, static_cast<int>(l)), v);
      } else {
        put(initial_.data(), memory_ + 2 * static_cast<int>(l), v);
        if (lazy_lines_)
          for (const CuLayout& C : cus_)
            if (C.line[l] >= 0) add_candidate(initial_.data(), C.line[l], v);
      }
    }
  }

  std::size_t words() const { return words_; }
  // The most steps a state can enable.
  std::size_t max_transitions() const {
    std::size_t lines = 0, queues = 0;
    for (const CuLayout& C : cus_) {
      queues += C.queue.size();
      for (int l : C.line) lines += l >= 0;
    }
    for (const std::vector<int>& a : agent_line_)
      for (int l : a) lines += l >= 0;
    for (const std::vector<int>& g : gl1_line_)
      for (int l : g) lines += l >= 0;
    return waves_.size() * (2 + static_cast<std::size_t>(candidates_cap_)) + queues + lines;
  }
  const std::vector<Word>& initial() const { return initial_; }
  std::size_t observed_count() const { return observed_words_.size(); }

  // How many values the L1 line the next instruction of wave `w` would read may hold: 0
  // unless it is a load through the L1 of a lazy line.
  Word hit_choices(const Word* s, int w) const {
    const WaveLayout& L = waves_[static_cast<std::size_t>(w)];
    if ((s[L.header] & 0xff) >= L.threads.size()) return 0;
    const Code& c = current(s, L);
    int line = l1_line(s, L, c);
    if (line < 0 || own_request_queued(s, w, global_location(s, c))) return 0;
    return s[line];
  }

  // Whether a request of wave `w` to `loc` waits in its CU's queue. A later load of the wave
  // to the same location does not hit a cache line then: requests of a CU to one location
  // are served in order (they share the queue of its channel, rule 9), so the later load
  // cannot read an older value than the earlier one (a wave's accesses to one location stay
  // coherent: "no special action is required for coherence between the lanes of a single
  // wavefront"); it joins the queue behind it.
  bool own_request_queued(const Word* s, int w, int loc) const {
    if (loc < 0) return false;
    const WaveLayout& L = waves_[static_cast<std::size_t>(w)];
    const Word* q = s + cus_[static_cast<std::size_t>(L.cu)].queue[static_cast<std::size_t>(channel(loc))];
    for (Word i = 0; i < q[0]; ++i)
      if (static_cast<int>(q[1 + i] & 0xff) == w && static_cast<int>(entry_location(s[request_entry(q[1 + i])])) == loc)
        return true;
    return false;
  }

  static Value64 split(std::int64_t v) {
    auto u = static_cast<std::uint64_t>(v);
    return {static_cast<Word>(u), static_cast<Word>(u >> 32)};
  }

  bool final(const Word* s) const {
    for (const WaveLayout& L : waves_)
      if ((s[L.header] & 0xff) < L.threads.size() || s[L.header + 2] != 0) return false;
    // The outcome is read from memory: dirty L2 lines are written back at the end of the kernel.
    for (const std::vector<int>& a : agent_line_)
      for (int l : a)
        if (l >= 0 && s[l] == 2) return false;
    return true;
  }

  void outcome(const Word* s, std::int64_t* values) const {
    for (std::size_t i = 0; i < observed_words_.size(); ++i)
      values[i] = observed_words_[i] < 0 ? 0 : static_cast<std::int32_t>(s[observed_words_[i]]);
  }

  SimOutcome outcome(const Word* s) const {
    SimOutcome o;
    o.values.resize(observed_words_.size());
    outcome(s, o.values.data());
    return o;
  }

  // Takes in place the steps `enabled` would take alone one after the other: while some wave
  // can issue an invisible instruction (reduction 1), the issue of the first such wave, the
  // step the search takes alone from such a state. Those states are passed through, each with
  // that one successor, so a search that keeps no traces need not store them (a third of the
  // states of verify-mapping's bounds).
  void take_invisible_steps(Word* s) const {
    for (bool again = opt_.partial_order_reduction; again;) {
      again = false;
      for (std::size_t w = 0; w < waves_.size() && !again; ++w)
        if (can_issue(s, waves_[w]) && invisible(s, waves_[w])) {
          apply(s, {Step::Issue, static_cast<std::uint8_t>(w), 0});
          again = true;
        }
    }
  }

  // The transitions enabled in `s`, in a fixed order. Returns the index of the first step
  // that commutes with every other step (invisible), or -1; with the reduction off, -1.
  // A load that may read its CU's L1 (lazy lines) is one Issue step per choice: b = 0 misses,
  // b = i > 0 hits the line holding the i-th candidate value; `expand_hits` false lists only
  // the miss (random mode draws the choice itself, see hit_choices).
  int enabled(const Word* s, Transitions& out, bool expand_hits = true) const {
    out.clear();
    int invisible_step = -1;
    for (std::size_t w = 0; w < waves_.size(); ++w) {
      const WaveLayout& L = waves_[w];
      if (can_issue(s, L)) {
        if (invisible_step < 0 && opt_.partial_order_reduction && invisible(s, L))
          invisible_step = static_cast<int>(out.size());
        out.push_back({Step::Issue, static_cast<std::uint8_t>(w), 0});
        if (expand_hits)
          for (Word i = 1, n = hit_choices(s, static_cast<int>(w)); i <= n; ++i)
            out.push_back({Step::Issue, static_cast<std::uint8_t>(w), static_cast<std::uint8_t>(i)});
      }
      if (opt_.hw.lds_queues) {
        int count = static_cast<int>(s[L.header + 2] >> 16);
        for (int i = 0; i < count; ++i)
          if (!(s[L.lds + i * kEntryWords] & kPerformed)) {
            out.push_back({Step::LdsPerform, static_cast<std::uint8_t>(w), 0});
            break;
          }
      }
    }
    for (std::size_t c = 0; c < cus_.size(); ++c) {
      const CuLayout& C = cus_[c];
      for (std::size_t ch = 0; ch < C.queue.size(); ++ch)
        if (s[C.queue[ch]] != 0)
          out.push_back({Step::Drain, static_cast<std::uint8_t>(c), static_cast<std::uint8_t>(ch)});
      for (std::size_t l = 0; l < C.line.size() && !lazy_lines_; ++l) {
        if (C.line[l] < 0) continue;
        if (s[C.line[l]])
          out.push_back({Step::Evict, static_cast<std::uint8_t>(c), static_cast<std::uint8_t>(l)});
        else if (l1_fill_value(s, static_cast<int>(c), static_cast<int>(l)))
          out.push_back({Step::Fill, static_cast<std::uint8_t>(c), static_cast<std::uint8_t>(l)});
      }
    }
    for (std::size_t a = 0; a < agent_line_.size(); ++a)
      for (std::size_t l = 0; l < agent_line_[a].size(); ++l) {
        int line = agent_line_[a][l];
        if (line < 0) continue;
        Step st = s[line] == 2 ? Step::L2Writeback : s[line] == 1 ? Step::L2Evict : Step::L2Fill;
        out.push_back({st, static_cast<std::uint8_t>(a), static_cast<std::uint8_t>(l)});
      }
    for (std::size_t g = 0; g < gl1_line_.size(); ++g)
      for (std::size_t l = 0; l < gl1_line_[g].size(); ++l) {
        const int line = gl1_line_[g][l];
        if (line < 0) continue;
        if (s[line])
          out.push_back({Step::Gl1Evict, static_cast<std::uint8_t>(g), static_cast<std::uint8_t>(l)});
        else if (!wgp_store_in_flight(s, static_cast<int>(g), static_cast<int>(l)))
          out.push_back({Step::Gl1Fill, static_cast<std::uint8_t>(g), static_cast<std::uint8_t>(l)});
      }
    return invisible_step;
  }

  // Whether some enabled step moves a wave or a request on; cache steps alone never end a
  // run (a barrier some member of the work-group never reaches).
  static bool progress_possible(const Transitions& next) {
    return std::any_of(next.begin(), next.end(), [](const Transition& t) {
      return t.step == Step::Issue || t.step == Step::Drain || t.step == Step::LdsPerform ||
             t.step == Step::L2Writeback;
    });
  }

  // Rule 4 (docs/simulator.md, "Reductions"): a set of enabled steps that is persistent in
  // `s`: no sequence of other steps can conflict with one of them (write what it reads, read
  // what it writes, reorder a queue it appends to) or disable it, so exploring only it
  // reaches every final state. Returned as the range [first, first + count) of `next`
  // (`enabled`'s list, hits expanded); count 0 when no step qualifies. The candidates: all
  // issue steps of one wave (the miss and each hit of a load), one drain, one LDS perform.
  std::pair<std::size_t, std::size_t> persistent(const Word* s, const Transitions& next) const {
    if (!independent_) return {0, 0};
    for (std::size_t i = 0; i < next.size(); ++i) {
      const Transition& t = next[i];
      bool alone = false;
      std::size_t count = 1;
      switch (t.step) {
        case Step::Issue:
          alone = issue_alone(s, t.a);
          while (i + count < next.size() && next[i + count].step == Step::Issue && next[i + count].a == t.a) ++count;
          break;
        case Step::Drain: alone = drain_alone(s, t.a, t.b); break;
        case Step::LdsPerform: alone = lds_perform_alone(s, t.a); break;
        default: break;
      }
      if (alone) return {i, count};
      i += count - 1;
    }
    return {0, 0};
  }

  void apply(Word* s, const Transition& t) const {
    switch (t.step) {
      case Step::Issue: issue(s, t.a, t.b); break;
      case Step::Drain: drain(s, t.a, t.b); break;
      case Step::LdsPerform: {
        const WaveLayout& L = waves_[t.a];
        int count = static_cast<int>(s[L.header + 2] >> 16);
        for (int i = 0; i < count; ++i) {
          Word* e = s + L.lds + i * kEntryWords;
          if (!(e[0] & kPerformed)) {
            perform_lds(s, L, e);
            break;
          }
        }
        retire(s, t.a);
        break;
      }
      case Step::Evict: std::fill_n(s + cus_[t.a].line[t.b], 3, 0); break;
      case Step::Fill: {
        Word* line = s + cus_[t.a].line[t.b];
        Value64 v = *l1_fill_value(s, t.a, t.b);
        line[0] = 1;
        line[1] = v.lo;
        line[2] = v.hi;
        break;
      }
      case Step::Gl1Fill: fill_gl1(s, t.a, t.b); break;
      case Step::Gl1Evict: std::fill_n(s + gl1_line_[t.a][t.b], 3, 0); break;
      case Step::L2Writeback: writeback_l2(s, t.a, t.b); break;
      case Step::L2Fill: {
        int line = agent_line_[t.a][t.b];
        s[line] = 1, s[line + 1] = s[memory_ + 2 * t.b], s[line + 2] = s[memory_ + 2 * t.b + 1];
        break;  // the value a CU of the agent sees does not change
      }
      case Step::L2Evict:
        std::fill_n(s + agent_line_[t.a][t.b], 3, 0);
        l2_changed(s, t.b);
        break;
    }
  }

  std::string describe(const Word* s, const Transition& t) const {
    switch (t.step) {
      case Step::Issue: {
        const WaveLayout& L = waves_[t.a];
        int lane = static_cast<int>(s[L.header] & 0xff);
        int thread = L.threads[static_cast<std::size_t>(lane)];
        const SimInstruction& ins =
            instruction(thread, static_cast<int>(s[L.lane[static_cast<std::size_t>(lane)]] & 0xffff));
        std::string where = row(ins).empty() ? "" : fmt::format("   [{}]", row(ins));
        if (ins.op == SimOp::Barrier && (s[L.header] >> 8 & 0xff)) return fmt::format("P{} leaves the barrier", thread);
        int line = l1_line(s, L, current(s, L));
        std::string l1;
        const Code& cur = current(s, L);
        const int gl1 = cur.op == SimOp::VectorLoad && !cur.bypass_gl1 && (line < 0 || t.b == 0)
                            ? gl1_line(L.cu, global_location(s, cur))
                            : -1;
        if (gl1 >= 0 && s[gl1] && !own_request_queued(s, t.a, global_location(s, cur)))
          l1 = fmt::format(" ({}hits WGP {}'s GL1 line, which holds {})", line >= 0 ? "misses in its L0, " : "",
                           wgp_of_cu_[static_cast<std::size_t>(L.cu)], static_cast<std::int32_t>(s[gl1 + 1]));
        else if (line >= 0 && t.b == 0)
          l1 = fmt::format(" (misses in CU {}'s L1)", L.cu);
        else if (line >= 0)
          // The line's value came from a fill (the L2's value then) or from a store of this
          // CU passing through the L1 (rule 7): the state does not record which.
          l1 = fmt::format(
              " (hits CU {}'s L1 line, which holds {}: filled from the L2 or written by a store of this CU)", L.cu,
              static_cast<std::int32_t>(s[line + 1 + 2 * (t.b - 1)]));
        return fmt::format("P{} issues {}{}{}", thread, text(ins), l1, where);
      }
      case Step::Drain: {
        Word r = s[cus_[t.a].queue[t.b] + 1];
        const WaveLayout& L = requester(r);
        Word meta = s[request_entry(r)];
        int thread = L.threads[entry_lane(meta)];
        return fmt::format("L2 performs P{}'s {} (CU {} queue of channel {})", thread,
                           text(instruction(thread, static_cast<int>(entry_instruction(meta)))), t.a, t.b);
      }
      case Step::LdsPerform: {
        const WaveLayout& L = waves_[t.a];
        int count = static_cast<int>(s[L.header + 2] >> 16);
        for (int i = 0; i < count; ++i) {
          Word meta = s[L.lds + i * kEntryWords];
          if (!(meta & kPerformed)) {
            int thread = L.threads[entry_lane(meta)];
            return fmt::format("LDS performs P{}'s {}", thread,
                               text(instruction(thread, static_cast<int>(entry_instruction(meta)))));
          }
        }
        return "LDS performs";
      }
      case Step::Evict: return fmt::format("CU {} L1 evicts the line of {}", t.a, p_.locations[t.b]);
      case Step::Fill:
        return fmt::format("CU {} L1 fills the line of {} from {} (value {})", t.a, p_.locations[t.b],
                           gl1_ ? "the GL1" : "L2", static_cast<std::int32_t>(l1_fill_value(s, t.a, t.b)->lo));
      case Step::L2Writeback:
        return fmt::format("agent {} L2 writes back the line of {} (value {})", t.a, p_.locations[t.b],
                           static_cast<std::int32_t>(s[agent_line_[t.a][t.b] + 1]));
      case Step::L2Fill:
        return fmt::format("agent {} L2 fills the line of {} from memory (value {})", t.a, p_.locations[t.b],
                           static_cast<std::int32_t>(s[memory_ + 2 * t.b]));
      case Step::L2Evict: return fmt::format("agent {} L2 evicts the clean line of {}", t.a, p_.locations[t.b]);
      case Step::Gl1Fill:
        return fmt::format("WGP {} GL1 fills the line of {} from L2 (value {})", t.a, p_.locations[t.b],
                           static_cast<std::int32_t>(s[memory_ + 2 * t.b]));
      case Step::Gl1Evict: return fmt::format("WGP {} GL1 evicts the line of {}", t.a, p_.locations[t.b]);
    }
    return "?";
  }

 private:
  int litmus_location(const litmus::Test& test, int thread, int instruction) const {
    return runner::litmus_location(test, p_, thread, instruction);
  }

  // The copy of a group location a condition reads: that of the lowest thread touching it.
  int observed_workgroup(const litmus::Test& test, int loc) const {
    for (std::size_t t = 0; t < test.threads.size(); ++t)
      for (const litmus::Instruction& ins : test.threads[t].code)
        if (ins.is_memory_access() && ins.addr.base.is_location() &&
            ins.addr.base.name == p_.locations[static_cast<std::size_t>(loc)])
          return placement_.workgroup_of_wave[static_cast<std::size_t>(placement_.wave_of_thread[t])];
    return 0;
  }

  // The lazy L1 line a load through the L1 reads, or -1.
  int l1_line(const Word* s, const WaveLayout& L, const Code& c) const {
    if (!lazy_lines_ || c.op != SimOp::VectorLoad || c.bypass_l1) return -1;
    int loc = global_location(s, c);
    return loc < 0 ? -1 : cus_[static_cast<std::size_t>(L.cu)].line[static_cast<std::size_t>(loc)];
  }

  // Lazy lines (docs/simulator.md, "Reductions"): instead of the line, the set of values it
  // may hold (sorted, so equal sets are equal words); the line may always be invalid too.
  static void add_candidate(Word* s, int line, Value64 v) {
    Word& count = s[line];
    std::uint64_t key = join(v);
    Word i = 0;
    for (; i < count; ++i) {
      std::uint64_t c = join({s[line + 1 + 2 * i], s[line + 2 + 2 * i]});
      if (c == key) return;
      if (c > key) break;
    }
    std::copy_backward(s + line + 1 + 2 * i, s + line + 1 + 2 * count, s + line + 3 + 2 * count);
    put(s, line + 1 + 2 * static_cast<int>(i), v);
    ++count;
  }
  void set_candidates(Word* s, int line, std::optional<Value64> v) const {
    std::fill_n(s + line, 1 + 2 * candidates_cap_, 0);
    if (v) add_candidate(s, line, *v);
  }
  // After the line's past was settled: the L2's value now, if a fill may take it now.
  void settle(Word* s, int cu, int loc, std::optional<Value64> value) const {
    const CuLayout& C = cus_[static_cast<std::size_t>(cu)];
    int line = C.line[static_cast<std::size_t>(loc)];
    set_candidates(s, line, value);
    if (std::optional<Value64> fill = l1_fill_value(s, cu, loc)) add_candidate_checked(s, line, *fill);
  }
  void add_candidate_checked(Word* s, int line, Value64 v) const {
    if (static_cast<int>(s[line]) >= candidates_cap_) {
      bool present = false;
      for (Word i = 0; i < s[line]; ++i) present |= join({s[line + 1 + 2 * i], s[line + 2 + 2 * i]}) == join(v);
      if (!present) throw std::runtime_error("an L1 line may hold more values than the simulator has room for");
    }
    add_candidate(s, line, v);
  }
  // The value a request of CU `cu` finds: its agent's L2 line if valid, else memory (with one
  // L2 for all agents, the L2's value).
  Value64 l2(const Word* s, int cu, int loc) const {
    int cell = l2_cell(s, cu, loc);
    return {s[cell], s[cell + 1]};
  }
  int l2_cell(const Word* s, int cu, int loc) const {
    if (l2_agents_) {
      int line =
          agent_line_[static_cast<std::size_t>(l2_of_cu_[static_cast<std::size_t>(cu)])][static_cast<std::size_t>(loc)];
      if (line >= 0 && s[line] != 0) return line + 1;
    }
    return memory_ + 2 * loc;
  }
  // The value some CU sees may have changed: every lazy L1 line that may be filled now may take it.
  void l2_changed(Word* s, int loc) const {
    if (!lazy_lines_ || gl1_) return;  // with a GL1 the L0s fill from it (fill_gl1)
    for (std::size_t c = 0; c < cus_.size(); ++c) {
      const CuLayout& C = cus_[c];
      if (C.line[static_cast<std::size_t>(loc)] >= 0 && !store_in_flight(s, C, loc))
        add_candidate_checked(s, C.line[static_cast<std::size_t>(loc)], l2(s, static_cast<int>(c), loc));
    }
  }
  // `notify` false: inside a step that goes on to change the value again (a request performed
  // at memory), so no L1 fill can take the value in between.
  void writeback_l2(Word* s, int agent, int loc, bool notify = true) const {
    int line = agent_line_[static_cast<std::size_t>(agent)][static_cast<std::size_t>(loc)];
    if (line < 0 || s[line] != 2) return;
    s[line] = 1;
    s[memory_ + 2 * loc] = s[line + 1], s[memory_ + 2 * loc + 1] = s[line + 2];
    if (notify) l2_changed(s, loc);
  }
  // ---- The GL1 (GFX10-GFX12; docs/simulator.md, rule 13) ----
  // One GL1 per WGP: the CUs that hold the waves of one work-group share it (in WGP mode a
  // work-group's waves run on both CUs of its WGP). Work-groups on different WGPs get
  // different GL1s even where the hardware's shader array would share one: sharing only
  // narrows what a GL1 may hold (a store invalidates the line and blocks its fills until it
  // is performed), as separate CUs cover a shared one (rule 5 of the reductions). A line is
  // explicit, (valid, lo, hi), filled from the L2 and evicted by steps of their own; the L0s
  // of the WGP fill from it.
  int layout_gl1(const litmus::Test& test, int next) {
    gl1_ = p_.gl1;
    if (!gl1_) return next;
    const std::size_t locations = p_.locations.size(), cus = cus_.size();
    wgp_of_cu_ = workgroup_cu_groups();
    int wgps = 0;
    for (int w : wgp_of_cu_) wgps = std::max(wgps, w + 1);
    // Lines for the locations a load of the WGP reads through the GL1, and those its L0s hold.
    std::vector<std::vector<std::uint8_t>> used(static_cast<std::size_t>(wgps), std::vector<std::uint8_t>(locations));
    for (std::size_t c = 0; c < cus; ++c)
      for (std::size_t l = 0; l < locations; ++l)
        if (cus_[c].line[l] >= 0) used[static_cast<std::size_t>(wgp_of_cu_[c])][l] = 1;
    for (std::size_t t = 0; t < p_.threads.size() && !one_cu_misses_; ++t) {
      const detail::SimThread& th = p_.threads[t];
      const int wgp =
          wgp_of_cu_[static_cast<std::size_t>(waves_[static_cast<std::size_t>(placement_.wave_of_thread[t])].cu)];
      for (const SimInstruction& ins : th.code) {
        if (ins.op != SimOp::VectorLoad || ins.bypass_gl1) continue;
        const int loc = litmus_location(test, static_cast<int>(t), ins.litmus_instruction);
        if (loc >= 0) {
          used[static_cast<std::size_t>(wgp)][static_cast<std::size_t>(loc)] = 1;
        } else {  // unknown address: every location the thread names
          for (int l : th.non_glc_loads) used[static_cast<std::size_t>(wgp)][static_cast<std::size_t>(l)] = 1;
        }
      }
    }
    gl1_line_.assign(static_cast<std::size_t>(wgps), std::vector<int>(locations, -1));
    for (std::size_t g = 0; g < used.size(); ++g)
      for (std::size_t l = 0; l < locations; ++l)
        if (used[g][l]) {
          gl1_line_[g][l] = next;
          next += 3;
        }
    return next;
  }
  // Per CU, its group among the CUs joined by running waves of one work-group (the WGP of a
  // work-group in WGP mode, the CUs of a tgsplit work-group), numbered from 0.
  std::vector<int> workgroup_cu_groups() const {
    const std::size_t cus = cus_.size();
    std::vector<int> root(cus);
    for (std::size_t c = 0; c < cus; ++c) root[c] = static_cast<int>(c);
    auto find = [&](int c) {
      while (root[static_cast<std::size_t>(c)] != c) c = root[static_cast<std::size_t>(c)];
      return c;
    };
    for (const WaveLayout& a : waves_)
      for (const WaveLayout& b : waves_)
        if (a.workgroup == b.workgroup) root[static_cast<std::size_t>(find(a.cu))] = find(b.cu);
    std::vector<int> group(cus, -1), group_of_root(cus, -1);
    int groups = 0;
    for (std::size_t c = 0; c < cus; ++c) {
      int& g = group_of_root[static_cast<std::size_t>(find(static_cast<int>(c)))];
      if (g < 0) g = groups++;
      group[c] = g;
    }
    return group;
  }
  // The GL1 line of `loc` that CU `cu` reads through, or -1.
  int gl1_line(int cu, int loc) const {
    if (!gl1_ || loc < 0) return -1;
    return gl1_line_[static_cast<std::size_t>(wgp_of_cu_[static_cast<std::size_t>(cu)])][static_cast<std::size_t>(loc)];
  }
  // A GL1 line is not filled while a store or atomic of a CU of its WGP to the location is on
  // its way to the L2 (as rule 6 for the L1).
  bool wgp_store_in_flight(const Word* s, int wgp, int loc) const {
    for (std::size_t c = 0; c < cus_.size(); ++c)
      if (wgp_of_cu_[c] == wgp && store_in_flight(s, cus_[c], loc)) return true;
    return false;
  }
  // The value an L1 (L0) line of CU `cu` may take by a fill now: nothing while a store of the
  // CU to the location is on its way (rule 6); with a GL1, its line's value if valid (a fill
  // through an invalid GL1 line is a GL1 fill first); else the L2's value.
  std::optional<Value64> l1_fill_value(const Word* s, int cu, int loc) const {
    if (store_in_flight(s, cus_[static_cast<std::size_t>(cu)], loc)) return std::nullopt;
    if (!gl1_) return l2(s, cu, loc);
    const int line = gl1_line(cu, loc);
    if (line < 0 || !s[line]) return std::nullopt;
    return Value64{s[line + 1], s[line + 2]};
  }
  // A GL1 fill: the line takes the L2's value, which every L0 of the WGP that may fill now may take.
  void fill_gl1(Word* s, int wgp, int loc) const {
    const int line = gl1_line_[static_cast<std::size_t>(wgp)][static_cast<std::size_t>(loc)];
    s[line] = 1, s[line + 1] = s[memory_ + 2 * loc], s[line + 2] = s[memory_ + 2 * loc + 1];
    if (!lazy_lines_) return;
    for (std::size_t c = 0; c < cus_.size(); ++c) {
      const int l0 = cus_[c].line[static_cast<std::size_t>(loc)];
      if (wgp_of_cu_[c] == wgp && l0 >= 0 && !store_in_flight(s, cus_[c], loc))
        add_candidate_checked(s, l0, Value64{s[line + 1], s[line + 2]});
    }
  }
  // buffer_gl1_inv, global_inv of SCOPE_DEV or wider: every line of the CU's GL1.
  void invalidate_gl1(Word* s, int cu) const {
    const int wgp = wgp_of_cu_[static_cast<std::size_t>(cu)];
    for (int line : gl1_line_[static_cast<std::size_t>(wgp)])
      if (line >= 0) std::fill_n(s + line, 3, 0);
  }

  // buffer_wbl2 (write back dirty lines) or buffer_invl2 (invalidate clean lines) of an agent.
  void maintain_l2(Word* s, int cu, bool writeback) const {
    if (!l2_agents_) return;
    int agent = l2_of_cu_[static_cast<std::size_t>(cu)];
    for (std::size_t loc = 0; loc < p_.locations.size(); ++loc) {
      int line = agent_line_[static_cast<std::size_t>(agent)][loc];
      if (line < 0) continue;
      if (writeback) {
        writeback_l2(s, agent, static_cast<int>(loc));
      } else if (s[line] == 1) {
        std::fill_n(s + line, 3, 0);
        l2_changed(s, static_cast<int>(loc));
      }
    }
  }

  int lds_cell(int workgroup, int loc) const {
    return lds_ + 2 * (workgroup * group_count_ + p_.lds_slot[static_cast<std::size_t>(loc)]);
  }

  static void put(Word* s, int word, Value64 v) {
    s[word] = v.lo;
    s[word + 1] = v.hi;
  }

  const SimInstruction& instruction(int thread, int pc) const {
    return p_.threads[static_cast<std::size_t>(thread)].code[static_cast<std::size_t>(pc)];
  }
  const Code& code(int thread, int pc) const {
    return code_[static_cast<std::size_t>(thread)][static_cast<std::size_t>(pc)];
  }
  const Code& current(const Word* s, const WaveLayout& L) const {
    Word lane = s[L.header] & 0xff;
    return code(L.threads[lane], static_cast<int>(s[L.lane[lane]] & 0xffff));
  }
  const Code& code_of_entry(const WaveLayout& L, Word meta) const {
    return code(L.threads[entry_lane(meta)], static_cast<int>(entry_instruction(meta)));
  }

  // A request in a CU queue names its wave (low byte) and the index of its entry in the
  // wave's list of vector memory operations (above it).
  const WaveLayout& requester(Word request) const { return waves_[request & 0xff]; }
  int request_entry(Word request) const { return requester(request).vm + static_cast<int>(request >> 8) * kEntryWords; }
  // Whether the request writes memory (a store or an atomic).
  bool request_writes(const Word* s, Word request) const {
    return code_of_entry(requester(request), s[request_entry(request)]).op != SimOp::VectorLoad;
  }

  bool store_in_flight(const Word* s, const CuLayout& C, int loc) const {
    const Word* q = s + C.queue[static_cast<std::size_t>(channel(loc))];
    for (Word i = 0; i < q[0]; ++i) {
      Word r = q[1 + i];
      if (static_cast<int>(entry_location(s[request_entry(r)])) == loc && request_writes(s, r)) return true;
    }
    return false;
  }

  bool can_issue(const Word* s, const WaveLayout& L) const {
    Word header = s[L.header];
    if ((header & 0xff) >= L.threads.size()) return false;
    const Code& c = current(s, L);
    if (c.op == SimOp::Wait) {
      for (std::size_t k = 0; k < detail::kCounters; ++k)
        if (c.bounds[k] >= 0 && outstanding(s, L, k) > c.bounds[k]) return false;
    }
    if (c.op == SimOp::WritebackL2 && l2_agents_) {
      // The write-back must include the data of the wave's own earlier stores (the seed's
      // release is "buffer_wbl2; s_waitcnt vmcnt(0)" for stores before it): modelled as
      // issuing once none of the wave's requests waits in a channel queue. Requests of other
      // waves of the CU are not waited for (nothing documents that buffer_wbl2 is ordered
      // behind them), so the write-back gives no cumulativity of its own.
      const auto wave = static_cast<Word>(&L - waves_.data());
      const CuLayout& C = cus_[static_cast<std::size_t>(L.cu)];
      for (int ch = 0; ch < channels_; ++ch) {
        const Word* q = s + C.queue[static_cast<std::size_t>(ch)];
        for (Word i = 0; i < q[0]; ++i)
          if ((q[1 + i] & 0xff) == wave) return false;
      }
    }
    if (c.op == SimOp::Barrier && (header >> 8 & 0xff)) {
      // Leave only when every wave of the work-group has arrived at this barrier.
      for (const WaveLayout& o : waves_)
        if (o.workgroup == L.workgroup && s[o.header + 1] < s[L.header + 1]) return false;
    }
    return true;
  }

  // A step of a wave that touches nothing another wave, queue or cache can see (ALU that
  // does not touch a register an outstanding load of its lane will write, branches, a
  // satisfied wait, barrier arrival and departure, the end of a lane): it commutes with
  // every other enabled step and no step disables it, so exhaustive search takes it alone
  // (a persistent set of one step; docs/simulator.md).
  bool invisible(const Word* s, const WaveLayout& L) const {
    const Code& c = current(s, L);
    switch (c.op) {
      case SimOp::Nop:
      case SimOp::ScalarLoad:
      case SimOp::Branch:
      case SimOp::BranchVcc:
      case SimOp::Wait:
      case SimOp::Barrier:
      case SimOp::End: return true;
      case SimOp::Move:
      case SimOp::Add:
      case SimOp::Sub:
      case SimOp::Xor:
      case SimOp::And:
      case SimOp::Or:
      case SimOp::ShiftLeft:
      case SimOp::CompareEq:
      case SimOp::CompareNe:
      case SimOp::Select: return !touches_pending_result(s, L, c);
      case SimOp::WritebackL2: return !l2_agents_;
      case SimOp::Invalidate:  // L2 lines only: nothing to do with one L2
        return !l2_agents_ && !c.invalidate_l1 && !c.invalidate_gl1;
      default: return false;
    }
  }

  // ---- Rule 4: memory steps no other step conflicts with ----

  // What wave L may still do from its current instruction on, over its remaining lanes.
  Future future_of(const Word* s, const WaveLayout& L) const {
    Future f;
    const Word lane = s[L.header] & 0xff;
    for (Word l = lane; l < L.threads.size(); ++l) {
      const auto t = static_cast<std::size_t>(L.threads[l]);
      f |= future_[t][l == lane ? s[L.lane[l]] & 0xffff : 0];
    }
    return f;
  }

  // Whether a pending load or atomic of the current lane of wave L will write one of the
  // lane's VGPRs in `registers` (bits as in Future) when it completes.
  bool pending_writes(const Word* s, const WaveLayout& L, std::uint64_t registers) const {
    const Word lane = s[L.header] & 0xff;
    if (lane >= L.threads.size() || registers == 0) return false;
    const int base = vgpr_base_[static_cast<std::size_t>(L.threads[lane])];
    const Word sizes = s[L.header + 2];
    for (auto [first, count] : {std::pair{L.vm, sizes & 0xffff}, std::pair{L.lds, sizes >> 16}})
      for (Word i = 0; i < count; ++i) {
        const Word meta = s[first + static_cast<int>(i) * kEntryWords];
        if (entry_lane(meta) != lane) continue;
        const Code& e = code_of_entry(L, meta);
        if (e.dst < 0 || e.op == SimOp::VectorStore || e.op == SimOp::LdsStore) continue;
        if (register_bits(e.dst - base, e.width) & registers) return true;
      }
    return false;
  }

  // Whether a queued request, outside queue `skip_channel` of CU `skip_cu`, accesses `loc`
  // and it or the step asking (`write`) writes.
  bool queued_conflict(const Word* s, int loc, bool write, int skip_cu, int skip_channel) const {
    for (std::size_t c = 0; c < cus_.size(); ++c)
      for (std::size_t ch = 0; ch < cus_[c].queue.size(); ++ch) {
        if (static_cast<int>(c) == skip_cu && static_cast<int>(ch) == skip_channel) continue;
        const Word* q = s + cus_[c].queue[ch];
        for (Word i = 0; i < q[0]; ++i)
          if (static_cast<int>(entry_location(s[request_entry(q[1 + i])])) == loc &&
              (write || request_writes(s, q[1 + i])))
            return true;
      }
    return false;
  }

  // The issue of wave w's next instruction, with every hit choice of a load, is persistent:
  // (a) it reads no register a pending load of its lane will write; (b) a vector access
  // appends to its CU's queue of channel `channel(x)`, so no other wave of the CU may still
  // append there (the queue's order); (c) when it touches its CU's L1 line of x (a load
  // through the L1, a store or atomic where the line exists), the line's values and the
  // L2's value of x must not change meanwhile: no write to x queued anywhere or still to come
  // from another wave, and no other wave of the CU still to invalidate the L1. Waves of
  // other CUs touch neither the queue nor the line. An LDS access with LDS queues only
  // appends to its wave's list; without them it is performed at once on its work-group's
  // copy, which no other wave of the work-group may still access.
  bool issue_alone(const Word* s, int w) const {
    const WaveLayout& L = waves_[static_cast<std::size_t>(w)];
    const Word lane = s[L.header] & 0xff;
    const auto thread = static_cast<std::size_t>(L.threads[lane]);
    const Word pc = s[L.lane[lane]] & 0xffff;
    const Code& c = code(static_cast<int>(thread), static_cast<int>(pc));
    if (pending_writes(s, L, own_[thread][pc].reads)) return false;
    switch (c.op) {
      case SimOp::VectorLoad:
      case SimOp::VectorStore:
      case SimOp::VectorAtomic: {
        const int x = global_location(s, c);
        if (x < 0) return false;
        const bool line = cus_[static_cast<std::size_t>(L.cu)].line[static_cast<std::size_t>(x)] >= 0 &&
                          (c.op != SimOp::VectorLoad || !c.bypass_l1);
        // A load whose hits wait for the wave's own queued request: the drain enables them.
        if (line && c.op == SimOp::VectorLoad && own_request_queued(s, w, x)) return false;
        const std::uint64_t same_queue = opt_.hw.channel_per_location ? location_bit(x) : ~std::uint64_t{0};
        for (const WaveLayout& o : waves_) {
          if (&o == &L || (o.cu != L.cu && !line)) continue;
          const Future f = future_of(s, o);
          if (o.cu == L.cu && ((f.vm & same_queue) || (line && f.invalidates_l1))) return false;
          if (line && (f.vm_write & location_bit(x))) return false;
        }
        return !line || !queued_conflict(s, x, false, -1, -1);
      }
      case SimOp::LdsLoad:
      case SimOp::LdsStore:
      case SimOp::LdsAtomic:
        if (opt_.hw.lds_queues) return true;
        for (const WaveLayout& o : waves_)
          if (&o != &L && o.workgroup == L.workgroup && future_of(s, o).lds) return false;
        return true;
      case SimOp::Invalidate: {  // a CU without lines: nothing to invalidate
        const std::vector<int>& lines = cus_[static_cast<std::size_t>(L.cu)].line;
        return !l2_agents_ && !gl1_ && std::all_of(lines.begin(), lines.end(), [](int l) { return l < 0; });
      }
      default: return false;
    }
  }

  // Draining the head of queue `ch` of CU `cu` (an access to y) is persistent: (a) the
  // registers its completion (and the completions retired with it) writes are not read by
  // the owning lane's remaining code; (b) no request queued elsewhere, and no access still
  // to come from a wave of another CU, conflicts with it at y (requests of this CU's waves
  // join this queue behind it); (c) when it writes, no access still to come touches an L1
  // line of y that the write's new L2 value may enter (loads through the L1, stores and
  // atomics of this CU with a line of y, invalidations where a line of y exists).
  bool drain_alone(const Word* s, int cu, int ch) const {
    const Word* q = s + cus_[static_cast<std::size_t>(cu)].queue[static_cast<std::size_t>(ch)];
    const WaveLayout& owner = requester(q[1]);
    const int y = static_cast<int>(entry_location(s[request_entry(q[1])]));
    const bool write = request_writes(s, q[1]);
    if (pending_writes(s, owner, future_of(s, owner).reads)) return false;
    if (queued_conflict(s, y, write, cu, ch)) return false;
    const std::uint64_t at = location_bit(y);
    for (const WaveLayout& o : waves_) {
      const Future f = future_of(s, o);
      const bool line = cus_[static_cast<std::size_t>(o.cu)].line[static_cast<std::size_t>(y)] >= 0;
      if (o.cu == cu) {
        if (write && line && (((f.l1_read | f.vm_write) & at) || f.invalidates_l1)) return false;
      } else {
        if ((write ? f.vm : f.vm_write) & at) return false;
        if (write && line && f.invalidates_l1) return false;
      }
    }
    return true;
  }

  // Performing wave w's first unperformed LDS access (at x) is persistent: its completion's
  // registers are not read by the lane's remaining code, and no other wave of the
  // work-group has a conflicting access to x pending or still to come.
  bool lds_perform_alone(const Word* s, int w) const {
    const WaveLayout& L = waves_[static_cast<std::size_t>(w)];
    const Word count = s[L.header + 2] >> 16;
    int x = -1;
    bool write = false;
    for (Word i = 0; i < count && x < 0; ++i) {
      const Word meta = s[L.lds + static_cast<int>(i) * kEntryWords];
      if (meta & kPerformed) continue;
      x = static_cast<int>(entry_location(meta));
      write = code_of_entry(L, meta).op != SimOp::LdsLoad;
    }
    if (x < 0 || pending_writes(s, L, future_of(s, L).reads)) return false;
    for (const WaveLayout& o : waves_) {
      if (&o == &L || o.workgroup != L.workgroup) continue;
      const Future f = future_of(s, o);
      if ((write ? f.lds : f.lds_write) & location_bit(x)) return false;
      const Word pending = s[o.header + 2] >> 16;
      for (Word i = 0; i < pending; ++i) {
        const Word meta = s[o.lds + static_cast<int>(i) * kEntryWords];
        if (!(meta & kPerformed) && static_cast<int>(entry_location(meta)) == x &&
            (write || code_of_entry(o, meta).op != SimOp::LdsLoad))
          return false;
      }
    }
    return true;
  }

  bool touches_pending_result(const Word* s, const WaveLayout& L, const Code& c) const {
    if (c.vgprs[0] < 0) return false;
    Word lane = s[L.header] & 0xff;
    Word sizes = s[L.header + 2];
    for (auto [first, count] : {std::pair{L.vm, sizes & 0xffff}, std::pair{L.lds, sizes >> 16}})
      for (Word i = 0; i < count; ++i) {
        Word meta = s[first + static_cast<int>(i) * kEntryWords];
        if (entry_lane(meta) != lane) continue;
        const Code& e = code_of_entry(L, meta);
        if (e.dst < 0 || e.op == SimOp::VectorStore || e.op == SimOp::LdsStore) continue;
        for (std::int32_t r : c.vgprs)
          if (r >= e.dst && r < e.dst + e.width) return true;
      }
    return false;
  }

  // A counter as a wait sees it: the wave's outstanding operations that the target's counter
  // model counts in it (FLAT operations in the vector memory and the LDS counter, CDNA4 ISA
  // 4.4; GFX10 and later count loads and stores in different counters).
  int outstanding(const Word* s, const WaveLayout& L, std::size_t counter) const {
    Word sizes = s[L.header + 2];
    int n = 0;
    for (auto [first, count] : {std::pair{L.vm, sizes & 0xffff}, std::pair{L.lds, sizes >> 16}})
      for (Word i = 0; i < count; ++i)
        n += code_of_entry(L, s[first + static_cast<int>(i) * kEntryWords]).counters >> counter & 1;
    return n;
  }

  static Word read(const Word* s, const Operand& o) { return o.word >= 0 ? s[o.word] : o.imm; }

  // The location a vector memory instruction addresses, or -1.
  int global_location(const Word* s, const Code& c) const {
    std::uint64_t address = 0;
    switch (c.form) {
      case AddressForm::Global:
        address = std::uint64_t{read(s, c.base)} + read(s, c.offset) + static_cast<std::uint64_t>(c.imm_offset);
        break;
      case AddressForm::Flat:
      case AddressForm::Buffer: address = read(s, c.base) + static_cast<std::uint64_t>(c.imm_offset); break;
      case AddressForm::Lds: return -1;
    }
    if (address < detail::kGlobalBase || (address - detail::kGlobalBase) % detail::kLineBytes != 0) return -1;
    std::uint64_t index = (address - detail::kGlobalBase) / detail::kLineBytes;
    return index < p_.locations.size() && !p_.group[index] ? static_cast<int>(index) : -1;
  }

  int lds_location(const Word* s, const Code& c) const {
    std::uint64_t byte = read(s, c.base) + static_cast<std::uint64_t>(c.imm_offset);
    for (std::size_t loc = 0; loc < p_.locations.size(); ++loc)
      if (p_.lds_slot[loc] >= 0 && static_cast<std::uint64_t>(p_.lds_slot[loc]) * 8 == byte)
        return static_cast<int>(loc);
    return -1;
  }

  static Value64 gather(const Word* s, int first, int width) {
    if (first < 0) return {};
    return {s[first], width == 2 ? s[first + 1] : 0};
  }

  static std::uint64_t join(Value64 v) { return v.lo | (static_cast<std::uint64_t>(v.hi) << 32); }

  static Value64 atomic_result(int kind, Value64 old, Value64 data, Value64 compare, int width) {
    std::uint64_t o = join(old), d = join(data), n = 0;
    switch (static_cast<codegen::AtomicOp>(kind)) {
      case codegen::AtomicOp::Swap: n = d; break;
      case codegen::AtomicOp::Add: n = o + d; break;
      case codegen::AtomicOp::Sub: n = o - d; break;
      case codegen::AtomicOp::And: n = o & d; break;
      case codegen::AtomicOp::Or: n = o | d; break;
      case codegen::AtomicOp::Xor: n = o ^ d; break;
      case codegen::AtomicOp::Cas: n = o == join(compare) ? d : o; break;
    }
    if (width == 1) n &= 0xffffffffu;
    return split(static_cast<std::int64_t>(n));
  }

  // Appends the entry of an issued memory operation, with its operands read, to a list.
  // Returns its index in the list.
  int push_entry(Word* s, const WaveLayout& L, bool lds_list, const Code& c, Word lane, Word pc, int location,
                 int thread) const {
    if (location < 0)
      throw std::runtime_error(
          fmt::format("P{}: {} addresses no location", thread, text(instruction(thread, static_cast<int>(pc)))));
    Word& sizes = s[L.header + 2];
    int index = static_cast<int>(lds_list ? sizes >> 16 : sizes & 0xffff);
    if (index >= (lds_list ? L.lds_cap : L.vm_cap))
      throw std::runtime_error(fmt::format("P{}: more operations outstanding than the simulator has room for", thread));
    Word* e = s + (lds_list ? L.lds : L.vm) + index * kEntryWords;
    e[0] = pc | static_cast<Word>(location) << 16 | lane << 24;
    Value64 data = gather(s, c.data, c.width), compare = gather(s, c.compare, c.width);
    e[1] = data.lo, e[2] = data.hi, e[3] = compare.lo, e[4] = compare.hi;
    sizes += lds_list ? 0x10000 : 1;
    return index;
  }

  // A load, store or atomic performed on a memory cell (the L2's or the LDS's).
  static void perform(Word* e, const Code& c, Word* cell) {
    Value64 old{cell[0], cell[1]}, data{e[1], e[2]}, compare{e[3], e[4]}, result;
    switch (c.op) {
      case SimOp::VectorLoad:
      case SimOp::LdsLoad: result = old; break;
      case SimOp::VectorStore:
      case SimOp::LdsStore: put(cell, 0, data); break;
      case SimOp::VectorAtomic:
      case SimOp::LdsAtomic:
        result = old;
        put(cell, 0, atomic_result(c.atomic_kind, old, data, compare, c.width));
        break;
      default: break;
    }
    e[0] |= kPerformed;
    e[1] = result.lo, e[2] = result.hi, e[3] = 0, e[4] = 0;
  }

  void issue(Word* s, int wi, int choice) const {
    const WaveLayout& L = waves_[static_cast<std::size_t>(wi)];
    Word& header = s[L.header];
    Word lane = header & 0xff;
    int thread = L.threads[lane];
    Word& pc_word = s[L.lane[lane]];
    Word pc = pc_word & 0xffff;
    const Code& c = code(thread, static_cast<int>(pc));
    Word next = pc + 1;
    auto set_pc = [&](Word to) { pc_word = (pc_word & ~Word{0xffff}) | to; };
    switch (c.op) {
      case SimOp::Nop:
      case SimOp::Wait: break;
      case SimOp::Move:
        if (c.dst >= 0 && c.has_source) s[c.dst] = read(s, c.a);
        break;
      case SimOp::Add: s[c.dst] = read(s, c.a) + read(s, c.b); break;
      case SimOp::Sub: s[c.dst] = read(s, c.a) - read(s, c.b); break;
      case SimOp::Xor: s[c.dst] = read(s, c.a) ^ read(s, c.b); break;
      case SimOp::And: s[c.dst] = read(s, c.a) & read(s, c.b); break;
      case SimOp::Or: s[c.dst] = read(s, c.a) | read(s, c.b); break;
      case SimOp::ShiftLeft: s[c.dst] = read(s, c.b) << (read(s, c.a) & 31); break;
      case SimOp::CompareEq: header = (header & ~Word{0xff0000}) | Word{read(s, c.a) == read(s, c.b)} << 16; break;
      case SimOp::CompareNe: header = (header & ~Word{0xff0000}) | Word{read(s, c.a) != read(s, c.b)} << 16; break;
      case SimOp::Select: s[c.dst] = (header >> 16 & 0xff) ? 1 : 0; break;
      case SimOp::ScalarLoad: {
        // Kernel arguments: 8 bytes per location (16 for a buffer resource) holding its base.
        std::int64_t index = c.dst_count == 4 ? c.kernel_argument / 16 : c.kernel_argument / 8;
        s[c.dst] = detail::kGlobalBase + detail::kLineBytes * static_cast<Word>(index);
        for (int k = 1; k < c.dst_count; ++k) s[c.dst + k] = 0;
        break;
      }
      case SimOp::Branch: next = static_cast<Word>(c.target); break;
      case SimOp::BranchVcc:
        if (header >> 16 & 0xff) next = static_cast<Word>(c.target);
        break;
      case SimOp::Barrier:
        if (!(header >> 8 & 0xff)) {
          header |= Word{1} << 8;
          ++s[L.header + 1];
          next = pc;  // stay until the work-group has arrived
        } else {
          header &= ~Word{0xff00};
        }
        break;
      case SimOp::WritebackL2: maintain_l2(s, L.cu, true); break;
      case SimOp::Invalidate: {
        // The outer levels first, so that the L0 lines take what is left there (rule 8).
        if (c.invalidate_l2) maintain_l2(s, L.cu, false);
        if (c.invalidate_gl1) invalidate_gl1(s, L.cu);
        if (!c.invalidate_l1) break;
        const CuLayout& C = cus_[static_cast<std::size_t>(L.cu)];
        for (std::size_t loc = 0; loc < C.line.size(); ++loc) {
          if (C.line[loc] < 0) continue;
          if (lazy_lines_)
            settle(s, L.cu, static_cast<int>(loc), std::nullopt);
          else
            std::fill_n(s + C.line[loc], 3, 0);
        }
        break;
      }
      case SimOp::End:
        pc_word |= Word{1} << 16;
        ++header;  // the next lane
        return;
      case SimOp::LdsLoad:
      case SimOp::LdsStore:
      case SimOp::LdsAtomic: {
        const int loc = lds_location(s, c);
        check_static_location(thread, pc, loc);
        int index = push_entry(s, L, true, c, lane, pc, loc, thread);
        set_pc(next);
        if (!opt_.hw.lds_queues) {
          perform_lds(s, L, s + L.lds + index * kEntryWords);
          retire(s, wi);
        }
        return;
      }
      case SimOp::VectorLoad:
      case SimOp::VectorStore:
      case SimOp::VectorAtomic: {
        int loc = global_location(s, c);
        check_static_location(thread, pc, loc);
        int index = push_entry(s, L, false, c, lane, pc, loc, thread);
        Word* e = s + L.vm + index * kEntryWords;
        const CuLayout& C = cus_[static_cast<std::size_t>(L.cu)];
        int line = C.line[static_cast<std::size_t>(loc)];
        set_pc(next);
        if (c.op == SimOp::VectorLoad && !c.bypass_l1) {
          if (line < 0 && opt_.hw.l1_spontaneous_fill && !one_cu_misses_ &&
              fillable_[static_cast<std::size_t>(L.cu)][static_cast<std::size_t>(loc)])
            throw std::logic_error("the L1 line reduction missed a line that a load reads");
          if (line >= 0 && lazy_lines_) {
            if (choice == 0) {
              settle(s, L.cu, loc, std::nullopt);  // the line was invalid
            } else {
              Value64 v{s[line + 1 + 2 * (choice - 1)], s[line + 2 + 2 * (choice - 1)]};
              settle(s, L.cu, loc, v);
              e[0] |= kPerformed;
              e[1] = v.lo, e[2] = v.hi, e[3] = 0, e[4] = 0;
              retire(s, wi);
              return;
            }
          } else if (line >= 0 && s[line] && !own_request_queued(s, wi, loc)) {
            // A hit in the vector L1 returns the line's value (possibly stale: the L1 is not
            // coherent between CUs, AMDGPUUsage "Memory Model").
            e[0] |= kPerformed;
            e[1] = s[line + 1], e[2] = s[line + 2], e[3] = 0, e[4] = 0;
            retire(s, wi);
            return;
          }
        }
        if (c.op == SimOp::VectorLoad && !c.bypass_gl1) {
          // Past the L0 (a miss there, or bypassed), a valid GL1 line answers (rule 13), and
          // the L0 line, if the load reads through it, takes its value.
          const int g = gl1_line(L.cu, loc);
          if (g >= 0 && s[g] && !own_request_queued(s, wi, loc)) {
            const Value64 v{s[g + 1], s[g + 2]};
            if (!c.bypass_l1 && line >= 0) {
              if (lazy_lines_)
                settle(s, L.cu, loc, v);
              else
                s[line] = 1, s[line + 1] = v.lo, s[line + 2] = v.hi;
            }
            e[0] |= kPerformed;
            e[1] = v.lo, e[2] = v.hi, e[3] = 0, e[4] = 0;
            retire(s, wi);
            return;
          }
        }
        if (c.op != SimOp::VectorLoad)
          if (const int g = gl1_line(L.cu, loc); g >= 0) std::fill_n(s + g, 3, 0);  // write-through, invalidating
        if (line >= 0 && lazy_lines_ && c.op != SimOp::VectorLoad) {
          // A store updates a valid line (early visibility) or invalidates it; an atomic
          // invalidates it; either way no fill until it has reached the L2.
          bool valid = s[line] != 0;
          bool update = c.op == SimOp::VectorStore && opt_.hw.l1_store_visible_early && valid;
          set_candidates(s, line, update ? std::optional<Value64>(Value64{e[1], e[2]}) : std::nullopt);
        } else if (c.op == SimOp::VectorStore && line >= 0 && s[line]) {
          if (opt_.hw.l1_store_visible_early) {
            s[line + 1] = e[1], s[line + 2] = e[2];  // write-through
          } else {
            std::fill_n(s + line, 3, 0);
          }
        }
        if (c.op == SimOp::VectorAtomic && line >= 0 && !lazy_lines_)
          std::fill_n(s + line, 3, 0);  // performed in the L2
        Word* q = s + C.queue[static_cast<std::size_t>(channel(loc))];
        q[1 + q[0]] = static_cast<Word>(wi) | static_cast<Word>(index) << 8;
        ++q[0];
        return;
      }
    }
    set_pc(next);
  }

  int channel(int location) const { return opt_.hw.channel_per_location ? location : 0; }

  // Rule 4 reads the location of an access from its litmus instruction; the address the
  // code computes must agree.
  void check_static_location(int thread, Word pc, int loc) const {
    if (!independent_ || loc < 0) return;
    const int expected = static_location_[static_cast<std::size_t>(thread)][pc];
    if (expected >= 0 && expected != loc)
      throw std::logic_error(fmt::format("P{}: {} accesses another location than its litmus instruction names", thread,
                                         text(instruction(thread, static_cast<int>(pc)))));
  }

  void drain(Word* s, int c, int ch) const {
    Word* q = s + cus_[static_cast<std::size_t>(c)].queue[static_cast<std::size_t>(ch)];
    Word r = q[1];
    std::copy(q + 2, q + 1 + q[0], q + 1);
    q[q[0]] = 0;
    --q[0];
    const WaveLayout& L = requester(r);
    Word* e = s + request_entry(r);
    const Code& code = code_of_entry(L, e[0]);
    int loc = static_cast<int>(entry_location(e[0]));
    int cell = memory_ + 2 * loc;
    const int l2 = l2_agents_ ? l2_of_cu_[static_cast<std::size_t>(c)] : -1;
    const int line = l2 >= 0 ? agent_line_[static_cast<std::size_t>(l2)][static_cast<std::size_t>(loc)] : -1;
    if (line >= 0) {
      // Per-agent L2: the request is performed in the agent's line (filled from memory on a
      // miss; a store or atomic makes it dirty), a system-scope access at memory (after the
      // line is written back; the line is then invalid). Under `l2-per-xcd` every atomic, and
      // every load and store of agent or system scope, is performed at memory: they must be
      // coherent across the agent's L2s (rule 14).
      if (code.system_scope || (l2_per_xcd_ && (code.op == SimOp::VectorAtomic || code.agent_scope))) {
        // One step: the write-back, the invalidation and the access at memory (no fill sees the
        // line's old value in between).
        writeback_l2(s, l2, loc, false);
        std::fill_n(s + line, 3, 0);
      } else {
        if (s[line] == 0) s[line] = 1, s[line + 1] = s[cell], s[line + 2] = s[cell + 1];
        if (code.op != SimOp::VectorLoad) s[line] = 2;
        cell = line + 1;
      }
    }
    perform(e, code, s + cell);
    if (code.op != SimOp::VectorLoad) l2_changed(s, loc);  // every line that may be filled now may take it
    retire(s, static_cast<int>(r & 0xff));
  }

  void perform_lds(Word* s, const WaveLayout& L, Word* e) const {
    perform(e, code_of_entry(L, e[0]), s + lds_cell(L.workgroup, static_cast<int>(entry_location(e[0]))));
  }

  // Completion is reported in issue order within each counter (rule 3, CDNA4 ISA 4.4): a
  // performed entry writes its results and leaves once no entry before it that shares a
  // counter with it is still in the list. On GFX6-GFX9 every vector memory operation counts
  // in vmcnt, so the list leaves in issue order; from GFX10 loads and stores count in
  // different counters, and a load may leave before an earlier store (rule 4).
  void retire(Word* s, int wi) const {
    const WaveLayout& L = waves_[static_cast<std::size_t>(wi)];
    Word& sizes = s[L.header + 2];
    thread_local std::vector<int> new_index;  // per old entry: its index after, -1 when it left
    for (bool lds_list : {false, true}) {
      int count = static_cast<int>(lds_list ? sizes >> 16 : sizes & 0xffff);
      Word* list = s + (lds_list ? L.lds : L.vm);
      if (count == 0 || !(list[0] & kPerformed)) {
        // Nothing can leave when the head has not been performed and every entry shares its
        // counters (the only case before GFX10).
        const std::uint8_t head = count == 0 ? 0 : code_of_entry(L, list[0]).counters;
        bool all_behind = true;
        for (int k = 1; k < count && all_behind; ++k)
          all_behind = (code_of_entry(L, list[k * kEntryWords]).counters & head) != 0;
        if (all_behind) continue;
      }
      new_index.assign(static_cast<std::size_t>(count), -1);
      std::uint8_t blocked = 0;  // counters of entries still in the list
      int kept = 0;
      for (int k = 0; k < count; ++k) {
        Word* e = list + k * kEntryWords;
        const Code& c = code_of_entry(L, e[0]);
        if ((e[0] & kPerformed) && !(c.counters & blocked)) {
          if (c.dst >= 0 && c.op != SimOp::VectorStore && c.op != SimOp::LdsStore) {
            s[c.dst] = e[1];
            if (c.width == 2) s[c.dst + 1] = e[2];
          }
          continue;
        }
        blocked |= c.counters;
        if (kept != k) std::copy(e, e + kEntryWords, list + kept * kEntryWords);
        new_index[static_cast<std::size_t>(k)] = kept++;
      }
      const int left = count - kept;
      if (left == 0) continue;
      std::fill(list + kept * kEntryWords, list + count * kEntryWords, 0);
      sizes -= lds_list ? static_cast<Word>(left) << 16 : static_cast<Word>(left);
      if (lds_list) continue;
      // The CU's queues name vm entries by index (queued entries are not performed, so they
      // stay): those of this wave move down past the entries that left.
      for (int q : cus_[static_cast<std::size_t>(L.cu)].queue)
        for (Word i = 0; i < s[q]; ++i) {
          Word& r = s[q + 1 + static_cast<int>(i)];
          if ((r & 0xff) == static_cast<Word>(wi))
            r = (r & 0xff) | static_cast<Word>(new_index[static_cast<std::size_t>(r >> 8)]) << 8;
        }
    }
  }

  const SimProgram& p_;
  const Placement& placement_;
  const SimOptions& opt_;
  int channels_ = 1;
  int workgroups_ = 0, group_count_ = 0;
  std::vector<WaveLayout> waves_;
  std::vector<CuLayout> cus_;
  std::vector<int> lane_of_thread_;
  std::vector<std::vector<std::uint8_t>> fillable_;  // per CU and location, before the reduction
  bool l2_agents_ = false;                           // per-agent L2 (l2-per-agent, GFX90A/GFX94x)
  bool l2_per_xcd_ = false;                          // several L2s per agent (l2-per-xcd, GFX942)
  std::vector<int> l2_of_cu_;                        // with l2_agents_: the L2 of each CU
  int agents_ = 0;
  std::vector<std::vector<int>> agent_line_;  // per agent and location: first word of the L2 line, or -1
  bool lazy_lines_ = false;                   // L1 lines as sets of values (no fill or evict steps)
  bool one_cu_misses_ = false;                // rule 6: no L1 lines, every load through the L1 misses
  // Rule 4: per thread and instruction, what the thread may do from it on (one past the end:
  // nothing), what it does itself, and the location it names (-1: not known statically); per
  // thread, the state word of its VGPR 0.
  bool independent_ = false;
  bool gl1_ = false;                        // a GL1 per WGP (rule 13)
  std::vector<int> wgp_of_cu_;              // with a GL1: the WGP (GL1) of each CU
  std::vector<std::vector<int>> gl1_line_;  // per WGP and location: (valid, lo, hi), or -1
  std::vector<std::vector<Future>> future_, own_;
  std::vector<std::vector<int>> static_location_;
  std::vector<int> vgpr_base_;
  int candidates_cap_ = 1;  // room for values per lazy line
  std::vector<std::vector<Code>> code_;
  std::vector<int> observed_words_;
  int memory_ = 0, lds_ = 0;
  std::size_t words_ = 0;
  std::vector<Word> initial_;
};

// Why exhaustive search stopped before storing another state: the memory limit, or the
// indices a StateSet can give.
struct NoRoomForStates {
  std::string reason;
};

// The visited states of exhaustive search: states stored back to back in one arena (their
// index is the order of discovery, so reading the arena in order is breadth-first search),
// with an open-addressing table of indices. States are compared in full, not by hash.
class StateSet {
 public:
  // Empties the set for states of `words` words, keeping its memory (page faults are dear).
  // Storing a state throws NoRoomForStates where it would take the process's resident memory
  // past `memory_limit` bytes (0: no limit), counting `bytes_per_state_beside` bytes that
  // the caller keeps per state beside the set.
  void reset(std::size_t words, std::uint64_t memory_limit = 0, std::size_t bytes_per_state_beside = 0) {
    memory_limit_ = memory_limit;
    bytes_beside_ = bytes_per_state_beside;
    words_ = words;
    per_block_ = std::bit_floor(std::max<std::size_t>(1, kBlockWords / words));
    if (per_block_ * words_ > kBlockWords) blocks_.clear();  // a state larger than a block
    size_ = 0;
    // A table grown by a large search is not cleared for every small one after it.
    if (table_.size() != kInitialTable)
      table_.assign(kInitialTable, 0);
    else
      std::fill(table_.begin(), table_.end(), 0);
    hashes_.clear();
  }

  // Gives its memory back (after a search that stopped at the memory limit).
  void release() {
    std::vector<std::unique_ptr<Word[]>>().swap(blocks_);
    std::vector<std::uint32_t>().swap(table_);
    std::vector<std::uint64_t>().swap(hashes_);
    size_ = 0;
  }

  // The index of `s` in the set, and whether it was added now.
  std::pair<std::uint32_t, bool> insert(const Word* s) {
    if ((size_ + 1) * 2 > table_.size()) {
      make_room(table_.size() * 2 * sizeof(std::uint32_t));
      grow();
    }
    std::uint64_t h = hash(s);
    std::size_t mask = table_.size() - 1;
    std::size_t i = static_cast<std::size_t>(h) & mask;
    for (; table_[i] != 0; i = (i + 1) & mask) {
      std::uint32_t index = table_[i] - 1;
      if (hashes_[index] == h && std::equal(s, s + words_, state(index))) return {index, false};
    }
    if (size_ >= std::numeric_limits<std::uint32_t>::max() - 1)
      throw NoRoomForStates{fmt::format("more than {} states", size_)};
    if (size_ / per_block_ >= blocks_.size()) {
      const std::size_t block_words = std::max(kBlockWords, per_block_ * words_);
      make_room(block_words * sizeof(Word));
      blocks_.push_back(std::make_unique_for_overwrite<Word[]>(block_words));
    }
    if (hashes_.size() == hashes_.capacity())  // it, and the caller's lists beside, about to double
      make_room(std::max<std::size_t>(hashes_.capacity(), 1024) * (sizeof(std::uint64_t) + bytes_beside_));
    auto index = static_cast<std::uint32_t>(size_++);
    table_[i] = index + 1;
    std::copy(s, s + words_, slot(index));
    hashes_.push_back(h);
    return {index, true};
  }

  const Word* state(std::uint32_t index) const { return slot(index); }
  std::size_t size() const { return size_; }

 private:
  // Four independent chains of 64-bit mixes over the state, combined at the end: a single
  // chain waits on each multiplication in turn, and hashing is most of the time of insert.
  std::uint64_t hash(const Word* s) const {
    std::uint64_t h[4] = {0x9e3779b97f4a7c15ull ^ words_, 0xd1b54a32d192ed03ull, 0x8cb92ba72f3d8dd7ull,
                          0xa0761d6478bd642full};
    auto pair = [&](std::size_t i) { return s[i] | std::uint64_t{s[i + 1]} << 32; };
    std::size_t i = 0;
    for (; i + 8 <= words_; i += 8) {
      h[0] = mix(h[0] ^ pair(i));
      h[1] = mix(h[1] ^ pair(i + 2));
      h[2] = mix(h[2] ^ pair(i + 4));
      h[3] = mix(h[3] ^ pair(i + 6));
    }
    for (; i + 1 < words_; i += 2) h[0] = mix(h[0] ^ pair(i));
    if (i < words_) h[1] = mix(h[1] ^ s[i]);
    const std::uint64_t all =
        mix(mix(h[0] ^ (h[1] * 0x9e3779b97f4a7c15ull)) ^ mix(h[2] ^ (h[3] * 0xd1b54a32d192ed03ull)));
    return all ^ (all >> 29);
  }
  static std::uint64_t mix(std::uint64_t x) {
    Uint128 m = static_cast<Uint128>(x) * 0xbf58476d1ce4e5b9ull;
    return static_cast<std::uint64_t>(m) ^ static_cast<std::uint64_t>(m >> 64);
  }
  void grow() {
    std::vector<std::uint32_t> bigger(table_.size() * 2, 0);
    std::size_t mask = bigger.size() - 1;
    for (std::size_t index = 0; index < size_; ++index) {
      std::size_t i = static_cast<std::size_t>(hashes_[index]) & mask;
      while (bigger[i] != 0) i = (i + 1) & mask;
      bigger[i] = static_cast<std::uint32_t>(index + 1);
    }
    table_ = std::move(bigger);
  }

  // Throws NoRoomForStates where allocating `bytes` more would pass the memory limit. Only
  // allocations of a megabyte or more are checked, so that small searches read no /proc file.
  void make_room(std::size_t bytes) const {
    if (memory_limit_ > 0 && bytes >= (std::size_t{1} << 20) && support::over_memory_limit(memory_limit_, bytes))
      throw NoRoomForStates{support::memory_limit_reason(memory_limit_)};
  }

  Word* slot(std::uint32_t index) const {
    return blocks_[index / per_block_].get() + (index & (per_block_ - 1)) * words_;
  }

  static constexpr std::size_t kBlockWords = std::size_t{1} << 18;
  static constexpr std::size_t kInitialTable = std::size_t{1} << 12;
  std::size_t words_ = 1;
  std::size_t per_block_ = 1;  // states per block of the arena (a power of two)
  std::size_t size_ = 0;
  std::uint64_t memory_limit_ = 0;
  std::size_t bytes_beside_ = 0;
  std::vector<std::uint32_t> table_;  // index + 1, 0 = empty
  // Fixed-size blocks: growing never moves stored states.
  std::vector<std::unique_ptr<Word[]>> blocks_;
  std::vector<std::uint64_t> hashes_;
};

// wyrand: a small, fast generator; each random-mode run seeds its own from (seed, run), so
// runs do not depend on how they are split across threads.
class Rng {
 public:
  Rng(std::uint64_t seed, std::uint64_t run) : state_(seed * 0x9e3779b97f4a7c15ull + run * 0xd1b54a32d192ed03ull) {
    next();
  }
  std::uint64_t next() {
    state_ += 0xa0761d6478bd642full;
    Uint128 m = static_cast<Uint128>(state_) * (state_ ^ 0xe7037ed1a0b428dbull);
    return static_cast<std::uint64_t>(m) ^ static_cast<std::uint64_t>(m >> 64);
  }
  // Uniform in [0, n), n > 0.
  std::uint32_t below(std::uint32_t n) {
    return static_cast<std::uint32_t>((static_cast<std::uint64_t>(static_cast<std::uint32_t>(next())) * n) >> 32);
  }

 private:
  std::uint64_t state_;
};

// Outcomes of random runs counted without allocation per run: the few distinct outcomes are
// kept in a flat array and found by linear search.
class OutcomeCounter {
 public:
  explicit OutcomeCounter(std::size_t values) : values_(values) {}
  void add(const std::int64_t* o) {
    for (std::size_t i = 0; i < counts_.size(); ++i)
      if (std::equal(o, o + values_, keys_.data() + i * values_)) {
        ++counts_[i];
        return;
      }
    keys_.insert(keys_.end(), o, o + values_);
    counts_.push_back(1);
  }
  void merge_into(std::map<SimOutcome, std::uint64_t>& histogram) const {
    for (std::size_t i = 0; i < counts_.size(); ++i) {
      SimOutcome o;
      o.values.assign(keys_.begin() + static_cast<std::ptrdiff_t>(i * values_),
                      keys_.begin() + static_cast<std::ptrdiff_t>((i + 1) * values_));
      histogram[o] += counts_[i];
    }
  }

 private:
  std::size_t values_;
  std::vector<std::int64_t> keys_;
  std::vector<std::uint64_t> counts_;
};

constexpr const char* kDeadlock = "a wave waits forever (a barrier that part of its work-group never reaches)";

// Calls `each(placement)` for each placement exhaustive search explores, in the order of
// placements() for the program's work-group span, until it returns false: every one, or the
// first; with rule 5 of the reductions, where a shared CU adds nothing, only the finest (each
// work-group, or each part of one the span lets split, on a CU of its own). One at a time:
// they may number billions.
template <typename Each>
void for_each_explored_placement(const litmus::Test& test, const SimProgram& program, const SimOptions& options,
                                 Each each) {
  const bool separate = options.partial_order_reduction && options.separate_cus && options.explore_placements &&
                        shared_cu_adds_nothing(options.hw);
  PlacementCursor cursor(test, program.workgroup_span, separate);
  do {
    if (!each(cursor.current())) return;
  } while (options.explore_placements && cursor.next());
}

// Whether `holds(placement)` for every placement exhaustive search explores (stopping at the
// first that fails).
template <typename Holds>
bool every_explored_placement(const litmus::Test& test, const SimProgram& program, const SimOptions& options,
                              Holds holds) {
  bool all = true;
  for_each_explored_placement(test, program, options,
                              [&](const Placement& placement) { return all = holds(placement); });
  return all;
}

}  // namespace

LoweredProgram lower_program(const litmus::Test& test, const codegen::CompiledTest& compiled) {
  LoweredProgram lowered;
  lowered.program_ = std::make_shared<SimProgram>(detail::lower(test, compiled));
  return lowered;
}

void relower_thread(LoweredProgram& lowered, const litmus::Test& test, const codegen::CompiledTest& compiled,
                    int thread) {
  if (thread < 0 || !lowered.program_) throw std::logic_error("relower_thread: no such thread or program");
  // A program another LoweredProgram shares is copied first: theirs does not change.
  if (lowered.program_.use_count() > 1) lowered.program_ = std::make_shared<SimProgram>(*lowered.program_);
  try {
    if (!detail::relower_thread(*lowered.program_, test, compiled, static_cast<std::size_t>(thread)))
      lowered = lower_program(test, compiled);
  } catch (...) {
    lowered.program_.reset();  // its thread would still point into the code `compiled` replaced
    throw;
  }
}

bool keeps_program_order(const litmus::Test& test, const codegen::CompiledTest& compiled, const SimOptions& options) {
  try {
    return keeps_program_order(test, lower_program(test, compiled), options);
  } catch (const std::runtime_error&) {
    return false;
  }
}

bool keeps_program_order(const litmus::Test& test, const LoweredProgram& lowered, const SimOptions& options) {
  const HardwareAssumptions& hw = options.hw;
  const SimProgram& program = lowered.program();
  if (several_l2s(hw, program)) return false;  // rule 12: L2s that hold stale lines
  // The cheapest reading first: each thread's order on its own.
  for (std::size_t t = 0; t < program.threads.size(); ++t)
    if (!accesses_in_program_order(test, program, static_cast<int>(t), hw)) return false;
  // Registers hold what the litmus program computes only where the code waits for its loads
  // before using their registers (rule 2); that is also rule 6's condition for a CU's L1.
  if (std::any_of(program.threads.begin(), program.threads.end(), may_use_outstanding_result)) return false;
  const std::size_t threads = program.threads.size(), locations = program.locations.size();
  std::vector<std::vector<bool>> l1_read(threads), written(threads);
  for (std::size_t t = 0; t < threads; ++t) {
    l1_read[t] = vector_locations(test, program, static_cast<int>(t), true);
    written[t] = vector_locations(test, program, static_cast<int>(t), false);
  }
  return every_explored_placement(test, program, options, [&](const Placement& placement) {
    for (const std::vector<int>& lanes : placement.lanes_of_wave)
      if (lanes.size() > 1) return false;  // lanes of one wave share its counters
    // With one CU a load that hits its L1 reads what the miss would have read (rule 6). With
    // several, a hit is performed as it issues, ahead of the wave's queued requests, and it
    // reads the L2's value of that moment only where stores reach the L1 through the L2
    // (`l1-store-at-l2`: a store or atomic of the CU invalidates the line and no fill comes
    // before it is performed) and no wave of another CU writes the location. The miss would
    // have read the same value at its place in the FIFO: a write to the location ahead of it
    // there would have been issued before it, and would have kept the line invalid.
    if (placement.agent_of_cu.size() < 2) return true;
    auto cu_of = [&](std::size_t t) {
      return placement.cu_of_wave[static_cast<std::size_t>(placement.wave_of_thread[t])];
    };
    for (std::size_t t = 0; t < threads; ++t) {
      const bool reads = std::find(l1_read[t].begin(), l1_read[t].end(), true) != l1_read[t].end();
      if (reads && hw.l1_store_visible_early) return false;
      for (std::size_t u = 0; u < threads; ++u)
        if (cu_of(u) != cu_of(t))
          for (std::size_t loc = 0; loc < locations; ++loc)
            if (l1_read[t][loc] && written[u][loc]) return false;
    }
    return true;
  });
}

std::string format_outcome(const litmus::Test&, const SimResult& r, const SimOutcome& o) {
  std::string out;
  for (std::size_t i = 0; i < r.observed.size(); ++i)
    out += fmt::format("{}={}; ", r.observed[i].to_string(), o.values[i]);
  if (!out.empty()) out.pop_back();
  return out;
}

namespace {

// The exhaustive search of a lowered program (run_exhaustive).
SimResult search_exhaustive(const litmus::Test& test, const SimProgram& program, const SimOptions& options) {
  auto start = std::chrono::steady_clock::now();
  SimResult result;
  result.observed = test.observed();
  std::vector<Word> child;
  const bool pass_invisible = options.pass_invisible_steps && !options.keep_traces;
  Transitions next;
  // Kept per thread: verify-mapping runs hundreds of thousands of small searches, and a
  // fresh set's first block costs page faults every time.
  thread_local StateSet visited;
  // Per state, the state it was first reached from and by which step: traces are read back
  // from these, and breadth-first order makes them shortest.
  std::vector<std::uint32_t> parent;
  std::vector<Word> step;
  // Why the search stopped at the time limit or by a signal (null: it did not).
  auto out_of_time = [&]() -> std::optional<std::string> {
    if (support::interrupted()) return "interrupted";
    if (seconds_since(start) > options.timeout_seconds)
      return fmt::format("time limit of {} s", options.timeout_seconds);
    return std::nullopt;
  };
  bool out_of_room = false;  // the set is to give its memory back
  auto search_placement = [&](const Placement& placement) {
    // Checked before each placement too: a test may have billions of them, each searched fast.
    if ((result.unknown = out_of_time())) return false;
    Machine m(test, program, placement, options);
    next.reserve(m.max_transitions());
    visited.reset(m.words(), options.memory_limit, sizeof(std::uint32_t) + sizeof(Word));
    parent.clear();
    step.clear();
    std::vector<std::pair<SimOutcome, std::uint32_t>> found;  // outcomes first reached here
    try {
      visited.insert(m.initial().data());
      parent.push_back(0);
      step.push_back(0);
      for (std::uint32_t i = 0; i < visited.size(); ++i) {
        // Read in place: the arena's blocks never move.
        const Word* const current = visited.state(i);
        ++result.states;
        if (result.states > options.max_states) {
          result.unknown = fmt::format("more than {} states", options.max_states);
          break;
        }
        if ((result.states & 4095) == 0 && (result.unknown = out_of_time())) break;
        // Once every wave has ended and every request is performed, only cache steps remain:
        // they cannot change the outcome.
        if (m.final(current)) {
          SimOutcome o = m.outcome(current);
          if (result.histogram.emplace(o, 1).second && options.keep_traces) found.emplace_back(std::move(o), i);
          continue;
        }
        int invisible = m.enabled(current, next);
        if (!Machine::progress_possible(next)) {
          result.unknown = kDeadlock;
          break;
        }
        auto expand = [&](const Transition& t) {
          child.assign(current, current + m.words());
          m.apply(child.data(), t);
          if (pass_invisible) m.take_invisible_steps(child.data());
          if (visited.insert(child.data()).second) {
            parent.push_back(i);
            step.push_back(t.pack());
          }
        };
        if (invisible >= 0) {
          expand(next[static_cast<std::size_t>(invisible)]);
        } else if (auto [first, count] = m.persistent(current, next); count > 0) {
          for (std::size_t k = first; k < first + count; ++k) expand(next[k]);
        } else {
          for (const Transition& t : next) expand(t);
        }
      }
    } catch (const NoRoomForStates& e) {
      result.unknown = e.reason;
      out_of_room = true;
    }
    for (const auto& [o, last] : found) {
      std::vector<Transition> path;
      for (std::uint32_t s = last; s != 0; s = parent[s]) path.push_back(Transition::unpack(step[s]));
      std::vector<std::string>& trace = result.traces[o];
      child = m.initial();
      for (auto t = path.rbegin(); t != path.rend(); ++t) {
        trace.push_back(m.describe(child.data(), *t));
        m.apply(child.data(), *t);
      }
      result.trace_placement[o] = placement.describe();
    }
    return !result.unknown;
  };
  try {
    for_each_explored_placement(test, program, options, search_placement);
  } catch (const std::bad_alloc&) {
    // The system refused memory below the limit (another process holds it, or a ulimit).
    result.unknown = fmt::format("memory limit: the system refused more memory ({} states stored)", visited.size());
    out_of_room = true;
  }
  if (out_of_room) visited.release();
  result.seconds = seconds_since(start);
  return result;
}

}  // namespace

SimResult run_exhaustive(const litmus::Test& test, const codegen::CompiledTest& compiled, const SimOptions& options) {
  const SimProgram program = detail::lower(test, compiled);
  return search_exhaustive(test, program, options);
}

namespace {

// The key's fields in binary (support/binary_key.hpp); the instructions and operands as
// codegen::append_key writes them.
using support::append_raw;
using support::append_text;

// A thread's litmus registers and the VGPRs that hold them (a map or a list of pairs).
template <typename Registers>
void append_registers(std::string& key, const Registers& registers) {
  append_raw(key, registers.size());
  for (const auto& [name, reg] : registers) {
    append_text(key, name);
    append_raw(key, reg);
  }
}

void append_src(std::string& key, const detail::Src& s) {
  append_raw(key, s.file);
  append_raw(key, s.reg);
  append_raw(key, s.imm);
}

// A memory access of a thread run by a CU alone (walk_one_cu_thread): as its waits count it,
// with the VGPRs it writes when it completes and the litmus instruction it comes from.
struct OneCuAccess : CountedAccess {
  OneCuAccess(const SimInstruction& access, std::uint64_t writes)
      : CountedAccess(access),
        vector_memory(is_vector_memory(access.op)),
        writes(writes),
        litmus_instruction(access.litmus_instruction) {}
  bool vector_memory;
  std::uint64_t writes;
  int litmus_instruction;
};

// One thread's code as a CU alone runs it: `each(ins, earlier)` is called for every
// instruction but the waits, in order, with the thread's memory accesses before it and
// whether an `s_waitcnt` since has waited for each. False (and the walk stopped) where the
// thread is not such code: a branch, a barrier, a FLAT access, or an instruction that reads
// or writes a VGPR that an access of the thread not yet waited for will write (rule 2:
// registers hold what the litmus program computes only where no instruction touches a VGPR
// that an outstanding access will write).
template <typename Each>
bool walk_one_cu_thread(const detail::SimThread& th, Each each) {
  std::vector<OneCuAccess> accesses;
  for (const SimInstruction& ins : th.code) {
    if (ins.op == SimOp::Branch || ins.op == SimOp::BranchVcc || ins.op == SimOp::Barrier || ins.flat) return false;
    if (ins.op == SimOp::Wait) {
      for (OneCuAccess& a : accesses) a.pass(ins, -1, false);
      continue;
    }
    const std::uint64_t touched =
        future_of_instruction(ins, -1).reads |
        (scalar_destination(ins) ? 0 : register_bits(ins.dst, std::max(ins.width, ins.dst_count)));
    for (const OneCuAccess& a : accesses)
      if (!a.waited && (a.writes & touched)) return false;
    each(ins, std::span<const OneCuAccess>(accesses));
    if (!is_vector_memory(ins.op) && !is_lds(ins.op)) continue;
    const bool loads = ins.dst >= 0 && ins.op != SimOp::VectorStore && ins.op != SimOp::LdsStore;
    const OneCuAccess here(ins, loads ? register_bits(ins.dst, std::max(ins.width, ins.dst_count)) : 0);
    for (OneCuAccess& a : accesses) a.issued_after(here);
    accesses.push_back(here);
  }
  return true;
}

// Whether every placement exhaustive search explores puts every wave on one CU with one
// L2 (rule 12) and each wave runs one thread (lanes of one wave share its counters).
bool every_wave_on_one_cu(const litmus::Test& test, const SimProgram& program, const SimOptions& o) {
  if (several_l2s(o.hw, program)) return false;
  return every_explored_placement(test, program, o, [](const Placement& placement) {
    if (placement.agent_of_cu.size() != 1) return false;
    for (const std::vector<int>& lanes : placement.lanes_of_wave)
      if (lanes.size() > 1) return false;
    return true;
  });
}

// One thread of one_cu_key: its instructions but for what a CU alone cannot tell apart, and
// per memory access which earlier accesses an `s_waitcnt` before it waits for; false when
// the thread is not such code (walk_one_cu_thread).
// Fences of the litmus program are left out of its numbering: their effect is in the code.
bool append_one_cu_thread(std::string& key, const detail::SimThread& th, const std::vector<int>& numbering) {
  std::size_t kept = 0;
  const bool walked = walk_one_cu_thread(th, [&](const SimInstruction& ins, std::span<const OneCuAccess> earlier) {
    // Left out: L1 invalidations (the CU holds no line, rule 6), L2 maintenance (one L2),
    // and whether a load bypasses the L1 (every load misses).
    if (ins.op == SimOp::Invalidate || ins.op == SimOp::WritebackL2 || ins.op == SimOp::Nop) return;
    ++kept;
    append_raw(key, ins.op);
    append_raw(key, ins.dst);
    append_raw(key, ins.dst_count);
    append_src(key, ins.a);
    append_src(key, ins.b);
    append_raw(key, ins.form);
    append_src(key, ins.base);
    append_src(key, ins.offset);
    append_raw(key, ins.imm_offset);
    append_raw(key, ins.width);
    append_raw(key, ins.data);
    append_raw(key, ins.compare);
    append_raw(key, ins.atomic_kind);
    append_raw(key, ins.invalidate_l2);
    append_raw(key, ins.system_scope);
    append_raw(key, ins.agent_scope);
    const auto li = static_cast<std::size_t>(ins.litmus_instruction);
    append_raw(key, ins.litmus_instruction >= 0 && li < numbering.size() ? numbering[li] : ins.litmus_instruction);
    if (!is_vector_memory(ins.op) && !is_lds(ins.op)) return;
    for (const OneCuAccess& a : earlier) key += a.waited ? '1' : '0';
  });
  if (!walked) return false;
  append_raw(key, kept);
  return true;
}

// The code part of the search key where every explored placement puts all waves on one CU
// (docs/simulator.md, "Searches kept for a program met again"): there every load may be
// taken to miss (rule 6), so the L1 plays no part, and the machine reads of a wave's waits
// only which earlier accesses each access issues after the completion of (rule 3). Null
// where that does not hold: several CUs, per-agent L2s, lanes sharing a wave, the rules'
// reductions off, or code as append_one_cu_thread refuses.
std::optional<std::string> one_cu_key(const litmus::Test& test, const SimProgram& program, const SimOptions& o) {
  if (o.keep_traces || !o.partial_order_reduction || !o.one_cu_misses) return std::nullopt;
  if (!every_wave_on_one_cu(test, program, o)) return std::nullopt;
  std::string key = "one CU\n";
  for (std::size_t t = 0; t < program.threads.size(); ++t) {
    const detail::SimThread& th = program.threads[t];
    std::vector<int> numbering;
    int next = 0;
    for (const litmus::Instruction& li : test.threads[t].code)
      numbering.push_back(li.kind == litmus::OpKind::Fence ? -1 : next++);
    append_raw(key, th.vgprs);
    append_raw(key, th.sgprs);
    append_registers(key, th.registers);
    if (!append_one_cu_thread(key, th, numbering)) return std::nullopt;
  }
  append_raw(key, program.lds_slot.size());
  for (int slot : program.lds_slot) append_raw(key, slot);
  return key;
}

// The compiled code with the litmus instruction each instruction comes from (and, with
// traces, the table row) and where each thread finds its registers and locations.
void append_compiled_code(std::string& key, const codegen::CompiledTest& compiled, bool keep_traces) {
  for (const codegen::CompiledThread& t : compiled.threads) {
    append_raw(key, t.thread);
    append_raw(key, t.vgprs);
    append_raw(key, t.sgprs);
    append_registers(key, t.registers);
    append_raw(key, t.locations.size());
    for (const codegen::LocationBinding& b : t.locations) {
      append_text(key, b.name);
      append_raw(key, b.space);
      codegen::append_key(key, b.base);
      append_raw(key, b.kernarg_offset);
      append_raw(key, b.lds_offset);
    }
    // The row an instruction comes from is read only by traces.
    append_raw(key, t.code.size());
    for (const codegen::Instruction& ins : t.code)
      codegen::append_key(key, ins, keep_traces ? codegen::KeyOrigin::Row : codegen::KeyOrigin::Instruction);
  }
}

// simulation_key() of a program lowered (null: code that cannot be lowered). What an
// exhaustive search reads: the options, the compiled code with the litmus instruction each
// instruction comes from (and, for traces, the table row), or, on one CU, what one_cu_key
// keeps of it, and the test without its name, its metadata and the atomicity, order and
// scope of its instructions (and, on one CU, its fences).
std::string key_of(const litmus::Test& test, const codegen::CompiledTest& compiled, const SimProgram* program,
                   const SimOptions& o) {
  const HardwareAssumptions& hw = o.hw;
  std::string key = fmt::format("{}{}{}{}{}{} {} {} {}{}{}{}{}{} {} {} {}\n", hw.lds_queues, hw.channel_per_location,
                                hw.l1_store_visible_early, hw.l1_spontaneous_fill, hw.l2_per_agent, hw.l2_per_xcd,
                                o.max_states, o.timeout_seconds, o.keep_traces, o.explore_placements,
                                o.partial_order_reduction, o.independent_steps, o.pass_invisible_steps, o.one_cu_misses,
                                compiled.target, compiled.flavour, compiled.generic);
  const std::optional<std::string> one_cu = program ? one_cu_key(test, *program, o) : std::nullopt;
  if (one_cu)
    key += *one_cu;
  else
    append_compiled_code(key, compiled, o.keep_traces);
  litmus::Test bare = test;
  bare.name.clear();
  bare.description.clear();
  bare.metadata.clear();
  for (litmus::Thread& thread : bare.threads) {
    if (one_cu)
      std::erase_if(thread.code, [](const litmus::Instruction& i) { return i.kind == litmus::OpKind::Fence; });
    for (litmus::Instruction& ins : thread.code) {
      ins.annots.atomic = false;
      ins.annots.order = litmus::MemoryOrder::Relaxed;
      ins.annots.scope = litmus::Scope::WorkItem;
    }
  }
  return key + litmus::print_litmus(bare);
}

}  // namespace

std::string simulation_key(const litmus::Test& test, const codegen::CompiledTest& compiled, const SimOptions& options) {
  std::optional<SimProgram> program;
  try {
    program = detail::lower(test, compiled);
  } catch (const std::runtime_error&) {
    // Keyed by its code: the search says why it cannot lower it.
  }
  return key_of(test, compiled, program ? &*program : nullptr, options);
}

bool thread_keeps_program_order(const litmus::Test& test, const LoweredProgram& lowered, int thread,
                                const std::vector<bool>& written_on_other_cus, const SimOptions& options) {
  const HardwareAssumptions& hw = options.hw;
  const SimProgram& program = lowered.program();
  if (thread < 0 || static_cast<std::size_t>(thread) >= program.threads.size()) return false;
  if (written_on_other_cus.size() != program.locations.size()) return false;
  if (several_l2s(hw, program)) return false;  // rule 12
  if (!accesses_in_program_order(test, program, thread, hw)) return false;
  if (may_use_outstanding_result(program.threads[static_cast<std::size_t>(thread)])) return false;  // rule 2
  const std::vector<bool> l1_read = vector_locations(test, program, thread, true);
  const bool reads = std::find(l1_read.begin(), l1_read.end(), true) != l1_read.end();
  return every_explored_placement(test, program, options, [&](const Placement& placement) {
    for (const std::vector<int>& lanes : placement.lanes_of_wave)
      if (lanes.size() > 1) return false;
    // As keeps_program_order reads a load through the L1 where there are several CUs. A load
    // through the GL1 alone (GFX10 `glc`) reads as one through the L0 does: a valid GL1 line
    // holds the L2's value where no wave of another CU writes the location (rule 13: a store
    // of either CU of the WGP invalidates it as it issues, and no fill comes before the store
    // is performed), and it is performed as it issues, ahead of the wave's queued requests.
    if (placement.agent_of_cu.size() < 2 || !reads) return true;
    if (hw.l1_store_visible_early) return false;
    for (std::size_t loc = 0; loc < l1_read.size(); ++loc)
      if (l1_read[loc] && written_on_other_cus[loc]) return false;
    return true;
  });
}

bool may_split_workgroups(const LoweredProgram& lowered) {
  return lowered.program().workgroup_span != WorkgroupSpan::OneCu;
}

std::optional<std::vector<UnorderedPair>> one_cu_unordered_pairs(const litmus::Test& test,
                                                                 const LoweredProgram& lowered, int thread,
                                                                 const SimOptions& options) {
  const SimProgram& program = lowered.program();
  if (thread < 0 || static_cast<std::size_t>(thread) >= program.threads.size()) return std::nullopt;
  if (!every_wave_on_one_cu(test, program, options)) return std::nullopt;
  std::vector<UnorderedPair> pairs;
  bool named = true;  // every access names the litmus instruction it comes from
  const bool walked = walk_one_cu_thread(program.threads[static_cast<std::size_t>(thread)],
                                         [&](const SimInstruction& ins, std::span<const OneCuAccess> earlier) {
                                           if (!is_vector_memory(ins.op) && !is_lds(ins.op)) return;
                                           named = named && ins.litmus_instruction >= 0;
                                           // Without LDS queues an LDS operation is performed
                                           // as it issues (rule 10), before what follows.
                                           if (!is_vector_memory(ins.op) || !options.hw.lds_queues) return;
                                           for (const OneCuAccess& a : earlier)
                                             if (!a.vector_memory && !a.waited)
                                               pairs.push_back({a.litmus_instruction, ins.litmus_instruction});
                                         });
  if (!walked || !named) return std::nullopt;
  return pairs;
}

std::optional<std::vector<UnorderedPair>> several_cus_unordered_pairs(const litmus::Test& test,
                                                                      const LoweredProgram& lowered, int thread,
                                                                      const SimOptions& options,
                                                                      const OtherWriters& others) {
  const SimProgram& program = lowered.program();
  const HardwareAssumptions& hw = options.hw;
  if (thread < 0 || static_cast<std::size_t>(thread) >= program.threads.size()) return std::nullopt;
  for (const std::vector<bool>* told : {&others.on_other_cus, &others.in_other_workgroups})
    if (!told->empty() && told->size() != program.locations.size()) return std::nullopt;
  // One L2 (rule 12), and stores that reach the L1s through the L2 (rule 7): every write is
  // performed at one copy, and a cache line holds what the L2 held when it was filled.
  if (several_l2s(hw, program) || hw.l1_store_visible_early) return std::nullopt;
  const bool one_thread_per_wave = every_explored_placement(test, program, options, [](const Placement& placement) {
    for (const std::vector<int>& lanes : placement.lanes_of_wave)
      if (lanes.size() > 1) return false;
    return true;
  });
  if (!one_thread_per_wave) return std::nullopt;
  // Whether a line of the L1 (L0), or of the GL1, may hold a value older than the L2's: where
  // a wave of another CU, or of another work-group (on another WGP, with a GL1 of its own),
  // may write the location. A write of a CU invalidates its own L1 line, and a write of either
  // CU of a WGP its GL1 line, as it issues, and neither is filled while the write is queued
  // (rules 6, 7 and 13): a line that only such writes change holds the L2's value of the moment.
  auto told = [](const std::vector<bool>& locations, int loc) {
    return locations.empty() || loc < 0 || locations[static_cast<std::size_t>(loc)];
  };
  auto stale_gl1 = [&](int loc) { return told(others.in_other_workgroups, loc); };
  auto stale_l1 = [&](int loc) { return told(others.on_other_cus, loc) || stale_gl1(loc); };
  std::vector<UnorderedPair> pairs;
  std::vector<int> accessed;    // per earlier access: the location it accesses with vector memory, else -1 (LDS)
  std::vector<int> written;     // per earlier access: the location it writes with vector memory, else -1
  std::vector<bool> clean_l1;   // per earlier access: an L1 invalidation issued since it was waited for
  std::vector<bool> clean_gl1;  // the same for the GL1
  bool named = true;            // every access names the litmus instruction it comes from
  // An access's path: -1 the LDS, else its L2 channel.
  auto path = [&](int vector_location) {
    return vector_location < 0 ? -1 : hw.channel_per_location ? vector_location : 0;
  };
  const bool walked =
      walk_one_cu_thread(program.threads[static_cast<std::size_t>(thread)],
                         [&](const SimInstruction& ins, std::span<const OneCuAccess> earlier) {
                           if (ins.op == SimOp::Invalidate) {
                             for (std::size_t i = 0; i < earlier.size(); ++i) {
                               clean_l1[i] = clean_l1[i] || (ins.invalidate_l1 && earlier[i].waited);
                               clean_gl1[i] = clean_gl1[i] || (ins.invalidate_gl1 && earlier[i].waited);
                             }
                             return;
                           }
                           if (!is_vector_memory(ins.op) && !is_lds(ins.op)) return;
                           named = named && ins.litmus_instruction >= 0;
                           const int loc = litmus_location(test, program, thread, ins.litmus_instruction);
                           const bool vector = is_vector_memory(ins.op);
                           if (vector && loc < 0) named = false;  // a location (channel) not known from the code
                           const int here = path(vector ? loc : -1);
                           // A load that may hit its L1 (L0) or GL1 takes a value as it issues, ahead of its wave's
                           // queued requests: so it may be performed before an earlier access not yet waited for.
                           // Where the line may hold an older value than the L2's (stale_l1, stale_gl1), it takes
                           // the value the line took when it was filled, which may be before any earlier access of
                           // the thread unless that level was invalidated once that access had completed (rules 6,
                           // 8 and 13; an L1 fills from the GL1, so both levels for a load through the L1). Not
                           // before an earlier write of its wave to the same location: the write invalidates the
                           // L1 and GL1 lines as it issues, no line is filled while it is queued, and the load does
                           // not hit while its wave's request to the location is queued, so it reads the write or a
                           // later one (rules 6, 7 and 13). Nor before an earlier read of the location where the
                           // line holds the L2's value of the moment: it does not hit while that read is queued.
                           const bool through_l1 = ins.op == SimOp::VectorLoad && !ins.bypass_l1;
                           const bool through_gl1 = ins.op == SimOp::VectorLoad && !ins.bypass_gl1;
                           const bool cached_load = through_l1 || through_gl1;
                           const bool old_l1 = through_l1 && stale_l1(loc);
                           const bool old_gl1 = through_gl1 && stale_gl1(loc);
                           for (std::size_t i = 0; i < earlier.size(); ++i) {
                             const OneCuAccess& a = earlier[i];
                             const bool same = written[i] == loc || (accessed[i] == loc && !old_l1 && !old_gl1);
                             const bool early = cached_load && !same &&
                                                (!a.waited || (old_l1 && !clean_l1[i]) || (old_gl1 && !clean_gl1[i]));
                             if ((path(accessed[i]) != here && !a.waited) || early)
                               pairs.push_back({a.litmus_instruction, ins.litmus_instruction});
                           }
                           accessed.push_back(vector ? loc : -1);
                           written.push_back(vector && ins.op != SimOp::VectorLoad ? loc : -1);
                           clean_l1.push_back(false);
                           clean_gl1.push_back(false);
                         });
  if (!walked || !named) return std::nullopt;
  return pairs;
}

std::shared_ptr<const SimResult> run_exhaustive(const litmus::Test& test, const codegen::CompiledTest& compiled,
                                                const SimOptions& options, SimulationMemo& memo) {
  return run_exhaustive(test, compiled, lower_program(test, compiled), options, memo);
}

std::shared_ptr<const SimResult> run_exhaustive(const litmus::Test& test, const codegen::CompiledTest& compiled,
                                                const LoweredProgram& lowered, const SimOptions& options,
                                                SimulationMemo& memo) {
  const SimProgram& program = lowered.program();
  const std::string key = key_of(test, compiled, &program, options);
  if (std::shared_ptr<const SimResult> kept = memo.find(key)) return kept;
  auto result = std::make_shared<const SimResult>(search_exhaustive(test, program, options));
  if (!result->unknown) memo.keep(key, result);
  return result;
}

namespace {

// Random mode builds a machine per placement up front where there are at most this many.
constexpr std::uint64_t kPlacementsBuiltAtOnce = 4096;
// Runs between two readings of the clock: a run takes a microsecond or so.
constexpr std::uint64_t kRunsBetweenChecks = 1024;

// The first run of share `j` of `jobs` (j = jobs: one past the last run), without
// overflowing for any number of iterations.
std::uint64_t splits(std::uint64_t iterations, std::uint64_t j, std::uint64_t jobs) {
  return static_cast<std::uint64_t>(static_cast<Uint128>(iterations) * j / jobs);
}

}  // namespace

SimResult run_random(const litmus::Test& test, const codegen::CompiledTest& compiled, std::uint64_t iterations,
                     std::uint64_t seed, const SimOptions& options) {
  auto start = std::chrono::steady_clock::now();
  SimProgram program = detail::lower(test, compiled);
  SimResult result;
  result.observed = test.observed();
  // A machine per placement, built once, where they are few; otherwise each run draws a
  // placement of its own (PlacementCursor::draw) and builds its machine.
  PlacementCursor cursor(test, program.workgroup_span);
  std::vector<Machine> machines;
  if (cursor.count() <= kPlacementsBuiltAtOnce) {
    do machines.emplace_back(test, program, cursor.current(), options, false);  // random runs draw L1 hits too
    while (cursor.next());
  }
  std::size_t words = 0, transitions = 0;
  for (const Machine& m : machines) {
    words = std::max(words, m.words());
    transitions = std::max(transitions, m.max_transitions());
  }
  const std::size_t values = result.observed.size();
  const auto placement_count = static_cast<std::uint32_t>(machines.size());
  // The time limit, checked every kRunsBetweenChecks runs by each thread; a thread past it
  // stops the others.
  const auto deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(std::min(options.timeout_seconds, 1e9)));
  std::atomic<bool> stop{false};

  struct Worker {
    std::uint64_t runs = 0;
    bool deadlock = false;
    std::string error;
  };
  // Runs [first, last): each run seeds its generator from (seed, run index), so the
  // histogram does not depend on the number of threads.
  auto work = [&](std::uint64_t first, std::uint64_t last, Worker& worker, OutcomeCounter& counter) {
    std::vector<Word> state(words);
    Transitions next;
    next.reserve(transitions);
    std::vector<std::int64_t> outcome(values);
    std::optional<Machine> drawn;
    try {
      for (std::uint64_t run = first; run < last; ++run) {
        if ((run - first) % kRunsBetweenChecks == 0 &&
            (stop.load(std::memory_order_relaxed) || support::interrupted() ||
             std::chrono::steady_clock::now() > deadline)) {
          stop = true;
          return;
        }
        Rng rng(seed, run);
        if (machines.empty()) {
          drawn.emplace(test, program, cursor.draw([&](std::uint32_t n) { return rng.below(n); }), options, false);
          state.resize(drawn->words());
          next.reserve(drawn->max_transitions());
        }
        const Machine& m = machines.empty() ? *drawn : machines[rng.below(placement_count)];
        // Each run draws weights for the kinds of step, as stress does on real GPUs: some runs
        // drain queues slowly, some evict and refill caches often (weights in halves).
        std::uint32_t w_issue = 2 + 2 * rng.below(8), w_drain = 2 + 2 * rng.below(8), w_lds = 2 + 2 * rng.below(8),
                      w_cache = rng.below(3);
        std::copy(m.initial().begin(), m.initial().end(), state.begin());
        Word* s = state.data();
        for (;;) {
          if (m.final(s)) break;
          int invisible = m.enabled(s, next, false);
          if (!Machine::progress_possible(next)) break;
          if (invisible >= 0) {
            m.apply(s, next[static_cast<std::size_t>(invisible)]);
            continue;
          }
          std::uint32_t total = 0;
          auto weight = [&](const Transition& t) {
            switch (t.step) {
              case Step::Issue: return w_issue;
              case Step::Drain: return w_drain;
              case Step::LdsPerform: return w_lds;
              case Step::Evict:
              case Step::Fill:
              case Step::L2Fill:
              case Step::L2Evict:
              case Step::Gl1Fill:
              case Step::Gl1Evict: return w_cache;
              case Step::L2Writeback: return w_drain;
            }
            return w_issue;
          };
          for (const Transition& t : next) total += weight(t);
          std::size_t chosen = 0;
          if (total == 0) {
            chosen = rng.below(static_cast<std::uint32_t>(next.size()));
          } else {
            std::uint32_t pick = rng.below(total);
            for (; chosen + 1 < next.size() && pick >= weight(next[chosen]); ++chosen) pick -= weight(next[chosen]);
          }
          Transition t = next[chosen];
          // A load that may hit its L1: the cache weight decides how often lines were
          // filled (hits: never, 1/2, 2/3 of the time), then one of the values uniformly.
          if (t.step == Step::Issue && w_cache > 0)
            if (Word hits = m.hit_choices(s, t.a); hits > 0 && rng.below(w_cache + 1) > 0)
              t.b = static_cast<std::uint8_t>(1 + rng.below(hits));
          m.apply(s, t);
        }
        if (!m.final(s)) {
          worker.deadlock = true;
          return;
        }
        m.outcome(s, outcome.data());
        counter.add(outcome.data());
        ++worker.runs;
      }
    } catch (const std::exception& e) {
      worker.error = e.what();
    }
  };
  // Shares of the runs, no more than the runs and support::max_jobs(); threads the system
  // refuses to start leave their shares to the others.
  const std::uint64_t jobs = support::worker_count(options.jobs, iterations);
  std::vector<Worker> workers(jobs);
  std::vector<OutcomeCounter> counters(jobs, OutcomeCounter(values));
  support::parallel_for_each(jobs, static_cast<int>(jobs), [&](std::size_t j) {
    work(splits(iterations, j, jobs), splits(iterations, j + 1, jobs), workers[j], counters[j]);
  });
  for (std::uint64_t j = 0; j < jobs; ++j) {
    if (!workers[j].error.empty()) throw std::runtime_error(workers[j].error);
    counters[j].merge_into(result.histogram);
    result.iterations += workers[j].runs;
    if (workers[j].deadlock) result.unknown = kDeadlock;
  }
  if (stop && !result.unknown) {
    const std::string why =
        support::interrupted() ? "interrupted" : fmt::format("time limit of {} s", options.timeout_seconds);
    result.unknown = fmt::format("{}: {} of {} iterations ran", why, result.iterations, iterations);
  }
  result.seconds = seconds_since(start);
  return result;
}

}  // namespace hsalit::runner
