// Names of lock nodes: Curator's protected layout "<lock path>/_c_<uuid>-lock-<sequence>".
#pragma once

#include <string>
#include <string_view>

namespace zkcoord::detail {

/// "_c_<uuid>-lock-": the name prefix of one acquire attempt's node. The server appends the
/// 10-digit sequence. The uuid lets us find our node again when the create's reply is lost,
/// and makes the layout Curator's, so Curator and kazoo clients contend on the same path.
std::string protected_node_prefix(std::string_view uuid);

/// protected_node_prefix() with a fresh random (version 4) uuid. Every acquire attempt gets its
/// own, so recovery never adopts the node of an earlier attempt that is being deleted.
std::string new_protected_node_prefix();

/// Whether `child_name` was created with `prefix` (a protected_node_prefix()).
bool has_protected_prefix(std::string_view child_name, std::string_view prefix);

/// The last component of a node path ("/a/b" -> "b").
std::string_view node_name_of(std::string_view path);

}  // namespace zkcoord::detail
