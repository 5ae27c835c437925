// SPDX-License-Identifier: Apache-2.0
// The fenced exclusive lock: contenders queue as ephemeral-sequential children of the lock path
// (Apache Curator's InterProcessMutex layout, so Curator and kazoo clients contend correctly on
// the same path), and the winner gets a held_lock whose fencing token is the czxid of its node.
#pragma once

#include <zkcoord/detail/contender_handle.hpp>
#include <zkcoord/detail/queries.hpp>
#include <zkcoord/detail/session_access.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/export.hpp>
#include <zkcoord/ownership.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/types.hpp>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/async_result.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace zkcoord {

struct lock_options {
  /// Written into our lock node's data with the host name, pid, session id and the process's
  /// start time ("host=..;pid=..;session=0x..;start=<unix seconds>;app=..", readable in zkCli),
  /// so that people and async_contenders can tell contenders apart. Any client allowed to
  /// read the node (its ACL: session_options::default_acl) sees it: put no secret in it.
  std::string app_id;
};

namespace detail {
class contender_slot;
}  // namespace detail

/// The lock's ownership handle (the one every recipe returns; see ownership.hpp).
using held_lock = ownership;

/// One contender for the lock at `lock_path` on one session. Not re-entrant: while an acquire
/// of this object is pending, or the held_lock it produced still owns the lock, another
/// acquire completes with errc::already_held. Many lock objects (on one path or many) may be
/// pending or held at once on one session; waiting costs no thread.
///
/// Acquire creates our node and waits behind the immediate predecessor only. Whenever an
/// acquire does not end in a grant (error, busy, timeout, cancellation, destruction of this
/// object), our node is deleted: retried after reconnect until it succeeds or the session
/// ends. If the session expires while waiting, the acquire fails with session_expired; it is
/// never re-queued on the next session.
///
/// Errors of the acquire operations: errc::bad_path (lock_path invalid), errc::already_held,
/// errc::busy (try-acquire only), errc::timeout, operation_aborted (cancelled, or this object
/// destroyed), zk_errc::session_expired, errc::closed, errc::lock_lost (our node was deleted
/// by someone else while we waited), errc::not_connected, and ZooKeeper's permanent errors
/// (e.g. zk_errc::no_auth, zk_errc::no_children_for_ephemerals).
///
/// Cancellation (per-operation, any type): the acquire completes promptly with
/// operation_aborted; our node is deleted in the background.
class ZKCOORD_EXPORT lock : private detail::contender_handle<detail::contender_slot> {
 public:
  /// Missing parents of `lock_path` are created as CONTAINER nodes (the server removes them
  /// once empty). Throws nothing; an invalid path is reported by the acquire.
  lock(session& s, std::string lock_path, lock_options options = {});
  /// Destroying it or assigning over it aborts a pending acquire (operation_aborted). A held_lock
  /// it produced stays valid.
  lock(lock&&) noexcept = default;
  lock& operator=(lock&&) noexcept = default;

  using contender_handle::path;

  /// Waits until granted. Signature: void(error_code, held_lock).
  template <detail::token_not_duration Token = boost::asio::deferred_t>
  auto async_acquire(Token&& token = {}) {
    return initiate_acquire(detail::acquire_request{}, token);
  }
  /// Waits at most `timeout` (errc::timeout after it). Signature: void(error_code, held_lock).
  template <class Token = boost::asio::deferred_t>
  auto async_acquire(std::chrono::steady_clock::duration timeout, Token&& token = {}) {
    return initiate_acquire(detail::acquire_request{.try_once = false, .timeout = timeout}, token);
  }
  /// Granted only if no other contender is ahead; otherwise errc::busy (and our node is
  /// deleted). Costs the same round trips as a granted acquire.
  /// Signature: void(error_code, held_lock).
  template <class Token = boost::asio::deferred_t>
  auto async_try_acquire(Token&& token = {}) {
    return initiate_acquire(detail::acquire_request{.try_once = true, .timeout = {}}, token);
  }

 private:
  template <class Token>
  auto initiate_acquire(detail::acquire_request request, Token& token) {
    return boost::asio::async_initiate<Token, void(error_code, held_lock)>(
        [](auto handler, std::shared_ptr<detail::contender_slot> state, lock_options options,
           detail::acquire_request req) {
          start_acquire(std::move(state), options, req,
                        detail::completion<held_lock>(std::move(handler)));
        },
        token, state_, options_, request);
  }
  static void start_acquire(std::shared_ptr<detail::contender_slot> state,
                            const lock_options& options, detail::acquire_request request,
                            detail::completion<held_lock> handler);

  lock_options options_;
};

/// One child of a lock path that contends for the lock, as async_contenders reports it.
struct contender {
  std::string node;             ///< the child's name (without the lock path)
  fencing_token token;          ///< its czxid: the token it has or will get when granted
  std::int64_t session_id = 0;  ///< its ephemeralOwner
  std::string host;             ///< from the node data (zkcoord contenders)
  int pid = 0;                  ///< from the node data (zkcoord contenders)
  /// From the node data; for other clients their raw node data (Curator: the client's IP
  /// address, kazoo: its identifier).
  std::string app_id;
  /// When the holder's process started, from the node data (zkcoord contenders; the epoch,
  /// time_point{}, when not recorded).
  std::chrono::system_clock::time_point process_start{};
  /// Time since the node was created, by the server's ctime against this host's wall clock
  /// (approximate; never negative).
  std::chrono::milliseconds age{0};
  /// Whether it holds now: the first contender; on a read-write lock's path also every reader
  /// that has no writer ahead (readers share); on a semaphore's leases path every lease node.
  bool holder = false;
};

/// The contenders of the lock at `lock_path` in grant order, the holder first (empty if the
/// path does not exist). Children that are not lock nodes are left out, and so are nodes that
/// vanish while being read. Errors: errc::bad_path, session and permanent errors.
/// Signature: void(error_code, std::vector<contender>).
template <class Token = boost::asio::deferred_t>
auto async_contenders(session& s, std::string lock_path, Token&& token = {}) {
  return boost::asio::async_initiate<Token, void(error_code, std::vector<contender>)>(
      [](auto handler, std::shared_ptr<detail::session_impl> impl, std::string path) {
        detail::start_contenders(impl, std::move(path),
                                 detail::completion<std::vector<contender>>(std::move(handler)));
      },
      token, detail::session_access::impl(s), std::move(lock_path));
}

}  // namespace zkcoord
