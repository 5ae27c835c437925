// SPDX-License-Identifier: Apache-2.0
// What zkcoord and its job guard say to each other over their socket pair (SOCK_SEQPACKET:
// one message per read). Both run on one machine, so deadlines travel as CLOCK_MONOTONIC
// nanoseconds (std::chrono::steady_clock), which the two processes share.
#pragma once

#include <cstdint>

namespace zkcoord::cli {

/// zkcoord -> guard.
enum class guard_request : std::uint32_t {
  /// Start the job; `value` = grace in ms, `time_ns` = the first lease deadline. The payload
  /// after the fixed part: extra environment entries, each "NAME=value" ending in '\0'.
  spawn = 1,
  /// The lease now runs until `time_ns` (may be earlier than before: min() after a loss).
  renew = 2,
  /// Send signal `value` to the job's process group.
  forward_signal = 3,
  /// The lock is lost: SIGTERM to the whole job, SIGKILL to what is left after the grace.
  terminate = 4,
};

/// guard -> zkcoord.
enum class guard_report : std::uint32_t {
  started = 1,       ///< `value` = the job's pid (also its process group)
  spawn_failed = 2,  ///< `value` = errno of the exec (or of fork)
  exited = 3,        ///< the job's top process ended; `value` = its status as a shell says it
  leftovers = 4,     ///< `value` processes of the job outlived its top process: SIGTERM sent
  lease_kill = 5,    ///< the lease deadline passed without renewal: everything got SIGKILL
  grace_kill = 6,    ///< the grace period ran out: what was left got SIGKILL
  finished = 7,      ///< nothing of the job is alive any more; the guard exits next
};

struct guard_message {
  std::uint32_t type = 0;
  std::int32_t value = 0;
  std::int64_t time_ns = 0;
};
static_assert(sizeof(guard_message) == 16);

}  // namespace zkcoord::cli
