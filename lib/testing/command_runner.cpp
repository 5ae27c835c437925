// SPDX-License-Identifier: Apache-2.0
#include "testing/command_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <stdexcept>
#include <system_error>

#include "testing/spawner.hpp"

namespace zkcoord::testing::detail {
namespace {

using steady = std::chrono::steady_clock;

struct pipe_pair {
  int read = -1;
  int write = -1;
  pipe_pair() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
      throw std::system_error(errno, std::system_category(), "pipe");
    read = fds[0];
    write = fds[1];
  }
  ~pipe_pair() {
    close_read();
    close_write();
  }
  void close_read() {
    if (read >= 0) ::close(read);
    read = -1;
  }
  void close_write() {
    if (write >= 0) ::close(write);
    write = -1;
  }
};

[[noreturn]] void exec_child(pid_t parent, int null_fd, int out_fd, int err_fd, const char* file,
                             char* const* argv) {
  // Only async-signal-safe calls between fork and exec: the parent is multi-threaded.
  clear_signal_mask_in_child();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);
  ::dup2(null_fd, STDIN_FILENO);
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(err_fd, STDERR_FILENO);
  ::close_range(3, ~0U, 0);
  ::execv(file, argv);
  ::_exit(127);
}

// Reads both pipes until both are closed or the deadline passes; false on the deadline.
bool drain(pipe_pair& out, pipe_pair& err, command_result& result, steady::time_point deadline) {
  std::array<char, 8192> buf{};
  while (out.read >= 0 || err.read >= 0) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady::now());
    if (left.count() <= 0) return false;
    pollfd fds[2] = {{out.read, POLLIN, 0}, {err.read, POLLIN, 0}};
    const int r = ::poll(fds, 2, static_cast<int>(left.count()));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) throw std::system_error(errno, std::system_category(), "poll");
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      pipe_pair& p = i == 0 ? out : err;
      const ssize_t n = ::read(p.read, buf.data(), buf.size());
      if (n > 0) {
        (i == 0 ? result.out : result.err).append(buf.data(), static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        p.close_read();
      }
    }
  }
  return true;
}

int wait_status(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

command_result run_command(const std::vector<std::string>& argv,
                           std::chrono::milliseconds timeout) {
  const std::string file = find_executable(argv.at(0));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  pipe_pair out;
  pipe_pair err;
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t pid = run_on_spawner_thread([&] {
    const pid_t parent = ::getpid();
    const pid_t child = ::fork();
    if (child == 0) exec_child(parent, null_fd, out.write, err.write, file.c_str(), args.data());
    return child < 0 ? -errno : child;
  });
  ::close(null_fd);
  out.close_write();
  err.close_write();
  if (pid < 0) throw std::system_error(-pid, std::system_category(), "fork");

  command_result result;
  const bool finished = drain(out, err, result, steady::now() + timeout);
  if (!finished) ::kill(pid, SIGKILL);
  const int status = wait_status(pid);
  result.exit_code = finished ? status : -1;
  return result;
}

std::string describe_command(const std::vector<std::string>& argv) {
  std::string text;
  for (const auto& a : argv) {
    if (!text.empty()) text += ' ';
    const bool plain = !a.empty() && a.find_first_of(" \t'\"\\;$") == std::string::npos;
    text += plain ? a : "'" + a + "'";
  }
  return text;
}

}  // namespace zkcoord::testing::detail
