// SPDX-License-Identifier: Apache-2.0
// Reading a recipe path as observers see it: its children, then the data and Stat of every
// recipe node among them, the reads pipelined behind one another on the session (one round
// trip for the listing, one for all the reads). Shared by the lock's async_contenders and the
// election's participant listings.
#pragma once

#include "session/session_impl.hpp"

#include <zkcoord/ops.hpp>
#include <zkcoord/session.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace zkcoord::detail {

struct node_listing {
  bool path_exists = false;               ///< false: the path was missing (children empty)
  std::vector<std::string> children;      ///< every child name, as listed
  std::map<std::string, node_data> read;  ///< the recipe nodes read (vanished ones are absent)
};

/// Lists `path` (arming `children_watch` for the next change of its children, if given, when the
/// path exists) and reads every child that is a sequential recipe node. A node that vanishes
/// before it is read is left out; any other read error fails the call. A missing path is not an
/// error (path_exists false). Errors: session and permanent errors, errc::closed. The path is
/// not validated here.
void list_recipe_nodes(const std::shared_ptr<session_impl>& session, const std::string& path,
                       watch* children_watch, completion<node_listing> handler);

}  // namespace zkcoord::detail
