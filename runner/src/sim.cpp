// The operational model of the GCN memory hierarchy (docs/simulator.md states each rule
// with the sentence of the seed it implements).
#include "hsalit/runner/sim.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <random>
#include <stdexcept>
#include <unordered_set>

#include "sim_program.hpp"

namespace hsalit::runner {

using detail::AddressForm;
using detail::RegFile;
using detail::SimInstruction;
using detail::SimOp;
using detail::SimProgram;
using detail::Src;

std::string Placement::describe() const {
  std::string out;
  for (std::size_t t = 0; t < wave_of_thread.size(); ++t) {
    int w = wave_of_thread[t];
    int g = workgroup_of_wave[static_cast<std::size_t>(w)];
    int cu = cu_of_workgroup[static_cast<std::size_t>(g)];
    out += fmt::format("{}P{}: wave {} wg {} cu {} agent {}", t ? "; " : "", t, w, g, cu,
                       agent_of_cu[static_cast<std::size_t>(cu)]);
  }
  for (const std::vector<int>& lanes : lanes_of_wave)
    if (lanes.size() > 1) out += fmt::format("; lanes run P{}", fmt::join(lanes, " then P"));
  return out;
}

namespace {

// Every way to put `n` items into groups (restricted growth strings).
void set_partitions(int n, std::vector<int>& current, int blocks, std::vector<std::vector<int>>& out) {
  if (static_cast<int>(current.size()) == n) {
    out.push_back(current);
    return;
  }
  for (int b = 0; b <= blocks; ++b) {
    current.push_back(b);
    set_partitions(n, current, std::max(blocks, b + 1), out);
    current.pop_back();
  }
}

}  // namespace

std::vector<Placement> placements(const litmus::Test& test) {
  const litmus::ScopeTree& tree = test.scopes;
  const int n = static_cast<int>(test.threads.size());
  Placement base;
  std::map<std::uint32_t, int> waves, wgs, agents;
  std::vector<int> wg_agent;
  for (int t = 0; t < n; ++t) {
    std::uint32_t wv = tree.instance(t, litmus::Scope::Wavefront);
    std::uint32_t wg = tree.instance(t, litmus::Scope::WorkGroup);
    std::uint32_t ag = tree.instance(t, litmus::Scope::Agent);
    auto w = waves.emplace(wv, static_cast<int>(waves.size())).first->second;
    base.wave_of_thread.push_back(w);
    auto g = wgs.emplace(wg, static_cast<int>(wgs.size()));
    if (g.second) wg_agent.push_back(agents.emplace(ag, static_cast<int>(agents.size())).first->second);
    if (static_cast<int>(base.workgroup_of_wave.size()) <= w) base.workgroup_of_wave.push_back(g.first->second);
  }
  // Work-groups of each agent on the same or different CUs, in every way.
  std::vector<Placement> out = {base};
  for (int agent = 0; agent < static_cast<int>(agents.size()); ++agent) {
    std::vector<int> members;
    for (int g = 0; g < static_cast<int>(wg_agent.size()); ++g)
      if (wg_agent[static_cast<std::size_t>(g)] == agent) members.push_back(g);
    std::vector<std::vector<int>> partitions;
    std::vector<int> current;
    set_partitions(static_cast<int>(members.size()), current, 0, partitions);
    std::vector<Placement> next;
    for (const Placement& p : out)
      for (const std::vector<int>& part : partitions) {
        Placement q = p;
        int first_cu = static_cast<int>(q.agent_of_cu.size());
        int blocks = *std::max_element(part.begin(), part.end()) + 1;
        for (int b = 0; b < blocks; ++b) q.agent_of_cu.push_back(agent);
        q.cu_of_workgroup.resize(wg_agent.size(), -1);
        for (std::size_t i = 0; i < members.size(); ++i)
          q.cu_of_workgroup[static_cast<std::size_t>(members[i])] = first_cu + part[i];
        next.push_back(std::move(q));
      }
    out = std::move(next);
  }
  // Lanes of a wave run one after another, in an order the compiler chooses: every order.
  const int wave_count = static_cast<int>(base.workgroup_of_wave.size());
  for (int w = 0; w < wave_count; ++w) {
    std::vector<int> lanes;
    for (int t = 0; t < n; ++t)
      if (base.wave_of_thread[static_cast<std::size_t>(t)] == w) lanes.push_back(t);
    std::vector<Placement> next;
    for (const Placement& p : out) {
      std::vector<int> order = lanes;
      do {
        Placement q = p;
        q.lanes_of_wave.push_back(order);
        next.push_back(std::move(q));
      } while (std::next_permutation(order.begin(), order.end()));
    }
    out = std::move(next);
  }
  return out;
}

namespace {

// ---- machine state --------------------------------------------------------------------------

struct Value64 {
  std::uint32_t lo = 0, hi = 0;
  friend bool operator==(const Value64&, const Value64&) = default;
};

// An operation a wave has issued and not yet seen complete (counted by vmcnt or lgkmcnt).
struct Pending {
  std::uint16_t seq = 0;
  std::uint8_t lane = 0;
  std::uint8_t performed = 0;
  std::int16_t instruction = 0;  // index in the lane's program
  std::int16_t location = -1;
  Value64 data, compare, result;
};

struct Lane {
  std::uint16_t pc = 0;
  std::uint8_t done = 0;
  std::vector<std::uint32_t> v;
};

struct Wave {
  std::uint8_t lane = 0;  // the lane executing (lanes of one wave run one after another)
  std::uint8_t at_barrier = 0;
  std::uint16_t barriers = 0;  // barriers this wave has arrived at
  std::uint8_t vcc = 0;
  std::uint16_t next_seq = 0;
  std::vector<std::uint32_t> s;
  std::vector<Lane> lanes;
  std::vector<Pending> vm;   // vector memory, in issue order
  std::vector<Pending> lds;  // LDS, in issue order
};

struct Request {
  std::uint8_t wave = 0;
  std::uint16_t seq = 0;
};

struct Cu {
  std::vector<std::uint8_t> valid;           // per location: L1 line valid
  std::vector<Value64> line;                 // per location
  std::vector<std::vector<Request>> queues;  // per channel, FIFO to the L2
};

struct State {
  std::vector<Wave> waves;
  std::vector<Cu> cus;
  std::vector<Value64> memory;  // per global location (the L2, the point of coherence)
  std::vector<Value64> lds;     // per (work-group, group location)
};

// Serialises a state for the visited set (every field that affects the future).
class StateKey {
 public:
  void put(std::uint32_t v) { bytes_.append(reinterpret_cast<const char*>(&v), sizeof v); }
  void put(const Value64& v) {
    put(v.lo);
    put(v.hi);
  }
  std::string take() { return std::move(bytes_); }

 private:
  std::string bytes_;
};

std::string key_of(const State& s) {
  StateKey k;
  for (const Wave& w : s.waves) {
    k.put(static_cast<std::uint32_t>(w.lane) | (static_cast<std::uint32_t>(w.at_barrier) << 8) |
          (static_cast<std::uint32_t>(w.vcc) << 16));
    k.put(w.barriers);
    for (const Lane& l : w.lanes) {
      k.put(l.pc | (static_cast<std::uint32_t>(l.done) << 16));
      for (std::uint32_t r : l.v) k.put(r);
    }
    for (std::uint32_t r : w.s) k.put(r);
    for (const auto* list : {&w.vm, &w.lds}) {
      k.put(static_cast<std::uint32_t>(list->size()));
      for (const Pending& p : *list) {
        // Sequence numbers only name entries; their relative order is what matters.
        k.put(static_cast<std::uint32_t>(p.lane) | (static_cast<std::uint32_t>(p.performed) << 8) |
              (static_cast<std::uint32_t>(static_cast<std::uint16_t>(p.instruction)) << 16));
        k.put(static_cast<std::uint32_t>(p.location));
        k.put(p.data);
        k.put(p.compare);
        k.put(p.result);
      }
    }
  }
  for (const Cu& c : s.cus) {
    for (std::size_t i = 0; i < c.valid.size(); ++i) {
      k.put(c.valid[i]);
      if (c.valid[i]) k.put(c.line[i]);
    }
    for (const auto& q : c.queues) {
      k.put(static_cast<std::uint32_t>(q.size()));
      for (const Request& r : q) {
        const Wave& w = s.waves[r.wave];
        std::uint32_t index = 0;
        for (; index < w.vm.size() && w.vm[index].seq != r.seq; ++index) {
        }
        k.put(r.wave | (index << 8));
      }
    }
  }
  for (const Value64& v : s.memory) k.put(v);
  for (const Value64& v : s.lds) k.put(v);
  return k.take();
}

// ---- transitions -----------------------------------------------------------------------------

enum class Step : std::uint8_t { Issue, Drain, LdsPerform, Evict, Fill };

struct Transition {
  Step step = Step::Issue;
  int a = 0, b = 0;  // Issue, LdsPerform: wave; Drain: cu, channel; Evict, Fill: cu, location
};

class Machine {
 public:
  Machine(const litmus::Test& test, const SimProgram& program, const Placement& placement, const SimOptions& options)
      : test_(test), p_(program), placement_(placement), opt_(options) {
    const std::size_t locations = p_.locations.size();
    channels_ = opt_.hw.channel_per_location ? static_cast<int>(locations) : 1;
    int wave_count = 0;
    for (int w : placement.wave_of_thread) wave_count = std::max(wave_count, w + 1);
    lanes_of_wave_.resize(static_cast<std::size_t>(wave_count));
    if (placement.lanes_of_wave.size() == lanes_of_wave_.size()) {
      lanes_of_wave_ = placement.lanes_of_wave;
    } else {
      for (std::size_t t = 0; t < placement.wave_of_thread.size(); ++t)
        lanes_of_wave_[static_cast<std::size_t>(placement.wave_of_thread[t])].push_back(static_cast<int>(t));
    }
    workgroups_ = static_cast<int>(placement.cu_of_workgroup.size());
    group_count_ = 0;
    for (int slot : p_.lds_slot) group_count_ = std::max(group_count_, slot + 1);
    // Lines each CU may fill spontaneously: what its waves read.
    fillable_.assign(placement.agent_of_cu.size(), std::vector<std::uint8_t>(locations, 0));
    for (std::size_t t = 0; t < p_.threads.size(); ++t)
      for (int loc : p_.threads[t].non_glc_loads)
        fillable_[static_cast<std::size_t>(cu_of_wave(placement.wave_of_thread[t]))][static_cast<std::size_t>(loc)] = 1;
  }

  State initial() const {
    State s;
    for (std::size_t w = 0; w < lanes_of_wave_.size(); ++w) {
      Wave wave;
      int sgprs = 0;
      for (int t : lanes_of_wave_[w]) {
        Lane lane;
        lane.v.assign(static_cast<std::size_t>(p_.threads[static_cast<std::size_t>(t)].vgprs), 0);
        sgprs = std::max(sgprs, p_.threads[static_cast<std::size_t>(t)].sgprs);
        wave.lanes.push_back(std::move(lane));
      }
      wave.s.assign(static_cast<std::size_t>(sgprs), 0);
      s.waves.push_back(std::move(wave));
    }
    for (std::size_t c = 0; c < placement_.agent_of_cu.size(); ++c) {
      Cu cu;
      cu.valid.assign(p_.locations.size(), 0);
      cu.line.assign(p_.locations.size(), {});
      cu.queues.resize(static_cast<std::size_t>(channels_));
      s.cus.push_back(std::move(cu));
    }
    for (std::int64_t v : p_.initial) s.memory.push_back(split(v));
    s.lds.resize(static_cast<std::size_t>(workgroups_ * std::max(group_count_, 1)));
    for (int g = 0; g < workgroups_; ++g)
      for (std::size_t l = 0; l < p_.locations.size(); ++l)
        if (p_.lds_slot[l] >= 0)
          s.lds[static_cast<std::size_t>(g * group_count_ + p_.lds_slot[l])] = split(p_.initial[l]);
    return s;
  }

  static Value64 split(std::int64_t v) {
    auto u = static_cast<std::uint64_t>(v);
    return {static_cast<std::uint32_t>(u), static_cast<std::uint32_t>(u >> 32)};
  }

  bool final(const State& s) const {
    for (const Wave& w : s.waves)
      if (w.lane < w.lanes.size() || !w.vm.empty() || !w.lds.empty()) return false;
    return true;
  }

  // Transitions enabled in `s`.
  void enabled(const State& s, std::vector<Transition>& out) const {
    out.clear();
    for (std::size_t w = 0; w < s.waves.size(); ++w) {
      if (can_issue(s, static_cast<int>(w))) out.push_back({Step::Issue, static_cast<int>(w), 0});
      if (opt_.hw.lds_queues)
        for (const Pending& p : s.waves[w].lds)
          if (!p.performed) {
            out.push_back({Step::LdsPerform, static_cast<int>(w), 0});
            break;
          }
    }
    for (std::size_t c = 0; c < s.cus.size(); ++c) {
      const Cu& cu = s.cus[c];
      for (std::size_t ch = 0; ch < cu.queues.size(); ++ch)
        if (!cu.queues[ch].empty()) out.push_back({Step::Drain, static_cast<int>(c), static_cast<int>(ch)});
      if (!opt_.hw.l1_spontaneous_fill) continue;
      for (std::size_t l = 0; l < cu.valid.size(); ++l) {
        if (cu.valid[l])
          out.push_back({Step::Evict, static_cast<int>(c), static_cast<int>(l)});
        else if (fillable_[c][l] && !store_in_flight(s, static_cast<int>(c), static_cast<int>(l)))
          out.push_back({Step::Fill, static_cast<int>(c), static_cast<int>(l)});
      }
    }
  }

  std::string describe(const State& s, const Transition& t) const {
    switch (t.step) {
      case Step::Issue: {
        const Wave& w = s.waves[static_cast<std::size_t>(t.a)];
        int thread = lanes_of_wave_[static_cast<std::size_t>(t.a)][w.lane];
        const SimInstruction& ins = instruction(thread, w.lanes[w.lane].pc);
        std::string where = ins.row.empty() ? "" : fmt::format("   [{}]", ins.row);
        if (ins.op == SimOp::Barrier && w.at_barrier) return fmt::format("P{} leaves the barrier", thread);
        return fmt::format("P{} issues {}{}", thread, ins.text, where);
      }
      case Step::Drain: {
        const Request& r = s.cus[static_cast<std::size_t>(t.a)].queues[static_cast<std::size_t>(t.b)].front();
        const Pending& p = find(s.waves[r.wave].vm, r.seq);
        int thread = lanes_of_wave_[r.wave][p.lane];
        return fmt::format("L2 performs P{}'s {} (CU {} queue of channel {})", thread,
                           instruction(thread, p.instruction).text, t.a, t.b);
      }
      case Step::LdsPerform: {
        const Wave& w = s.waves[static_cast<std::size_t>(t.a)];
        for (const Pending& p : w.lds)
          if (!p.performed) {
            int thread = lanes_of_wave_[static_cast<std::size_t>(t.a)][p.lane];
            return fmt::format("LDS performs P{}'s {}", thread, instruction(thread, p.instruction).text);
          }
        return "LDS performs";
      }
      case Step::Evict:
        return fmt::format("CU {} L1 evicts the line of {}", t.a, p_.locations[static_cast<std::size_t>(t.b)]);
      case Step::Fill:
        return fmt::format("CU {} L1 fills the line of {} from L2 (value {})", t.a,
                           p_.locations[static_cast<std::size_t>(t.b)],
                           static_cast<std::int32_t>(s.memory[static_cast<std::size_t>(t.b)].lo));
    }
    return "?";
  }

  void apply(State& s, const Transition& t) const {
    switch (t.step) {
      case Step::Issue: issue(s, t.a); break;
      case Step::Drain: drain(s, t.a, t.b); break;
      case Step::LdsPerform: {
        Wave& w = s.waves[static_cast<std::size_t>(t.a)];
        for (Pending& p : w.lds)
          if (!p.performed) {
            perform_lds(s, t.a, p);
            break;
          }
        retire(s, t.a);
        break;
      }
      case Step::Evict: s.cus[static_cast<std::size_t>(t.a)].valid[static_cast<std::size_t>(t.b)] = 0; break;
      case Step::Fill: {
        Cu& cu = s.cus[static_cast<std::size_t>(t.a)];
        cu.valid[static_cast<std::size_t>(t.b)] = 1;
        cu.line[static_cast<std::size_t>(t.b)] = s.memory[static_cast<std::size_t>(t.b)];
        break;
      }
    }
  }

  SimOutcome outcome(const State& s, const std::vector<litmus::ObservedRef>& refs) const {
    SimOutcome o;
    for (const litmus::ObservedRef& r : refs) {
      if (r.thread) {
        int t = *r.thread;
        int w = placement_.wave_of_thread[static_cast<std::size_t>(t)];
        const auto& lanes = lanes_of_wave_[static_cast<std::size_t>(w)];
        std::size_t lane = static_cast<std::size_t>(std::find(lanes.begin(), lanes.end(), t) - lanes.begin());
        const Lane& l = s.waves[static_cast<std::size_t>(w)].lanes[lane];
        std::int64_t value = 0;
        for (const auto& [name, vgpr] : p_.threads[static_cast<std::size_t>(t)].registers)
          if (name == r.name) value = static_cast<std::int32_t>(l.v[static_cast<std::size_t>(vgpr)]);
        o.values.push_back(value);
        continue;
      }
      auto it = std::find(p_.locations.begin(), p_.locations.end(), r.name);
      std::size_t loc = static_cast<std::size_t>(it - p_.locations.begin());
      if (it == p_.locations.end()) {
        o.values.push_back(0);
      } else if (p_.lds_slot[loc] >= 0) {
        int wg = observed_workgroup(static_cast<int>(loc));
        o.values.push_back(
            static_cast<std::int32_t>(s.lds[static_cast<std::size_t>(wg * group_count_ + p_.lds_slot[loc])].lo));
      } else {
        o.values.push_back(static_cast<std::int32_t>(s.memory[loc].lo));
      }
    }
    return o;
  }

  // A step of a wave that touches nothing another wave, queue or cache can see (ALU,
  // branches, a satisfied wait): it commutes with every other step and stays enabled, so
  // exhaustive search takes it alone (a partial-order reduction; docs/simulator.md).
  bool invisible(const State& s, const Transition& t) const {
    if (t.step != Step::Issue) return false;
    const Wave& w = s.waves[static_cast<std::size_t>(t.a)];
    int thread = lanes_of_wave_[static_cast<std::size_t>(t.a)][w.lane];
    switch (instruction(thread, w.lanes[w.lane].pc).op) {
      case SimOp::Nop:
      case SimOp::Move:
      case SimOp::Add:
      case SimOp::Sub:
      case SimOp::Xor:
      case SimOp::And:
      case SimOp::Or:
      case SimOp::ShiftLeft:
      case SimOp::CompareEq:
      case SimOp::CompareNe:
      case SimOp::Select:
      case SimOp::ScalarLoad:
      case SimOp::Branch:
      case SimOp::BranchVcc:
      case SimOp::Wait: return true;
      default: return false;
    }
  }

  // Whether some enabled step moves a wave or a request on; cache steps alone never end a
  // run (a barrier some member of the work-group never reaches).
  static bool progress_possible(const std::vector<Transition>& next) {
    return std::any_of(next.begin(), next.end(), [](const Transition& t) {
      return t.step == Step::Issue || t.step == Step::Drain || t.step == Step::LdsPerform;
    });
  }

 private:
  int cu_of_wave(int w) const {
    return placement_
        .cu_of_workgroup[static_cast<std::size_t>(placement_.workgroup_of_wave[static_cast<std::size_t>(w)])];
  }
  int workgroup_of_wave(int w) const { return placement_.workgroup_of_wave[static_cast<std::size_t>(w)]; }

  // The copy of a group location a condition reads: that of the lowest thread touching it.
  int observed_workgroup(int loc) const {
    for (std::size_t t = 0; t < test_.threads.size(); ++t)
      for (const litmus::Instruction& ins : test_.threads[t].code)
        if (ins.is_memory_access() && ins.addr.base.is_location() &&
            ins.addr.base.name == p_.locations[static_cast<std::size_t>(loc)])
          return workgroup_of_wave(placement_.wave_of_thread[t]);
    return 0;
  }

  const SimInstruction& instruction(int thread, int pc) const {
    return p_.threads[static_cast<std::size_t>(thread)].code[static_cast<std::size_t>(pc)];
  }

  static const Pending& find(const std::vector<Pending>& list, std::uint16_t seq) {
    for (const Pending& p : list)
      if (p.seq == seq) return p;
    throw std::logic_error("request without its pending entry");
  }
  static Pending& find(std::vector<Pending>& list, std::uint16_t seq) {
    for (Pending& p : list)
      if (p.seq == seq) return p;
    throw std::logic_error("request without its pending entry");
  }

  bool store_in_flight(const State& s, int cu, int loc) const {
    for (const auto& q : s.cus[static_cast<std::size_t>(cu)].queues)
      for (const Request& r : q) {
        const Pending& p = find(s.waves[r.wave].vm, r.seq);
        const SimInstruction& ins = instruction(lanes_of_wave_[r.wave][p.lane], p.instruction);
        if (p.location == loc && ins.op != SimOp::VectorLoad) return true;
      }
    return false;
  }

  bool can_issue(const State& s, int wi) const {
    const Wave& w = s.waves[static_cast<std::size_t>(wi)];
    if (w.lane >= w.lanes.size()) return false;
    int thread = lanes_of_wave_[static_cast<std::size_t>(wi)][w.lane];
    const SimInstruction& ins = instruction(thread, w.lanes[w.lane].pc);
    if (ins.op == SimOp::Wait) {
      auto [vm, lgkm] = wait_counts(s, wi);
      if (ins.vmcnt >= 0 && vm > ins.vmcnt) return false;
      if (ins.lgkmcnt >= 0 && lgkm > ins.lgkmcnt) return false;
    }
    if (ins.op == SimOp::Barrier && w.at_barrier) {
      // Leave only when every wave of the work-group has arrived at this barrier.
      for (std::size_t o = 0; o < s.waves.size(); ++o)
        if (workgroup_of_wave(static_cast<int>(o)) == workgroup_of_wave(wi) && s.waves[o].barriers < w.barriers)
          return false;
    }
    return true;
  }

  // Counters as s_waitcnt sees them: FLAT operations count in both (CDNA4 ISA 4.4).
  std::pair<int, int> wait_counts(const State& s, int wi) const {
    const Wave& w = s.waves[static_cast<std::size_t>(wi)];
    int vm = static_cast<int>(w.vm.size()), lgkm = static_cast<int>(w.lds.size());
    for (const Pending& p : w.vm)
      if (instruction(lanes_of_wave_[static_cast<std::size_t>(wi)][p.lane], p.instruction).flat) ++lgkm;
    return {vm, lgkm};
  }

  std::uint32_t read(const Wave& w, const Lane& l, const Src& src) const {
    switch (src.file) {
      case RegFile::Vgpr: return l.v[static_cast<std::size_t>(src.reg)];
      case RegFile::Sgpr: return w.s[static_cast<std::size_t>(src.reg)];
      case RegFile::Imm: return static_cast<std::uint32_t>(src.imm);
      case RegFile::None: return 0;
    }
    return 0;
  }

  // The location a vector memory instruction addresses, or -1.
  int global_location(const Wave& w, const Lane& l, const SimInstruction& ins) const {
    std::uint64_t address = 0;
    switch (ins.form) {
      case AddressForm::Global:
        address = read(w, l, ins.base) + read(w, l, ins.offset) + static_cast<std::uint64_t>(ins.imm_offset);
        break;
      case AddressForm::Flat: address = read(w, l, ins.base) + static_cast<std::uint64_t>(ins.imm_offset); break;
      case AddressForm::Buffer: address = read(w, l, ins.base) + static_cast<std::uint64_t>(ins.imm_offset); break;
      case AddressForm::Lds: return -1;
    }
    if (address < detail::kGlobalBase || (address - detail::kGlobalBase) % detail::kLineBytes != 0) return -1;
    std::uint64_t index = (address - detail::kGlobalBase) / detail::kLineBytes;
    return index < p_.locations.size() && !p_.group[index] ? static_cast<int>(index) : -1;
  }

  int lds_location(const Wave& w, const Lane& l, const SimInstruction& ins) const {
    std::uint64_t byte = read(w, l, ins.base) + static_cast<std::uint64_t>(ins.imm_offset);
    for (std::size_t loc = 0; loc < p_.locations.size(); ++loc)
      if (p_.lds_slot[loc] >= 0 && static_cast<std::uint64_t>(p_.lds_slot[loc]) * 8 == byte)
        return static_cast<int>(loc);
    return -1;
  }

  Value64 gather(const Lane& l, int first, int width) const {
    if (first < 0) return {};
    Value64 v{l.v[static_cast<std::size_t>(first)], 0};
    if (width == 2) v.hi = l.v[static_cast<std::size_t>(first) + 1];
    return v;
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

  // The entry an issued memory operation leaves in its wave's list, with its operands read.
  Pending pending(Wave& w, const Lane& l, const SimInstruction& ins, int location, int thread) const {
    if (location < 0) throw std::runtime_error(fmt::format("P{}: {} addresses no location", thread, ins.text));
    Pending p;
    p.seq = w.next_seq++;
    p.lane = w.lane;
    p.instruction = static_cast<std::int16_t>(l.pc);
    p.location = static_cast<std::int16_t>(location);
    p.data = gather(l, ins.data, ins.width);
    p.compare = gather(l, ins.compare, ins.width);
    return p;
  }

  // A load, store or atomic performed on a memory cell (the L2's or the LDS's).
  static void perform(Pending& p, const SimInstruction& ins, Value64& cell) {
    switch (ins.op) {
      case SimOp::VectorLoad:
      case SimOp::LdsLoad: p.result = cell; break;
      case SimOp::VectorStore:
      case SimOp::LdsStore: cell = p.data; break;
      case SimOp::VectorAtomic:
      case SimOp::LdsAtomic:
        p.result = cell;
        cell = atomic_result(ins.atomic_kind, cell, p.data, p.compare, ins.width);
        break;
      default: break;
    }
    p.performed = 1;
  }

  void issue(State& s, int wi) const {
    Wave& w = s.waves[static_cast<std::size_t>(wi)];
    Lane& l = w.lanes[w.lane];
    int thread = lanes_of_wave_[static_cast<std::size_t>(wi)][w.lane];
    const SimInstruction& ins = instruction(thread, l.pc);
    int next = l.pc + 1;
    auto write = [&](int reg, std::uint32_t v) { l.v[static_cast<std::size_t>(reg)] = v; };
    switch (ins.op) {
      case SimOp::Nop:
      case SimOp::Wait: break;
      case SimOp::Move:
        if (ins.dst >= 0 && ins.a.file != RegFile::None) {
          // v_mov_b32 writes a VGPR; s_mov_b32 an SGPR.
          if (ins.text.rfind("s_", 0) == 0)
            w.s[static_cast<std::size_t>(ins.dst)] = read(w, l, ins.a);
          else
            write(ins.dst, read(w, l, ins.a));
        }
        break;
      case SimOp::Add: write(ins.dst, read(w, l, ins.a) + read(w, l, ins.b)); break;
      case SimOp::Sub: write(ins.dst, read(w, l, ins.a) - read(w, l, ins.b)); break;
      case SimOp::Xor: write(ins.dst, read(w, l, ins.a) ^ read(w, l, ins.b)); break;
      case SimOp::And: write(ins.dst, read(w, l, ins.a) & read(w, l, ins.b)); break;
      case SimOp::Or: write(ins.dst, read(w, l, ins.a) | read(w, l, ins.b)); break;
      case SimOp::ShiftLeft: write(ins.dst, read(w, l, ins.b) << (read(w, l, ins.a) & 31)); break;
      case SimOp::CompareEq: w.vcc = read(w, l, ins.a) == read(w, l, ins.b); break;
      case SimOp::CompareNe: w.vcc = read(w, l, ins.a) != read(w, l, ins.b); break;
      case SimOp::Select: write(ins.dst, w.vcc ? 1 : 0); break;
      case SimOp::ScalarLoad: {
        // Kernel arguments: 8 bytes per location (16 for a buffer resource) holding its base.
        std::int64_t offset = ins.a.imm;
        std::int64_t index = ins.dst_count == 4 ? offset / 16 : offset / 8;
        w.s[static_cast<std::size_t>(ins.dst)] =
            detail::kGlobalBase + detail::kLineBytes * static_cast<std::uint32_t>(index);
        for (int k = 1; k < ins.dst_count; ++k) w.s[static_cast<std::size_t>(ins.dst + k)] = 0;
        break;
      }
      case SimOp::Branch: next = ins.target; break;
      case SimOp::BranchVcc:
        if (w.vcc) next = ins.target;
        break;
      case SimOp::Barrier:
        if (!w.at_barrier) {
          w.at_barrier = 1;
          ++w.barriers;
          next = l.pc;  // stay until the work-group has arrived
        } else {
          w.at_barrier = 0;
        }
        break;
      case SimOp::InvalidateL1: {
        Cu& cu = s.cus[static_cast<std::size_t>(cu_of_wave(wi))];
        std::fill(cu.valid.begin(), cu.valid.end(), 0);
        break;
      }
      case SimOp::End:
        l.done = 1;
        ++w.lane;
        return;
      case SimOp::LdsLoad:
      case SimOp::LdsStore:
      case SimOp::LdsAtomic: {
        Pending p = pending(w, l, ins, lds_location(w, l, ins), thread);
        w.lds.push_back(p);
        l.pc = static_cast<std::uint16_t>(next);
        if (!opt_.hw.lds_queues) {
          perform_lds(s, wi, w.lds.back());
          retire(s, wi);
        }
        return;
      }
      case SimOp::VectorLoad:
      case SimOp::VectorStore:
      case SimOp::VectorAtomic: {
        Pending p = pending(w, l, ins, global_location(w, l, ins), thread);
        Cu& cu = s.cus[static_cast<std::size_t>(cu_of_wave(wi))];
        auto loc = static_cast<std::size_t>(p.location);
        l.pc = static_cast<std::uint16_t>(next);
        if (ins.op == SimOp::VectorLoad && !ins.bypass_l1 && cu.valid[loc]) {
          // A hit in the vector L1 returns the line's value (possibly stale: the L1 is not
          // coherent between CUs, AMDGPUUsage "Memory Model").
          p.performed = 1;
          p.result = cu.line[loc];
          w.vm.push_back(p);
          retire(s, wi);
          return;
        }
        if (ins.op == SimOp::VectorStore && cu.valid[loc]) {
          if (opt_.hw.l1_store_visible_early)
            cu.line[loc] = p.data;  // write-through
          else
            cu.valid[loc] = 0;
        }
        if (ins.op == SimOp::VectorAtomic) cu.valid[loc] = 0;  // atomics are performed in the L2
        w.vm.push_back(p);
        cu.queues[static_cast<std::size_t>(channel(p.location))].push_back({static_cast<std::uint8_t>(wi), p.seq});
        return;
      }
    }
    l.pc = static_cast<std::uint16_t>(next);
  }

  int channel(int location) const { return opt_.hw.channel_per_location ? location : 0; }

  void drain(State& s, int c, int ch) const {
    auto& q = s.cus[static_cast<std::size_t>(c)].queues[static_cast<std::size_t>(ch)];
    Request r = q.front();
    q.erase(q.begin());
    Pending& p = find(s.waves[r.wave].vm, r.seq);
    const SimInstruction& ins = instruction(lanes_of_wave_[r.wave][p.lane], p.instruction);
    perform(p, ins, s.memory[static_cast<std::size_t>(p.location)]);
    retire(s, r.wave);
  }

  void perform_lds(State& s, int wi, Pending& p) const {
    const SimInstruction& ins = instruction(lanes_of_wave_[static_cast<std::size_t>(wi)][p.lane], p.instruction);
    int wg = workgroup_of_wave(wi);
    perform(p, ins,
            s.lds[static_cast<std::size_t>(wg * group_count_ + p_.lds_slot[static_cast<std::size_t>(p.location)])]);
  }

  // Completion is reported in issue order within each counter (CDNA4 ISA 4.4): performed
  // entries at the head write their results and leave.
  void retire(State& s, int wi) const {
    Wave& w = s.waves[static_cast<std::size_t>(wi)];
    for (auto* list : {&w.vm, &w.lds}) {
      while (!list->empty() && list->front().performed) {
        const Pending& p = list->front();
        const SimInstruction& ins = instruction(lanes_of_wave_[static_cast<std::size_t>(wi)][p.lane], p.instruction);
        if (ins.dst >= 0 && ins.op != SimOp::VectorStore && ins.op != SimOp::LdsStore) {
          Lane& l = w.lanes[p.lane];
          l.v[static_cast<std::size_t>(ins.dst)] = p.result.lo;
          if (ins.width == 2) l.v[static_cast<std::size_t>(ins.dst) + 1] = p.result.hi;
        }
        list->erase(list->begin());
      }
    }
  }

  const litmus::Test& test_;
  const SimProgram& p_;
  const Placement& placement_;
  const SimOptions& opt_;
  int channels_ = 1;
  int workgroups_ = 0, group_count_ = 0;
  std::vector<std::vector<int>> lanes_of_wave_;
  std::vector<std::vector<std::uint8_t>> fillable_;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::string format_outcome(const litmus::Test&, const SimResult& r, const SimOutcome& o) {
  std::string out;
  for (std::size_t i = 0; i < r.observed.size(); ++i)
    out += fmt::format("{}={}; ", r.observed[i].to_string(), o.values[i]);
  if (!out.empty()) out.pop_back();
  return out;
}

SimResult run_exhaustive(const litmus::Test& test, const codegen::CompiledTest& compiled, const SimOptions& options) {
  auto start = std::chrono::steady_clock::now();
  SimProgram program = detail::lower(test, compiled);
  SimResult result;
  result.observed = test.observed();
  std::vector<Placement> all = placements(test);
  if (!options.explore_placements) all.resize(1);
  for (const Placement& placement : all) {
    Machine m(test, program, placement, options);
    std::unordered_set<std::string> visited;
    std::vector<std::string> path;
    // Depth-first over states; the path holds the transitions that led to the current one.
    std::function<bool(const State&)> visit = [&](const State& s) -> bool {
      if (!visited.insert(key_of(s)).second) return true;
      ++result.states;
      if (result.states > options.max_states) {
        result.unknown = fmt::format("more than {} states", options.max_states);
        return false;
      }
      if ((result.states & 4095) == 0 && seconds_since(start) > options.timeout_seconds) {
        result.unknown = fmt::format("time limit of {} s", options.timeout_seconds);
        return false;
      }
      // Once every wave has ended and every request is performed, only cache steps remain:
      // they cannot change the outcome.
      if (m.final(s)) {
        SimOutcome o = m.outcome(s, result.observed);
        if (result.histogram.emplace(o, 1).second && options.keep_traces) {
          result.traces[o] = path;
          result.trace_placement[o] = placement.describe();
        }
        return true;
      }
      std::vector<Transition> next;
      m.enabled(s, next);
      if (!m.progress_possible(next)) {
        result.unknown = "a wave waits forever (a barrier that part of its work-group never reaches)";
        return false;
      }
      for (const Transition& t : next)
        if (m.invisible(s, t)) {
          next = {t};
          break;
        }
      for (const Transition& t : next) {
        State child = s;
        if (options.keep_traces) path.push_back(m.describe(s, t));
        m.apply(child, t);
        bool ok = visit(child);
        if (options.keep_traces) path.pop_back();
        if (!ok) return false;
      }
      return true;
    };
    if (!visit(m.initial())) break;
  }
  result.seconds = seconds_since(start);
  return result;
}

SimResult run_random(const litmus::Test& test, const codegen::CompiledTest& compiled, std::uint64_t iterations,
                     std::uint64_t seed, const SimOptions& options) {
  auto start = std::chrono::steady_clock::now();
  SimProgram program = detail::lower(test, compiled);
  SimResult result;
  result.observed = test.observed();
  std::vector<Placement> all = placements(test);
  std::vector<Machine> machines;
  for (const Placement& p : all) machines.emplace_back(test, program, p, options);
  std::mt19937_64 rng(seed);
  std::vector<Transition> next;
  // Each run draws weights for the kinds of step, as stress does on real GPUs: some runs
  // drain queues slowly, some evict and refill caches often.
  for (std::uint64_t it = 0; it < iterations; ++it) {
    const Machine& m = machines[rng() % machines.size()];
    double w_issue = 1.0 + static_cast<double>(rng() % 8), w_drain = 1.0 + static_cast<double>(rng() % 8),
           w_lds = 1.0 + static_cast<double>(rng() % 8), w_cache = static_cast<double>(rng() % 3) * 0.5;
    State s = m.initial();
    for (;;) {
      if (m.final(s)) break;
      m.enabled(s, next);
      if (!m.progress_possible(next)) break;
      double total = 0;
      std::vector<double> weight(next.size());
      for (std::size_t i = 0; i < next.size(); ++i) {
        switch (next[i].step) {
          case Step::Issue: weight[i] = w_issue; break;
          case Step::Drain: weight[i] = w_drain; break;
          case Step::LdsPerform: weight[i] = w_lds; break;
          case Step::Evict:
          case Step::Fill: weight[i] = w_cache; break;
        }
        total += weight[i];
      }
      if (total <= 0) {
        for (double& x : weight) x = 1;
        total = static_cast<double>(weight.size());
      }
      double pick = std::uniform_real_distribution<double>(0, total)(rng);
      std::size_t chosen = 0;
      for (; chosen + 1 < next.size() && pick >= weight[chosen]; ++chosen) pick -= weight[chosen];
      m.apply(s, next[chosen]);
    }
    if (!m.final(s)) {
      result.unknown = "a wave waits forever (a barrier that part of its work-group never reaches)";
      break;
    }
    ++result.histogram[m.outcome(s, result.observed)];
    ++result.iterations;
  }
  result.seconds = seconds_since(start);
  return result;
}

}  // namespace hsalit::runner
