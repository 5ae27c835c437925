// SPDX-License-Identifier: Apache-2.0
// The job guard: a small process, forked by `zkcoord lock` before any thread exists, that
// runs COMMAND and outlives zkcoord long enough to make sure nothing of COMMAND outlives the
// lock. It is a child subreaper, so every descendant of COMMAND stays in its reach (setsid and
// double forks included), and it kills all of them:
//   - when zkcoord's end of their socket closes (zkcoord died: SIGKILL, OOM killer, crash);
//   - when the lease deadline zkcoord last sent passes (zkcoord frozen: SIGSTOP, swapped out);
//   - when zkcoord reports the lock lost (SIGTERM, then SIGKILL after the grace);
//   - when COMMAND's top process exits and leaves others running (SIGTERM, then SIGKILL).
// It reports to zkcoord what happened (guard_protocol.hpp) and exits once nothing is left.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace zkcoord::cli {

struct job_spec {
  std::string file;               ///< the executable (find_executable)
  std::vector<std::string> argv;  ///< argv[0] as the user wrote it
};

/// zkcoord's end of a started guard. Closing the socket (destructor) makes the guard kill
/// whatever of the job is left; the destructor then reaps the guard (bounded wait).
class guard_process {
 public:
  /// Forks the guard. Call before any thread is started: the guard runs ordinary code.
  static guard_process start(job_spec spec);

  guard_process(guard_process&& other) noexcept;
  guard_process& operator=(guard_process&&) = delete;
  ~guard_process();

  pid_t pid() const noexcept { return pid_; }
  /// The socket (SOCK_SEQPACKET, close-on-exec) to talk to the guard over.
  int socket() const noexcept { return fd_; }
  /// Gives up the socket to a caller that closes it (an Asio descriptor).
  int release_socket() noexcept;

 private:
  guard_process(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
  pid_t pid_ = -1;
  int fd_ = -1;
};

}  // namespace zkcoord::cli
