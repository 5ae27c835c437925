// SPDX-License-Identifier: Apache-2.0
// The shared watches and reads of a group: see group_tracker.hpp.
#include "membership/group_tracker.hpp"

#include "session/session_requests.hpp"

#include <zkcoord/detail/session_access.hpp>
#include <zkcoord/path.hpp>

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/system_executor.hpp>

#include <spdlog/spdlog.h>

#include <chrono>

namespace zkcoord::detail {

namespace {

// How long to wait before reading again after a connection loss or expiry: the session
// reconnects (or renews) on its own; reads before that fail at once.
constexpr std::chrono::milliseconds retry_delay(100);

bool session_gone(const error_code& ec) {
  return ec == condition::session_expired;
}

// The trackers of one session object, by group path (weak: the viewers own them).
struct tracker_registry {
  std::mutex mutex;
  std::map<std::string, std::weak_ptr<group_tracker>> trackers;
};

}  // namespace

group_tracker::group_tracker(const std::shared_ptr<session_impl>& session, std::string path)
    : session_(session),
      logger_(session->logger()),
      path_(std::move(path)),
      retry_timer_(session->executor()) {}

group_tracker::~group_tracker() = default;

std::shared_ptr<group_tracker> group_tracker::of(const std::shared_ptr<session_impl>& session,
                                                 const std::string& path) {
  auto& registry = session->layer_state<tracker_registry>();
  std::lock_guard lock(registry.mutex);
  auto& slot = registry.trackers[path];
  if (auto existing = slot.lock()) return existing;
  auto tracker = std::make_shared<group_tracker>(session, path);
  slot = tracker;
  // Trackers of groups nobody views any more leave the map.
  for (auto it = registry.trackers.begin(); it != registry.trackers.end();)
    it = it->second.expired() ? registry.trackers.erase(it) : std::next(it);
  return tracker;
}

std::shared_ptr<session_impl> group_tracker::live_session(lock_type& lock) {
  auto impl = session_.lock();
  if (!impl || impl->state() == session_state::closed) {
    closed_ = true;
    fail_viewers(lock, make_error_code(errc::closed));
    return nullptr;
  }
  return impl;
}

// ---- viewers ------------------------------------------------------------------------------

std::uint64_t group_tracker::add_viewer() {
  lock_type lock(mutex_);
  const std::uint64_t id = next_viewer_++;
  viewers_[id];
  return id;
}

void group_tracker::remove_viewer(std::uint64_t viewer) {
  lock_type lock(mutex_);
  const auto it = viewers_.find(viewer);
  if (it == viewers_.end()) return;
  auto& v = it->second;
  if (v.waiter) {
    if (v.cancel.is_connected()) v.cancel.clear();
    complete_via(v.executor, std::move(*v.waiter),
                 make_error_code(boost::asio::error::operation_aborted),
                 std::vector<member_info>{});
  }
  viewers_.erase(it);
}

void group_tracker::wait(std::uint64_t viewer, completion<std::vector<member_info>> handler) {
  auto impl = session_.lock();
  const handler_executor ex =
      impl ? impl->tracked_executor() : handler_executor(boost::asio::system_executor());
  lock_type lock(mutex_);
  const auto it = viewers_.find(viewer);
  if (closed_ || !impl || it == viewers_.end()) {
    lock.unlock();
    return complete_via(ex, std::move(handler), make_error_code(errc::closed),
                        std::vector<member_info>{});
  }
  auto& v = it->second;
  if (v.waiter) {
    lock.unlock();
    return complete_via(ex, std::move(handler), make_error_code(errc::already_held),
                        std::vector<member_info>{});
  }
  v.cancel = boost::asio::get_associated_cancellation_slot(handler);
  v.waiter.emplace(std::move(handler));
  v.executor = ex;
  if (v.cancel.is_connected()) {
    v.cancel.assign([weak = weak_from_this(), viewer](boost::asio::cancellation_type) {
      auto self = weak.lock();
      if (!self) return;
      lock_type lock(self->mutex_);
      const auto it = self->viewers_.find(viewer);
      if (it == self->viewers_.end() || !it->second.waiter) return;
      // The watches stay armed: a change they saw is there for the next wait.
      complete_via(it->second.executor, std::move(*it->second.waiter),
                   make_error_code(boost::asio::error::operation_aborted),
                   std::vector<member_info>{});
      it->second.waiter.reset();
      it->second.cancel = {};
    });
  }
  if (!started_) return start(lock);
  serve(lock);
}

// Completes every waiting viewer whose last report is older than the published snapshot.
void group_tracker::serve(lock_type&) {
  if (!published_) return;
  for (auto& [id, v] : viewers_) {
    if (!v.waiter || v.reported >= version_) continue;
    v.reported = version_;
    if (v.cancel.is_connected()) v.cancel.clear();
    v.cancel = {};
    complete_via(v.executor, std::move(*v.waiter), error_code{}, *published_);
    v.waiter.reset();
  }
}

void group_tracker::fail_viewers(lock_type&, error_code ec) {
  for (auto& [id, v] : viewers_) {
    if (!v.waiter) continue;
    if (v.cancel.is_connected()) v.cancel.clear();
    v.cancel = {};
    // After an error the next wait reports what it reads, even if unchanged.
    v.reported = 0;
    complete_via(v.executor, std::move(*v.waiter), ec, std::vector<member_info>{});
    v.waiter.reset();
  }
}

// ---- reading the group --------------------------------------------------------------------

void group_tracker::start(lock_type& lock) {
  started_ = true;
  list(lock);
}

void group_tracker::list(lock_type& lock) {
  if (listing_) {
    list_again_ = true;  // after the listing in flight, which its watch does not cover
    return;
  }
  auto impl = live_session(lock);
  if (!impl) return;
  listing_ = true;
  list_again_ = false;
  // The listing arms the children watch: a change after the server answers fires it.
  request_children(*impl, any_session, path_, &group_watch_,
                   [weak = weak_from_this(), epoch = epoch_](error_code ec, child_list list) {
                     if (auto self = weak.lock()) self->on_listing(epoch, ec, std::move(list));
                   });
  group_watch_.async_wait([weak = weak_from_this(), epoch = epoch_](error_code ec, watch_event) {
    if (auto self = weak.lock()) self->on_group_watch(epoch, ec);
  });
}

void group_tracker::on_listing(std::uint64_t epoch, error_code ec, child_list listed) {
  lock_type lock(mutex_);
  if (epoch != epoch_ || closed_) return;
  listing_ = false;
  if (ec == zk_errc::no_node) {
    // No children watch is left on a missing group: watch for its creation instead.
    members_.clear();
    slots_.clear();
    auto impl = live_session(lock);
    if (impl) watch_for_creation(lock, *impl);
    return publish_if_settled(lock);
  }
  if (session_gone(ec)) return start_afresh(lock);
  if (ec == condition::connection_loss) return retry_later(lock, std::nullopt);
  if (ec) {
    logger_->warn("group view {}: listing failed: {}", path_, ec.message());
    started_ = false;  // the next wait starts again
    return fail_viewers(lock, ec);
  }
  const auto change = members_.on_listing(listed.names);
  for (const auto& name : change.removed) slots_.erase(name);  // its watch goes with it
  for (const auto& name : change.added) read_member(lock, name);
  if (list_again_) list(lock);
  publish_if_settled(lock);
}

void group_tracker::watch_for_creation(lock_type&, session_impl& impl) {
  checking_existence_ = true;
  request_exists(
      impl, any_session, path_, &group_watch_,
      [weak = weak_from_this(), epoch = epoch_](error_code ec, std::optional<node_stat> stat) {
        if (auto self = weak.lock()) self->on_exists(epoch, ec, stat);
      });
  group_watch_.async_wait([weak = weak_from_this(), epoch = epoch_](error_code ec, watch_event) {
    if (auto self = weak.lock()) self->on_group_watch(epoch, ec);
  });
}

void group_tracker::on_exists(std::uint64_t epoch, error_code ec, std::optional<node_stat> stat) {
  lock_type lock(mutex_);
  if (epoch != epoch_ || closed_) return;
  checking_existence_ = false;
  if (session_gone(ec)) return start_afresh(lock);
  if (ec == condition::connection_loss) return retry_later(lock, std::nullopt);
  if (ec) {
    started_ = false;
    return fail_viewers(lock, ec);
  }
  if (stat) list(lock);  // created between the listing and this check
  publish_if_settled(lock);
}

void group_tracker::on_group_watch(std::uint64_t epoch, error_code ec) {
  lock_type lock(mutex_);
  if (epoch != epoch_ || closed_) return;
  if (ec == boost::asio::error::operation_aborted) return;  // replaced by a newer arming
  // The read that was to arm it failed (a missing group, a cut connection): its reply acts.
  if (ec == zk_errc::no_node || ec == condition::connection_loss) return;
  if (!ec) return list(lock);
  if (session_gone(ec)) return start_afresh(lock);
  if (ec == errc::closed) {
    closed_ = true;
    return fail_viewers(lock, ec);
  }
  // Anything else means the watch did not cover the read: say so and read again.
  logger_->error("group view {}: watch ended: {}", path_, ec.message());
  retry_later(lock, std::nullopt);
}

void group_tracker::read_member(lock_type& lock, const std::string& name) {
  auto& slot = slots_[name];
  if (slot.reading) {
    slot.read_again = true;
    return;
  }
  auto impl = live_session(lock);
  if (!impl) return;
  slot.reading = true;
  slot.read_again = false;
  ++reads_in_flight_;
  request_get(*impl, any_session, join_path(path_, name), &slot.data_watch,
              [weak = weak_from_this(), epoch = epoch_, name](error_code ec, node_data node) {
                if (auto self = weak.lock()) self->on_member(epoch, name, ec, std::move(node));
              });
  slot.data_watch.async_wait(
      [weak = weak_from_this(), epoch = epoch_, name](error_code ec, watch_event) {
        if (auto self = weak.lock()) self->on_member_watch(epoch, name, ec);
      });
}

void group_tracker::on_member(std::uint64_t epoch, const std::string& name, error_code ec,
                              node_data node) {
  lock_type lock(mutex_);
  if (epoch != epoch_ || closed_) return;
  --reads_in_flight_;
  bool read_again = false;
  if (const auto it = slots_.find(name); it != slots_.end()) {
    it->second.reading = false;
    read_again = it->second.read_again;
  }
  if (session_gone(ec)) return start_afresh(lock);
  if (ec == condition::connection_loss) return retry_later(lock, name);
  if (ec == zk_errc::no_node) {
    members_.on_gone(name);
    slots_.erase(name);
  } else if (ec) {
    // A child we may not read (its ACL) is still a member: listed with what we know.
    logger_->warn("group view {}: member {} unreadable: {}", path_, name, ec.message());
    members_.on_read(name, node_data{});
  } else {
    members_.on_read(name, node);
  }
  if (read_again && members_.listed(name)) read_member(lock, name);
  publish_if_settled(lock);
}

void group_tracker::on_member_watch(std::uint64_t epoch, const std::string& name, error_code ec) {
  lock_type lock(mutex_);
  if (epoch != epoch_ || closed_) return;
  if (ec == boost::asio::error::operation_aborted) return;  // the member left the listing
  if (session_gone(ec)) return start_afresh(lock);
  if (ec) return;  // closed: the group watch reports it
  if (!members_.listed(name)) return;
  read_member(lock, name);  // a data change, or its deletion (the read finds it gone)
}

// ---- faults -------------------------------------------------------------------------------

void group_tracker::retry_later(lock_type&, std::optional<std::string> member) {
  if (member) {
    retry_reads_.insert(*member);
  } else {
    retry_list_ = true;
  }
  if (retry_pending_) return;
  retry_pending_ = true;
  retry_timer_.expires_after(retry_delay);
  retry_timer_.async_wait([weak = weak_from_this()](error_code ec) {
    if (ec) return;
    if (auto self = weak.lock()) self->on_retry_timer();
  });
}

void group_tracker::on_retry_timer() {
  lock_type lock(mutex_);
  retry_pending_ = false;
  if (closed_) return;
  if (!live_session(lock)) return;
  const bool relist = retry_list_;
  auto reads = std::move(retry_reads_);
  retry_reads_.clear();
  retry_list_ = false;
  if (relist) list(lock);
  for (const auto& name : reads)
    if (members_.listed(name)) read_member(lock, name);
  publish_if_settled(lock);
}

// The session expired: every watch ended with it. Read the group from scratch on the next
// session (the published snapshot stands until then).
void group_tracker::start_afresh(lock_type& lock) {
  ++epoch_;
  members_.clear();
  slots_.clear();
  group_watch_ = watch();
  listing_ = false;
  list_again_ = false;
  checking_existence_ = false;
  reads_in_flight_ = 0;
  retry_reads_.clear();
  retry_later(lock, std::nullopt);
}

void group_tracker::publish_if_settled(lock_type& lock) {
  if (listing_ || checking_existence_ || reads_in_flight_ != 0 || retry_pending_) return;
  auto now = members_.snapshot();
  if (!published_ || *published_ != now) {
    published_ = std::move(now);
    ++version_;
  }
  serve(lock);
}

// ---- the viewer ---------------------------------------------------------------------------

group_viewer::group_viewer(const std::shared_ptr<session_impl>& session, std::string path)
    : session_(session), path_(std::move(path)) {
  if (const std::string why = path_problem(path_); !why.empty()) {
    session->logger()->warn("group view: group path refused: {}", why);
    return;
  }
  tracker_ = group_tracker::of(session, path_);
  id_ = tracker_->add_viewer();
}

group_viewer::~group_viewer() {
  if (tracker_) tracker_->remove_viewer(id_);
}

void group_viewer::wait(completion<std::vector<member_info>> handler) {
  if (tracker_) return tracker_->wait(id_, std::move(handler));
  auto impl = session_.lock();
  const handler_executor ex =
      impl ? impl->tracked_executor() : handler_executor(boost::asio::system_executor());
  complete_via(ex, std::move(handler), make_error_code(errc::bad_path), std::vector<member_info>{});
}

}  // namespace zkcoord::detail

namespace zkcoord {

namespace {
const std::string no_path;
}

group_view::group_view(session& s, std::string group_path)
    : state_(std::make_shared<detail::group_viewer>(detail::session_access::impl(s),
                                                    std::move(group_path))) {}

group_view::~group_view() = default;
group_view::group_view(group_view&&) noexcept = default;
group_view& group_view::operator=(group_view&&) noexcept = default;

const std::string& group_view::path() const noexcept {
  return state_ ? state_->path() : no_path;
}

void group_view::start_wait_change(std::shared_ptr<detail::group_viewer> state,
                                   detail::completion<std::vector<member_info>> handler) {
  if (!state) {
    return detail::complete_via(detail::handler_executor(boost::asio::system_executor()),
                                std::move(handler), make_error_code(errc::bad_argument),
                                std::vector<member_info>{});
  }
  state->wait(std::move(handler));
}

}  // namespace zkcoord
