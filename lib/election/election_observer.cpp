// SPDX-License-Identifier: Apache-2.0
// election_observer: follows an election path's participants with one watch that always covers
// the latest read (the children watch while the path exists, an exists watch while it is
// missing), and reports a list whenever it differs from the one reported before.
#include "election/participant_list.hpp"
#include "recipe/node_listing.hpp"
#include "session/session_requests.hpp"

#include <zkcoord/detail/session_access.hpp>
#include <zkcoord/election.hpp>
#include <zkcoord/path.hpp>

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/system_executor.hpp>

#include <spdlog/spdlog.h>

#include <chrono>
#include <mutex>
#include <optional>

namespace zkcoord::detail {

namespace {
// How long to wait before reading again after a connection loss or expiry: the session
// reconnects (or renews) on its own; reads before that fail at once.
constexpr std::chrono::milliseconds retry_delay(100);

bool retry_later(error_code ec) {
  return ec == condition::connection_loss || ec == condition::session_expired;
}
}  // namespace

// All state is guarded by mutex_. At most one activity (a read, a wait on the watch, a retry
// timer) is in flight at a time (busy_); each ends by calling proceed(), which starts the next
// one while a waiter is pending.
class election_observer_state : public std::enable_shared_from_this<election_observer_state> {
 public:
  election_observer_state(const session& s, std::string path)
      : session_(detail::session_access::impl(s)),
        path_(std::move(path)),
        timer_(s.get_executor()) {}

  const std::string& path() const noexcept { return path_; }

  void start_wait(completion<std::vector<participant>> handler);
  void shutdown();

 private:
  using lock_type = std::unique_lock<std::mutex>;

  void proceed(lock_type& lock);
  void read(lock_type& lock, session_impl& impl);
  // The start of every reply: the activity ends; an error fails the waiter or, when the session
  // may come back, reads again later. True when the reply is to be acted on.
  bool reply_usable(lock_type& lock, error_code ec);
  void on_listing(error_code ec, node_listing listing);
  void on_exists(error_code ec, std::optional<node_stat> stat);
  void await_watch();
  void on_watch(error_code ec);
  void retry_after_delay();
  // Completes the waiter if `list` differs from the one reported last; else waits on.
  void report_if_changed(lock_type& lock, std::vector<participant> list);
  void fail(lock_type& lock, error_code ec);
  void complete(lock_type& lock, error_code ec, std::vector<participant> list);

  const std::weak_ptr<session_impl> session_;
  const std::string path_;
  std::mutex mutex_;
  std::optional<completion<std::vector<participant>>> waiter_;
  handler_executor waiter_executor_;
  boost::asio::cancellation_slot waiter_slot_;
  std::optional<std::vector<participant>> reported_;  ///< nullopt: the next wait reports at once
  watch watch_;                                       ///< armed by the latest read
  boost::asio::cancellation_signal watch_cancel_;     ///< ends our wait on watch_ (not watch_)
  boost::asio::steady_timer timer_;
  bool stale_ = true;  ///< the latest read no longer covers the path: read before waiting
  bool busy_ = false;
  bool waiting_on_watch_ = false;
  bool closed_ = false;
};

void election_observer_state::start_wait(completion<std::vector<participant>> handler) {
  auto impl = session_.lock();
  const handler_executor ex =
      impl ? impl->tracked_executor() : handler_executor(boost::asio::system_executor());
  lock_type lock(mutex_);
  if (closed_ || !impl) {
    lock.unlock();
    return complete_via(ex, std::move(handler), make_error_code(errc::closed),
                        std::vector<participant>{});
  }
  if (const std::string why = path_problem(path_); !why.empty()) {
    lock.unlock();
    impl->logger()->warn("election observer: election path refused: {}", why);
    return complete_via(ex, std::move(handler), make_error_code(errc::bad_path),
                        std::vector<participant>{});
  }
  if (waiter_) {
    lock.unlock();
    return complete_via(ex, std::move(handler), make_error_code(errc::already_held),
                        std::vector<participant>{});
  }
  waiter_slot_ = boost::asio::get_associated_cancellation_slot(handler);
  waiter_.emplace(std::move(handler));
  waiter_executor_ = ex;
  if (waiter_slot_.is_connected()) {
    waiter_slot_.assign([weak = weak_from_this()](boost::asio::cancellation_type) {
      auto self = weak.lock();
      if (!self) return;
      lock_type lock(self->mutex_);
      if (!self->waiter_) return;
      // The watch stays armed: a change it saw is still there for the next wait.
      if (self->waiting_on_watch_) self->watch_cancel_.emit(boost::asio::cancellation_type::all);
      self->fail(lock, make_error_code(boost::asio::error::operation_aborted));
    });
  }
  proceed(lock);
}

void election_observer_state::shutdown() {
  lock_type lock(mutex_);
  closed_ = true;
  timer_.cancel();
  // End our wait on the watch first: the watch refers to watch_cancel_'s slot until then, and
  // watch_cancel_ goes with this object.
  if (waiting_on_watch_) watch_cancel_.emit(boost::asio::cancellation_type::all);
  watch_ = watch();  // removes the watch from the client
  if (waiter_) fail(lock, make_error_code(boost::asio::error::operation_aborted));
}

void election_observer_state::proceed(lock_type& lock) {
  if (!waiter_ || busy_ || closed_) return;
  auto impl = session_.lock();
  if (!impl) return fail(lock, make_error_code(errc::closed));
  busy_ = true;
  if (stale_) return read(lock, *impl);
  lock.unlock();
  await_watch();
}

void election_observer_state::read(lock_type& lock, session_impl& impl) {
  stale_ = false;
  // Arms watch_ before the request goes out: a change after the server answers fires it.
  list_recipe_nodes(impl.shared_from_this(), path_, &watch_,
                    [weak = weak_from_this()](error_code ec, node_listing listing) {
                      if (auto self = weak.lock()) self->on_listing(ec, std::move(listing));
                    });
  lock.unlock();
}

bool election_observer_state::reply_usable(lock_type& lock, error_code ec) {
  busy_ = false;
  if (closed_) return false;
  if (!ec) return true;
  stale_ = true;
  if (retry_later(ec)) {
    retry_after_delay();
  } else {
    fail(lock, ec);
  }
  return false;
}

void election_observer_state::on_listing(error_code ec, node_listing listing) {
  lock_type lock(mutex_);
  if (!reply_usable(lock, ec)) return;
  if (!listing.path_exists) {
    // No children watch is left on a missing path: watch for its creation instead.
    auto impl = session_.lock();
    if (!impl) return fail(lock, make_error_code(errc::closed));
    busy_ = true;
    request_exists(*impl, any_session, path_, &watch_,
                   [weak = weak_from_this()](error_code ec, std::optional<node_stat> stat) {
                     if (auto self = weak.lock()) self->on_exists(ec, stat);
                   });
    return;
  }
  std::vector<participant> list;
  if (const error_code mismatch = make_participants(listing.children, listing.read, list)) {
    if (auto impl = session_.lock())
      impl->logger()->warn("election observer: {} holds nodes of another recipe", path_);
    stale_ = true;
    return fail(lock, mismatch);
  }
  report_if_changed(lock, std::move(list));
}

void election_observer_state::on_exists(error_code ec, std::optional<node_stat> stat) {
  lock_type lock(mutex_);
  if (!reply_usable(lock, ec)) return;
  if (stat) {
    stale_ = true;  // created between the listing and this check: list it
    return proceed(lock);
  }
  report_if_changed(lock, {});
}

void election_observer_state::await_watch() {
  lock_type lock(mutex_);
  if (!waiter_ || closed_) {
    busy_ = false;  // the waiter left (cancelled) just now: the next one starts afresh
    return;
  }
  waiting_on_watch_ = true;
  watch_.async_wait(boost::asio::bind_cancellation_slot(
      watch_cancel_.slot(), [weak = weak_from_this()](error_code ec, const watch_event&) {
        if (auto self = weak.lock()) self->on_watch(ec);
      }));
}

void election_observer_state::on_watch(error_code ec) {
  lock_type lock(mutex_);
  busy_ = false;
  waiting_on_watch_ = false;
  if (closed_) return;
  if (ec == boost::asio::error::operation_aborted) return proceed(lock);  // our waiter left
  stale_ = true;
  if (!ec) return proceed(lock);  // an event: read again
  // The watch ended with the session (expiry): read again, on the new session once there is
  // one.
  if (retry_later(ec)) return retry_after_delay();
  // Anything else means the watch did not cover the read (a bug, not a state of the world):
  // fail loudly rather than poll.
  if (ec != errc::closed) {
    if (auto impl = session_.lock())
      impl->logger()->error("election observer {}: watch ended: {}", path_, ec.message());
  }
  fail(lock, ec);
}

void election_observer_state::retry_after_delay() {
  busy_ = true;
  timer_.expires_after(retry_delay);
  timer_.async_wait([weak = weak_from_this()](error_code) {
    auto self = weak.lock();
    if (!self) return;
    lock_type lock(self->mutex_);
    self->busy_ = false;
    if (self->closed_) return;
    auto impl = self->session_.lock();
    if (impl && impl->state() == session_state::closed) {
      return self->fail(lock, make_error_code(errc::closed));
    }
    self->proceed(lock);
  });
}

void election_observer_state::report_if_changed(lock_type& lock, std::vector<participant> list) {
  if (reported_ && *reported_ == list) return proceed(lock);
  reported_ = list;
  complete(lock, {}, std::move(list));
}

void election_observer_state::fail(lock_type& lock, error_code ec) {
  reported_.reset();  // after an error the next wait reads afresh and reports what it reads
  stale_ = true;
  complete(lock, ec, {});
}

void election_observer_state::complete(lock_type& lock, error_code ec,
                                       std::vector<participant> list) {
  if (!waiter_) return;
  auto handler = std::move(*waiter_);
  waiter_.reset();
  if (waiter_slot_.is_connected()) waiter_slot_.clear();
  waiter_slot_ = {};
  auto ex = std::move(waiter_executor_);
  waiter_executor_ = {};
  lock.unlock();
  complete_via(ex, std::move(handler), ec, std::move(list));
}

}  // namespace zkcoord::detail

namespace zkcoord {

namespace {
const std::string no_path;
}

election_observer::election_observer(session& s, std::string election_path)
    : state_(std::make_shared<detail::election_observer_state>(s, std::move(election_path))) {}

election_observer::~election_observer() {
  if (state_) state_->shutdown();
}

election_observer::election_observer(election_observer&&) noexcept = default;

election_observer& election_observer::operator=(election_observer&& other) noexcept {
  if (this != &other) {
    if (state_) state_->shutdown();
    state_ = std::move(other.state_);
  }
  return *this;
}

const std::string& election_observer::path() const noexcept {
  return state_ ? state_->path() : no_path;
}

void election_observer::start_wait_change(std::shared_ptr<detail::election_observer_state> state,
                                          detail::completion<std::vector<participant>> handler) {
  if (!state) {
    return detail::complete_via(detail::handler_executor(boost::asio::system_executor()),
                                std::move(handler), make_error_code(errc::bad_argument),
                                std::vector<participant>{});
  }
  state->start_wait(std::move(handler));
}

}  // namespace zkcoord
