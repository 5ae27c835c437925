// SPDX-License-Identifier: Apache-2.0
// The vocabulary both sans-I/O machines share (contender_fsm: recipe/contender_fsm_io.hpp;
// member_fsm: membership/member_fsm_io.hpp): the events and actions that mean the same to both,
// named again in each machine's own namespaces. Each machine's request base (the tag that comes
// back in the result, after_reconnect, and for the member its pinned session) stays its own.
#pragma once

#include <zkcoord/error.hpp>
#include <zkcoord/types.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace zkcoord::detail::machine_io {

// ---- actions ------------------------------------------------------------------------------

/// Create `path` and its missing ancestors as CONTAINER nodes (node_exists counts as success)
/// -> parents_created. `Request` is the machine's request base.
template <class Request>
struct create_parents : Request {
  std::string path;
  friend bool operator==(const create_parents&, const create_parents&) = default;
};

/// Nothing more will be asked for; later events are ignored.
struct finished {
  friend bool operator==(const finished&, const finished&) = default;
};

// ---- events -------------------------------------------------------------------------------

/// Result of create_parents.
struct parents_created {
  std::uint64_t tag = 0;
  error_code ec;
};
/// Result of a read of one node: stat is nullopt when the node does not exist.
struct node_read {
  std::uint64_t tag = 0;
  error_code ec;
  std::optional<node_stat> stat;
};
/// Result of delete_node.
struct node_deleted {
  std::uint64_t tag = 0;
  error_code ec;
};
/// The caller gave up: operation_aborted (cancel) or, for an acquire, errc::timeout.
struct abort_requested {
  error_code reason;
};

}  // namespace zkcoord::detail::machine_io
