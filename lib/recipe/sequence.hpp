// SPDX-License-Identifier: Apache-2.0
// Parsing the sequence suffix that ZooKeeper appends to the names of sequential recipe nodes,
// and the marker before it, which says which recipe the node belongs to.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace zkcoord::detail {

/// The markers that precede the sequence in the node names of the recipes we share paths
/// with: Curator's mutex and zkcoord's lock ("..-lock-0000000042"), kazoo's lock
/// ("..__lock__0000000042"), Curator's LeaderLatch ("..-latch-.."), its read-write lock
/// ("..-__READ__..", "..-__WRIT__..") and its semaphore leases ("..-lease-..").
inline constexpr std::string_view curator_lock_marker = "lock-";
inline constexpr std::string_view kazoo_lock_marker = "__lock__";
inline constexpr std::string_view latch_marker = "latch-";
inline constexpr std::string_view read_marker = "__READ__";
inline constexpr std::string_view write_marker = "__WRIT__";
inline constexpr std::string_view lease_marker = "lease-";

/// The recipe a sequential node belongs to, from the marker just before its sequence.
enum class node_kind : std::uint8_t {
  lock,   ///< an exclusive lock's contender (Curator/zkcoord "lock-", kazoo "__lock__")
  latch,  ///< a leader-election participant (Curator LeaderLatch "latch-")
  read,   ///< a read-write lock's reader ("__READ__")
  write,  ///< a read-write lock's writer ("__WRIT__")
  lease,  ///< a semaphore lease ("lease-")
};
inline constexpr int node_kind_count = 5;

/// The marker zkcoord writes for nodes of `kind` (for lock: Curator's "lock-").
std::string_view marker_of(node_kind kind) noexcept;

struct sequenced_name {
  node_kind kind;
  std::int32_t sequence;
  friend bool operator==(const sequenced_name&, const sequenced_name&) = default;
};

/// The kind and sequence number of a recipe node's name, or nullopt if the name does not end in
/// a known marker followed by a sequence.
///
/// ZooKeeper formats the parent's cversion (a signed 32-bit counter) with "%010d", so after
/// 2^31 creates and deletes the suffix turns negative: "-000000005" (10 characters) or
/// "-2147483648" (11). The value is returned as the signed number the server used. The
/// markers cannot be confused: each ends where the suffix begins, and none is the end of
/// another ("__lock__" ends in "lock__", never in "lock-").
std::optional<sequenced_name> parse_sequenced_name(std::string_view node_name);

/// The sequence of a lock node's name (kind lock), or nullopt for any other name.
std::optional<std::int32_t> parse_lock_sequence(std::string_view node_name);

}  // namespace zkcoord::detail
