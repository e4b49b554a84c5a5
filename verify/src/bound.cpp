#include "hsalit/verify/bound.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include "hsalit/codegen/gcn.hpp"

namespace hsalit::verify {

namespace {

using litmus::MemoryOrder;
using litmus::Variation;

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Order strength: rlx < scacq, screl < scar (HSA SysArch 3.3.1).
bool order_at_least(MemoryOrder a, MemoryOrder b) {
  if (a == b || b == MemoryOrder::Relaxed) return true;
  return a == MemoryOrder::AcquireRelease;
}

// The code classes of one slot: its choices grouped by the instructions they compile to.
struct SlotClasses {
  std::vector<std::vector<std::size_t>> maxima;  // per class, its maximal choices
};

// The code of slot `slot` under each of its choices, the other slots at their first choice:
// the compiled instructions of the slot's thread (the table maps each instruction on its
// own, so a difference there is a difference of the slot), or the compiler's refusal.
std::vector<std::string> slot_codes(const litmus::VariationSpace& space, std::size_t slot,
                                    const codegen::MappingTable& table, const codegen::Target& target,
                                    const codegen::TargetCatalog& catalog, const codegen::CompileOptions& compile,
                                    std::size_t& compiles) {
  const litmus::Slot& s = space.slots()[slot];
  std::vector<std::size_t> choice(space.slots().size(), 0);
  std::vector<std::string> codes;
  for (std::size_t j = 0; j < s.choices.size(); ++j) {
    choice[slot] = j;
    ++compiles;
    try {
      const codegen::CompiledTest compiled = codegen::compile(space.test(choice), target, catalog, table, compile);
      codes.push_back(codegen::print(compiled.threads.at(static_cast<std::size_t>(s.thread)).code, false));
    } catch (const std::exception& e) {
      // Each refused choice on its own: the test reports why.
      codes.push_back(fmt::format("error {}: {}", j, e.what()));
    }
  }
  return codes;
}

SlotClasses classify(const litmus::Slot& slot, const std::vector<std::string>& codes, bool every_variation) {
  SlotClasses out;
  if (every_variation) {
    for (std::size_t j = 0; j < slot.choices.size(); ++j) out.maxima.push_back({j});
    return out;
  }
  std::map<std::string, std::vector<std::size_t>> by_code;
  std::vector<const std::string*> order;  // classes in order of first appearance
  for (std::size_t j = 0; j < codes.size(); ++j) {
    auto [it, fresh] = by_code.try_emplace(codes[j]);
    if (fresh) order.push_back(&it->first);
    it->second.push_back(j);
  }
  for (const std::string* code : order) {
    const std::vector<std::size_t>& members = by_code.at(*code);
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
  return out;
}

// Calls visit(choice) for every choice made of one maximal member of one class per slot.
template <typename F>
void for_each_maximal_choice(const std::vector<SlotClasses>& slots, std::size_t& classes, F&& visit) {
  const std::size_t n = slots.size();
  std::vector<std::size_t> cls(n, 0), member(n, 0), choice(n, 0);
  for (;;) {
    ++classes;
    std::fill(member.begin(), member.end(), 0);
    for (;;) {
      for (std::size_t i = 0; i < n; ++i) choice[i] = slots[i].maxima[cls[i]][member[i]];
      visit(choice);
      std::size_t k = n;
      while (k > 0 && ++member[k - 1] == slots[k - 1].maxima[cls[k - 1]].size()) member[--k] = 0;
      if (k == 0) break;
    }
    std::size_t k = n;
    while (k > 0 && ++cls[k - 1] == slots[k - 1].maxima.size()) cls[--k] = 0;
    if (k == 0) return;
  }
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
                               const VerifyOptions& options, const BoundOptions& bound_options,
                               const std::function<void(const TestVerification&)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  const codegen::TargetCatalog& catalog = codegen::TargetCatalog::builtin();
  const codegen::Target* target = catalog.find(options.target);
  if (!target) throw std::invalid_argument(fmt::format("unknown target '{}'", options.target));

  BoundVerification out;
  BoundStatistics& st = out.statistics;
  std::map<std::string, std::vector<SlotClasses>> classes_of_shape;  // code does not depend on placement
  // Symmetry classes seen, by two independent 64-bit hashes of the canonical key (the
  // keys themselves would take gigabytes at three threads).
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
  std::set<std::string> rows;
  std::vector<litmus::Test> batch;
  double seconds_verify = 0;
  bool stop = false;
  auto flush = [&] {
    const auto verify_start = std::chrono::steady_clock::now();
    ModelCache cache;  // per batch: the answers of one batch are not asked again
    VerifyReport r = verify_tests(batch, table, options, cache, progress);
    seconds_verify += seconds_since(verify_start);
    batch.clear();
    for (TestVerification& v : r.tests) {
      if (v.compiled)
        for (const codegen::CompiledThread& t : v.compiled->threads)
          for (const codegen::Instruction& ins : t.code)
            if (!ins.origin.row.empty()) rows.insert(ins.origin.row);
      if (v.status == TestStatus::Sound) {
        ++out.report.omitted_sound;
        continue;
      }
      if (v.status == TestStatus::Racy) {
        ++out.report.omitted_racy;
        continue;
      }
      if (v.status == TestStatus::Counterexample) {
        // Its test, forbidden outcomes and Counterexample (trace, code, rows) are enough.
        v.model.reset();
        v.compiled.reset();
        v.sim.reset();
      }
      if (v.status == TestStatus::Counterexample && bound_options.stop_at_counterexample) stop = true;
      out.report.tests.push_back(std::move(v));
    }
  };
  litmus::for_each_variation_space(bound, [&](const litmus::VariationSpace& space) {
    if (stop) return;
    ++st.spaces;
    st.variations += space.size();
    auto [it, fresh] = classes_of_shape.try_emplace(space.shape_key());
    if (fresh)
      for (std::size_t i = 0; i < space.slots().size(); ++i)
        it->second.push_back(classify(space.slots()[i],
                                      slot_codes(space, i, table, *target, catalog, options.compile, st.compiles),
                                      bound_options.every_variation));
    for_each_maximal_choice(it->second, st.classes, [&](const std::vector<std::size_t>& choice) {
      const std::string key = space.canonical_key(choice);
      if (!seen.insert({std::hash<std::string>{}(key), fnv1a(key)}).second) {
        ++st.symmetric;
        return;
      }
      if (++st.checked > bound.max_tests)
        throw std::length_error(
            fmt::format("more than {} tests to check: narrow the bound or raise its limit (max=N)", bound.max_tests));
      batch.push_back(space.test(choice));
    });
    if (batch.size() >= bound_options.batch) flush();
  });
  if (!batch.empty() && !stop) flush();
  out.rows_used.assign(rows.begin(), rows.end());
  st.seconds_verify = seconds_verify;
  st.seconds_classes = seconds_since(start) - seconds_verify;
  return out;
}

std::string render_statistics(const BoundStatistics& s) {
  return fmt::format(
      "bound: {} spaces (cycle x placement x segments), {} variations before symmetry; {} code-class products, "
      "{} tests checked ({} symmetric skipped); classes found in {:.2f} s ({} single-slot compilations), tests "
      "verified in {:.2f} s\n",
      s.spaces, s.variations, s.classes, s.checked, s.symmetric, s.seconds_classes, s.compiles, s.seconds_verify);
}

}  // namespace hsalit::verify
