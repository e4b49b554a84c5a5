// The algebra of relations the models are written over (opencl_model.hpp, hsa_model.hpp):
// each engine supplies one, and a model's relations and axioms are written once over it.
//
// An algebra `A` provides
//   A::Bool, A::Rel                      a truth value and a binary relation over the nodes
//   A::Set = std::vector<A::Bool>        a set of nodes, one truth value per node
//   none(), diag(S), cross(S, T)         the empty relation, [S], S * T
//   set(r, a, b, v)                      the pair (a, b) of r holds when v does (r starts empty)
//   unite, inter, minus, seq, inverse    |  &  \  ;  ^-1
//   opt(r)                               r? (r | id)
//   plus(r)                              r+; only where irreflexive(plus(r)) is an axiom (the
//                                        Z3 algebra defines r+ as the solution of
//                                        C = r | r;C, which is r+ exactly when r is acyclic)
//   irreflexive(r), acyclic(r), empty(r) the checks (acyclic and plus only in axioms, which the
//                                        Z3 algebra requires to hold)
//   empty_constant(r)                    no pair of r can hold, whatever the execution (a plain
//                                        bool: what the encoding may leave out)
//   all(a, b), any(a, b), negate(a)      &&, ||, ! on Bool
#pragma once

#include <cstddef>

namespace hsalit::model::detail {

// Sets of nodes combined node by node: x & y, x | y, x \ y.
template <class A, class Combine>
typename A::Set combine_sets(const typename A::Set& x, const typename A::Set& y, Combine combine) {
  typename A::Set out;
  out.reserve(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out.push_back(combine(x[i], y[i]));
  return out;
}
template <class A>
typename A::Set set_and(A& a, const typename A::Set& x, const typename A::Set& y) {
  return combine_sets<A>(x, y, [&](const auto& p, const auto& q) { return a.all(p, q); });
}
template <class A>
typename A::Set set_or(A& a, const typename A::Set& x, const typename A::Set& y) {
  return combine_sets<A>(x, y, [&](const auto& p, const auto& q) { return a.any(p, q); });
}
template <class A>
typename A::Set set_minus(A& a, const typename A::Set& x, const typename A::Set& y) {
  return combine_sets<A>(x, y, [&](const auto& p, const auto& q) { return a.all(p, a.negate(q)); });
}

}  // namespace hsalit::model::detail
