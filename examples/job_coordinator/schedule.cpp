// SPDX-License-Identifier: Apache-2.0
#include "job_coordinator/schedule.hpp"

#include <algorithm>

namespace job_coordinator {

std::string job_name(int index) {
  return "job-" + std::to_string(index + 1);
}

std::vector<job_run> make_schedule(const schedule_shape& shape) {
  std::vector<job_run> runs;
  const auto interval = shape.interval.count();
  for (int j = 0; j < shape.jobs; ++j) {
    for (int k = 0; k < shape.runs_per_job; ++k) {
      runs.push_back({job_name(j), shape.start_ms + k * interval + j * interval / shape.jobs});
    }
  }
  std::sort(runs.begin(), runs.end(),
            [](const job_run& a, const job_run& b) { return a.due_ms < b.due_ms; });
  return runs;
}

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace job_coordinator
