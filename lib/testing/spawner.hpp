// SPDX-License-Identifier: Apache-2.0
// Starting the harness's processes: fork() on one thread that lives as long as the process,
// and finding their executables. Internal.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

namespace zkcoord::testing::detail {

/// Runs `fork_and_exec` on the process-wide spawner thread and returns its result.
/// Children whose parent-death signal is bound to that thread survive the exit of the thread
/// that asked for them (e.g. a test's worker thread that restarts a server).
pid_t run_on_spawner_thread(const std::function<pid_t()>& fork_and_exec);

/// The spawner thread blocks every signal, so that the application's handlers never run on
/// it; a child forked there calls this before exec so that it starts with none blocked.
/// Async-signal-safe.
void clear_signal_mask_in_child() noexcept;

/// The executable `name` names: itself when it has a '/', else the first executable match on
/// PATH. Throws std::runtime_error when there is none.
std::string find_executable(const std::string& name);

}  // namespace zkcoord::testing::detail
