// SPDX-License-Identifier: Apache-2.0
// The session's multi (ZooKeeper transaction) for internal callers such as the fenced writes,
// which hold the session's shared state rather than the session object.
#pragma once

#include "session_impl.hpp"

#include <zkcoord/ops.hpp>

#include <memory>
#include <vector>

namespace zkcoord::detail {

/// As session::async_multi: validates the ops, runs them atomically, completes on the
/// session's executor with the first failing op's error and every op's own result.
void start_multi(const std::shared_ptr<session_impl>& impl,
                 completion<std::vector<op_result>> handler, std::vector<multi_op> ops);

}  // namespace zkcoord::detail
