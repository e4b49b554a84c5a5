// The enumeration engine: the oracle. It lists every candidate execution explicitly (each
// thread's runs with values from a value domain, then every rf and co choice) and asks
// evaluate_execution, the model's definition on concrete executions, about each.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>

#include "engines.hpp"
#include "interpreter.hpp"

namespace hsalit::model::detail {

Outcome outcome_of(const Program& p, const ConcreteExecution& x,
                   std::span<const std::map<std::string, Value>* const> registers,
                   const std::vector<litmus::ObservedRef>& refs) {
  Outcome o;
  for (const litmus::ObservedRef& r : refs) {
    if (r.thread) {
      const auto& regs = *registers[static_cast<std::size_t>(*r.thread)];
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
  explicit EnumEngine(const EngineQuery& q)
      : q_(q),
        p_(q.program),
        sc_domains_(sc_domains(q.program, q.options.variant)),
        outcome_decides_(cannot_race(q.program, q.options.variant)),
        sought_(outcome_decides_ ? q.options.only_outcomes : nullptr) {
    result_.partial = sought_ != nullptr;
  }

  EngineResult run() {
    if (p_.unsupported()) {
      result_.unknown = *p_.unsupported();
      return result_;
    }
    if (sought_ && sought_->empty()) return result_;  // asked about nothing: nothing to evaluate
    if (q_.replay) return replay(*q_.replay);
    if (!compute_domains() || !compute_runs()) return result_;
    if (!explaining_) compute_value_masks();  // an explanation lists the choices they drop too
    std::vector<std::size_t> choice(runs_.size(), 0);
    current_runs_ = &choice;
    if (!choose_runs(choice, choice.size(), ChosenMasks{0, initial_mask_, 0})) {
      abandon_record();  // stopped early or gave up: the list is not complete
      return result_;
    }
    if (recording()) {
      q_.record->runs = runs_;
      for (std::size_t i = 0; i < q_.record->candidates.size(); ++i)
        q_.record->by_outcome[q_.record->candidates[i].outcome].push_back(static_cast<std::uint32_t>(i));
      q_.record->complete = true;
    }
    return result_;
  }

  // The candidates of an earlier program with the same runs, rf and co choices, evaluated
  // under this program's orders and scopes, in the order they were listed.
  EngineResult replay(const CandidateList& list) {
    const bool same_refs = list.refs == q_.refs;
    if (same_refs && sought_ && list.candidates.size() <= q_.options.max_candidates) return replay_sought(list);
    for (const CandidateList::Candidate& c : list.candidates)
      if (!replay_one(list, c, same_refs)) break;
    return result_;
  }

  // replay() of a question about some outcomes of a program that cannot race: evaluate()
  // passes over every candidate with another outcome, so only the sought outcomes'
  // candidates are taken, still in the order they were listed (which decides the witness).
  EngineResult replay_sought(const CandidateList& list) {
    std::vector<std::uint32_t>& taken = replay_order_;
    taken.clear();
    for (const Outcome& o : *sought_)
      if (auto it = list.by_outcome.find(o); it != list.by_outcome.end())
        taken.insert(taken.end(), it->second.begin(), it->second.end());
    std::sort(taken.begin(), taken.end());
    for (std::uint32_t i : taken)
      if (!replay_one(list, list.candidates[i], true)) break;
    return result_;
  }

  bool replay_one(const CandidateList& list, const CandidateList::Candidate& c, bool same_refs) {
    registers_.clear();
    for (std::size_t t = 0; t < c.runs.size(); ++t) registers_.push_back(&list.runs[t][c.runs[t]].registers);
    listed_outcome_ = same_refs ? &c.outcome : nullptr;
    return evaluate(c.execution);
  }

 private:
  // Values a load may return: the least fixpoint of "initial values, plus what some run
  // writes when its loads return values of the domain". An execution without thin-air
  // cycles (gdo, 3.8) needs at most one round per write event.
  bool compute_domains() {
    domains_.assign(p_.locations().size(), {});
    for (std::size_t l = 0; l < p_.locations().size(); ++l) {
      domains_[l].insert(p_.locations()[l].initial);
      if (explaining_) domains_[l].insert(q_.seed_values.begin(), q_.seed_values.end());
    }
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
      if (auto why = q_.deadline.stop_reason()) return give_up(*why);
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

  // Two necessary conditions for a choice of runs (one per thread) to have a consistent
  // candidate, tested on bit masks of (cell, value) pairs before combine() builds the
  // choice: (1) every value a run reads at a cell is written there by a chosen run or is the
  // cell's initial value; (2) no two updates read a pair that only one write (or the
  // initial value) can produce: each update reads from the write just before it in co (RMW
  // atomicity, HSA SysArch 3.3.2), so two cannot read the same write. Each thread's runs
  // let every load return any value of its domain, so most choices fail one of them: three
  // threads of two or three exchanges on one location have 470,000 choices, of which (2)
  // leaves one in 23 (the six exchanges read six different values of seven). combine()
  // still decides; no masks beyond 64 pairs.
  struct ValueMasks {
    std::uint64_t reads = 0, writes = 0;
    std::uint64_t sole_source_updates = 0;  // pairs with one possible source that an update reads
    bool feasible = true;                   // false: two of its updates read such a pair
  };

  // The value a cell holds before any write (a cell that is no location starts at 0).
  Value initial_value(const Cell& c) const {
    return c.location < 0 ? Value{0} : p_.locations()[static_cast<std::size_t>(c.location)].initial;
  }

  void compute_value_masks() {
    masks_.clear();
    struct Pair {
      std::set<int> sources;  // the static writes that produce it in some run (-1: initial)
      std::uint64_t bit = 0;
    };
    std::map<std::pair<Cell, Value>, Pair> pairs;
    for (const std::vector<ThreadRun>& runs : runs_)
      for (const ThreadRun& run : runs)
        for (const EventRecord& r : run.records) {
          if (p_.events()[static_cast<std::size_t>(r.event)].reads()) {
            Pair& read = pairs[{r.cell, r.read}];
            if (r.read == initial_value(r.cell)) read.sources.insert(-1);
          }
          if (r.writes) {
            Pair& written = pairs[{r.cell, r.written}];
            written.sources.insert(r.event);
            if (r.written == initial_value(r.cell)) written.sources.insert(-1);
          }
        }
    if (pairs.size() > 64) return;
    initial_mask_ = 0;
    std::size_t next = 0;
    for (auto& [key, pair] : pairs) {
      pair.bit = std::uint64_t{1} << next++;
      if (pair.sources.count(-1)) initial_mask_ |= pair.bit;
    }
    masks_.resize(runs_.size());
    for (std::size_t t = 0; t < runs_.size(); ++t)
      for (const ThreadRun& run : runs_[t]) {
        ValueMasks m;
        for (const EventRecord& r : run.records) {
          const bool reads = p_.events()[static_cast<std::size_t>(r.event)].reads();
          if (reads) m.reads |= pairs.at({r.cell, r.read}).bit;
          if (r.writes) m.writes |= pairs.at({r.cell, r.written}).bit;
          if (reads && r.writes) {
            const Pair& read = pairs.at({r.cell, r.read});
            if (read.sources.size() != 1) continue;
            if (m.sole_source_updates & read.bit) m.feasible = false;
            m.sole_source_updates |= read.bit;
          }
        }
        masks_[t].push_back(m);
      }
    may_write_below_.assign(runs_.size(), 0);
    for (std::size_t t = 1; t < runs_.size(); ++t) {
      may_write_below_[t] = may_write_below_[t - 1];
      for (const ValueMasks& m : masks_[t - 1]) may_write_below_[t] |= m.writes;
    }
  }

  // The masks of the runs chosen so far (writes: with the initial pairs).
  struct ChosenMasks {
    std::uint64_t reads = 0, writes = 0, updated = 0;
  };

  // Chooses a run for each thread below `t` (the threads above are chosen in `choice`) and
  // combines every choice that passes the masks' tests, in the order of an odometer whose
  // thread 0 turns fastest: the order the candidates are listed in, which decides the first
  // race and the witnesses, is that of every choice tried one by one. A prefix is cut as soon
  // as it fails a test that no later run can repair: an update reading a sole-source pair
  // another chosen update reads, or a read pair that neither the chosen runs, the initial
  // values nor any run of the threads still open writes. Chains of exchanges on one location
  // have millions of choices and a few hundred candidates, and trying each one in turn was a
  // third of their listing (docs/model.md). False when the enumeration stops.
  bool choose_runs(std::vector<std::size_t>& choice, std::size_t t, const ChosenMasks& chosen) {
    // combine() rejects many choices before they become candidates, so the deadline is also
    // checked here: evaluate() alone may never see it.
    if ((++choices_tried_ & 255) == 0)
      if (auto why = q_.deadline.stop_reason()) {
        if (!stopped_) give_up(*why);
        return false;
      }
    if (t == 0) return (chosen.reads & ~chosen.writes) != 0 || combine(choice);
    --t;
    for (std::size_t r = 0; r < runs_[t].size(); ++r) {
      choice[t] = r;
      ChosenMasks next = chosen;
      if (!masks_.empty()) {
        const ValueMasks& m = masks_[t][r];
        if (!m.feasible || (chosen.updated & m.sole_source_updates)) continue;
        next = {chosen.reads | m.reads, chosen.writes | m.writes, chosen.updated | m.sole_source_updates};
        if ((next.reads & ~(next.writes | may_write_below_[t])) != 0) continue;
      }
      if (!choose_runs(choice, t, next)) return false;
    }
    return true;
  }

  bool give_up(std::string why) {
    result_.unknown = "enum engine: " + std::move(why);
    return false;
  }

  // One choice of a run per thread: every rf and co over it.
  bool combine(const std::vector<std::size_t>& choice) {
    const int e_count = static_cast<int>(p_.events().size());
    // One execution, refilled for each choice: its vectors keep their storage.
    ConcreteExecution& x = execution_;
    x.executed.assign(static_cast<std::size_t>(e_count), 0);
    x.writes.assign(static_cast<std::size_t>(e_count), 0);
    x.cell.assign(static_cast<std::size_t>(e_count), {});
    x.read_value.assign(static_cast<std::size_t>(e_count), 0);
    x.write_value.assign(static_cast<std::size_t>(e_count), 0);
    x.deps.resize(static_cast<std::size_t>(e_count));
    for (std::vector<int>& d : x.deps) d.clear();
    x.rf.assign(static_cast<std::size_t>(e_count), -1);
    x.cells.clear();
    x.initial.clear();
    x.co.clear();
    registers_.clear();
    for (std::size_t t = 0; t < choice.size(); ++t) {
      const ThreadRun& run = runs_[t][choice[t]];
      registers_.push_back(&run.registers);
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
    for (const Cell& c : x.cells) x.initial.push_back(initial_value(c));

    // rf candidates: same cell, same value.
    reads_.clear();
    std::size_t read_count = 0;
    for (int r = 0; r < e_count; ++r) {
      if (!x.executed[static_cast<std::size_t>(r)] || !p_.events()[static_cast<std::size_t>(r)].reads()) continue;
      if (sources_.size() <= read_count) sources_.emplace_back();
      std::vector<int>& src = sources_[read_count];
      src.clear();
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
      ++read_count;
    }
    // Writes per cell for co.
    writes_.resize(x.cells.size());
    for (std::vector<int>& w : writes_) w.clear();
    for (int w = 0; w < e_count; ++w)
      if (x.executed[static_cast<std::size_t>(w)] && x.writes[static_cast<std::size_t>(w)])
        writes_[static_cast<std::size_t>(x.cell_index(x.cell[static_cast<std::size_t>(w)]))].push_back(w);
    return choose_rf(x, 0);
  }

  bool choose_rf(ConcreteExecution& x, std::size_t i) {
    if (i == reads_.size()) {
      x.co.resize(x.cells.size());
      for (std::vector<int>& order : x.co) order.clear();
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
    if (k == x.cells.size()) return evaluate(x);
    const std::vector<int>& writes = writes_[k];
    if (writes.size() > 64) return give_up("more than 64 writes to one location");
    const std::vector<std::uint64_t> before =
        explaining_ ? std::vector<std::uint64_t>(writes.size(), 0) : co_constraints(x, k);
    x.co[k].assign(1, x.event_count() + static_cast<int>(k));
    return extend_co(x, k, before, 0);
  }

  // Per write of cell k (by its index in writes_[k]), the writes that must precede it in co
  // for po, rf, co and fr on the cell to be acyclic (the coherence shapes CoWW, CoRW,
  // CoWR and CoRR). Orders outside them fail `coherent`; these only avoid listing them.
  std::vector<std::uint64_t> co_constraints(const ConcreteExecution& x, std::size_t k) const {
    const std::vector<int>& writes = writes_[k];
    auto index = [&](int node) -> int {
      auto it = std::find(writes.begin(), writes.end(), node);
      return it == writes.end() ? -1 : static_cast<int>(it - writes.begin());
    };
    auto must = [&](std::vector<std::uint64_t>& before, int first, int then) {
      if (first >= 0 && then >= 0 && first != then) before[static_cast<std::size_t>(then)] |= std::uint64_t{1} << first;
    };
    std::vector<std::uint64_t> before(writes.size(), 0);
    const int e_count = x.event_count();
    const Cell& cell = x.cells[k];
    for (int a = 0; a < e_count; ++a) {
      if (!x.executed[static_cast<std::size_t>(a)] || x.cell[static_cast<std::size_t>(a)] != cell) continue;
      const StaticEvent& ea = p_.events()[static_cast<std::size_t>(a)];
      if (!ea.is_access()) continue;
      for (int b = 0; b < e_count; ++b) {
        if (!x.executed[static_cast<std::size_t>(b)] || x.cell[static_cast<std::size_t>(b)] != cell) continue;
        const StaticEvent& eb = p_.events()[static_cast<std::size_t>(b)];
        if (!eb.is_access() || eb.thread != ea.thread || ea.po >= eb.po) continue;
        const int src_a = x.node_reads(a, p_) ? index(x.rf[static_cast<std::size_t>(a)]) : -1;
        const int src_b = x.node_reads(b, p_) ? index(x.rf[static_cast<std::size_t>(b)]) : -1;
        const int wa = x.node_writes(a) ? index(a) : -1, wb = x.node_writes(b) ? index(b) : -1;
        must(before, wa, wb);        // CoWW: a write before a later write of its thread
        must(before, src_a, wb);     // CoRW: what a read saw before its thread's later write
        must(before, wa, src_b);     // CoWR: a write before what its thread reads later
        must(before, src_a, src_b);  // CoRR: what two reads of a thread see, in order
      }
    }
    return before;
  }

  // Lists, in lexicographic order of writes_[k], the co orders of cell k that respect
  // `before` and the atomicity of updates, each checked by `coherent`.
  bool extend_co(ConcreteExecution& x, std::size_t k, const std::vector<std::uint64_t>& before, std::uint64_t placed) {
    const std::vector<int>& writes = writes_[k];
    std::vector<int>& order = x.co[k];
    if (order.size() == writes.size() + 1) {
      // Orders that `coherent` rejects never reach evaluate(): the limits are checked here too.
      if ((++orders_tried_ & limits_mask_) == 0)
        if (auto why = q_.deadline.stop_reason()) {
          if (!stopped_) give_up(*why);
          return false;
        }
      return (!explaining_ && !coherent(x, k)) || choose_co(x, k + 1);
    }
    for (std::size_t i = 0; i < writes.size(); ++i) {
      const std::uint64_t bit = std::uint64_t{1} << i;
      if ((placed & bit) || (before[i] & ~placed) != 0) continue;
      // RMW atomicity (3.3.2): an update reads from the write just before it in co.
      const int w = writes[i];
      if (!explaining_ && p_.events()[static_cast<std::size_t>(w)].reads() &&
          x.rf[static_cast<std::size_t>(w)] != order.back())
        continue;
      order.push_back(w);
      const bool go_on = extend_co(x, k, before, placed | bit);
      order.pop_back();
      if (!go_on) return false;
    }
    return true;
  }

  // Whether po, rf, co and fr restricted to cell k are acyclic. They all lie in the cell's
  // coh order (HSA SysArch 3.7: coh contains rf, co and fr, and hhb, which contains po), so
  // a cycle makes the candidate inconsistent; dropping it here spares evaluate_execution.
  bool coherent(const ConcreteExecution& x, std::size_t k) {
    const int e_count = x.event_count();
    const Cell& cell = x.cells[k];
    // The cell's nodes, the initial write first, and their position in co (-1: a read), in
    // storage kept across calls.
    std::vector<int>& nodes = cell_nodes_;
    nodes.assign(1, e_count + static_cast<int>(k));
    for (int a = 0; a < e_count; ++a)
      if (x.executed[static_cast<std::size_t>(a)] && p_.events()[static_cast<std::size_t>(a)].is_access() &&
          x.cell[static_cast<std::size_t>(a)] == cell)
        nodes.push_back(a);
    const std::size_t m = nodes.size();
    if (m > 64) return true;  // left to evaluate_execution
    std::vector<int>& co_rank = co_rank_;
    co_rank.assign(m, -1);
    auto local = [&](int node) {
      return static_cast<std::size_t>(std::find(nodes.begin(), nodes.end(), node) - nodes.begin());
    };
    const std::vector<int>& co = x.co[k];
    for (std::size_t i = 0; i < co.size(); ++i) co_rank[local(co[i])] = static_cast<int>(i);
    std::vector<std::uint64_t>& succ = successors_;
    succ.assign(m, 0);
    auto edge = [&](std::size_t a, std::size_t b) { succ[a] |= std::uint64_t{1} << b; };
    for (std::size_t i = 1; i < m; ++i) {
      const StaticEvent& a = p_.events()[static_cast<std::size_t>(nodes[i])];
      for (std::size_t j = 1; j < m; ++j) {
        const StaticEvent& b = p_.events()[static_cast<std::size_t>(nodes[j])];
        if (a.thread == b.thread && a.po < b.po) edge(i, j);  // po
      }
      if (x.node_reads(nodes[i], p_)) {
        const std::size_t w = local(x.rf[static_cast<std::size_t>(nodes[i])]);
        edge(w, i);  // rf
        for (std::size_t j = 0; j < m; ++j)
          if (co_rank[j] > co_rank[w] && j != i) edge(i, j);  // fr
      }
    }
    for (std::size_t i = 0; i + 1 < co.size(); ++i) edge(local(co[i]), local(co[i + 1]));  // co
    // Acyclic iff repeatedly removing nodes without successors empties the graph.
    std::uint64_t alive = m == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << m) - 1;
    for (bool removed = true; removed && alive;) {
      removed = false;
      for (std::size_t i = 0; i < m; ++i)
        if ((alive >> i & 1) && (succ[i] & alive) == 0) {
          alive &= ~(std::uint64_t{1} << i);
          removed = true;
        }
    }
    return alive == 0;
  }

  bool recording() const { return q_.record && !record_abandoned_; }
  void abandon_record() {
    if (!q_.record) return;
    record_abandoned_ = true;
    q_.record->candidates.clear();
  }
  // Lists x for the record; false when the record is abandoned and nothing else needs the
  // enumeration to go on (it stopped at a race).
  bool list_candidate(const ConcreteExecution& x) {
    if (!recording()) return !stopped_;
    if (q_.record->candidates.size() >= q_.record_limit || (stopped_ && q_.deadline.passed())) {
      abandon_record();
      return !stopped_;
    }
    if (q_.record->candidates.empty()) q_.record->refs = q_.refs;
    q_.record->candidates.push_back({*current_runs_, x, outcome_of(p_, x, registers_, q_.refs)});
    return true;
  }

  bool evaluate(const ConcreteExecution& x) {
    if (explaining_) {
      if ((++candidates_ & limits_mask_) == 0)
        if (auto why = q_.deadline.stop_reason()) return give_up(*why);
      if (q_.visit(x, outcome_of(p_, x, registers_, q_.refs))) return true;
      return give_up("more candidate executions than the bound");
    }
    if (!list_candidate(x)) return false;
    // After a race that stops the evaluation, the candidates are only listed for the record:
    // the result is the one of an enumeration stopped there.
    if (stopped_) return true;
    if (++candidates_ > q_.options.max_candidates) return give_up("more candidate executions than the bound");
    if ((candidates_ & limits_mask_) == 0)
      if (auto why = q_.deadline.stop_reason()) return give_up(*why);
    // The candidate's outcome, as listed if it was (it depends on the execution only).
    std::optional<Outcome> computed;
    auto outcome = [&]() -> const Outcome& {
      if (listed_outcome_) return *listed_outcome_;
      if (!computed) computed = outcome_of(p_, x, registers_, q_.refs);
      return *computed;
    };
    if (outcome_decides_) {
      // Without races, a candidate only adds its outcome: one allowed already (its first
      // consistent candidate was the witness, if any) or not sought need no evaluation.
      const Outcome& known = outcome();
      if (result_.outcomes.count(known) || (sought_ && !sought_->count(known))) return true;
    }
    Evaluation e = evaluate_execution(p_, x, q_.options.variant, sc_domains_);
    if (!e.consistent) return true;
    const Outcome& o = outcome();
    if (q_.filter && !holds(*q_.filter, q_.refs, o, p_)) return true;
    for (const Cell& c : x.cells)
      if (c.location < 0) {
        result_.unknown = "a consistent execution accesses an address that is not a location";
        return false;
      }
    result_.outcomes.insert(o);
    if (e.race && !result_.race) result_.race.emplace(x, *e.race);
    if (e.race && q_.options.stop_at_race) {  // stops the evaluation, not a failure
      stopped_ = true;
      return recording();
    }
    if (!result_.satisfying && holds(q_.condition, q_.refs, o, p_)) result_.satisfying = x;
    if (sought_ && result_.outcomes.size() == sought_->size()) {  // every sought outcome found
      stopped_ = true;
      return recording();
    }
    return true;
  }

  const EngineQuery& q_;
  const Program& p_;
  const std::vector<ScDomain> sc_domains_;  // of the program, for every candidate
  // The program cannot race and names the location of every access: a candidate's outcome
  // is all it can add to the result.
  const bool outcome_decides_;
  const std::set<Outcome>* sought_;                      // CheckOptions::only_outcomes, if honoured
  const bool explaining_ = static_cast<bool>(q_.visit);  // every candidate to q_.visit, none evaluated
  const Outcome* listed_outcome_ = nullptr;              // the replayed candidate's outcome
  std::vector<std::uint32_t> replay_order_;              // replay_sought's candidates
  EngineResult result_;
  ValueDomains domains_;
  std::vector<std::vector<ThreadRun>> runs_;
  std::vector<const std::map<std::string, Value>*> registers_;  // per thread, of the chosen run
  std::vector<int> reads_;
  std::vector<std::vector<int>> sources_;  // per read of reads_ (entries past them are stale)
  ConcreteExecution execution_;
  std::vector<int> cell_nodes_, co_rank_;  // coherent's scratch
  std::vector<std::uint64_t> successors_;
  std::vector<std::vector<int>> writes_;
  std::vector<std::vector<ValueMasks>> masks_;  // per thread and run; empty: no pre-test
  std::uint64_t initial_mask_ = 0;              // the (cell, initial value) pairs
  std::vector<std::uint64_t> may_write_below_;  // per thread t, the pairs some run of a thread below t writes
  std::uint64_t choices_tried_ = 0, orders_tried_ = 0;
  std::size_t candidates_ = 0;
  // The limits are checked every 1024 candidates (and co orders), or at each where the
  // program is large and every candidate costs long: a clock read is nothing beside it.
  const std::size_t limits_mask_ = p_.events().size() >= 64 ? 0 : 1023;
  const std::vector<std::size_t>* current_runs_ = nullptr;  // the choice combine() is building
  bool stopped_ = false;                                    // at a race, with stop_at_race
  bool record_abandoned_ = false;
};

}  // namespace

EngineResult run_enum_engine(const EngineQuery& q) { return EnumEngine(q).run(); }

}  // namespace hsalit::model::detail
