// SPDX-License-Identifier: Apache-2.0
// One ZooKeeper session on Boost.Asio: asynchronous CRUD, multi, one-shot watches, state
// events and the local lease deadline. Every operation has one token-generic signature;
// completions run on the handler's associated executor (default: the session's), never on
// the ZooKeeper C client's threads.
#pragma once

#include <zkcoord/detail/completion.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/export.hpp>
#include <zkcoord/metrics.hpp>
#include <zkcoord/ops.hpp>
#include <zkcoord/types.hpp>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/deferred.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace spdlog {
class logger;
}

namespace zkcoord {

/// How the session proves its lease (session::lease_deadline, an ownership's valid_until();
/// docs/session.md, "The lease"). The lease is renewed only by replies to requests a quorum
/// acknowledged (successful writes, and the session's renewals: a `multi` holding one `check`
/// of `check_path`), counted from their send time: deadline =
///   T_send + (1 - clock_drift) * (timeout - tick_time/2 - renew_every - late_ping) - margin.
struct lease_options {
  /// Renew the lease for the session's whole life. Otherwise (default) renewals run only while
  /// a lease_keeper (session::keep_lease) lives or a held handle's valid_until() has been read;
  /// a session that never asks sends nothing extra.
  bool always = false;
  /// The node each renewal checks (version -1; the session needs read access to it). Relative
  /// to the chroot: a chroot that vanished, or an ACL that refuses the read, fails every
  /// renewal and the lease ends early.
  std::string check_path = "/";
  /// ZooKeeper's tickTime (t), if known. Unknown: bounded by timeout / 2 (the server's minimum
  /// session timeout is 2 ticks unless minSessionTimeout lowers it: then give it here).
  std::optional<std::chrono::milliseconds> tick_time = {};
  /// H: how often a renewal is sent while the lease is wanted (default: timeout / 8).
  std::optional<std::chrono::milliseconds> renew_every = {};
  /// J: how late the leader's ping to a follower may come (its PING every tickTime / 2).
  std::chrono::milliseconds late_ping{100};
  /// rho: the bound on the drift between this machine's steady clock and the leader's.
  double clock_drift = 0.001;
  /// delta: subtracted at the end.
  std::chrono::milliseconds margin{50};
};

struct session_options {
  /// "host:port,host:port[/chroot]".
  std::string connect = {};
  /// Requested session timeout; the server clamps it to [2, 20] x its tickTime.
  std::chrono::milliseconds session_timeout{10000};
  /// async_connect gives up with errc::unreachable after this long (default: session_timeout).
  std::optional<std::chrono::milliseconds> connect_timeout = {};
  /// Digest credentials ("user", "password") added to the session when it starts.
  std::optional<std::pair<std::string, std::string>> digest = {};
  /// ACL for creates that do not name one, also the lock's nodes and the parents it creates
  /// (e.g. world_read_creator_all_acl(): others may read, only this principal may create,
  /// delete or write; creator ACLs need `digest`).
  acl default_acl = open_acl_unsafe();
  /// Start a new session automatically after expiry (things bound to the old one stay lost).
  bool renew_after_expiry = true;
  /// Where the session and the C client log; default: spdlog logger "zkcoord", warn and up.
  std::shared_ptr<spdlog::logger> logger = {};
  /// How the lease is proven and when it is renewed.
  lease_options lease = {};
  /// Told of the session's requests, states and lease, and of every recipe's acquires, grants
  /// and losses on this session (zkcoord/metrics.hpp; docs/metrics.md). None by default.
  std::shared_ptr<metrics_observer> metrics = {};
};

namespace detail {
struct session_access;
}  // namespace detail

/// A one-shot watch armed by async_get / async_exists / async_children. It fires at most once;
/// async_wait delivers the event (or the session's end: session_expired / closed). Destroying
/// an armed watch removes it from the client; async_wait is cancellable (operation_aborted;
/// the watch stays armed).
class ZKCOORD_EXPORT watch {
 public:
  watch() = default;
  ~watch();
  watch(watch&&) noexcept = default;
  watch& operator=(watch&&) noexcept;

  /// True from a successful arming until the event has been delivered to async_wait.
  bool armed() const noexcept;

  /// Completes with the event: void(error_code, watch_event).
  template <class Token = boost::asio::deferred_t>
  auto async_wait(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code, watch_event)>(
        [](auto handler, std::shared_ptr<detail::watch_state> state) {
          start_wait(std::move(state), detail::completion<watch_event>(std::move(handler)));
        },
        token, state_);
  }

 private:
  friend class detail::session_impl;
  static void start_wait(std::shared_ptr<detail::watch_state> state,
                         detail::completion<watch_event> handler);
  std::shared_ptr<detail::watch_state> state_;
};

/// Removes its state listener when destroyed.
class ZKCOORD_EXPORT state_subscription {
 public:
  state_subscription() = default;
  ~state_subscription() { reset(); }
  state_subscription(state_subscription&& o) noexcept : impl_(std::move(o.impl_)), id_(o.id_) {
    o.id_ = 0;
  }
  state_subscription& operator=(state_subscription&& o) noexcept;
  void reset() noexcept;

 private:
  friend class detail::session_impl;
  state_subscription(std::weak_ptr<detail::session_impl> impl, std::uint64_t id)
      : impl_(std::move(impl)), id_(id) {}
  std::weak_ptr<detail::session_impl> impl_;
  std::uint64_t id_ = 0;
};

/// Keeps the session renewing its lease while it lives (session::keep_lease). Move-only;
/// destroying it (or reset()) ends its interest. Any number may live at once.
class ZKCOORD_EXPORT lease_keeper {
 public:
  lease_keeper() = default;
  ~lease_keeper() { reset(); }
  lease_keeper(lease_keeper&& o) noexcept : impl_(std::move(o.impl_)) { o.impl_.reset(); }
  lease_keeper& operator=(lease_keeper&& o) noexcept;
  /// Ends this keeper's interest (idempotent).
  void reset() noexcept;
  /// True while it keeps a lease wanted.
  explicit operator bool() const noexcept { return !impl_.expired(); }

 private:
  friend class detail::session_impl;
  explicit lease_keeper(std::weak_ptr<detail::session_impl> impl) noexcept
      : impl_(std::move(impl)) {}
  std::weak_ptr<detail::session_impl> impl_;
};

class ZKCOORD_EXPORT session {
 public:
  using executor_type = boost::asio::any_io_executor;

  /// Does not connect: call async_connect. Throws nothing.
  session(executor_type ex, session_options options);
  /// Closes the session (its ephemeral nodes go at once); pending operations complete with
  /// errc::closed.
  ~session();
  session(session&&) noexcept = default;
  session& operator=(session&&) noexcept = default;

  executor_type get_executor() const noexcept;

  /// Starts the session; completes once connected: void(error_code). Errors:
  /// errc::bad_connect_string, errc::unreachable (nothing answered within connect_timeout).
  template <class Token = boost::asio::deferred_t>
  auto async_connect(Token&& token = {}) {
    return initiate<void(error_code)>(&detail_start_connect, token);
  }

  /// Closes the session now (idempotent); pending operations complete with errc::closed.
  void close();

  template <class Token = boost::asio::deferred_t>
  auto async_create(std::string path, std::string data, create_options options,
                    Token&& token = {}) {
    return initiate<void(error_code, created_node)>(&detail_start_create, token, std::move(path),
                                                    std::move(data), std::move(options));
  }
  template <class Token = boost::asio::deferred_t>
  auto async_get(std::string path, Token&& token = {}) {
    return initiate<void(error_code, node_data)>(&detail_start_get, token, std::move(path),
                                                 static_cast<watch*>(nullptr));
  }
  /// Reads the node and arms `w` for its next data change or deletion.
  template <class Token = boost::asio::deferred_t>
  auto async_get(std::string path, watch& w, Token&& token = {}) {
    return initiate<void(error_code, node_data)>(&detail_start_get, token, std::move(path), &w);
  }
  template <class Token = boost::asio::deferred_t>
  auto async_set(std::string path, std::string data, std::int32_t version, Token&& token = {}) {
    return initiate<void(error_code, node_stat)>(&detail_start_set, token, std::move(path),
                                                 std::move(data), version);
  }
  /// Completes with the Stat, or nullopt when the node does not exist (not an error).
  template <class Token = boost::asio::deferred_t>
  auto async_exists(std::string path, Token&& token = {}) {
    return initiate<void(error_code, std::optional<node_stat>)>(
        &detail_start_exists, token, std::move(path), static_cast<watch*>(nullptr));
  }
  /// As above, and arms `w` for the node's creation, data change or deletion.
  template <class Token = boost::asio::deferred_t>
  auto async_exists(std::string path, watch& w, Token&& token = {}) {
    return initiate<void(error_code, std::optional<node_stat>)>(&detail_start_exists, token,
                                                                std::move(path), &w);
  }
  /// Children names and the parent's Stat (one request either way).
  template <class Token = boost::asio::deferred_t>
  auto async_children(std::string path, Token&& token = {}) {
    return initiate<void(error_code, child_list)>(&detail_start_children, token, std::move(path),
                                                  static_cast<watch*>(nullptr));
  }
  /// As above, and arms `w` for the next change of the children or the node's deletion.
  template <class Token = boost::asio::deferred_t>
  auto async_children(std::string path, watch& w, Token&& token = {}) {
    return initiate<void(error_code, child_list)>(&detail_start_children, token, std::move(path),
                                                  &w);
  }
  template <class Token = boost::asio::deferred_t>
  auto async_remove(std::string path, std::int32_t version, Token&& token = {}) {
    return initiate<void(error_code)>(&detail_start_remove, token, std::move(path), version);
  }
  /// Runs the ops atomically. On failure ec is the first failing op's error and every
  /// op_result carries its own outcome.
  template <class Token = boost::asio::deferred_t>
  auto async_multi(std::vector<multi_op> ops, Token&& token = {}) {
    return initiate<void(error_code, std::vector<op_result>)>(&detail_start_multi, token,
                                                              std::move(ops));
  }
  /// Makes the connected server catch up with the leader for `path`.
  template <class Token = boost::asio::deferred_t>
  auto async_sync(std::string path, Token&& token = {}) {
    return initiate<void(error_code)>(&detail_start_sync, token, std::move(path));
  }

  /// Completes when the session reaches `state` (at once if it is there): void(error_code).
  /// Fails with errc::closed if the session is closed first (unless waiting for closed).
  /// Cancellable (operation_aborted).
  template <class Token = boost::asio::deferred_t>
  auto async_wait_state(session_state state, Token&& token = {}) {
    return initiate<void(error_code)>(&detail_start_wait_state, token, state);
  }

  /// Calls `listener` on the session's executor for every state change from now on. Once the
  /// subscription has ended (destroyed or reset), the listener is never called again: ending
  /// it waits for a call in progress on another thread, so do not end it while holding a lock
  /// that the listener takes (ending it from inside the listener is fine).
  state_subscription subscribe(std::function<void(session_state)> listener);

  session_state state() const noexcept;
  /// Current session id (0 before the first connection).
  std::int64_t session_id() const noexcept;
  /// Negotiated session timeout (the requested one before the first connection).
  std::chrono::milliseconds negotiated_timeout() const noexcept;
  /// Until when the session is certainly alive on the leader (steady clock): the send time of
  /// the latest request that a quorum acknowledged (a successful write or a lease renewal;
  /// a new handle: the instant before it started) plus the lease length of lease_options.
  /// Pings, reads, `sync` and reconnects never extend it: a follower cut off from the quorum
  /// answers them for up to syncLimit x tickTime after the leader stopped counting the session.
  /// Without renewals (see keep_lease) it only moves with writes, so it may lie in the past.
  /// While it is wanted and runs out without a renewal, the session reports `expired` itself
  /// (and closes its handle), connected or not. Assumes the clocks drift no more than
  /// lease_options::clock_drift and that this machine is not frozen as a whole (a frozen
  /// process is not a frozen clock; a frozen machine is). time_point::min() from an expiry
  /// until a new session's handle starts.
  std::chrono::steady_clock::time_point lease_deadline() const noexcept;
  /// Renews the lease (lease_options) while the returned keeper lives: a renewal is sent every
  /// renew_every, on this session and on the sessions that follow an expiry.
  lease_keeper keep_lease();
  /// The requests sent so far, by kind (since the session object was made, over every
  /// handle it had).
  request_counts sent_requests() const noexcept;
  /// "host:port" of the server the session is connected to ("" when not connected).
  std::string connected_server() const;
  /// The session's logger.
  const std::shared_ptr<spdlog::logger>& logger() const noexcept;

 private:
  friend struct detail::session_access;

  template <class Signature, class Token, class... Args>
  auto initiate(void (*start)(const std::shared_ptr<detail::session_impl>&,
                              boost::asio::any_completion_handler<Signature>, Args...),
                Token& token, Args... args) {
    return boost::asio::async_initiate<Token, Signature>(
        [start, impl = impl_](auto handler, Args... a) {
          start(impl, boost::asio::any_completion_handler<Signature>(std::move(handler)),
                std::move(a)...);
        },
        token, std::move(args)...);
  }

  using impl_ptr = const std::shared_ptr<detail::session_impl>&;
  static void detail_start_connect(impl_ptr, detail::void_completion);
  static void detail_start_create(impl_ptr, detail::completion<created_node>, std::string,
                                  std::string, create_options);
  static void detail_start_get(impl_ptr, detail::completion<node_data>, std::string, watch*);
  static void detail_start_set(impl_ptr, detail::completion<node_stat>, std::string, std::string,
                               std::int32_t);
  static void detail_start_exists(impl_ptr, detail::completion<std::optional<node_stat>>,
                                  std::string, watch*);
  static void detail_start_children(impl_ptr, detail::completion<child_list>, std::string, watch*);
  static void detail_start_remove(impl_ptr, detail::void_completion, std::string, std::int32_t);
  static void detail_start_multi(impl_ptr, detail::completion<std::vector<op_result>>,
                                 std::vector<multi_op>);
  static void detail_start_sync(impl_ptr, detail::void_completion, std::string);
  static void detail_start_wait_state(impl_ptr, detail::void_completion, session_state);

  std::shared_ptr<detail::session_impl> impl_;
};

}  // namespace zkcoord
