// SPDX-License-Identifier: Apache-2.0
#include "job_guard.hpp"

#include "exit_code.hpp"
#include "guard_decisions.hpp"
#include "guard_protocol.hpp"
#include "process_tree.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string_view>
#include <thread>
#include <utility>

extern char** environ;

namespace zkcoord::cli {
namespace {

std::int64_t monotonic_ns() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

void send_report(int fd, const guard_message& m) {
  if (fd >= 0) ::send(fd, &m, sizeof m, MSG_NOSIGNAL | MSG_DONTWAIT);
}

std::vector<std::string> job_environment(const std::vector<std::string>& extra_env) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string_view var(*e);
    bool replaced = false;
    for (const auto& extra : extra_env) {
      auto name = std::string_view(extra).substr(0, extra.find('=') + 1);
      if (var.substr(0, name.size()) == name) replaced = true;
    }
    if (!replaced) env.emplace_back(var);
  }
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// The forked job, before exec: async-signal-safe calls only, out of habit (the guard has no
// other thread, but the rule keeps this code safe wherever it is called from).
[[noreturn]] void exec_job(const char* file, char* const* argv, char* const* envp,
                           bool take_terminal, pid_t guard, int error_fd) {
  ::setpgid(0, 0);
  // The guard ignores SIGTTOU, and so does this copy: a background group may take the terminal.
  if (take_terminal) ::tcsetpgrp(STDIN_FILENO, ::getpid());
  // Should the guard itself be killed, the job's top process follows it at once.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != guard) ::_exit(exit_code::os_error);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);  // EINVAL ignored
  if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
    for (int fd = 3; fd < 65536; ++fd)
      if (fd != error_fd) ::close(fd);
  }
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(file, argv, envp);
  int err = errno;
  [[maybe_unused]] auto n = ::write(error_fd, &err, sizeof err);
  ::_exit(exit_code::command_not_found);
}

struct spawned {
  pid_t pid = -1;
  int error = 0;  ///< errno of fork or exec
  bool has_terminal = false;
};

spawned spawn_job(const job_spec& spec, const std::vector<std::string>& extra_env,
                  pid_t terminal_owner) {
  std::vector<std::string> args = spec.argv;
  std::vector<std::string> env = job_environment(extra_env);
  auto c_args = c_strings(args);
  auto c_env = c_strings(env);
  // The job gets the terminal only if zkcoord's group is its foreground (and so the user's).
  bool take_terminal = ::isatty(STDIN_FILENO) && ::tcgetpgrp(STDIN_FILENO) == terminal_owner;
  int error_pipe[2];
  if (::pipe2(error_pipe, O_CLOEXEC) != 0) return {-1, errno, false};
  pid_t guard = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0)
    exec_job(spec.file.c_str(), c_args.data(), c_env.data(), take_terminal, guard, error_pipe[1]);
  int fork_errno = errno;
  ::close(error_pipe[1]);
  if (pid < 0) {
    ::close(error_pipe[0]);
    return {-1, fork_errno, false};
  }
  // Also here: whichever of the two runs first, the group exists before it is signalled.
  ::setpgid(pid, pid);
  if (take_terminal) ::tcsetpgrp(STDIN_FILENO, pid);
  int err = 0;
  ssize_t n;
  do {
    n = ::read(error_pipe[0], &err, sizeof err);
  } while (n < 0 && errno == EINTR);
  ::close(error_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof err) && err != 0) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    if (take_terminal) ::tcsetpgrp(STDIN_FILENO, terminal_owner);
    return {-1, err, false};
  }
  return {pid, 0, take_terminal};
}

// Only SIGKILL (and SIGSTOP) may stop the guard: a `pkill zkcoord` or a signal to zkcoord's
// process group must not take away the one process that cleans up after the job. Signals
// that report a fault in the guard itself keep their default.
void ignore_signals() {
  struct sigaction ign {};
  ign.sa_handler = SIG_IGN;
  for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGTSTP,
                  SIGTTIN, SIGTTOU, SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGPOLL, SIGWINCH})
    ::sigaction(sig, &ign, nullptr);
}

// How many processes of the job are alive. "No child" is exact for a subreaper (the
// topmost live process of the job is always its child); the count is for the report.
std::size_t job_size() {
  siginfo_t info{};
  if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0) return 0;  // ECHILD
  return std::max<std::size_t>(1, descendants_of(::getpid()).size());
}

// Reaps every child that has ended; the top process's status when it was among them.
std::optional<int> reap(pid_t top, bool& any) {
  std::optional<int> top_status;
  int status = 0;
  pid_t pid;
  while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
    any = true;
    if (pid != top) continue;
    top_status = WIFEXITED(status) ? WEXITSTATUS(status) : signal_exit_status(WTERMSIG(status));
  }
  return top_status;
}

struct spawn_request {
  std::int64_t grace_ns = 0;
  std::int64_t deadline_ns = 0;
  std::vector<std::string> env;
};

// Blocks until zkcoord asks for the job, or closes its end (it gave up before the grant).
std::optional<spawn_request> wait_spawn_request(int fd) {
  std::vector<char> buf(256 * 1024);
  while (true) {
    ssize_t n = ::recv(fd, buf.data(), buf.size(), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return std::nullopt;
    if (static_cast<std::size_t>(n) < sizeof(guard_message)) continue;
    guard_message m;
    std::memcpy(&m, buf.data(), sizeof m);
    if (m.type != static_cast<std::uint32_t>(guard_request::spawn)) continue;
    spawn_request r{std::int64_t{m.value} * 1'000'000, m.time_ns, {}};
    std::string_view rest(buf.data() + sizeof m, static_cast<std::size_t>(n) - sizeof m);
    while (!rest.empty()) {
      auto end = rest.find('\0');
      r.env.emplace_back(rest.substr(0, end));
      rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    }
    return r;
  }
}

class guard_loop {
 public:
  guard_loop(int fd, pid_t top, pid_t terminal_owner, bool has_terminal,
             const spawn_request& request)
      : fd_(fd),
        top_(top),
        terminal_owner_(terminal_owner),
        has_terminal_(has_terminal),
        decisions_(request.grace_ns, request.deadline_ns) {
    sigset_t chld;
    ::sigemptyset(&chld);
    ::sigaddset(&chld, SIGCHLD);
    signal_fd_ = ::signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  }

  [[noreturn]] void run() {
    while (true) {
      auto now = monotonic_ns();
      auto wake = decisions_.next_wakeup(now);
      int timeout_ms = wake <= now ? 0
                                   : static_cast<int>(std::min<std::int64_t>(
                                         (wake - now + 999'999) / 1'000'000, 60'000));
      pollfd fds[2] = {{signal_fd_, POLLIN, 0}, {fd_, POLLIN, 0}};
      int r = ::poll(fds, fd_ >= 0 ? 2 : 1, timeout_ms);
      if (r < 0 && errno != EINTR) carry_out(decisions_.zkcoord_gone());
      if (fd_ >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) read_requests();
      if (fds[0].revents & POLLIN) on_sigchld();
      carry_out(decisions_.tick(monotonic_ns()));
    }
  }

 private:
  void read_requests() {
    guard_message m;
    while (fd_ >= 0) {
      ssize_t n = ::recv(fd_, &m, sizeof m, MSG_DONTWAIT);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n <= 0) {
        ::close(fd_);
        fd_ = -1;
        carry_out(decisions_.zkcoord_gone());
        return;
      }
      if (n != sizeof m) continue;
      switch (static_cast<guard_request>(m.type)) {
        case guard_request::renew:
          carry_out(decisions_.renew(m.time_ns, monotonic_ns()));
          break;
        case guard_request::forward_signal:
          if (!decisions_.killing()) ::kill(-top_, m.value);
          break;
        case guard_request::terminate:
          carry_out(decisions_.terminate(monotonic_ns()));
          break;
        default:
          break;
      }
    }
  }

  void on_sigchld() {
    signalfd_siginfo info;
    while (::read(signal_fd_, &info, sizeof info) == sizeof info) {
    }
    bool any = false;
    auto top_status = reap(top_, any);
    if (top_status) give_back_terminal();
    if (any) carry_out(decisions_.reaped(top_status, job_size(), monotonic_ns()));
  }

  void give_back_terminal() {
    if (!has_terminal_) return;
    has_terminal_ = false;
    if (::tcgetpgrp(STDIN_FILENO) == top_) ::tcsetpgrp(STDIN_FILENO, terminal_owner_);
  }

  void carry_out(const guard_decisions::actions& a) {
    if (a.terminate_all) {
      signal_job(top_, SIGTERM);
      signal_job(top_, SIGCONT);  // a stopped process cannot act on SIGTERM
    }
    if (a.kill_all) signal_job(top_, SIGKILL);
    for (const auto& m : a.reports) send_report(fd_, m);
    if (a.done) {
      give_back_terminal();
      ::_exit(0);
    }
  }

  int fd_;
  int signal_fd_ = -1;
  pid_t top_;
  pid_t terminal_owner_;
  bool has_terminal_;
  guard_decisions decisions_;
};

[[noreturn]] void guard_main(int fd, const job_spec& spec, pid_t terminal_owner) {
  ::prctl(PR_SET_NAME, "zkcoord-guard");
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  // Out of zkcoord's group: a signal to that group (Ctrl-C, `kill -- -PGID`) is zkcoord's
  // to handle and forward; the guard must still be there when zkcoord is gone.
  ::setpgid(0, 0);
  ignore_signals();
  sigset_t chld;
  ::sigemptyset(&chld);
  ::sigaddset(&chld, SIGCHLD);
  ::sigprocmask(SIG_BLOCK, &chld, nullptr);
  auto request = wait_spawn_request(fd);
  if (!request) ::_exit(0);
  auto job = spawn_job(spec, request->env, terminal_owner);
  if (job.pid < 0) {
    send_report(fd, {static_cast<std::uint32_t>(guard_report::spawn_failed), job.error, 0});
    ::_exit(0);
  }
  send_report(fd, {static_cast<std::uint32_t>(guard_report::started), job.pid, 0});
  guard_loop(fd, job.pid, terminal_owner, job.has_terminal, *request).run();
}

}  // namespace

guard_process guard_process::start(job_spec spec) {
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
    throw cli_error(exit_code::os_error, std::string("socketpair: ") + std::strerror(errno));
  pid_t terminal_owner = ::getpgrp();
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    guard_main(fds[1], spec, terminal_owner);
  }
  int fork_errno = errno;
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    throw cli_error(exit_code::os_error, std::string("fork: ") + std::strerror(fork_errno));
  }
  return {pid, fds[0]};
}

guard_process::guard_process(guard_process&& other) noexcept : pid_(other.pid_), fd_(other.fd_) {
  other.pid_ = -1;
  other.fd_ = -1;
}

int guard_process::release_socket() noexcept {
  return std::exchange(fd_, -1);
}

guard_process::~guard_process() {
  if (fd_ >= 0) ::close(fd_);
  if (pid_ <= 0) return;
  // The guard exits once the job is gone; a job stuck in the kernel (D state) must not keep
  // zkcoord from exiting, so the wait is bounded (init reaps the guard later).
  for (int i = 0; i < 500; ++i) {
    pid_t r = ::waitpid(pid_, nullptr, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace zkcoord::cli
