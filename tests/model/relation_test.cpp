// model::Relation's closures, whole and within a set of nodes (the order search's propagation,
// model/src/execution.cpp), against the closure computed pair by pair, on random relations
// and masks; its row operations; and composition, inverse and difference.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>

#include "hsalit/model/execution.hpp"

namespace hsalit::model {
namespace {

// The pairs within `mask` (every node when absent) closed one path step at a time until
// nothing changes.
Relation closed_pair_by_pair(Relation r, std::optional<std::uint64_t> mask) {
  const int n = r.size();
  auto in = [&](int a) { return !mask || (*mask >> a & 1) != 0; };
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

// The whole closure, with one word per row (up to 64 nodes) and with several, against the
// closure pair by pair.
TEST(Relation, ClosureIsThePairByPairClosure) {
  std::mt19937_64 rng(11);
  int one_word = 0, several = 0;
  for (int round = 0; round < 300; ++round) {
    const int n = 2 + static_cast<int>(rng() % 90);
    Relation r(n);
    const int edges = static_cast<int>(rng() % static_cast<std::uint64_t>(2 * n));
    for (int e = 0; e < edges; ++e) r.set(static_cast<int>(rng() % n), static_cast<int>(rng() % n));
    const Relation expected = closed_pair_by_pair(r, std::nullopt);
    r.close();
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) ASSERT_EQ(r.test(a, b), expected.test(a, b)) << round << ": " << a << "," << b;
    ++(n <= 64 ? one_word : several);
  }
  EXPECT_GT(one_word, 100);
  EXPECT_GT(several, 50);
}

// Rows set and cleared a pair, a row of another relation or a mask at a time.
TEST(Relation, RowsTakeAnotherRelationsRowOrAMask) {
  for (const int n : {12, 64, 70}) {
    Relation co(n), fr(n);
    co.set(3, 5);
    co.set(3, n - 1);
    co.set(4, 6);
    fr.set(2, 1);
    fr.set_row(2, co, 3);  // 2 gets 3's successors, keeps its own
    EXPECT_TRUE(fr.test(2, 1) && fr.test(2, 5) && fr.test(2, n - 1)) << n;
    EXPECT_FALSE(fr.test(2, 6) || fr.test(3, 5)) << n;
    fr.reset(2, 5);
    EXPECT_FALSE(fr.test(2, 5)) << n;
    EXPECT_TRUE(fr.test(2, n - 1)) << n;
    if (n > 64) continue;
    Relation covered(n);
    covered.set_row_bits(7, (std::uint64_t{1} << 2) | (std::uint64_t{1} << (n - 1)));
    EXPECT_TRUE(covered.test(7, 2) && covered.test(7, n - 1)) << n;
    EXPECT_FALSE(covered.test(7, 3) || covered.test(2, 7)) << n;
  }
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

// Composition, inverse and difference (what the relation algebras of the models build on,
// model/src/bit_relations.hpp) against their definitions pair by pair, with one word per row
// and with several.
TEST(Relation, CompositionInverseAndDifferenceFollowTheirDefinitions) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 200; ++round) {
    const int n = 1 + static_cast<int>(rng() % 90);
    auto random_relation = [&] {
      Relation r(n);
      const int edges = static_cast<int>(rng() % static_cast<std::uint64_t>(3 * n));
      for (int e = 0; e < edges; ++e) r.set(static_cast<int>(rng() % n), static_cast<int>(rng() % n));
      return r;
    };
    const Relation x = random_relation(), y = random_relation();
    const Relation composed = x.then(y), inverted = x.inverse();
    Relation difference = x;
    difference -= y;
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        bool path = false;
        for (int k = 0; k < n && !path; ++k) path = x.test(a, k) && y.test(k, b);
        ASSERT_EQ(composed.test(a, b), path) << round << ": " << a << "," << b;
        ASSERT_EQ(inverted.test(a, b), x.test(b, a)) << round;
        ASSERT_EQ(difference.test(a, b), x.test(a, b) && !y.test(a, b)) << round;
      }
  }
}

}  // namespace
}  // namespace hsalit::model
