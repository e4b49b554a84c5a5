#include "hsalit/verify/bound.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <span>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <unordered_set>
#include <utility>
#include <vector>

#include "elapsed.hpp"
#include "hsalit/codegen/gcn.hpp"
#include "hsalit/codegen/memory_hierarchy.hpp"
#include "hsalit/litmus/printer.hpp"
#include "hsalit/model/checker.hpp"
#include "hsalit/model/sc.hpp"
#include "hsalit/runner/sim.hpp"
#include "hsalit/support/binary_key.hpp"
#include "hsalit/support/memory.hpp"
#include "hsalit/support/parallel.hpp"
#include "hsalit/support/saturating.hpp"

namespace hsalit::verify {

using detail::seconds_since;

namespace {

using litmus::MemoryOrder;
using litmus::Variation;

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

// Order strength: rlx < scacq, screl < scar (HSA SysArch 3.3.1).
bool order_at_least(MemoryOrder a, MemoryOrder b) {
  if (a == b || b == MemoryOrder::Relaxed) return true;
  return a == MemoryOrder::AcquireRelease;
}

// Whether `strong` is an s_waitcnt that waits for every counter `weak` (an s_waitcnt) waits
// for, to at most its count: `weak` followed by another wait, since no operation issues in
// between (docs/simulator.md rule 1).
bool waits_at_least(const codegen::Instruction& strong, const codegen::Instruction& weak) {
  if (strong.mnemonic != "s_waitcnt" || weak.mnemonic != "s_waitcnt" || !strong.operands.empty() ||
      !weak.operands.empty())
    return false;
  auto covers = [](const std::optional<int>& s, const std::optional<int>& w) { return !w || (s && *s <= *w); };
  return covers(strong.wait.vmcnt, weak.wait.vmcnt) && covers(strong.wait.expcnt, weak.wait.expcnt) &&
         covers(strong.wait.lgkmcnt, weak.wait.lgkmcnt);
}

}  // namespace

bool code_at_least(std::span<const codegen::Instruction> strong, std::span<const codegen::Instruction> weak) {
  std::size_t w = 0;
  for (const codegen::Instruction& s : strong) {
    if (w < weak.size() && (s == weak[w] || waits_at_least(s, weak[w]))) {
      ++w;
      continue;
    }
    if (w < weak.size() && s.kind() == codegen::InstrClass::VectorLoad && s.policy.glc && !weak[w].policy.glc) {
      codegen::Instruction without = s;
      without.policy.glc = false;
      if (without == weak[w]) {
        ++w;
        continue;
      }
    }
    if (s.kind() == codegen::InstrClass::Wait) continue;
    if (s.mnemonic == "buffer_wbinvl1_vol" || s.mnemonic == "buffer_wbinvl1") continue;
    return false;
  }
  return w == weak.size();
}

namespace {

// The code classes of one slot: its choices grouped by the instructions they compile to.
struct SlotClasses {
  std::vector<std::vector<std::size_t>> maxima;  // per class, its maximal choices
  std::vector<std::size_t> representative;       // per class, one member
  std::vector<std::size_t> class_of;             // per choice
  // stronger[a][b]: class a's code strengthens class b's (`code_at_least`), a != b.
  std::vector<std::vector<bool>> stronger;
  // Per class, whether the compiler refused its representative (a row the table lacks, for
  // this slot or for another of its thread at its first choice): a test with such a choice
  // may not compile (SpaceSearch::refused_leaf).
  std::vector<bool> refused;
  bool refused_choice(std::size_t choice) const { return refused[class_of.empty() ? choice : class_of[choice]]; }
};

// The code classes of a space's slots, each shared with the cache that found it (a slot's
// classes serve every shape whose thread is the same, fact 1).
class SlotClassList {
 public:
  const SlotClasses& operator[](std::size_t k) const { return *slots_[k]; }
  std::size_t size() const { return slots_.size(); }
  void push_back(std::shared_ptr<const SlotClasses> classes) { slots_.push_back(std::move(classes)); }

 private:
  std::vector<std::shared_ptr<const SlotClasses>> slots_;
};

// The code of one choice of a slot: the compiled instructions of the slot's thread, or why
// the compiler refused it.
struct SlotCode {
  std::string key;                                        // the instructions' codegen::append_key, or the refusal
  std::optional<std::vector<codegen::Instruction>> code;  // absent when refused
};

// The code of slot `slot` under each of its choices, the other slots at their first choice
// (the table maps each instruction on its own, so a difference there is a difference of the
// slot).
std::vector<SlotCode> slot_codes(const litmus::VariationSpace& space, litmus::SpaceTests& tests, std::size_t slot,
                                 const codegen::MappingTable& table, const codegen::Target& target,
                                 const codegen::TargetCatalog& catalog, const codegen::CompileOptions& compile,
                                 std::size_t& compiles) {
  const litmus::Slot& s = space.slots()[slot];
  std::vector<std::size_t> choice(space.slots().size(), 0);
  std::vector<SlotCode> codes;
  for (std::size_t j = 0; j < s.choices.size(); ++j) {
    choice[slot] = j;
    ++compiles;
    try {
      codegen::CompiledThread compiled =
          codegen::compile_thread(tests.test(choice), s.thread, target, catalog, table, compile);
      std::string key(1, 'c');  // code; a refusal's key starts with 'e'
      for (const codegen::Instruction& ins : compiled.code) codegen::append_key(key, ins, codegen::KeyOrigin::None);
      codes.push_back({std::move(key), std::move(compiled.code)});
    } catch (const std::exception& e) {
      // Each refused choice on its own: the test reports why.
      codes.push_back({fmt::format("e{}: {}", j, e.what()), std::nullopt});
    }
  }
  return codes;
}

SlotClasses classify(const litmus::Slot& slot, const std::vector<SlotCode>& codes, bool every_variation,
                     model::ModelVariant model) {
  SlotClasses out;
  if (every_variation) {
    for (std::size_t j = 0; j < slot.choices.size(); ++j) {
      out.maxima.push_back({j});
      out.representative.push_back(j);
      out.refused.push_back(!codes[j].code);
    }
    return out;
  }
  std::map<std::string, std::vector<std::size_t>> by_code;
  std::vector<const std::string*> order;  // classes in order of first appearance
  std::map<std::string, std::size_t> index;
  for (std::size_t j = 0; j < codes.size(); ++j) {
    auto [it, fresh] = by_code.try_emplace(codes[j].key);
    if (fresh) {
      order.push_back(&it->first);
      index.emplace(codes[j].key, index.size());
    }
    it->second.push_back(j);
    out.class_of.push_back(index.at(codes[j].key));
  }
  for (const std::string* code : order) {
    const std::vector<std::size_t>& members = by_code.at(*code);
    out.representative.push_back(members.front());
    out.refused.push_back(!codes[members.front()].code);
    std::vector<std::size_t> maxima;
    for (std::size_t m : members) {
      bool dominated = false;
      for (std::size_t o : members)
        if (o != m && at_least_as_strong(slot.choices[o], slot.choices[m], model) &&
            !at_least_as_strong(slot.choices[m], slot.choices[o], model))
          dominated = true;
      if (!dominated) maxima.push_back(m);
    }
    out.maxima.push_back(std::move(maxima));
  }
  const std::size_t classes = out.representative.size();
  out.stronger.assign(classes, std::vector<bool>(classes, false));
  for (std::size_t a = 0; a < classes; ++a)
    for (std::size_t b = 0; b < classes; ++b) {
      const auto& strong = codes[out.representative[a]].code;
      const auto& weak = codes[out.representative[b]].code;
      out.stronger[a][b] = a != b && strong && weak && code_at_least(*strong, *weak);
    }
  return out;
}

// Fact 4 of verify/bound.hpp in one space (one placement): per slot and choice, the choice
// with the narrowest scope that the model cannot tell apart from it (the same kind and
// order, a scope whose instance holds the same threads for the slot's thread), and whether
// that choice decides it: its code is weaker (`code_at_least`), so each test with the choice
// reaches a subset of the final states of the test with the narrower one, which the model
// answers alike.
struct ScopeEquivalents {
  std::vector<std::vector<std::size_t>> narrowest;
  std::vector<std::vector<bool>> decided;
};

ScopeEquivalents scope_equivalents(const litmus::VariationSpace& space, const SlotClassList& classes) {
  const auto& slots = space.slots();
  const litmus::Test test = space.test(std::vector<std::size_t>(slots.size(), 0));
  const int threads = static_cast<int>(test.threads.size());
  auto members = [&](int thread, litmus::Scope scope) {
    std::vector<int> out;
    for (int u = 0; u < threads; ++u)
      if (test.scopes.same_instance(thread, u, scope)) out.push_back(u);
    return out;
  };
  ScopeEquivalents out;
  for (std::size_t k = 0; k < slots.size(); ++k) {
    const litmus::Slot& slot = slots[k];
    const SlotClasses& cls = classes[k];
    std::vector<std::size_t>& narrowest = out.narrowest.emplace_back(slot.choices.size());
    std::vector<bool>& decided = out.decided.emplace_back(slot.choices.size(), false);
    for (std::size_t j = 0; j < slot.choices.size(); ++j) {
      narrowest[j] = j;
      const Variation& wide = slot.choices[j];
      if (wide.kind != Variation::Kind::Atomic && wide.kind != Variation::Kind::Fence) continue;
      for (std::size_t c = 0; c < slot.choices.size(); ++c) {
        Variation narrow = wide;
        narrow.scope = slot.choices[c].scope;
        if (!(narrow == slot.choices[c]) || narrow.scope >= wide.scope ||
            members(slot.thread, narrow.scope) != members(slot.thread, wide.scope))
          continue;
        if (slot.choices[c].scope < slot.choices[narrowest[j]].scope) narrowest[j] = c;
        if (cls.stronger[cls.class_of[j]][cls.class_of[c]]) decided[j] = true;
      }
    }
  }
  return out;
}

// The choice of a slot that is at least as strong as every other, if there is one.
std::optional<std::size_t> strongest(const litmus::Slot& slot, model::ModelVariant model) {
  for (std::size_t j = 0; j < slot.choices.size(); ++j)
    if (std::all_of(slot.choices.begin(), slot.choices.end(),
                    [&](const Variation& c) { return at_least_as_strong(slot.choices[j], c, model); }))
      return j;
  return std::nullopt;
}

}  // namespace

bool at_least_as_strong(const Variation& a, const Variation& b) {
  return at_least_as_strong(a, b, model::ModelVariant::Hsa);
}

bool at_least_as_strong(const Variation& a, const Variation& b, model::ModelVariant model) {
  using Kind = Variation::Kind;
  if (a == b) return true;
  const bool wider_scope_stronger = model == model::ModelVariant::Hsa;
  switch (b.kind) {
    case Kind::Ordinary: return a.kind == Kind::Ordinary || a.kind == Kind::Atomic;
    case Kind::Nothing: return a.kind == Kind::Nothing || a.kind == Kind::Fence;
    case Kind::Atomic:
    case Kind::Fence:
      return a.kind == b.kind && order_at_least(a.order, b.order) &&
             (wider_scope_stronger ? static_cast<int>(a.scope) >= static_cast<int>(b.scope) : a.scope == b.scope);
    case Kind::Dependency: return false;
  }
  return false;
}

namespace {

constexpr std::size_t kNoStop = std::numeric_limits<std::size_t>::max();

// Candidate listings kept per worker thread: a space's programs differ in their fences and
// dependencies, and spaces next to each other in the enumeration share programs.
constexpr std::size_t kKeptListingsPerWorker = 8;

// What every space's search reads: the table, the target, the options and which of the
// facts of bound.hpp apply.
struct SearchSettings {
  const codegen::MappingTable& table;
  const codegen::Target& target;
  const codegen::TargetCatalog& catalog;
  const VerifyOptions& options;  // with stop_at_race
  const BoundOptions& bound;
  std::size_t max_tests = 0;
  bool code_dominance = false;  // fact 3
  bool narrowing = false;       // fact 4
  bool shared_answers = false;  // fact 6
  bool order_kept = false;      // facts 9 and 10
  // The enum engine's candidates, kept across the spaces: a cycle's placements and segment
  // assignments mostly share one listing (model::CandidateMemo, docs/model.md).
  std::shared_ptr<model::CandidateMemo> candidates;
};

// What the workers share while they search: tests checked, and whether to stop (a failure,
// the bound's test limit) or to abandon the spaces after a counterexample that
// BoundOptions::stop_at accepted.
struct SearchControl {
  std::atomic<std::size_t> checked{0};
  std::atomic<bool> stop{false};
  // With BoundOptions::stop_at: the index (in enumeration order) of the earliest space where
  // it accepted a counterexample. Spaces before it are verified to the end and spaces after
  // it abandoned, so the counterexample reported is the first in enumeration order whatever
  // the number of threads (within a space the search is sequential).
  std::atomic<std::size_t> stop_space{kNoStop};
  // BoundOptions::time_limit_seconds: when it passes, `stop` is set as well.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::atomic<bool> out_of_time{false};
  // BoundOptions::memory_limit: the process's resident set, read every 4096 calls of each
  // thread (a few microseconds a read), past it sets `stop` as well.
  std::uint64_t memory_limit = 0;
  std::atomic<bool> out_of_memory{false};
  std::atomic<std::size_t> finished{0};  // spaces decided or searched to the end
  bool abandoned(std::size_t space_index) {
    if (deadline && !out_of_time && std::chrono::steady_clock::now() >= *deadline) out_of_time = stop = true;
    if (memory_limit) {
      thread_local std::uint32_t calls = 0;
      if (++calls % 4096 == 0 && !out_of_memory && support::over_memory_limit(memory_limit))
        out_of_memory = stop = true;
    }
    return stop || space_index >= stop_space;
  }
};

// What the code of a slot's choices depends on besides the choice: its thread, with the other
// slots at their first choices, each location renamed by its first use in the thread and
// given its segment, and the thread's initial registers. The compiler maps each
// instruction on its own and reads nothing else of the test but the locations' order, which
// only places them (kernel-argument and LDS offsets, the same for every choice of the slot);
// so two slots with the same context and the same choices compile, choice for choice, to
// codes that differ only in those offsets, and have the same code classes.
std::string thread_context(const litmus::Test& test, int thread) {
  const litmus::Thread& code = test.threads.at(static_cast<std::size_t>(thread));
  std::map<std::string, std::string> renamed;
  std::string out;
  for (litmus::Instruction ins : code.code) {
    if (ins.addr.base.is_location()) {
      const std::string fresh_name = fmt::format("L{}", renamed.size());
      auto [it, fresh] = renamed.try_emplace(ins.addr.base.name, fresh_name);
      if (fresh) out += fmt::format("{}:{};", fresh_name, litmus::to_string(test.segment_of(it->first)));
      ins.addr.base.name = it->second;
    }
    out += litmus::print_instruction(ins);
    out += '\n';
  }
  for (const litmus::InitEntry& e : test.init)
    if (e.thread == code.id) out += fmt::format("{}={};", e.name, litmus::print_expr(e.value));
  return out;
}

// A slot's place and choices as a key (binary: support/binary_key.hpp); its thread's
// context (thread_context) goes before it in the cache's key.
std::string slot_key(const litmus::Slot& slot) {
  std::string key;
  key.reserve(32 + 4 * slot.choices.size());  // one append each, no regrowth
  support::append_raw(key, slot.gap);
  support::append_raw(key, slot.index);
  support::append_raw(key, slot.choices.size());
  for (const Variation& v : slot.choices) {
    support::append_raw(key, v.kind);
    support::append_raw(key, v.order);
    support::append_raw(key, v.scope);
    support::append_raw(key, v.dependency);
  }
  return key;
}

// A choice that orders across threads: a scope of work-group or wider (a wavefront-scope
// operation synchronizes only within its own thread: the instance holds no other).
bool across_threads(const Variation& v) { return v.scope >= litmus::Scope::WorkGroup; }
bool acquires(MemoryOrder o) { return o == MemoryOrder::Acquire || o == MemoryOrder::AcquireRelease; }
bool releases(MemoryOrder o) { return o == MemoryOrder::Release || o == MemoryOrder::AcquireRelease; }

// A shape's code classes, per slot, and what facts 9 and 10 read of its threads.
struct ShapeClasses {
  SlotClassList slots;
  // Per thread, a number for its context and its slots' choices (thread_context, slot_key),
  // the same for two threads exactly when their code classes are (fact 1).
  std::vector<std::size_t> thread_ids;
  // Per thread, its memory accesses in order: the location (an index into the test's
  // locations) and whether it writes.
  struct Access {
    std::size_t location = 0;
    bool writes = false;
  };
  std::vector<std::vector<Access>> accesses;
  std::vector<bool> group;  // per location: in the group segment
  // Of the slots' choices: whether one is a dependency, and whether a fence that orders
  // across threads acquires, or releases (OrderKept).
  bool dependency_choice = false, acquire_fence = false, release_fence = false;
};

// Code classes per shape (not per placement), shared by the workers. A cycle's spaces go to
// one worker together, which keeps their shapes while it reads them (CycleShapes). Under it,
// the classes of each slot are kept by the slot's context (thread_context) and choices, and
// a thread's by what determines its context (compute): the threads of a bound's shapes
// repeat across cycles, so most were classified before (BoundOptions::shared_slot_classes).
class ShapeClassCache {
 public:
  using Classes = std::shared_ptr<const ShapeClasses>;

  explicit ShapeClassCache(const SearchSettings& settings) : settings_(settings) {}

  // The shapes of the cycle a worker is reading: a cycle's spaces go to one worker together
  // and differ only in placement and segments, so its shapes are asked only there.
  class CycleShapes {
   public:
    void clear() { shapes_.clear(); }

   private:
    friend class ShapeClassCache;
    std::vector<std::pair<const std::string*, Classes>> shapes_;  // by shape_key, kept by the spaces
  };

  Classes classes_for(const litmus::VariationSpace& space, CycleShapes& recent) {
    for (const auto& [key, classes] : recent.shapes_)
      if (*key == space.shape_key()) return classes;
    Classes classes = compute(space);
    recent.shapes_.emplace_back(&space.shape_key(), classes);
    return classes;
  }

  // Single-slot compilations so far, and every row some test of the shapes uses, pruned or not.
  std::size_t compiles() const {
    std::lock_guard lock(mutex_);
    return compiles_;
  }
  std::vector<std::string> rows() const {
    std::lock_guard lock(mutex_);
    return {rows_.begin(), rows_.end()};
  }

 private:
  static constexpr std::size_t kSlotsCached = 1 << 16;

  // The shape's classes thread by thread. A thread's slot classes and number depend on its
  // context and its slots' choices only, and its context on what VariationSpace::thread_key
  // says of it (a generated test's first choices are its slots' first choices): so they are
  // kept by that key and the slots' choices, and a shape whose threads were all met before
  // builds no test and prints nothing.
  Classes compute(const litmus::VariationSpace& space) {
    auto shape = std::make_shared<ShapeClasses>();
    describe_threads(space, *shape);  // first: it checks what the thread keys rely on
    const std::vector<litmus::Slot>& all_slots = space.slots();
    std::size_t threads = 0;
    for (const litmus::Slot& slot : all_slots) threads = std::max(threads, static_cast<std::size_t>(slot.thread) + 1);
    std::vector<std::vector<std::size_t>> slots_of(threads);
    for (std::size_t k = 0; k < all_slots.size(); ++k)
      slots_of[static_cast<std::size_t>(all_slots[k].thread)].push_back(k);
    std::vector<std::string> thread_keys(threads);
    for (std::size_t t = 0; t < threads; ++t) {
      thread_keys[t] = space.thread_key(static_cast<int>(t));
      for (std::size_t k : slots_of[t]) thread_keys[t] += slot_key(all_slots[k]);
    }
    std::vector<std::shared_ptr<const SlotClasses>> slot_classes(all_slots.size());
    shape->thread_ids.resize(threads);
    std::vector<bool> known(threads, false);
    const bool shared = settings_.bound.shared_slot_classes;
    if (shared) {
      std::lock_guard lock(mutex_);
      for (std::size_t t = 0; t < threads; ++t)
        if (auto it = by_thread_.find(thread_keys[t]); it != by_thread_.end()) {
          for (std::size_t i = 0; i < slots_of[t].size(); ++i) slot_classes[slots_of[t][i]] = it->second.slots[i];
          shape->thread_ids[t] = it->second.id;
          known[t] = true;
        }
    }
    // Tests without names: the compiler reads none. Built for the first thread not met before.
    std::optional<litmus::SpaceTests> tests;
    std::optional<litmus::Test> first;
    for (std::size_t t = 0; t < threads; ++t) {
      if (known[t]) continue;
      if (!tests) {
        tests.emplace(space, std::function<litmus::Test(litmus::Test)>{}, false);
        first = tests->test(std::vector<std::size_t>(all_slots.size(), 0));
      }
      ThreadClasses found = classify_thread(space, *tests, *first, static_cast<int>(t), slots_of[t]);
      for (std::size_t i = 0; i < slots_of[t].size(); ++i) slot_classes[slots_of[t][i]] = found.slots[i];
      shape->thread_ids[t] = found.id;
      if (!shared) continue;
      std::lock_guard lock(mutex_);
      if (by_thread_.size() >= kSlotsCached) by_thread_.clear();
      by_thread_.emplace(std::move(thread_keys[t]), std::move(found));
    }
    for (std::shared_ptr<const SlotClasses>& classes : slot_classes) shape->slots.push_back(std::move(classes));
    for (const litmus::Slot& slot : all_slots)
      for (const Variation& v : slot.choices) {
        shape->dependency_choice = shape->dependency_choice || v.kind == Variation::Kind::Dependency;
        if (v.kind == Variation::Kind::Fence && across_threads(v)) {
          shape->acquire_fence = shape->acquire_fence || acquires(v.order);
          shape->release_fence = shape->release_fence || releases(v.order);
        }
      }
    return shape;
  }

  // A thread's slot classes (in the order of its slots) and its number (ShapeClasses::thread_ids).
  struct ThreadClasses {
    std::vector<std::shared_ptr<const SlotClasses>> slots;
    std::size_t id = 0;
  };

  ThreadClasses classify_thread(const litmus::VariationSpace& space, litmus::SpaceTests& tests,
                                const litmus::Test& first, int t, const std::vector<std::size_t>& own) {
    const bool shared = settings_.bound.shared_slot_classes;
    const std::string context = thread_context(first, t);
    std::string choices_of_thread;
    std::vector<std::string> keys;
    for (std::size_t k : own) {
      const std::string choices = slot_key(space.slots()[k]);
      keys.push_back(context + choices);
      choices_of_thread += choices;
    }
    ThreadClasses out;
    out.slots.resize(own.size());
    // The slots classified before, looked up under one lock.
    if (shared) {
      std::lock_guard lock(mutex_);
      for (std::size_t i = 0; i < keys.size(); ++i)
        if (auto it = by_slot_.find(keys[i]); it != by_slot_.end()) out.slots[i] = it->second;
    }
    for (std::size_t i = 0; i < own.size(); ++i) {
      if (out.slots[i]) continue;
      const litmus::Slot& slot = space.slots()[own[i]];
      std::size_t compiles = 0;
      const std::vector<SlotCode> codes = slot_codes(space, tests, own[i], settings_.table, settings_.target,
                                                     settings_.catalog, settings_.options.compile, compiles);
      std::set<std::string> slot_rows;
      for (const SlotCode& c : codes)
        if (c.code)
          for (const codegen::Instruction& ins : *c.code)
            if (!ins.origin.row.empty()) slot_rows.insert(ins.origin.row);
      auto found = std::make_shared<const SlotClasses>(
          classify(slot, codes, settings_.bound.every_variation, settings_.options.model.variant));
      std::lock_guard lock(mutex_);
      compiles_ += compiles;
      rows_.insert(slot_rows.begin(), slot_rows.end());
      if (shared) {
        if (by_slot_.size() >= kSlotsCached) by_slot_.clear();
        by_slot_.emplace(std::move(keys[i]), found);
      }
      out.slots[i] = std::move(found);
    }
    std::lock_guard lock(mutex_);
    if (thread_ids_.size() >= kSlotsCached) thread_ids_.clear();  // a thread met again gets a new number
    const auto [it, fresh] = thread_ids_.try_emplace(context + choices_of_thread, next_thread_id_);
    next_thread_id_ += fresh ? 1 : 0;
    out.id = it->second;
    return out;
  }

  // ShapeClasses::accesses and group, read from the space. A generated program holds no
  // branch, barrier, compare-and-swap or filter, and at its slots' first choices no fence or
  // dependency either: a gap's first choice holds nothing, which the thread keys (compute)
  // and the tests of first choices (slot_codes) rely on, so it is checked here.
  static void describe_threads(const litmus::VariationSpace& space, ShapeClasses& shape) {
    const std::vector<litmus::Slot>& slots = space.slots();
    for (const litmus::Slot& slot : slots)
      if (slot.gap && (slot.choices.empty() || slot.choices.front().kind != Variation::Kind::Nothing))
        throw std::logic_error(fmt::format("{}: a gap whose first choice holds something", space.cycle()));
    for (const litmus::Segment g : space.segments()) shape.group.push_back(g == litmus::Segment::Group);
    for (std::size_t k = 0; k < slots.size(); ++k) {
      if (slots[k].gap) continue;
      const auto t = static_cast<std::size_t>(slots[k].thread);
      if (shape.accesses.size() <= t) shape.accesses.resize(t + 1);
      shape.accesses[t].push_back({static_cast<std::size_t>(space.location_of(k)), slots[k].access != 'R'});
    }
  }

  const SearchSettings& settings_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const SlotClasses>> by_slot_;
  std::unordered_map<std::string, ThreadClasses> by_thread_;  // by thread_key and the slots' choices
  std::unordered_map<std::string, std::size_t> thread_ids_;   // ShapeClasses::thread_ids
  std::size_t next_thread_id_ = 0;
  std::size_t compiles_ = 0;
  std::set<std::string> rows_;
};

// The space in `cost`: its cycle, placement and segments (`first` one of its tests).
void describe(SpaceCost& cost, const litmus::VariationSpace& space, const litmus::Test& first) {
  cost.cycle = space.cycle();
  cost.workgroup_of_thread = space.workgroup_of_thread();
  cost.agent_of_thread = space.agent_of_thread();
  for (const std::string& location : first.location_names())
    (first.segment_of(location) == litmus::Segment::Group ? cost.group : cost.global) = true;
}

// Facts 9 and 10 (bound.hpp): spaces decided without a search, thread by thread. Fact 9, in
// one work-group, or in any number where work-groups may split over CUs: every thread's code
// performs in program order each pair of accesses the HSA model may need in order
// (runner::one_cu_unordered_pairs on one CU leaves only an LDS access before a vector memory
// access that no wait orders; runner::several_cus_unordered_pairs on several CUs also cached
// loads, told which locations other threads write; the pairs the model needs are read from
// the annotations, docs/verification.md, fact 9). Fact 10, across work-groups: the
// race-free tests of a program without branches lie in a product of choices per access
// (an access of a location another thread's access conflicts with must be atomic with a
// scope that holds both threads), and every thread's code keeps program order for each
// choice there (runner::thread_keeps_program_order). A thread's verdict depends on its code,
// its slots' choices and classes, and what the space says of the other threads (fact 9:
// whether some fence acquires or releases, and where work-groups may split fact 10's facts;
// fact 10: the choices kept per slot and which locations threads on other CUs and of other
// work-groups write), so it is kept by those and shared by every space
// with the same thread: the threads of a bound repeat across its cycles, placements and
// segment assignments. Shared by the workers.
class OrderKept {
 public:
  enum class Decision { None, NeededOrder, RaceFreeInOrder };

  explicit OrderKept(const SearchSettings& settings)
      : settings_(settings),
        may_split_(codegen::memory_hierarchy(settings.target).workgroup_span(settings.options.compile.flavour) !=
                   codegen::WorkgroupSpan::OneCu) {}

  // What a worker keeps between spaces: the facts, whose vectors and strings keep their
  // storage from one space to the next.
  struct Scratch;

  // Which fact decides `space` (its shape's classes `shape`), if one does.
  Decision decides(const litmus::VariationSpace& space, const ShapeClasses& shape, Scratch& scratch) {
    if (shape.dependency_choice) return Decision::None;  // the model's ldo: not read here
    const std::vector<int>& groups = space.workgroup_of_thread();
    const bool one_group = std::all_of(groups.begin(), groups.end(), [&](int g) { return g == groups.front(); });
    // Fact 9 reads one CU, or, where work-groups may split over CUs (WGP or tgsplit mode),
    // any number of work-groups (runner::several_cus_unordered_pairs). Fact 10 reads spaces
    // across work-groups and, where a work-group may split, those fact 9 leaves in one.
    const bool fact9 = (one_group || may_split_) && settings_.bound.preserved_order;
    const bool fact10 = (!one_group || may_split_) && settings_.bound.race_free_in_order;
    // Fact 10's facts, computed once: fact 9 reads them too where work-groups may split.
    const bool across = (fact10 || (fact9 && may_split_)) && facts_across_groups(space, shape, scratch.across);
    if (fact9) {
      facts_of_needed_order(shape, across ? &scratch.across : nullptr, scratch.needed);
      if (decided_by(space, shape, Decision::NeededOrder, scratch.needed, scratch.keys)) return Decision::NeededOrder;
    }
    if (fact10 && across && decided_by(space, shape, Decision::RaceFreeInOrder, scratch.across, scratch.keys))
      return Decision::RaceFreeInOrder;
    return Decision::None;
  }

 private:
  static constexpr std::size_t kThreadsCached = 1 << 16;

  // What a thread's verdict reads of the rest of its space. Fact 9: whether some fence of the
  // space may acquire, or release, with a scope that holds other threads (the sso shapes that
  // start or end at a fence, HSA SysArch 3.9). Fact 10: per slot and choice, whether a
  // race-free test may hold it, and per thread and location whether a thread of another
  // work-group writes it. `thread_keys` says the part of it that a thread's verdict reads.
  struct Facts {
    bool acquire_fence = false, release_fence = false;
    std::vector<std::vector<bool>> race_free_choice;         // per slot and choice (fact 10)
    std::vector<std::vector<bool>> written_on_other_cus;     // per thread and location (fact 10)
    std::vector<std::vector<bool>> written_in_other_groups;  // per thread and location
    std::vector<std::string> thread_keys;
  };

 public:
  struct Scratch {
    Facts across, needed;
    std::vector<std::string> keys;  // decided_by's, per thread
  };

 private:
  // Whether `fact` (NeededOrder: fact 9; RaceFreeInOrder: fact 10) decides the space, given
  // its facts, thread by thread, each thread's verdict kept by its number and facts key
  // (`keys` holds them). The verdicts kept are looked up under one lock.
  bool decided_by(const litmus::VariationSpace& space, const ShapeClasses& shape, Decision fact, const Facts& facts,
                  std::vector<std::string>& keys) {
    const bool fact9 = fact == Decision::NeededOrder;
    const std::size_t threads = shape.thread_ids.size();
    keys.resize(threads);
    for (std::size_t t = 0; t < threads; ++t) {
      keys[t].clear();
      support::append_raw(keys[t], shape.thread_ids[t]);
      keys[t] += facts.thread_keys[t];
    }
    std::uint32_t known = 0;  // a bit per thread kept
    {
      std::lock_guard lock(mutex_);
      for (std::size_t t = 0; t < threads; ++t)
        if (auto it = by_thread_.find(keys[t]); it != by_thread_.end()) {
          if (!it->second) return false;
          known |= 1u << t;
        }
    }
    std::optional<litmus::SpaceTests> tests;  // built at the first thread not kept
    for (std::size_t t = 0; t < threads; ++t) {
      if (known & (1u << t)) continue;
      if (!tests) tests.emplace(space, std::function<litmus::Test(litmus::Test)>{}, false);
      const bool kept = fact9 ? keeps_needed_order(space, shape.slots, static_cast<int>(t), facts, *tests)
                              : keeps_program_order(space, shape.slots, static_cast<int>(t), facts, *tests);
      std::lock_guard lock(mutex_);
      if (by_thread_.size() >= kThreadsCached) by_thread_.clear();
      by_thread_.emplace(keys[t], kept);
      if (!kept) return false;
    }
    return true;
  }

  // What the choices of one code class of a slot may be, in the model's terms: an atomic
  // access that acquires, releases, or synchronizes at all, or a fence that synchronizes,
  // each with a scope of work-group or wider (a wavefront-scope operation synchronizes only
  // within its own thread: the instance holds no other).
  struct ClassOrders {
    bool acquire = false, release = false, synchronizing = false, fence = false;
  };

  // Fact 9's facts. Where work-groups may split over CUs and fact 10's facts are known (the
  // `hsa` model, straight-line code: `across`), they are read too: only the race-free choices
  // are judged (a racy test has no counterexample), and which locations other threads write
  // says which cache lines may be older than the L2 (runner::several_cus_unordered_pairs).
  void facts_of_needed_order(const ShapeClasses& shape, const Facts* across, Facts& out) const {
    const std::size_t threads = shape.thread_ids.size();
    if (may_split_ && across) {
      out = *across;
    } else {
      out.race_free_choice.clear();
      out.written_on_other_cus.clear();
      out.written_in_other_groups.clear();
      out.thread_keys.assign(threads, std::string());
    }
    out.acquire_fence = shape.acquire_fence;
    out.release_fence = shape.release_fence;
    const std::array<char, 3> key = {'9', out.acquire_fence ? 'a' : '-', out.release_fence ? 'r' : '-'};
    for (std::string& thread_key : out.thread_keys) thread_key.insert(0, key.data(), key.size());
  }

  // Fact 10's facts, for the `hsa` model and a program where every access runs in every
  // execution (a generated program has no branch, barrier, compare-and-swap or filter,
  // describe_threads; no dependency, checked before): two accesses of different threads to one cell, one of them a
  // write, race in some execution unless both are atomic and their scopes match (model::certain_race, HSA
  // SysArch 3.12), that is unless each has a scope whose instance holds both threads (3.3.6,
  // with a group location's agent and system scopes acting as work-group scope), the scope
  // that holds both as placed (placed_common_scope).
  // Written into `out` (false: none, `out` unchanged).
  bool facts_across_groups(const litmus::VariationSpace& space, const ShapeClasses& shape, Facts& out) const {
    if (settings_.options.model.variant != model::ModelVariant::Hsa) return false;
    const std::vector<litmus::Slot>& slots = space.slots();
    const std::vector<int>& groups = space.workgroup_of_thread();
    const std::size_t threads = shape.accesses.size();
    // The threads that may run on another CU than t: those of other work-groups, and where a
    // work-group may split, every other one (runner::thread_keeps_program_order).
    out.written_on_other_cus.resize(threads);
    out.written_in_other_groups.resize(threads);
    for (std::size_t t = 0; t < threads; ++t) {
      out.written_on_other_cus[t].assign(shape.group.size(), false);
      out.written_in_other_groups[t].assign(shape.group.size(), false);
    }
    for (std::size_t t = 0; t < threads; ++t)
      for (std::size_t u = 0; u < threads; ++u)
        if (groups[t] != groups[u] || (may_split_ && u != t))
          for (const ShapeClasses::Access& a : shape.accesses[u])
            if (a.writes) {
              out.written_on_other_cus[t][a.location] = true;
              if (groups[t] != groups[u]) out.written_in_other_groups[t][a.location] = true;
            }
    out.race_free_choice.resize(slots.size());
    for (std::size_t k = 0; k < slots.size(); ++k) {
      const litmus::Slot& slot = slots[k];
      out.race_free_choice[k].assign(slot.choices.size(), true);
      if (slot.gap) continue;
      const auto t = static_cast<std::size_t>(slot.thread);
      const ShapeClasses::Access& own = shape.accesses.at(t).at(static_cast<std::size_t>(slot.index));
      const bool group = shape.group[own.location];
      // The widest level at which this access shares a cell with a conflicting one.
      std::optional<litmus::Scope> needed;
      for (std::size_t u = 0; u < threads; ++u) {
        if (u == t || (group && groups[t] != groups[u])) continue;  // another thread; a group location's own copy
        for (const ShapeClasses::Access& other : shape.accesses[u])
          if (other.location == own.location && (own.writes || other.writes)) {
            const litmus::Scope common = placed_common_scope(space, t, u);
            needed = needed ? std::max(*needed, common) : common;
          }
      }
      if (!needed) continue;
      for (std::size_t j = 0; j < slot.choices.size(); ++j) {
        const Variation& v = slot.choices[j];
        litmus::Scope scope = v.scope;
        if (group && scope > litmus::Scope::WorkGroup) scope = litmus::Scope::WorkGroup;
        out.race_free_choice[k][j] = v.kind == Variation::Kind::Atomic && scope >= *needed;
      }
    }
    // A thread's key: the choices kept per slot, and which of its locations (by first use,
    // as thread_context names them) another work-group writes.
    out.thread_keys.resize(threads);
    for (std::string& key : out.thread_keys) key.assign("10");
    for (std::size_t k = 0; k < slots.size(); ++k) {
      std::string& key = out.thread_keys[static_cast<std::size_t>(slots[k].thread)];
      key += '|';
      for (const bool kept : out.race_free_choice[k]) key += kept ? '1' : '0';
    }
    for (std::size_t t = 0; t < threads; ++t) {
      std::vector<bool> seen(shape.group.size(), false);
      out.thread_keys[t] += '|';
      for (const ShapeClasses::Access& a : shape.accesses[t]) {
        if (seen[a.location]) continue;
        seen[a.location] = true;
        out.thread_keys[t] += out.written_in_other_groups[t][a.location] ? 'g'
                              : out.written_on_other_cus[t][a.location]  ? 'w'
                                                                         : '-';
      }
    }
    return true;
  }

  static ClassOrders orders_of(const litmus::Slot& slot, const SlotClasses& cls, std::size_t c) {
    ClassOrders out;
    for (std::size_t j = 0; j < slot.choices.size(); ++j) {
      if (cls.class_of[j] != c) continue;
      const Variation& v = slot.choices[j];
      if (!across_threads(v) || v.order == MemoryOrder::Relaxed) continue;
      if (v.kind == Variation::Kind::Fence) out.fence = true;
      if (v.kind != Variation::Kind::Atomic) continue;
      out.synchronizing = true;
      out.acquire = out.acquire || acquires(v.order);
      out.release = out.release || releases(v.order);
    }
    return out;
  }

  // Calls `judge(test, lowered, product)` for every product of thread `t`'s code classes that
  // holds a kept choice in each slot (`kept`, per slot and choice; every choice when empty),
  // the test compiled with a member of each class; false as soon as it is (or the compiler
  // refuses the code, or the simulator cannot run it: the search says what).
  template <typename Judge>
  bool every_product(const litmus::VariationSpace& space, const SlotClassList& classes, int t,
                     const std::vector<std::vector<bool>>& kept, litmus::SpaceTests& tests, Judge judge) const {
    const std::vector<litmus::Slot>& slots = space.slots();
    std::vector<std::size_t> own;                   // the thread's slots
    std::vector<std::vector<std::size_t>> members;  // per own slot, one kept member per class holding one
    for (std::size_t k = 0; k < slots.size(); ++k) {
      if (slots[k].thread != t) continue;
      own.push_back(k);
      std::vector<std::size_t>& by_class = members.emplace_back();
      std::vector<bool> seen(classes[k].representative.size(), false);
      for (std::size_t j = 0; j < slots[k].choices.size(); ++j)
        if ((kept.empty() || kept[k][j]) && !seen[classes[k].class_of[j]]) {
          seen[classes[k].class_of[j]] = true;
          by_class.push_back(j);
        }
      if (by_class.empty()) return true;  // no test of the space is race-free
    }
    std::vector<std::size_t> choice(slots.size(), 0), product(own.size(), 0);
    // The other threads as first compiled and lowered: only `t` changes.
    std::optional<codegen::CompiledTest> compiled;
    std::optional<runner::LoweredProgram> lowered;
    for (;;) {
      for (std::size_t i = 0; i < own.size(); ++i) choice[own[i]] = members[i][product[i]];
      const litmus::Test& test = tests.test(choice);
      try {
        if (!compiled) {
          compiled =
              codegen::compile(test, settings_.target, settings_.catalog, settings_.table, settings_.options.compile);
          lowered = runner::lower_program(test, *compiled);
        } else {
          compiled->threads.at(static_cast<std::size_t>(t)) = codegen::compile_thread(
              test, t, settings_.target, settings_.catalog, settings_.table, settings_.options.compile);
          runner::relower_thread(*lowered, test, *compiled, t);
        }
        if (!judge(test, *lowered, choice)) return false;
      } catch (const std::exception&) {
        return false;
      }
      std::size_t i = 0;
      while (i < own.size() && ++product[i] == members[i].size()) product[i++] = 0;
      if (i == own.size()) return true;
    }
  }

  // Fact 10 for thread `t`: its code keeps program order for every kept choice of its slots.
  bool keeps_program_order(const litmus::VariationSpace& space, const SlotClassList& classes, int t, const Facts& facts,
                           litmus::SpaceTests& tests) const {
    const std::vector<bool>& written = facts.written_on_other_cus[static_cast<std::size_t>(t)];
    return every_product(
        space, classes, t, facts.race_free_choice, tests,
        [&](const litmus::Test& test, const runner::LoweredProgram& lowered, const std::vector<std::size_t>&) {
          return shares_scopes_as_placed(space, test) &&
                 runner::thread_keeps_program_order(test, lowered, t, written, settings_.options.sim);
        });
  }

  // The narrowest scope whose instance holds threads t and u of the space, each thread in a
  // wave of its own as the generator places them: their work-group, else their agent, else
  // the system.
  static litmus::Scope placed_common_scope(const litmus::VariationSpace& space, std::size_t t, std::size_t u) {
    const std::vector<int>& groups = space.workgroup_of_thread();
    const std::vector<int>& agents = space.agent_of_thread();
    return groups[t] == groups[u]   ? litmus::Scope::WorkGroup
           : agents[t] == agents[u] ? litmus::Scope::Agent
                                    : litmus::Scope::System;
  }

  // Whether the test's threads share the scopes facts_across_groups takes them to share
  // (placed_common_scope).
  static bool shares_scopes_as_placed(const litmus::VariationSpace& space, const litmus::Test& test) {
    const std::size_t threads = space.workgroup_of_thread().size();
    for (std::size_t t = 0; t < threads; ++t)
      for (std::size_t u = 0; u < threads; ++u)
        if (t != u &&
            test.scopes.common_scope(static_cast<int>(t), static_cast<int>(u)) != placed_common_scope(space, t, u))
          return false;
    return true;
  }

  // Fact 9 for thread `t`: each pair the machine may perform out of order is checked against
  // what any choice of the classes may need kept in order.
  bool keeps_needed_order(const litmus::VariationSpace& space, const SlotClassList& classes, int t, const Facts& facts,
                          litmus::SpaceTests& tests) const {
    const std::vector<litmus::Slot>& slots = space.slots();
    std::map<int, std::size_t> access_slot, gap_slot;  // by access index
    for (std::size_t k = 0; k < slots.size(); ++k)
      if (slots[k].thread == t) (slots[k].gap ? gap_slot : access_slot)[slots[k].index] = k;
    // Where the race-free choices are known, the locations other threads write are too (else
    // every location is taken as written).
    const bool race_free = !facts.race_free_choice.empty();
    runner::OtherWriters others;
    if (race_free)
      others = {facts.written_on_other_cus[static_cast<std::size_t>(t)],
                facts.written_in_other_groups[static_cast<std::size_t>(t)]};
    return every_product(
        space, classes, t, facts.race_free_choice, tests,
        [&](const litmus::Test& test, const runner::LoweredProgram& lowered, const std::vector<std::size_t>& choice) {
          if (race_free && !shares_scopes_as_placed(space, test)) return false;
          // One CU, or one work-group split over CUs (WGP or tgsplit mode).
          std::optional<std::vector<runner::UnorderedPair>> pairs =
              runner::one_cu_unordered_pairs(test, lowered, t, settings_.options.sim);
          if (!pairs) pairs = runner::several_cus_unordered_pairs(test, lowered, t, settings_.options.sim, others);
          if (!pairs) return false;
          std::vector<ClassOrders> orders(slots.size());
          for (const auto& [index, k] : access_slot)
            orders[k] = orders_of(slots[k], classes[k], classes[k].class_of[choice[k]]);
          for (const auto& [index, k] : gap_slot)
            orders[k] = orders_of(slots[k], classes[k], classes[k].class_of[choice[k]]);
          const std::vector<litmus::Instruction>& code = test.threads[static_cast<std::size_t>(t)].code;
          for (const runner::UnorderedPair& pair : *pairs) {
            const int a = access_index(code, pair.earlier), b = access_index(code, pair.later);
            if (a < 0 || b <= a) return false;
            // One location is one path, so this does not happen; if it did, coherence would need it.
            if (code[static_cast<std::size_t>(pair.earlier)].addr == code[static_cast<std::size_t>(pair.later)].addr)
              return false;
            if (needs_order(a, b, access_slot, gap_slot, orders, slots, facts)) return false;
          }
          return true;
        });
  }

  // The index among the thread's memory accesses of its instruction `instruction` (-1: none).
  static int access_index(const std::vector<litmus::Instruction>& code, int instruction) {
    if (instruction < 0 || static_cast<std::size_t>(instruction) >= code.size() ||
        !code[static_cast<std::size_t>(instruction)].is_memory_access())
      return -1;
    return static_cast<int>(std::count_if(code.begin(), code.begin() + instruction,
                                          [](const litmus::Instruction& i) { return i.is_memory_access(); }));
  }

  // Whether some choice of the classes makes the model need accesses a and b (indices among
  // the thread's accesses, a < b, different locations) performed in program order
  // (docs/verification.md, fact 9, rules 1 to 6).
  static bool needs_order(int a, int b, const std::map<int, std::size_t>& access_slot,
                          const std::map<int, std::size_t>& gap_slot, const std::vector<ClassOrders>& orders,
                          const std::vector<litmus::Slot>& slots, const Facts& facts) {
    for (int i = a; i <= b; ++i)
      if (!access_slot.contains(i)) return true;  // an access without a slot: not read here
    const ClassOrders& first = orders[access_slot.at(a)];
    const ClassOrders& second = orders[access_slot.at(b)];
    if (first.acquire || second.release || (first.synchronizing && second.synchronizing)) return true;  // 1 to 3
    bool release_between = false, acquire_between = false;
    for (int i = a + 1; i <= b; ++i) {
      if (auto g = gap_slot.find(i); g != gap_slot.end() && orders[g->second].fence) return true;  // 4
      if (i == b) break;
      release_between = release_between || orders[access_slot.at(i)].release;
      acquire_between = acquire_between || orders[access_slot.at(i)].acquire;
    }
    const bool writes = slots[access_slot.at(b)].access != 'R';
    if (facts.acquire_fence && writes && (first.release || release_between)) return true;  // 5
    if (facts.release_fence && (second.acquire || acquire_between)) return true;           // 6
    return false;
  }

  const SearchSettings& settings_;
  const bool may_split_;  // the waves of a work-group may run on several CUs (WGP or tgsplit mode)
  std::mutex mutex_;
  std::unordered_map<std::string, bool> by_thread_;  // by thread id and Facts::thread_keys (decided_by)
};

// The model's answers within a space, by the choices of its slots (the tests of one space
// differ in nothing else, so a repeated question builds and prints no test), and the
// partial answers of scoring queries. With fact 6 the spaces of a cycle and one-work-group
// placement that differ only in their segments share them: a worker searches a cycle's
// spaces one after the other, and keeps the answers while the cycle and placement stay.
class ModelAnswers {
 public:
  struct Partial {
    std::set<model::Outcome> sought;  // the outcomes it was asked about
    model::CheckResult answer;        // which of them the test allows
  };
  std::map<std::vector<std::size_t>, model::CheckResult> whole;
  std::map<std::vector<std::size_t>, Partial> partial;  // the latest per test

  // A question about which of `sought` the test of `choices` allows, narrowed by fact 2: a
  // test allows every outcome that a stronger race-free test allows, and none that a weaker
  // race-free one forbids. `stronger(a, b)`: the test of choices `a` is at least as strong
  // as that of `b` in every slot.
  struct Narrowed {
    std::set<model::Outcome> asked;       // what no answer kept decides
    std::vector<model::Outcome> allowed;  // what a stronger test allows, of the question's
  };
  template <typename Stronger>
  Narrowed narrow(const std::vector<std::size_t>& choices, const std::set<model::Outcome>& sought,
                  Stronger stronger) const {
    auto among = [](const std::vector<model::Outcome>& sorted, const model::Outcome& o) {
      return std::binary_search(sorted.begin(), sorted.end(), o);
    };
    auto usable = [](const model::CheckResult& a) { return !a.racy && !a.unknown(); };
    Narrowed q{sought, {}};
    for (const auto& [other, answer] : whole)  // a weaker test allows only its outcomes
      if (usable(answer) && stronger(choices, other))
        std::erase_if(q.asked, [&](const model::Outcome& o) { return !among(answer.outcomes, o); });
    for (const auto& [other, kept] : partial)  // a weaker test forbids what it was asked and did not allow
      if (usable(kept.answer) && stronger(choices, other))
        std::erase_if(q.asked,
                      [&](const model::Outcome& o) { return kept.sought.count(o) && !among(kept.answer.outcomes, o); });
    auto allowed_by = [&](const model::CheckResult& stronger_answer) {
      for (auto it = q.asked.begin(); it != q.asked.end();)
        if (among(stronger_answer.outcomes, *it)) {
          q.allowed.push_back(*it);
          it = q.asked.erase(it);
        } else {
          ++it;
        }
    };
    for (const auto& [other, answer] : whole)
      if (usable(answer) && stronger(other, choices)) allowed_by(answer);
    for (const auto& [other, kept] : partial)
      if (usable(kept.answer) && stronger(other, choices)) allowed_by(kept.answer);
    return q;
  }

  // Makes these the answers for a space of `cycle`: kept when `shared` (its threads share a
  // work-group) and the space before was one of the cycle's shared ones, emptied otherwise.
  void start(const std::string& cycle, bool shared) {
    std::string key = shared ? cycle : std::string();
    if (key.empty() || key != key_) {
      whole.clear();
      partial.clear();
    }
    key_ = std::move(key);
  }

 private:
  std::string key_;  // the cycle of the answers kept (one work-group), empty when none are shared
};

// The SC final states of a cycle's programs (fact 7), by what their dependency gaps hold:
// orders, scopes and fences change no value, a placement changes none either (SC reads no
// scope), and a group location, which the generator gives only to threads that share a
// work-group, has one copy there as a global one does (model::Program::copy_of). So the
// spaces of a cycle, which a worker searches one after the other, share them.
class CycleScStates {
 public:
  // Makes these the states of `cycle`'s programs: emptied when the cycle changes.
  void start(const std::string& cycle) {
    if (cycle == cycle_) return;
    by_dependencies.clear();
    cycle_ = cycle;
  }
  // nullopt: not computed (model::sc_outcomes gave up).
  std::map<std::string, std::optional<std::vector<model::Outcome>>> by_dependencies;

 private:
  std::string cycle_;
};

// The search of one space, depth-first over its slots: at each slot, one maximal member of
// each of its code classes. Before going deeper, the test with the chosen prefix and every
// later slot at its strongest choice (the upper test) is asked for races: if even it is
// racy, every test below is (fact 2), and the subtree is skipped; if it is race-free, the
// program with every later slot at its weakest live code may decide the subtree (fact 3).
// docs/verification.md, "Every variation of a bound", says why each step is sound.
class SpaceSearch {
 public:
  using Record = std::function<void(TestVerification&&)>;

  // `counts`: the worker's own pruning counters (of BoundStatistics), added to the bound's
  // at the end.
  SpaceSearch(const SearchSettings& settings, SearchControl& control, std::size_t space_index,
              const litmus::VariationSpace& space, const SlotClassList& classes, BoundStatistics& counts,
              ModelAnswers& answers, CycleScStates& sc_states, const Record& record)
      : settings_(settings),
        control_(control),
        space_index_(space_index),
        space_(space),
        slots_(space.slots()),
        cls_(classes),
        n_(slots_.size()),
        counts_(counts),
        answers_(answers),
        sc_states_(sc_states),
        record_(record),
        cache_(settings.candidates, kKeptSimulations),
        first_(space.test(std::vector<std::size_t>(n_, 0))),
        observed_(
            space, [](const litmus::Test& test) { return observe_everything(test); }, false) {
    top_.resize(n_);
    for (std::size_t k = 0; k < n_; ++k) top_[k] = strongest(slots_[k], settings_.options.model.variant);
    start_order();
    // With fact 4, the upper tests take the narrowest scope the model cannot tell apart from
    // each slot's strongest choice: the same answers, and a descent that takes that choice
    // keeps the upper test of its parent.
    if (settings_.narrowing) equivalents_ = scope_equivalents(space_, cls_);
    upper_choice_ = top_;
    if (settings_.narrowing)
      for (std::size_t k = 0; k < n_; ++k)
        if (top_[k]) upper_choice_[k] = equivalents_.narrowest[k][*top_[k]];
    choice_.assign(n_, 0);
    answers_.start(space_.cycle(), settings_.shared_answers && first_.scopes.one_instance(litmus::Scope::WorkGroup));
    sc_states_.start(space_.cycle());
    weakest_tries_.resize(n_);
    weakest_at_.resize(n_);
    reference_.resize(n_ + 1);
    find_classes_that_may_be_dead();
  }

  // Searches the space; what it cost, the space described only for BoundOptions::on_space.
  SpaceCost run() {
    const auto start = std::chrono::steady_clock::now();
    descend(0, true);
    cost_.seconds = seconds_since(start);
    if (settings_.bound.on_space) describe(cost_, space_, first_);
    return cost_;
  }

 private:
  // The model's answers within the space: the upper test of the last slot is also the leaf
  // whose last choice is that slot's strongest, and is judged once. The space's tests differ
  // only in orders and scopes, so the enum engine lists the candidate executions of each
  // program once and evaluates them again for the others. The simulations too: a subtree's
  // weakest code is often its parent's (the slot just fixed at its weakest class), and a
  // leaf's code is that of the weakest-code simulation just above it; the latest
  // kKeptSimulations are kept by their code (and the weakest programs by their choices,
  // weakest_run).
  static constexpr std::size_t kKeptSimulations = 32;
  // Per depth of the search, how the weakest-code simulations there went in this space.
  // Near the root they fail (the weakest code of many open slots reaches what the strongest
  // test forbids) and cost the most; after kFutileWeakest failures without a success at a
  // depth, that depth is searched without them (skipping one only loses a pruning).
  static constexpr std::size_t kFutileWeakest = 4;
  struct WeakestTries {
    std::size_t failed = 0, decided = 0;
  };
  // A weakest program's test and simulation (weakest_run), the choices the test was built
  // from, and with BoundOptions::check_weakest_runs its code, per thread.
  struct WeakestRun {
    litmus::Test test;
    std::shared_ptr<const runner::SimResult> sim;
    std::vector<std::size_t> choices;
    std::vector<std::vector<codegen::Instruction>> code;
    // Its code keeps program order on the machine (fact 8): every final state it reaches is
    // SC, and it is not simulated.
    bool in_program_order = false;
  };
  // A weakest-code simulation that reached final states the upper test forbids.
  struct FailedWeakest {
    std::shared_ptr<const runner::SimResult> sim;
    std::set<model::Outcome> outcomes;           // those final states, over `evaluated`
    std::vector<litmus::ObservedRef> evaluated;  // the upper test's columns
    std::size_t forbidden() const { return outcomes.size(); }
  };
  // What the live classes of the open slots give: the weakest program (`Program`), every
  // test below racy (`Dead`: a slot without a live class), or no weakest program (`None`).
  enum class Lower { Program, Dead, None };

  // The starting order of the slots: those without a strongest choice (gaps that may hold a
  // dependency) first, so the prunings can apply to the deeper levels; within each group,
  // the loads (and the gaps before loads) before the stores and rmws. Deciding the loads
  // first leaves the stores open below, where the weakest-code simulations decide more
  // (their loads are fixed, which also keeps the L1's states few): on a 3 x 3 shard 213 s
  // instead of 315 s, docs/PERFORMANCE.md. Below a prefix whose weakest code failed, the
  // search takes that prefix's critical slot next (take_critical_slot).
  void start_order() {
    order_.resize(n_);
    std::iota(order_.begin(), order_.end(), 0);
    auto rank = [&](std::size_t k) { return std::pair{top_[k].has_value(), slots_[k].access != 'R'}; };
    std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
    tops_from_.assign(n_ + 1, true);
    for (std::size_t p = n_; p-- > 0;) tops_from_[p] = tops_from_[p + 1] && top_[order_[p]].has_value();
    leaves_from_.assign(n_ + 1, 1);
    recount_leaves(0);
  }

  // Products of maximal choices per slot, and below position p of `order_` from `from` on.
  std::size_t members_of(std::size_t k) const {
    std::size_t here = 0;
    for (const auto& m : cls_[k].maxima) here += m.size();
    return here;
  }
  void recount_leaves(std::size_t from) {
    for (std::size_t q = n_; q-- > from;) leaves_from_[q] = leaves_from_[q + 1] * members_of(order_[q]);
  }

  bool worth_simulating(std::size_t p) const {
    return weakest_tries_[p].decided > 0 || weakest_tries_[p].failed < kFutileWeakest;
  }
  void note_weakest(std::size_t p, bool decided) { ++(decided ? weakest_tries_[p].decided : weakest_tries_[p].failed); }

  // Which of `sought` the test of `choices` allows, and whether it races (the enum engine
  // evaluates only the executions with those outcomes when the test cannot race,
  // model::CheckOptions::only_outcomes; a program that may race is checked whole, and the
  // whole answer is kept as such). The search asks only such questions: about no outcome
  // (whether an upper test or a live class's test races), about the final states of a
  // weakest-code simulation that nothing known allows, and scoring queries. Answers are kept
  // by the choices; a partial one until the test is asked about others, since it also
  // answers a question about some of its outcomes. A child whose upper test is its parent's
  // scores the same slots against the same final states.
  const model::CheckResult& ask_model(const std::vector<std::size_t>& choices, const std::set<model::Outcome>& sought) {
    const auto start = std::chrono::steady_clock::now();
    const model::CheckResult* r = nullptr;
    auto partial = answers_.partial.find(choices);
    if (auto it = answers_.whole.find(choices); it != answers_.whole.end()) {
      r = &it->second;
      ++cost_.kept_answers;
    } else if (partial != answers_.partial.end() &&
               std::includes(partial->second.sought.begin(), partial->second.sought.end(), sought.begin(),
                             sought.end())) {
      r = &partial->second.answer;
      ++cost_.kept_answers;
    } else {
      const litmus::Test& test = observed_.test(choices);
      model::CheckResult answer = ask_engine(test, choices, sought);
      if (answer.partial) {
        r = &(answers_.partial[choices] = ModelAnswers::Partial{sought, std::move(answer)}).answer;
      } else {
        r = &answers_.whole.emplace(choices, std::move(answer)).first->second;
      }
    }
    cost_.model_seconds += seconds_since(start);
    ++cost_.model_queries;
    if (r->racy) ++cost_.racy_answers;
    return *r;
  }

  // Whether the test of `choices` races, as a question about no final state: the enum
  // engine answers it without enumerating for a program that cannot race
  // (model::cannot_race) or certainly races (certain_race), and checks the others whole.
  const model::CheckResult& ask_race(const std::vector<std::size_t>& choices) {
    static const std::set<model::Outcome> nothing;
    return ask_model(choices, nothing);
  }

  // The engine's answer about which of `sought` the test of `choices` allows. With
  // BoundOptions::answers_by_strength the engine is asked only about the outcomes that no
  // answer kept decides (ModelAnswers::narrow), and the outcomes known allowed are added to
  // its answer. A program that may race is checked whole by the engine whatever it is asked
  // (model::CheckOptions::only_outcomes), and a racy answer needs nothing added.
  model::CheckResult ask_engine(const litmus::Test& test, const std::vector<std::size_t>& choices,
                                const std::set<model::Outcome>& sought) {
    const model::CheckOptions& options = settings_.options.model;
    if (!settings_.bound.answers_by_strength) return cache_.check_within(test, options, sought);
    const ModelAnswers::Narrowed q =
        answers_.narrow(choices, sought, [&](const std::vector<std::size_t>& a, const std::vector<std::size_t>& b) {
          for (std::size_t k = 0; k < n_; ++k)
            if (!at_least_as_strong(slots_[k].choices[a[k]], slots_[k].choices[b[k]], settings_.options.model.variant))
              return false;
          return true;
        });
    if (q.asked.size() < sought.size()) ++cost_.narrowed_questions;
    model::CheckResult answer = cache_.check_within(test, options, q.asked);
    if (!answer.partial || answer.racy || answer.unknown()) return answer;
    std::set<model::Outcome> allowed(answer.outcomes.begin(), answer.outcomes.end());
    allowed.insert(q.allowed.begin(), q.allowed.end());
    answer.outcomes.assign(allowed.begin(), allowed.end());
    if (settings_.bound.check_narrowed_answers) {
      const model::CheckResult plain = cache_.check_within(test, options, sought);
      if (plain.racy || plain.unknown() || plain.outcomes != answer.outcomes)
        throw std::logic_error(
            fmt::format("{}: the narrowed question's answer ({} outcomes) is not the question's ({})", name_of(choices),
                        answer.outcomes.size(), plain.outcomes.size()));
    }
    return answer;
  }

  // Whether every test below the prefix is sound or racy: the program with every later slot
  // at its weakest code (`lower`) reaches only final states that the strongest test below
  // (`upper`, race-free) allows. Each test below compiles to code at least as strong (fewer
  // final states, `code_at_least`) and allows at least as much (the model is monotone), so
  // its final states are within its allowed set. `failed` receives the simulation when it
  // reached a final state that `upper` forbids.
  //
  // The model is asked only about the final states nothing known allows already: a final
  // state of an SC interleaving of the program is allowed by every race-free test
  // (BoundOptions::sc_final_states, model/sc.hpp), and one that `reference` (the failed
  // simulation nearest above, whose upper test is at least as strong, so allows no more by
  // fact 2) reached and did not find forbidden is allowed here too
  // (BoundOptions::partial_upper_answers). When nothing is
  // left, the subtree is decided without a question; otherwise the question is about those
  // final states only, mostly a subset of what scoring asked (`reference->outcomes`).
  bool sound_below(const std::vector<std::size_t>& lower, const std::vector<std::size_t>& upper,
                   const FailedWeakest* reference, std::optional<FailedWeakest>& failed) {
    const WeakestRun& run = weakest_run(lower);
    if (run.in_program_order) {
      ++counts_.weaker_code_in_program_order;
      ++cost_.decided_unasked;
      return true;
    }
    if (!run.sim || run.sim->unknown) return false;  // decided test by test below
    const litmus::Test& weak = run.test;
    const std::shared_ptr<const runner::SimResult>& sim = run.sim;
    const std::vector<litmus::ObservedRef> columns = weak.observed();
    const ColumnMap column = model_columns(columns, sim->observed);
    if (column.incomparable) return false;
    const std::vector<model::Outcome>* sc =
        settings_.bound.sc_final_states ? sc_final_states(lower, run.choices == lower ? &weak : nullptr) : nullptr;
    const bool above = reference && reference->evaluated == columns && reference->sim->observed == sim->observed;
    std::set<model::Outcome> asked;
    for (const auto& [outcome, count] : sim->histogram) {
      model::Outcome o = column.in_model_order(outcome, columns.size());
      if (sc && std::binary_search(sc->begin(), sc->end(), o)) continue;
      if (above && !reference->outcomes.count(o) && reference->sim->histogram.count(outcome)) continue;
      asked.insert(std::move(o));
    }
    if (asked.empty()) {
      ++cost_.decided_unasked;
      return true;
    }
    const model::CheckResult& m = ask_model(upper, asked);
    if (m.unknown() || m.racy || m.evaluated != columns) return false;
    std::set<model::Outcome> forbidden;
    for (const model::Outcome& o : asked)
      if (!std::binary_search(m.outcomes.begin(), m.outcomes.end(), o)) forbidden.insert(o);
    if (forbidden.empty()) return true;
    failed = FailedWeakest{sim, std::move(forbidden), columns};
    return false;
  }

  // The test of the weakest program `lower` (every register and location observed) and its
  // exhaustive simulation, null when its code cannot be compiled or simulated. Kept for the
  // space by the code classes of the choices, which give the code
  // (BoundOptions::weakest_runs_by_class): the weakest programs of siblings often have the
  // same classes (the prefix's slots at other members of a class), and 37 % of shard 42's
  // weakest-code simulations were such repeats, each of which built its test and compiled
  // its code again only to find its simulation kept by its code. The test kept may differ
  // from `lower`'s in orders and scopes only, which neither the simulator nor the test's
  // columns read.
  const WeakestRun& weakest_run(const std::vector<std::size_t>& lower) {
    std::vector<std::size_t> key = lower;
    if (settings_.bound.weakest_runs_by_class)
      for (std::size_t k = 0; k < n_; ++k) key[k] = cls_[k].class_of[lower[k]];
    auto it = weakest_runs_.find(key);
    if (it == weakest_runs_.end()) {
      WeakestRun run{observed_.test(lower), nullptr, lower, {}};
      try {
        const codegen::CompiledTest compiled = compile_weakest(run.test, lower);
        if (settings_.bound.check_weakest_runs) {
          run.code = thread_code(compiled);
          check_threads_kept(run);
        }
        runner::SimOptions quiet = settings_.options.sim;
        quiet.keep_traces = false;
        quiet.pass_invisible_steps = true;
        // Lowered once for both questions; code the simulator cannot execute throws here.
        const runner::LoweredProgram lowered = runner::lower_program(run.test, compiled);
        run.in_program_order = settings_.bound.program_order_kept && settings_.bound.sc_final_states &&
                               runner::keeps_program_order(run.test, lowered, quiet);
        if (!run.in_program_order || settings_.bound.check_program_order) {
          const auto start = std::chrono::steady_clock::now();
          run.sim = cache_.simulate(run.test, compiled, quiet, &lowered);
          cost_.simulation_seconds += seconds_since(start);
        }
        if (run.in_program_order && settings_.bound.check_program_order) check_program_order(lower, run);
      } catch (const std::runtime_error&) {
        // Code the table cannot compile (codegen::CompileError) or the simulator cannot run:
        // decided test by test below. A check's std::logic_error is a failure and goes on up.
        run.sim = nullptr;
        run.in_program_order = false;
      }
      it = weakest_runs_.emplace(std::move(key), std::move(run)).first;
    } else if (it->second.sim || it->second.in_program_order) {
      ++cost_.kept_weakest;
      if (settings_.bound.check_weakest_runs) check_kept_code(lower, it->second);
    }
    if (it->second.in_program_order)
      ++cost_.in_program_order;
    else if (it->second.sim)
      ++cost_.simulations;
    return it->second;
  }

  // BoundOptions::check_program_order: a weakest program whose code keeps program order
  // reaches only SC final states (fact 8).
  void check_program_order(const std::vector<std::size_t>& lower, const WeakestRun& run) {
    if (!run.sim || run.sim->unknown) return;
    const std::vector<model::Outcome>* sc = sc_final_states(lower, &run.test);
    if (!sc) return;
    const std::vector<litmus::ObservedRef> columns = run.test.observed();
    const ColumnMap column = model_columns(columns, run.sim->observed);
    if (column.incomparable) return;
    for (const auto& [outcome, count] : run.sim->histogram)
      if (!std::binary_search(sc->begin(), sc->end(), column.in_model_order(outcome, columns.size())))
        throw std::logic_error(
            fmt::format("{}: code said to keep program order reaches a final state no SC "
                        "interleaving reaches",
                        name_of(lower)));
  }

  codegen::CompiledTest compile(const litmus::Test& test) const {
    return codegen::compile(test, settings_.target, settings_.catalog, settings_.table, settings_.options.compile);
  }

  // The code of the weakest program `choices` (its test `test`), a thread at a time, each
  // kept for the space by the code classes of its slots: a thread compiles on its own, and
  // its slots' classes fix its instructions (fact 1). The weakest programs of a space mostly
  // differ in one thread, the one whose slot the search just fixed, so most threads are
  // compiled once (with BoundOptions::weakest_runs_by_class, which rests on the same fact).
  codegen::CompiledTest compile_weakest(const litmus::Test& test, const std::vector<std::size_t>& choices) {
    if (!settings_.bound.weakest_runs_by_class) return compile(test);
    const codegen::CompileOptions& options = settings_.options.compile;
    codegen::CompiledTest out{test.name,       settings_.target.name, settings_.table.name(),
                              options.flavour, options.generic,       {}};
    for (std::size_t t = 0; t < test.threads.size(); ++t) {
      std::vector<std::size_t> key{t};
      for (std::size_t k = 0; k < n_; ++k)
        if (static_cast<std::size_t>(slots_[k].thread) == t) key.push_back(cls_[k].class_of[choices[k]]);
      auto it = threads_by_class_.find(key);
      if (it == threads_by_class_.end())
        it = threads_by_class_
                 .emplace(std::move(key), codegen::compile_thread(test, static_cast<int>(t), settings_.target,
                                                                  settings_.catalog, settings_.table, options))
                 .first;
      out.threads.push_back(it->second);
    }
    return out;
  }

  // BoundOptions::check_weakest_runs: the threads kept by their slots' classes are the
  // weakest program's own code.
  void check_threads_kept(const WeakestRun& run) const {
    if (!settings_.bound.weakest_runs_by_class) return;
    const std::vector<std::vector<codegen::Instruction>> own = thread_code(compile(run.test));
    if (own != run.code)
      throw std::logic_error(
          fmt::format("{}: a weakest program's threads kept by their code classes are not its "
                      "code:\n{}\nkept:\n{}",
                      name_of(run.choices), printed(own), printed(run.code)));
  }
  static std::vector<std::vector<codegen::Instruction>> thread_code(const codegen::CompiledTest& compiled) {
    std::vector<std::vector<codegen::Instruction>> code;
    for (const codegen::CompiledThread& t : compiled.threads) code.push_back(t.code);
    return code;
  }
  static std::string printed(const std::vector<std::vector<codegen::Instruction>>& code) {
    std::string text;
    for (const std::vector<codegen::Instruction>& thread : code) text += codegen::print(thread, false) + "\n";
    return text;
  }
  // BoundOptions::check_weakest_runs: `lower`'s own code is the kept run's, by the equality
  // that code classes group choices by (codegen::append_key, operator==).
  void check_kept_code(const std::vector<std::size_t>& lower, const WeakestRun& kept) {
    const litmus::Test& test = observed_.test(lower);
    const std::vector<std::vector<codegen::Instruction>> code = thread_code(compile(test));
    if (code != kept.code)
      throw std::logic_error(
          fmt::format("{}: a weakest program's code is not that of the run kept for its code "
                      "classes:\n{}\nkept:\n{}",
                      name_of(lower), printed(code), printed(kept.code)));
  }

  // A test's name for a message: the search's own tests (observed_) carry none.
  std::string name_of(const std::vector<std::size_t>& choices) const { return space_.test(choices).name; }

  // The SC final states of the test of `choices` (every register and location observed;
  // `built`, when given, is that test), sorted; null when they were not computed. The tests
  // of a cycle run one program as far as SC is concerned but for their dependencies, so
  // they are kept for the cycle by what the dependency gaps hold (CycleScStates).
  const std::vector<model::Outcome>* sc_final_states(const std::vector<std::size_t>& choices,
                                                     const litmus::Test* built) {
    std::string key;
    for (std::size_t k = 0; k < n_; ++k) {
      const Variation& v = slots_[k].choices[choices[k]];
      key += v.kind == Variation::Kind::Dependency ? static_cast<char>('a' + static_cast<int>(v.dependency)) : '-';
    }
    // Group locations with several work-groups (copies per work-group): this space's own.
    if (!first_.scopes.one_instance(litmus::Scope::WorkGroup) &&
        std::any_of(first_.regions.begin(), first_.regions.end(),
                    [](const litmus::RegionEntry& r) { return r.segment == litmus::Segment::Group; }))
      key += fmt::format("|{}", space_index_);
    auto& kept = sc_states_.by_dependencies;
    auto it = kept.find(key);
    if (it == kept.end()) {
      const litmus::Test& test = built ? *built : observed_.test(choices);
      model::ScOutcomes found = model::sc_outcomes(model::Program(test), test.observed());
      it = kept.emplace(std::move(key), found.unknown_reason ? std::nullopt : std::optional(std::move(found.outcomes)))
               .first;
    }
    return it->second ? &*it->second : nullptr;
  }

  bool holds_every_thread(int thread, litmus::Scope scope) const {
    for (int u = 0; u < static_cast<int>(first_.threads.size()); ++u)
      if (!first_.scopes.same_instance(thread, u, scope)) return false;
    return true;
  }

  // Only the classes that may be dead are asked about: those whose every maximal choice is
  // ordinary or atomic at a scope whose instance misses some thread of the test. The others
  // are taken as live without a query (taking a class as live only loses a pruning), which
  // spares the race-free queries, the costly ones, where every thread shares a work-group.
  void find_classes_that_may_be_dead() {
    may_be_dead_.assign(n_, {});
    for (std::size_t k = 0; k < n_; ++k)
      for (const std::vector<std::size_t>& members : cls_[k].maxima)
        may_be_dead_[k].push_back(std::all_of(members.begin(), members.end(), [&](std::size_t m) {
          const Variation& v = slots_[k].choices[m];
          return v.kind == Variation::Kind::Ordinary ||
                 (v.kind == Variation::Kind::Atomic && !holds_every_thread(slots_[k].thread, v.scope));
        }));
  }

  // The program whose code every race-free test below the prefix strengthens: each later
  // slot at the weakest of its *live* code classes, those with a maximal choice whose test
  // (the prefix, that choice, every other later slot at its upper choice) is race-free. A
  // test below with a choice of no live class is racy (fact 2: it lies below that racy
  // test), so it need not be covered. Near the root this matters most across work-groups:
  // a plain load of a location another work-group writes races (3.12) there, so the
  // weakest code loads with `glc` instead of from a possibly stale L1 line. With `ask` off
  // every class is live.
  Lower weakest_live(std::size_t from, std::vector<std::size_t>& upper, std::vector<std::size_t>& lower, bool ask) {
    lower = choice_;
    for (std::size_t q = from; q < n_; ++q) {
      const std::size_t k = order_[q];
      const SlotClasses& c = cls_[k];
      std::vector<bool> live(c.maxima.size(), false);
      for (std::size_t a = 0; a < c.maxima.size(); ++a)
        for (std::size_t m : c.maxima[a]) {
          if (live[a] || (settings_.narrowing && equivalents_.decided[k][m])) continue;
          if (!ask || m == *upper_choice_[k] || !may_be_dead_[k][a]) {
            live[a] = true;
            continue;
          }
          upper[k] = m;
          const model::CheckResult& r = ask_race(upper);
          live[a] = r.unknown() || !r.racy;
        }
      upper[k] = *upper_choice_[k];
      std::optional<std::size_t> weakest;
      bool any = false;
      for (std::size_t w = 0; w < live.size(); ++w) {
        if (!live[w]) continue;
        any = true;
        bool below_all = true;
        for (std::size_t a = 0; a < live.size() && below_all; ++a) below_all = !live[a] || a == w || c.stronger[a][w];
        if (below_all && !weakest) weakest = w;
      }
      if (!any) return Lower::Dead;
      if (!weakest) return Lower::None;
      lower[k] = c.representative[*weakest];
    }
    return Lower::Program;
  }

  // Slot k's maximal choices other than its upper one, weakest first (by how many of the
  // others each is at least as strong as).
  std::vector<std::size_t> weaker_choices(std::size_t k, std::size_t upper) const {
    const std::vector<Variation>& choices = slots_[k].choices;
    std::vector<std::size_t> weaker;
    for (const std::vector<std::size_t>& members : cls_[k].maxima)
      for (std::size_t c : members)
        if (c != upper && !(settings_.narrowing && equivalents_.decided[k][c])) weaker.push_back(c);
    std::vector<std::pair<std::ptrdiff_t, std::size_t>> by_strength;
    for (std::size_t c : weaker)
      by_strength.emplace_back(std::count_if(weaker.begin(), weaker.end(),
                                             [&](std::size_t d) {
                                               return at_least_as_strong(choices[c], choices[d],
                                                                         settings_.options.model.variant);
                                             }),
                               c);
    std::stable_sort(by_strength.begin(), by_strength.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t i = 0; i < weaker.size(); ++i) weaker[i] = by_strength[i].second;
    return weaker;
  }

  // How many of the weakest code's forbidden final states a weakened upper test allows, by
  // a question about those only; 0 for a racy or undecided one. The weakened test allows
  // what the upper test allows (fact 2), so what it leaves forbidden of the simulation's
  // final states is among those the upper test forbids.
  std::size_t allowed_when_weakened(const std::vector<std::size_t>& weakened, const FailedWeakest& failed,
                                    bool& race_free) {
    const model::CheckResult& w = ask_model(weakened, failed.outcomes);
    race_free = !w.unknown() && !w.racy;
    if (!race_free || w.evaluated != failed.evaluated) return 0;
    std::size_t allowed = 0;
    for (const model::Outcome& o : failed.outcomes)
      allowed += std::binary_search(w.outcomes.begin(), w.outcomes.end(), o) ? 1 : 0;
    return allowed;
  }

  // How many of the weakest code's forbidden final states the upper test still forbids with
  // slot k alone weakened, at the least; `race_free` receives the choices asked that keep
  // the test race-free. Only the weakest race-free choices are asked: a race-free choice
  // allows at least what every stronger one allows (fact 2).
  std::size_t least_forbidden_weakening(std::size_t k, const std::vector<std::size_t>& upper,
                                        const FailedWeakest& failed, std::vector<std::size_t>& race_free) {
    const std::vector<Variation>& choices = slots_[k].choices;
    std::size_t least = failed.forbidden();
    std::vector<std::size_t> weakened = upper;
    for (std::size_t c : weaker_choices(k, upper[k])) {
      if (least == 0) break;
      if (std::any_of(race_free.begin(), race_free.end(), [&](std::size_t d) {
            return at_least_as_strong(choices[c], choices[d], settings_.options.model.variant);
          }))
        continue;
      weakened[k] = c;
      bool race_free_here = false;
      const std::size_t allowed = allowed_when_weakened(weakened, failed, race_free_here);
      if (!race_free_here) continue;
      race_free.push_back(c);
      least = std::min(least, failed.forbidden() - allowed);
    }
    return least;
  }

  // Where no slot weakened alone allows any of the weakest code's forbidden final states,
  // they need two weakened at once (as two accesses of a thread reordered): the position of
  // the later slot of the first pair (in `order_` from p) whose weakest race-free choices,
  // taken together, allow one of them, or p when none does. `race_free`: per position, the
  // choices that least_forbidden_weakening found race-free.
  std::size_t critical_pair(std::size_t p, const std::vector<std::size_t>& upper, const FailedWeakest& failed,
                            const std::vector<std::vector<std::size_t>>& race_free) {
    std::vector<std::size_t> weakened = upper;
    for (std::size_t a = p; a < n_; ++a)
      for (std::size_t b = a + 1; b < n_; ++b)
        for (std::size_t ca : race_free[a])
          for (std::size_t cb : race_free[b]) {
            weakened[order_[a]] = ca;
            weakened[order_[b]] = cb;
            bool race_free_here = false;
            const std::size_t allowed = allowed_when_weakened(weakened, failed, race_free_here);
            weakened[order_[a]] = upper[order_[a]];
            weakened[order_[b]] = upper[order_[b]];
            if (allowed > 0) return b;
          }
    return p;
  }

  // Moves the critical slot of a prefix whose weakest code failed to position p of
  // `order_`, the next slot to branch on. A slot's score is how many of the final states
  // the weakest code reached beyond the upper test the upper test allows once that slot
  // alone takes a weaker race-free choice: the tests that differ there need different code,
  // so splitting them first lets the subtrees below be decided by their weakest code, where
  // branching on a slot that changes nothing would multiply the subtrees that fail. Scoring
  // stops at a slot that allows them all; when every score is zero, pairs of slots are
  // scored (critical_pair). Any order gives the same verdicts (each pruning is sound for any
  // set of fixed slots); this costs model queries only, the children's upper tests among
  // them. Only among slots with a strongest choice, which come after those without.
  bool take_critical_slot(std::size_t p, const std::vector<std::size_t>& upper, const FailedWeakest& failed) {
    if (!tops_from_[p]) return false;
    std::size_t best = p, best_score = 0;
    std::vector<std::vector<std::size_t>> race_free(n_);
    for (std::size_t q = p; q < n_ && best_score < failed.forbidden(); ++q) {
      const std::size_t score = failed.forbidden() - least_forbidden_weakening(order_[q], upper, failed, race_free[q]);
      if (score > best_score) best = q, best_score = score;
    }
    if (best_score == 0 && settings_.bound.critical_pairs) best = critical_pair(p, upper, failed, race_free);
    if (best == p) return false;
    std::swap(order_[p], order_[best]);
    recount_leaves(p);
    return true;
  }

  // Whether the subtree below the prefix of p slots is decided without descending: racy
  // below a racy upper test, racy for want of a live class, or sound or racy by its weakest
  // code. When the weakest code fails, the prefix's critical slot is moved to position p.
  // `same_upper`: the last slot fixed took its upper choice, so the upper test is the
  // parent's (race-free, a repeated question), but the weakest code is not: that slot's code
  // is now its upper choice's class, which may well remove what the parent's weakest code
  // reached. Only the parent's very program is not simulated again.
  //
  // The upper test is first asked only whether it races (a question about no final state,
  // answered without enumerating for these programs: model::cannot_race, certain_race); the
  // final states of the weakest code are asked about only when nothing known allows them
  // (sound_below).
  bool decided_below(std::size_t p, bool same_upper) {
    weakest_at_[p].clear();
    std::vector<std::size_t> upper = choice_;
    for (std::size_t q = p; q < n_; ++q) upper[order_[q]] = *upper_choice_[order_[q]];
    // Below a refused choice a race-free upper test only leads down (no weakest program):
    // one known race-free needs no question.
    const bool refused = prefix_refused(p);
    if (refused && above_race_free_leaf(upper)) return false;
    const model::CheckResult& m = ask_race(upper);
    if (!m.unknown() && m.racy) {
      counts_.racy_below_racy += leaves_from_[p];
      return true;
    }
    if (m.unknown() || !settings_.code_dominance) return false;
    if (refused) return false;  // the weakest program cannot be compiled: test by test below
    if (!worth_simulating(p)) {
      ++counts_.weaker_code_left_out;
      return false;
    }
    std::vector<std::size_t> lower;
    const Lower found = weakest_live(p, upper, lower, settings_.bound.live_classes);
    if (found == Lower::Dead) {
      counts_.racy_below_racy += leaves_from_[p];
      return true;
    }
    if (found != Lower::Program) return false;
    if (same_upper && p > 0 && lower == weakest_at_[p - 1]) {
      weakest_at_[p] = std::move(lower);
      return false;
    }
    weakest_at_[p] = lower;
    ++counts_.weaker_code_simulations;
    std::optional<FailedWeakest> failed;
    const FailedWeakest* reference = settings_.bound.partial_upper_answers ? reference_[p].get() : nullptr;
    const bool decided = sound_below(lower, upper, reference, failed);
    note_weakest(p, decided);
    if (decided) {
      counts_.decided_below_weaker += leaves_from_[p];
      return true;
    }
    if (!failed) return false;
    if (settings_.bound.critical_slots_first && take_critical_slot(p, upper, *failed)) ++counts_.critical_branchings;
    reference_[p + 1] = std::make_shared<const FailedWeakest>(std::move(*failed));
    return false;
  }

  // A product of maximal choices: verified unless a test of the same program was.
  void check_leaf() {
    ++counts_.classes;
    const std::string key = space_.program_key(choice_);
    if (!seen_.insert({std::hash<std::string>{}(key), fnv1a(key)}).second) {
      ++counts_.symmetric;
      return;
    }
    if (++control_.checked > settings_.max_tests) {
      control_.stop = true;
      throw std::length_error(
          fmt::format("more than {} tests to check: narrow the bound or raise its limit (max=N)", settings_.max_tests));
    }
    const auto start = std::chrono::steady_clock::now();
    std::optional<TestVerification> refused = refused_leaf();
    TestVerification v =
        refused ? std::move(*refused) : verify_test(space_.test(choice_), settings_.table, settings_.options, cache_);
    cost_.checked_seconds += seconds_since(start);
    ++cost_.checked;
    record_(std::move(v));
  }

  // Whether a slot at positions [0, p) of `order_` took a choice whose code the compiler
  // refused: the weakest program below holds it too and cannot be compiled.
  bool prefix_refused(std::size_t p) const {
    for (std::size_t q = 0; q < p; ++q)
      if (cls_[order_[q]].refused_choice(choice_[order_[q]])) return true;
    return false;
  }

  // The verdict of a leaf the table cannot compile, reached without the model's whole
  // answer: the test is racy (the model says so whatever the code) or unsupported with the
  // row it lacks, as verify_test would judge it; asking only whether it races is cheaper and
  // shares the search's kept answers. Nullopt when a slot's code was not refused, when the
  // test compiles after all, or when the model cannot tell: then verify_test judges it.
  std::optional<TestVerification> refused_leaf() {
    if (std::none_of(order_.begin(), order_.end(), [&](std::size_t k) { return cls_[k].refused_choice(choice_[k]); }))
      return std::nullopt;
    const auto start = std::chrono::steady_clock::now();
    litmus::Test test = space_.test(choice_);
    if (test.filter) return std::nullopt;
    TestVerification v;
    v.name = test.name;
    v.test = observe_everything(test);
    try {
      compile(v.test);
      return std::nullopt;
    } catch (const codegen::CompileError& e) {
      v.missing_row = e.missing_row;
      v.reason = fmt::format("compile: {}", e.what());
    } catch (const std::exception& e) {
      v.reason = fmt::format("compile: {}", e.what());
    }
    if (above_race_free_leaf(choice_)) {
      v.status = TestStatus::Unsupported;
    } else {
      const model::CheckResult& race = ask_race(choice_);
      if (race.unknown()) return std::nullopt;
      if (race.racy) {
        v.status = TestStatus::Racy;
        v.reason = racy_reason(race);
        v.missing_row.clear();
      } else {
        v.status = TestStatus::Unsupported;
        race_free_leaves_.push_back(choice_);
      }
    }
    v.seconds = seconds_since(start);
    return v;
  }

  // Whether the test of `choices` is at least as strong, slot by slot, as a refused leaf the model found
  // race-free: then it is race-free too (fact 2 read upwards: a test below a racy one is
  // racy). The search meets the weaker choices of a slot first, so most leaves that need a
  // missing row are decided so without a question.
  bool above_race_free_leaf(const std::vector<std::size_t>& choices) const {
    return std::any_of(race_free_leaves_.begin(), race_free_leaves_.end(), [&](const std::vector<std::size_t>& free) {
      for (std::size_t k = 0; k < n_; ++k)
        if (!at_least_as_strong(slots_[k].choices[choices[k]], slots_[k].choices[free[k]],
                                settings_.options.model.variant))
          return false;
      return true;
    });
  }

  // `prefix_changed`: the last choice made differs from its slot's upper choice, so this
  // prefix's upper test is not its parent's (docs/verification.md, "The upper choice's
  // subtree").
  void descend(std::size_t p, bool prefix_changed) {
    if (control_.abandoned(space_index_)) return;
    if (p == n_) return check_leaf();
    reference_[p + 1] = reference_[p];  // decided_below may put its own failure there
    if (tops_from_[p] && !settings_.bound.every_variation &&
        (prefix_changed || settings_.bound.weakest_code_below_upper_choice) && decided_below(p, !prefix_changed))
      return;
    const std::size_t k = order_[p];
    for (const std::vector<std::size_t>& members : cls_[k].maxima)
      for (std::size_t m : members) {
        if (settings_.narrowing && equivalents_.decided[k][m]) {
          counts_.decided_by_narrower_scope += leaves_from_[p + 1];
          continue;
        }
        choice_[k] = m;
        descend(p + 1, !upper_choice_[k] || m != *upper_choice_[k]);
      }
  }

  const SearchSettings& settings_;
  SearchControl& control_;
  const std::size_t space_index_;
  const litmus::VariationSpace& space_;
  const std::vector<litmus::Slot>& slots_;
  const SlotClassList& cls_;
  const std::size_t n_;
  BoundStatistics& counts_;
  ModelAnswers& answers_;
  CycleScStates& sc_states_;
  const Record& record_;
  VerificationCache cache_;
  const litmus::Test first_;  // every slot at its first choice: the placement's scope tree
  // The search's tests, every register and location observed, without their names (a
  // message names a test by name_of).
  litmus::SpaceTests observed_;
  std::vector<std::optional<std::size_t>> top_;           // per slot, its strongest choice
  std::vector<std::optional<std::size_t>> upper_choice_;  // per slot, its choice in upper tests
  std::vector<std::size_t> order_;                        // the slots, in the order branched on
  std::vector<bool> tops_from_;                           // per position of order_: every slot from there has a top
  std::vector<std::size_t> leaves_from_;                  // per position of order_: the products below
  ScopeEquivalents equivalents_;
  std::vector<std::vector<bool>> may_be_dead_;        // per slot and class
  std::vector<WeakestTries> weakest_tries_;           // per depth
  std::vector<std::vector<std::size_t>> weakest_at_;  // per depth, the prefix's weakest program (if built)
  // Per depth, the failed weakest-code simulation nearest above (null: none, at the root).
  std::vector<std::shared_ptr<const FailedWeakest>> reference_;
  std::vector<std::size_t> choice_;  // the current prefix (and leaf)
  // Tests seen, by two independent 64-bit hashes of their program key. Two tests with one
  // program key lie in spaces with one program key, which are verified once, so the set is
  // the space's own.
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen_;
  std::map<std::vector<std::size_t>, WeakestRun> weakest_runs_;  // by the classes of the choices
  std::vector<std::vector<std::size_t>> race_free_leaves_;       // refused_leaf's, asked race-free
  // Compiled threads of weakest programs, by thread and the code classes of its slots.
  std::map<std::vector<std::size_t>, codegen::CompiledThread> threads_by_class_;
  SpaceCost cost_;
};

}  // namespace

BoundVerification verify_bound(const litmus::GenerateOptions& bound, const codegen::MappingTable& table,
                               const VerifyOptions& asked, const BoundOptions& bound_options,
                               const std::function<void(const TestVerification&)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  // Racy tests are only counted here, and most upper tests asked are racy: the model may
  // stop at the first race it finds.
  VerifyOptions options = asked;
  options.model.stop_at_race = true;
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const codegen::Target* target = catalog.find(options.target);
  if (!target) throw std::invalid_argument(fmt::format("unknown target '{}'", options.target));

  // Code dominance (fact 3) needs lines that may be evicted at any time and one L2 (see
  // code_at_least); the narrower scopes of fact 4 need it and the hsa model's scope inclusion.
  const bool code_order = !bound_options.every_variation && options.sim.hw.l1_spontaneous_fill &&
                          !options.sim.hw.l2_per_agent && !options.sim.hw.l2_per_xcd;
  const SearchSettings settings{
      .table = table,
      .target = *target,
      .catalog = catalog,
      .options = options,
      .bound = bound_options,
      .max_tests = bound.max_tests,
      .code_dominance = bound_options.code_dominance && code_order,
      .narrowing = bound_options.equivalent_scopes && code_order && options.model.variant == model::ModelVariant::Hsa,
      .shared_answers = bound_options.answers_across_segments && options.model.variant == model::ModelVariant::Hsa,
      .order_kept = !bound_options.every_variation && options.model.variant == model::ModelVariant::Hsa &&
                    options.sim.explore_placements,
      .candidates = std::make_shared<model::CandidateMemo>(kKeptListingsPerWorker *
                                                           support::worker_count(options.jobs, support::max_jobs())),
  };

  BoundVerification out;
  BoundStatistics& st = out.statistics;
  SearchControl control;
  if (bound_options.time_limit_seconds)
    control.deadline = start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                   std::chrono::duration<double>(*bound_options.time_limit_seconds));
  control.memory_limit = bound_options.memory_limit;
  ShapeClassCache shapes(settings);
  OrderKept order_kept(settings);

  // Shared between the threads, each under `mutex`.
  std::mutex mutex;
  std::exception_ptr failure;
  double seconds_verify = 0;  // summed over workers

  // The spaces flow from the enumeration to the workers through a bounded queue, so a
  // bound's millions of spaces are never held at once. A space whose programs an earlier
  // space already holds is not verified again: verifying a test observes every final
  // state, so its `exists` condition (all that tells such spaces apart) plays no part.
  // A cycle's spaces go to one worker together: they share its candidate listings and, in
  // one work-group, the model's answers (fact 6). Whole cycles are handed over in batches of
  // at least kBatchedSpaces spaces, so that a bound of millions of small cycles does not
  // wake a thread per cycle.
  constexpr std::size_t kQueuedBatches = 64;
  constexpr std::size_t kBatchedSpaces = 256;
  struct QueuedSpace {
    std::size_t index;  // in enumeration order, among the spaces verified
    litmus::VariationSpace space;
  };
  using SpaceBatch = std::vector<QueuedSpace>;  // whole cycles, in enumeration order
  std::deque<SpaceBatch> queue;
  bool enumerated = false;
  bool enumeration_cut = false;  // stopped before the end of the bound
  std::condition_variable queue_changed;
  struct EnumerationStopped {};  // nothing more to verify: the rest of the bound is not read
  // Fact 5 (bound.hpp): with one L2 a space with work-groups in several agents is decided by
  // the space with them in one agent, which the bound holds when it has diff-wg placements.
  const bool merge_agents = bound_options.one_agent && !bound_options.every_variation && !options.sim.hw.l2_per_agent &&
                            !options.sim.hw.l2_per_xcd && options.sim.explore_placements &&
                            std::find(bound.placements.begin(), bound.placements.end(),
                                      litmus::ThreadRelation::DifferentWorkGroup) != bound.placements.end();
  auto stopping = [&] { return control.stop || control.stop_space != kNoStop; };
  auto enumerate = [&] {
    struct PairHash {
      std::size_t operator()(const std::pair<std::uint64_t, std::uint64_t>& p) const {
        return static_cast<std::size_t>(p.first ^ (p.second * 0x9e3779b97f4a7c15ull));
      }
    };
    // Fact 2 in two levels (VariationSpace::skeleton_key): the skeletons of the cycles met,
    // and the arrangements of the cycle being read. A cycle whose skeleton an earlier cycle
    // has holds only spaces with the programs of that cycle's spaces.
    std::unordered_set<std::pair<std::uint64_t, std::uint64_t>, PairHash> skeletons;
    std::unordered_set<std::string> arrangements;
    std::string arranged_cycle;  // the cycle `arrangements` holds spaces of
    bool skeleton_met_before = false;
    std::size_t index = 0;
    SpaceBatch batch;
    auto hand_over = [&] {
      if (batch.empty()) return;
      std::unique_lock lock(mutex);
      queue_changed.wait(lock, [&] { return queue.size() < kQueuedBatches || stopping(); });
      if (stopping()) throw EnumerationStopped{};
      queue.push_back(std::move(batch));
      batch.clear();
      queue_changed.notify_all();
    };
    // Fact 5: the spaces with work-groups in several agents are counted, not built.
    litmus::SkippedPlacements in_several_agents;
    if (merge_agents) {
      in_several_agents.skips = [](const std::vector<int>& agents) {
        return std::any_of(agents.begin(), agents.end(), [](int a) { return a > 0; });
      };
      in_several_agents.count = [&](std::size_t spaces, std::uint64_t size) {
        if (stopping()) throw EnumerationStopped{};
        st.spaces += spaces;
        st.variations = support::saturating_add(st.variations, support::saturating_multiply(size, spaces));
        st.decided_in_one_agent += spaces;
        control.finished += spaces;
      };
    }
    try {
      litmus::for_each_variation_space(
          bound,
          [&](const litmus::VariationSpace& space) {
            if (stopping()) throw EnumerationStopped{};
            ++st.spaces;
            st.variations = support::saturating_add(st.variations, space.size());
            if (arrangements.empty() || space.cycle() != arranged_cycle) {
              const std::string& skeleton = space.skeleton_key();
              skeleton_met_before = !skeletons.insert({std::hash<std::string>{}(skeleton), fnv1a(skeleton)}).second;
              arranged_cycle = space.cycle();
              arrangements.clear();
            }
            if (!arrangements.insert(space.arrangement_key()).second || skeleton_met_before) {
              ++st.same_program_spaces;
              ++control.finished;
              return;
            }
            if (batch.size() >= kBatchedSpaces && batch.back().space.cycle() != space.cycle()) hand_over();
            batch.push_back({index++, space});
          },
          in_several_agents);
      hand_over();
    } catch (const EnumerationStopped&) {
      std::lock_guard lock(mutex);
      enumeration_cut = true;
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!failure) failure = std::current_exception();
      control.stop = true;
    }
    std::lock_guard lock(mutex);
    enumerated = true;
    queue_changed.notify_all();
  };
  auto next_batch = [&]() -> std::optional<SpaceBatch> {
    std::unique_lock lock(mutex);
    queue_changed.wait(lock, [&] { return !queue.empty() || enumerated || control.stop; });
    if (control.stop || queue.empty() || queue.front().front().index > control.stop_space) return std::nullopt;
    SpaceBatch spaces = std::move(queue.front());
    queue.pop_front();
    queue_changed.notify_all();
    return spaces;
  };

  std::vector<std::pair<std::size_t, TestVerification>> kept;  // with their space's index
  auto record = [&](std::size_t space_index, TestVerification&& v) {
    std::lock_guard lock(mutex);
    if (progress) progress(v);
    if (v.status == TestStatus::Sound) {
      ++out.report.omitted_sound;
    } else if (v.status == TestStatus::Racy) {
      ++out.report.omitted_racy;
    } else {
      if (v.status == TestStatus::Counterexample) {
        // Its test, forbidden outcomes and Counterexample (trace, code, rows) are enough.
        v.model.reset();
        v.compiled.reset();
        v.sim.reset();
        if (space_index < control.stop_space && bound_options.stop_at && bound_options.stop_at(v)) {
          control.stop_space = space_index;
          out.stopped_at = v;
          queue_changed.notify_all();
        }
      }
      kept.emplace_back(space_index, std::move(v));
    }
  };

  auto work = [&] {
    const auto worker_start = std::chrono::steady_clock::now();
    BoundStatistics counts;
    ModelAnswers answers;
    CycleScStates sc_states;
    try {
      ShapeClassCache::CycleShapes cycle_shapes;
      OrderKept::Scratch facts;
      while (std::optional<SpaceBatch> spaces = next_batch()) {
        for (std::size_t k = 0; k < spaces->size(); ++k) {
          const QueuedSpace& queued = (*spaces)[k];
          if (control.abandoned(queued.index)) break;
          if (k == 0 || (*spaces)[k - 1].space.cycle() != queued.space.cycle()) cycle_shapes.clear();
          const auto classes_start = std::chrono::steady_clock::now();
          const ShapeClassCache::Classes classes = shapes.classes_for(queued.space, cycle_shapes);
          const double classes_seconds = seconds_since(classes_start);
          const std::size_t index = queued.index;
          const auto search_start = std::chrono::steady_clock::now();
          const OrderKept::Decision decision =
              settings.order_kept ? order_kept.decides(queued.space, *classes, facts) : OrderKept::Decision::None;
          const int fact = decision == OrderKept::Decision::NeededOrder       ? 9
                           : decision == OrderKept::Decision::RaceFreeInOrder ? 10
                                                                              : 0;
          SpaceCost cost;
          if (fact) {
            ++(fact == 9 ? counts.decided_by_preserved_order : counts.decided_race_free_in_order);
            cost.seconds = seconds_since(search_start);
            cost.decided_by_fact = fact;
            if (bound_options.on_space)
              describe(cost, queued.space, queued.space.test(std::vector<std::size_t>(queued.space.slots().size(), 0)));
          }
          if (!fact || bound_options.check_unsearched_spaces) {
            // With check_unsearched_spaces, a space fact 9 or 10 decided is searched as well,
            // and must hold no counterexample.
            const SpaceSearch::Record to_report = [&](TestVerification&& v) {
              if (fact && v.status != TestStatus::Sound && v.status != TestStatus::Racy)
                throw std::logic_error(fmt::format("{}: a space fact {} decides holds {} test {}", queued.space.cycle(),
                                                   fact, to_string(v.status), v.name));
              record(index, std::move(v));
            };
            SpaceCost searched = SpaceSearch(settings, control, index, queued.space, classes->slots, counts, answers,
                                             sc_states, to_report)
                                     .run();
            if (!fact) cost = std::move(searched);
          }
          if (control.abandoned(index)) continue;
          ++control.finished;
          if (bound_options.on_space) {
            cost.classes_seconds = classes_seconds;
            std::lock_guard lock(mutex);
            bound_options.on_space(cost);
          }
        }
      }
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!failure) failure = std::current_exception();
      control.stop = true;
      queue_changed.notify_all();
    }
    std::lock_guard lock(mutex);
    queue_changed.notify_all();  // a worker that ran out of time stops the enumeration too
    st.racy_below_racy += counts.racy_below_racy;
    st.decided_below_weaker += counts.decided_below_weaker;
    st.decided_by_narrower_scope += counts.decided_by_narrower_scope;
    st.weaker_code_simulations += counts.weaker_code_simulations;
    st.weaker_code_in_program_order += counts.weaker_code_in_program_order;
    st.weaker_code_left_out += counts.weaker_code_left_out;
    st.critical_branchings += counts.critical_branchings;
    st.decided_by_preserved_order += counts.decided_by_preserved_order;
    st.decided_race_free_in_order += counts.decided_race_free_in_order;
    st.classes += counts.classes;
    st.symmetric += counts.symmetric;
    seconds_verify += seconds_since(worker_start);
  };
  // The enumeration has a thread of its own (it is light beside the verification).
  std::thread producer(enumerate);
  // Workers take spaces from the queue until it is done: threads the system refuses to start
  // leave theirs to the others.
  support::run_on_threads(support::worker_count(options.jobs, support::max_jobs()), work);
  producer.join();
  if (failure) std::rethrow_exception(failure);
  if (control.out_of_time || control.out_of_memory) {
    bool all_enumerated = false;
    {
      std::lock_guard lock(mutex);
      all_enumerated = enumerated && !enumeration_cut;
    }
    const std::string limit = control.out_of_time
                                  ? fmt::format("time limit of {:g} s reached", *bound_options.time_limit_seconds)
                                  : support::memory_limit_reason(bound_options.memory_limit);
    out.report.stopped = fmt::format("{} after {} of {}{} spaces", limit, control.finished.load(),
                                     all_enumerated ? "" : "at least ", st.spaces);
  }

  // A deterministic report whatever the threads' interleaving: the tests of spaces after the
  // one stop_at stopped in are dropped (some threads may have reached them first).
  for (auto& [index, v] : kept)
    if (index <= control.stop_space) out.report.tests.push_back(std::move(v));
  std::sort(out.report.tests.begin(), out.report.tests.end(),
            [](const TestVerification& a, const TestVerification& b) { return a.name < b.name; });
  out.rows_used = shapes.rows();
  st.compiles = shapes.compiles();
  st.checked = control.checked;
  st.seconds_total = seconds_since(start);
  st.cpu_seconds_workers = seconds_verify;
  return out;
}

std::string render_statistics(const BoundStatistics& s) {
  return fmt::format(
      "bound: {} spaces (cycle x placement x segments; {} with the programs of an earlier one, {} decided by their "
      "work-groups in one agent, {} by code that keeps the order the model needs, {} by code that "
      "keeps program order in every race-free test), {} variations before symmetry; {} tests checked (one per product "
      "of code classes and "
      "maximal choices; {} symmetric skipped); {} more "
      "products decided racy through a stronger racy test, {} decided by weaker code ({} weaker programs judged, {} of "
      "them by their code keeping program order and the others simulated; {} left out where they kept failing; {} "
      "critical slots taken first), {} by a narrower scope holding the same threads; {} single-slot compilations; "
      "{:.2f} s\n",
      s.spaces, s.same_program_spaces, s.decided_in_one_agent, s.decided_by_preserved_order,
      s.decided_race_free_in_order,
      s.variations == support::kSaturated ? fmt::format("more than {}", support::kSaturated)
                                          : std::to_string(s.variations),
      s.checked, s.symmetric, s.racy_below_racy, s.decided_below_weaker, s.weaker_code_simulations,
      s.weaker_code_in_program_order, s.weaker_code_left_out, s.critical_branchings, s.decided_by_narrower_scope,
      s.compiles, s.seconds_total);
}

}  // namespace hsalit::verify
