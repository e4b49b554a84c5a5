#include "hsalit/results/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <stdexcept>
#include <utility>

namespace hsalit::results {

AtomicFileWriter::AtomicFileWriter(std::filesystem::path target) : target_(std::move(target)) {
  temporary_ = target_;
  temporary_ += fmt::format(".tmp.{}", static_cast<long>(::getpid()));
  file_ = std::fopen(temporary_.c_str(), "wb");
  if (!file_) throw std::runtime_error(fmt::format("cannot write {}", target_.string()));
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!file_) return;
  std::fclose(file_);
  std::remove(temporary_.c_str());
}

void AtomicFileWriter::write(std::string_view piece) {
  if (!file_) throw std::logic_error("AtomicFileWriter::write after commit");
  ok_ &= std::fwrite(piece.data(), 1, piece.size(), file_) == piece.size();
  if (!ok_) throw std::runtime_error(fmt::format("cannot write {}", target_.string()));
}

void AtomicFileWriter::commit() {
  if (!file_) throw std::logic_error("AtomicFileWriter::commit twice");
  bool ok = ok_ && std::fflush(file_) == 0;
  ok &= ::fsync(::fileno(file_)) == 0;
  ok &= std::fclose(file_) == 0;
  file_ = nullptr;
  if (!ok || std::rename(temporary_.c_str(), target_.c_str()) != 0) {
    std::remove(temporary_.c_str());
    throw std::runtime_error(fmt::format("cannot write {}", target_.string()));
  }
  // The rename itself survives a crash once the folder is synced.
  std::filesystem::path folder = target_.parent_path().empty() ? std::filesystem::path(".") : target_.parent_path();
  int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

void write_file_atomically(const std::filesystem::path& target, std::string_view content) {
  AtomicFileWriter writer(target);
  writer.write(content);
  writer.commit();
}

}  // namespace hsalit::results
