// The enumeration engine: the oracle. It lists every candidate execution explicitly (each
// thread's runs with values from a value domain, then every rf and co choice) and asks
// evaluate_execution, the model's definition on concrete executions, about each.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "engines.hpp"
#include "interpreter.hpp"

namespace hsalit::model::detail {

Outcome outcome_of(const Program& p, const ConcreteExecution& x,
                   const std::vector<std::map<std::string, Value>>& registers,
                   const std::vector<litmus::ObservedRef>& refs) {
  Outcome o;
  for (const litmus::ObservedRef& r : refs) {
    if (r.thread) {
      const auto& regs = registers[static_cast<std::size_t>(*r.thread)];
      auto it = regs.find(r.name);
      o.values.push_back(it == regs.end() ? 0 : it->second);
      continue;
    }
    auto loc = p.location_by_name(r.name);
    if (!loc) {
      o.values.push_back(0);
      continue;
    }
    int k = x.cell_index({*loc, p.observed_copy(*loc)});
    Value v = p.locations()[static_cast<std::size_t>(*loc)].initial;
    if (k >= 0 && !x.co[static_cast<std::size_t>(k)].empty()) {
      int last = x.co[static_cast<std::size_t>(k)].back();
      v = x.is_init(last) ? x.initial[static_cast<std::size_t>(k)] : x.write_value[static_cast<std::size_t>(last)];
    }
    o.values.push_back(v);
  }
  return o;
}

namespace {

constexpr std::size_t kMaxDomain = 256;
constexpr std::size_t kMaxRunsPerThread = 1'000'000;

class EnumEngine {
 public:
  explicit EnumEngine(const EngineQuery& q) : q_(q), p_(q.program) {}

  EngineResult run() {
    if (p_.unsupported()) {
      result_.unknown = *p_.unsupported();
      return result_;
    }
    if (!compute_domains() || !compute_runs()) return result_;
    std::vector<std::size_t> choice(runs_.size(), 0);
    // combine() rejects many choices before they become candidates, so the deadline is also
    // checked here: evaluate() alone may never see it.
    for (std::uint64_t combinations = 1;; ++combinations) {
      if ((combinations & 255) == 0 && q_.deadline.passed()) {
        give_up("time limit");
        return result_;
      }
      if (!combine(choice)) return result_;
      std::size_t t = 0;
      while (t < choice.size() && ++choice[t] == runs_[t].size()) choice[t++] = 0;
      if (t == choice.size()) break;
    }
    return result_;
  }

 private:
  // Values a load may return: the least fixpoint of "initial values, plus what some run
  // writes when its loads return values of the domain". An execution without thin-air
  // cycles (gdo, 3.8) needs at most one round per write event.
  bool compute_domains() {
    domains_.assign(p_.locations().size(), {});
    for (std::size_t l = 0; l < p_.locations().size(); ++l) domains_[l].insert(p_.locations()[l].initial);
    std::size_t rounds = 2;
    for (const StaticEvent& e : p_.events()) rounds += e.writes();
    for (std::size_t round = 0; round < rounds; ++round) {
      ValueDomains next = domains_;
      for (int t = 0; t < p_.thread_count(); ++t) {
        std::vector<ThreadRun> runs;
        if (!enumerate_runs(p_, t, domains_, kMaxRunsPerThread, runs)) return give_up("too many thread runs");
        for (const ThreadRun& r : runs)
          for (const EventRecord& e : r.records)
            if (e.writes && e.cell.location >= 0) next[static_cast<std::size_t>(e.cell.location)].insert(e.written);
      }
      for (const auto& d : next)
        if (d.size() > kMaxDomain) return give_up("the value domain of a location exceeds 256 values");
      if (next == domains_) return true;
      domains_ = std::move(next);
      if (q_.deadline.passed()) return give_up("time limit");
    }
    return true;
  }

  bool compute_runs() {
    runs_.resize(static_cast<std::size_t>(p_.thread_count()));
    for (int t = 0; t < p_.thread_count(); ++t)
      if (!enumerate_runs(p_, t, domains_, kMaxRunsPerThread, runs_[static_cast<std::size_t>(t)]))
        return give_up("too many thread runs");
    return true;
  }

  bool give_up(std::string why) {
    result_.unknown = "enum engine: " + std::move(why);
    return false;
  }

  // One choice of a run per thread: every rf and co over it.
  bool combine(const std::vector<std::size_t>& choice) {
    const int e_count = static_cast<int>(p_.events().size());
    ConcreteExecution x;
    x.executed.assign(static_cast<std::size_t>(e_count), 0);
    x.writes.assign(static_cast<std::size_t>(e_count), 0);
    x.cell.assign(static_cast<std::size_t>(e_count), {});
    x.read_value.assign(static_cast<std::size_t>(e_count), 0);
    x.write_value.assign(static_cast<std::size_t>(e_count), 0);
    x.deps.assign(static_cast<std::size_t>(e_count), {});
    x.rf.assign(static_cast<std::size_t>(e_count), -1);
    registers_.clear();
    for (std::size_t t = 0; t < choice.size(); ++t) {
      const ThreadRun& run = runs_[t][choice[t]];
      registers_.push_back(run.registers);
      for (const EventRecord& r : run.records) {
        auto i = static_cast<std::size_t>(r.event);
        x.executed[i] = 1;
        x.writes[i] = r.writes;
        x.cell[i] = r.cell;
        x.read_value[i] = r.read;
        x.write_value[i] = r.written;
        x.deps[i] = r.deps;
        if (p_.events()[i].is_access() && std::find(x.cells.begin(), x.cells.end(), r.cell) == x.cells.end())
          x.cells.push_back(r.cell);
      }
    }
    std::sort(x.cells.begin(), x.cells.end());
    for (const Cell& c : x.cells)
      x.initial.push_back(c.location < 0 ? 0 : p_.locations()[static_cast<std::size_t>(c.location)].initial);

    // rf candidates: same cell, same value.
    reads_.clear();
    sources_.clear();
    for (int r = 0; r < e_count; ++r) {
      if (!x.executed[static_cast<std::size_t>(r)] || !p_.events()[static_cast<std::size_t>(r)].reads()) continue;
      std::vector<int> src;
      int k = x.cell_index(x.cell[static_cast<std::size_t>(r)]);
      if (x.initial[static_cast<std::size_t>(k)] == x.read_value[static_cast<std::size_t>(r)])
        src.push_back(e_count + k);
      for (int w = 0; w < e_count; ++w)
        if (w != r && x.executed[static_cast<std::size_t>(w)] && x.writes[static_cast<std::size_t>(w)] &&
            x.cell[static_cast<std::size_t>(w)] == x.cell[static_cast<std::size_t>(r)] &&
            x.write_value[static_cast<std::size_t>(w)] == x.read_value[static_cast<std::size_t>(r)])
          src.push_back(w);
      if (src.empty()) return true;  // this read cannot return its value
      reads_.push_back(r);
      sources_.push_back(std::move(src));
    }
    // Writes per cell for co.
    writes_.assign(x.cells.size(), {});
    for (int w = 0; w < e_count; ++w)
      if (x.executed[static_cast<std::size_t>(w)] && x.writes[static_cast<std::size_t>(w)])
        writes_[static_cast<std::size_t>(x.cell_index(x.cell[static_cast<std::size_t>(w)]))].push_back(w);
    return choose_rf(x, 0);
  }

  bool choose_rf(ConcreteExecution& x, std::size_t i) {
    if (i == reads_.size()) {
      x.co.assign(x.cells.size(), {});
      for (auto& w : writes_) std::sort(w.begin(), w.end());
      return choose_co(x, 0);
    }
    for (int src : sources_[i]) {
      x.rf[static_cast<std::size_t>(reads_[i])] = src;
      if (!choose_rf(x, i + 1)) return false;
    }
    return true;
  }

  bool choose_co(ConcreteExecution& x, std::size_t k) {
    const int e_count = x.event_count();
    if (k == x.cells.size()) return evaluate(x);
    std::vector<int> order = writes_[k];
    do {
      // RMW atomicity (3.3.2): an update reads from the write just before it in co.
      bool atomic_ok = true;
      for (std::size_t j = 0; j < order.size() && atomic_ok; ++j) {
        int w = order[j];
        if (!p_.events()[static_cast<std::size_t>(w)].reads()) continue;
        int before = j == 0 ? e_count + static_cast<int>(k) : order[j - 1];
        atomic_ok = x.rf[static_cast<std::size_t>(w)] == before;
      }
      if (!atomic_ok) continue;
      x.co[k].clear();
      x.co[k].push_back(e_count + static_cast<int>(k));
      x.co[k].insert(x.co[k].end(), order.begin(), order.end());
      if (!choose_co(x, k + 1)) return false;
    } while (std::next_permutation(order.begin(), order.end()));
    return true;
  }

  bool evaluate(const ConcreteExecution& x) {
    if (++candidates_ > q_.options.max_candidates) return give_up("more candidate executions than the bound");
    if ((candidates_ & 1023) == 0 && q_.deadline.passed()) return give_up("time limit");
    Evaluation e = evaluate_execution(p_, x, q_.options.variant);
    if (!e.consistent) return true;
    Outcome o = outcome_of(p_, x, registers_, q_.refs);
    if (q_.filter && !holds(*q_.filter, q_.refs, o, p_)) return true;
    for (const Cell& c : x.cells)
      if (c.location < 0) {
        result_.unknown = "a consistent execution accesses an address that is not a location";
        return false;
      }
    result_.outcomes.insert(o);
    if (e.race && !result_.race) result_.race.emplace(x, *e.race);
    if (!result_.satisfying && holds(q_.condition, q_.refs, o, p_)) result_.satisfying = x;
    return true;
  }

  const EngineQuery& q_;
  const Program& p_;
  EngineResult result_;
  ValueDomains domains_;
  std::vector<std::vector<ThreadRun>> runs_;
  std::vector<std::map<std::string, Value>> registers_;
  std::vector<int> reads_;
  std::vector<std::vector<int>> sources_;
  std::vector<std::vector<int>> writes_;
  std::size_t candidates_ = 0;
};

}  // namespace

EngineResult run_enum_engine(const EngineQuery& q) { return EnumEngine(q).run(); }

}  // namespace hsalit::model::detail
