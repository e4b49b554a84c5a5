// model::Relation's closure within a set of nodes (the order search's propagation, model/src/
// execution.cpp) against the closure computed pair by pair, on random relations and masks.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "hsalit/model/execution.hpp"

namespace hsalit::model {
namespace {

// The pairs within `mask` closed one path step at a time until nothing changes.
Relation closed_pair_by_pair(Relation r, std::uint64_t mask) {
  const int n = r.size();
  auto in = [&](int a) { return (mask >> a & 1) != 0; };
  for (bool changed = true; changed;) {
    changed = false;
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < n; ++k)
        for (int j = 0; j < n; ++j)
          if (in(i) && in(j) && in(k) && r.test(i, k) && r.test(k, j) && !r.test(i, j)) {
            r.set(i, j);
            changed = true;
          }
  }
  return r;
}

TEST(Relation, ClosureWithinAMaskIsThePairByPairClosure) {
  std::mt19937_64 rng(7);
  int grew = 0;
  for (int round = 0; round < 400; ++round) {
    const int n = 2 + static_cast<int>(rng() % 30);
    Relation r(n);
    const int edges = static_cast<int>(rng() % static_cast<std::uint64_t>(2 * n));
    for (int e = 0; e < edges; ++e) r.set(static_cast<int>(rng() % n), static_cast<int>(rng() % n));
    const std::uint64_t mask = rng() & ((std::uint64_t{1} << n) - 1);
    const Relation expected = closed_pair_by_pair(r, mask);
    Relation got = r;
    const bool changed = got.close_within(mask);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) ASSERT_EQ(got.test(a, b), expected.test(a, b)) << round << ": " << a << "," << b;
    bool differs = false;
    for (int a = 0; a < n && !differs; ++a)
      for (int b = 0; b < n && !differs; ++b) differs = got.test(a, b) != r.test(a, b);
    EXPECT_EQ(changed, differs) << round;
    grew += differs ? 1 : 0;
    // Closed already: nothing changes.
    EXPECT_FALSE(got.close_within(mask)) << round;
  }
  EXPECT_GT(grew, 100);
  EXPECT_THROW(Relation(65).close_within(1), std::logic_error);
}

// `&=` keeps the pairs in both relations.
TEST(Relation, IntersectionKeepsThePairsOfBoth) {
  Relation a(70), b(70);
  a.set(1, 2);
  a.set(3, 69);
  a.set(68, 0);
  b.set(3, 69);
  b.set(68, 0);
  b.set(5, 6);
  a &= b;
  EXPECT_FALSE(a.test(1, 2));
  EXPECT_TRUE(a.test(3, 69));
  EXPECT_TRUE(a.test(68, 0));
  EXPECT_FALSE(a.test(5, 6));
}

}  // namespace
}  // namespace hsalit::model
