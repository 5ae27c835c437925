// SPDX-License-Identifier: Apache-2.0
#include "job_outcome.hpp"

#include "duration.hpp"
#include "exit_code.hpp"
#include "zookeeper_session.hpp"

#include <spdlog/spdlog.h>

#include <signal.h>
#include <string.h>

#include <cerrno>
#include <utility>

namespace zkcoord::cli {

job_outcome::job_outcome(std::string command, std::chrono::milliseconds grace,
                         std::string lease_kill_report, std::shared_ptr<spdlog::logger> logger)
    : command_(std::move(command)),
      grace_(grace),
      lease_kill_report_(std::move(lease_kill_report)),
      logger_(std::move(logger)),
      command_status_(exit_code::internal) {}

std::optional<job_outcome::ended> job_outcome::read(bool eof, const guard_message& m) {
  if (eof) {
    // The guard was killed: its job's top process died with it (PR_SET_PDEATHSIG); of the
    // rest, only what stayed in the job's process group is still in our reach.
    if (job_pid_ > 0) ::kill(-job_pid_, SIGKILL);
    return ended{exit_code::internal, "the job guard process ended unexpectedly"};
  }
  switch (static_cast<guard_report>(m.type)) {
    case guard_report::started:
      job_pid_ = m.value;
      logger_->debug("the command runs as pid {}", m.value);
      break;
    case guard_report::spawn_failed:
      return ended{m.value == ENOENT ? exit_code::command_not_found : exit_code::cannot_execute,
                   "cannot execute '" + command_ + "': " + ::strerror(m.value)};
    case guard_report::exited:
      logger_->info("the command exited with status {}", m.value);
      command_status_ = m.value;
      break;
    case guard_report::leftovers:
      report("the command exited, leaving " + std::to_string(m.value) +
             " process(es) running: sending them SIGTERM, SIGKILL in " + format_duration(grace_));
      break;
    case guard_report::lease_kill:
      if (lease_kill_report_.empty()) break;  // never sent: no lease was given
      lost_ = true;
      report(lease_kill_report_);
      break;
    case guard_report::grace_kill:
      report("the command outlived the grace period: sent SIGKILL");
      break;
    case guard_report::finished:
      return ended{lost_ ? exit_code::lock_lost : command_status_, {}};
  }
  return std::nullopt;
}

}  // namespace zkcoord::cli
