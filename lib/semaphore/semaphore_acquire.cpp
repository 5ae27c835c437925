// SPDX-License-Identifier: Apache-2.0
// Sequencing a semaphore acquire: internal lock, then lease, then the internal lock returned.
#include "semaphore/semaphore_acquire.hpp"

#include "lock/lock_acquire.hpp"

#include <zkcoord/path.hpp>

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/system_executor.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>

namespace zkcoord::detail {
namespace {
std::shared_ptr<metrics_observer> metrics_observer_of(semaphore_state& state) {
  const auto impl = state.guard().live_session();
  return impl ? impl->options().metrics : nullptr;
}
}  // namespace

void semaphore_acquire::start(const std::shared_ptr<semaphore_state>& state,
                              const acquire_request& request, completion<ownership> handler) {
  const auto impl = state->guard().live_session();
  // Without a session, the internal lock's start reports errc::closed on its own executor.
  const handler_executor executor =
      impl ? impl->tracked_executor() : handler_executor(boost::asio::system_executor());
  if (impl && state->max_leases() == 0) {
    impl->logger()->warn("semaphore {}: max_leases is 0, so nobody could ever hold it",
                         state->path());
    return complete_via(executor, std::move(handler), make_error_code(errc::bad_argument),
                        ownership());
  }
  if (impl) {
    if (const std::string why = path_problem(state->path()); !why.empty()) {
      impl->logger()->warn("semaphore path refused: {}", why);
      return complete_via(executor, std::move(handler), make_error_code(errc::bad_path),
                          ownership());
    }
  }
  auto acquire = std::make_shared<semaphore_acquire>(state, request, std::move(handler), executor);
  if (!state->begin(acquire) || state->leases().busy()) {
    return acquire->complete(make_error_code(errc::already_held), ownership());
  }
  auto slot = boost::asio::get_associated_cancellation_slot(*acquire->handler_);
  if (slot.is_connected()) {
    // Any cancellation type: neither phase has a partial effect worth keeping.
    slot.assign([weak = std::weak_ptr(acquire)](boost::asio::cancellation_type) {
      if (auto self = weak.lock())
        self->abort(make_error_code(boost::asio::error::operation_aborted));
    });
  }
  {
    std::lock_guard lock(acquire->mutex_);
    acquire->metrics_.acquire_started();
  }
  acquire->start_guard();
}

semaphore_acquire::semaphore_acquire(std::shared_ptr<semaphore_state> state,
                                     const acquire_request& request, completion<ownership> handler,
                                     handler_executor executor)
    : state_(std::move(state)),
      request_(request),
      deadline_(request.timeout ? std::optional(std::chrono::steady_clock::now() + *request.timeout)
                                : std::nullopt),
      handler_(std::move(handler)),
      executor_(std::move(executor)),
      metrics_(metrics_observer_of(*state_), recipe_kind::semaphore, state_->path()) {}

std::optional<std::chrono::steady_clock::duration> semaphore_acquire::remaining() const {
  if (!deadline_) return std::nullopt;
  return std::max(*deadline_ - std::chrono::steady_clock::now(),
                  std::chrono::steady_clock::duration::zero());
}

void semaphore_acquire::start_guard() {
  // A try-acquire does not queue for the internal lock either: its holder is either creating
  // a lease (busy for a moment) or waiting for one (all are taken).
  start_lock_acquire(std::shared_ptr<contender_slot>(state_, &state_->guard()), "semaphore lock",
                     grant_policy::exclusive_lock(), state_->options(),
                     acquire_request{.try_once = request_.try_once, .timeout = remaining()},
                     [self = shared_from_this()](error_code ec, ownership guard) {
                       self->on_guard(ec, std::move(guard));
                     });
}

void semaphore_acquire::on_guard(error_code ec, ownership guard) {
  std::unique_lock lock(mutex_);
  if (phase_ != phase::guard) return;  // aborted meanwhile: `guard` is released on return
  const auto left = remaining();
  if (!ec && left && *left == std::chrono::steady_clock::duration::zero()) {
    ec = make_error_code(errc::timeout);
  }
  if (ec) {
    lock.unlock();
    return complete(ec, ownership());
  }
  guard_ = std::move(guard);
  phase_ = phase::lease;
  // Started under the mutex, so an abort sees either no lease phase or a pending one (the
  // start never completes synchronously: its completions are posted).
  start_lock_acquire(std::shared_ptr<contender_slot>(state_, &state_->leases()), "semaphore",
                     grant_policy::semaphore(state_->max_leases()), state_->options(),
                     acquire_request{.try_once = request_.try_once, .timeout = left},
                     [self = shared_from_this()](error_code lease_ec, ownership lease) {
                       self->complete(lease_ec, std::move(lease));
                     });
}

void semaphore_acquire::abort(error_code reason) {
  std::unique_lock lock(mutex_);
  // The phase's attempt completes its continuation with `reason`, too late to matter: we
  // complete the caller here. A grant that races the abort is released when it arrives.
  if (phase_ == phase::guard) {
    state_->guard().abort_pending();
  } else if (phase_ == phase::lease) {
    state_->leases().abort_pending();
  } else {
    return;
  }
  lock.unlock();
  complete(reason, ownership());
}

bool semaphore_acquire::pending() {
  std::lock_guard lock(mutex_);
  return phase_ != phase::done;
}

void semaphore_acquire::complete(error_code ec, ownership lease) {
  ownership guard;
  std::optional<completion<ownership>> handler;
  {
    std::lock_guard lock(mutex_);
    if (phase_ == phase::done) return;  // `lease` (granted after an abort) is released
    phase_ = phase::done;
    metrics_.acquire_finished(ec);
    guard = std::move(guard_);
    handler.swap(handler_);
  }
  // The internal lock goes once our lease is decided (granted or deleted): the next acquirer
  // then counts the leases with ours in or out, never in between. `guard` releases it here.
  auto slot = boost::asio::get_associated_cancellation_slot(*handler);
  if (slot.is_connected()) slot.clear();
  complete_via(executor_, std::move(*handler), ec, std::move(lease));
}

}  // namespace zkcoord::detail
