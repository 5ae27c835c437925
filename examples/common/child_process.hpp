// SPDX-License-Identifier: Apache-2.0
// A child process of an example's orchestrator: its stdin and stdout are pipes (commands in,
// one event per line out), its stderr goes to a log file. Signals go to its pid only.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace examples {

class child_process {
 public:
  /// Starts argv[0] (a path) with the arguments. The child gets SIGKILL if this process dies.
  /// Throws std::system_error.
  child_process(const std::vector<std::string>& argv, const std::filesystem::path& stderr_log);
  /// Kills the child (SIGKILL) if it still runs and reaps it.
  ~child_process();
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  pid_t pid() const noexcept { return pid_; }
  /// The read end of the child's stdout (non-blocking), -1 once it reached EOF.
  int output_fd() const noexcept { return out_fd_; }

  /// Reads what is available on the child's stdout; returns the complete lines.
  std::vector<std::string> read_lines();
  /// Writes one line to the child's stdin (ignored once the child is gone).
  void send_line(const std::string& line);
  /// kill(pid, sig) while the child has not been reaped.
  void signal(int sig);
  /// Reaps the child if it exited; its exit status (or 128 + signal), nullopt while it runs.
  std::optional<int> poll_exit();
  /// Waits up to `timeout` for the child to exit.
  std::optional<int> wait_exit(std::chrono::milliseconds timeout);

 private:
  pid_t pid_ = -1;
  int in_fd_ = -1;
  int out_fd_ = -1;
  std::string partial_line_;
  std::optional<int> exit_status_;
};

/// Waits up to `timeout` until one of the children has output; returns (child index, line)
/// pairs in arrival order, possibly empty.
std::vector<std::pair<std::size_t, std::string>> poll_lines(std::vector<child_process*> children,
                                                            std::chrono::milliseconds timeout);

}  // namespace examples
