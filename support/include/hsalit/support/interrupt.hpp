// SIGINT and SIGTERM as a request to stop: a command that can leave its work resumable (a
// campaign) installs the handlers; its loops and searches read `interrupted()` where they
// check their time limit and stop early, and the command says what is left.
#pragma once

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

namespace hsalit::support {

namespace detail {
// The signal that asked to stop, 0 while none has (lock-free, so that a handler may set it).
inline std::atomic<int> interrupt_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);
// Printed (with write(2), which a handler may call) when the first signal arrives.
inline const char* interrupt_notice = nullptr;

inline void on_interrupt_signal(int signal) {
  // A second signal ends the process at once, as if no handler had been installed.
  if (interrupt_signal.exchange(signal) != 0) {
    std::signal(signal, SIG_DFL);
    std::raise(signal);
    return;
  }
  if (const char* notice = interrupt_notice) {
    const ssize_t written = ::write(STDERR_FILENO, notice, std::strlen(notice));
    (void)written;
  }
}
}  // namespace detail

// Whether SIGINT or SIGTERM arrived since install_interrupt_handlers().
inline bool interrupted() { return detail::interrupt_signal.load(std::memory_order_relaxed) != 0; }

// From now on the first SIGINT or SIGTERM sets interrupted() and prints `notice` (a string
// that outlives the process's handlers) on stderr; a second one ends the process.
inline void install_interrupt_handlers(const char* notice = nullptr) {
  detail::interrupt_notice = notice;
  std::signal(SIGINT, detail::on_interrupt_signal);
  std::signal(SIGTERM, detail::on_interrupt_signal);
}

}  // namespace hsalit::support
