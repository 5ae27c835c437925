// SPDX-License-Identifier: Apache-2.0
// One job-coordinator worker process: joins the workers' group (member id = its name), follows
// the group's live members, walks the shared schedule and, for each due run of a job whose
// rendezvous home in its current view is itself, takes the run under the job's lock and does
// the run's work with fenced and idempotent effects.
#pragma once

#include "job_coordinator/options.hpp"

namespace job_coordinator {

/// Returns the process exit status.
int run_worker(worker_options options);

}  // namespace job_coordinator
