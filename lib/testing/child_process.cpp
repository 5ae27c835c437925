// SPDX-License-Identifier: Apache-2.0
#include "testing/child_process.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <future>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "testing/spawner.hpp"

namespace zkcoord::testing::detail {
namespace {

[[noreturn]] void exec_child(pid_t parent, int out_fd, int null_fd, const char* file,
                             char* const* argv) {
  // Only async-signal-safe calls between fork and exec: the parent is multi-threaded.
  clear_signal_mask_in_child();
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
  ::dup2(null_fd, STDIN_FILENO);
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(out_fd, STDERR_FILENO);
  ::close_range(3, ~0U, 0);  // no inherited sockets: they would keep the test's ports busy
  ::execv(file, argv);
  ::_exit(127);
}

}  // namespace

child_process child_process::spawn(const std::vector<std::string>& argv,
                                   const std::filesystem::path& output) {
  const std::string file = find_executable(argv.at(0));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  const int out_fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (out_fd < 0) throw std::system_error(errno, std::system_category(), output.string());
  const int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  // fork on the spawner thread: PR_SET_PDEATHSIG fires when the *thread* that forked exits,
  // and the spawner thread lives as long as the process.
  const pid_t pid = run_on_spawner_thread([&] {
    const pid_t parent = ::getpid();
    const pid_t child = ::fork();
    if (child == 0) exec_child(parent, out_fd, null_fd, file.c_str(), args.data());
    return child < 0 ? -errno : child;
  });
  ::close(out_fd);
  ::close(null_fd);
  if (pid < 0) throw std::system_error(-pid, std::system_category(), "fork");
  return child_process(pid);
}

child_process::~child_process() {
  kill();
}

child_process& child_process::operator=(child_process&& o) noexcept {
  if (this != &o) {
    kill();
    pid_ = o.pid_;
    o.pid_ = -1;
  }
  return *this;
}

bool child_process::running() {
  if (pid_ < 0) return false;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r == pid_ || (r < 0 && errno == ECHILD)) {
    pid_ = -1;
    return false;
  }
  return true;
}

void child_process::signal(int sig) {
  if (running()) ::kill(pid_, sig);
}

bool child_process::wait_exit(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (running()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

void child_process::terminate(std::chrono::milliseconds grace) {
  signal(SIGTERM);
  signal(SIGCONT);
  if (!wait_exit(grace)) kill();
}

void child_process::kill() {
  if (!running()) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

}  // namespace zkcoord::testing::detail
