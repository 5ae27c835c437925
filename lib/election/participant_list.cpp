// SPDX-License-Identifier: Apache-2.0
// Participant descriptions: order from the sequence, id from the node data, term from the Stat.
#include "election/participant_list.hpp"

#include "recipe/contender_queue.hpp"

namespace zkcoord::detail {

error_code make_participants(const std::vector<std::string>& children,
                             const std::map<std::string, node_data>& read,
                             std::vector<participant>& out, node_kind kind) {
  out.clear();
  const contender_queue queue(children);
  for (const auto& node : queue.nodes()) {
    if (node.kind != kind) {
      out.clear();
      return make_error_code(errc::recipe_mismatch);
    }
    const auto it = read.find(node.name);
    if (it == read.end()) continue;
    out.push_back(participant{.id = it->second.data,
                              .node = node.name,
                              .term = fencing_token(it->second.stat.czxid),
                              .session_id = it->second.stat.ephemeral_owner,
                              .leader = out.empty()});
  }
  return {};
}

}  // namespace zkcoord::detail
