// SPDX-License-Identifier: Apache-2.0
#include "common/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <system_error>
#include <thread>
#include <utility>

namespace examples {
namespace {

void throw_errno(const char* what) {
  throw std::system_error(errno, std::system_category(), what);
}

int decode_status(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

}  // namespace

child_process::child_process(const std::vector<std::string>& argv,
                             const std::filesystem::path& stderr_log) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int in_pipe[2];
  int out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) throw_errno("pipe");
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) throw_errno("pipe");
  const int err_fd = ::open(stderr_log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (err_fd < 0) throw_errno("open log");
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    // Only async-signal-safe calls until exec: the parent may be multi-threaded.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    ::dup2(in_pipe[0], STDIN_FILENO);
    ::dup2(out_pipe[1], STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    ::close_range(3, ~0U, 0);  // no inherited sockets or pipes of other children
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  ::close(err_fd);
  if (pid_ < 0) throw_errno("fork");
  in_fd_ = in_pipe[1];
  out_fd_ = out_pipe[0];
  ::fcntl(out_fd_, F_SETFL, ::fcntl(out_fd_, F_GETFL) | O_NONBLOCK);
}

child_process::~child_process() {
  if (!exit_status_) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
  if (in_fd_ >= 0) ::close(in_fd_);
  if (out_fd_ >= 0) ::close(out_fd_);
}

std::vector<std::string> child_process::read_lines() {
  std::vector<std::string> lines;
  char buffer[4096];
  while (out_fd_ >= 0) {
    const ssize_t n = ::read(out_fd_, buffer, sizeof buffer);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) break;
    if (n <= 0) {
      ::close(out_fd_);
      out_fd_ = -1;
      break;
    }
    partial_line_.append(buffer, static_cast<std::size_t>(n));
  }
  std::size_t start = 0;
  for (std::size_t end; (end = partial_line_.find('\n', start)) != std::string::npos;
       start = end + 1) {
    lines.push_back(partial_line_.substr(start, end - start));
  }
  partial_line_.erase(0, start);
  if (out_fd_ < 0 && !partial_line_.empty()) lines.push_back(std::exchange(partial_line_, {}));
  return lines;
}

void child_process::send_line(const std::string& line) {
  if (in_fd_ < 0) return;
  const std::string text = line + "\n";
  // A child that exited closes its end: SIGPIPE is ignored by the orchestrators, EPIPE is fine.
  if (::write(in_fd_, text.data(), text.size()) < 0) {
    ::close(in_fd_);
    in_fd_ = -1;
  }
}

void child_process::signal(int sig) {
  if (!exit_status_) ::kill(pid_, sig);
}

std::optional<int> child_process::poll_exit() {
  if (exit_status_) return exit_status_;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) exit_status_ = decode_status(status);
  return exit_status_;
}

std::optional<int> child_process::wait_exit(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!poll_exit() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return exit_status_;
}

std::vector<std::pair<std::size_t, std::string>> poll_lines(std::vector<child_process*> children,
                                                            std::chrono::milliseconds timeout) {
  std::vector<pollfd> fds;
  std::vector<std::size_t> owners;
  for (std::size_t i = 0; i < children.size(); ++i) {
    if (children[i]->output_fd() < 0) continue;
    fds.push_back({children[i]->output_fd(), POLLIN, 0});
    owners.push_back(i);
  }
  std::vector<std::pair<std::size_t, std::string>> lines;
  if (fds.empty()) {
    std::this_thread::sleep_for(timeout);
    return lines;
  }
  if (::poll(fds.data(), fds.size(), static_cast<int>(timeout.count())) <= 0) return lines;
  for (std::size_t k = 0; k < fds.size(); ++k) {
    if (fds[k].revents == 0) continue;
    for (auto& line : children[owners[k]]->read_lines()) lines.emplace_back(owners[k], line);
  }
  return lines;
}

}  // namespace examples
