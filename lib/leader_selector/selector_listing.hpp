// SPDX-License-Identifier: Apache-2.0
// The leader selector's lookups without I/O: the participants and the leader from one listing of
// the path (its children, then the data of each lock node, read in queue order).
#pragma once

#include <zkcoord/election.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/ops.hpp>

#include <map>
#include <string>
#include <vector>

namespace zkcoord::detail {

/// The participants among `children` (lock nodes, in queue order, the first that was read
/// marked leader); errc::recipe_mismatch if another recipe's nodes are there.
error_code make_selector_participants(const std::vector<std::string>& children,
                                      const std::map<std::string, node_data>& read,
                                      std::vector<participant>& out);

/// What one listing says about the leader.
struct leader_choice {
  error_code ec;        ///< recipe_mismatch; zk_errc::no_node when nobody participates
  bool relist = false;  ///< every listed node vanished before it was read: list again
  participant leader;   ///< when neither: the first listed node that was read
};

/// Curator's getLeader, without CURATOR-358: a node that vanished between the listing and its
/// read is skipped (the next one, which was behind it, leads now), never reported with empty
/// data; if all of them vanished, the caller lists again rather than answer "no leader".
leader_choice choose_leader(const std::vector<std::string>& children,
                            const std::map<std::string, node_data>& read);

}  // namespace zkcoord::detail
