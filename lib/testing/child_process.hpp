// SPDX-License-Identifier: Apache-2.0
// A child process the harness started: spawn, signal, wait, reap. Internal.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace zkcoord::testing::detail {

class child_process {
 public:
  child_process() = default;
  /// Starts argv[0] (searched in PATH without '/') in its own process group, stdin from
  /// /dev/null, stdout and stderr appended to `output`. The child gets SIGKILL when this
  /// process dies. Throws std::system_error / std::runtime_error.
  static child_process spawn(const std::vector<std::string>& argv,
                             const std::filesystem::path& output);

  ~child_process();
  child_process(child_process&& o) noexcept : pid_(o.pid_) { o.pid_ = -1; }
  child_process& operator=(child_process&& o) noexcept;

  /// -1 when there is no live child.
  pid_t pid() const noexcept { return pid_; }
  /// Reaps the child if it has exited; true while it exists (also when stopped).
  bool running();
  /// Sends `sig` to the child (no-op when it is gone).
  void signal(int sig);
  /// Waits until the child exits; true if it did within `timeout`.
  bool wait_exit(std::chrono::milliseconds timeout);
  /// SIGTERM (+SIGCONT in case it is stopped), waits `grace`, then SIGKILL and waits.
  void terminate(std::chrono::milliseconds grace);
  /// SIGKILL and waits.
  void kill();

 private:
  explicit child_process(pid_t pid) : pid_(pid) {}
  pid_t pid_ = -1;
};

}  // namespace zkcoord::testing::detail
