// SPDX-License-Identifier: Apache-2.0
// The lock driver's life cycle: starting the machine, feeding it events (session states, the
// caller's abort and release), the held lock's waits, and retiring once the machine finished.
#include "recipe/contender_attempt.hpp"

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/error.hpp>

#include <spdlog/spdlog.h>

namespace zkcoord::detail {

contender_attempt::contender_attempt(const std::shared_ptr<session_impl>& session,
                                     contender_config config, recipe_metrics metrics)
    : driver(session),
      pin_(config.session_id),
      fsm_(std::move(config)),
      metrics_(std::move(metrics)),
      timeout_timer_(executor_) {}

contender_attempt::~contender_attempt() = default;

std::shared_ptr<spdlog::logger> contender_attempt::logger() const {
  return logger_;
}

void contender_attempt::start(session_impl& impl, completion<ownership> handler,
                              std::optional<std::chrono::steady_clock::duration> timeout) {
  auto slot = boost::asio::get_associated_cancellation_slot(handler);
  std::shared_ptr<void> keep;
  std::lock_guard lock(mutex_);
  acquire_executor_ = impl.tracked_executor();
  acquire_handler_.emplace(std::move(handler));
  acquire_pending_ = true;
  attach(impl);
  if (slot.is_connected()) {
    // Any cancellation type: a waiting acquire has no partial effect worth keeping.
    slot.assign([weak = weak_from_this()](boost::asio::cancellation_type) {
      if (auto self = weak.lock())
        self->abort(make_error_code(boost::asio::error::operation_aborted));
    });
  }
  if (timeout) start_timeout(*timeout);
  logger_->debug("{} {}: acquiring on session 0x{:x}", fsm_.config().policy.name(),
                 fsm_.config().lock_path, pin_);
  metrics_.acquire_started();
  handoff_.start(fsm_, *deletion_log::of(impl), pin_);
  perform(fsm_.start());
  check_session_after_subscribe(impl);
  keep = std::move(retiring_);
}

// An expiry between the caller's check and our subscription would otherwise go unnoticed
// until a request fails; the pinned requests cover it too, this makes it prompt.
void contender_attempt::check_session_after_subscribe(const session_impl& impl) {
  const session_state s = impl.state();
  if (s == session_state::closed) return feed_locked(contender_event::session_changed{s});
  if (s == session_state::expired || impl.session_id() != pin_)
    feed_locked(contender_event::session_changed{session_state::expired});
}

void contender_attempt::start_timeout(std::chrono::steady_clock::duration timeout) {
  timeout_timer_.expires_after(timeout);
  timeout_timer_.async_wait([weak = weak_from_this()](error_code ec) {
    if (ec) return;
    if (auto self = weak.lock()) self->abort(make_error_code(errc::timeout));
  });
}

void contender_attempt::abort(error_code reason) {
  std::shared_ptr<void> keep;
  {
    std::lock_guard lock(mutex_);
    feed_locked(contender_event::abort_requested{reason});
    keep = std::move(retiring_);
  }
}

void contender_attempt::feed_locked(const contender_event_t& event) {
  auto impl = session_.lock();
  perform(fsm_.resume(impl ? handoff_.attach(fsm_, *deletion_log::of(*impl), pin_, event) : event));
  handoff_.settle(fsm_);
}

void contender_attempt::on_session_state(session_state s) {
  // `connected` is a new session (ours ended), unless the id is still ours (first connect).
  if (s == session_state::connected) {
    if (auto impl = session_.lock(); impl && impl->session_id() == pin_)
      s = session_state::reconnected;
  }
  std::shared_ptr<void> keep;
  std::lock_guard lock(mutex_);
  feed_locked(contender_event::session_changed{s});
  if (s == session_state::reconnected) flush_parked();
  keep = std::move(retiring_);
}

// ---- the held lock -----------------------------------------------------------------------

// The first read starts the session's renewals for as long as the lock is held: a lease that
// nobody reads costs nothing.
std::chrono::steady_clock::time_point contender_attempt::valid_until() const noexcept {
  auto impl = session_.lock();
  if (!impl) return std::chrono::steady_clock::time_point::min();
  {
    std::lock_guard lock(mutex_);
    if (!owns_) return std::chrono::steady_clock::time_point::min();
    if (!lease_) lease_ = impl->keep_lease();
  }
  return impl->lease_deadline_of(pin_);
}

void contender_attempt::release(std::optional<void_completion> handler) {
  std::shared_ptr<void> keep;
  std::lock_guard lock(mutex_);
  auto impl = session_.lock();
  const handler_executor ex = impl ? impl->tracked_executor() : acquire_executor_;
  if (released_) {
    // A second release: the first one owns the outcome.
    if (handler) complete_via(ex, std::move(*handler), make_error_code(errc::not_held));
    return;
  }
  if (handler) {
    release_executor_ = ex;
    release_handler_.emplace(std::move(*handler));
  }
  released_ = true;
  owns_ = false;
  lease_.reset();
  // Waits for loss end: a released lock is not lost, it is no longer held.
  for (auto& w : lost_waiters_)
    complete_via(w.executor, std::move(w.handler), make_error_code(errc::not_held));
  lost_waiters_.clear();
  feed_locked(contender_event::release_requested{});
  keep = std::move(retiring_);
}

void contender_attempt::wait_lost(void_completion handler) {
  auto slot = boost::asio::get_associated_cancellation_slot(handler);
  auto impl = session_.lock();
  std::lock_guard lock(mutex_);
  const handler_executor ex = impl ? impl->tracked_executor() : acquire_executor_;
  if (lost_reason_) return complete_via(ex, std::move(handler), lost_reason_);
  if (released_) return complete_via(ex, std::move(handler), make_error_code(errc::not_held));
  const std::uint64_t id = next_waiter_id_++;
  lost_waiters_.push_back(lost_waiter{id, std::move(handler), ex});
  arm_deferred_own_watch();
  if (slot.is_connected()) {
    slot.assign([weak = weak_from_this(), id](boost::asio::cancellation_type) {
      if (auto self = weak.lock()) self->cancel_lost_waiter(id);
    });
  }
}

void contender_attempt::cancel_lost_waiter(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  for (auto it = lost_waiters_.begin(); it != lost_waiters_.end(); ++it) {
    if (it->id != id) continue;
    complete_via(it->executor, std::move(it->handler),
                 make_error_code(boost::asio::error::operation_aborted));
    lost_waiters_.erase(it);
    return;
  }
}

void contender_attempt::drop_handle() {
  {
    std::lock_guard lock(mutex_);
    for (auto& w : lost_waiters_)
      complete_via(w.executor, std::move(w.handler),
                   make_error_code(boost::asio::error::operation_aborted));
    lost_waiters_.clear();
    if (released_ || lost_reason_) return;
  }
  release(std::nullopt);
}

// Called under the mutex when the machine has finished: nothing more will be sent.
void contender_attempt::retire() {
  lease_.reset();
  timeout_timer_.cancel();
  for (auto& entry : watches_) entry.second = watch();  // removed from the client and server
  watches_.clear();
  deferred_own_watch_.reset();
  retire_driver([&](session_impl& impl) {
    // An acquire that failed leaves no parent it created.
    if (!grant_) remove_created_parents(impl, pin_, "a failed acquire");
  });
}

}  // namespace zkcoord::detail
