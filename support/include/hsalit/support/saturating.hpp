// Counters that stop at their largest value instead of wrapping: a bound's statistics count
// test variations, which pass 2^64 from 4 threads x 3 accesses on (a space alone can hold more
// than 10^20), and a wrapped count would claim fewer tests than the bound holds.
#pragma once

#include <cstdint>
#include <limits>

namespace hsalit::support {

inline constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();

// a + b, or kSaturated when the sum does not fit.
constexpr std::uint64_t saturating_add(std::uint64_t a, std::uint64_t b) {
  return a > kSaturated - b ? kSaturated : a + b;
}

// a * b, or kSaturated when the product does not fit.
constexpr std::uint64_t saturating_multiply(std::uint64_t a, std::uint64_t b) {
  return a != 0 && b > kSaturated / a ? kSaturated : a * b;
}

}  // namespace hsalit::support
