// SPDX-License-Identifier: Apache-2.0
// persistent_node: Curator's PersistentNode on the session (see persistent_node_state.hpp).
#include "persistent_node/persistent_node_state.hpp"

#include "session/c_types.hpp"
#include "session/container_parents.hpp"
#include "session/session_requests.hpp"

#include <zkcoord/detail/session_access.hpp>
#include <zkcoord/path.hpp>

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/system_executor.hpp>
#include <boost/uuid/uuid.hpp>
#include <boost/uuid/uuid_generators.hpp>
#include <boost/uuid/uuid_io.hpp>

#include <spdlog/spdlog.h>

namespace zkcoord::detail {
namespace {

/// Creates before giving up on making the parents (a client deleting them in a loop).
constexpr int max_parent_attempts = 20;
/// A transient failure while the session stays connected (an operation timeout) is retried
/// after this long; otherwise the next reconnect or new session retries.
constexpr std::chrono::milliseconds retry_delay{200};

create_mode without_sequence(create_mode m) {
  switch (m) {
    case create_mode::persistent_sequential:
      return create_mode::persistent;
    case create_mode::ephemeral_sequential:
      return create_mode::ephemeral;
    case create_mode::persistent_sequential_with_ttl:
      return create_mode::persistent_with_ttl;
    default:
      return m;
  }
}

std::string join(const std::string& parent, const std::string& name) {
  return parent == "/" ? "/" + name : parent + "/" + name;
}

bool live(session_state s) {
  return s == session_state::connected || s == session_state::reconnected;
}

}  // namespace

persistent_node_state::persistent_node_state(std::shared_ptr<session_impl> impl, std::string path,
                                             std::string data, persistent_node_options options)
    : impl_(std::move(impl)),
      base_path_(std::move(path)),
      options_(std::move(options)),
      data_(std::move(data)) {
  std::string why;
  if (auto p = path_problem(base_path_, is_sequential(options_.mode)); !p.empty()) {
    problem_ = make_error_code(errc::bad_path);
    why = p;
  } else if (base_path_ == "/") {
    problem_ = make_error_code(errc::bad_path);
    why = "a persistent node cannot be the root";
  } else if (options_.mode == create_mode::container) {
    problem_ = make_error_code(errc::bad_argument);
    why = "a persistent node cannot be a container";
  } else if (auto t = ttl_problem(options_.mode, options_.ttl); !t.empty()) {
    problem_ = make_error_code(errc::bad_argument);
    why = t;
  } else if (data_.size() > max_data_size) {
    problem_ = make_error_code(errc::data_too_large);
    why = "data exceeds ZooKeeper's 1 MiB limit";
  }
  if (problem_) {
    impl_->logger()->warn("persistent node \"{}\" refused: {}", base_path_, why);
    failed_ = problem_;
    create_path_ = base_path_;
    return;
  }
  create_path_ = base_path_;
  if (options_.protected_name) {
    boost::uuids::random_generator generate;
    prefix_ = "_c_" + boost::uuids::to_string(generate()) + "-";
    const auto slash = base_path_.rfind('/');
    create_path_ = join(parent_path(base_path_), prefix_ + base_path_.substr(slash + 1));
  }
}

persistent_node_state::~persistent_node_state() = default;

bool persistent_node_state::ephemeral() const noexcept {
  return options_.mode == create_mode::ephemeral ||
         options_.mode == create_mode::ephemeral_sequential;
}

void persistent_node_state::start() {
  if (problem_) return;
  auto sub = impl_->subscribe([weak = weak_from_this()](session_state s) {
    if (auto self = weak.lock()) self->on_state(s);
  });
  std::lock_guard lock(mutex_);
  subscription_ = std::move(sub);
  create_locked();
}

std::string persistent_node_state::actual_path() const {
  std::lock_guard lock(mutex_);
  return actual_;
}

std::string persistent_node_state::data() const {
  std::lock_guard lock(mutex_);
  return data_;
}

void persistent_node_state::on_kept(std::function<void()> hook) {
  std::lock_guard lock(mutex_);
  kept_hook_ = std::move(hook);
}

void persistent_node_state::on_state(session_state s) {
  std::lock_guard lock(mutex_);
  if (closed_) return;
  switch (s) {
    case session_state::connected:    // the first session, or the one after an expiry
    case session_state::reconnected:  // same session: write the data again (CURATOR-241)
      failed_ = {};
      create_locked();
      break;
    case session_state::closed:
      initial_done_locked(make_error_code(errc::closed));
      fail_sets_locked(make_error_code(errc::closed));
      break;
    default:
      break;
  }
}

void persistent_node_state::create_locked() {
  if (closed_ || problem_) return;
  if (creating_) {
    again_ = true;
    return;
  }
  creating_ = true;
  again_ = false;
  if (actual_.empty() && !prefix_.empty() && maybe_created_) return send_find();
  send_create();
}

void persistent_node_state::send_create() {
  // Once the node's path is known it is created again at that path, never at a new sequence
  // number or with a new protection prefix (CURATOR-190).
  const bool known = !actual_.empty();
  const std::string path = known ? actual_ : create_path_;
  const create_mode mode = known ? without_sequence(options_.mode) : options_.mode;
  const std::uint64_t generation = data_generation_;
  session_access::create(
      impl_,
      [self = shared_from_this(), path, generation](error_code ec, created_node node) {
        self->on_create_reply(ec, node, path, generation);
      },
      path, data_,
      create_options{.mode = mode, .acl_entries = options_.acl_entries, .ttl = options_.ttl});
}

// A create whose reply was lost may have made our protected node: look for it by its prefix
// before creating a second one.
void persistent_node_state::send_find() {
  const std::string parent = parent_path(create_path_);
  session_access::children(
      impl_,
      [self = shared_from_this(), parent](error_code ec, child_list list) {
        std::lock_guard lock(self->mutex_);
        self->creating_ = false;
        if (self->closed_) {
          // Ours may be there: delete it when closing.
          for (const auto& name : list.names)
            if (!ec && name.starts_with(self->prefix_)) self->actual_ = join(parent, name);
          if (self->options_.remove_on_close && !self->actual_.empty()) return self->send_delete();
          return self->close_done_locked({});
        }
        if (ec == zk_errc::no_node) ec = {};  // no parent: no node of ours either
        if (ec) return self->on_attempt_error(ec);
        self->maybe_created_ = false;
        for (const auto& name : list.names) {
          if (!name.starts_with(self->prefix_)) continue;
          self->actual_ = join(parent, name);
          self->impl_->logger()->debug("persistent node {}: found our node {} after a lost reply",
                                       self->base_path_, self->actual_);
          self->creating_ = true;
          self->arm_watch_locked();
          self->send_set(self->data_generation_, true);
          return;
        }
        self->creating_ = true;
        self->send_create();
      },
      parent);
}

void persistent_node_state::on_create_reply(error_code ec, const created_node& node,
                                            const std::string& path, std::uint64_t generation) {
  std::lock_guard lock(mutex_);
  creating_ = false;
  if (closed_) {
    // Closed while the create was in flight: delete what it made.
    if (!ec && actual_.empty()) actual_ = node.path;
    if (ec == condition::connection_loss && actual_.empty() && !prefix_.empty()) {
      creating_ = true;
      return send_find();
    }
    if (options_.remove_on_close && !actual_.empty() && (!ec || ec == zk_errc::node_exists))
      return send_delete();
    return close_done_locked({});
  }
  if (!ec) {
    actual_ = node.path;
    maybe_created_ = false;
    parent_attempts_ = 0;
    arm_watch_locked();
    kept_locked(generation);
    if (data_generation_ > generation) send_set(data_generation_, false);
  } else if (ec == zk_errc::node_exists) {
    // Someone's node, or ours from before: take it over and overwrite its data, never delete
    // it (CURATOR-154); after a reconnect this writes our data again (CURATOR-241).
    if (actual_.empty()) actual_ = path;
    parent_attempts_ = 0;
    arm_watch_locked();
    creating_ = true;
    send_set(data_generation_, true);
    return;
  } else if (ec == zk_errc::no_node && options_.create_parents &&
             ++parent_attempts_ <= max_parent_attempts) {
    creating_ = true;
    request_container_parents(
        *impl_, any_session, parent_path(path),
        [self = shared_from_this()](error_code pec, std::vector<std::string>) {
          std::lock_guard lock(self->mutex_);
          self->creating_ = false;
          if (self->closed_) return self->close_done_locked({});
          if (pec) return self->on_attempt_error(pec);
          self->create_locked();
        });
    return;
  } else {
    if (ec == condition::connection_loss && actual_.empty()) maybe_created_ = true;
    on_attempt_error(ec);
  }
  if (again_) create_locked();
}

void persistent_node_state::on_attempt_error(error_code ec) {
  if (ec == condition::connection_loss || ec == errc::not_connected) {
    // The reconnect (or the first connection) creates again; an operation timeout on a live
    // connection is retried here.
    if (live(impl_->state())) retry_later_locked();
    return;
  }
  if (ec == condition::session_expired || ec == errc::closed) return;  // the states tell
  if (ec == zk_errc::no_node) {
    impl_->logger()->warn("persistent node {}: its parent does not exist{}", base_path_,
                          options_.create_parents ? " (gave up making it)" : "");
  } else {
    impl_->logger()->warn("persistent node {}: {}", base_path_, ec.message());
  }
  failed_ = ec;
  initial_done_locked(ec);
  fail_sets_locked(ec);
}

void persistent_node_state::retry_later_locked() {
  if (retry_timer_) return;
  retry_timer_ = std::make_shared<boost::asio::steady_timer>(impl_->executor(), retry_delay);
  retry_timer_->async_wait([self = shared_from_this()](error_code) {
    std::lock_guard lock(self->mutex_);
    self->retry_timer_.reset();
    self->create_locked();
  });
}

void persistent_node_state::send_set(std::uint64_t generation, bool attempt) {
  request_set(
      *impl_, any_session, actual_, data_, any_version,
      [self = shared_from_this(), generation, attempt](error_code ec, node_stat) {
        std::lock_guard lock(self->mutex_);
        if (attempt) self->creating_ = false;
        if (self->closed_) {
          if (attempt && self->options_.remove_on_close) return self->send_delete();
          if (attempt) return self->close_done_locked({});
          return;
        }
        if (!ec) {
          if (attempt) self->kept_locked(generation);
          self->written_locked(generation);
        } else if (ec == zk_errc::no_node) {
          // Deleted in between: create it again (with the latest data).
          self->create_locked();
          return;
        } else if (attempt) {
          self->on_attempt_error(ec);
        } else if (!(ec == condition::connection_loss) && !(ec == condition::session_expired)) {
          self->fail_sets_locked(ec);
        }
        if (attempt && self->again_) self->create_locked();
      });
}

void persistent_node_state::kept_locked(std::uint64_t written) {
  failed_ = {};
  written_locked(written);
  initial_done_locked({});
  if (kept_hook_) post_to(impl_->executor(), kept_hook_);
}

void persistent_node_state::arm_watch_locked() {
  if (closed_ || actual_.empty() || watch_.armed()) return;
  watch_ = watch{};
  request_exists(*impl_, any_session, actual_, &watch_,
                 [self = shared_from_this()](error_code ec, std::optional<node_stat> stat) {
                   std::lock_guard lock(self->mutex_);
                   if (ec || self->closed_) return;
                   if (!stat) return self->create_locked();
                   if ((stat->ephemeral_owner != 0) != self->ephemeral())
                     self->impl_->logger()->warn(
                         "persistent node {}: the existing node is {}ephemeral, not as asked "
                         "(made by someone else?)",
                         self->actual_, stat->ephemeral_owner != 0 ? "" : "not ");
                 });
  watch_.async_wait([weak = weak_from_this()](error_code ec, watch_event ev) {
    auto self = weak.lock();
    if (!self) return;
    std::lock_guard lock(self->mutex_);
    if (self->closed_) return;
    if (ec) {
      // The session ended (expiry): the new session's create arms a new watch, unless it ran
      // before this delivery; then arm it here.
      // (Other failures: the reconnect's create arms it again.)
      if (ec == condition::session_expired && live(self->impl_->state()) && !self->creating_)
        self->arm_watch_locked();
      return;
    }
    if (ev.type == watch_event_type::deleted) {
      self->failed_ = {};
      self->create_locked();
    } else {
      self->arm_watch_locked();
    }
  });
}

void persistent_node_state::initial_done_locked(error_code ec) {
  if (!ec) created_once_ = true;
  for (auto& w : waiters_) {
    if (w.timer) w.timer->cancel();
    complete_via(w.executor, std::move(w.handler), ec);
  }
  waiters_.clear();
}

void persistent_node_state::written_locked(std::uint64_t generation) {
  if (generation > written_generation_) written_generation_ = generation;
  for (auto it = sets_.begin(); it != sets_.end();) {
    if (it->generation > written_generation_) {
      ++it;
      continue;
    }
    complete_via(it->executor, std::move(it->handler), error_code{});
    it = sets_.erase(it);
  }
}

void persistent_node_state::fail_sets_locked(error_code ec) {
  for (auto& s : sets_) complete_via(s.executor, std::move(s.handler), ec);
  sets_.clear();
}

void persistent_node_state::wait_initial(std::chrono::milliseconds timeout,
                                         void_completion handler) {
  auto slot = boost::asio::get_associated_cancellation_slot(handler);
  std::lock_guard lock(mutex_);
  const auto ex = impl_->tracked_executor();
  if (created_once_) return complete_via(ex, std::move(handler), error_code{});
  if (closed_) return complete_via(ex, std::move(handler), make_error_code(errc::closed));
  if (failed_) return complete_via(ex, std::move(handler), failed_);
  const std::uint64_t id = next_waiter_++;
  auto timer = std::make_shared<boost::asio::steady_timer>(impl_->executor(), timeout);
  timer->async_wait([weak = weak_from_this(), id](error_code ec) {
    if (ec) return;  // cancelled: completed otherwise
    if (auto self = weak.lock()) self->end_wait(id, make_error_code(errc::timeout));
  });
  if (slot.is_connected()) {
    slot.assign([weak = weak_from_this(), id](boost::asio::cancellation_type) {
      if (auto self = weak.lock())
        self->end_wait(id, make_error_code(boost::asio::error::operation_aborted));
    });
  }
  waiters_.push_back(waiter{id, std::move(handler), ex, std::move(timer)});
}

void persistent_node_state::end_wait(std::uint64_t id, error_code ec) {
  std::lock_guard lock(mutex_);
  for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
    if (it->id != id) continue;
    if (it->timer) it->timer->cancel();
    complete_via(it->executor, std::move(it->handler), ec);
    waiters_.erase(it);
    return;
  }
}

void persistent_node_state::set_data(std::string data, void_completion handler) {
  std::lock_guard lock(mutex_);
  const auto ex = impl_->tracked_executor();
  if (closed_) return complete_via(ex, std::move(handler), make_error_code(errc::closed));
  if (problem_) return complete_via(ex, std::move(handler), problem_);
  if (data.size() > max_data_size) {
    impl_->logger()->warn("persistent node {}: data exceeds ZooKeeper's 1 MiB limit", base_path_);
    return complete_via(ex, std::move(handler), make_error_code(errc::data_too_large));
  }
  data_ = std::move(data);
  const std::uint64_t generation = ++data_generation_;
  sets_.push_back(set_waiter{generation, std::move(handler), ex});
  // A create in flight carries older data: its reply sends the latest. Without a node yet,
  // the next create writes it.
  if (!actual_.empty() && !creating_) send_set(generation, false);
}

void persistent_node_state::close(std::optional<void_completion> handler) {
  state_subscription sub;
  watch old_watch;
  {
    std::lock_guard lock(mutex_);
    const auto ex = impl_->tracked_executor();
    if (handler) {
      if (close_finished_ || (closed_ && !deleting_ && !creating_))
        return complete_via(ex, std::move(*handler), error_code{});
      close_waiters_.emplace_back(std::move(*handler), ex);
    }
    if (closed_) return;
    closed_ = true;
    sub = std::move(subscription_);
    old_watch = std::move(watch_);
    if (retry_timer_) retry_timer_->cancel();
    initial_done_locked(make_error_code(errc::closed));
    fail_sets_locked(make_error_code(errc::closed));
    if (creating_) {
      // The reply in flight decides (it deletes what it made).
    } else if (options_.remove_on_close && !actual_.empty()) {
      send_delete();
    } else {
      close_done_locked({});
    }
  }
  // Outside the lock: the listener takes it, and removing the watch talks to the client.
}

void persistent_node_state::send_delete() {
  deleting_ = true;
  session_access::remove(
      impl_,
      [self = shared_from_this()](error_code ec) {
        std::lock_guard lock(self->mutex_);
        if (!ec || ec == zk_errc::no_node) return self->close_done_locked({});
        if (ec == condition::session_expired && self->ephemeral())
          return self->close_done_locked({});  // went with the session
        if (ec == errc::closed) return self->close_done_locked(ec);
        if (ec == condition::connection_loss || ec == condition::session_expired ||
            ec == errc::not_connected) {
          // Retried until it succeeds or the session ends (Curator's guaranteed delete).
          auto timer =
              std::make_shared<boost::asio::steady_timer>(self->impl_->executor(), retry_delay);
          timer->async_wait([self, timer](error_code) {
            std::lock_guard lock(self->mutex_);
            self->send_delete();
          });
          return;
        }
        self->impl_->logger()->warn("persistent node {}: delete on close failed: {}", self->actual_,
                                    ec.message());
        self->close_done_locked(ec);
      },
      actual_, any_version);
}

void persistent_node_state::close_done_locked(error_code ec) {
  deleting_ = false;
  close_finished_ = true;
  for (auto& [h, ex] : close_waiters_) complete_via(ex, std::move(h), ec);
  close_waiters_.clear();
}

}  // namespace zkcoord::detail

namespace zkcoord {

persistent_node::persistent_node(session& s, std::string path, std::string data,
                                 persistent_node_options options)
    : state_(std::make_shared<detail::persistent_node_state>(
          detail::session_access::impl(s), std::move(path), std::move(data), std::move(options))) {
  state_->start();
}

persistent_node::~persistent_node() {
  close();
}

persistent_node::persistent_node(persistent_node&&) noexcept = default;

persistent_node& persistent_node::operator=(persistent_node&& other) noexcept {
  if (this != &other) {
    close();
    state_ = std::move(other.state_);
  }
  return *this;
}

const std::string& persistent_node::base_path() const noexcept {
  static const std::string empty;
  return state_ ? state_->base_path() : empty;
}

std::string persistent_node::actual_path() const {
  return state_ ? state_->actual_path() : std::string();
}

std::string persistent_node::data() const {
  return state_ ? state_->data() : std::string();
}

void persistent_node::close() {
  if (state_) state_->close(std::nullopt);
}

void persistent_node::start_wait_initial(std::shared_ptr<detail::persistent_node_state> state,
                                         std::chrono::milliseconds timeout,
                                         detail::void_completion handler) {
  if (!state)
    return detail::complete_via(boost::asio::system_executor(), std::move(handler),
                                make_error_code(errc::closed));
  state->wait_initial(timeout, std::move(handler));
}

void persistent_node::start_set_data(std::shared_ptr<detail::persistent_node_state> state,
                                     std::string data, detail::void_completion handler) {
  if (!state)
    return detail::complete_via(boost::asio::system_executor(), std::move(handler),
                                make_error_code(errc::closed));
  state->set_data(std::move(data), std::move(handler));
}

void persistent_node::start_close(std::shared_ptr<detail::persistent_node_state> state,
                                  detail::void_completion handler) {
  if (!state)
    return detail::complete_via(boost::asio::system_executor(), std::move(handler), error_code{});
  state->close(std::move(handler));
}

}  // namespace zkcoord
