// SPDX-License-Identifier: Apache-2.0
// Names of recipe nodes: Curator's protected layout "<path>/_c_<uuid>-<marker><sequence>".
#pragma once

#include "recipe/sequence.hpp"

#include <string>
#include <string_view>

namespace zkcoord::detail {

/// "_c_<uuid>-lock-" (or "-latch-", "-__READ__", ... by `kind`): the name prefix of one
/// acquire attempt's node. The server appends the 10-digit sequence. The uuid lets us find our
/// node again when the create's reply is lost, and makes the layout Curator's, so Curator (and
/// for locks kazoo) clients contend on the same path.
std::string protected_node_prefix(std::string_view uuid, node_kind kind = node_kind::lock);

/// protected_node_prefix() with a fresh random (version 4) uuid. Every acquire attempt gets its
/// own, so recovery never adopts the node of an earlier attempt that is being deleted.
std::string new_protected_node_prefix(node_kind kind = node_kind::lock);

/// Whether `child_name` was created with `prefix` (a protected_node_prefix()).
bool has_protected_prefix(std::string_view child_name, std::string_view prefix);

/// The last component of a node path ("/a/b" -> "b").
std::string_view node_name_of(std::string_view path);

}  // namespace zkcoord::detail
