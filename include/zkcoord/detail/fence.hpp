// SPDX-License-Identifier: Apache-2.0
// Internal to zkcoord: what a fenced write checks, and the library calls behind fenced.hpp's
// templates. Not part of the API; may change in any release.
#pragma once

#include <zkcoord/detail/completion.hpp>
#include <zkcoord/export.hpp>
#include <zkcoord/ops.hpp>
#include <zkcoord/types.hpp>

#include <boost/asio/any_io_executor.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace zkcoord {
class ownership;
}  // namespace zkcoord

namespace zkcoord::detail {

/// What a fenced write checks, taken from the ownership when the operation is started.
struct lock_fence {
  bool owned = false;     ///< false: fail with errc::not_held without sending anything
  std::string node_path;  ///< our node
  std::int32_t node_version = 0;
  std::shared_ptr<session_impl> session;  ///< the one the grant was made on (null: gone)
  boost::asio::any_io_executor executor;  ///< its executor, for completions without a session
};
ZKCOORD_EXPORT lock_fence fence_of(const ownership& held);

ZKCOORD_EXPORT void start_fenced_multi(lock_fence fence, std::vector<multi_op> ops,
                                       completion<std::vector<op_result>> handler);
ZKCOORD_EXPORT void start_fenced_set(lock_fence fence, op::set set, completion<node_stat> handler);
ZKCOORD_EXPORT void start_fenced_create(lock_fence fence, op::create create,
                                        completion<created_node> handler);
ZKCOORD_EXPORT void start_fenced_remove(lock_fence fence, op::remove remove,
                                        void_completion handler);

}  // namespace zkcoord::detail
