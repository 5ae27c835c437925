// SPDX-License-Identifier: Apache-2.0
// The processes descended from this one, read from /proc, and signalling all of them. Used by
// the job guard, a child subreaper: every orphan of the job is re-parented to it, so "the
// guard's descendants" is the whole job, whatever process groups or sessions it made.
#pragma once

#include <sys/types.h>

#include <vector>

namespace zkcoord::cli {

/// Every live (not zombie) process whose chain of parents leads to `ancestor`.
std::vector<pid_t> descendants_of(pid_t ancestor);

/// Sends `sig` to process group `group` and to every descendant of this process (and to the
/// group each of them leads, if any). Returns how many descendants there were.
std::size_t signal_job(pid_t group, int sig);

}  // namespace zkcoord::cli
