// One job-coordinator worker process: walks the shared schedule, takes each due run under
// its job's lock, and does the run's work with fenced and idempotent effects.
#pragma once

#include "job_coordinator/options.hpp"

namespace job_coordinator {

/// Returns the process exit status.
int run_worker(worker_options options);

}  // namespace job_coordinator
