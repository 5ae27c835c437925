// The command `zkcoord lock` runs: started in its own process group (so that a lost lock stops
// all of it, pipelines and grandchildren included), signalled as a group, reaped.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace zkcoord::cli {

class child_process {
 public:
  /// Runs argv[0] (searched in PATH when it has no '/') with this process's environment plus
  /// `extra_env` ("NAME=value", replacing same-named variables). stdin/stdout/stderr are
  /// inherited, other descriptors are not. When stdin is our controlling terminal and we are
  /// in its foreground, the child's group takes the foreground (so it can read the terminal and
  /// gets Ctrl-C directly). The child gets SIGKILL if this process dies. Throws cli_error:
  /// command_not_found, cannot_execute, os_error.
  static child_process spawn(const std::vector<std::string>& argv,
                             const std::vector<std::string>& extra_env);

  child_process(child_process&& other) noexcept;
  child_process& operator=(child_process&&) = delete;
  /// A child still running here is killed (group SIGKILL) and reaped: it must never run on
  /// after zkcoord gave up its lock.
  ~child_process();

  pid_t pid() const noexcept { return pid_; }
  /// Sends `sig` to the child's process group (no-op once reaped).
  void signal_group(int sig) noexcept;
  /// Reaps the child if it has exited: its status as a shell reports it (exit code, or
  /// 128 + signal number); nullopt while it runs. Gives the terminal back on exit.
  std::optional<int> try_reap();

 private:
  child_process(pid_t pid, bool has_terminal) : pid_(pid), has_terminal_(has_terminal) {}
  void take_back_terminal() noexcept;

  pid_t pid_ = -1;
  bool has_terminal_ = false;
};

}  // namespace zkcoord::cli
