// SPDX-License-Identifier: Apache-2.0
// What one job-coordinator run does: the schedule, the workers, the faults to inject.
#pragma once

#include "common/command_line.hpp"
#include "job_coordinator/schedule.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace job_coordinator {

struct run_options {
  int workers = 4;
  schedule_shape schedule;
  std::chrono::milliseconds work{400};  ///< how long one job run works
  std::chrono::milliseconds session_timeout{1500};
  std::chrono::milliseconds pause{3000};  ///< how long a paused worker stays stopped
  bool faults = true;                     ///< SIGKILL one worker and SIGSTOP two mid-run
  int faults_after = 0;  ///< commits before the faults start (the spread while all are alive)
  int pauses = 2;        ///< 1: only the mid-run pause; 2: also the one before a commit
  bool keep = false;
};

/// Parses "[--workers N] [--jobs N] [--runs-per-job N] [--interval-ms N] [--work-ms N]
/// [--session-timeout-ms N] [--pause S] [--faults-after N] [--pauses 1|2] [--no-faults]
/// [--keep]". Throws std::invalid_argument.
run_options parse_run_options(const examples::command_line& args);

struct worker_options {
  int id = 0;
  std::string db;
  std::string connect;
  std::string lock_root;
  schedule_shape schedule;
  std::chrono::milliseconds work{400};
  std::chrono::milliseconds session_timeout{1500};
  bool handshake = false;  ///< wait for "go" before each commit (pause orchestration)
};

std::vector<std::string> worker_argv(const worker_options& options);
worker_options parse_worker_options(const examples::command_line& args);

}  // namespace job_coordinator
