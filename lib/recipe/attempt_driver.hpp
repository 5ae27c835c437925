// SPDX-License-Identifier: Apache-2.0
// What the Asio drivers of the sans-I/O machines share (contender_attempt runs a contender_fsm:
// locks, read-write locks, semaphores, election; member_runner runs a member_fsm): the mutex
// every entry point takes, the session they run on, feeding events to the machine, performing
// its action lists, sending its requests (after_reconnect ones parked until the session is
// connected again), the container parents an attempt created, and retiring once the machine
// has finished. The machines' decisions stay in the machines; the drivers keep what is their
// own (the caller's handlers, watches, the hand-off count, the member registry).
//
// `Derived` (CRTP) derives from std::enable_shared_from_this<Derived> and provides, for the
// driver (it befriends attempt_driver):
//   void feed_locked(const Event&);               resumes the machine (mutex_ held)
//   void on_session_state(session_state);         a state change of the session
//   void perform(const A&);                       each action type A of `Action` that is not
//                                                 a request (a request is sent by default)
//   void send_now(const R&, session_impl&);       each request type R (derived from `Request`)
// Threading and lifetime are those of the derived drivers (see contender_attempt.hpp and
// member_runner.hpp): nothing done under the mutex calls back synchronously, continuations
// hold weak_ptrs only, and what the session kept alive is dropped outside the mutex.
#pragma once

#include "session/container_parents.hpp"
#include "session/session_impl.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

namespace zkcoord::detail {

/// Why a machine cannot start on this session now (not_connected, closed, session_expired), or
/// success. Expired and not yet renewed: nothing to queue on (an attempt is never carried over).
inline error_code session_problem(const session_impl& impl) {
  const session_state s = impl.state();
  if (s == session_state::closed) {
    return make_error_code(impl.session_id() == 0 ? errc::not_connected : errc::closed);
  }
  if (impl.session_id() == 0) return make_error_code(errc::not_connected);
  if (s == session_state::expired) return make_error_code(zk_errc::session_expired);
  return {};
}

template <class Derived, class Action, class Request>
class attempt_driver {
 protected:
  explicit attempt_driver(const std::shared_ptr<session_impl>& session)
      : session_(session),
        executor_(session->executor()),
        logger_(session->logger()),
        parked_timer_(executor_) {}

  Derived& self() noexcept { return static_cast<Derived&>(*this); }

  /// Feeds `event` to the machine under the mutex; what the machine's end let go of is dropped
  /// after the mutex is released.
  template <class Event>
  void feed(const Event& event) {
    std::shared_ptr<void> keep;  // destroyed after the mutex is released
    std::lock_guard lock(mutex_);
    self().feed_locked(event);
    keep = std::move(retiring_);
  }

  /// Performs an action list of the machine, in order.
  template <class Actions>
  void perform_all(Actions actions) {
    for (const auto& action : actions)
      std::visit([this](const auto& a) { self().perform(a); }, action);
  }

  /// A request of the machine (one the driver has no rule of its own for): sent.
  template <class R>
  requires std::is_base_of_v<Request, R>
  void perform(const R& r) { send(r); }

  /// The session keeps the driver alive until it retires, and tells it its state changes.
  void attach(session_impl& impl) {
    impl.keep_alive(self().shared_from_this());
    subscription_ = impl.subscribe([weak = self().weak_from_this()](session_state s) {
      if (auto me = weak.lock()) me->on_session_state(s);
    });
  }

  /// Sends request `r` now, or parks it until the session is connected again.
  template <class R>
  void send(const R& r) {
    if (r.after_reconnect) {
      parked_.push_back(r);
      return schedule_parked();
    }
    auto impl = session_.lock();
    if (!impl) {
      // The session object is gone: report it as closed, outside this call (we are inside the
      // machine's action list).
      boost::asio::post(executor_, [weak = self().weak_from_this()] {
        if (auto me = weak.lock()) me->on_session_state(session_state::closed);
      });
      return;
    }
    self().send_now(r, *impl);
  }

  void send_any_now(const Action& request, session_impl& impl) {
    std::visit(
        [&](const auto& r) {
          if constexpr (std::is_base_of_v<Request, std::decay_t<decltype(r)>>)
            self().send_now(r, impl);
        },
        request);
  }

  // ---- requests whose outcome was lost: resent once the session is connected again ---------

  void schedule_parked() {
    // Resent on `reconnected`; the timer is a safety net in case the session already was
    // connected again when the failure was processed (never more often than the back-off).
    parked_timer_.expires_after(parked_backoff_);
    parked_backoff_ = std::min(parked_backoff_ * 2, max_parked_backoff);
    parked_timer_.async_wait([weak = self().weak_from_this()](error_code ec) {
      if (ec) return;
      auto me = weak.lock();
      if (!me) return;
      attempt_driver& d = *me;
      std::shared_ptr<void> keep;
      std::lock_guard lock(d.mutex_);
      auto impl = d.session_.lock();
      const session_state s = impl ? impl->state() : session_state::closed;
      if (s == session_state::connected || s == session_state::reconnected) {
        d.flush_parked();
      } else if (!d.parked_.empty()) {
        d.schedule_parked();
      }
      keep = std::move(d.retiring_);
    });
  }

  void flush_parked() {
    parked_timer_.cancel();
    parked_backoff_ = std::chrono::milliseconds(100);
    auto impl = session_.lock();
    if (!impl) return;
    auto requests = std::move(parked_);
    parked_.clear();
    for (const auto& r : requests) send_any_now(r, *impl);
  }

  // ---- container parents created on the way to the machine's node --------------------------

  /// Creates `path`'s missing ancestors on `pin`; their paths are noted, then `Event{tag, ec}`
  /// is fed to the machine.
  template <class Event>
  void send_create_parents(session_impl& impl, std::int64_t pin, const std::string& path,
                           std::uint64_t tag) {
    request_container_parents(
        impl, pin, path,
        [weak = self().weak_from_this(), tag](error_code ec, std::vector<std::string> created) {
          auto me = weak.lock();
          if (!me) return;
          attempt_driver& d = *me;
          {
            std::lock_guard lock(d.mutex_);
            for (auto& p : created) d.created_parents_.push_back(std::move(p));
          }
          d.feed(Event{tag, ec});
        });
  }

  /// An attempt that ends without its node leaves no parent it created (see
  /// remove_container_parents); `what` names it in the log ("a failed acquire").
  void remove_created_parents(session_impl& impl, std::int64_t pin, const char* what) {
    remove_container_parents(impl, pin, created_parents_, logger_, what);
    created_parents_.clear();
  }

  /// Called under the mutex when the machine has finished: nothing more will be sent. Parked
  /// requests go; `on_session(impl)` runs while the session is still there, then the session
  /// lets go of the driver (dropped with the subscription outside the mutex, by retiring_).
  template <class OnSession>
  void retire_driver(OnSession&& on_session) {
    // Ending the subscription waits for a listener call running on another thread, and that
    // call waits for our mutex: it ends with retiring_, which is dropped outside the mutex.
    struct retired {
      std::shared_ptr<void> kept;  // what the session kept alive: goes last
      state_subscription subscription;
    };
    auto subscription = std::move(subscription_);
    parked_timer_.cancel();
    parked_.clear();
    // Without the session the subscription ends at once, here.
    if (auto impl = session_.lock()) {
      on_session(*impl);
      retiring_ =
          std::make_shared<retired>(retired{impl->let_go(&self()), std::move(subscription)});
    }
  }

  static constexpr std::chrono::milliseconds max_parked_backoff{1000};

  mutable std::mutex mutex_;
  std::weak_ptr<session_impl> session_;
  boost::asio::any_io_executor executor_;  // untracked: timers and internal posts
  std::shared_ptr<spdlog::logger> logger_;

  // What the session kept alive, once the machine finished: dropped outside the mutex.
  std::shared_ptr<void> retiring_;
  state_subscription subscription_;
  boost::asio::steady_timer parked_timer_;
  std::chrono::milliseconds parked_backoff_{100};
  std::vector<Action> parked_;                // after_reconnect requests waiting for the session
  std::vector<std::string> created_parents_;  // by this attempt, outermost first
};

}  // namespace zkcoord::detail
