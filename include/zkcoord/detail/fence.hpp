// SPDX-License-Identifier: Apache-2.0
// Internal to zkcoord: what a fenced write checks, and the library calls behind fenced.hpp's
// templates. Not part of the API; may change in any release.
#pragma once

#include <zkcoord/detail/completion.hpp>
#include <zkcoord/export.hpp>
#include <zkcoord/ops.hpp>
#include <zkcoord/types.hpp>

#include <boost/asio/any_io_executor.hpp>

#include <concepts>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace zkcoord {
class ownership;
class held_multi_lock;
}  // namespace zkcoord

namespace zkcoord::detail {

/// One node a fenced write checks: the grant's node at the version it was granted with.
struct fenced_node {
  std::string path;
  std::int32_t version = 0;
};

/// What a fenced write checks, taken from the ownership when the operation is started.
struct lock_fence {
  bool owned = false;              ///< false: fail with errc::not_held without sending anything
  std::vector<fenced_node> nodes;  ///< our nodes: one per lock held
  std::shared_ptr<session_impl> session;  ///< the one the grant was made on (null: gone)
  boost::asio::any_io_executor executor;  ///< its executor, for completions without a session
};
ZKCOORD_EXPORT lock_fence fence_of(const ownership& held);
ZKCOORD_EXPORT lock_fence fence_of(const held_multi_lock& held);

/// What the fenced writes accept: an ownership or a held_multi_lock.
template <class Held>
concept fenceable = requires(const Held& held) {
  { fence_of(held) } -> std::same_as<lock_fence>;
};

ZKCOORD_EXPORT void start_fenced_multi(lock_fence fence, std::vector<multi_op> ops,
                                       completion<std::vector<op_result>> handler);
ZKCOORD_EXPORT void start_fenced_set(lock_fence fence, op::set set, completion<node_stat> handler);
ZKCOORD_EXPORT void start_fenced_create(lock_fence fence, op::create create,
                                        completion<created_node> handler);
ZKCOORD_EXPORT void start_fenced_remove(lock_fence fence, op::remove remove,
                                        void_completion handler);

}  // namespace zkcoord::detail
