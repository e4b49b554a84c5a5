// The static view of a test that both model engines share: memory locations with their
// addresses, one event per memory operation of each instruction, and the scope instances of
// the test's scope tree. Everything here is independent of any particular execution.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hsalit/litmus/ast.hpp"

namespace hsalit::model {

using litmus::AccessSize;
using litmus::MemoryOrder;
using litmus::Scope;
using litmus::Segment;
using Value = std::int64_t;

// Models (docs/model.md): the literal HSA spec, two published weakenings of it, and the
// OpenCL 2.0 model.
enum class ModelVariant : std::uint8_t {
  Hsa,          // HSA SysArch 1.01 chapter 3, literally
  HrfIndirect,  // no scope inclusion: Match needs the same scope and instance
  HrfDirect,    // as hrf-indirect, and no transitivity across scope instances
  OpenCl,       // OpenCL 2.0 as formalised with scoped SC axioms (model/src/opencl_model.hpp)
};
std::string_view to_string(ModelVariant v);
std::optional<ModelVariant> model_variant_from_string(std::string_view text);

// A named location. Its address is a value distinct from every small integer so that a
// register can hold it; group-segment locations have one copy per work-group.
struct LocationInfo {
  std::string name;
  Segment segment = Segment::Global;
  Value address = 0;
  Value initial = 0;
  bool synthetic = false;  // a barrier instance's counter (HSA PRM 9.3)
};

enum class EventKind : std::uint8_t { Read, Write, Update, Fence };

// One memory event of the program: an instruction's access or fence, or one of the two
// conceptual atomics of a barrier (HSA PRM 9.3). Initial writes are not events here; the
// engines add one per memory cell.
struct StaticEvent {
  int id = 0;
  int thread = 0;
  int instruction = 0;  // index into the thread's code
  int po = 0;           // position among the thread's events
  EventKind kind = EventKind::Read;
  bool atomic = false;
  MemoryOrder order = MemoryOrder::Relaxed;
  Scope scope = Scope::WorkItem;  // as written
  AccessSize size = AccessSize::Single;
  bool seq_cst = false;  // memory_order_seq_cst (litmus::Annotations::seq_cst)
  // Fences and barrier events: the one segment an OpenCL fence or barrier orders; none: both.
  std::optional<Segment> fence_segment;
  std::optional<Segment> segment;  // of the accessed location; none for fences
  std::optional<int> location;     // when the address is a location without a register
  enum class Barrier : std::uint8_t { None, Arrive, Depart } barrier = Barrier::None;
  int barrier_participants = 0;  // Depart: the value it waits for

  bool reads() const { return kind == EventKind::Read || kind == EventKind::Update; }
  bool writes() const { return kind == EventKind::Write || kind == EventKind::Update; }
  bool is_access() const { return kind != EventKind::Fence; }
  bool is_fence() const { return kind == EventKind::Fence; }
  bool is_special() const { return atomic || is_fence(); }
  bool is_release() const {
    return is_special() && (order == MemoryOrder::Release || order == MemoryOrder::AcquireRelease);
  }
  bool is_acquire() const {
    return is_special() && (order == MemoryOrder::Acquire || order == MemoryOrder::AcquireRelease);
  }
  bool is_sync() const { return is_release() || is_acquire(); }
};

// One instance of a scope level (HSA SysArch 3.3.6): the threads it holds.
struct ScopeInstance {
  Scope level = Scope::System;
  std::uint32_t id = 0;
  std::vector<int> threads;
};

// A test prepared for the engines. Construction never fails: what the model cannot
// decide is recorded in `unsupported`, and the engines then answer `unknown`.
class Program {
 public:
  explicit Program(const litmus::Test& test);

  const litmus::Test& test() const { return *test_; }
  int thread_count() const { return static_cast<int>(test_->threads.size()); }
  const std::vector<LocationInfo>& locations() const { return locations_; }
  const std::vector<StaticEvent>& events() const { return events_; }
  // Event ids of each instruction of a thread (empty for mov, branch, label; two for barrier).
  const std::vector<std::vector<int>>& events_of_instruction(int thread) const {
    return instruction_events_[static_cast<std::size_t>(thread)];
  }
  const std::vector<ScopeInstance>& scope_instances() const { return instances_; }
  const litmus::ScopeTree& scopes() const { return test_->scopes; }
  const std::optional<std::string>& unsupported() const { return unsupported_; }

  std::optional<int> location_by_name(std::string_view name) const;
  std::optional<int> location_by_address(Value address) const;
  Value address_of(int location) const { return locations_[static_cast<std::size_t>(location)].address; }
  // A value as a person reads it: a location's name for its address, else the number.
  std::string describe_value(Value v) const;
  // Which copy of a location an access by `thread` touches: the work-group instance for
  // group-segment locations, 0 for global ones and for the one copy of a test whose threads
  // all share a work-group (so that such a test's cells do not depend on the segments,
  // which lets the enum engine's candidates be shared, docs/model.md).
  std::uint32_t copy_of(int location, int thread) const;
  // The copy of a location that a final condition names: the work-group of the
  // lowest-numbered thread that accesses it (0 for global locations).
  std::uint32_t observed_copy(int location) const;
  // The barrier counter location of the k-th barrier (created on demand at construction).
  std::string describe_event(int event) const;

 private:
  void build_locations();
  void build_events();
  void build_instances();

  const litmus::Test* test_;
  std::vector<LocationInfo> locations_;
  std::vector<StaticEvent> events_;
  std::vector<std::vector<std::vector<int>>> instruction_events_;
  std::vector<ScopeInstance> instances_;
  std::vector<std::uint32_t> observed_copy_;
  std::optional<std::string> unsupported_;
  bool one_workgroup_ = false;  // every thread in one work-group
};

inline constexpr Value kAddressBase = Value{1} << 40;
inline constexpr Value kAddressStride = 0x1000;

}  // namespace hsalit::model
