// The commit hsalit was built from, as `hsalit --version` and every results.json name it
// (cmake/source_commit.cmake generates the definitions at each build).
#pragma once

#include <string>
#include <string_view>

namespace hsalit::cli {

// The commit's full hash, or "unknown" for a build outside a git checkout (a tarball).
std::string_view source_commit();
// Whether tracked files differed from that commit when it was built (false when unknown).
bool source_modified();

// `0.1.0 (commit 0123abcd..., modified)`: the version and where it was built from.
inline std::string version_with_commit(std::string_view version) {
  std::string text = std::string(version) + " (commit " + std::string(source_commit());
  if (source_modified()) text += ", modified";
  return text + ")";
}

}  // namespace hsalit::cli
