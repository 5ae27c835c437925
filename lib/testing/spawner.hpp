// Runs fork() on one thread that lives as long as the process. Internal.
#pragma once

#include <sys/types.h>

#include <functional>

namespace zkcoord::testing::detail {

/// Runs `fork_and_exec` on the process-wide spawner thread and returns its result.
/// Children whose parent-death signal is bound to that thread survive the exit of the thread
/// that asked for them (e.g. a test's worker thread that restarts a server).
pid_t run_on_spawner_thread(const std::function<pid_t()>& fork_and_exec);

}  // namespace zkcoord::testing::detail
