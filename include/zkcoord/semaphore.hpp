// SPDX-License-Identifier: Apache-2.0
// The counting semaphore: at most N holders of a path at once, in Apache Curator's
// InterProcessSemaphoreV2 layout, so Curator semaphores and zkcoord semaphores with the same N
// share the leases of one path. A lease is an ephemeral-sequential node under PATH/leases
// ("_c_<uuid>-lease-<seq>"); acquirers take an internal exclusive lock under PATH/locks
// (Curator's InterProcessMutex layout) while they create their lease and, if all N are taken,
// wait for one to be returned. docs/semaphore.md says what a lease's token can and cannot
// fence, and when not to use a semaphore.
#pragma once

#include <zkcoord/detail/contender_handle.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/export.hpp>
#include <zkcoord/lock.hpp>
#include <zkcoord/ownership.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio/async_result.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

namespace zkcoord {

namespace detail {
class semaphore_state;
}  // namespace detail

/// One lease of a semaphore (the one ownership handle every recipe returns; see
/// ownership.hpp). token() is the czxid of our lease node: unique and increasing, but up to N
/// leases are held at once, so it orders leases without excluding anyone. Fencing a write
/// with it (fenced.hpp) proves only that this lease is still held. async_wait_lost reports
/// the lease's end (errc::lock_lost: our node was deleted; session_expired; closed);
/// async_release returns the lease.
using lease = ownership;

/// One acquirer of the semaphore at `path`, with `max_leases` leases, on one session. Not
/// re-entrant: while an acquire of this object is pending, or the lease it produced is still
/// held, another acquire completes with errc::already_held (for two leases, use two objects).
///
/// Every participant of one path must use the same `max_leases`: nothing on the server
/// records it (as in Curator), and a participant with a larger N admits more holders.
///
/// An acquire takes the internal lock (queued behind the acquirers ahead of it, each watching
/// its predecessor), creates its lease, and returns the internal lock as soon as the lease is
/// granted, i.e. once PATH/leases has at most `max_leases` children, ours included. Only the
/// internal lock's holder waits for a lease to be returned (with a child watch), so
/// acquirers are served in order and a returned lease wakes one waiter. Every child of
/// PATH/leases counts as a held lease, whoever wrote it.
///
/// Whenever an acquire does not end in a lease (error, busy, timeout, cancellation,
/// destruction of this object), our lease node and our internal-lock node are deleted:
/// retried after reconnect until it succeeds or the session ends. If the session expires
/// while waiting, the acquire fails with session_expired; it is never carried over.
///
/// Errors of the acquire operations: errc::bad_argument (max_leases is 0), errc::bad_path,
/// errc::already_held, errc::busy (try-acquire only), errc::timeout, operation_aborted
/// (cancelled, or this object destroyed), zk_errc::session_expired, errc::closed,
/// errc::lock_lost (our lease node was deleted by someone else while we waited),
/// errc::recipe_mismatch (PATH/locks or PATH/leases holds nodes of another recipe),
/// errc::not_connected, and ZooKeeper's permanent errors (e.g. zk_errc::no_auth).
///
/// Cancellation (per-operation, any type): the acquire completes promptly with
/// operation_aborted; our nodes are deleted in the background.
class ZKCOORD_EXPORT semaphore : private detail::contender_handle<detail::semaphore_state> {
 public:
  /// Missing parents are created as CONTAINER nodes. Throws nothing; an invalid path or a
  /// max_leases of 0 is reported by the acquire.
  semaphore(session& s, std::string path, std::uint32_t max_leases, lock_options options = {});
  /// Destroying it or assigning over it aborts a pending acquire (operation_aborted). A lease it
  /// produced stays valid.
  semaphore(semaphore&&) noexcept = default;
  semaphore& operator=(semaphore&&) noexcept = default;

  using contender_handle::path;
  std::uint32_t max_leases() const noexcept;

  /// Waits until a lease is ours. Signature: void(error_code, lease).
  template <detail::token_not_duration Token = boost::asio::deferred_t>
  auto async_acquire(Token&& token = {}) {
    return initiate_acquire(detail::acquire_request{}, token);
  }
  /// Waits at most `timeout` in all, internal lock included (errc::timeout after it).
  /// Signature: void(error_code, lease).
  template <class Token = boost::asio::deferred_t>
  auto async_acquire(std::chrono::steady_clock::duration timeout, Token&& token = {}) {
    return initiate_acquire(detail::acquire_request{.try_once = false, .timeout = timeout}, token);
  }
  /// A lease only if one is free now and no other acquire of the path is in progress;
  /// otherwise errc::busy (our nodes deleted). Signature: void(error_code, lease).
  template <class Token = boost::asio::deferred_t>
  auto async_try_acquire(Token&& token = {}) {
    return initiate_acquire(detail::acquire_request{.try_once = true, .timeout = {}}, token);
  }

 private:
  template <class Token>
  auto initiate_acquire(detail::acquire_request request, Token& token) {
    return boost::asio::async_initiate<Token, void(error_code, lease)>(
        [](auto handler, std::shared_ptr<detail::semaphore_state> state,
           detail::acquire_request req) {
          start_acquire(std::move(state), req, detail::completion<lease>(std::move(handler)));
        },
        token, state_, request);
  }
  static void start_acquire(std::shared_ptr<detail::semaphore_state> state,
                            detail::acquire_request request, detail::completion<lease> handler);
};

}  // namespace zkcoord
