#include "hsalit/verify/bound.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <future>
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
#include <utility>
#include <vector>

#include "elapsed.hpp"
#include "hsalit/codegen/gcn.hpp"
#include "hsalit/model/checker.hpp"
#include "hsalit/runner/sim.hpp"

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
};

// The code of one choice of a slot: the compiled instructions of the slot's thread, or why
// the compiler refused it.
struct SlotCode {
  std::string key;                                        // the printed instructions, or the refusal
  std::optional<std::vector<codegen::Instruction>> code;  // absent when refused
};

// The code of slot `slot` under each of its choices, the other slots at their first choice
// (the table maps each instruction on its own, so a difference there is a difference of the
// slot).
std::vector<SlotCode> slot_codes(const litmus::VariationSpace& space, std::size_t slot,
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
          codegen::compile_thread(space.test(choice), s.thread, target, catalog, table, compile);
      codes.push_back({codegen::print(compiled.code, false), std::move(compiled.code)});
    } catch (const std::exception& e) {
      // Each refused choice on its own: the test reports why.
      codes.push_back({fmt::format("error {}: {}", j, e.what()), std::nullopt});
    }
  }
  return codes;
}

SlotClasses classify(const litmus::Slot& slot, const std::vector<SlotCode>& codes, bool every_variation) {
  SlotClasses out;
  if (every_variation) {
    for (std::size_t j = 0; j < slot.choices.size(); ++j) {
      out.maxima.push_back({j});
      out.representative.push_back(j);
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
    std::vector<std::size_t> maxima;
    for (std::size_t m : members) {
      bool dominated = false;
      for (std::size_t o : members)
        if (o != m && at_least_as_strong(slot.choices[o], slot.choices[m]) &&
            !at_least_as_strong(slot.choices[m], slot.choices[o]))
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

ScopeEquivalents scope_equivalents(const litmus::VariationSpace& space, const std::vector<SlotClasses>& classes) {
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
std::optional<std::size_t> strongest(const litmus::Slot& slot) {
  for (std::size_t j = 0; j < slot.choices.size(); ++j)
    if (std::all_of(slot.choices.begin(), slot.choices.end(),
                    [&](const Variation& c) { return at_least_as_strong(slot.choices[j], c); }))
      return j;
  return std::nullopt;
}

}  // namespace

bool at_least_as_strong(const Variation& a, const Variation& b) {
  using Kind = Variation::Kind;
  if (a == b) return true;
  switch (b.kind) {
    case Kind::Ordinary: return a.kind == Kind::Ordinary || a.kind == Kind::Atomic;
    case Kind::Nothing: return a.kind == Kind::Nothing || a.kind == Kind::Fence;
    case Kind::Atomic:
    case Kind::Fence:
      return a.kind == b.kind && order_at_least(a.order, b.order) &&
             static_cast<int>(a.scope) >= static_cast<int>(b.scope);
    case Kind::Dependency: return false;
  }
  return false;
}

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

  BoundVerification out;
  BoundStatistics& st = out.statistics;

  // Shared between the threads, each under `mutex`.
  std::mutex mutex;
  // Code classes per shape (not per placement). The spaces of a cycle come one after the
  // other, so a cache of the recent shapes serves them; it is emptied when it grows past
  // kShapesCached (a three-thread bound has about a million shapes). A shape is compiled by
  // the first thread that asks; the others wait for its answer.
  constexpr std::size_t kShapesCached = 4096;
  using ShapeClasses = std::shared_ptr<const std::vector<SlotClasses>>;
  std::map<std::string, std::shared_future<ShapeClasses>> classes_of_shape;
  std::set<std::string> rows;
  std::atomic<std::size_t> checked{0};
  std::atomic<bool> stop{false};
  // With BoundOptions::stop_at: the index (in enumeration order) of the earliest space where
  // it accepted a counterexample. Spaces before it are verified to the end and spaces after
  // it abandoned, so the counterexample reported is the first in enumeration order whatever
  // the number of threads (within a space the search is sequential).
  constexpr std::size_t kNoStop = std::numeric_limits<std::size_t>::max();
  std::atomic<std::size_t> stop_space{kNoStop};
  std::exception_ptr failure;
  double seconds_verify = 0;  // summed over workers

  // The spaces flow from the enumeration to the workers through a bounded queue, so a
  // bound's millions of spaces are never held at once. A space whose programs an earlier
  // space already holds is not verified again: verifying a test observes every final
  // state, so its `exists` condition (all that tells such spaces apart) plays no part.
  constexpr std::size_t kQueued = 256;
  struct QueuedSpace {
    std::size_t index;  // in enumeration order, among the spaces verified
    litmus::VariationSpace space;
  };
  std::deque<QueuedSpace> queue;
  bool enumerated = false;
  std::condition_variable queue_changed;
  struct EnumerationStopped {};  // nothing more to verify: the rest of the bound is not read
  // Fact 5 (bound.hpp): with one L2 a space with work-groups in several agents is decided by
  // the space with them in one agent, which the bound holds when it has diff-wg placements.
  const bool merge_agents = bound_options.one_agent && !bound_options.every_variation && !options.sim.hw.l2_per_agent &&
                            options.sim.explore_placements &&
                            std::find(bound.placements.begin(), bound.placements.end(),
                                      litmus::ThreadRelation::DifferentWorkGroup) != bound.placements.end();
  auto enumerate = [&] {
    std::set<std::pair<std::uint64_t, std::uint64_t>> programs;
    std::size_t index = 0;
    try {
      litmus::for_each_variation_space(bound, [&](const litmus::VariationSpace& space) {
        if (stop || stop_space != kNoStop) throw EnumerationStopped{};
        ++st.spaces;
        st.variations += space.size();
        const auto& agents = space.agent_of_thread();
        if (merge_agents && std::any_of(agents.begin(), agents.end(), [](int a) { return a > 0; })) {
          ++st.decided_in_one_agent;
          return;
        }
        const std::string& key = space.program_key();
        if (!programs.insert({std::hash<std::string>{}(key), fnv1a(key)}).second) {
          ++st.same_program_spaces;
          return;
        }
        std::unique_lock lock(mutex);
        queue_changed.wait(lock, [&] { return queue.size() < kQueued || stop || stop_space != kNoStop; });
        if (stop || stop_space != kNoStop) throw EnumerationStopped{};
        queue.push_back({index++, space});
        queue_changed.notify_all();
      });
    } catch (const EnumerationStopped&) {
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!failure) failure = std::current_exception();
      stop = true;
    }
    std::lock_guard lock(mutex);
    enumerated = true;
    queue_changed.notify_all();
  };
  auto next_space = [&]() -> std::optional<QueuedSpace> {
    std::unique_lock lock(mutex);
    queue_changed.wait(lock, [&] { return !queue.empty() || enumerated || stop; });
    if (stop || queue.empty() || queue.front().index > stop_space) return std::nullopt;
    QueuedSpace space = std::move(queue.front());
    queue.pop_front();
    queue_changed.notify_all();
    return space;
  };

  auto classes_for = [&](const litmus::VariationSpace& space) -> ShapeClasses {
    std::promise<ShapeClasses> promise;
    std::shared_future<ShapeClasses> asked_before;
    {
      std::lock_guard lock(mutex);
      if (auto it = classes_of_shape.find(space.shape_key()); it != classes_of_shape.end()) {
        asked_before = it->second;
      } else {
        if (classes_of_shape.size() >= kShapesCached) classes_of_shape.clear();
        classes_of_shape.emplace(space.shape_key(), promise.get_future().share());
      }
    }
    if (asked_before.valid()) return asked_before.get();  // rethrows the computing thread's exception
    try {
      auto classes = std::make_shared<std::vector<SlotClasses>>();
      std::size_t compiles = 0;
      std::set<std::string> shape_rows;  // every row some test of the shape uses, pruned or not
      for (std::size_t i = 0; i < space.slots().size(); ++i) {
        const std::vector<SlotCode> codes = slot_codes(space, i, table, *target, catalog, options.compile, compiles);
        for (const SlotCode& c : codes)
          if (c.code)
            for (const codegen::Instruction& ins : *c.code)
              if (!ins.origin.row.empty()) shape_rows.insert(ins.origin.row);
        classes->push_back(classify(space.slots()[i], codes, bound_options.every_variation));
      }
      {
        std::lock_guard lock(mutex);
        st.compiles += compiles;
        rows.insert(shape_rows.begin(), shape_rows.end());
      }
      promise.set_value(classes);
      return classes;
    } catch (...) {
      promise.set_exception(std::current_exception());
      throw;
    }
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
        if (space_index < stop_space && bound_options.stop_at && bound_options.stop_at(v)) {
          stop_space = space_index;
          out.stopped_at = v;
          queue_changed.notify_all();
        }
      }
      kept.emplace_back(space_index, std::move(v));
    }
  };

  // One space, depth-first over its slots: at each slot, one maximal member of each of its
  // code classes. Before going deeper, the test with the chosen prefix and every later slot
  // at its strongest choice is asked for races: if even it is racy, every test below is
  // (the model is monotone), and the subtree is skipped.
  // Code dominance (fact 3) needs lines that may be evicted at any time and one L2 (see
  // code_at_least); the narrower scopes of fact 4 need it and the hsa model's scope inclusion.
  const bool code_order =
      !bound_options.every_variation && options.sim.hw.l1_spontaneous_fill && !options.sim.hw.l2_per_agent;
  const bool code_dominance = bound_options.code_dominance && code_order;
  const bool narrowing =
      bound_options.equivalent_scopes && code_order && options.model.variant == model::ModelVariant::Hsa;
  // `counts`: the worker's own pruning counters (of BoundStatistics), added to the bound's at
  // the end.
  auto verify_space = [&](std::size_t space_index, const litmus::VariationSpace& space, BoundStatistics& counts) {
    const std::shared_ptr<const std::vector<SlotClasses>> classes_of_space = classes_for(space);
    const std::vector<SlotClasses>& cls = *classes_of_space;
    // Tests seen, by two independent 64-bit hashes of their program key. Two tests with
    // one program key lie in spaces with one program key, which are verified once, so the
    // set is the space's own.
    std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
    const auto& slots = space.slots();
    const std::size_t n = slots.size();
    // Slots are taken in an order that puts those without a strongest choice (gaps that
    // may hold a dependency) first, so the prunings can apply to the deeper levels; within
    // each group, the loads (and the gaps before loads) come before the stores and rmws.
    // Deciding the loads first leaves the stores open below, where the weakest-code
    // simulations decide more (their loads are fixed, which also keeps the L1's states
    // few): on a 3 x 3 shard 213 s instead of 315 s, docs/PERFORMANCE.md. This is the
    // starting order: below a prefix whose weakest code failed, the search takes that
    // prefix's critical slot next (take_critical_slot).
    std::vector<std::optional<std::size_t>> top(n);
    for (std::size_t k = 0; k < n; ++k) top[k] = strongest(slots[k]);
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    auto rank = [&](std::size_t k) { return std::pair{top[k].has_value(), slots[k].access != 'R'}; };
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank(a) < rank(b); });
    // Per position p of `order`: whether every slot from p on has a strongest choice, and
    // how many products lie below.
    std::vector<bool> tops_from(n + 1, true);
    std::vector<std::size_t> leaves_from(n + 1, 1);
    auto members_of = [&](std::size_t k) {
      std::size_t here = 0;
      for (const auto& m : cls[k].maxima) here += m.size();
      return here;
    };
    for (std::size_t p = n; p-- > 0;) {
      const std::size_t k = order[p];
      tops_from[p] = tops_from[p + 1] && top[k].has_value();
      leaves_from[p] = leaves_from[p + 1] * members_of(k);
    }
    // With fact 4, the upper tests take the narrowest scope the model cannot tell apart from
    // each slot's strongest choice: the same answers, and a descent that takes that choice
    // keeps the upper test of its parent.
    const ScopeEquivalents equivalents = narrowing ? scope_equivalents(space, cls) : ScopeEquivalents{};
    std::vector<std::optional<std::size_t>> upper_choice = top;
    if (narrowing)
      for (std::size_t k = 0; k < n; ++k)
        if (top[k]) upper_choice[k] = equivalents.narrowest[k][*top[k]];
    std::vector<std::size_t> choice(n, 0);
    // The model's answers within the space: the upper test of the last slot is also the
    // leaf whose last choice is that slot's strongest, and is judged once. The space's
    // tests differ only in orders and scopes, so the enum engine lists the candidate
    // executions of each program once and evaluates them again for the others. The
    // simulations too: a subtree's weakest code is often its parent's (the slot just fixed
    // at its weakest class), and a leaf's code is that of the weakest-code simulation just
    // above it; the latest kKeptSimulations are kept.
    constexpr std::size_t kKeptSimulations = 32;
    VerificationCache cache(/*keep_candidates=*/true, kKeptSimulations);
    // Per depth of the search, how the weakest-code simulations there went in this space.
    // Near the root they fail (the weakest code of many open slots reaches what the strongest
    // test forbids) and cost the most; after kFutileWeakest failures without a success at a
    // depth, that depth is searched without them (skipping one only loses a pruning).
    constexpr std::size_t kFutileWeakest = 4;
    struct WeakestTries {
      std::size_t failed = 0, decided = 0;
    };
    std::vector<WeakestTries> weakest_tries(n);
    auto worth_simulating = [&](std::size_t p) {
      return weakest_tries[p].decided > 0 || weakest_tries[p].failed < kFutileWeakest;
    };
    auto note_weakest = [&](std::size_t p, bool decided) {
      ++(decided ? weakest_tries[p].decided : weakest_tries[p].failed);
    };
    // Whether every test below the prefix is sound or racy: the program with every later
    // slot at its weakest code reaches only final states that the strongest test below
    // allows (`upper`, race-free). Each test below compiles to code at least as strong
    // (fewer final states, `code_at_least`) and allows at least as much (the model is
    // monotone), so its final states are within its allowed set.
    // A weakest-code simulation that reached final states the upper test forbids: how many.
    struct FailedWeakest {
      std::shared_ptr<const runner::SimResult> sim;
      std::size_t forbidden = 0;
    };
    // `failed` receives the simulation when it reached a final state that `upper` forbids.
    auto sound_below = [&](const std::vector<std::size_t>& lower, const model::CheckResult& upper,
                           std::optional<FailedWeakest>& failed) {
      const litmus::Test weak = observe_everything(space.test(lower));
      try {
        const codegen::CompiledTest compiled = codegen::compile(weak, *target, catalog, table, options.compile);
        runner::SimOptions quiet = options.sim;
        quiet.keep_traces = false;
        const std::shared_ptr<const runner::SimResult> sim = cache.simulate(weak, compiled, quiet);
        if (sim->unknown) return false;
        const Containment c = contained(upper, *sim);
        if (!c.incomparable && !c.forbidden.empty()) failed = FailedWeakest{sim, c.forbidden.size()};
        return !c.incomparable && c.forbidden.empty();
      } catch (const std::exception&) {
        return false;  // decided test by test below
      }
    };
    // The program whose code every race-free test below the prefix strengthens: each later
    // slot at the weakest of its *live* code classes, those with a maximal choice whose test
    // (the prefix, that choice, every other later slot at its upper choice) is race-free. A
    // test below with a choice of no live class is racy (fact 2: it lies below that racy
    // test), so it need not be covered. Near the root this matters most across work-groups:
    // a plain load of a location another work-group writes races (3.12) there, so the
    // weakest code loads with `glc` instead of from a possibly stale L1 line. `None` when a
    // slot's live classes have no weakest (or `ask` is off and its classes none); `Dead` when a
    // slot has no live class at all, so every test below is racy.
    //
    // Only the classes that may be dead are asked about: those whose every maximal choice is
    // ordinary or atomic at a scope whose instance misses some thread of the test. The others
    // are taken as live without a query (taking a class as live only loses a pruning), which
    // spares the race-free queries, the costly ones, where every thread shares a work-group.
    enum class Lower { Program, Dead, None };
    const litmus::Test first = space.test(std::vector<std::size_t>(n, 0));
    auto holds_every_thread = [&](int thread, litmus::Scope scope) {
      for (int u = 0; u < static_cast<int>(first.threads.size()); ++u)
        if (!first.scopes.same_instance(thread, u, scope)) return false;
      return true;
    };
    std::vector<std::vector<bool>> may_be_dead(n);
    for (std::size_t k = 0; k < n; ++k)
      for (const std::vector<std::size_t>& members : cls[k].maxima)
        may_be_dead[k].push_back(std::all_of(members.begin(), members.end(), [&](std::size_t m) {
          const Variation& v = slots[k].choices[m];
          return v.kind == Variation::Kind::Ordinary ||
                 (v.kind == Variation::Kind::Atomic && !holds_every_thread(slots[k].thread, v.scope));
        }));
    auto weakest_live = [&](std::size_t from, std::vector<std::size_t>& upper, std::vector<std::size_t>& lower,
                            bool ask) {
      lower = choice;
      for (std::size_t q = from; q < n; ++q) {
        const std::size_t k = order[q];
        const SlotClasses& c = cls[k];
        std::vector<bool> live(c.maxima.size(), false);
        for (std::size_t a = 0; a < c.maxima.size(); ++a)
          for (std::size_t m : c.maxima[a]) {
            if (live[a] || (narrowing && equivalents.decided[k][m])) continue;
            if (!ask || m == *upper_choice[k] || !may_be_dead[k][a]) {
              live[a] = true;
              continue;
            }
            upper[k] = m;
            const model::CheckResult& r = cache.check(observe_everything(space.test(upper)), options.model);
            live[a] = r.unknown() || !r.racy;
          }
        upper[k] = *upper_choice[k];
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
    };
    // Moves the critical slot of a prefix whose weakest code failed to position p of
    // `order`, the next slot to branch on. `forbidden`: what the weakest code reached beyond
    // the strongest test below (`upper`). A slot's score is how many of those final states
    // the strongest test allows once that slot alone takes a weaker race-free choice: the
    // tests that differ there need different code, so splitting them first lets the
    // subtrees below be decided by their weakest code, where branching on a slot that
    // changes nothing would multiply the subtrees that fail. Scoring stops at a slot that
    // allows them all. Any order gives the same verdicts (each pruning is sound for any set
    // of fixed slots); this costs model queries only, the children's upper tests among them.
    // Only among slots with a strongest choice, which come after those without.
    auto take_critical_slot = [&](std::size_t p, const std::vector<std::size_t>& upper, const FailedWeakest& failed) {
      if (!tops_from[p]) return false;
      const runner::SimResult& weakest = *failed.sim;
      const std::size_t forbidden = failed.forbidden;
      std::size_t best = p, best_score = 0;
      for (std::size_t q = p; q < n && best_score < forbidden; ++q) {
        const std::size_t k = order[q];
        const std::vector<Variation>& choices = slots[k].choices;
        // The weaker choices first: a race-free choice allows at least what every stronger
        // one allows (fact 2), so those are not asked.
        std::vector<std::size_t> weaker;
        for (const std::vector<std::size_t>& members : cls[k].maxima)
          for (std::size_t c : members)
            if (c != upper[k] && !(narrowing && equivalents.decided[k][c])) weaker.push_back(c);
        // Each choice's strength: how many of the others it is at least as strong as.
        std::vector<std::pair<std::ptrdiff_t, std::size_t>> by_strength;
        for (std::size_t c : weaker)
          by_strength.emplace_back(
              std::count_if(weaker.begin(), weaker.end(),
                            [&](std::size_t d) { return at_least_as_strong(choices[c], choices[d]); }),
              c);
        std::stable_sort(by_strength.begin(), by_strength.end(),
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (std::size_t i = 0; i < weaker.size(); ++i) weaker[i] = by_strength[i].second;
        std::size_t least = forbidden;  // the fewest still forbidden with slot k weakened
        std::vector<std::size_t> race_free;
        std::vector<std::size_t> weakened = upper;
        for (std::size_t c : weaker) {
          if (least == 0) break;
          if (std::any_of(race_free.begin(), race_free.end(),
                          [&](std::size_t d) { return at_least_as_strong(choices[c], choices[d]); }))
            continue;
          weakened[k] = c;
          const model::CheckResult& w = cache.check(observe_everything(space.test(weakened)), options.model);
          if (w.unknown() || w.racy) continue;
          race_free.push_back(c);
          const Containment left = contained(w, weakest);
          if (!left.incomparable) least = std::min(least, left.forbidden.size());
        }
        if (forbidden - least > best_score) best = q, best_score = forbidden - least;
      }
      if (best == p) return false;
      std::swap(order[p], order[best]);
      for (std::size_t q = n; q-- > p;) leaves_from[q] = leaves_from[q + 1] * members_of(order[q]);
      return true;
    };
    std::function<void(std::size_t, bool)> descend = [&](std::size_t p, bool prefix_changed) {
      if (stop || space_index >= stop_space) return;
      if (p == n) {
        ++counts.classes;
        const std::string key = space.program_key(choice);
        if (!seen.insert({std::hash<std::string>{}(key), fnv1a(key)}).second) {
          ++counts.symmetric;
          return;
        }
        if (++checked > bound.max_tests) {
          stop = true;
          throw std::length_error(
              fmt::format("more than {} tests to check: narrow the bound or raise its limit (max=N)", bound.max_tests));
        }
        record(space_index, verify_test(space.test(choice), table, options, cache));
        return;
      }
      if (prefix_changed && tops_from[p] && !bound_options.every_variation) {
        std::vector<std::size_t> upper = choice;
        for (std::size_t q = p; q < n; ++q) upper[order[q]] = *upper_choice[order[q]];
        const model::CheckResult& m = cache.check(observe_everything(space.test(upper)), options.model);
        if (!m.unknown() && m.racy) {
          counts.racy_below_racy += leaves_from[p];
          return;
        }
        if (!m.unknown() && code_dominance) {
          if (!worth_simulating(p)) {
            ++counts.weaker_code_left_out;
          } else {
            std::vector<std::size_t> lower;
            const Lower found = weakest_live(p, upper, lower, bound_options.live_classes);
            if (found == Lower::Dead) {
              counts.racy_below_racy += leaves_from[p];
              return;
            }
            if (found == Lower::Program) {
              ++counts.weaker_code_simulations;
              std::optional<FailedWeakest> failed;
              const bool decided = sound_below(lower, m, failed);
              note_weakest(p, decided);
              if (decided) {
                counts.decided_below_weaker += leaves_from[p];
                return;
              }
              if (failed && bound_options.critical_slots_first && take_critical_slot(p, upper, *failed))
                ++counts.critical_branchings;
            }
          }
        }
      }
      const std::size_t k = order[p];
      for (const std::vector<std::size_t>& members : cls[k].maxima)
        for (std::size_t m : members) {
          if (narrowing && equivalents.decided[k][m]) {
            counts.decided_by_narrower_scope += leaves_from[p + 1];
            continue;
          }
          choice[k] = m;
          descend(p + 1, !upper_choice[k] || m != *upper_choice[k]);
        }
    };
    descend(0, true);
  };

  auto work = [&] {
    const auto worker_start = std::chrono::steady_clock::now();
    BoundStatistics counts;
    try {
      while (std::optional<QueuedSpace> queued = next_space()) verify_space(queued->index, queued->space, counts);
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!failure) failure = std::current_exception();
      stop = true;
      queue_changed.notify_all();
    }
    std::lock_guard lock(mutex);
    st.racy_below_racy += counts.racy_below_racy;
    st.decided_below_weaker += counts.decided_below_weaker;
    st.decided_by_narrower_scope += counts.decided_by_narrower_scope;
    st.weaker_code_simulations += counts.weaker_code_simulations;
    st.weaker_code_left_out += counts.weaker_code_left_out;
    st.critical_branchings += counts.critical_branchings;
    st.classes += counts.classes;
    st.symmetric += counts.symmetric;
    seconds_verify += seconds_since(worker_start);
  };
  // The enumeration has a thread of its own (it is light beside the verification).
  std::thread producer(enumerate);
  const int workers = std::max(1, options.jobs);
  std::vector<std::thread> pool;
  for (int w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  producer.join();
  if (failure) std::rethrow_exception(failure);

  // A deterministic report whatever the threads' interleaving: the tests of spaces after the
  // one stop_at stopped in are dropped (some threads may have reached them first).
  for (auto& [index, v] : kept)
    if (index <= stop_space) out.report.tests.push_back(std::move(v));
  std::sort(out.report.tests.begin(), out.report.tests.end(),
            [](const TestVerification& a, const TestVerification& b) { return a.name < b.name; });
  out.rows_used.assign(rows.begin(), rows.end());
  st.checked = checked;
  st.seconds_total = seconds_since(start);
  st.cpu_seconds_workers = seconds_verify;
  return out;
}

std::string render_statistics(const BoundStatistics& s) {
  return fmt::format(
      "bound: {} spaces (cycle x placement x segments; {} with the programs of an earlier one, {} decided by their "
      "work-groups in one agent), {} variations before symmetry; {} tests checked (one per product of code classes and "
      "maximal choices; {} symmetric skipped); {} more "
      "products decided racy through a stronger racy test, {} decided by weaker code ({} weaker programs simulated, "
      "{} left out where they kept failing; {} critical slots taken first), {} by a narrower scope holding the same "
      "threads; {} single-slot compilations; {:.2f} s\n",
      s.spaces, s.same_program_spaces, s.decided_in_one_agent, s.variations, s.checked, s.symmetric, s.racy_below_racy,
      s.decided_below_weaker, s.weaker_code_simulations, s.weaker_code_left_out, s.critical_branchings,
      s.decided_by_narrower_scope, s.compiles, s.seconds_total);
}

}  // namespace hsalit::verify
