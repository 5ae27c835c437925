// SPDX-License-Identifier: Apache-2.0
// The tree cache's driver on a session (see cache_driver.hpp) and the public cache types.
#include "cache/cache_driver.hpp"

#include "recipe/attempt_driver.hpp"
#include "session/path_watch.hpp"
#include "session/session_requests.hpp"

#include <zkcoord/detail/session_access.hpp>
#include <zkcoord/path.hpp>

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/system_executor.hpp>

#include <spdlog/spdlog.h>

#include <exception>
#include <utility>

namespace zkcoord::detail {

namespace {

error_code root_error(const std::string& root) {
  return path_problem(root).empty() ? error_code{} : make_error_code(errc::bad_path);
}

error_code aborted() {
  return make_error_code(boost::asio::error::operation_aborted);
}

}  // namespace

cache_driver::cache_driver(const std::shared_ptr<session_impl>& session, std::string root,
                           cache_options options)
    : session_(session),
      executor_(session->executor()),
      root_(std::move(root)),
      root_problem_(root_error(root_)),
      fsm_(root_, std::move(options)) {}

cache_driver::~cache_driver() {
  if (sub_ == 0) return;
  if (auto impl = session_.lock()) impl->layer_state<path_watch_hub>().unsubscribe(sub_);
}

handler_executor cache_driver::executor_for() const {
  auto impl = session_.lock();
  return impl ? impl->tracked_executor() : handler_executor(boost::asio::system_executor());
}

error_code cache_driver::start() {
  if (root_problem_) return root_problem_;
  auto impl = session_.lock();
  if (!impl) return make_error_code(errc::closed);
  lock_type lock(mutex_);
  if (phase_ == phase::running) return {};
  if (phase_ == phase::stopped) return make_error_code(errc::closed);
  // Subscribed before the check: a state change after it is not missed.
  subscription_ = impl->subscribe([weak = weak_from_this()](session_state s) {
    if (auto me = weak.lock()) me->on_session_state(s);
  });
  if (error_code problem = session_problem(*impl)) {
    auto sub = std::move(subscription_);
    lock.unlock();
    return problem;  // sub ends here, outside the mutex
  }
  phase_ = phase::running;
  session_id_ = impl->session_id();
  // The events of our watches, handed on in the order the C client fired them.
  sub_ = impl->layer_state<path_watch_hub>().subscribe(
      [weak = weak_from_this(), ex = executor_](const watch_event& event) {
        deliver_from_client(ex, [weak, event] {
          if (auto me = weak.lock()) me->on_watch(event);
        });
      });
  fsm_.start();
  pump(lock);
  return {};
}

// Hands the machine's reads to the session and its events to the queue or the listener.
void cache_driver::pump(lock_type& lock) {
  auto events = fsm_.take_events();
  auto requests = fsm_.take_requests();
  // A node the machine stopped tracking loses its watches (removed from the server) unless a
  // read arming one is in flight: then its reply drops them (on_reply).
  auto impl = session_.lock();
  if (impl) {
    for (const auto& e : events) {
      if (e.type != cache_event_type::removed || e.path == root_ || fsm_.tracks(e.path)) continue;
      drop(*impl, e.path);
    }
  }
  if (!requests.empty()) {
    if (!impl) {
      // The session object is gone: its requests could not be answered.
      boost::asio::post(executor_, [weak = weak_from_this()] {
        if (auto me = weak.lock()) me->on_session_state(session_state::closed);
      });
    } else {
      for (const auto& r : requests) send(lock, *impl, r);
    }
  }
  for (auto& e : events) {
    if (has_listener_) {
      backlog_.push_back(e);
    } else {
      queue_.push_back(std::move(e));
    }
  }
  if (fsm_.initialized()) {
    for (auto& [handler, ex] : start_waiters_) complete_via(ex, std::move(handler), error_code{});
    start_waiters_.clear();
  }
  serve_waiter(lock);
  if (!backlog_.empty() && !draining_) {
    draining_ = true;
    boost::asio::post(executor_, [weak = weak_from_this()] {
      if (auto me = weak.lock()) me->drain_listener();
    });
  }
}

void cache_driver::send(lock_type&, session_impl& impl, const cache_request& r) {
  const ZooWatcherType type = r.kind == cache_read::children ? ZWATCHTYPE_CHILD : ZWATCHTYPE_DATA;
  // exists: always armed anew, as the root's creation must be waited for.
  const bool arming = impl.layer_state<path_watch_hub>().begin_arm(sub_, r.path, type,
                                                                   r.kind == cache_read::exists);
  const std::uint64_t epoch = epoch_;
  auto weak = weak_from_this();
  const std::string& path = r.path;
  switch (r.kind) {
    case cache_read::data:
      request_get_watched(
          impl, path, sub_, arming, [weak, path, epoch, arming](error_code ec, node_data node) {
            if (auto me = weak.lock())
              me->on_reply(path, epoch, arming, ZWATCHTYPE_DATA, ec,
                           [&](error_code e) { me->fsm_.on_data(path, e, node.data, node.stat); });
          });
      break;
    case cache_read::children:
      request_children_watched(
          impl, path, sub_, arming, [weak, path, epoch, arming](error_code ec, child_list list) {
            if (auto me = weak.lock())
              me->on_reply(path, epoch, arming, ZWATCHTYPE_CHILD, ec, [&](error_code e) {
                me->fsm_.on_children(path, e, list.names, list.stat);
              });
          });
      break;
    case cache_read::exists:
      request_exists_watched(
          impl, path, sub_, arming,
          [weak, path, epoch, arming](error_code ec, std::optional<node_stat> stat) {
            if (!ec && !stat) ec = make_error_code(zk_errc::no_node);
            if (auto me = weak.lock())
              me->on_reply(path, epoch, arming, ZWATCHTYPE_DATA, ec, [&](error_code e) {
                me->fsm_.on_exists(path, e, stat.value_or(node_stat{}));
              });
          });
      break;
  }
}

bool cache_driver::drop(session_impl& impl, const std::string& path) {
  return impl.layer_state<path_watch_hub>().drop(impl, sub_, path);
}

void cache_driver::on_reply(const std::string& path, std::uint64_t epoch, bool arming,
                            ZooWatcherType type, error_code ec,
                            const std::function<void(error_code)>& feed) {
  std::shared_ptr<void> keep;         // dropped after the mutex is released
  const auto impl = session_.lock();  // likewise
  lock_type lock(mutex_);
  if (impl && arming) impl->layer_state<path_watch_hub>().end_arm(sub_, path, type);
  if (phase_ != phase::running) {
    // Stopped: the watch this read set on the server is known to the C client now, so
    // dropping it removes it there.
    if (impl) drop(*impl, path);
    if (kept_alive_ && (!impl || !impl->layer_state<path_watch_hub>().holds_any(sub_))) {
      kept_alive_ = false;
      if (impl) keep = impl->let_go(this);
    }
    return;
  }
  // A read that a reconnect already overtook: the walk after that reconnect reads it again,
  // so its loss must not mark the new walk incomplete.
  if ((ec == condition::connection_loss || ec == condition::session_expired) && epoch != epoch_)
    ec = aborted();
  feed(ec);
  if (impl && path != root_ && !fsm_.tracks(path)) drop(*impl, path);
  pump(lock);
}

void cache_driver::on_watch(const watch_event& event) {
  // A watch that ends without an event (dropped, the session ended) is not told: the replies
  // and the session's state changes say what happened.
  lock_type lock(mutex_);
  if (phase_ != phase::running) return;
  fsm_.on_watch(event);
  pump(lock);
}

void cache_driver::on_session_state(session_state s) {
  leftovers left;  // released after the mutex
  lock_type lock(mutex_);
  if (phase_ != phase::running) return;
  switch (s) {
    case session_state::connecting:
      return;
    case session_state::suspended:
      fsm_.on_session(cache_session_event::suspended);
      break;
    case session_state::reconnected:
      ++epoch_;
      fsm_.on_session(cache_session_event::reconnected);
      break;
    case session_state::expired:
      lost_ = true;
      fsm_.on_session(cache_session_event::expired);
      break;
    case session_state::connected: {
      auto impl = session_.lock();
      const std::int64_t id = impl ? impl->session_id() : 0;
      if (!lost_ && id == session_id_) return;
      if (!lost_) fsm_.on_session(cache_session_event::expired);  // its event was missed
      lost_ = false;
      session_id_ = id;
      ++epoch_;
      fsm_.on_session(cache_session_event::new_session);
      break;
    }
    case session_state::closed:
      return end(lock, make_error_code(errc::closed), left);
  }
  pump(lock);
}

void cache_driver::serve_waiter(lock_type&) {
  if (!waiter_) return;
  error_code ec;
  cache_event event;
  if (!queue_.empty()) {
    event = std::move(queue_.front());
    queue_.pop_front();
  } else if (phase_ == phase::stopped) {
    ec = ended_;
  } else {
    return;
  }
  auto w = std::move(*waiter_);
  waiter_.reset();
  if (w.cancel.is_connected()) w.cancel.clear();
  complete_via(w.executor, std::move(w.handler), ec, std::move(event));
}

void cache_driver::end(lock_type& lock, error_code why, leftovers& left) {
  phase_ = phase::stopped;
  ended_ = why;
  queue_.clear();
  for (auto& [handler, ex] : start_waiters_) complete_via(ex, std::move(handler), why);
  start_waiters_.clear();
  serve_waiter(lock);
  left.subscription = std::move(subscription_);
  auto impl = session_.lock();
  if (!impl || sub_ == 0) return;
  // Removes the watches now, but those of the paths with an arming read in flight: their
  // replies drop them (on_reply), and the session keeps us until then.
  if (!impl->layer_state<path_watch_hub>().drop_all(*impl, sub_) && !kept_alive_) {
    impl->keep_alive(shared_from_this());
    kept_alive_ = true;
  }
}

void cache_driver::stop() noexcept {
  leftovers left;  // released after the mutex: removing watches and the subscription
  {
    lock_type lock(mutex_);
    if (phase_ != phase::stopped) end(lock, aborted(), left);
  }
  left = leftovers{};
  std::lock_guard listener(listener_mutex_);
  silenced_ = true;
}

void cache_driver::drain_listener() {
  for (;;) {
    cache_event event;
    {
      lock_type lock(mutex_);
      if (backlog_.empty()) {
        draining_ = false;
        return;
      }
      event = std::move(backlog_.front());
      backlog_.pop_front();
    }
    std::lock_guard listener(listener_mutex_);
    if (silenced_ || !listener_) continue;
    try {
      listener_(event);
    } catch (const std::exception& e) {
      if (auto impl = session_.lock())
        impl->logger()->warn("tree cache {}: listener threw: {}", root_, e.what());
    } catch (...) {
      if (auto impl = session_.lock()) impl->logger()->warn("tree cache {}: listener threw", root_);
    }
  }
}

void cache_driver::set_listener(std::function<void(const cache_event&)> listener) {
  const bool set = static_cast<bool>(listener);
  {
    std::lock_guard guard(listener_mutex_);
    listener_ = std::move(listener);
  }
  lock_type lock(mutex_);
  has_listener_ = set;
}

void cache_driver::wait_initialized(void_completion handler) {
  const handler_executor ex = executor_for();
  if (error_code ec = start()) return complete_via(ex, std::move(handler), ec);
  lock_type lock(mutex_);
  if (fsm_.initialized()) return complete_via(ex, std::move(handler), error_code{});
  if (phase_ == phase::stopped) return complete_via(ex, std::move(handler), ended_);
  start_waiters_.emplace_back(std::move(handler), ex);
}

void cache_driver::next_event(completion<cache_event> handler) {
  const handler_executor ex = executor_for();
  lock_type lock(mutex_);
  if (waiter_) {
    return complete_via(ex, std::move(handler), make_error_code(errc::already_held), cache_event{});
  }
  auto cancel = boost::asio::get_associated_cancellation_slot(handler);
  waiter_.emplace(event_waiter{std::move(handler), ex, cancel});
  if (cancel.is_connected()) {
    cancel.assign([weak = weak_from_this()](boost::asio::cancellation_type) {
      auto me = weak.lock();
      if (!me) return;
      lock_type lock(me->mutex_);
      if (!me->waiter_) return;
      auto w = std::move(*me->waiter_);
      me->waiter_.reset();
      // No event is taken: the next wait gets it.
      complete_via(w.executor, std::move(w.handler), aborted(), cache_event{});
    });
  }
  serve_waiter(lock);
}

std::optional<cached_node> cache_driver::get(std::string_view path) const {
  lock_type lock(mutex_);
  return fsm_.get(path);
}

std::vector<std::string> cache_driver::children(std::string_view path) const {
  lock_type lock(mutex_);
  return fsm_.children(path);
}

std::size_t cache_driver::size() const {
  lock_type lock(mutex_);
  return fsm_.size();
}

bool cache_driver::initialized() const noexcept {
  lock_type lock(mutex_);
  return fsm_.initialized();
}

}  // namespace zkcoord::detail

namespace zkcoord {

namespace {

const std::string no_root;

cache_options with_depth(cache_options options, std::size_t depth) {
  options.max_depth = depth;
  return options;
}

void complete_moved_from(detail::void_completion handler) {
  detail::complete_via(detail::handler_executor(boost::asio::system_executor()), std::move(handler),
                       make_error_code(errc::bad_argument));
}

}  // namespace

tree_cache::tree_cache(session& s, std::string root, cache_options options)
    : driver_(std::make_shared<detail::cache_driver>(detail::session_access::impl(s),
                                                     std::move(root), std::move(options))) {}

tree_cache::~tree_cache() {
  stop();
}

tree_cache::tree_cache(tree_cache&&) noexcept = default;

tree_cache& tree_cache::operator=(tree_cache&& other) noexcept {
  if (this != &other) {
    stop();
    driver_ = std::move(other.driver_);
  }
  return *this;
}

const std::string& tree_cache::root() const noexcept {
  return driver_ ? driver_->root() : no_root;
}

error_code tree_cache::start() {
  return driver_ ? driver_->start() : make_error_code(errc::bad_argument);
}

void tree_cache::stop() noexcept {
  if (driver_) driver_->stop();
}

std::optional<cached_node> tree_cache::get(std::string_view path) const {
  return driver_ ? driver_->get(path) : std::nullopt;
}

std::vector<std::string> tree_cache::children(std::string_view path) const {
  return driver_ ? driver_->children(path) : std::vector<std::string>{};
}

std::size_t tree_cache::size() const {
  return driver_ ? driver_->size() : 0;
}

bool tree_cache::initialized() const noexcept {
  return driver_ && driver_->initialized();
}

void tree_cache::set_listener(std::function<void(const cache_event&)> listener) {
  if (driver_) driver_->set_listener(std::move(listener));
}

void tree_cache::start_and_wait(std::shared_ptr<detail::cache_driver> d,
                                detail::void_completion handler) {
  if (!d) return complete_moved_from(std::move(handler));
  d->wait_initialized(std::move(handler));
}

void tree_cache::start_next_event(std::shared_ptr<detail::cache_driver> d,
                                  detail::completion<cache_event> handler) {
  if (!d) {
    return detail::complete_via(detail::handler_executor(boost::asio::system_executor()),
                                std::move(handler), make_error_code(errc::bad_argument),
                                cache_event{});
  }
  d->next_event(std::move(handler));
}

node_cache::node_cache(session& s, std::string path, cache_options options)
    : tree_cache(s, std::move(path), with_depth(std::move(options), 0)) {}

children_cache::children_cache(session& s, std::string path, cache_options options)
    : tree_cache(s, std::move(path), with_depth(std::move(options), 1)) {}

}  // namespace zkcoord
