// SPDX-License-Identifier: Apache-2.0
// Barriers in Apache Curator's layouts, so Curator (and kazoo) processes and zkcoord ones wait
// on the same paths. `barrier` is Curator's DistributedBarrier: it holds while its node exists.
// `double_barrier` is Curator's DistributedDoubleBarrier and kazoo's DoubleBarrier: N members
// enter together and leave together. docs/barriers.md has the wire layout and the bugs avoided.
#pragma once

#include <zkcoord/detail/completion.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/export.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio/async_result.hpp>
#include <boost/asio/deferred.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace zkcoord {

namespace detail {
class double_barrier_state;
}  // namespace detail

/// A barrier at `path` (Curator's DistributedBarrier): it is set while the node exists. One
/// process sets it, any number wait on it, and removing it lets them all through. The object
/// only names the path; it keeps the session's shared state alive, not the session object.
///
/// Errors: errc::bad_path, zk_errc::session_expired, errc::closed, errc::not_connected,
/// errc::timeout (a wait with a timeout), and ZooKeeper's permanent errors (zk_errc::no_auth).
/// Operations are not cancellable; give a wait a timeout.
class ZKCOORD_EXPORT barrier {
 public:
  /// Throws nothing; an invalid path is reported by each operation (errc::bad_path).
  barrier(session& s, std::string path);

  const std::string& path() const noexcept { return path_; }

  /// Creates the barrier node (persistent, empty; missing parents as CONTAINER nodes). Setting
  /// a barrier that is already set succeeds. Signature: void(error_code).
  template <class Token = boost::asio::deferred_t>
  auto async_set_barrier(Token&& token = {}) {
    return initiate(op::set, std::nullopt, token);
  }
  /// Deletes the barrier node, releasing every waiter. Removing a barrier that is not set
  /// succeeds. Signature: void(error_code).
  template <class Token = boost::asio::deferred_t>
  auto async_remove_barrier(Token&& token = {}) {
    return initiate(op::remove, std::nullopt, token);
  }
  /// Completes once the barrier node does not exist (at once if it is not set); every
  /// wake-up reads the node again. Signature: void(error_code).
  template <detail::token_not_duration Token = boost::asio::deferred_t>
  auto async_wait_on_barrier(Token&& token = {}) {
    return initiate(op::wait, std::nullopt, token);
  }
  /// As above, with errc::timeout once `timeout` passed with the barrier still set.
  template <class Token = boost::asio::deferred_t>
  auto async_wait_on_barrier(std::chrono::steady_clock::duration timeout, Token&& token = {}) {
    return initiate(op::wait, timeout, token);
  }

 private:
  enum class op { set, remove, wait };
  template <class Token>
  auto initiate(op what, std::optional<std::chrono::steady_clock::duration> timeout, Token& token) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [](auto handler, std::shared_ptr<detail::session_impl> impl, std::string path, op w,
           std::optional<std::chrono::steady_clock::duration> t) {
          start(std::move(impl), std::move(path), w, t,
                detail::void_completion(std::move(handler)));
        },
        token, impl_, path_, what, timeout);
  }
  static void start(std::shared_ptr<detail::session_impl> impl, std::string path, op what,
                    std::optional<std::chrono::steady_clock::duration> timeout,
                    detail::void_completion handler);

  std::shared_ptr<detail::session_impl> impl_;
  std::string path_;
};

/// One member of the double barrier at `path` for `member_count` members (Curator's
/// DistributedDoubleBarrier, kazoo's DoubleBarrier; same nodes, so they mix on one path).
///
/// async_enter creates our ephemeral member node `PATH/<uuid>` and completes once
/// `member_count` members are there, i.e. once `PATH/ready` exists (whoever counts
/// member_count members first creates it). Every wake-up counts again: nothing but `ready` or
/// enough members lets enter complete (Curator GH-1290).
///
/// async_leave deletes our node and completes once the others have left: the lowest member
/// (by name) waits for the highest to go and deletes its own node last; every other member
/// deletes its own node and waits for the lowest. The last one out deletes `ready`.
///
/// Every participant of one path must use the same member_count: nothing on the server
/// records it (as in Curator and kazoo).
///
/// A timeout ends the operation (it never loops on, CURATOR-536) and deletes our node, so a
/// timed-out member is not counted by the others; so does any other failure. Everything runs
/// on the session's executor; nothing waits on the C client's threads (CURATOR-495).
///
/// Errors: errc::bad_path, errc::bad_argument (member_count 0), errc::already_held (an enter
/// or leave of this object is in progress, or enter while entered), errc::not_held (leave
/// without an enter), errc::timeout, errc::lock_lost (our member node was deleted by someone
/// else), zk_errc::session_expired, errc::closed, errc::not_connected, operation_aborted
/// (cancelled: per-operation cancellation, terminal), and ZooKeeper's permanent errors.
class ZKCOORD_EXPORT double_barrier {
 public:
  /// Throws nothing; an invalid path or a member_count of 0 is reported by async_enter. Our
  /// member name (a random UUID, Curator's form) is chosen here.
  double_barrier(session& s, std::string path, std::uint32_t member_count);
  /// Deletes our member node if it is still there (best effort, in the background).
  ~double_barrier();
  double_barrier(double_barrier&&) noexcept = default;
  /// Assigning over it is destroying it first (our node deleted if entered).
  double_barrier& operator=(double_barrier&& other) noexcept;

  const std::string& path() const noexcept;
  std::uint32_t member_count() const noexcept;
  /// Our member node's name under path() (no slash).
  const std::string& node_name() const noexcept;

  /// Signature: void(error_code).
  template <detail::token_not_duration Token = boost::asio::deferred_t>
  auto async_enter(Token&& token = {}) {
    return initiate(true, std::nullopt, token);
  }
  /// Signature: void(error_code); errc::timeout after `timeout` (our node deleted).
  template <class Token = boost::asio::deferred_t>
  auto async_enter(std::chrono::steady_clock::duration timeout, Token&& token = {}) {
    return initiate(true, timeout, token);
  }
  /// Signature: void(error_code).
  template <detail::token_not_duration Token = boost::asio::deferred_t>
  auto async_leave(Token&& token = {}) {
    return initiate(false, std::nullopt, token);
  }
  /// Signature: void(error_code); errc::timeout after `timeout` (our node deleted).
  template <class Token = boost::asio::deferred_t>
  auto async_leave(std::chrono::steady_clock::duration timeout, Token&& token = {}) {
    return initiate(false, timeout, token);
  }

 private:
  template <class Token>
  auto initiate(bool enter, std::optional<std::chrono::steady_clock::duration> timeout,
                Token& token) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [](auto handler, std::shared_ptr<detail::double_barrier_state> state, bool e,
           std::optional<std::chrono::steady_clock::duration> t) {
          start(std::move(state), e, t, detail::void_completion(std::move(handler)));
        },
        token, state_, enter, timeout);
  }
  static void start(std::shared_ptr<detail::double_barrier_state> state, bool enter,
                    std::optional<std::chrono::steady_clock::duration> timeout,
                    detail::void_completion handler);

  std::shared_ptr<detail::double_barrier_state> state_;
};

}  // namespace zkcoord
