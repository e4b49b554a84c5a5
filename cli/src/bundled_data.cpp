#include "bundled_data.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <system_error>

namespace hsalit::cli {
namespace fs = std::filesystem;

namespace {

// The data folder next to the running executable: /proc/self/exe names it whatever the
// current directory and however it was started (a symbolic link in PATH included).
std::optional<fs::path> expected_data_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec || exe.empty()) return std::nullopt;
  return (exe.parent_path().parent_path() / "share" / "hsalit").lexically_normal();
}

}  // namespace

std::optional<fs::path> bundled_data_dir() {
  std::optional<fs::path> dir = expected_data_dir();
  std::error_code ec;
  if (!dir || !fs::is_directory(*dir / "litmus" / "library", ec)) return std::nullopt;
  return dir;
}

fs::path bundled_library() {
  if (std::optional<fs::path> dir = bundled_data_dir()) return *dir / "litmus" / "library";
  const std::optional<fs::path> expected = expected_data_dir();
  throw std::runtime_error(fmt::format("the bundled litmus library is missing (looked for {}); name the tests to run",
                                       expected ? (*expected / "litmus" / "library").string() : "share/hsalit"));
}

}  // namespace hsalit::cli
