// Relations as matrices of Z3 formulas: the algebra opencl_model.hpp is written over, for the
// Z3 engine. Each entry says when the pair is in the relation, over every execution at once.
// Constant entries are folded as they are built, so a relation most of whose pairs cannot
// hold costs little.
#pragma once

#include <fmt/format.h>
#include <z3++.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace hsalit::model::detail {

class Z3Algebra {
 public:
  using Bool = z3::expr;
  using Rel = std::vector<z3::expr>;  // row-major, n * n
  using Set = std::vector<z3::expr>;

  // `check_limits` is called between rows of the cubic operations; it throws to stop.
  Z3Algebra(z3::context& ctx, z3::solver& solver, int nodes, std::function<void()> check_limits)
      : ctx_(ctx),
        solver_(solver),
        n_(nodes),
        check_limits_(std::move(check_limits)),
        f_(ctx.bool_val(false)),
        t_(ctx.bool_val(true)) {}

  int size() const { return n_; }
  z3::expr& at(Rel& r, int a, int b) const { return r[index(a, b)]; }
  const z3::expr& at(const Rel& r, int a, int b) const { return r[index(a, b)]; }

  void set(Rel& r, int a, int b, const Bool& v) const { at(r, a, b) = v; }

  Bool all(const Bool& x, const Bool& y) const {
    if (x.is_false() || y.is_false()) return f_;
    if (x.is_true()) return y;
    if (y.is_true()) return x;
    return x && y;
  }
  Bool any(const Bool& x, const Bool& y) const {
    if (x.is_true() || y.is_true()) return t_;
    if (x.is_false()) return y;
    if (y.is_false()) return x;
    return x || y;
  }
  Bool negate(const Bool& x) const {
    if (x.is_true()) return f_;
    if (x.is_false()) return t_;
    return !x;
  }

  Rel none() const { return Rel(static_cast<std::size_t>(n_) * static_cast<std::size_t>(n_), f_); }
  Rel diag(const Set& s) const {
    Rel r = none();
    for (int a = 0; a < n_; ++a) at(r, a, a) = s[static_cast<std::size_t>(a)];
    return r;
  }
  Rel cross(const Set& s, const Set& t) const {
    Rel r = none();
    for (int a = 0; a < n_; ++a)
      for (int b = 0; b < n_; ++b) at(r, a, b) = all(s[static_cast<std::size_t>(a)], t[static_cast<std::size_t>(b)]);
    return r;
  }
  Rel unite(Rel x, const Rel& y) const {
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = any(x[i], y[i]);
    return x;
  }
  Rel inter(Rel x, const Rel& y) const {
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = all(x[i], y[i]);
    return x;
  }
  Rel minus(Rel x, const Rel& y) const {
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = all(x[i], negate(y[i]));
    return x;
  }
  Rel inverse(const Rel& x) const {
    Rel r = none();
    for (int a = 0; a < n_; ++a)
      for (int b = 0; b < n_; ++b) at(r, b, a) = at(x, a, b);
    return r;
  }
  Rel opt(Rel x) const {
    for (int a = 0; a < n_; ++a) at(x, a, a) = t_;
    return x;
  }
  Rel seq(const Rel& x, const Rel& y) const {
    Rel r = none();
    for (int a = 0; a < n_; ++a) {
      check_limits_();
      for (int k = 0; k < n_; ++k) {
        const z3::expr& ak = at(x, a, k);
        if (ak.is_false()) continue;
        for (int b = 0; b < n_; ++b) at(r, a, b) = any(at(r, a, b), all(ak, at(y, k, b)));
      }
    }
    return r;
  }

  // r+ as the solution of C = r | r;C (asserted): every solution holds r+, and r+ is the only
  // one when r is acyclic, which irreflexive(C) then says; a cyclic r makes every solution
  // reflexive. Pairs that no chain of possible r pairs joins are false without a variable.
  Rel plus(const Rel& x) {
    const std::vector<std::uint64_t> may = possible_closure(x);
    Rel c = none();
    const int id = relations_++;
    for (int a = 0; a < n_; ++a)
      for (int b = 0; b < n_; ++b)
        if (possible(may, a, b)) at(c, a, b) = ctx_.bool_const(fmt::format("plus{}_{}_{}", id, a, b).c_str());
    for (int a = 0; a < n_; ++a) {
      check_limits_();
      for (int b = 0; b < n_; ++b) {
        if (!possible(may, a, b)) continue;
        z3::expr_vector ways(ctx_);
        if (!at(x, a, b).is_false()) ways.push_back(at(x, a, b));
        for (int k = 0; k < n_; ++k)
          if (!at(x, a, k).is_false() && possible(may, k, b)) ways.push_back(all(at(x, a, k), at(c, k, b)));
        solver_.add(at(c, a, b) == (ways.empty() ? f_ : z3::mk_or(ways)));
      }
    }
    return c;
  }

  Bool irreflexive(const Rel& x) const {
    z3::expr_vector parts(ctx_);
    for (int a = 0; a < n_; ++a)
      if (!at(x, a, a).is_false()) parts.push_back(!at(x, a, a));
    return parts.empty() ? t_ : z3::mk_and(parts);
  }
  Bool empty(const Rel& x) const {
    z3::expr_vector parts(ctx_);
    for (const z3::expr& e : x)
      if (!e.is_false()) parts.push_back(!e);
    return parts.empty() ? t_ : z3::mk_and(parts);
  }
  // Whether no pair of x can hold, whatever the execution.
  bool empty_constant(const Rel& x) const {
    return std::all_of(x.begin(), x.end(), [](const z3::expr& e) { return e.is_false(); });
  }

  // A rank per node that every pair of x increases: holds only when asserted, never negated.
  Bool acyclic(const Rel& x) {
    const std::vector<std::uint64_t> may = possible_closure(x);
    bool cycle_possible = false;
    for (int a = 0; a < n_; ++a) cycle_possible = cycle_possible || possible(may, a, a);
    if (!cycle_possible) return t_;
    const int id = relations_++;
    std::vector<z3::expr> rank;
    for (int a = 0; a < n_; ++a) rank.push_back(ctx_.int_const(fmt::format("rank{}_{}", id, a).c_str()));
    z3::expr_vector parts(ctx_);
    for (int a = 0; a < n_; ++a)
      for (int b = 0; b < n_; ++b) {
        // Only pairs on a possible cycle can close one.
        if (at(x, a, b).is_false() || !possible(may, b, a)) continue;
        parts.push_back(
            a == b ? !at(x, a, b)
                   : z3::implies(at(x, a, b), rank[static_cast<std::size_t>(a)] < rank[static_cast<std::size_t>(b)]));
      }
    return parts.empty() ? t_ : z3::mk_and(parts);
  }

 private:
  std::size_t index(int a, int b) const {
    return static_cast<std::size_t>(a) * static_cast<std::size_t>(n_) + static_cast<std::size_t>(b);
  }
  // The transitive closure of the pairs of x that are not constantly false, as bit rows.
  std::vector<std::uint64_t> possible_closure(const Rel& x) const {
    const std::size_t words = (static_cast<std::size_t>(n_) + 63) / 64;
    std::vector<std::uint64_t> rows(static_cast<std::size_t>(n_) * words, 0);
    for (int a = 0; a < n_; ++a)
      for (int b = 0; b < n_; ++b)
        if (!at(x, a, b).is_false())
          rows[static_cast<std::size_t>(a) * words + static_cast<std::size_t>(b) / 64] |= std::uint64_t{1} << (b % 64);
    for (int k = 0; k < n_; ++k)
      for (int a = 0; a < n_; ++a)
        if (rows[static_cast<std::size_t>(a) * words + static_cast<std::size_t>(k) / 64] >> (k % 64) & 1)
          for (std::size_t w = 0; w < words; ++w)
            rows[static_cast<std::size_t>(a) * words + w] |= rows[static_cast<std::size_t>(k) * words + w];
    return rows;
  }
  bool possible(const std::vector<std::uint64_t>& rows, int a, int b) const {
    const std::size_t words = (static_cast<std::size_t>(n_) + 63) / 64;
    return rows[static_cast<std::size_t>(a) * words + static_cast<std::size_t>(b) / 64] >> (b % 64) & 1;
  }

  z3::context& ctx_;
  z3::solver& solver_;
  int n_;
  std::function<void()> check_limits_;
  z3::expr f_, t_;
  int relations_ = 0;
};

}  // namespace hsalit::model::detail
