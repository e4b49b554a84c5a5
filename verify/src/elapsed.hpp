// Wall-clock seconds since a point, for the timings the verification reports.
#pragma once

#include <chrono>

namespace hsalit::verify::detail {

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace hsalit::verify::detail
