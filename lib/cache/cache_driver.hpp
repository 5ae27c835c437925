// SPDX-License-Identifier: Apache-2.0
// The Asio driver of one tree_cache_fsm on a session: sends the machine's reads through the
// session's requests (session/session_requests.hpp) arming one-shot `watch`es, feeds back the
// replies, the watch events and the session's state changes, and serves the snapshot, the
// event queue, the listener and async_start's waiters.
//
// Watches: one data watch (also the exists watch of a missing root) and one child watch per
// path, kept as a few bits per path by the session's path_watch_hub (session/path_watch.hpp)
// under this cache's subscriber id, not as `watch` objects. A read arms its watch unless that
// watch is still registered with the C client or being armed (the C client keeps watches
// across a reconnect and sets them again on the server), so a re-walk costs no watch removal;
// a fired watch is no longer registered, and its event makes the machine read again, which
// arms it. Watches of the paths the machine no longer tracks are dropped, which removes them
// from the server (path_watch_hub::drop). On a handle's close (expiry) the hub forgets them all.
//
// Threading: every entry point takes mutex_; continuations hold weak_ptrs; nothing under the
// mutex calls back synchronously (replies and watch events are posted). The listener runs
// outside mutex_, one event at a time, under listener_mutex_ (recursive: stop from inside it).
// Lifetime: owned by the tree_cache; stopped with reads in flight that arm watches, it asks
// the session to keep it alive until their replies came, then drops those watches (removing
// them on the server: a watch set by a read in flight cannot be removed before its reply).
#pragma once

#include "cache/tree_cache_fsm.hpp"
#include "session/session_impl.hpp"

#include <zkcoord/cache.hpp>

#include <boost/asio/cancellation_signal.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace zkcoord::detail {

class cache_driver : public std::enable_shared_from_this<cache_driver> {
 public:
  cache_driver(const std::shared_ptr<session_impl>& session, std::string root,
               cache_options options);
  ~cache_driver();

  const std::string& root() const noexcept { return root_; }
  error_code start();
  void wait_initialized(void_completion handler);
  void next_event(completion<cache_event> handler);
  void set_listener(std::function<void(const cache_event&)> listener);
  void stop() noexcept;

  std::optional<cached_node> get(std::string_view path) const;
  std::vector<std::string> children(std::string_view path) const;
  std::size_t size() const;
  bool initialized() const noexcept;

 private:
  using lock_type = std::unique_lock<std::mutex>;
  enum class phase { idle, running, stopped };
  struct event_waiter {
    completion<cache_event> handler;
    handler_executor executor;
    boost::asio::cancellation_slot cancel;
  };

  /// What ending leaves to release once the mutex is released.
  struct leftovers {
    state_subscription subscription;
  };

  handler_executor executor_for() const;
  void pump(lock_type& lock);
  void send(lock_type& lock, session_impl& impl, const cache_request& request);
  void on_reply(const std::string& path, std::uint64_t epoch, bool arming, ZooWatcherType type,
                error_code ec, const std::function<void(error_code)>& feed);
  /// Forgets and removes the watches of a path no longer followed (false: an arming read of
  /// it is still in flight; its reply drops them).
  bool drop(session_impl& impl, const std::string& path);
  void on_watch(const watch_event& event);
  void on_session_state(session_state s);
  void serve_waiter(lock_type& lock);
  void end(lock_type& lock, error_code why, leftovers& left);
  void drain_listener();

  const std::weak_ptr<session_impl> session_;
  const handler_executor executor_;
  const std::string root_;
  const error_code root_problem_;
  mutable std::mutex mutex_;
  tree_cache_fsm fsm_;
  phase phase_ = phase::idle;
  error_code ended_;         ///< why waits fail once stopped (operation_aborted, errc::closed)
  std::uint32_t sub_ = 0;    ///< our subscriber id in the session's path_watch_hub (0: none yet)
  std::uint64_t epoch_ = 1;  ///< one more for each reconnect and new session
  bool lost_ = false;        ///< the session expired: its next `connected` is a new session
  std::int64_t session_id_ = 0;  ///< the session the walk was made on
  bool kept_alive_ = false;      ///< the session keeps us until the arming reads are answered
  state_subscription subscription_;
  std::deque<cache_event> queue_;
  std::optional<event_waiter> waiter_;
  std::vector<std::pair<void_completion, handler_executor>> start_waiters_;
  std::deque<cache_event> backlog_;  ///< for the listener (under mutex_)
  bool draining_ = false;
  bool has_listener_ = false;
  std::recursive_mutex listener_mutex_;
  std::function<void(const cache_event&)> listener_;  ///< under listener_mutex_
  bool silenced_ = false;                             ///< stopped (under listener_mutex_)
};

}  // namespace zkcoord::detail
