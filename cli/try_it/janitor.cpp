// SPDX-License-Identifier: Apache-2.0
#include "try_it/janitor.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>
#include <thread>

namespace zkcoord::cli::try_it {
namespace {

// In the janitor: wait for the server's end of the pipe to close, then remove `home`. A
// process that dies with the server (the JVM) may still write for a moment: remove until
// the directory stays gone.
[[noreturn]] void clean_up_after(int fd, const std::filesystem::path& home) {
  // The terminal's Ctrl-C reaches the whole foreground group; the janitor outlives it.
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGTERM, SIG_IGN);
  ::signal(SIGHUP, SIG_IGN);
  const int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    ::dup2(null, STDIN_FILENO);
    // A reader of the server's output sees its end when the server ends, not the janitor.
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    ::close(null);
  }
  for (char byte;;) {
    const auto n = ::read(fd, &byte, 1);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  int quiet_rounds = 0;
  for (int i = 0; i < 100 && quiet_rounds < 3; ++i) {
    std::error_code ec;
    std::filesystem::remove_all(home, ec);
    quiet_rounds = std::filesystem::exists(home, ec) ? 0 : quiet_rounds + 1;
    ::usleep(100 * 1000);
  }
  ::_exit(0);
}

}  // namespace

janitor::janitor(std::filesystem::path home) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::system_error(error, std::generic_category(), "fork");
  }
  if (pid == 0) {
    ::close(fds[1]);
    clean_up_after(fds[0], home);
  }
  ::close(fds[0]);
  fd_ = fds[1];
}

janitor::~janitor() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace zkcoord::cli::try_it
