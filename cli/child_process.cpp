#include "child_process.hpp"

#include "exit_code.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

extern char** environ;

namespace zkcoord::cli {
namespace {

// The executable for `name` as execvp would find it; throws 127 / 126 like a shell.
std::string resolve_executable(const std::string& name) {
  if (name.empty()) throw cli_error(exit_code::command_not_found, "empty command name");
  if (name.find('/') != std::string::npos) return name;
  const char* path_env = std::getenv("PATH");
  std::string path = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
  bool found_not_executable = false;
  std::size_t start = 0;
  while (start <= path.size()) {
    auto end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
      found_not_executable = true;
    }
    start = end + 1;
  }
  if (found_not_executable)
    throw cli_error(exit_code::cannot_execute, "cannot execute '" + name + "': permission denied");
  throw cli_error(exit_code::command_not_found, "command not found: " + name);
}

std::vector<std::string> child_environment(const std::vector<std::string>& extra_env) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string_view var(*e);
    bool replaced = false;
    for (const auto& extra : extra_env) {
      auto name = extra.substr(0, extra.find('=') + 1);
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

bool we_own_terminal_foreground() {
  return ::isatty(STDIN_FILENO) && ::tcgetpgrp(STDIN_FILENO) == ::getpgrp();
}

// Runs in the forked child: async-signal-safe calls only (the parent has other threads, whose
// locks may be held forever in this copy). All signals are blocked on entry.
[[noreturn]] void exec_child(const char* file, char* const* argv, char* const* envp,
                             bool take_terminal, pid_t parent, int error_fd) {
  ::setpgid(0, 0);
  // SIGTTOU is blocked, so taking the foreground from a background group is allowed.
  if (take_terminal) ::tcsetpgrp(STDIN_FILENO, ::getpid());
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(exit_code::os_error);  // parent died before prctl
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) ::sigaction(sig, &dfl, nullptr);  // EINVAL ignored
  // Only stdio is passed on; the error pipe closes itself at exec and so reports success.
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

// The errno the child reported before exec failed, or 0 when exec succeeded (pipe closed).
int read_exec_error(int fd) {
  int err = 0;
  ssize_t n;
  do {
    n = ::read(fd, &err, sizeof err);
  } while (n < 0 && errno == EINTR);
  return n == static_cast<ssize_t>(sizeof err) ? err : 0;
}

}  // namespace

child_process child_process::spawn(const std::vector<std::string>& argv,
                                   const std::vector<std::string>& extra_env) {
  std::string file = resolve_executable(argv.at(0));
  std::vector<std::string> args = argv;
  std::vector<std::string> env = child_environment(extra_env);
  auto c_args = c_strings(args);
  auto c_env = c_strings(env);
  bool take_terminal = we_own_terminal_foreground();

  int error_pipe[2];
  if (::pipe2(error_pipe, O_CLOEXEC) != 0)
    throw cli_error(exit_code::os_error, std::string("pipe: ") + std::strerror(errno));
  // Blocked across fork so that no signal handler (Asio's) runs in the child before exec.
  sigset_t all, old;
  ::sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0)
    exec_child(file.c_str(), c_args.data(), c_env.data(), take_terminal, parent, error_pipe[1]);
  int fork_errno = errno;
  if (pid > 0) {
    // Also here: whichever of parent and child runs first, the group exists before use.
    ::setpgid(pid, pid);
    if (take_terminal) ::tcsetpgrp(STDIN_FILENO, pid);
  }
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  ::close(error_pipe[1]);
  if (pid < 0) {
    ::close(error_pipe[0]);
    throw cli_error(exit_code::os_error, std::string("fork: ") + std::strerror(fork_errno));
  }
  child_process child(pid, take_terminal);
  int exec_errno = read_exec_error(error_pipe[0]);
  ::close(error_pipe[0]);
  if (exec_errno != 0) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    child.pid_ = -1;
    child.take_back_terminal();
    throw cli_error(exec_errno == ENOENT ? exit_code::command_not_found : exit_code::cannot_execute,
                    "cannot execute '" + argv[0] + "': " + std::strerror(exec_errno));
  }
  return child;
}

child_process::child_process(child_process&& other) noexcept
    : pid_(other.pid_), has_terminal_(other.has_terminal_) {
  other.pid_ = -1;
  other.has_terminal_ = false;
}

child_process::~child_process() {
  if (pid_ > 0) {
    signal_group(SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
  take_back_terminal();
}

void child_process::signal_group(int sig) noexcept {
  if (pid_ > 0) ::kill(-pid_, sig);
}

std::optional<int> child_process::try_reap() {
  if (pid_ <= 0) return std::nullopt;
  int status = 0;
  pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r != pid_) return std::nullopt;
  pid_ = -1;
  take_back_terminal();
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return signal_exit_status(WTERMSIG(status));
}

void child_process::take_back_terminal() noexcept {
  if (!has_terminal_) return;
  has_terminal_ = false;
  // We are a background group now: tcsetpgrp would stop us with SIGTTOU unless it is blocked.
  sigset_t ttou, old;
  ::sigemptyset(&ttou);
  ::sigaddset(&ttou, SIGTTOU);
  ::pthread_sigmask(SIG_BLOCK, &ttou, &old);
  ::tcsetpgrp(STDIN_FILENO, ::getpgrp());
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace zkcoord::cli
