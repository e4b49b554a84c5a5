// HSA's synchronisation and happens-before as their definition (HSA SysArch 3.9 and 3.11):
// one function per relation, written once over the algebra of relations that
// relation_algebra.hpp describes, evaluated by the enum engine on bit matrices
// (execution.cpp) and by the Z3 engine on formulas (z3_engine.cpp). The orders the spec says
// exist (coh 3.7, sc_S 3.10, gdo 3.8) are decided by each engine's own search, on these.
#pragma once

#include <vector>

#include "hsalit/model/program.hpp"
#include "relation_algebra.hpp"

namespace hsalit::model::detail {

// What HSA's sso and hhb read of a candidate execution, over its events (executed ones only).
template <class A>
struct HsaExecution {
  using Set = typename A::Set;
  using Rel = typename A::Rel;
  // Releasers and acquirers (3.9): a release atomic that writes (a failed compare-and-swap
  // releases nothing), a release fence; an acquire atomic, an acquire fence; any acquire.
  Set release_atomic, release_fence, acquire_atomic, acquire_fence, acquire;
  // Writes by the segment of their location: Match reads the effective scope an access has
  // through a location of that segment (3.3.6).
  Set global_write, group_write;
  Rel po;  // program order (3.6)
  // A write A and a read B of one cell and size with A coh-before B: A is B's source or
  // co-before it (3.7).
  Rel coh_write_read;
  // Match(SI(X), SI(Y)) through a location of each segment (3.3.6; static).
  Rel match_global, match_group;
  // hrf-direct: per scope instance S, the pairs whose both events specify S through a
  // location of each segment.
  std::vector<Rel> specify_global, specify_group;
};

template <class A>
struct HsaHappensBefore {
  typename A::Rel sso;       // synchronizes-with at scope (3.9)
  typename A::Rel hhb;       // heterogeneous happens-before (3.11)
  typename A::Bool acyclic;  // (po | sso)+ is irreflexive: "hhb is acyclic"
};

// sso's three shapes through the write A of `write_segment` (3.9): atomic X = A and atomic
// Y = B; a fence X po-before A, with B = Y (an atomic) or B po-before an acquire Y; an atomic
// X = A or po-before A, with B po-before a fence Y.
template <class A>
typename A::Rel hsa_sso_shapes(A& a, const HsaExecution<A>& x, const typename A::Set& write_segment) {
  using Rel = typename A::Rel;
  const Rel c = a.seq(a.diag(write_segment), x.coh_write_read);
  const Rel atomic_atomic = a.seq(a.seq(a.diag(x.release_atomic), c), a.diag(x.acquire_atomic));
  const Rel fence_any = a.seq(a.seq(a.seq(a.diag(x.release_fence), x.po), c),
                              a.unite(a.diag(x.acquire_atomic), a.seq(x.po, a.diag(x.acquire))));
  const Rel atomic_fence =
      a.seq(a.seq(a.seq(a.seq(a.diag(x.release_atomic), a.opt(x.po)), c), x.po), a.diag(x.acquire_fence));
  return a.unite(a.unite(atomic_atomic, fence_any), atomic_fence);
}

// sso and hhb: hhb = (po | sso)+ (3.11), or for hrf-direct po ∪ ⋃_S (po ∪ sso_S)+ with sso_S
// the sso pairs that both specify instance S (HRF-direct: no transitivity across instances).
template <class A>
HsaHappensBefore<A> hsa_happens_before(A& a, const HsaExecution<A>& x, ModelVariant variant) {
  using Rel = typename A::Rel;
  const Rel through_global = hsa_sso_shapes(a, x, x.global_write);
  const Rel through_group = hsa_sso_shapes(a, x, x.group_write);
  const Rel sso = a.unite(a.inter(through_global, x.match_global), a.inter(through_group, x.match_group));
  const Rel base = a.unite(x.po, sso);
  if (variant != ModelVariant::HrfDirect) {
    Rel hhb = a.plus(base);
    typename A::Bool acyclic = a.irreflexive(hhb);
    return {sso, std::move(hhb), std::move(acyclic)};
  }
  typename A::Bool acyclic = a.acyclic(base);
  Rel hhb = x.po;
  for (std::size_t s = 0; s < x.specify_global.size(); ++s) {
    const Rel sso_s = a.unite(a.inter(a.inter(through_global, x.match_global), x.specify_global[s]),
                              a.inter(a.inter(through_group, x.match_group), x.specify_group[s]));
    if (a.empty_constant(sso_s)) continue;  // an instance with no sso pair adds nothing to po
    hhb = a.unite(hhb, a.plus(a.unite(x.po, sso_s)));
  }
  return {sso, std::move(hhb), std::move(acyclic)};
}

}  // namespace hsalit::model::detail
