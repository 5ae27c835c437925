// SPDX-License-Identifier: Apache-2.0
// Starting an acquire of any lock of the lock family (lock, read lock, write lock): the same
// checks and the same node data, only the grant policy differs.
#pragma once

#include "recipe/contender_slot.hpp"
#include "recipe/grant_policy.hpp"

#include <zkcoord/lock.hpp>

#include <memory>

namespace zkcoord::detail {

/// Starts one acquire on `state` with `policy`, our holder description (options.app_id) as
/// node data. A moved-from lock object (null state) fails with errc::bad_argument. `what`
/// names the lock in log lines.
void start_lock_acquire(const std::shared_ptr<contender_slot>& state, const char* what,
                        grant_policy policy, const lock_options& options,
                        const acquire_request& request, completion<ownership> handler);

}  // namespace zkcoord::detail
