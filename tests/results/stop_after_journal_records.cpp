// Preloaded (LD_PRELOAD) into a campaign by tests/results/campaign_test.cpp: once the fsync
// that puts a test record of the campaign's journal on disk leaves the journal with
// HSALIT_STOP_AFTER_RECORDS records, the process stops itself (SIGSTOP) before it goes on, so
// that the test kills it at a point the campaign itself reports, whatever the machine's speed.
// The journal's writer holds its lock across the fsync: no other record is written meanwhile.
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace {

constexpr std::string_view kJournalName = "/journal.jsonl";

std::string path_of(int fd) {
  char buffer[4096];
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  const ssize_t n = ::readlink(link.c_str(), buffer, sizeof buffer);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

// The test records of the journal at `path`: its complete lines but the header.
long records_in(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  long lines = 0;
  char buffer[65536];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;)
    for (ssize_t i = 0; i < n; ++i) lines += buffer[i] == '\n';
  ::close(fd);
  return lines - 1;
}

}  // namespace

extern "C" int fsync(int fd) {
  using Fsync = int (*)(int);
  static const Fsync real = reinterpret_cast<Fsync>(::dlsym(RTLD_NEXT, "fsync"));
  const int result = real(fd);
  static const char* stop_after = std::getenv("HSALIT_STOP_AFTER_RECORDS");
  if (stop_after == nullptr) return result;
  const std::string path = path_of(fd);
  if (path.size() > kJournalName.size() && path.ends_with(kJournalName) && records_in(path) == std::atol(stop_after))
    ::raise(SIGSTOP);  // this thread first: it stops before it returns to the campaign
  return result;
}
