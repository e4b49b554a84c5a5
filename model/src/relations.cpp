#include "hsalit/model/relations.hpp"

#include <algorithm>
#include <set>

namespace hsalit::model {

namespace {
// Scope inclusion (3.3.6) is the spec's; the HRF models of the literature have none: an
// operation specifies exactly its own scope.
bool has_scope_inclusion(ModelVariant v) { return v == ModelVariant::Hsa; }
}  // namespace

Scope effective_scope(const StaticEvent& e, std::optional<Segment> segment) {
  std::optional<Segment> seg = e.is_access() ? e.segment : segment;
  if (seg == Segment::Group && e.scope > Scope::WorkGroup) return Scope::WorkGroup;
  return e.scope;
}

bool specifies(const Program& p, const StaticEvent& e, const ScopeInstance& s, std::optional<Segment> segment,
               ModelVariant variant) {
  if (!std::binary_search(s.threads.begin(), s.threads.end(), e.thread)) return false;
  Scope eff = effective_scope(e, segment);
  (void)p;
  return has_scope_inclusion(variant) ? s.level <= eff : eff == s.level;
}

bool match(const Program& p, const StaticEvent& x, const StaticEvent& y, std::optional<Segment> segment,
           ModelVariant variant) {
  if (x.thread == y.thread) return true;
  Scope ex = effective_scope(x, segment), ey = effective_scope(y, segment);
  if (!has_scope_inclusion(variant) && ex != ey) return false;
  Scope m = std::min(ex, ey);
  return p.scopes().same_instance(x.thread, y.thread, m) && m != Scope::WorkItem;
}

bool in_sc_domain(const Program& p, const StaticEvent& e, const ScopeInstance& s, ModelVariant variant) {
  return e.is_sync() && specifies(p, e, s, std::nullopt, variant);
}

std::vector<ScDomain> sc_domains(const Program& p, ModelVariant variant) {
  std::vector<ScDomain> out;
  if (variant == ModelVariant::OpenCl) return out;  // HSA's sc_S orders (3.10); OpenCL's SC axiom is acyclicity
  const auto& instances = p.scope_instances();
  for (std::size_t s = 0; s < instances.size(); ++s) {
    ScDomain d{static_cast<int>(s), {}};
    std::set<int> threads;
    for (const StaticEvent& e : p.events())
      if (in_sc_domain(p, e, instances[s], variant)) {
        d.events.push_back(e.id);
        threads.insert(e.thread);
      }
    if (threads.size() < 2) continue;
    if (std::any_of(out.begin(), out.end(), [&](const ScDomain& o) { return o.events == d.events; })) continue;
    out.push_back(std::move(d));
  }
  return out;
}

bool opencl_inclusive(const Program& p, const StaticEvent& x, const StaticEvent& y) {
  if (x.thread == y.thread || !x.is_special() || !y.is_special() || x.scope != y.scope) return false;
  switch (x.scope) {
    case Scope::WorkGroup:
    case Scope::Agent: return p.scopes().same_instance(x.thread, y.thread, x.scope);
    case Scope::System: return true;
    default: return false;  // work-item scope (wi, wave)
  }
}

std::string_view to_string(Conflict c) {
  switch (c) {
    case Conflict::None: return "none";
    case Conflict::Ordinary: return "ordinary";
    case Conflict::Special: return "special";
  }
  return "?";
}

Conflict conflict(const Program& p, const StaticEvent& x, bool x_writes, const StaticEvent& y, bool y_writes,
                  ModelVariant variant) {
  if (x.thread == y.thread || !x.is_access() || !y.is_access()) return Conflict::None;
  bool some_write = x_writes || y_writes;
  if (variant == ModelVariant::OpenCl) {
    if (!some_write) return Conflict::None;
    if (!x.atomic || !y.atomic) return Conflict::Ordinary;
    return opencl_inclusive(p, x, y) ? Conflict::None : Conflict::Special;
  }
  if (some_write && (!x.atomic || !y.atomic)) return Conflict::Ordinary;
  if (x.atomic && y.atomic) {
    if (x.size != y.size) return Conflict::Special;
    if (some_write && !match(p, x, y, std::nullopt, variant)) return Conflict::Special;
  }
  return Conflict::None;
}

std::optional<RaceWitness> first_conflict(const Program& p, ModelVariant variant, SameCell where) {
  auto same_cell = [&](const StaticEvent& x, const StaticEvent& y) {
    if (where == SameCell::Possibly) return !x.location || !y.location || *x.location == *y.location;
    return x.location && y.location && *x.location == *y.location &&
           p.copy_of(*x.location, x.thread) == p.copy_of(*y.location, y.thread);
  };
  const std::vector<StaticEvent>& events = p.events();
  for (std::size_t i = 0; i < events.size(); ++i) {
    const StaticEvent& x = events[i];
    if (!x.is_access()) continue;
    for (std::size_t j = i + 1; j < events.size(); ++j) {
      const StaticEvent& y = events[j];
      if (!y.is_access() || x.thread == y.thread || !same_cell(x, y)) continue;
      if (Conflict k = conflict(p, x, x.writes(), y, y.writes(), variant); k != Conflict::None)
        return RaceWitness{x.id, y.id, k};
    }
  }
  return std::nullopt;
}

bool may_race(const Program& p, ModelVariant variant) {
  return first_conflict(p, variant, SameCell::Possibly).has_value();
}

bool cannot_race(const Program& p, ModelVariant variant) {
  for (const StaticEvent& e : p.events())
    if (e.is_access() && !e.location) return false;
  return !may_race(p, variant);
}

}  // namespace hsalit::model
