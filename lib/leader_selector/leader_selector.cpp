// SPDX-License-Identifier: Apache-2.0
// The leader selector: one contender slot on the exclusive lock's layout (the lock's engine,
// with the participant id as node data), the selector_fsm's decisions carried out on it, and the
// term handed to the user's handler with its lost signal.
//
// Threading: selector_state and term_state each guard themselves with a mutex. The selector
// calls into its term under its own mutex; the term never calls into the selector under the
// term's mutex. Nothing done under either mutex calls back synchronously (requests, timers and
// user completions are all posted).
#include "election/participant_id.hpp"
#include "leader_selector/selector_fsm.hpp"
#include "leader_selector/selector_listing.hpp"
#include "recipe/attempt_driver.hpp"
#include "recipe/contender_slot.hpp"
#include "recipe/node_listing.hpp"

#include <zkcoord/leader_selector.hpp>
#include <zkcoord/path.hpp>

#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/system_executor.hpp>

#include <spdlog/spdlog.h>

#include <exception>
#include <list>
#include <mutex>

namespace zkcoord::detail {

namespace {
// How often a selector waiting to queue again looks at its session.
constexpr auto retry_interval = std::chrono::milliseconds(100);
// How many times async_leader lists the path again when every listed node vanished.
constexpr int leader_relists = 20;
}  // namespace

class term_state : public std::enable_shared_from_this<term_state> {
 public:
  /// `ex`: the session's executor (not work-tracked: a term that lives on must not keep an
  /// io_context running; only a pending wait does).
  term_state(std::weak_ptr<selector_state> selector, ownership held,
             boost::asio::any_io_executor ex)
      : selector_(std::move(selector)), held_(std::move(held)), executor_(std::move(ex)) {}

  const ownership& held() const noexcept { return held_; }

  bool lost() const {
    std::lock_guard lock(mutex_);
    return ended_ || static_cast<bool>(lost_);
  }

  /// Starts following the loss of the term: the lock's own lost signal and the session's
  /// suspension.
  void follow(session_impl& impl) {
    std::weak_ptr<term_state> weak = weak_from_this();
    held_.async_wait_lost([weak](error_code ec) {
      // not_held: we released it; operation_aborted: the handle is gone.
      if (ec == errc::not_held || ec == boost::asio::error::operation_aborted) return;
      if (auto self = weak.lock()) self->signal_lost(ec);
    });
    auto sub = impl.subscribe([weak](session_state s) {
      if (auto self = weak.lock()) self->on_session_state(s);
    });
    {
      std::lock_guard lock(mutex_);
      subscription_ = std::move(sub);
    }
    on_session_state(impl.state());  // suspended before we subscribed
  }

  void signal_lost(error_code reason) {
    std::lock_guard lock(mutex_);
    if (lost_ || ended_) return;
    lost_ = reason;
    for (auto& w : waiters_) complete_via(w.executor, std::move(w.handler), reason);
    waiters_.clear();
  }

  void wait_lost(void_completion handler) {
    auto slot = boost::asio::get_associated_cancellation_slot(handler);
    const handler_executor ex =
        boost::asio::prefer(executor_, boost::asio::execution::outstanding_work.tracked);
    std::lock_guard lock(mutex_);
    if (lost_) return complete_via(ex, std::move(handler), *lost_);
    if (ended_) return complete_via(ex, std::move(handler), make_error_code(errc::not_held));
    const std::uint64_t id = next_waiter_++;
    waiters_.push_back(waiter{id, std::move(handler), ex});
    if (slot.is_connected()) {
      slot.assign([weak = weak_from_this(), id](boost::asio::cancellation_type) {
        if (auto self = weak.lock()) self->cancel_waiter(id);
      });
    }
  }

  /// The handler let go of the term (leader_term destroyed or finished).
  void end();

  /// Deletes our node; `done` runs once it is gone.
  template <class Done>
  void release(Done done) {
    held_.async_release(std::move(done));
  }

 private:
  struct waiter {
    std::uint64_t id;
    void_completion handler;
    handler_executor executor;
  };

  void on_session_state(session_state s) {
    switch (s) {
      case session_state::suspended:
        return signal_lost(make_error_code(zk_errc::connection_loss));
      case session_state::expired:
        return signal_lost(make_error_code(zk_errc::session_expired));
      case session_state::closed:
        return signal_lost(make_error_code(errc::closed));
      default:
        return;
    }
  }

  void cancel_waiter(std::uint64_t id) {
    std::lock_guard lock(mutex_);
    for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
      if (it->id != id) continue;
      complete_via(it->executor, std::move(it->handler),
                   make_error_code(boost::asio::error::operation_aborted));
      waiters_.erase(it);
      return;
    }
  }

  const std::weak_ptr<selector_state> selector_;
  ownership held_;
  const boost::asio::any_io_executor executor_;
  mutable std::mutex mutex_;
  std::optional<error_code> lost_;
  bool ended_ = false;
  std::list<waiter> waiters_;
  std::uint64_t next_waiter_ = 1;
  state_subscription subscription_;
};

class selector_state : public std::enable_shared_from_this<selector_state> {
 public:
  selector_state(session& s, std::string path, std::string id,
                 leader_selector::handler_type handler, leader_selector_options options)
      : slot_(std::make_shared<contender_slot>(s, std::move(path))),
        executor_(s.get_executor()),
        id_(std::move(id)),
        handler_(std::move(handler)),
        fsm_(options.auto_requeue),
        retry_timer_(executor_) {}

  const std::string& path() const noexcept { return slot_->path(); }
  const std::string& id() const noexcept { return id_; }
  std::shared_ptr<session_impl> live_session() const noexcept { return slot_->live_session(); }

  handler_executor completion_executor() const {
    auto impl = live_session();
    return impl ? impl->tracked_executor() : handler_executor(executor_);
  }

  void run(void_completion handler) {
    const handler_executor ex = completion_executor();
    auto slot = boost::asio::get_associated_cancellation_slot(handler);
    std::lock_guard lock(mutex_);
    if (!fsm_.closed() && fsm_.phase() == selector_phase::idle) {
      if (const std::string why = participant_id_problem(id_); !why.empty()) {
        // Refused before any request: no node is created.
        if (auto impl = live_session()) impl->logger()->warn("leader_selector {}: {}", path(), why);
        return complete_via(ex, std::move(handler), make_error_code(errc::bad_argument));
      }
    }
    selector_actions a = fsm_.on_run();
    if (a.refuse_run) return complete_via(ex, std::move(handler), *a.refuse_run);
    run_handler_.emplace(std::move(handler));
    run_executor_ = ex;
    const std::uint64_t run_id = ++run_count_;
    if (slot.is_connected()) {
      // Cancelling the run closes the selector (only while this run is the active one).
      slot.assign([weak = weak_from_this(), run_id](boost::asio::cancellation_type) {
        if (auto self = weak.lock()) self->close_run(run_id);
      });
    }
    perform(std::move(a));
  }

  void close() {
    std::lock_guard lock(mutex_);
    perform(fsm_.on_close());
  }

  void term_ended(const term_state* term) {
    std::lock_guard lock(mutex_);
    if (term_.get() != term) return;
    perform(fsm_.on_term_ended());
  }

 private:
  void close_run(std::uint64_t run_id) {
    std::lock_guard lock(mutex_);
    if (run_id != run_count_ || !run_handler_) return;
    perform(fsm_.on_close());
  }

  // Under mutex_.
  void perform(selector_actions a) {
    if (a.enqueue) enqueue();
    if (a.abort_wait) slot_->abort_pending();
    if (a.start_handler) start_handler();
    if (a.signal_lost && term_)
      term_->signal_lost(make_error_code(boost::asio::error::operation_aborted));
    if (a.release_term) release_term();
    if (a.retry_later) retry_later();
    if (a.complete_run && run_handler_) {
      complete_via(run_executor_, std::move(*run_handler_), *a.complete_run);
      run_handler_.reset();
    }
  }

  void enqueue() {
    slot_->start(
        "leader_selector", acquire_request{}, grant_policy::exclusive_lock(),
        [this](std::int64_t) { return id_; },
        [self = shared_from_this()](error_code ec, ownership held) {
          self->on_acquired(ec, std::move(held));
        });
  }

  void on_acquired(error_code ec, ownership held) {
    std::lock_guard lock(mutex_);
    if (ec) {
      if (auto impl = live_session(); impl && !fsm_.closed())
        impl->logger()->info("leader_selector {}: queueing ended: {}", path(), ec.message());
      return perform(fsm_.on_acquire_failed(ec));
    }
    term_ = std::make_shared<term_state>(weak_from_this(), std::move(held), executor_);
    perform(fsm_.on_granted());
  }

  void start_handler() {
    auto term = term_;
    if (auto impl = live_session()) term->follow(*impl);
    boost::asio::post(executor_, [self = shared_from_this(), t = leader_term(term)]() mutable {
      self->call_handler(std::move(t));
    });
  }

  void call_handler(leader_term term) {
    try {
      if (handler_) return handler_(std::move(term));
    } catch (const std::exception& e) {
      if (auto impl = live_session())
        impl->logger()->error("leader_selector {}: the handler threw: {}", path(), e.what());
    } catch (...) {
      if (auto impl = live_session())
        impl->logger()->error("leader_selector {}: the handler threw", path());
    }
  }

  void release_term() {
    if (!term_) return;
    term_->release([self = shared_from_this()](error_code ec) { self->on_released(ec); });
  }

  void on_released(error_code ec) {
    std::lock_guard lock(mutex_);
    if (ec && ec != errc::lock_lost && ec != condition::session_expired && ec != errc::closed) {
      if (auto impl = live_session())
        impl->logger()->warn("leader_selector {}: release: {}", path(), ec.message());
    }
    term_.reset();
    perform(fsm_.on_released());
  }

  void retry_later() {
    retry_timer_.expires_after(retry_interval);
    retry_timer_.async_wait([self = shared_from_this()](error_code) { self->retry_tick(); });
  }

  void retry_tick() {
    std::lock_guard lock(mutex_);
    if (fsm_.phase() != selector_phase::waiting_session) return;
    auto impl = live_session();
    // Usable again, or gone for good (the next start reports closed and the run ends).
    const session_state s = impl ? impl->state() : session_state::closed;
    if (s == session_state::connected || s == session_state::reconnected ||
        s == session_state::closed) {
      if (impl && !session_problem(*impl))
        impl->logger()->info("leader_selector {}: queueing again", path());
      return perform(fsm_.on_session_ready());
    }
    retry_later();
  }

  const std::shared_ptr<contender_slot> slot_;
  const boost::asio::any_io_executor executor_;
  const std::string id_;
  const leader_selector::handler_type handler_;
  std::mutex mutex_;
  selector_fsm fsm_;
  std::optional<void_completion> run_handler_;
  handler_executor run_executor_;
  std::uint64_t run_count_ = 0;
  std::shared_ptr<term_state> term_;
  boost::asio::steady_timer retry_timer_;
};

void term_state::end() {
  {
    std::lock_guard lock(mutex_);
    if (ended_) return;
    ended_ = true;
    for (auto& w : waiters_)
      complete_via(w.executor, std::move(w.handler), make_error_code(errc::not_held));
    waiters_.clear();
  }
  // Outside mutex_: ending the subscription waits for a listener call in progress.
  state_subscription sub;
  {
    std::lock_guard lock(mutex_);
    std::swap(sub, subscription_);
  }
  sub.reset();
  if (auto selector = selector_.lock()) selector->term_ended(this);
}

namespace {

void list_leader(const std::shared_ptr<session_impl>& impl, std::string path, int relists_left,
                 completion<participant> handler) {
  const handler_executor ex = impl->tracked_executor();
  std::weak_ptr<session_impl> weak = impl;
  list_recipe_nodes(
      impl, path, nullptr,
      [ex, weak, path, relists_left, h = std::move(handler)](error_code ec,
                                                             node_listing listing) mutable {
        if (ec) return complete_via(ex, std::move(h), ec, participant{});
        leader_choice choice = choose_leader(listing.children, listing.read);
        if (choice.relist && relists_left > 0) {
          auto session = weak.lock();
          if (!session)
            return complete_via(ex, std::move(h), make_error_code(errc::closed), participant{});
          return list_leader(session, std::move(path), relists_left - 1, std::move(h));
        }
        // Out of relists with the queue churning faster than we read: say so
        // rather than name nobody.
        if (choice.relist) choice.ec = make_error_code(zk_errc::connection_loss);
        complete_via(ex, std::move(h), choice.ec, std::move(choice.leader));
      });
}

}  // namespace

}  // namespace zkcoord::detail

namespace zkcoord {

using detail::selector_state;
using detail::term_state;

// leader_term

leader_term::leader_term(std::shared_ptr<term_state> state) noexcept : state_(std::move(state)) {}

leader_term::~leader_term() {
  finish();
}

leader_term& leader_term::operator=(leader_term&& other) noexcept {
  if (this != &other) {
    finish();
    state_ = std::move(other.state_);
  }
  return *this;
}

fencing_token leader_term::token() const noexcept {
  return state_ ? state_->held().token() : fencing_token();
}

const ownership& leader_term::held() const noexcept {
  static const ownership none;
  return state_ ? state_->held() : none;
}

bool leader_term::lost() const noexcept {
  return !state_ || state_->lost();
}

void leader_term::finish() noexcept {
  if (state_) state_->end();
}

void leader_term::start_wait_lost(std::shared_ptr<term_state> state,
                                  detail::void_completion handler) {
  if (!state) {
    return detail::complete_via(detail::handler_executor(boost::asio::system_executor()),
                                std::move(handler), make_error_code(errc::not_held));
  }
  state->wait_lost(std::move(handler));
}

// leader_selector

leader_selector::leader_selector(session& s, std::string path, std::string participant_id,
                                 handler_type handler, leader_selector_options options)
    : state_(std::make_shared<selector_state>(s, std::move(path), std::move(participant_id),
                                              std::move(handler), options)) {}

leader_selector::~leader_selector() {
  close();
}

leader_selector& leader_selector::operator=(leader_selector&& other) noexcept {
  if (this != &other) {
    close();
    state_ = std::move(other.state_);
  }
  return *this;
}

const std::string& leader_selector::path() const noexcept {
  static const std::string none;
  return state_ ? state_->path() : none;
}

const std::string& leader_selector::participant_id() const noexcept {
  static const std::string none;
  return state_ ? state_->id() : none;
}

void leader_selector::close() noexcept {
  if (state_) state_->close();
}

void leader_selector::start_run(std::shared_ptr<selector_state> state,
                                detail::void_completion handler) {
  if (!state) {
    return detail::complete_via(detail::handler_executor(boost::asio::system_executor()),
                                std::move(handler), make_error_code(errc::bad_argument));
  }
  state->run(std::move(handler));
}

void leader_selector::start_participants(std::shared_ptr<selector_state> state,
                                         detail::completion<std::vector<participant>> handler) {
  auto impl = state ? state->live_session() : nullptr;
  if (!impl) {
    return detail::complete_via(detail::handler_executor(boost::asio::system_executor()),
                                std::move(handler), make_error_code(errc::closed),
                                std::vector<participant>{});
  }
  const detail::handler_executor ex = impl->tracked_executor();
  if (const std::string why = path_problem(state->path()); !why.empty()) {
    impl->logger()->warn("leader_selector participants: path refused: {}", why);
    return detail::complete_via(ex, std::move(handler), make_error_code(errc::bad_path),
                                std::vector<participant>{});
  }
  detail::list_recipe_nodes(
      impl, state->path(), nullptr,
      [ex, h = std::move(handler)](error_code ec, detail::node_listing listing) mutable {
        std::vector<participant> out;
        if (!ec) ec = detail::make_selector_participants(listing.children, listing.read, out);
        detail::complete_via(ex, std::move(h), ec, std::move(out));
      });
}

void leader_selector::start_leader(std::shared_ptr<selector_state> state,
                                   detail::completion<participant> handler) {
  auto impl = state ? state->live_session() : nullptr;
  if (!impl) {
    return detail::complete_via(detail::handler_executor(boost::asio::system_executor()),
                                std::move(handler), make_error_code(errc::closed), participant{});
  }
  if (const std::string why = path_problem(state->path()); !why.empty()) {
    impl->logger()->warn("leader_selector leader: path refused: {}", why);
    return detail::complete_via(impl->tracked_executor(), std::move(handler),
                                make_error_code(errc::bad_path), participant{});
  }
  detail::list_leader(impl, state->path(), detail::leader_relists, std::move(handler));
}

}  // namespace zkcoord
