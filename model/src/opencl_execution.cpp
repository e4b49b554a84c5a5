// The OpenCL model over bit matrices: the algebra judge_opencl needs, for one concrete
// execution.
#include "opencl_execution.hpp"

#include "bit_relations.hpp"
#include "opencl_model.hpp"

namespace hsalit::model::detail {
namespace {

OpenClExecution<BitAlgebra> facts_of(const Program& p, const ConcreteExecution& x) {
  const int n = x.node_count();
  const auto un = static_cast<std::size_t>(n);
  BitAlgebra algebra(n);
  auto live = [&](int a) { return x.is_init(a) || x.executed[static_cast<std::size_t>(a)]; };

  OpenClExecution<BitAlgebra> f;
  for (auto* s :
       {&f.IW, &f.R, &f.W, &f.F, &f.NA, &f.SC, &f.ACQ, &f.REL, &f.WI, &f.WG, &f.DV, &f.ALL, &f.GLOBAL, &f.LOCAL})
    s->assign(un, false);
  for (Relation* r : {&f.sb, &f.rf, &f.mo, &f.loc, &f.wi, &f.swg, &f.sdv, &f.dep, &f.syncbar}) *r = Relation(n);
  for (int a = 0; a < n; ++a) {
    const auto i = static_cast<std::size_t>(a);
    if (!live(a)) continue;
    if (x.is_init(a)) {
      tag_initial_write(f, i, p.locations()[static_cast<std::size_t>(x.node_cell(a).location)].segment, true);
      continue;
    }
    const StaticEvent& e = p.events()[i];
    f.R[i] = e.reads();
    f.W[i] = x.node_writes(a);
    tag_event(f, i, e, true);
  }
  for (int a = 0; a < n; ++a) {
    if (!live(a)) continue;
    const bool a_access = x.is_init(a) || p.events()[static_cast<std::size_t>(a)].is_access();
    for (int b = 0; b < n; ++b) {
      if (!live(b)) continue;
      const bool b_access = x.is_init(b) || p.events()[static_cast<std::size_t>(b)].is_access();
      if (a_access && b_access && x.node_cell(a) == x.node_cell(b)) f.loc.set(a, b);
      if (!x.is_init(a) && !x.is_init(b)) relate_events(algebra, f, p, a, b, true);
    }
    if (x.is_init(a)) continue;
    if (x.node_reads(a, p)) f.rf.set(x.rf[static_cast<std::size_t>(a)], a);
    for (int d : x.deps[static_cast<std::size_t>(a)]) f.dep.set(d, a);
  }
  for (const std::vector<int>& order : x.co)
    for (std::size_t i = 0; i < order.size(); ++i)
      for (std::size_t j = i + 1; j < order.size(); ++j) f.mo.set(order[i], order[j]);
  return f;
}

}  // namespace

Evaluation evaluate_opencl_execution(const Program& p, const ConcreteExecution& x) {
  BitAlgebra algebra(x.node_count());
  const OpenClExecution<BitAlgebra> f = facts_of(p, x);
  const OpenClJudgement<BitAlgebra> j = judge_opencl(algebra, f);
  Evaluation result;
  result.synchronisation = "sw";
  DerivedRelations& r = result.relations;
  r.po = f.sb;
  r.rf = f.rf;
  r.co = f.mo;
  r.fr = BitAlgebra::minus(f.rf.inverse().then(f.mo),
                           algebra.diag(std::vector<bool>(static_cast<std::size_t>(x.node_count()), true)));
  r.sso = j.sw;
  r.hhb = BitAlgebra::unite(j.ghb, j.lhb);
  r.ldo = f.dep;
  for (const auto& axiom : j.axioms)
    if (!axiom.holds) {
      result.inconsistency = axiom.name;
      return result;
    }
  result.consistent = true;
  const int e_count = x.event_count();
  for (int a = 0; a < e_count && !result.race; ++a)
    for (int b = a + 1; b < e_count; ++b)
      if (j.dr.test(a, b) || j.dr.test(b, a)) {
        const StaticEvent& ea = p.events()[static_cast<std::size_t>(a)];
        const StaticEvent& eb = p.events()[static_cast<std::size_t>(b)];
        Conflict kind = conflict(p, ea, x.node_writes(a), eb, x.node_writes(b), ModelVariant::OpenCl);
        result.race = RaceWitness{a, b, kind == Conflict::None ? Conflict::Special : kind};
        break;
      }
  return result;
}

}  // namespace hsalit::model::detail
