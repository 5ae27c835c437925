// SPDX-License-Identifier: Apache-2.0
// The double barrier's enter and leave decisions (see double_barrier_fsm.hpp).
#include "barrier/double_barrier_fsm.hpp"

#include <algorithm>

namespace zkcoord::detail::double_barrier_fsm {

std::vector<std::string> members_of(std::vector<std::string> children) {
  std::erase(children, std::string(ready_node));
  std::sort(children.begin(), children.end());
  return children;
}

enter_step decide_enter(const std::vector<std::string>& children, std::string_view ours,
                        std::uint32_t member_count) {
  const auto members = members_of(children);
  if (!std::binary_search(members.begin(), members.end(), ours))
    return enter_step::our_node_missing;
  if (std::find(children.begin(), children.end(), ready_node) != children.end())
    return enter_step::entered;
  if (members.size() >= member_count) return enter_step::create_ready;
  return enter_step::wait_for_ready;
}

leave_step decide_leave(const std::vector<std::string>& children, std::string_view ours,
                        bool ours_deleted) {
  using kind = leave_step::kind;
  const auto members = members_of(children);
  if (members.empty()) return {kind::done, {}};
  const bool ours_listed = std::binary_search(members.begin(), members.end(), ours);
  // Our node deleted by someone else (or with our session): Curator throws here, kazoo loops.
  if (!ours_listed && !ours_deleted) return {kind::our_node_missing, {}};
  if (members.size() == 1) {
    // Only the lowest is left: if it is ours, we go last; if not, we already left and the
    // lowest is about to delete its own node (Curator returns here too).
    return ours_listed ? leave_step{kind::delete_mine_done, {}} : leave_step{kind::done, {}};
  }
  if (ours_listed && members.front() == ours) return {kind::watch, members.back()};
  return {ours_listed ? kind::delete_mine_and_watch : kind::watch, members.front()};
}

}  // namespace zkcoord::detail::double_barrier_fsm
