#include "output_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace hsalit::cli {

CLI::Option* add_output_file_option(CLI::App* cmd) {
  return cmd->add_option_function<std::string>(
      "-o,--output", [](const std::string&) {},
      "write what the command prints on standard output to FILE instead (replaced whole once the command is done)");
}

std::optional<std::filesystem::path> output_file_of(const CLI::App& cmd) {
  const CLI::Option* option = cmd.get_option_no_throw("--output");
  if (!option || option->count() == 0) return std::nullopt;
  return std::filesystem::path(option->as<std::string>());
}

namespace {

std::runtime_error cannot_write(const std::filesystem::path& target, int error) {
  return std::runtime_error(fmt::format("cannot write {}: {}", target.string(), std::strerror(error)));
}

}  // namespace

StandardOutputToFile::StandardOutputToFile(std::filesystem::path target) : target_(std::move(target)) {
  if (std::filesystem::is_directory(target_)) throw cannot_write(target_, EISDIR);
  std::string pattern = (target_.parent_path() / ("." + target_.filename().string() + ".XXXXXX")).string();
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = ::mkstemp(name.data());
  if (fd < 0) throw cannot_write(target_, errno);
  temporary_ = name.data();
  ::fchmod(fd, 0644);  // as an ordinary file the shell's `>` would make (mkstemp makes it 0600)
  std::fflush(stdout);
  saved_stdout_ = ::dup(STDOUT_FILENO);
  if (saved_stdout_ < 0 || ::dup2(fd, STDOUT_FILENO) < 0) {
    const int error = errno;
    ::close(fd);
    std::filesystem::remove(temporary_);
    throw cannot_write(target_, error);
  }
  ::close(fd);
}

StandardOutputToFile::~StandardOutputToFile() {
  if (committed_) return;
  restore();
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
}

void StandardOutputToFile::restore() {
  std::fflush(stdout);
  if (saved_stdout_ >= 0) {
    ::dup2(saved_stdout_, STDOUT_FILENO);
    ::close(saved_stdout_);
    saved_stdout_ = -1;
  }
}

void StandardOutputToFile::commit() {
  const bool flushed = std::fflush(stdout) == 0 && ::fsync(STDOUT_FILENO) == 0;
  const int error = errno;
  restore();
  committed_ = true;
  if (!flushed || std::rename(temporary_.c_str(), target_.c_str()) != 0) {
    const int reason = flushed ? errno : error;
    std::error_code ignored;
    std::filesystem::remove(temporary_, ignored);
    throw cannot_write(target_, reason);
  }
}

}  // namespace hsalit::cli
