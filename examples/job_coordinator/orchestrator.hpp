// SPDX-License-Identifier: Apache-2.0
// The job-coordinator run: creates the job database, starts the workers, injects the faults
// (SIGKILL one worker mid-run, SIGSTOP one mid-run and one just before its commit, once
// --faults-after runs were committed), and checks that every scheduled run produced its
// effects exactly once. The summary line names the faulted workers and when they were hit.
#pragma once

#include "job_coordinator/options.hpp"

#include <string>

namespace job_coordinator {

/// Returns the process exit status: 0 when every run has exactly one effect and one email.
int run_orchestrator(const run_options& options, const std::string& connect);

}  // namespace job_coordinator
