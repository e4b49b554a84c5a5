#include "hsalit/results/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace hsalit::results {

namespace {

// `cannot write TARGET: REASON`, the reason as strerror(3) words it.
[[noreturn]] void fail(const std::filesystem::path& target, int error) {
  throw std::runtime_error(fmt::format("cannot write {}: {}", target.string(), std::strerror(error)));
}

}  // namespace

AtomicFileWriter::AtomicFileWriter(std::filesystem::path target) : target_(std::move(target)) {
  // Said now, not when the rename over it fails at the end of a long run.
  if (std::error_code ec; std::filesystem::is_directory(target_, ec)) fail(target_, EISDIR);
  temporary_ = target_;
  temporary_ += fmt::format(".tmp.{}", static_cast<long>(::getpid()));
  // A temporary file left by a killed run of the same pid is replaced; a link planted there
  // is not followed.
  ::unlink(temporary_.c_str());
  const int fd = ::open(temporary_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) fail(target_, errno);
  file_ = ::fdopen(fd, "wb");
  if (!file_) {
    const int error = errno;
    ::close(fd);
    std::remove(temporary_.c_str());
    fail(target_, error);
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!file_) return;
  std::fclose(file_);
  std::remove(temporary_.c_str());
}

void AtomicFileWriter::write(std::string_view piece) {
  if (!file_) throw std::logic_error("AtomicFileWriter::write after commit");
  if (std::fwrite(piece.data(), 1, piece.size(), file_) != piece.size()) {
    ok_ = false;
    fail(target_, errno);
  }
}

void AtomicFileWriter::commit() {
  if (!file_) throw std::logic_error("AtomicFileWriter::commit twice");
  // The first failure's reason is the one reported (a full disk shows at the flush).
  int error = 0;
  if (std::fflush(file_) != 0) error = errno;
  if (::fsync(::fileno(file_)) != 0 && !error) error = errno;
  if (std::fclose(file_) != 0 && !error) error = errno;
  file_ = nullptr;
  if (!error && std::rename(temporary_.c_str(), target_.c_str()) != 0) error = errno;
  if (error || !ok_) {
    std::remove(temporary_.c_str());
    fail(target_, error ? error : EIO);
  }
  // The rename itself survives a crash once the folder is synced.
  std::filesystem::path folder = target_.parent_path().empty() ? std::filesystem::path(".") : target_.parent_path();
  int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

AtomicFolderWriter::~AtomicFolderWriter() {
  for (const auto& [temporary, target] : pending_) std::remove(temporary.c_str());
}

void AtomicFolderWriter::write(const std::filesystem::path& target, std::string_view content) {
  if (std::error_code ec; std::filesystem::is_directory(target, ec)) fail(target, EISDIR);
  std::filesystem::path temporary = target;
  temporary += fmt::format(".tmp.{}", static_cast<long>(::getpid()));
  ::unlink(temporary.c_str());  // as AtomicFileWriter: a leftover is replaced, a link not followed
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) fail(target, errno);
  if (targets_.insert(target).second) pending_.emplace_back(temporary, target);
  for (std::size_t done = 0; done < content.size();) {
    const ::ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      ::close(fd);
      fail(target, error);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) fail(target, errno);
}

void AtomicFolderWriter::commit() {
  const int dir = ::open(folder_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) fail(folder_, errno);
  // One sync puts every temporary file's content on disk before any of them is renamed.
  if (::syncfs(dir) != 0) {
    const int error = errno;
    ::close(dir);
    fail(folder_, error);
  }
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    if (std::rename(pending_[i].first.c_str(), pending_[i].second.c_str()) != 0) {
      const int error = errno;
      ::close(dir);
      const std::filesystem::path target = pending_[i].second;
      pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(i));  // renamed already
      fail(target, error);
    }
  }
  pending_.clear();
  targets_.clear();
  ::fsync(dir);  // the renames themselves
  ::close(dir);
}

void write_file_atomically(const std::filesystem::path& target, std::string_view content) {
  AtomicFileWriter writer(target);
  writer.write(content);
  writer.commit();
}

}  // namespace hsalit::results
