#include "hsalit/codegen/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <system_error>

extern char** environ;

namespace hsalit::codegen {

namespace {

// Closes a file descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

struct SpawnActions {
  posix_spawn_file_actions_t actions;
  SpawnActions() { posix_spawn_file_actions_init(&actions); }
  ~SpawnActions() { posix_spawn_file_actions_destroy(&actions); }
};

bool executable(const std::filesystem::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

// This process's environment with the options' overrides.
std::vector<std::string> child_environment(const ProcessOptions& options) {
  std::vector<std::string> out;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    if (options.temp_dir && entry.starts_with("TMPDIR=")) continue;
    out.emplace_back(entry);
  }
  if (options.temp_dir) out.push_back("TMPDIR=" + options.temp_dir->string());
  return out;
}

}  // namespace

std::optional<std::filesystem::path> find_program(std::string_view name) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string_view::npos) {
    std::filesystem::path p(name);
    if (executable(p)) return p;
    return std::nullopt;
  }
  const char* env = std::getenv("PATH");
  std::string_view path = env ? env : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    auto colon = path.find(':');
    std::string_view dir = path.substr(0, colon);
    std::filesystem::path candidate = std::filesystem::path(dir.empty() ? "." : std::string(dir)) / std::string(name);
    if (executable(candidate)) return candidate;
    if (colon == std::string_view::npos) break;
    path.remove_prefix(colon + 1);
  }
  return std::nullopt;
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  if (argv.empty()) throw ProcessError("run_process: no program given");
  std::optional<std::filesystem::path> program = find_program(argv[0]);
  if (!program) throw ProcessError(fmt::format("{}: program not found", argv[0]));

  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw ProcessError(fmt::format("pipe: {}", std::strerror(errno)));
  Fd out_read{out_pipe[0]}, out_write{out_pipe[1]};
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) throw ProcessError(fmt::format("pipe: {}", std::strerror(errno)));
  Fd err_read{err_pipe[0]}, err_write{err_pipe[1]};

  SpawnActions sa;
  posix_spawn_file_actions_addopen(&sa.actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&sa.actions, out_write.fd, 1);
  posix_spawn_file_actions_adddup2(&sa.actions, err_write.fd, 2);

  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> environment = child_environment(options);
  std::vector<char*> envp;
  for (std::string& e : environment) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, program->c_str(), &sa.actions, nullptr, args.data(), envp.data());
  if (rc != 0) throw ProcessError(fmt::format("{}: cannot start: {}", argv[0], std::strerror(rc)));
  out_write.reset();
  err_write.reset();

  ProcessResult result;
  // Read both pipes until both are closed, so that neither can fill up and block the child.
  pollfd fds[2] = {{out_read.fd, POLLIN, 0}, {err_read.fd, POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open = 2;
  char buffer[65536];
  while (open > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open;
      }
    }
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw ProcessError(fmt::format("{}: waitpid: {}", argv[0], std::strerror(errno)));
  }
  if (WIFEXITED(status))
    result.exit_status = WEXITSTATUS(status);
  else if (WIFSIGNALED(status))
    result.signal = WTERMSIG(status);
  return result;
}

TempDir::TempDir(std::string_view prefix) {
  const char* tmp = std::getenv("TMPDIR");
  std::filesystem::path base = tmp && *tmp ? tmp : "/tmp";
  std::string pattern = (base / (std::string(prefix) + "-XXXXXX")).string();
  if (!::mkdtemp(pattern.data())) throw ProcessError(fmt::format("mkdtemp {}: {}", pattern, std::strerror(errno)));
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace hsalit::codegen
