// SPDX-License-Identifier: Apache-2.0
// Building a fenced multi (our check first) and reading its outcome back, with no I/O.
#pragma once

#include <zkcoord/detail/fence.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/ops.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace zkcoord::detail {

/// `ops` behind one op::check{node.path, node.version} per node, in the order given.
std::vector<multi_op> fenced_ops(const std::vector<fenced_node>& nodes, std::vector<multi_op> ops);

/// The outcome of a fenced multi that starts with `checks` checks, as the caller sees it:
/// errc::lock_lost when one of our checks itself failed (no_node or bad_version: the node is
/// gone or changed, nothing was written); otherwise the multi's own error (connection loss
/// copied into every op's result stays connection loss: the outcome is unknown).
/// `results` lose the checks' entries.
error_code fenced_outcome(error_code multi_ec, std::vector<op_result>& results, std::size_t checks);

}  // namespace zkcoord::detail
