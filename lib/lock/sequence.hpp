// Parsing the sequence suffix that ZooKeeper appends to the names of sequential lock nodes.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace zkcoord::detail {

/// The markers that precede the sequence in the lock-node names we contend with: Curator and
/// zkcoord ("..-lock-0000000042") and kazoo ("..__lock__0000000042").
inline constexpr std::string_view curator_lock_marker = "lock-";
inline constexpr std::string_view kazoo_lock_marker = "__lock__";

/// The sequence number of a lock node's name, or nullopt if the name is not a lock node.
///
/// ZooKeeper formats the parent's cversion (a signed 32-bit counter) with "%010d", so after
/// 2^31 creates and deletes the suffix turns negative: "-000000005" (10 characters) or
/// "-2147483648" (11). The value is returned as the signed number the server used.
std::optional<std::int32_t> parse_lock_sequence(std::string_view node_name);

}  // namespace zkcoord::detail
