// Writes to ZooKeeper that commit only while a lock is held: a multi whose first op checks our
// lock node. Whatever pauses happen in this process, the server applies the write only if our
// node still exists at that moment, atomically with the write.
#pragma once

#include <zkcoord/error.hpp>
#include <zkcoord/lock.hpp>
#include <zkcoord/ops.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio/async_result.hpp>

#include <memory>
#include <string>
#include <vector>

namespace zkcoord {

namespace detail {

/// What a fenced write checks, taken from the held_lock when the operation is started.
struct lock_fence {
  bool owned = false;     ///< false: fail with errc::not_held without sending anything
  std::string node_path;  ///< our lock node
  std::int32_t node_version = 0;
};
lock_fence fence_of(const held_lock& held);

void start_fenced_multi(const std::shared_ptr<session_impl>& session, lock_fence fence,
                        std::vector<multi_op> ops, completion<std::vector<op_result>> handler);
void start_fenced_set(const std::shared_ptr<session_impl>& session, lock_fence fence, op::set set,
                      completion<node_stat> handler);
void start_fenced_create(const std::shared_ptr<session_impl>& session, lock_fence fence,
                         op::create create, completion<created_node> handler);
void start_fenced_remove(const std::shared_ptr<session_impl>& session, lock_fence fence,
                         op::remove remove, void_completion handler);

}  // namespace detail

/// Runs `ops` as one multi whose first op is op::check{held.path(), held.node_version()}.
/// Completes with the results of `ops` only (the check's result is left out).
///
/// Errors: errc::lock_lost when the check fails (our lock node is gone: the lock was lost,
/// nothing was written); errc::not_held if `held` does not own the lock when called (nothing
/// is sent); otherwise the first failing op's error, with every op_result carrying its own.
/// A connection_loss condition means the outcome is unknown, as for any ZooKeeper write.
/// Signature: void(error_code, std::vector<op_result>).
template <class Token>
auto async_fenced_multi(session& s, const held_lock& held, std::vector<multi_op> ops,
                        Token&& token) {
  return boost::asio::async_initiate<Token, void(error_code, std::vector<op_result>)>(
      [](auto handler, std::shared_ptr<detail::session_impl> impl, detail::lock_fence fence,
         std::vector<multi_op> ops) {
        detail::start_fenced_multi(impl, std::move(fence), std::move(ops),
                                   detail::completion<std::vector<op_result>>(std::move(handler)));
      },
      token, s.impl(), detail::fence_of(held), std::move(ops));
}

/// set(path, data, version) only while `held` holds the lock.
/// Signature: void(error_code, node_stat) (the node's new Stat).
template <class Token>
auto async_fenced_set(session& s, const held_lock& held, std::string path, std::string data,
                      std::int32_t version, Token&& token) {
  return boost::asio::async_initiate<Token, void(error_code, node_stat)>(
      [](auto handler, std::shared_ptr<detail::session_impl> impl, detail::lock_fence fence,
         op::set set) {
        detail::start_fenced_set(impl, std::move(fence), std::move(set),
                                 detail::completion<node_stat>(std::move(handler)));
      },
      token, s.impl(), detail::fence_of(held), op::set{std::move(path), std::move(data), version});
}

/// create(path, data, options) only while `held` holds the lock.
/// Signature: void(error_code, created_node).
template <class Token>
auto async_fenced_create(session& s, const held_lock& held, std::string path, std::string data,
                         create_options options, Token&& token) {
  return boost::asio::async_initiate<Token, void(error_code, created_node)>(
      [](auto handler, std::shared_ptr<detail::session_impl> impl, detail::lock_fence fence,
         op::create create) {
        detail::start_fenced_create(impl, std::move(fence), std::move(create),
                                    detail::completion<created_node>(std::move(handler)));
      },
      token, s.impl(), detail::fence_of(held),
      op::create{std::move(path), std::move(data), std::move(options)});
}

/// remove(path, version) only while `held` holds the lock. Signature: void(error_code).
template <class Token>
auto async_fenced_remove(session& s, const held_lock& held, std::string path, std::int32_t version,
                         Token&& token) {
  return boost::asio::async_initiate<Token, void(error_code)>(
      [](auto handler, std::shared_ptr<detail::session_impl> impl, detail::lock_fence fence,
         op::remove remove) {
        detail::start_fenced_remove(impl, std::move(fence), std::move(remove),
                                    detail::void_completion(std::move(handler)));
      },
      token, s.impl(), detail::fence_of(held), op::remove{std::move(path), version});
}

}  // namespace zkcoord
