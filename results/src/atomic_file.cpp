#include "hsalit/results/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>

namespace hsalit::results {

void write_file_atomically(const std::filesystem::path& target, std::string_view content) {
  std::filesystem::path tmp = target;
  tmp += fmt::format(".tmp.{}", static_cast<long>(::getpid()));
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (!f) throw std::runtime_error(fmt::format("cannot write {}", target.string()));
  bool ok = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  ok &= std::fflush(f) == 0;
  ok &= ::fsync(::fileno(f)) == 0;
  ok &= std::fclose(f) == 0;
  if (!ok || std::rename(tmp.c_str(), target.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot write {}", target.string()));
  }
  // The rename itself survives a crash once the folder is synced.
  std::filesystem::path folder = target.parent_path().empty() ? std::filesystem::path(".") : target.parent_path();
  int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace hsalit::results
