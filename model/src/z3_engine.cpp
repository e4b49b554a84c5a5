// The Z3 engine: the whole model as one satisfiability problem per test.
//
// Threads are executed symbolically (forward branches become guards, registers become
// if-then-else terms over 64-bit vectors), so one formula covers every path. Orders that the
// spec says exist are integer clocks: one coh clock per access (a total order per memory
// cell, 3.7), one clock per scope instance for sc_S (3.10), and ranking functions that make
// hhb (3.11) and gdo (3.8) acyclic. hhb itself is a boolean matrix defined by the fixpoint
// equation hhb = base | base;hhb, whose solution is unique (the transitive closure) because
// the ranking makes base acyclic; races (3.12) can therefore ask for the absence of hhb.
// docs/model.md states each constraint with its section.
#include <fmt/format.h>

#include <z3++.h>
#include <algorithm>
#include <map>
#include <set>

#include "engines.hpp"
#include "hsa_model.hpp"
#include "opencl_model.hpp"
#include "z3_relations.hpp"

namespace hsalit::model::detail {
namespace {

using litmus::Expr;
using litmus::Instruction;
using litmus::OpKind;

struct SymValue {
  z3::expr value;
  std::map<int, z3::expr> deps;  // read event -> "this value depends on it"
};

struct SymState {
  std::map<std::string, SymValue> regs;
  std::map<int, z3::expr> ctrl;
};

// Per static event.
struct EventTerms {
  z3::expr guard;                // executed
  z3::expr address;              // accesses
  z3::expr read;                 // reads
  z3::expr written;              // writes
  z3::expr writes;               // executed and writing (a failed cas does not write)
  std::map<int, z3::expr> deps;  // ldo sources
};

// A memory cell that has an initial write.
struct InitNode {
  int location;
  std::uint32_t copy;
};

class Z3Engine {
 public:
  // The simple solver (no tactic preprocessing) is what these small, mostly propositional
  // problems need; models are not compacted since only a few terms are read from each.
  explicit Z3Engine(const EngineQuery& q)
      : q_(q),
        p_(q.program),
        ev_(p_.events()),
        solver_(ctx_, z3::solver::simple()),
        f_(ctx_.bool_val(false)),
        t_(ctx_.bool_val(true)) {
    static const bool configured = [] {
      z3::set_param("model.compact", false);
      return true;
    }();
    (void)configured;
  }

  EngineResult run() {
    if (p_.unsupported()) {
      result_.unknown = *p_.unsupported();
      return result_;
    }
    try {
      encode();
      enumerate();
    } catch (const LimitReached& e) {
      result_.unknown = "z3 engine: " + e.why;
    } catch (const z3::exception& e) {
      result_.unknown = fmt::format("z3 error: {}", e.msg());
    }
    return result_;
  }

 private:
  // ---- helpers -------------------------------------------------------------------------
  z3::expr bv(Value v) { return ctx_.bv_val(static_cast<std::uint64_t>(v), 64); }
  int n() const { return static_cast<int>(ev_.size()); }
  const StaticEvent& event(int e) const { return ev_[static_cast<std::size_t>(e)]; }
  EventTerms& terms(int e) { return terms_[static_cast<std::size_t>(e)]; }

  static z3::expr any_of(z3::context& c, const std::vector<z3::expr>& xs) {
    z3::expr_vector v(c);
    for (const auto& x : xs) v.push_back(x);
    return xs.empty() ? c.bool_val(false) : z3::mk_or(v);
  }

  // Encoding a large program takes long before the solver first runs (some relations take
  // cubic time in the events), so its loops check the limits as they go.
  struct LimitReached {
    std::string why;
  };
  void check_limits() const {
    if (auto why = q_.deadline.stop_reason()) throw LimitReached{*why};
  }

  // Setting solver parameters is expensive in Z3; the timeout is refreshed only when the time
  // left has dropped noticeably below the one last set.
  bool set_timeout() {
    double left = q_.deadline.seconds_left();
    if (left <= 0) return false;
    if (timeout_set_ > 0 && left > 0.9 * timeout_set_) return true;
    z3::params params(ctx_);
    params.set("timeout", static_cast<unsigned>(std::max(1.0, left * 1000)));
    solver_.set(params);
    timeout_set_ = left;
    return true;
  }

  // ---- symbolic execution of the threads -----------------------------------------------
  SymValue eval(const Expr& e, const SymState& s) {
    switch (e.kind) {
      case Expr::Kind::Constant: return {bv(e.value), {}};
      case Expr::Kind::Register: {
        auto it = s.regs.find(e.name);
        return it == s.regs.end() ? SymValue{bv(0), {}} : it->second;
      }
      case Expr::Kind::Location: {
        auto loc = p_.location_by_name(e.name);
        return {bv(loc ? p_.address_of(*loc) : 0), {}};
      }
      case Expr::Kind::Binary: {
        SymValue a = eval(e.operands[0], s), b = eval(e.operands[1], s);
        for (auto& [r, d] : b.deps) {
          auto it = a.deps.find(r);
          if (it == a.deps.end())
            a.deps.emplace(r, d);
          else
            it->second = it->second || d;
        }
        switch (e.op) {
          case litmus::BinaryOp::Add: a.value = a.value + b.value; break;
          case litmus::BinaryOp::Sub: a.value = a.value - b.value; break;
          case litmus::BinaryOp::Xor: a.value = a.value ^ b.value; break;
          case litmus::BinaryOp::And: a.value = a.value & b.value; break;
          case litmus::BinaryOp::Or: a.value = a.value | b.value; break;
          case litmus::BinaryOp::Eq: a.value = z3::ite(a.value == b.value, bv(1), bv(0)); break;
          case litmus::BinaryOp::Ne: a.value = z3::ite(a.value != b.value, bv(1), bv(0)); break;
        }
        return a;
      }
    }
    return {bv(0), {}};
  }

  static void add_deps(std::map<int, z3::expr>& into, const std::map<int, z3::expr>& from) {
    for (const auto& [r, d] : from) {
      auto it = into.find(r);
      if (it == into.end())
        into.emplace(r, d);
      else
        it->second = it->second || d;
    }
  }

  // Merges the states reaching one instruction: values and dependencies become
  // if-then-else terms over the guards of the incoming edges.
  SymState merge(const std::vector<std::pair<z3::expr, SymState>>& in) {
    if (in.size() == 1) return in[0].second;
    SymState out = in.back().second;
    for (std::size_t i = in.size() - 1; i-- > 0;) {
      const z3::expr& g = in[i].first;
      const SymState& s = in[i].second;
      std::map<std::string, SymValue> regs;
      std::set<std::string> names;
      for (const auto& [k, v] : s.regs) names.insert(k);
      for (const auto& [k, v] : out.regs) names.insert(k);
      for (const std::string& name : names) {
        SymValue a = s.regs.count(name) ? s.regs.at(name) : SymValue{bv(0), {}};
        SymValue b = out.regs.count(name) ? out.regs.at(name) : SymValue{bv(0), {}};
        regs.emplace(name, SymValue{z3::ite(g, a.value, b.value), merge_deps(g, a.deps, b.deps)});
      }
      out.regs = std::move(regs);
      out.ctrl = merge_deps(g, s.ctrl, out.ctrl);
    }
    return out;
  }

  std::map<int, z3::expr> merge_deps(const z3::expr& g, const std::map<int, z3::expr>& a,
                                     const std::map<int, z3::expr>& b) {
    std::map<int, z3::expr> out;
    std::set<int> keys;
    for (const auto& [k, v] : a) keys.insert(k);
    for (const auto& [k, v] : b) keys.insert(k);
    for (int k : keys) {
      z3::expr da = a.count(k) ? a.at(k) : f_;
      z3::expr db = b.count(k) ? b.at(k) : f_;
      out.emplace(k, z3::ite(g, da, db));
    }
    return out;
  }

  z3::expr address_of(const litmus::Address& a, const SymState& s, std::map<int, z3::expr>& deps) {
    SymValue base = eval(a.base, s);
    add_deps(deps, base.deps);
    z3::expr address = base.value;
    if (a.offset) {
      SymValue off = eval(*a.offset, s);
      add_deps(deps, off.deps);
      address = address + off.value;
    }
    return address;
  }

  void execute_thread(int thread) {
    const litmus::Thread& th = p_.test().threads[static_cast<std::size_t>(thread)];
    const std::size_t size = th.code.size();
    std::vector<std::vector<std::pair<z3::expr, SymState>>> incoming(size + 1);
    SymState start;
    for (const litmus::InitEntry& e : p_.test().init)
      if (e.thread == thread) {
        Value v = e.value.value;
        if (e.value.is_location()) {
          auto loc = p_.location_by_name(e.value.name);
          v = loc ? p_.address_of(*loc) : 0;
        }
        start.regs.emplace(e.name, SymValue{bv(v), {}});
      }
    incoming[0].emplace_back(t_, std::move(start));
    auto label_index = [&](const std::string& label) {
      for (std::size_t i = 0; i < size; ++i)
        if (th.code[i].kind == OpKind::Label && th.code[i].label == label) return i;
      return size;
    };
    for (std::size_t i = 0; i < size; ++i) {
      if (incoming[i].empty()) {
        // Unreachable: its events never execute.
        for (int id : p_.events_of_instruction(thread)[i]) terms(id).guard = f_;
        continue;
      }
      std::vector<z3::expr> guards;
      for (const auto& [g, s] : incoming[i]) guards.push_back(g);
      z3::expr g = any_of(ctx_, guards).simplify();
      SymState s = merge(incoming[i]);
      const Instruction& ins = th.code[i];
      const std::vector<int>& ids = p_.events_of_instruction(thread)[i];
      switch (ins.kind) {
        case OpKind::Label: break;
        case OpKind::Mov: s.regs.insert_or_assign(ins.reg, eval(ins.value, s)); break;
        case OpKind::Fence: {
          EventTerms& t = terms(ids[0]);
          t.guard = g;
          t.deps = s.ctrl;
          break;
        }
        case OpKind::Branch: {
          std::size_t target = label_index(ins.label);
          if (!ins.condition) {
            incoming[target].emplace_back(g, s);
            continue;
          }
          SymValue c = eval(*ins.condition, s);
          add_deps(s.ctrl, c.deps);
          z3::expr taken = c.value != bv(0);
          incoming[target].emplace_back((g && taken).simplify(), s);
          incoming[i + 1].emplace_back((g && !taken).simplify(), std::move(s));
          continue;
        }
        case OpKind::Store: {
          EventTerms& t = terms(ids[0]);
          t.guard = g;
          t.deps = s.ctrl;
          t.address = address_of(ins.addr, s, t.deps);
          SymValue v = eval(ins.value, s);
          add_deps(t.deps, v.deps);
          t.written = v.value;
          t.writes = g;
          break;
        }
        case OpKind::Load:
        case OpKind::Rmw: {
          int id = ids[0];
          EventTerms& t = terms(id);
          t.guard = g;
          t.deps = s.ctrl;
          t.address = address_of(ins.addr, s, t.deps);
          t.read = ctx_.bv_const(fmt::format("read_{}", id).c_str(), 64);
          std::map<int, z3::expr> own = {{id, t_}};
          if (ins.kind == OpKind::Rmw) {
            z3::expr success = t_;
            if (ins.expected) {
              SymValue expected = eval(*ins.expected, s);
              add_deps(t.deps, expected.deps);
              success = expected.value == t.read;
            }
            SymState with_read = s;
            with_read.regs.insert_or_assign(ins.reg, SymValue{t.read, own});
            SymValue nv = eval(ins.value, with_read);
            nv.deps.erase(id);
            add_deps(t.deps, nv.deps);
            t.written = nv.value;
            t.writes = g && success;
          }
          s.regs.insert_or_assign(ins.reg, SymValue{t.read, own});
          break;
        }
        case OpKind::Barrier: {
          // HSA PRM 9.3: a relaxed increment of the barrier counter, then a relaxed load
          // that waits for the number of participants.
          EventTerms& arrive = terms(ids[0]);
          EventTerms& depart = terms(ids[1]);
          const StaticEvent& d = event(ids[1]);
          z3::expr address = bv(p_.address_of(*d.location));
          arrive.guard = depart.guard = g;
          arrive.deps = depart.deps = s.ctrl;
          arrive.address = depart.address = address;
          arrive.read = ctx_.bv_const(fmt::format("read_{}", ids[0]).c_str(), 64);
          arrive.written = arrive.read + bv(1);
          arrive.writes = g;
          depart.read = ctx_.bv_const(fmt::format("read_{}", ids[1]).c_str(), 64);
          solver_.add(z3::implies(g, depart.read == bv(d.barrier_participants)));
          break;
        }
      }
      incoming[i + 1].emplace_back(g, std::move(s));
    }
    final_regs_[static_cast<std::size_t>(thread)] = incoming[size].empty() ? SymState{} : merge(incoming[size]);
  }

  // ---- cells -----------------------------------------------------------------------------
  // The cell an access touches is its address plus, for group-segment locations, its
  // thread's work-group copy. Returns nullopt when two accesses can never share a cell.
  std::optional<z3::expr> same_cell(int a, int b) {
    const StaticEvent& x = event(a);
    const StaticEvent& y = event(b);
    if (x.location && y.location) {
      if (*x.location != *y.location || p_.copy_of(*x.location, x.thread) != p_.copy_of(*y.location, y.thread))
        return std::nullopt;
      return t_;
    }
    z3::expr eq = terms(a).address == terms(b).address;
    if (p_.scopes().same_instance(x.thread, y.thread, litmus::Scope::WorkGroup)) return eq;
    return eq && is_global_address(terms(a).address);
  }

  z3::expr is_global_address(const z3::expr& address) {
    std::vector<z3::expr> options;
    for (const LocationInfo& l : p_.locations())
      if (l.segment == Segment::Global) options.push_back(address == bv(l.address));
    return any_of(ctx_, options);
  }

  std::optional<z3::expr> in_init_cell(int a, const InitNode& c) {
    const StaticEvent& x = event(a);
    if (p_.copy_of(c.location, x.thread) != c.copy) return std::nullopt;
    if (x.location) return *x.location == c.location ? std::optional<z3::expr>(t_) : std::nullopt;
    return terms(a).address == bv(p_.address_of(c.location));
  }

  // ---- the encoding ----------------------------------------------------------------------
  void encode() {
    terms_.assign(ev_.size(), EventTerms{f_, bv(0), bv(0), bv(0), f_, {}});
    final_regs_.resize(static_cast<std::size_t>(p_.thread_count()));
    for (int t = 0; t < p_.thread_count(); ++t) execute_thread(t);

    // Initial writes: one per location copy.
    for (std::size_t l = 0; l < p_.locations().size(); ++l) {
      std::set<std::uint32_t> copies;
      for (int t = 0; t < p_.thread_count(); ++t) copies.insert(p_.copy_of(static_cast<int>(l), t));
      for (std::uint32_t c : copies) inits_.push_back({static_cast<int>(l), c});
    }

    accesses_.clear();
    for (int e = 0; e < n(); ++e)
      if (event(e).is_access()) accesses_.push_back(e);

    // Every executed access touches a location.
    for (int a : accesses_) {
      if (event(a).location) continue;
      std::vector<z3::expr> valid;
      for (const LocationInfo& l : p_.locations()) valid.push_back(terms(a).address == bv(l.address));
      invalid_address_.push_back(terms(a).guard && !any_of(ctx_, valid));
    }

    encode_coherence();
    if (q_.options.variant == ModelVariant::OpenCl) {
      encode_opencl();
    } else {
      encode_hsa_happens_before();
      encode_sc_orders();
      encode_gdo();
    }
    encode_outcome();
  }

  // coh (3.7): a clock per access, distinct within a cell, initial writes first; a read
  // returns the latest write before it, which makes rf, co, fr and RMW atomicity (3.3.2) one
  // rule: nothing writes the cell strictly between a read's source and the read.
  void encode_coherence() {
    for (int a : accesses_) clock_.emplace(a, ctx_.int_const(fmt::format("coh_{}", a).c_str()));
    for (int a : accesses_) solver_.add(clock_.at(a) > 0);
    for (std::size_t i = 0; i < accesses_.size(); ++i)
      for (std::size_t j = i + 1; j < accesses_.size(); ++j) {
        check_limits();
        int a = accesses_[i], b = accesses_[j];
        auto same = same_cell(a, b);
        if (!same) continue;
        z3::expr both = terms(a).guard && terms(b).guard && *same;
        solver_.add(z3::implies(both, clock_.at(a) != clock_.at(b)));
        // coh is consistent with po (3.7).
        if (event(a).thread == event(b).thread)
          solver_.add(
              z3::implies(both, event(a).po < event(b).po ? clock_.at(a) < clock_.at(b) : clock_.at(b) < clock_.at(a)));
      }
    // rf: each executed read takes the value of the latest write before it in its cell.
    for (int r : accesses_) {
      if (!event(r).reads()) continue;
      std::vector<z3::expr> choices;
      // From another event.
      for (int w : accesses_) {
        check_limits();
        if (w == r || !event(w).writes()) continue;
        auto same = same_cell(w, r);
        if (!same) continue;
        z3::expr rf = ctx_.bool_const(fmt::format("rf_{}_{}", w, r).c_str());
        rf_.emplace(std::make_pair(w, r), rf);
        solver_.add(z3::implies(rf, terms(w).writes && *same && terms(r).read == terms(w).written &&
                                        clock_.at(w) < clock_.at(r) && nothing_between(w, r)));
        choices.push_back(rf);
      }
      // From the initial write of its cell.
      for (std::size_t k = 0; k < inits_.size(); ++k) {
        auto in = in_init_cell(r, inits_[k]);
        if (!in) continue;
        z3::expr rf = ctx_.bool_const(fmt::format("rfinit_{}_{}", k, r).c_str());
        rf_init_.emplace(std::make_pair(static_cast<int>(k), r), rf);
        Value init = p_.locations()[static_cast<std::size_t>(inits_[k].location)].initial;
        solver_.add(z3::implies(rf, *in && terms(r).read == bv(init) && nothing_between_init(k, r)));
        choices.push_back(rf);
      }
      solver_.add(z3::implies(terms(r).guard, any_of(ctx_, choices)));
      for (std::size_t i = 0; i < choices.size(); ++i) {
        check_limits();
        solver_.add(z3::implies(choices[i], terms(r).guard));
        for (std::size_t j = i + 1; j < choices.size(); ++j) solver_.add(!(choices[i] && choices[j]));
      }
    }
  }

  z3::expr nothing_between(int w, int r) {
    std::vector<z3::expr> between;
    for (int w2 : accesses_) {
      if (w2 == w || w2 == r || !event(w2).writes()) continue;
      auto same = same_cell(w2, r);
      if (!same) continue;
      between.push_back(terms(w2).writes && *same && clock_.at(w) < clock_.at(w2) && clock_.at(w2) < clock_.at(r));
    }
    return !any_of(ctx_, between);
  }

  z3::expr nothing_between_init(std::size_t k, int r) {
    std::vector<z3::expr> between;
    for (int w2 : accesses_) {
      if (w2 == r || !event(w2).writes()) continue;
      auto same = same_cell(w2, r);
      if (!same) continue;
      between.push_back(terms(w2).writes && *same && clock_.at(w2) < clock_.at(r));
    }
    (void)k;
    return !any_of(ctx_, between);
  }

  // A write `a` precedes a read `b` of the same cell in coh.
  std::optional<z3::expr> coh_write_read(int a, int b) {
    if (a == b || !event(a).writes() || !event(b).reads()) return std::nullopt;
    auto same = same_cell(a, b);
    if (!same) return std::nullopt;
    return terms(a).writes && terms(b).guard && *same && clock_.at(a) < clock_.at(b);
  }

  bool po_before(int a, int b) const { return event(a).thread == event(b).thread && event(a).po < event(b).po; }

  // sso (3.9) and hhb (3.11) as hsa_model.hpp defines them, over formulas of the events; the
  // axiom that hhb is acyclic is asserted, with a rank per event that po and sso increase
  // (implied by it, and what lets the solver see it at once).
  void encode_hsa_happens_before() {
    Z3Algebra algebra(ctx_, solver_, n(), [this] { check_limits(); });
    const ModelVariant variant = q_.options.variant;
    HsaExecution<Z3Algebra> f;
    for (auto* set : {&f.release_atomic, &f.release_fence, &f.acquire_atomic, &f.acquire_fence, &f.acquire,
                      &f.global_write, &f.group_write})
      set->assign(static_cast<std::size_t>(n()), f_);
    for (int e = 0; e < n(); ++e) {
      const auto i = static_cast<std::size_t>(e);
      const StaticEvent& ev = event(e);
      const z3::expr& g = terms(e).guard;
      if (ev.is_release()) {
        if (ev.is_fence())
          f.release_fence[i] = g;
        else if (ev.atomic)
          f.release_atomic[i] = terms(e).writes;  // an atomic releaser writes
      }
      if (ev.is_acquire()) {
        (ev.is_fence() ? f.acquire_fence : f.acquire_atomic)[i] = g;
        f.acquire[i] = g;
      }
      if (ev.writes()) (ev.segment == Segment::Group ? f.group_write : f.global_write)[i] = terms(e).writes;
    }
    f.po = f.coh_write_read = f.match_global = f.match_group = algebra.none();
    const auto& instances = p_.scope_instances();
    if (variant == ModelVariant::HrfDirect) {
      f.specify_global.assign(instances.size(), algebra.none());
      f.specify_group.assign(instances.size(), algebra.none());
    }
    for (int a = 0; a < n(); ++a)
      for (int b = 0; b < n(); ++b) {
        check_limits();
        if (a == b) continue;
        algebra.at(f.po, a, b) = po_live(a, b);
        if (event(a).size == event(b).size)
          if (auto coh = coh_write_read(a, b)) algebra.at(f.coh_write_read, a, b) = *coh;
        if (!event(a).is_release() || !event(b).is_acquire()) continue;
        for (Segment seg : {Segment::Global, Segment::Group}) {
          if (match(p_, event(a), event(b), seg, variant))
            algebra.at(seg == Segment::Global ? f.match_global : f.match_group, a, b) = t_;
          for (std::size_t s = 0; s < f.specify_global.size(); ++s)
            if (specifies(p_, event(a), instances[s], seg, variant) &&
                specifies(p_, event(b), instances[s], seg, variant))
              algebra.at((seg == Segment::Global ? f.specify_global : f.specify_group)[s], a, b) = t_;
        }
      }
    const HsaHappensBefore<Z3Algebra> hb = hsa_happens_before(algebra, f, variant);
    hhb_ = hb.hhb;
    solver_.add(hb.acyclic);
    solver_.add(algebra.acyclic(algebra.unite(f.po, hb.sso)));
    // coh is consistent with hhb (3.11).
    for (int a : accesses_)
      for (int b : accesses_) {
        check_limits();
        if (a == b) continue;
        auto same = same_cell(a, b);
        if (!same) continue;
        solver_.add(z3::implies(idx(hhb_, a, b) && *same, clock_.at(a) < clock_.at(b)));
      }
  }

  const z3::expr& idx(const std::vector<z3::expr>& m, int a, int b) const {
    return m[static_cast<std::size_t>(a) * static_cast<std::size_t>(n()) + static_cast<std::size_t>(b)];
  }

  z3::expr po_live(int a, int b) { return po_before(a, b) ? terms(a).guard && terms(b).guard : f_; }

  // sc_S (3.10): a total order of Dom(S) per scope instance, containing hhb, agreeing with
  // coh and with every other sc_S' on the pairs they share.
  void encode_sc_orders() {
    const std::vector<ScDomain> domains = sc_domains(p_, q_.options.variant);
    std::vector<std::map<int, z3::expr>> clocks(domains.size());
    for (std::size_t s = 0; s < domains.size(); ++s) {
      const std::vector<int>& dom = domains[s].events;
      for (int e : dom) clocks[s].emplace(e, ctx_.int_const(fmt::format("sc{}_{}", s, e).c_str()));
      for (int a : dom)
        for (int b : dom) {
          check_limits();
          if (a == b) continue;
          const z3::expr& ca = clocks[s].at(a);
          const z3::expr& cb = clocks[s].at(b);
          z3::expr both = terms(a).guard && terms(b).guard;
          if (a < b) solver_.add(z3::implies(both, ca != cb));
          solver_.add(z3::implies(idx(hhb_, a, b), ca < cb));
          if (a < b && event(a).is_access() && event(b).is_access()) {
            if (auto same = same_cell(a, b))
              solver_.add(z3::implies(both && *same, (ca < cb) == (clock_.at(a) < clock_.at(b))));
          }
        }
    }
    for (std::size_t s = 0; s < domains.size(); ++s)
      for (std::size_t s2 = s + 1; s2 < domains.size(); ++s2)
        for (const auto& [a, ca] : clocks[s])
          for (const auto& [b, cb] : clocks[s]) {
            if (a >= b || !clocks[s2].count(a) || !clocks[s2].count(b)) continue;
            z3::expr both = terms(a).guard && terms(b).guard;
            solver_.add(z3::implies(both, (ca < cb) == (clocks[s2].at(a) < clocks[s2].at(b))));
          }
  }

  // gdo (3.8): ldo | coh is acyclic, as a rank over accesses.
  void encode_gdo() {
    std::map<int, z3::expr> rank;
    for (int a : accesses_) rank.emplace(a, ctx_.int_const(fmt::format("gdo_{}", a).c_str()));
    for (int b : accesses_)
      for (const auto& [r, dep] : terms(b).deps)
        if (r != b && rank.count(r))
          solver_.add(z3::implies(dep && terms(r).guard && terms(b).guard, rank.at(r) < rank.at(b)));
    for (int a : accesses_)
      for (int b : accesses_) {
        check_limits();
        if (a == b) continue;
        auto same = same_cell(a, b);
        if (!same) continue;
        solver_.add(z3::implies(terms(a).guard && terms(b).guard && *same && clock_.at(a) < clock_.at(b),
                                rank.at(a) < rank.at(b)));
      }
  }

  // ---- the OpenCL model -----------------------------------------------------------------
  // What judge_opencl reads, as formulas over the nodes: the events, then one initial write
  // per entry of inits_. The coherence clocks above already make every per-location order
  // one that po, rf, mo and rb agree with, which the OpenCL axioms imply (docs/model.md).
  OpenClExecution<Z3Algebra> opencl_facts(Z3Algebra& a) {
    const int nodes = n() + static_cast<int>(inits_.size());
    auto is_init = [&](int node) { return node >= n(); };
    auto init_of = [&](int node) -> const InitNode& { return inits_[static_cast<std::size_t>(node - n())]; };
    auto guard = [&](int node) { return is_init(node) ? t_ : terms(node).guard; };
    OpenClExecution<Z3Algebra> f;
    for (auto* set :
         {&f.IW, &f.R, &f.W, &f.F, &f.NA, &f.SC, &f.ACQ, &f.REL, &f.WI, &f.WG, &f.DV, &f.ALL, &f.GLOBAL, &f.LOCAL})
      set->assign(static_cast<std::size_t>(nodes), f_);
    for (auto* rel : {&f.sb, &f.rf, &f.mo, &f.loc, &f.wi, &f.swg, &f.sdv, &f.dep, &f.syncbar}) *rel = a.none();
    for (int x = 0; x < nodes; ++x) {
      const auto i = static_cast<std::size_t>(x);
      if (is_init(x)) {
        tag_initial_write(f, i, p_.locations()[static_cast<std::size_t>(init_of(x).location)].segment, t_);
        continue;
      }
      const StaticEvent& e = event(x);
      if (e.reads()) f.R[i] = terms(x).guard;
      if (e.writes()) f.W[i] = terms(x).writes;
      tag_event(f, i, e, terms(x).guard);
    }
    for (int x = 0; x < nodes; ++x) {
      check_limits();
      for (int y = 0; y < nodes; ++y) {
        // Same cell, among accesses and initial writes.
        if (is_init(x) && is_init(y)) {
          if (x == y) a.at(f.loc, x, y) = t_;
        } else if (is_init(x) || is_init(y)) {
          const int e = is_init(x) ? y : x, k = is_init(x) ? x : y;
          if (event(e).is_access())
            if (auto in = in_init_cell(e, init_of(k))) a.at(f.loc, x, y) = a.all(terms(e).guard, *in);
        } else if (event(x).is_access() && event(y).is_access()) {
          if (x == y) {
            a.at(f.loc, x, y) = terms(x).guard;
          } else if (auto same = same_cell(x, y)) {
            a.at(f.loc, x, y) = a.all(a.all(terms(x).guard, terms(y).guard), *same);
          }
        }
        if (is_init(x) || is_init(y)) continue;
        relate_events(a, f, p_, x, y, a.all(terms(x).guard, terms(y).guard));
        // mo between two writes of one cell: their clocks.
        if (x != y && event(x).writes() && event(y).writes())
          if (auto same = same_cell(x, y))
            a.at(f.mo, x, y) = terms(x).writes && terms(y).writes && *same && clock_.at(x) < clock_.at(y);
      }
    }
    for (std::size_t k = 0; k < inits_.size(); ++k)
      for (int w : accesses_)
        if (event(w).writes())
          if (auto in = in_init_cell(w, inits_[k])) a.at(f.mo, n() + static_cast<int>(k), w) = terms(w).writes && *in;
    for (const auto& [pair, rf] : rf_) a.at(f.rf, pair.first, pair.second) = rf;
    for (const auto& [pair, rf] : rf_init_) a.at(f.rf, n() + pair.first, pair.second) = rf;
    for (int b = 0; b < n(); ++b)
      for (const auto& [r, dep] : terms(b).deps)
        if (r != b) a.at(f.dep, r, b) = dep && guard(r) && guard(b);
    return f;
  }

  // The OpenCL model's axioms, asserted; its data races kept for enumerate().
  void encode_opencl() {
    Z3Algebra algebra(ctx_, solver_, n() + static_cast<int>(inits_.size()), [this] { check_limits(); });
    const OpenClJudgement<Z3Algebra> j = judge_opencl(algebra, opencl_facts(algebra));
    for (const auto& axiom : j.axioms) solver_.add(axiom.holds);
    for (int x = 0; x < n(); ++x)
      for (int y = x + 1; y < n(); ++y) {
        z3::expr race = algebra.any(algebra.at(j.dr, x, y), algebra.at(j.dr, y, x));
        if (!race.is_false()) opencl_races_.push_back({{x, y}, race});
      }
  }

  // ---- outcomes ------------------------------------------------------------------------
  void encode_outcome() {
    for (const litmus::ObservedRef& r : q_.refs) {
      if (r.thread) {
        const SymState& s = final_regs_[static_cast<std::size_t>(*r.thread)];
        auto it = s.regs.find(r.name);
        outcome_terms_.push_back(it == s.regs.end() ? bv(0) : it->second.value);
        continue;
      }
      z3::expr fin = ctx_.bv_const(fmt::format("final_{}", r.name).c_str(), 64);
      auto loc = p_.location_by_name(r.name);
      if (!loc) {
        solver_.add(fin == bv(0));
        outcome_terms_.push_back(fin);
        continue;
      }
      InitNode cell{*loc, p_.observed_copy(*loc)};
      std::vector<z3::expr> writers;
      for (int w : accesses_) {
        if (!event(w).writes()) continue;
        auto in = in_init_cell(w, cell);
        if (!in) continue;
        z3::expr is_writer = terms(w).writes && *in;
        std::vector<z3::expr> later;
        for (int w2 : accesses_) {
          if (w2 == w || !event(w2).writes()) continue;
          auto in2 = in_init_cell(w2, cell);
          if (!in2) continue;
          later.push_back(terms(w2).writes && *in2 && clock_.at(w) < clock_.at(w2));
        }
        solver_.add(z3::implies(is_writer && !any_of(ctx_, later), fin == terms(w).written));
        writers.push_back(is_writer);
      }
      solver_.add(
          z3::implies(!any_of(ctx_, writers), fin == bv(p_.locations()[static_cast<std::size_t>(*loc)].initial)));
      outcome_terms_.push_back(fin);
    }
    if (q_.filter) solver_.add(prop_term(*q_.filter));
  }

  z3::expr prop_term(const litmus::Prop& prop) {
    using K = litmus::Prop::Kind;
    switch (prop.kind) {
      case K::True: return t_;
      case K::False: return f_;
      case K::Equals: {
        for (std::size_t i = 0; i < q_.refs.size(); ++i)
          if (q_.refs[i].thread == prop.lhs.thread && q_.refs[i].name == prop.lhs.name) {
            Value v = prop.rhs.value;
            if (prop.rhs.is_location()) {
              auto loc = p_.location_by_name(prop.rhs.name);
              v = loc ? p_.address_of(*loc) : 0;
            }
            return outcome_terms_[i] == bv(v);
          }
        return f_;
      }
      case K::SameValue: {
        auto term = [&](const litmus::ObservedRef& ref) -> std::optional<z3::expr> {
          for (std::size_t i = 0; i < q_.refs.size(); ++i)
            if (q_.refs[i].thread == ref.thread && q_.refs[i].name == ref.name) return outcome_terms_[i];
          return std::nullopt;
        };
        auto a = term(prop.lhs), b = term(prop.rhs_ref);
        return a && b ? *a == *b : f_;
      }
      case K::Not: return !prop_term(prop.operands[0]);
      case K::And: return prop_term(prop.operands[0]) && prop_term(prop.operands[1]);
      case K::Or: return prop_term(prop.operands[0]) || prop_term(prop.operands[1]);
      case K::Implies: return z3::implies(prop_term(prop.operands[0]), prop_term(prop.operands[1]));
    }
    return f_;
  }

  // ---- queries ---------------------------------------------------------------------------
  bool check(z3::check_result& out) {
    if (auto why = q_.deadline.stop_reason()) {
      result_.unknown = "z3 engine: " + *why;
      return false;
    }
    if (!set_timeout()) {
      result_.unknown = "z3 engine: time limit";
      return false;
    }
    out = solver_.check();
    if (out == z3::unknown) {
      result_.unknown = fmt::format("z3 engine: solver returned unknown ({})", solver_.reason_unknown());
      return false;
    }
    return true;
  }

  void enumerate() {
    z3::check_result r;
    // An access to an address that is no location makes the program undefined.
    if (!invalid_address_.empty()) {
      solver_.push();
      solver_.add(any_of(ctx_, invalid_address_));
      if (!check(r)) return;
      solver_.pop();
      if (r == z3::sat) {
        result_.unknown = "a consistent execution accesses an address that is not a location";
        return;
      }
      for (const z3::expr& bad : invalid_address_) solver_.add(!bad);
    }
    // Races (3.12; the OpenCL model's dr).
    std::vector<std::pair<std::pair<int, int>, z3::expr>> races = opencl_races_;
    for (std::size_t i = 0; i < accesses_.size() && q_.options.variant != ModelVariant::OpenCl; ++i)
      for (std::size_t j = i + 1; j < accesses_.size(); ++j) {
        int a = accesses_[i], b = accesses_[j];
        const StaticEvent& x = event(a);
        const StaticEvent& y = event(b);
        if (x.thread == y.thread) continue;
        auto same = same_cell(a, b);
        if (!same) continue;
        z3::expr some_write = terms(a).writes || terms(b).writes;
        z3::expr kind = f_;
        if (!x.atomic || !y.atomic)
          kind = some_write;
        else if (x.size != y.size)
          kind = t_;
        else if (!match(p_, x, y, std::nullopt, q_.options.variant))
          kind = some_write;
        if (kind.is_false()) continue;
        races.push_back(
            {{a, b}, terms(a).guard && terms(b).guard && *same && kind && !idx(hhb_, a, b) && !idx(hhb_, b, a)});
      }
    if (!races.empty()) {
      solver_.push();
      std::vector<z3::expr> any;
      for (const auto& [pair, e] : races) any.push_back(e);
      solver_.add(any_of(ctx_, any));
      if (!check(r)) return;
      if (r == z3::sat) {
        z3::model m = solver_.get_model();
        for (const auto& [pair, e] : races)
          if (m.eval(e, true).is_true()) {
            ConcreteExecution x = extract(m);
            const StaticEvent& ea = event(pair.first);
            const StaticEvent& eb = event(pair.second);
            Conflict kind = conflict(p_, ea, x.writes[static_cast<std::size_t>(pair.first)] != 0, eb,
                                     x.writes[static_cast<std::size_t>(pair.second)] != 0, q_.options.variant);
            result_.race.emplace(std::move(x), RaceWitness{pair.first, pair.second, kind});
            break;
          }
      }
      solver_.pop();
    }
    // A witness of the condition, for the graph.
    if (q_.options.want_graph) {
      solver_.push();
      solver_.add(prop_term(q_.condition));
      if (!check(r)) return;
      if (r == z3::sat) result_.satisfying = extract(solver_.get_model());
      solver_.pop();
    }
    // Every outcome, one blocking clause at a time.
    for (;;) {
      if (!check(r)) return;
      if (r == z3::unsat) return;
      z3::model m = solver_.get_model();
      Outcome o;
      std::vector<z3::expr> same;
      for (const z3::expr& term : outcome_terms_) {
        z3::expr v = m.eval(term, true);
        o.values.push_back(static_cast<Value>(v.get_numeral_uint64()));
        same.push_back(term == v);
      }
      result_.outcomes.insert(o);
      z3::expr_vector conj(ctx_);
      for (const auto& s : same) conj.push_back(s);
      solver_.add(same.empty() ? f_ : !z3::mk_and(conj));
    }
  }

  // A concrete execution read off a model, for witnesses and graphs.
  ConcreteExecution extract(const z3::model& m) {
    ConcreteExecution x;
    const auto e_count = ev_.size();
    x.executed.assign(e_count, 0);
    x.writes.assign(e_count, 0);
    x.cell.assign(e_count, {});
    x.read_value.assign(e_count, 0);
    x.write_value.assign(e_count, 0);
    x.deps.assign(e_count, {});
    x.rf.assign(e_count, -1);
    auto value = [&](const z3::expr& e) { return static_cast<Value>(m.eval(e, true).get_numeral_uint64()); };
    for (int e = 0; e < n(); ++e) {
      EventTerms& t = terms(e);
      if (!m.eval(t.guard, true).is_true()) continue;
      auto i = static_cast<std::size_t>(e);
      x.executed[i] = 1;
      for (const auto& [r, d] : t.deps)
        if (m.eval(d, true).is_true()) x.deps[i].push_back(r);
      if (!event(e).is_access()) continue;
      auto loc = p_.location_by_address(value(t.address));
      x.cell[i] = loc ? Cell{*loc, p_.copy_of(*loc, event(e).thread)} : Cell{};
      if (std::find(x.cells.begin(), x.cells.end(), x.cell[i]) == x.cells.end()) x.cells.push_back(x.cell[i]);
      if (event(e).reads()) x.read_value[i] = value(t.read);
      x.writes[i] = m.eval(t.writes, true).is_true();
      if (x.writes[i]) x.write_value[i] = value(t.written);
    }
    std::sort(x.cells.begin(), x.cells.end());
    for (const Cell& c : x.cells)
      x.initial.push_back(c.location < 0 ? 0 : p_.locations()[static_cast<std::size_t>(c.location)].initial);
    auto init_node = [&](int k) {
      Cell c{inits_[static_cast<std::size_t>(k)].location, inits_[static_cast<std::size_t>(k)].copy};
      return static_cast<int>(e_count) + x.cell_index(c);
    };
    for (const auto& [pair, rf] : rf_)
      if (m.eval(rf, true).is_true()) x.rf[static_cast<std::size_t>(pair.second)] = pair.first;
    for (const auto& [pair, rf] : rf_init_)
      if (m.eval(rf, true).is_true()) x.rf[static_cast<std::size_t>(pair.second)] = init_node(pair.first);
    x.co.assign(x.cells.size(), {});
    for (std::size_t k = 0; k < x.cells.size(); ++k) {
      std::vector<std::pair<Value, int>> writes;
      for (int a : accesses_)
        if (x.executed[static_cast<std::size_t>(a)] && x.writes[static_cast<std::size_t>(a)] &&
            x.cell[static_cast<std::size_t>(a)] == x.cells[k])
          writes.emplace_back(value(clock_.at(a)), a);
      std::sort(writes.begin(), writes.end());
      x.co[k].push_back(static_cast<int>(e_count + k));
      for (const auto& [c, w] : writes) x.co[k].push_back(w);
    }
    return x;
  }

  const EngineQuery& q_;
  const Program& p_;
  const std::vector<StaticEvent>& ev_;
  z3::context ctx_;
  z3::solver solver_;
  z3::expr f_, t_;
  EngineResult result_;
  std::vector<EventTerms> terms_;
  std::vector<SymState> final_regs_;
  std::vector<InitNode> inits_;
  std::vector<int> accesses_;
  std::vector<z3::expr> invalid_address_;
  std::map<int, z3::expr> clock_;
  std::map<std::pair<int, int>, z3::expr> rf_;
  std::map<std::pair<int, int>, z3::expr> rf_init_;
  std::vector<z3::expr> hhb_;  // n x n
  std::vector<z3::expr> outcome_terms_;
  std::vector<std::pair<std::pair<int, int>, z3::expr>> opencl_races_;  // pairs of events that may race
  double timeout_set_ = 0;
};

}  // namespace

EngineResult run_z3_engine(const EngineQuery& q) { return Z3Engine(q).run(); }

}  // namespace hsalit::model::detail
