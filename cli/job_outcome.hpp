// SPDX-License-Identifier: Apache-2.0
// What the job guard's reports mean for a command that runs COMMAND while it holds something
// (lock, elect, semaphore: a grant; register: a membership): one reading for all of them.
#pragma once

#include "guard_protocol.hpp"

#include <sys/types.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace spdlog {
class logger;
}

namespace zkcoord::cli {

class job_outcome {
 public:
  /// How the job ended: zkcoord's exit status and, when it is zkcoord's own failure, the
  /// message to print (empty: COMMAND's status, or 76 already reported).
  struct ended {
    int status;
    std::string message;
  };

  /// `command` is COMMAND's name (argv[0]) for messages; `grace` the SIGTERM -> SIGKILL delay
  /// the guard applies; `lease_kill_report` what to say when the guard kills the job at the
  /// lease deadline (empty: no lease is enforced, and such a report is ignored).
  job_outcome(std::string command, std::chrono::milliseconds grace, std::string lease_kill_report,
              std::shared_ptr<spdlog::logger> logger);

  /// Reads one report of the guard, or (`eof`) the end of its socket. Returns how the job
  /// ended once that is known. When the guard itself died, the job's process group is killed.
  std::optional<ended> read(bool eof, const guard_message& m);

  /// The held thing is gone: the job ends with exit_code::lock_lost whatever COMMAND returns.
  void mark_lost() noexcept { lost_ = true; }
  /// The guard reported COMMAND started (its pid known).
  bool started() const noexcept { return job_pid_ > 0; }

 private:
  std::string command_;
  std::chrono::milliseconds grace_;
  std::string lease_kill_report_;
  std::shared_ptr<spdlog::logger> logger_;
  bool lost_ = false;
  pid_t job_pid_ = -1;
  int command_status_;
};

}  // namespace zkcoord::cli
