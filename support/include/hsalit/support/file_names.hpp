// File names made from input: a test's name may hold anything (`../x`, `/tmp/x`, a NUL,
// 10,000 bytes), so a file named after it gets a sanitised stem that is one plain name in
// any folder. Here, at the bottom of the layering, so that every component (the hardware
// harness's sources, the results folders) names its files the same way.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace hsalit::support {

// The longest stem safe_file_stem returns: room for `~N` and an extension within the 255
// bytes most file systems allow in a name.
inline constexpr std::size_t kMaxFileStem = 200;

// FNV-1a 64 of `bytes`, as 16 hex digits.
inline std::string fnv1a_hex(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

// `name` as a file name stem that is one plain name in any folder: every byte outside
// `A-Z a-z 0-9 + - _ .` (path separators, NUL and other control bytes, blanks, non-ASCII)
// becomes `_`; leading and trailing dots become `_` (no `.`, `..` or hidden file); an empty
// name becomes `_`; a name longer than kMaxFileStem keeps its beginning and ends with `-`
// and the FNV-1a 64 hash of the whole name. Names made of those characters only (every
// bundled and generated test's) are kept as they are.
inline std::string safe_file_stem(std::string_view name) {
  auto portable = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '-' ||
           c == '_' || c == '.';
  };
  std::string stem;
  stem.reserve(name.size());
  for (char c : name) stem += portable(c) ? c : '_';
  for (auto it = stem.begin(); it != stem.end() && *it == '.'; ++it) *it = '_';
  for (auto it = stem.rbegin(); it != stem.rend() && *it == '.'; ++it) *it = '_';
  if (stem.empty()) stem = "_";
  if (stem.size() > kMaxFileStem) {
    const std::string hash = "-" + fnv1a_hex(name);
    stem.resize(kMaxFileStem - hash.size());
    stem += hash;
  }
  return stem;
}

}  // namespace hsalit::support
