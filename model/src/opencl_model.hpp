// The OpenCL 2.0 memory model as its definition: one function per relation, one named check
// per axiom, written once over an algebra of relations that each engine supplies. The enum
// engine's algebra holds bit matrices of one concrete execution (opencl_execution.cpp); the
// Z3 engine's holds matrices of formulas over every execution at once (z3_engine.cpp). A
// relation or axiom changed here changes in both engines.
//
// The definition is that of Batty, Donaldson and Wickerson, "Overhauling SC atomics in C11
// and OpenCL" (POPL 2016): opencl_base.cat with the scoped SC axiom of opencl_scopedsc.cat,
// formalising OpenCL 2.0 section 3.3 ("Memory Model") and the atomic and fence built-ins of
// OpenCL C 2.0 section 6.13.11. docs/model.md ("The OpenCL model") maps each definition below
// to its line of the .cat files, and says where hsalit departs from them and why.
//
// The algebra is described in relation_algebra.hpp.
#pragma once

#include <string_view>
#include <vector>

#include "hsalit/model/program.hpp"
#include "relation_algebra.hpp"

namespace hsalit::model::detail {

// What the OpenCL model reads of a candidate execution. Nodes are its events and its initial
// writes; every set and relation holds executed events only.
template <class A>
struct OpenClExecution {
  using Set = typename A::Set;
  using Rel = typename A::Rel;
  // Kinds of nodes.
  Set IW;  // initial writes
  Set R;   // reads (an update is both R and W; a failed compare-and-swap is R only)
  Set W;   // writes, initial writes included
  Set F;   // fences
  Set NA;  // non-atomic accesses
  // Orders as written: memory_order_seq_cst, and acquire or release included in it (an
  // acq_rel operation is both). Empty for non-atomic accesses.
  Set SC, ACQ, REL;
  // Scopes of atomics and fences (none for non-atomic accesses and initial writes).
  Set WI, WG, DV, ALL;
  // Regions: an access and an initial write are in the region of their location; a fence is
  // in the regions its flags name (both when it names none).
  Set GLOBAL, LOCAL;
  Rel sb;   // sequenced before: program order of executed events
  Rel rf;   // reads from
  Rel mo;   // modification order: per location, a total order of its writes, initial first
  Rel loc;  // same memory cell
  Rel wi;   // same work-item (`int` in the .cat files)
  Rel swg;  // same work-group
  Rel sdv;  // same device
  Rel dep;  // address, data and control dependencies (hsalit's no-thin-air axiom)
  // syncbar of the .cat files, from the entry to the exit of one barrier instance: a barrier's
  // arrival (its entry fence, EF) to the departures (exit fences, XF) of the same barrier.
  // Barrier events are in the regions their barrier's flags name.
  Rel syncbar;
};

// One reading of the program's events for both engines (docs/model.md, "Events, regions and
// scopes"): the sets of OpenClExecution that an event's annotations decide, each holding
// `live` (whether it runs) for event `e`, node `i`. Fences and non-atomic accesses; the orders
// as written; the scope tag of an atomic or fence (HSA's wi and wave are work-item scope);
// the regions: an access in its location's, a fence or barrier in those its flags name. R and
// W depend on the execution (a failed compare-and-swap writes nothing): the engines set them.
template <class A>
void tag_event(OpenClExecution<A>& f, std::size_t i, const StaticEvent& e, const typename A::Bool& live) {
  if (e.is_fence()) f.F[i] = live;
  if (e.is_access() && !e.atomic) f.NA[i] = live;
  if (e.is_special()) {
    if (e.seq_cst) f.SC[i] = live;
    if (e.order == MemoryOrder::Acquire || e.order == MemoryOrder::AcquireRelease) f.ACQ[i] = live;
    if (e.order == MemoryOrder::Release || e.order == MemoryOrder::AcquireRelease) f.REL[i] = live;
    const Scope s = e.scope <= Scope::Wavefront ? Scope::WorkItem : e.scope;
    (s == Scope::WorkItem ? f.WI : s == Scope::WorkGroup ? f.WG : s == Scope::Agent ? f.DV : f.ALL)[i] = live;
  }
  if (e.is_fence() || e.barrier != StaticEvent::Barrier::None) {
    if (e.fence_segment != Segment::Group) f.GLOBAL[i] = live;
    if (e.fence_segment != Segment::Global) f.LOCAL[i] = live;
  } else {
    (e.segment == Segment::Group ? f.LOCAL : f.GLOBAL)[i] = live;
  }
}

// An initial write, node `i`, of a location of `segment`.
template <class A>
void tag_initial_write(OpenClExecution<A>& f, std::size_t i, Segment segment, const typename A::Bool& always) {
  f.IW[i] = f.W[i] = always;
  (segment == Segment::Global ? f.GLOBAL : f.LOCAL)[i] = always;
}

// The relations between events x and y that the program decides (same work-item, sequenced
// before, same work-group, same device, one barrier's entry to its exit), each holding
// `both` (whether both run).
template <class A>
void relate_events(A& a, OpenClExecution<A>& f, const Program& p, int x, int y, const typename A::Bool& both) {
  const StaticEvent& ex = p.events()[static_cast<std::size_t>(x)];
  const StaticEvent& ey = p.events()[static_cast<std::size_t>(y)];
  const litmus::ScopeTree& tree = p.scopes();
  if (ex.thread == ey.thread) a.set(f.wi, x, y, both);
  if (ex.thread == ey.thread && ex.po < ey.po) a.set(f.sb, x, y, both);
  if (tree.same_instance(ex.thread, ey.thread, Scope::WorkGroup)) a.set(f.swg, x, y, both);
  if (tree.same_instance(ex.thread, ey.thread, Scope::Agent)) a.set(f.sdv, x, y, both);
  if (ex.barrier == StaticEvent::Barrier::Arrive && ey.barrier == StaticEvent::Barrier::Depart &&
      ex.location == ey.location)
    a.set(f.syncbar, x, y, both);
}

// The verdict on one candidate execution: each axiom with its name as in the .cat files, in
// their order there, and the data-race relation.
template <class A>
struct OpenClJudgement {
  struct Axiom {
    std::string_view name;
    typename A::Bool holds;
  };
  std::vector<Axiom> axioms;
  typename A::Rel ghb, lhb;  // happens-before, global and local
  typename A::Rel sw;        // synchronises-with, both regions (for graphs)
  typename A::Rel dr;        // conflicting accesses unordered by hb and not inclusive
};

template <class A>
OpenClJudgement<A> judge_opencl(A& a, const OpenClExecution<A>& x) {
  using Rel = typename A::Rel;
  using Set = typename A::Set;
  const Set E = set_or(a, set_or(a, x.R, x.W), x.F);  // every node
  const Rel unv = a.cross(E, E);

  // incl: inclusive scopes (opencl_base.cat: the conservative `incl`, both ends of one scope).
  const Rel incl =
      a.unite(a.unite(a.inter(x.swg, a.cross(x.WG, x.WG)), a.inter(x.sdv, a.cross(x.DV, x.DV))), a.cross(x.ALL, x.ALL));

  // rb = (rf^-1; mo) \ id: from a read to the writes mo-after the one it read.
  const Rel rb = a.minus(a.seq(a.inverse(x.rf), x.mo), a.diag(E));

  // Acq and Rel: acquire reads and fences, release writes and fences (seq_cst is both).
  const Set Acq = set_and(a, set_or(a, x.ACQ, x.SC), set_or(a, x.R, x.F));
  const Set Rel_ = set_and(a, set_or(a, x.REL, x.SC), set_or(a, x.W, x.F));

  // Fences sequenced before or after: Fsb = [F]; sb and sbF = sb; [F].
  const Rel Fsb = a.seq(a.diag(x.F), x.sb);
  const Rel sbF = a.seq(x.sb, a.diag(x.F));

  // The release sequence: rs_prime = int | (unv; [R & W]), rs = mo & rs_prime & ~((mo &
  // ~rs_prime); mo): the writes mo-after a write, by its work-item or read-modify-writes,
  // up to the first that is neither.
  const Rel rs_prime = a.unite(x.wi, a.seq(unv, a.diag(set_and(a, x.R, x.W))));
  const Rel rs = a.minus(a.inter(x.mo, rs_prime), a.seq(a.minus(x.mo, rs_prime), x.mo));

  // Release-acquire synchronisation through region `r`:
  // ra_sw(r) = ([Rel & r]; Fsb?; [W \ WI]; rs?; [r]; rf; [R \ WI]; sbF?; [Acq & r]) & incl & ~int.
  auto ra_sw = [&](const Set& r) {
    Rel path = a.seq(a.diag(set_and(a, Rel_, r)), a.opt(Fsb));
    path = a.seq(path, a.diag(set_minus(a, x.W, x.WI)));
    path = a.seq(path, a.opt(rs));
    path = a.seq(path, a.diag(r));
    path = a.seq(path, x.rf);
    path = a.seq(path, a.diag(set_minus(a, x.R, x.WI)));
    path = a.seq(path, a.opt(sbF));
    path = a.seq(path, a.diag(set_and(a, Acq, r)));
    return a.minus(a.inter(path, incl), x.wi);
  };
  const Rel ra_sw_g = ra_sw(x.GLOBAL), ra_sw_l = ra_sw(x.LOCAL);

  // scf: the pairs allowed to synchronise through the other region: two seq_cst operations,
  // or two fences of both regions.
  const Set both_regions_fence = set_and(a, set_and(a, x.F, x.GLOBAL), x.LOCAL);
  const Rel scf = a.unite(a.cross(x.SC, x.SC), a.cross(both_regions_fence, both_regions_fence));

  // Barrier synchronisation: bar_sw(r) = (r & [EF]); syncbar & ~int & swg; (r & [XF]).
  auto bar_sw = [&](const Set& r) {
    return a.minus(a.inter(a.seq(a.seq(a.diag(r), x.syncbar), a.diag(r)), x.swg), x.wi);
  };

  // gsw = ra_sw_g | bar_sw_g | (scf & ra_sw_l); lsw = ra_sw_l | bar_sw_l | (scf & ra_sw_g).
  const Rel gsw = a.unite(a.unite(ra_sw_g, bar_sw(x.GLOBAL)), a.inter(scf, ra_sw_l));
  const Rel lsw = a.unite(a.unite(ra_sw_l, bar_sw(x.LOCAL)), a.inter(scf, ra_sw_g));

  // Happens-before per region: ghb = ((GLOBAL * GLOBAL) & (sb | IW * ~IW) | gsw)+, lhb alike.
  const Rel init_first = a.cross(x.IW, set_minus(a, E, x.IW));
  auto hb = [&](const Set& r, const Rel& sw) {
    return a.plus(a.unite(a.inter(a.cross(r, r), a.unite(x.sb, init_first)), sw));
  };
  OpenClJudgement<A> j{{}, hb(x.GLOBAL, gsw), hb(x.LOCAL, lsw), a.unite(gsw, lsw), a.none()};
  const Rel hb_either = a.unite(j.ghb, j.lhb);

  j.axioms.push_back({"O-HbG", a.irreflexive(j.ghb)});
  j.axioms.push_back({"O-HbL", a.irreflexive(j.lhb)});

  // Coherence: coh(hb) = (rf^-1)?; mo; rf?; hb is irreflexive.
  auto coh = [&](const Rel& hb_r) { return a.seq(a.seq(a.seq(a.opt(a.inverse(x.rf)), x.mo), a.opt(x.rf)), hb_r); };
  j.axioms.push_back({"O-CohG", a.irreflexive(coh(j.ghb))});
  j.axioms.push_back({"O-CohL", a.irreflexive(coh(j.lhb))});

  // A load reads from no write it happens before.
  j.axioms.push_back({"O-Rf", a.irreflexive(a.seq(x.rf, hb_either))});

  // A non-atomic load reads a visible side effect:
  // vis(hb) = (W * R) & hb & loc & ~((hb & loc); [W]; hb).
  auto visible_reads_ok = [&](const Rel& hb_r, const Set& region) {
    const Rel hb_loc = a.inter(hb_r, x.loc);
    const Rel vis = a.minus(a.inter(a.inter(a.cross(x.W, x.R), hb_r), x.loc), a.seq(a.seq(hb_loc, a.diag(x.W)), hb_r));
    const Rel na_reads = a.seq(x.rf, a.diag(set_and(a, set_and(a, x.NA, x.R), region)));
    return a.empty(a.minus(na_reads, vis));
  };
  j.axioms.push_back({"O-NaRfG", visible_reads_ok(j.ghb, x.GLOBAL)});
  j.axioms.push_back({"O-NaRfL", visible_reads_ok(j.lhb, x.LOCAL)});

  // Read-modify-writes are atomic: irreflexive rf | (mo; mo; rf^-1) | (mo; rf).
  j.axioms.push_back(
      {"O-Rmw", a.irreflexive(a.unite(a.unite(x.rf, a.seq(a.seq(x.mo, x.mo), a.inverse(x.rf))), a.seq(x.mo, x.rf)))});

  // Scoped SC: acyclic (SC * SC) & incl & scp, scp = Fsb?; (rb | mo | ghb | lhb); sbF?.
  const Rel scp = a.seq(a.seq(a.opt(Fsb), a.unite(a.unite(rb, x.mo), hb_either)), a.opt(sbF));
  j.axioms.push_back({"O-Sscoped", a.acyclic(a.inter(a.inter(a.cross(x.SC, x.SC), incl), scp))});

  // hsalit's, not the formalisation's (docs/model.md): no value depends on itself through
  // dependencies and reads-from, OpenCL 2.0 3.3.4's and C11 7.17.3's recommendation against
  // out-of-thin-air values, as HSA's gdo (SysArch 3.8).
  j.axioms.push_back({"no-thin-air", a.acyclic(a.unite(x.dep, x.rf))});

  // Data races: dr = conflict & ~hb & ~hb^-1 & ~int & ~incl, with conflict the pairs of one
  // location of which one writes.
  const Rel conflict = a.inter(a.unite(a.cross(x.W, E), a.cross(E, x.W)), x.loc);
  j.dr = a.minus(a.minus(a.minus(a.minus(conflict, hb_either), a.inverse(hb_either)), x.wi), incl);
  j.dr = a.minus(j.dr, a.unite(a.cross(x.IW, E), a.cross(E, x.IW)));  // accesses only
  return j;
}

}  // namespace hsalit::model::detail
