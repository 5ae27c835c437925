// The fenced exclusive lock: contenders queue as ephemeral-sequential children of the lock path
// (Apache Curator's InterProcessMutex layout, so Curator and kazoo clients contend correctly on
// the same path), and the winner gets a held_lock whose fencing token is the czxid of its node.
#pragma once

#include <zkcoord/error.hpp>
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
class lock_state;
class held_lock_state;
struct lock_access;

/// How one acquire call wants to wait.
struct acquire_request {
  bool try_once = false;  ///< errc::busy instead of waiting behind another contender
  std::optional<std::chrono::steady_clock::duration> timeout;  ///< errc::timeout after this
};
}  // namespace detail

/// Ownership of a granted lock. Move-only; the destructor releases the lock (best effort: the
/// delete of our node is retried in the background until it succeeds or the session ends,
/// and failures are logged). Use async_release to learn the outcome.
///
/// A held lock is a lease, not a guarantee: a process paused past the session timeout can
/// still believe it holds the lock. Pass token() to whatever you protect and let it reject
/// lower tokens, or write to ZooKeeper with the fenced operations (fenced.hpp).
///
/// The accessors may be called from any thread; async operations complete on the handler's
/// associated executor (default: the session's).
class held_lock {
 public:
  /// An empty handle: owns() is false, token() is 0.
  held_lock() noexcept = default;
  ~held_lock();
  held_lock(held_lock&& other) noexcept = default;
  /// Releases the lock this handle owns (best effort, as the destructor) before taking over.
  held_lock& operator=(held_lock&& other) noexcept;
  held_lock(const held_lock&) = delete;
  held_lock& operator=(const held_lock&) = delete;

  /// The czxid of our lock node: larger than the token of every earlier grant of this lock
  /// path, across leader fail-over and re-creation of the lock path.
  fencing_token token() const noexcept;
  /// The full path of our lock node ("" for an empty handle).
  const std::string& path() const noexcept;
  /// The session our node belongs to (its ephemeralOwner).
  std::int64_t session_id() const noexcept;
  /// The data version of our lock node, the one fenced writes check (always 0: nobody writes
  /// lock nodes, but a check on it fails once the node is gone).
  std::int32_t node_version() const noexcept;
  /// Until when the lock is still held (unless someone deletes its node): the lease deadline of
  /// the session it was granted on (session::lease_deadline, steady clock; not a bound when
  /// the session's server is cut off from the quorum: see there, and stop when in_doubt()).
  /// time_point::min() once the lock is released or known lost, and as soon as that session
  /// has expired, even before the loss is reported and also once a new session is up.
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
  template <class Token>
  auto async_wait_lost(Token&& token) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [](auto handler, std::shared_ptr<detail::held_lock_state> state) {
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
  template <class Token>
  auto async_release(Token&& token) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [](auto handler, std::shared_ptr<detail::held_lock_state> state) {
          start_release(std::move(state), detail::void_completion(std::move(handler)));
        },
        token, state_);
  }

 private:
  friend struct detail::lock_access;
  explicit held_lock(std::shared_ptr<detail::held_lock_state> state) noexcept;
  static void start_wait_lost(std::shared_ptr<detail::held_lock_state> state,
                              detail::void_completion handler);
  static void start_release(std::shared_ptr<detail::held_lock_state> state,
                            detail::void_completion handler);

  std::shared_ptr<detail::held_lock_state> state_;
};

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
class lock {
 public:
  /// Missing parents of `lock_path` are created as CONTAINER nodes (the server removes them
  /// once empty). Throws nothing; an invalid path is reported by the acquire.
  lock(session& s, std::string lock_path, lock_options options = {});
  /// Aborts a pending acquire (operation_aborted). A held_lock it produced stays valid.
  ~lock();
  lock(lock&&) noexcept;
  lock& operator=(lock&&) noexcept;
  lock(const lock&) = delete;
  lock& operator=(const lock&) = delete;

  const std::string& path() const noexcept;

  /// Waits until granted. Signature: void(error_code, held_lock).
  template <class Token>
  auto async_acquire(Token&& token) {
    return initiate_acquire(detail::acquire_request{}, token);
  }
  /// Waits at most `timeout` (errc::timeout after it). Signature: void(error_code, held_lock).
  template <class Token>
  auto async_acquire(std::chrono::steady_clock::duration timeout, Token&& token) {
    return initiate_acquire(detail::acquire_request{.try_once = false, .timeout = timeout}, token);
  }
  /// Granted only if no other contender is ahead; otherwise errc::busy (and our node is
  /// deleted). Costs the same round trips as a granted acquire.
  /// Signature: void(error_code, held_lock).
  template <class Token>
  auto async_try_acquire(Token&& token) {
    return initiate_acquire(detail::acquire_request{.try_once = true, .timeout = {}}, token);
  }

 private:
  template <class Token>
  auto initiate_acquire(detail::acquire_request request, Token& token) {
    return boost::asio::async_initiate<Token, void(error_code, held_lock)>(
        [](auto handler, std::shared_ptr<detail::lock_state> state, detail::acquire_request req) {
          start_acquire(std::move(state), req, detail::completion<held_lock>(std::move(handler)));
        },
        token, state_, request);
  }
  static void start_acquire(std::shared_ptr<detail::lock_state> state,
                            detail::acquire_request request, detail::completion<held_lock> handler);

  std::shared_ptr<detail::lock_state> state_;
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
  bool holder = false;  ///< the first contender: it holds the lock
};

namespace detail {
void start_contenders(const std::shared_ptr<session_impl>& session, std::string lock_path,
                      completion<std::vector<contender>> handler);
}  // namespace detail

/// The contenders of the lock at `lock_path` in grant order, the holder first (empty if the
/// path does not exist). Children that are not lock nodes are left out, and so are nodes that
/// vanish while being read. Errors: errc::bad_path, session and permanent errors.
/// Signature: void(error_code, std::vector<contender>).
template <class Token>
auto async_contenders(session& s, std::string lock_path, Token&& token) {
  return boost::asio::async_initiate<Token, void(error_code, std::vector<contender>)>(
      [](auto handler, std::shared_ptr<detail::session_impl> impl, std::string path) {
        detail::start_contenders(impl, std::move(path),
                                 detail::completion<std::vector<contender>>(std::move(handler)));
      },
      token, s.impl(), std::move(lock_path));
}

}  // namespace zkcoord
