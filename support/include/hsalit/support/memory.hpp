// The memory limit every search honours (`--memory-limit`): the machine's physical memory,
// the process's resident set, and sizes written as `64M` or `2G`.
#pragma once

#include <unistd.h>

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

namespace hsalit::support {

// Physical memory in bytes (sysconf), 0 where the system does not say.
inline std::uint64_t physical_memory_bytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

// The default limit: half of physical memory (a search that outgrows it says `unknown:
// memory limit` instead of driving the machine into swap or the kernel's OOM killer); 4 GiB
// where the system does not say how much it has.
inline std::uint64_t default_memory_limit() {
  static const std::uint64_t limit = [] {
    const std::uint64_t physical = physical_memory_bytes();
    return physical > 0 ? physical / 2 : std::uint64_t{4} << 30;
  }();
  return limit;
}

// The process's resident set in bytes (/proc/self/statm), 0 where it cannot be read. A few
// microseconds: callers read it every few thousand steps or before a large allocation.
inline std::uint64_t resident_bytes() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long long size = 0, resident = 0;
  const int read = std::fscanf(f, "%llu %llu", &size, &resident);
  std::fclose(f);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  return read == 2 && page > 0 ? resident * static_cast<std::uint64_t>(page) : 0;
}

// Whether the process, grown by `more` bytes, would hold more than `limit` (0: no limit).
inline bool over_memory_limit(std::uint64_t limit, std::uint64_t more = 0) {
  return limit > 0 && resident_bytes() + more > limit;
}

// A size in bytes: digits with an optional K, M, G or T suffix (powers of 1024; a trailing
// `B` or `iB` allowed: `64M`, `64MiB`, `2G`, `1048576`). nullopt for anything else, zero or
// an overflow.
inline std::optional<std::uint64_t> parse_byte_size(std::string_view text) {
  std::uint64_t number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  std::string_view unit = text.substr(static_cast<std::size_t>(end - text.data()));
  if (unit.ends_with("iB"))
    unit.remove_suffix(2);
  else if (unit.ends_with("B") || unit.ends_with("b"))
    unit.remove_suffix(1);
  int shift = 0;
  if (unit.size() > 1) return std::nullopt;
  if (unit.size() == 1) switch (unit[0]) {
      case 'k':
      case 'K': shift = 10; break;
      case 'm':
      case 'M': shift = 20; break;
      case 'g':
      case 'G': shift = 30; break;
      case 't':
      case 'T': shift = 40; break;
      default: return std::nullopt;
    }
  if (number == 0 || number > (~std::uint64_t{0} >> shift)) return std::nullopt;
  return number << shift;
}

// A size as `64 MiB` or `1.5 GiB`, for messages.
inline std::string format_byte_size(std::uint64_t bytes) {
  constexpr std::string_view units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  const bool whole = value == static_cast<double>(static_cast<std::uint64_t>(value));
  std::snprintf(text, sizeof text, whole ? "%.0f " : "%.1f ", value);
  return text + std::string(units[unit]);
}

// The reason a search gives when it stops at the limit.
inline std::string memory_limit_reason(std::uint64_t limit) {
  return "memory limit of " + format_byte_size(limit) + " reached";
}

}  // namespace hsalit::support
