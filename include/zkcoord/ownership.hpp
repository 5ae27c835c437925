// SPDX-License-Identifier: Apache-2.0
// The ownership handle every queue recipe returns: a granted lock, a write or read lock, a
// leadership term. Its token is the czxid of our node; it reports the loss, releases, and is
// what fenced writes (fenced.hpp) check.
#pragma once

#include <zkcoord/detail/acquire_request.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/export.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/types.hpp>

#include <boost/asio/async_result.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace zkcoord {

namespace detail {
class ownership_state;
struct ownership_access;
}  // namespace detail

/// Ownership of a granted lock, write or read lock, or leadership term (below: "the lock";
/// `held_lock` and `leadership` are other names of this class). Move-only; the destructor
/// releases the lock (best effort: the delete of our node is retried in the background until
/// it succeeds or the session ends, and failures are logged). Use async_release to learn the
/// outcome.
///
/// A held lock is a lease, not a guarantee: a process paused past the session timeout can
/// still believe it holds the lock. Pass token() to whatever you protect and let it reject
/// lower tokens, or write to ZooKeeper with the fenced operations (fenced.hpp).
///
/// The accessors may be called from any thread; async operations complete on the handler's
/// associated executor (default: the session's).
class ZKCOORD_EXPORT ownership {
 public:
  /// An empty handle: owns() is false, token() is 0.
  ownership() noexcept = default;
  ~ownership();
  ownership(ownership&& other) noexcept = default;
  /// Releases the lock this handle owns (best effort, as the destructor) before taking over.
  ownership& operator=(ownership&& other) noexcept;
  ownership(const ownership&) = delete;
  ownership& operator=(const ownership&) = delete;

  /// The czxid of our lock node: larger than the token of every earlier grant of this lock
  /// path, across leader fail-over and re-creation of the lock path. Exclusive grants (lock,
  /// write lock, leadership term) fence with it; read locks share, so a reader's token orders
  /// it after every earlier writer but excludes nobody.
  fencing_token token() const noexcept;
  /// The full path of our lock node ("" for an empty handle).
  const std::string& path() const noexcept;
  /// The session our node belongs to (its ephemeralOwner).
  std::int64_t session_id() const noexcept;
  /// The data version of our lock node, the one fenced writes check (always 0: nobody writes
  /// lock nodes, but a check on it fails once the node is gone).
  std::int32_t node_version() const noexcept;
  /// Until when the lock is still held (unless someone deletes its node): the lease deadline
  /// of the session it was granted on (session::lease_deadline: proven by quorum-acknowledged
  /// replies only, so it holds when the session's server is cut off from the quorum). The
  /// first call starts the session's lease renewals, which run until the handle is released
  /// or lost; until the first renewal is answered it is what the session's latest write (the
  /// lock's own create, at the latest) proved: after a long wait in the queue that may be
  /// past; any write a quorum acknowledges proves it again (e.g. a multi with one check of
  /// "/"), as the zkcoord tool does after a grant.
  /// When it runs out unrenewed the session reports expired and the lock is lost
  /// (async_wait_lost), connected or not. time_point::min() once the lock is released or
  /// known lost, and as soon as that session has expired, even before the loss is reported.
  /// What it cannot cover: effects already sent (use the fencing token) and a machine frozen
  /// as a whole.
  std::chrono::steady_clock::time_point valid_until() const noexcept;

  /// True from the grant until the lock is released (a release has started) or known lost.
  /// After that, token(), path() and session_id() still describe the grant.
  bool owns() const noexcept;
  explicit operator bool() const noexcept { return owns(); }
  /// True while contact with ZooKeeper is lost but the session may still be alive: the lock
  /// may already belong to someone else. Cleared once our node is seen again after reconnect.
  bool in_doubt() const noexcept;

  /// Completes when the lock is lost, with the reason: errc::lock_lost (our node was deleted
  /// by someone else), zk_errc::session_expired (reported by the server or detected locally
  /// when the lease deadline passed), errc::closed (the session was closed). Completes at once
  /// if the lock is already lost; with errc::not_held after a release or on an empty handle;
  /// with operation_aborted when the handle is destroyed. Any number of waits may be
  /// pending. Cancellable (any cancellation type; operation_aborted).
  /// Signature: void(error_code).
  template <class Token = boost::asio::deferred_t>
  auto async_wait_lost(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [](auto handler, std::shared_ptr<detail::ownership_state> state) {
          start_wait_lost(std::move(state), detail::void_completion(std::move(handler)));
        },
        token, state_);
  }

  /// Deletes our lock node and completes once it is gone: success if we deleted it;
  /// errc::lock_lost if it was already gone (the lock had been lost); session_expired or
  /// closed if the session ended first (the node is gone with it); errc::not_held on an empty
  /// or already released handle. Connection loss does not fail the release: the delete is
  /// retried after reconnect until it succeeds or the session ends. Not cancellable (the
  /// delete goes on). Signature: void(error_code).
  template <class Token = boost::asio::deferred_t>
  auto async_release(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [](auto handler, std::shared_ptr<detail::ownership_state> state) {
          start_release(std::move(state), detail::void_completion(std::move(handler)));
        },
        token, state_);
  }

 private:
  friend struct detail::ownership_access;
  explicit ownership(std::shared_ptr<detail::ownership_state> state) noexcept;
  static void start_wait_lost(std::shared_ptr<detail::ownership_state> state,
                              detail::void_completion handler);
  static void start_release(std::shared_ptr<detail::ownership_state> state,
                            detail::void_completion handler);

  std::shared_ptr<detail::ownership_state> state_;
};

}  // namespace zkcoord
