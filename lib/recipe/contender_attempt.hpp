// SPDX-License-Identifier: Apache-2.0
// The Asio driver of one contender_fsm: one acquire attempt and, once granted, the held lock. It
// performs the machine's actions on the session (requests pinned to the attempt's session,
// one watch, timers) and feeds the results, watch and session events back to it.
//
// Threading: every entry point takes `mutex_`; the machine is resumed and its actions are
// performed under it. Nothing done under it calls back synchronously (requests, watch removal
// and user completions are all posted), so the lock is never re-entered.
//
// Lifetime: the session keeps the attempt alive (session_impl::keep_alive) from start() until
// the machine has finished, so the clean-up (guaranteed delete) outlives the lock object and
// the ownership handle, but never the session: once the session object is gone (its ephemeral
// nodes with it) nothing is left to clean up, even if the last completions were never run
// because the io_context stopped. Continuations and listeners hold weak_ptrs only: after the
// machine finished and the last owner let go, nothing touches the attempt again.
#pragma once

#include "recipe/attempt_driver.hpp"
#include "recipe/contender_fsm.hpp"
#include "recipe/handoff_count.hpp"
#include "recipe/recipe_metrics.hpp"
#include "session/session_impl.hpp"

#include <zkcoord/ownership.hpp>

#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

namespace zkcoord::detail {

class contender_attempt
    : public std::enable_shared_from_this<contender_attempt>,
      private attempt_driver<contender_attempt, contender_action_t, contender_action::request> {
  using driver = attempt_driver<contender_attempt, contender_action_t, contender_action::request>;
  friend driver;

 public:
  contender_attempt(const std::shared_ptr<session_impl>& session, contender_config config,
                    recipe_metrics metrics);
  ~contender_attempt();
  contender_attempt(const contender_attempt&) = delete;
  contender_attempt& operator=(const contender_attempt&) = delete;

  /// Creates our node and queues; `handler` completes exactly once (grant, error, timeout,
  /// cancellation through its slot, or abort()).
  void start(session_impl& impl, completion<ownership> handler,
             std::optional<std::chrono::steady_clock::duration> timeout);
  /// Gives up a pending acquire (operation_aborted or errc::timeout); our node is deleted.
  void abort(error_code reason);

  /// Deletes our node; `handler` (if any) gets the outcome, otherwise failures are logged.
  void release(std::optional<void_completion> handler);
  /// Completes once the held lock is lost, at once if it already is (see ownership).
  void wait_lost(void_completion handler);
  /// The ownership handle is gone: its waits end with operation_aborted, the lock is released.
  void drop_handle();

  bool acquire_pending() const noexcept { return acquire_pending_.load(); }
  bool owns() const noexcept { return owns_.load(); }
  bool in_doubt() const noexcept { return in_doubt_.load(); }
  /// The session's lease deadline while the lock is owned, else time_point::min().
  std::chrono::steady_clock::time_point valid_until() const noexcept;
  std::int64_t session_id() const noexcept { return pin_; }
  /// The session the attempt runs on (null once it is gone) and its executor.
  std::shared_ptr<session_impl> session() const noexcept { return session_.lock(); }
  const boost::asio::any_io_executor& executor() const noexcept { return executor_; }

 private:
  struct lost_waiter {
    std::uint64_t id;
    void_completion handler;
    handler_executor executor;
  };

  // contender_attempt.cpp: life cycle and events.
  void feed_locked(const contender_event_t& event);
  void on_session_state(session_state s);
  void check_session_after_subscribe(const session_impl& impl);
  void cancel_lost_waiter(std::uint64_t id);
  void start_timeout(std::chrono::steady_clock::duration timeout);
  void retire();
  std::shared_ptr<spdlog::logger> logger() const;

  // contender_attempt_actions.cpp: performing the machine's actions.
  void perform(contender_actions actions) { perform_all(std::move(actions)); }
  using driver::perform;  // the other requests: sent
  void perform(const contender_action::watch_node& a);
  void perform(const contender_action::drop_watch& a);
  void arm_deferred_own_watch();
  void perform(const contender_action::complete_acquire& a);
  void perform(const contender_action::set_in_doubt& a);
  void perform(const contender_action::report_lost& a);
  void perform(const contender_action::complete_release& a);
  void perform(const contender_action::finished& a);
  void send_now(const contender_action::create_node& r, session_impl& impl);
  void send_now(const contender_action::create_parents& r, session_impl& impl);
  void send_now(const contender_action::list_children& r, session_impl& impl);
  void send_now(const contender_action::read_node& r, session_impl& impl);
  void send_now(const contender_action::watch_node& r, session_impl& impl);
  void send_now(const contender_action::watch_own_node& r, session_impl& impl);
  void send_watched_get(std::uint64_t tag, const std::string& path, session_impl& impl);
  void send_now(const contender_action::watch_children& r, session_impl& impl);
  void await_watch(std::uint64_t tag);
  void send_now(const contender_action::delete_node& r, session_impl& impl);

  const std::int64_t pin_;  // the session this attempt belongs to, never another
  contender_fsm fsm_;
  recipe_metrics metrics_;  // mutex_

  boost::asio::steady_timer timeout_timer_;

  // While waiting: the session's count of deletions on the lock path, for the hand-off
  // without a listing (recipe/deletion_log.hpp).
  handoff_count handoff_;

  // The watches the machine relies on, by tag: one, or two while waiting (the blocker and our
  // own node). A watch goes once it fired or the machine dropped it.
  std::map<std::uint64_t, watch> watches_;
  // The watch on our own node while held, armed only once someone waits for the lock's loss:
  // without a waiter nobody is told, and the read would cost every grant a request.
  std::optional<contender_action::watch_node> deferred_own_watch_;

  // The session's lease renewals, from the first valid_until() read until the lock is no
  // longer held (mutex_).
  mutable lease_keeper lease_;

  std::optional<completion<ownership>> acquire_handler_;
  handler_executor acquire_executor_;
  std::optional<void_completion> release_handler_;
  handler_executor release_executor_;
  std::list<lost_waiter> lost_waiters_;
  std::uint64_t next_waiter_id_ = 1;
  std::optional<node_grant> grant_;
  error_code lost_reason_;
  bool released_ = false;  // a release was asked for

  std::atomic<bool> acquire_pending_{false};
  std::atomic<bool> owns_{false};
  std::atomic<bool> in_doubt_{false};
};

/// What a ownership handle owns: the attempt that was granted, and the grant.
class ownership_state {
 public:
  ownership_state(std::shared_ptr<contender_attempt> attempt, node_grant grant)
      : attempt_(std::move(attempt)), grant_(std::move(grant)) {}
  contender_attempt& attempt() const noexcept { return *attempt_; }
  const node_grant& grant() const noexcept { return grant_; }

 private:
  std::shared_ptr<contender_attempt> attempt_;
  node_grant grant_;
};

/// The private parts of ownership the implementation needs.
struct ownership_access {
  static ownership make_ownership(std::shared_ptr<ownership_state> state) {
    return ownership(std::move(state));
  }
  static const std::shared_ptr<ownership_state>& state_of(const ownership& h) noexcept {
    return h.state_;
  }
};

}  // namespace zkcoord::detail
