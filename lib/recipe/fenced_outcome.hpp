// SPDX-License-Identifier: Apache-2.0
// Building a fenced multi (our check first) and reading its outcome back, with no I/O.
#pragma once

#include <zkcoord/error.hpp>
#include <zkcoord/ops.hpp>

#include <string>
#include <vector>

namespace zkcoord::detail {

/// `ops` behind op::check{lock_node, lock_node_version}.
std::vector<multi_op> fenced_ops(const std::string& lock_node, std::int32_t lock_node_version,
                                 std::vector<multi_op> ops);

/// The outcome of a fenced multi as the caller sees it: errc::lock_lost when our check itself
/// failed (no_node or bad_version: the node is gone or changed, nothing was written);
/// otherwise the multi's own error (connection loss copied into every op's result stays
/// connection loss: the outcome is unknown).
/// `results` lose the check's entry.
error_code fenced_outcome(error_code multi_ec, std::vector<op_result>& results);

}  // namespace zkcoord::detail
