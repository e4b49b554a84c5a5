#include "hsalit/results/output_folder.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>

#include "hsalit/results/journal.hpp"

namespace hsalit::results {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::string OutputNames::claim(std::string_view name, std::string_view extension) {
  const std::string stem = safe_file_stem(name);
  std::string file = stem + std::string(extension);
  for (int n = 2; !taken_.insert(lower(file)).second; ++n) file = fmt::format("{}~{}{}", stem, n, extension);
  return file;
}

fs::path path_in_folder(const fs::path& dir, std::string_view file_name) {
  if (file_name.empty() || file_name == "." || file_name == ".." ||
      file_name.find_first_of(std::string_view("/\0", 2)) != std::string_view::npos)
    throw ResultsError(
        fmt::format("{}: error: refusing to write '{}': not a plain file name in the folder", dir.string(), file_name));
  return dir / fs::path(std::string(file_name));
}

FolderLock::FolderLock(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw ResultsError(fmt::format("{}: error: cannot create the folder: {}", dir.string(), ec.message()));
  const fs::path file = dir / kLockFile;
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0)
    throw ResultsError(fmt::format("{}: error: cannot open the lock: {}", file.string(), std::strerror(errno)));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    char buffer[32] = {};
    const ssize_t n = ::pread(fd_, buffer, sizeof buffer - 1, 0);
    ::close(fd_);
    fd_ = -1;
    std::string holder(buffer, n > 0 ? static_cast<std::size_t>(n) : 0);
    holder.erase(std::remove_if(holder.begin(), holder.end(),
                                [](char c) { return !std::isdigit(static_cast<unsigned char>(c)); }),
                 holder.end());
    if (error == EWOULDBLOCK)
      throw ResultsError(fmt::format("{}: error: another hsalit process{} is writing this folder; wait for it to end",
                                     file.string(), holder.empty() ? "" : " (pid " + holder + ")"));
    throw ResultsError(fmt::format("{}: error: cannot lock: {}", file.string(), std::strerror(error)));
  }
  const std::string pid = fmt::format("{}\n", static_cast<long>(::getpid()));
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    // The pid only makes the message of a second writer better; the lock is what matters.
  }
}

FolderLock::FolderLock(FolderLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }

FolderLock& FolderLock::operator=(FolderLock&& other) noexcept {
  std::swap(fd_, other.fd_);  // this lock, if any, is released with `other`
  return *this;
}

FolderLock::~FolderLock() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

std::optional<std::string> results_of_another_run(const fs::path& dir, ResultsKind kind, const CampaignInfo& info) {
  std::error_code ec;
  if (fs::exists(dir / kJournalFile, ec)) return fmt::format("a campaign ({})", (dir / kJournalFile).string());
  const fs::path file = dir / kResultsFile;
  if (!fs::exists(file, ec)) return std::nullopt;
  CampaignResults earlier;
  try {
    earlier = read_results(file);
  } catch (const std::exception&) {
    return fmt::format("an unreadable {}", file.string());
  }
  const bool verification = earlier.verification.has_value();
  if (verification != (kind == ResultsKind::Verification))
    return fmt::format("the results of {} ({})", verification ? "a verification" : "a campaign or a merge",
                       file.string());
  if (earlier.info.configuration_key() != info.configuration_key() || earlier.info.inputs != info.inputs ||
      earlier.info.shard != info.shard)
    return fmt::format("the results of another configuration, inputs or shard ({})", file.string());
  return std::nullopt;
}

void refuse_results_of_another_run(const fs::path& dir, ResultsKind kind, const CampaignInfo& info, bool force) {
  if (force) return;
  if (std::optional<std::string> other = results_of_another_run(dir, kind, info))
    throw ResultsError(
        fmt::format("{}: error: the folder holds {}: choose another folder, or pass --force to replace "
                    "them",
                    dir.string(), *other));
}

void remove_stale_results(const fs::path& dir) {
  std::error_code ec;
  for (std::string_view name : {kJournalFile, std::string_view("verify.txt"), std::string_view("mutation.txt"),
                                std::string_view("mutation.json")})
    fs::remove(dir / name, ec);
  const fs::path counterexamples = dir / "counterexamples";
  if (fs::is_directory(fs::symlink_status(counterexamples, ec))) {
    for (const fs::directory_entry& e : fs::directory_iterator(counterexamples, ec))
      if (e.path().extension() == ".litmus") fs::remove(e.path(), ec);
    fs::remove(counterexamples, ec);  // only when empty
  }
}

}  // namespace hsalit::results
