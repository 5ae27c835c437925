// SPDX-License-Identifier: Apache-2.0
// Participants and leader of a leader selector's path from one listing.
#include "leader_selector/selector_listing.hpp"

#include "election/participant_list.hpp"
#include "recipe/contender_queue.hpp"

namespace zkcoord::detail {

error_code make_selector_participants(const std::vector<std::string>& children,
                                      const std::map<std::string, node_data>& read,
                                      std::vector<participant>& out) {
  return make_participants(children, read, out, node_kind::lock);
}

leader_choice choose_leader(const std::vector<std::string>& children,
                            const std::map<std::string, node_data>& read) {
  leader_choice choice;
  std::vector<participant> list;
  if (const error_code ec = make_selector_participants(children, read, list)) {
    choice.ec = ec;
    return choice;
  }
  if (!list.empty()) {
    choice.leader = std::move(list.front());
    return choice;
  }
  if (!contender_queue(children).empty()) {
    choice.relist = true;
  } else {
    choice.ec = make_error_code(zk_errc::no_node);
  }
  return choice;
}

}  // namespace zkcoord::detail
