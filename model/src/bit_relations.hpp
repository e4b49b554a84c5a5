// Relations of one concrete execution as bit matrices (Relation), truth values as bool: the
// algebra opencl_model.hpp and hsa_model.hpp are written over, for the enum engine.
#pragma once

#include <vector>

#include "hsalit/model/execution.hpp"

// GCC 12 warns of a memcpy past the inline storage of boost::container::small_vector when it
// inlines Relation's copies here; the copy takes the heap branch whenever the size exceeds it.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif

namespace hsalit::model::detail {

// Relations of one execution as bit matrices (Relation), truth values as bool.
class BitAlgebra {
 public:
  using Bool = bool;
  using Rel = Relation;
  using Set = std::vector<bool>;

  explicit BitAlgebra(int nodes) : n_(nodes) {}

  Rel none() const { return Rel(n_); }
  Rel diag(const Set& s) const {
    Rel r(n_);
    for (int a = 0; a < n_; ++a)
      if (s[static_cast<std::size_t>(a)]) r.set(a, a);
    return r;
  }
  Rel cross(const Set& s, const Set& t) const {
    Rel r(n_);
    for (int a = 0; a < n_; ++a)
      if (s[static_cast<std::size_t>(a)])
        for (int b = 0; b < n_; ++b)
          if (t[static_cast<std::size_t>(b)]) r.set(a, b);
    return r;
  }
  static void set(Rel& r, int a, int b, bool v) {
    if (v) r.set(a, b);
  }
  static Rel unite(Rel x, const Rel& y) { return x |= y; }
  static Rel inter(Rel x, const Rel& y) { return x &= y; }
  static Rel minus(Rel x, const Rel& y) { return x -= y; }
  static Rel seq(const Rel& x, const Rel& y) { return x.then(y); }
  static Rel inverse(const Rel& x) { return x.inverse(); }
  Rel opt(Rel x) const {
    for (int a = 0; a < n_; ++a) x.set(a, a);
    return x;
  }
  static Rel plus(Rel x) {
    x.close();
    return x;
  }
  static bool irreflexive(const Rel& x) { return x.irreflexive(); }
  static bool acyclic(const Rel& x) { return plus(x).irreflexive(); }
  static bool empty(const Rel& x) { return !x.any(); }
  static bool empty_constant(const Rel& x) { return !x.any(); }
  static bool all(bool x, bool y) { return x && y; }
  static bool any(bool x, bool y) { return x || y; }
  static bool negate(bool x) { return !x; }

 private:
  int n_;
};

}  // namespace hsalit::model::detail
