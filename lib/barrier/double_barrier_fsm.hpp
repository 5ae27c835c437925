// SPDX-License-Identifier: Apache-2.0
// The double barrier's decisions without I/O: given the children of the barrier path and our
// member node, what to do next on enter and on leave (Curator's DistributedDoubleBarrier and
// kazoo's DoubleBarrier protocol). lib/barrier/double_barrier.cpp carries them out.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zkcoord::detail::double_barrier_fsm {

/// The node that opens the barrier: PATH/ready (Curator's READY_NODE, kazoo's "ready").
inline constexpr std::string_view ready_node = "ready";

/// The member nodes among `children`: every child but `ready`, sorted by name.
std::vector<std::string> members_of(std::vector<std::string> children);

enum class enter_step {
  entered,           ///< `ready` exists: the barrier is open
  create_ready,      ///< we count enough members: create `ready` (node_exists is fine), entered
  wait_for_ready,    ///< too few members: watch `ready` (exists-watch), then decide again
  our_node_missing,  ///< our member node is gone (deleted by someone else): fail
};

/// What enter does after listing the children. Called after every wake-up too: a wake-up
/// alone never counts as entering (Curator GH-1290).
enter_step decide_enter(const std::vector<std::string>& children, std::string_view ours,
                        std::uint32_t member_count);

struct leave_step {
  enum class kind {
    done,                   ///< no member left that we wait for
    delete_mine_done,       ///< ours is the last: delete it, and we are done
    watch,                  ///< we are the lowest: wait for `node` (the highest) to go
    delete_mine_and_watch,  ///< delete our node, then wait for `node` (the lowest) to go
    our_node_missing,       ///< our node vanished before we deleted it: fail
  };
  kind what = kind::done;
  std::string node;  ///< the member to watch (a name under the barrier path)
  friend bool operator==(const leave_step&, const leave_step&) = default;
};

/// What leave does after listing the children; `ours_deleted`: we deleted our node already
/// (then a delete_mine_and_watch means only "watch").
leave_step decide_leave(const std::vector<std::string>& children, std::string_view ours,
                        bool ours_deleted);

}  // namespace zkcoord::detail::double_barrier_fsm
