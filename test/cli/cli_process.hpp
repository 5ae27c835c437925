// SPDX-License-Identifier: Apache-2.0
// Runs the built `zkcoord` binary as a user would: a separate process with its own argv and
// environment, stdout and stderr captured in files, always bounded in time.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

extern char** environ;

namespace zkcoord::test {

/// What a finished process left: its status as a shell reports it (exit code, 128 + signal).
struct cli_result {
  int status = -1;
  std::string out;
  std::string err;
  std::chrono::milliseconds elapsed{0};
  /// stderr without the trailing newline, split in lines.
  std::vector<std::string> err_lines() const {
    std::vector<std::string> lines;
    std::istringstream in(err);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  }
};

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// A running `zkcoord` (or any program). Killed with its process group if still running when
/// destroyed, so a failed test leaves nothing behind.
class cli_process {
 public:
  /// `env` entries ("NAME=value") are added to / replace this process's environment;
  /// "NAME=" with nothing after removes NAME. With `stdin_pipe`, write_stdin/close_stdin feed
  /// the process; otherwise its stdin is /dev/null.
  cli_process(std::vector<std::string> argv, std::vector<std::string> env = {},
              bool stdin_pipe = false)
      : dir_(make_dir()), start_(std::chrono::steady_clock::now()) {
    std::vector<std::string> environment = merge_env(env);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    int in_pipe[2] = {-1, -1};
    if (stdin_pipe) {
      // Close-on-exec: another process spawned later must not keep this one's stdin open
      // (dup2 onto fd 0 clears the flag for the child that reads it).
      if (::pipe2(in_pipe, O_CLOEXEC) != 0)
        throw std::system_error(errno, std::generic_category(), "pipe2");
      posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
      posix_spawn_file_actions_addclose(&actions, in_pipe[1]);
    } else {
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    }
    auto out = (dir_ / "stdout").string(), err = (dir_ / "stderr").string();
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    // Its own group, so a test can end it and whatever it started in one kill.
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    auto c_argv = c_strings(argv);
    auto c_env = c_strings(environment);
    int rc =
        ::posix_spawnp(&pid_, argv.at(0).c_str(), &actions, &attr, c_argv.data(), c_env.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (stdin_pipe) {
      ::close(in_pipe[0]);
      stdin_fd_ = in_pipe[1];
    }
    if (rc != 0) throw std::system_error(rc, std::generic_category(), "posix_spawnp " + argv[0]);
  }
  ~cli_process() {
    close_stdin();
    if (pid_ > 0) {
      ::kill(-pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  cli_process(const cli_process&) = delete;
  cli_process& operator=(const cli_process&) = delete;

  pid_t pid() const { return pid_; }
  void signal(int sig) { ::kill(pid_, sig); }
  std::string out_so_far() const { return read_file(dir_ / "stdout"); }
  std::string err_so_far() const { return read_file(dir_ / "stderr"); }
  void close_stdin() {
    if (stdin_fd_ >= 0) ::close(stdin_fd_);
    stdin_fd_ = -1;
  }
  bool running() {
    if (pid_ <= 0) return false;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) != pid_) return true;
    finish(status);
    return false;
  }

  /// Waits for the exit; throws (after killing it) if it takes longer than `bound`.
  cli_result wait(std::chrono::milliseconds bound = std::chrono::seconds(30)) {
    auto deadline = std::chrono::steady_clock::now() + bound;
    while (running()) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(-pid_, SIGKILL);
        throw std::runtime_error("process did not exit within the bound; stderr: " + err_so_far());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    result_.out = out_so_far();
    result_.err = err_so_far();
    return result_;
  }

 private:
  static std::filesystem::path make_dir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "zkcoord-cli-test-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::system_error(errno, std::generic_category(), "mkdtemp");
    return tmpl;
  }
  static std::vector<std::string> merge_env(const std::vector<std::string>& extra) {
    std::vector<std::string> env;
    auto name_of = [](const std::string& v) { return v.substr(0, v.find('=') + 1); };
    for (char** e = environ; *e; ++e) {
      std::string var(*e);
      bool overridden = false;
      for (const auto& x : extra) overridden = overridden || name_of(x) == name_of(var);
      if (!overridden) env.push_back(var);
    }
    for (const auto& x : extra)
      if (x.back() != '=') env.push_back(x);
    return env;
  }
  static std::vector<char*> c_strings(std::vector<std::string>& v) {
    std::vector<char*> out;
    for (auto& s : v) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
  }
  void finish(int status) {
    pid_ = -1;
    result_.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    result_.elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start_);
  }

  std::filesystem::path dir_;
  std::chrono::steady_clock::time_point start_;
  pid_t pid_ = -1;
  int stdin_fd_ = -1;
  cli_result result_;
};

/// Runs to completion (bounded).
inline cli_result run_cli(std::vector<std::string> argv, std::vector<std::string> env = {},
                          std::chrono::milliseconds bound = std::chrono::seconds(30)) {
  cli_process p(std::move(argv), std::move(env));
  return p.wait(bound);
}

}  // namespace zkcoord::test
