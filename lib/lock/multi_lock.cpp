// SPDX-License-Identifier: Apache-2.0
// The multi-lock: the ordinary lock on each path, taken in sorted order, all or nothing.
#include "session/session_impl.hpp"

#include <zkcoord/detail/fence.hpp>
#include <zkcoord/multi_lock.hpp>

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/system_executor.hpp>

#include <algorithm>
#include <atomic>
#include <functional>
#include <mutex>
#include <optional>

namespace asio = boost::asio;

namespace zkcoord::detail {

struct multi_grant {
  std::vector<ownership> locks;  // in acquisition order
  asio::any_io_executor executor;
  bool released = false;

  // Best effort, the last acquired first (as ownership's destructor, for each).
  ~multi_grant() {
    while (!locks.empty()) locks.pop_back();
  }
};

namespace {

// Releases `locks` one after another, the last first, and calls `done` with the first error.
void release_in_reverse(std::shared_ptr<std::vector<ownership>> locks, std::size_t remaining,
                        error_code first_error, std::function<void(error_code)> done) {
  if (remaining == 0) return done(first_error);
  auto& next = (*locks)[remaining - 1];
  next.async_release(
      [locks, remaining, first_error, done = std::move(done)](error_code ec) mutable {
        if (ec && !first_error) first_error = ec;
        release_in_reverse(std::move(locks), remaining - 1, first_error, std::move(done));
      });
}

}  // namespace

struct multi_contenders {
  std::vector<std::string> paths;  // sorted, unique
  asio::any_io_executor executor;
  std::mutex mutex;
  std::vector<lock> locks;  // one per path; cleared when the multi_lock is destroyed

  static held_multi_lock grant_of(std::shared_ptr<multi_grant> grant) {
    return held_multi_lock(std::move(grant));
  }
};

namespace {

// One acquire of a multi_lock: the locks in order, each with what is left of the timeout.
class multi_acquire : public std::enable_shared_from_this<multi_acquire> {
 public:
  multi_acquire(std::shared_ptr<multi_contenders> contenders,
                std::optional<std::chrono::steady_clock::time_point> deadline,
                completion<held_multi_lock> handler)
      : contenders_(std::move(contenders)), deadline_(deadline), handler_(std::move(handler)) {}

  void start() {
    auto slot = asio::get_associated_cancellation_slot(handler_);
    if (slot.is_connected()) {
      slot.assign([weak = weak_from_this()](asio::cancellation_type type) {
        if (auto self = weak.lock()) self->cancel(type);
      });
    }
    next();
  }

 private:
  void cancel(asio::cancellation_type type) {
    cancelled_ = true;
    inner_cancel_.emit(type);
  }

  void next() {
    const std::size_t i = held_.size();
    if (i == contenders_->paths.size()) {
      auto grant = std::make_shared<multi_grant>();
      grant->locks = std::move(held_);
      grant->executor = contenders_->executor;
      return complete({}, multi_contenders::grant_of(std::move(grant)));
    }
    if (cancelled_) return fail(asio::error::operation_aborted);
    std::unique_lock guard(contenders_->mutex);
    if (contenders_->locks.size() != contenders_->paths.size()) {
      guard.unlock();
      return fail(asio::error::operation_aborted);  // the multi_lock was destroyed
    }
    auto on_granted = asio::bind_cancellation_slot(
        inner_cancel_.slot(), [self = shared_from_this()](error_code ec, held_lock held) {
          if (ec) return self->fail(ec);
          self->held_.push_back(std::move(held));
          self->next();
        });
    if (!deadline_) return contenders_->locks[i].async_acquire(std::move(on_granted));
    const auto left = *deadline_ - std::chrono::steady_clock::now();
    if (left <= std::chrono::steady_clock::duration::zero()) {
      guard.unlock();
      return fail(make_error_code(errc::timeout));
    }
    contenders_->locks[i].async_acquire(left, std::move(on_granted));
  }

  // All or nothing: what was taken is given back, the last first, before the error is told.
  void fail(error_code ec) {
    auto taken = std::make_shared<std::vector<ownership>>(std::move(held_));
    held_.clear();
    release_in_reverse(taken, taken->size(), {}, [self = shared_from_this(), ec](error_code) {
      self->complete(ec, held_multi_lock());
    });
  }

  void complete(error_code ec, held_multi_lock result) {
    asio::get_associated_cancellation_slot(handler_).clear();
    complete_via(contenders_->executor, std::move(handler_), ec, std::move(result));
  }

  std::shared_ptr<multi_contenders> contenders_;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  completion<held_multi_lock> handler_;
  std::vector<ownership> held_;
  asio::cancellation_signal inner_cancel_;
  std::atomic<bool> cancelled_{false};
};

// One wait for the first loss among the locks of a grant.
class multi_wait_lost : public std::enable_shared_from_this<multi_wait_lost> {
 public:
  multi_wait_lost(std::size_t locks, asio::any_io_executor executor, void_completion handler)
      : signals_(locks), executor_(std::move(executor)), handler_(std::move(handler)) {}

  void start(std::vector<ownership>& locks) {
    auto slot = asio::get_associated_cancellation_slot(handler_);
    if (slot.is_connected()) {
      slot.assign([weak = weak_from_this()](asio::cancellation_type type) {
        if (auto self = weak.lock()) self->emit_all(type);
      });
    }
    for (std::size_t i = 0; i < locks.size(); ++i) {
      locks[i].async_wait_lost(asio::bind_cancellation_slot(
          signals_[i].slot(), [self = shared_from_this()](error_code ec) { self->ended(ec); }));
    }
  }

 private:
  void ended(error_code ec) {
    {
      std::lock_guard guard(mutex_);
      if (done_) return;
      done_ = true;
    }
    asio::get_associated_cancellation_slot(handler_).clear();
    // The first to end decides; the other waits are not needed any more.
    emit_all(asio::cancellation_type::terminal);
    complete_via(executor_, std::move(handler_), ec);
  }

  void emit_all(asio::cancellation_type type) {
    for (auto& signal : signals_) signal.emit(type);
  }

  std::vector<asio::cancellation_signal> signals_;  // one per lock
  asio::any_io_executor executor_;
  void_completion handler_;
  std::mutex mutex_;
  bool done_ = false;
};

}  // namespace

lock_fence fence_of(const held_multi_lock& held) {
  const auto& locks = held.locks();
  if (locks.empty()) {
    return lock_fence{
        .owned = false, .nodes = {}, .session = nullptr, .executor = asio::system_executor()};
  }
  lock_fence all = fence_of(locks.front());
  for (std::size_t i = 1; i < locks.size(); ++i) {
    lock_fence one = fence_of(locks[i]);
    all.owned = all.owned && one.owned;
    if (!one.session) all.session = nullptr;
    all.nodes.insert(all.nodes.end(), one.nodes.begin(), one.nodes.end());
  }
  return all;
}

}  // namespace zkcoord::detail

namespace zkcoord {

held_multi_lock::held_multi_lock(std::shared_ptr<detail::multi_grant> grant) noexcept
    : grant_(std::move(grant)) {}

const std::vector<ownership>& held_multi_lock::locks() const noexcept {
  static const std::vector<ownership> none;
  return grant_ ? grant_->locks : none;
}

bool held_multi_lock::owns() const noexcept {
  if (!grant_ || grant_->released || grant_->locks.empty()) return false;
  return std::all_of(grant_->locks.begin(), grant_->locks.end(),
                     [](const ownership& o) { return o.owns(); });
}

void held_multi_lock::start_wait_lost(std::shared_ptr<detail::multi_grant> grant,
                                      detail::void_completion handler) {
  if (!grant || grant->released || grant->locks.empty()) {
    auto ex = grant ? grant->executor : asio::any_io_executor(asio::system_executor());
    return detail::complete_via(ex, std::move(handler), make_error_code(errc::not_held));
  }
  auto wait = std::make_shared<detail::multi_wait_lost>(grant->locks.size(), grant->executor,
                                                        std::move(handler));
  wait->start(grant->locks);
}

void held_multi_lock::start_release(std::shared_ptr<detail::multi_grant> grant,
                                    detail::void_completion handler) {
  if (!grant || grant->released || grant->locks.empty()) {
    auto ex = grant ? grant->executor : asio::any_io_executor(asio::system_executor());
    return detail::complete_via(ex, std::move(handler), make_error_code(errc::not_held));
  }
  grant->released = true;
  // The grant lives until the last release is done: the ownerships are its own.
  std::shared_ptr<std::vector<ownership>> locks(grant, &grant->locks);
  auto ex = grant->executor;
  detail::release_in_reverse(
      locks, locks->size(), {},
      [ex, h = std::make_shared<detail::void_completion>(std::move(handler))](error_code ec) {
        detail::complete_via(ex, std::move(*h), ec);
      });
}

multi_lock::multi_lock(session& s, std::vector<std::string> lock_paths, lock_options options)
    : contenders_(std::make_shared<detail::multi_contenders>()) {
  std::sort(lock_paths.begin(), lock_paths.end());
  lock_paths.erase(std::unique(lock_paths.begin(), lock_paths.end()), lock_paths.end());
  contenders_->executor = s.get_executor();
  contenders_->locks.reserve(lock_paths.size());
  for (const auto& path : lock_paths) contenders_->locks.emplace_back(s, path, options);
  contenders_->paths = std::move(lock_paths);
}

multi_lock::~multi_lock() {
  if (!contenders_) return;
  std::vector<lock> gone;
  {
    std::lock_guard guard(contenders_->mutex);
    gone.swap(contenders_->locks);
  }
  // Destroyed outside the mutex: each aborts its pending acquire (operation_aborted).
}

const std::vector<std::string>& multi_lock::paths() const noexcept {
  static const std::vector<std::string> none;
  return contenders_ ? contenders_->paths : none;
}

void multi_lock::start_acquire(std::shared_ptr<detail::multi_contenders> contenders,
                               std::optional<std::chrono::steady_clock::duration> timeout,
                               detail::completion<held_multi_lock> handler) {
  if (!contenders || contenders->paths.empty()) {
    auto ex = contenders ? contenders->executor : asio::any_io_executor(asio::system_executor());
    return detail::complete_via(ex, std::move(handler), make_error_code(errc::bad_argument),
                                held_multi_lock());
  }
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (timeout) deadline = std::chrono::steady_clock::now() + *timeout;
  std::make_shared<detail::multi_acquire>(std::move(contenders), deadline, std::move(handler))
      ->start();
}

}  // namespace zkcoord
