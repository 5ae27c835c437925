// SPDX-License-Identifier: Apache-2.0
// The shared schedule of the job-coordinator example: every worker computes the same list of
// job runs from the same start time, and names each run the same way.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

namespace job_coordinator {

struct job_run {
  std::string job;          ///< "job-2"
  std::int64_t due_ms = 0;  ///< scheduled time, ms since the Unix epoch
  /// The idempotency key of the run's unfenceable effects: job id + scheduled time, the same
  /// whichever worker (or retry) performs the run.
  std::string key() const { return job + "@" + std::to_string(due_ms); }
};

struct schedule_shape {
  int jobs = 4;
  int runs_per_job = 5;
  std::chrono::milliseconds interval{500};  ///< between two runs of one job
  std::int64_t start_ms = 0;                ///< first run, ms since the Unix epoch
};

std::string job_name(int index);  ///< "job-1", ...
/// All runs, ordered by due time; the runs of one job are staggered against the others.
std::vector<job_run> make_schedule(const schedule_shape& shape);

std::int64_t now_ms();  ///< wall clock, ms since the Unix epoch (the workers share it)

}  // namespace job_coordinator
