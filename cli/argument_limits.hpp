// SPDX-License-Identifier: Apache-2.0
// Bounds on arguments that ZooKeeper would accept but that cannot work (docs/cli.md,
// "Arguments", says why each is where it is), checked before connecting.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace zkcoord::cli {

/// The C client keeps the session timeout as an int of milliseconds and computes 2/3 of it
/// (zookeeper.c), which overflows from 2^30 ms (~298 h) on; servers clamp the timeout to their
/// maxSessionTimeout (40 s by default) anyway.
inline constexpr std::chrono::milliseconds max_session_timeout = std::chrono::hours(24);
/// --connect-timeout and --timeout: longer waits are said by leaving --timeout out.
inline constexpr std::chrono::milliseconds max_wait = std::chrono::hours(24);
/// The job runs without the lock during the grace period.
inline constexpr std::chrono::milliseconds max_grace = std::chrono::hours(1);

/// A lock path's bytes (chroot not counted): its lock node's full path goes into the
/// environment (ZKCOORD_LOCK_NODE) and into every message.
inline constexpr std::size_t max_lock_path_length = 1024;
/// A lock path's node names: each missing one costs a container node and a request.
inline constexpr std::size_t max_lock_path_depth = 32;

/// A member node's data (`register --data`, `--service-json`): every viewer of the group reads
/// it again at each change and `members` prints it on one line; a Curator ServiceInstance is a
/// few hundred bytes. ZooKeeper itself would take up to about 1 MiB.
inline constexpr std::size_t max_member_data_size = 64 * 1024;

/// `semaphore --leases N`: every acquirer lists all of PATH/leases in one reply, about 60 bytes
/// a lease node, and ZooKeeper refuses replies over jute.maxbuffer (1 MiB by default, ~17000
/// names); a larger N could never be filled anyway.
inline constexpr std::uint32_t max_semaphore_leases = 10000;

/// "/app" for "host:2181/app"; "" without a chroot (or with "/").
std::string chroot_of(std::string_view connect);

/// Why `path` (valid by path_problem) cannot be a lock path of a session on `connect`, or "":
/// too long, too deep, or in ZooKeeper's own /zookeeper tree.
std::string lock_path_limit_problem(std::string_view path, std::string_view connect);

/// Why `id` cannot be an election participant id, or "": empty (nobody could tell the leader),
/// longer than zkcoord::max_participant_id_size, or containing '/' (the library refuses ids
/// that could be mistaken for paths) or a control character (it is printed by `leader`).
std::string participant_id_problem(std::string_view id);

/// Throws usage_error naming `option` and `max` when `value` exceeds it.
void check_at_most(std::string_view option, std::chrono::milliseconds value,
                   std::chrono::milliseconds max);

}  // namespace zkcoord::cli
