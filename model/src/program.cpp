#include "hsalit/model/program.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "hsalit/litmus/printer.hpp"

namespace hsalit::model {

using litmus::Expr;
using litmus::Instruction;
using litmus::OpKind;

std::string_view to_string(ModelVariant v) {
  switch (v) {
    case ModelVariant::Hsa: return "hsa";
    case ModelVariant::HrfIndirect: return "hrf-indirect";
    case ModelVariant::HrfDirect: return "hrf-direct";
    case ModelVariant::OpenCl: return "opencl";
  }
  return "?";
}

std::optional<ModelVariant> model_variant_from_string(std::string_view t) {
  if (t == "hsa") return ModelVariant::Hsa;
  if (t == "hrf-indirect") return ModelVariant::HrfIndirect;
  if (t == "hrf-direct") return ModelVariant::HrfDirect;
  if (t == "opencl") return ModelVariant::OpenCl;
  return std::nullopt;
}

Program::Program(const litmus::Test& test) : test_(&test) {
  one_workgroup_ = test.scopes.one_instance(Scope::WorkGroup);
  build_locations();
  build_events();
  build_instances();
}

namespace {

void collect_address_taken(const Expr& e, std::set<std::string>& out) {
  if (e.is_location()) out.insert(e.name);
  for (const Expr& o : e.operands) collect_address_taken(o, out);
}

// Is the instruction at `index` skipped by some forward branch before it?
bool is_conditional(const litmus::Thread& t, std::size_t index) {
  for (std::size_t j = 0; j < index; ++j) {
    const Instruction& b = t.code[j];
    if (b.kind != OpKind::Branch) continue;
    for (std::size_t k = index + 1; k < t.code.size(); ++k)
      if (t.code[k].kind == OpKind::Label && t.code[k].label == b.label) return true;
  }
  return false;
}

}  // namespace

void Program::build_locations() {
  for (const std::string& name : test_->location_names()) {
    LocationInfo loc;
    loc.name = name;
    loc.segment = test_->segment_of(name);
    loc.address = kAddressBase + static_cast<Value>(locations_.size()) * kAddressStride;
    locations_.push_back(std::move(loc));
  }
  for (const litmus::InitEntry& e : test_->init) {
    if (e.thread) continue;
    auto loc = location_by_name(e.name);
    if (!loc) continue;
    if (e.value.is_location()) {
      auto target = location_by_name(e.value.name);
      locations_[static_cast<std::size_t>(*loc)].initial = target ? address_of(*target) : 0;
    } else {
      locations_[static_cast<std::size_t>(*loc)].initial = e.value.value;
    }
  }
}

void Program::build_events() {
  // The segment of accesses through a register base: every location whose address the
  // test takes must share one segment, or the access's segment is not known statically.
  std::set<std::string> address_taken;
  for (const litmus::InitEntry& e : test_->init) collect_address_taken(e.value, address_taken);
  for (const litmus::Thread& t : test_->threads)
    for (const Instruction& ins : t.code) {
      collect_address_taken(ins.value, address_taken);
      if (ins.expected) collect_address_taken(*ins.expected, address_taken);
    }
  std::set<Segment> indirect_segments;
  for (const std::string& name : address_taken) indirect_segments.insert(test_->segment_of(name));

  const litmus::ScopeTree& tree = test_->scopes;
  std::map<std::pair<std::uint32_t, int>, int> barrier_locations;  // (wg, ordinal) -> location
  std::map<std::uint32_t, std::set<int>> barriers_per_wg;
  instruction_events_.resize(test_->threads.size());
  for (const litmus::Thread& t : test_->threads) {
    auto& per_instruction = instruction_events_[static_cast<std::size_t>(t.id)];
    per_instruction.resize(t.code.size());
    int po = 0, barrier_ordinal = 0;
    for (std::size_t i = 0; i < t.code.size(); ++i) {
      const Instruction& ins = t.code[i];
      auto add = [&](StaticEvent e) {
        e.id = static_cast<int>(events_.size());
        e.thread = t.id;
        e.instruction = static_cast<int>(i);
        e.po = po++;
        per_instruction[i].push_back(e.id);
        events_.push_back(e);
      };
      switch (ins.kind) {
        case OpKind::Load:
        case OpKind::Store:
        case OpKind::Rmw: {
          StaticEvent e;
          e.kind = ins.kind == OpKind::Load    ? EventKind::Read
                   : ins.kind == OpKind::Store ? EventKind::Write
                                               : EventKind::Update;
          e.atomic = ins.annots.atomic;
          e.order = ins.annots.order;
          e.scope = ins.annots.scope;
          e.size = ins.annots.size;
          e.seq_cst = ins.annots.seq_cst;
          const litmus::Address& a = ins.addr;
          if (a.offset && a.offset->is_constant() && a.offset->value != 0 && !unsupported_)
            unsupported_ = "constant address offsets (arrays) are not supported";
          if (a.base.is_location()) {
            e.segment = test_->segment_of(a.base.name);
            if (!a.offset || a.offset->is_constant()) e.location = location_by_name(a.base.name);
          } else if (indirect_segments.size() == 1) {
            e.segment = *indirect_segments.begin();
          } else if (!unsupported_) {
            unsupported_ = fmt::format(
                "the segment of the access through register '{}' in thread P{} is not known "
                "statically (the test takes addresses of locations in {} segments)",
                a.base.name, t.id, indirect_segments.size());
          }
          add(e);
          break;
        }
        case OpKind::Fence: {
          StaticEvent e;
          e.kind = EventKind::Fence;
          e.order = ins.annots.order;
          e.scope = ins.annots.scope;
          e.seq_cst = ins.annots.seq_cst;
          e.fence_segment = ins.annots.fence_segment;
          add(e);
          break;
        }
        case OpKind::Barrier: {
          // HSA PRM 9.3: a barrier interacts with the memory model as relaxed wg-scope
          // atomics on a counter of its barrier instance: an increment on arrival, then a
          // wait until the counter holds the number of participants.
          if (is_conditional(t, i) && !unsupported_)
            unsupported_ = fmt::format(
                "barrier in conditional code in thread P{} (a divergent "
                "barrier is undefined, HSA PRM 9.3)",
                t.id);
          std::uint32_t wg = tree.instance(t.id, Scope::WorkGroup);
          barriers_per_wg[wg].insert(t.id);
          auto key = std::make_pair(wg, barrier_ordinal++);
          auto found = barrier_locations.find(key);
          int loc;
          if (found == barrier_locations.end()) {
            LocationInfo info;
            info.name = fmt::format("barrier{}.wg{}", key.second, t.id);
            info.segment = Segment::Group;
            info.address = kAddressBase + static_cast<Value>(locations_.size()) * kAddressStride;
            info.synthetic = true;
            loc = static_cast<int>(locations_.size());
            locations_.push_back(info);
            barrier_locations.emplace(key, loc);
          } else {
            loc = found->second;
          }
          int participants = 0;
          for (int u = 0; u < thread_count(); ++u)
            if (tree.same_instance(u, t.id, Scope::WorkGroup)) ++participants;
          StaticEvent arrive;
          arrive.kind = EventKind::Update;
          arrive.atomic = true;
          arrive.scope = Scope::WorkGroup;
          arrive.segment = Segment::Group;
          arrive.location = loc;
          arrive.barrier = StaticEvent::Barrier::Arrive;
          arrive.fence_segment = ins.annots.fence_segment;  // OpenCL: the address space its fences order
          add(arrive);
          StaticEvent depart = arrive;
          depart.kind = EventKind::Read;
          depart.barrier = StaticEvent::Barrier::Depart;
          depart.barrier_participants = participants;
          add(depart);
          break;
        }
        case OpKind::Mov:
        case OpKind::Branch:
        case OpKind::Label: break;
      }
    }
  }
  // Every member of a work-group must reach the same barriers.
  for (const auto& [wg, users] : barriers_per_wg) {
    for (int u = 0; u < thread_count(); ++u) {
      if (tree.instance(u, Scope::WorkGroup) != wg) continue;
      int count_u = 0, count_first = 0;
      for (const Instruction& ins : test_->threads[static_cast<std::size_t>(u)].code)
        count_u += ins.kind == OpKind::Barrier;
      for (const Instruction& ins : test_->threads[static_cast<std::size_t>(*users.begin())].code)
        count_first += ins.kind == OpKind::Barrier;
      if (count_u != count_first && !unsupported_)
        unsupported_ = fmt::format(
            "threads P{} and P{} of one work-group execute different "
            "numbers of barriers (undefined, HSA PRM 9.3)",
            u, *users.begin());
    }
  }
  // The copy of each location a final condition reads.
  observed_copy_.assign(locations_.size(), 0);
  for (std::size_t l = 0; l < locations_.size(); ++l) {
    if (locations_[l].segment != Segment::Group) continue;
    for (const StaticEvent& e : events_)
      if (e.location == static_cast<int>(l)) {
        observed_copy_[l] = copy_of(static_cast<int>(l), e.thread);
        break;  // events are in thread order: the lowest thread wins
      }
  }
}

void Program::build_instances() {
  const litmus::ScopeTree& tree = test_->scopes;
  for (Scope level : {Scope::Wavefront, Scope::WorkGroup, Scope::Agent, Scope::System}) {
    std::map<std::uint32_t, std::vector<int>> members;
    for (int t = 0; t < thread_count(); ++t) members[tree.instance(t, level)].push_back(t);
    for (auto& [id, threads] : members) instances_.push_back({level, id, threads});
  }
}

std::optional<int> Program::location_by_name(std::string_view name) const {
  for (std::size_t i = 0; i < locations_.size(); ++i)
    if (locations_[i].name == name) return static_cast<int>(i);
  return std::nullopt;
}

std::optional<int> Program::location_by_address(Value address) const {
  if (address < kAddressBase || (address - kAddressBase) % kAddressStride != 0) return std::nullopt;
  Value index = (address - kAddressBase) / kAddressStride;
  if (index >= static_cast<Value>(locations_.size())) return std::nullopt;
  return static_cast<int>(index);
}

std::string Program::describe_value(Value v) const {
  if (auto loc = location_by_address(v)) return locations_[static_cast<std::size_t>(*loc)].name;
  return std::to_string(v);
}

std::uint32_t Program::copy_of(int location, int thread) const {
  if (locations_[static_cast<std::size_t>(location)].segment != Segment::Group || one_workgroup_) return 0;
  return test_->scopes.instance(thread, Scope::WorkGroup) + 1;
}

std::uint32_t Program::observed_copy(int location) const { return observed_copy_[static_cast<std::size_t>(location)]; }

std::string Program::describe_event(int event) const {
  const StaticEvent& e = events_[static_cast<std::size_t>(event)];
  const Instruction& ins =
      test_->threads[static_cast<std::size_t>(e.thread)].code[static_cast<std::size_t>(e.instruction)];
  std::string text = litmus::print_instruction(ins);
  if (e.barrier == StaticEvent::Barrier::Arrive) text += " (arrive)";
  if (e.barrier == StaticEvent::Barrier::Depart) text += " (depart)";
  return fmt::format("P{}:{} {}", e.thread, e.instruction, text);
}

}  // namespace hsalit::model
