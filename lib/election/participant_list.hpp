// SPDX-License-Identifier: Apache-2.0
// Turning an election path's listing into the `participant` list of async_participants and
// election_observer, with no I/O.
#pragma once

#include "recipe/sequence.hpp"

#include <zkcoord/election.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/ops.hpp>

#include <map>
#include <string>
#include <vector>

namespace zkcoord::detail {

/// The participants among `children` in sequence order, the first marked leader (Curator's
/// getLeader: the first latch node that still exists). Children without an entry in `read`
/// (they vanished before their data was read) are left out. errc::recipe_mismatch (and `out`
/// empty) if any child is another recipe's node: nobody can be elected on such a path.
/// `kind`: the participants' node kind (latch: LeaderLatch; lock: LeaderSelector, whose
/// participants are the nodes of an exclusive lock).
error_code make_participants(const std::vector<std::string>& children,
                             const std::map<std::string, node_data>& read,
                             std::vector<participant>& out, node_kind kind = node_kind::latch);

}  // namespace zkcoord::detail
