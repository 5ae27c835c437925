// SPDX-License-Identifier: Apache-2.0
// Writes to ZooKeeper that commit only while a lock (or write lock, or leadership term) is held:
// a multi whose first op checks our node. Whatever pauses happen in this process, the server
// applies the write only if our node still exists at that moment, atomically with the write.
// The write goes over the session the ownership was granted on: the handle alone says where.
#pragma once

#include <zkcoord/detail/fence.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/ops.hpp>
#include <zkcoord/ownership.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>

#include <memory>
#include <string>
#include <vector>

namespace zkcoord {

/// Runs `ops` as one multi whose first op is op::check{held.path(), held.node_version()}
/// (for a held_multi_lock, one check per lock, in the order they were acquired). Completes with
/// the results of `ops` only (the checks' results are left out). Every function of this page
/// takes an ownership (lock, write lock, term, lease) or a held_multi_lock.
///
/// Errors: errc::lock_lost when a check fails (a lock node of ours is gone: the lock was lost,
/// nothing was written); errc::not_held if `held` does not own the lock when called (nothing
/// is sent); errc::closed if the session the grant was made on is gone; otherwise the first failing
/// op's error, with every op_result carrying its own. A connection_loss condition means the outcome
/// is unknown, as for any ZooKeeper write. Signature: void(error_code, std::vector<op_result>).
template <detail::fenceable Held, class Token = boost::asio::deferred_t>
auto async_fenced_multi(const Held& held, std::vector<multi_op> ops, Token&& token = {}) {
  return boost::asio::async_initiate<Token, void(error_code, std::vector<op_result>)>(
      [](auto handler, detail::lock_fence fence, std::vector<multi_op> ops) {
        detail::start_fenced_multi(std::move(fence), std::move(ops),
                                   detail::completion<std::vector<op_result>>(std::move(handler)));
      },
      token, detail::fence_of(held), std::move(ops));
}

/// set(path, data, version) only while `held` holds the lock.
/// Signature: void(error_code, node_stat) (the node's new Stat).
template <detail::fenceable Held, class Token = boost::asio::deferred_t>
auto async_fenced_set(const Held& held, std::string path, std::string data, std::int32_t version,
                      Token&& token = {}) {
  return boost::asio::async_initiate<Token, void(error_code, node_stat)>(
      [](auto handler, detail::lock_fence fence, op::set set) {
        detail::start_fenced_set(std::move(fence), std::move(set),
                                 detail::completion<node_stat>(std::move(handler)));
      },
      token, detail::fence_of(held), op::set{std::move(path), std::move(data), version});
}

/// create(path, data, options) only while `held` holds the lock.
/// Signature: void(error_code, created_node).
template <detail::fenceable Held, class Token = boost::asio::deferred_t>
auto async_fenced_create(const Held& held, std::string path, std::string data,
                         create_options options, Token&& token = {}) {
  return boost::asio::async_initiate<Token, void(error_code, created_node)>(
      [](auto handler, detail::lock_fence fence, op::create create) {
        detail::start_fenced_create(std::move(fence), std::move(create),
                                    detail::completion<created_node>(std::move(handler)));
      },
      token, detail::fence_of(held),
      op::create{std::move(path), std::move(data), std::move(options)});
}

/// remove(path, version) only while `held` holds the lock. Signature: void(error_code).
template <detail::fenceable Held, class Token = boost::asio::deferred_t>
auto async_fenced_remove(const Held& held, std::string path, std::int32_t version,
                         Token&& token = {}) {
  return boost::asio::async_initiate<Token, void(error_code)>(
      [](auto handler, detail::lock_fence fence, op::remove remove) {
        detail::start_fenced_remove(std::move(fence), std::move(remove),
                                    detail::void_completion(std::move(handler)));
      },
      token, detail::fence_of(held), op::remove{std::move(path), version});
}

}  // namespace zkcoord
