// SPDX-License-Identifier: Apache-2.0
// One-shot watches: the registry that maps the C client's watcher contexts to watch states,
// firing, delivery on the waiter's executor, cancellation and removal.
#include "session_impl.hpp"

#include "session/c_types.hpp"
#include "session/path_watch.hpp"

#include <boost/asio/dispatch.hpp>

#include <spdlog/spdlog.h>

namespace zkcoord {
namespace detail {

void watch_state::deliver() {
  std::unique_lock lock(mutex);
  if (!waiter || (!event && !ec)) return;
  auto handler = std::move(*waiter);
  waiter.reset();
  waiter_slot.clear();
  const error_code why = event ? error_code{} : ec;
  watch_event ev = event.value_or(watch_event{watch_event_type::deleted, path});
  event.reset();
  ec = make_error_code(zk_errc::no_watcher);  // delivered once: a second wait finds nothing
  waiter_executor = {};                       // no longer pending work
  lock.unlock();
  // Dispatch to the handler's own executor; deliver() already runs on the session's.
  boost::asio::dispatch(boost::asio::append(std::move(handler), why, std::move(ev)));
}

void watch_state::finish(std::optional<watch_event> ev, error_code why) {
  handler_executor ex;
  {
    std::lock_guard lock(mutex);
    if (!armed) return;  // already ended: the first outcome wins
    armed = false;
    if (ev) {
      event = std::move(ev);
    } else {
      ec = why;
    }
    if (!waiter) return;
    ex = waiter_executor;
  }
  post_to(ex, [self = shared_from_this()] { self->deliver(); });
}

std::shared_ptr<watch_state> session_impl::arm(watch& w, const std::string& path,
                                               ZooWatcherType type) {
  auto state = std::make_shared<watch_state>();
  state->session = weak_from_this();
  state->path = path;
  state->type = type;
  state->armed = true;
  {
    std::lock_guard lock(watches_mutex_);
    state->id = next_watch_id_++;
    watches_.emplace(state->id, state);
    count_watch_locked(*state, +1);
  }
  w = watch();  // disarms a previous watch held by w
  w.state_ = state;
  return state;
}

void session_impl::disarm(const std::shared_ptr<watch_state>& state) {
  std::lock_guard wire(watch_wire_mutex_);
  bool shared_path = false;
  {
    std::lock_guard lock(watches_mutex_);
    if (watches_.erase(state->id) == 0) return;
    count_watch_locked(*state, -1);
    shared_path = watched_locked(state->path, state->type);
  }
  // A path watch (path_watch.hpp) of a tree cache on the same path needs the server's too.
  shared_path = shared_path || layer_state<path_watch_hub>().watches(state->path, state->type);
  {
    c_call_lock lock(handle_mutex_);
    if (zh_) {
      // The server keeps one watch per path and type for the whole session, and the C client's
      // per-watcher removal only checks it (ZOO_CHECK_WATCHES). So when no other watch of ours
      // is on this path, remove them all, which also removes the server's. (Not `local` mode:
      // there the C client takes `data` for its own sync-call record. The C client stores the
      // completion argument as the function pointer itself.)
      auto* done = reinterpret_cast<void_completion_t*>(&ignore_reply);
      if (shared_path) {
        zoo_aremove_watches(zh_, state->path.c_str(), state->type, &session_impl::on_watch_event,
                            watch_context(*state), 0, done, nullptr);
      } else {
        zoo_aremove_all_watches(zh_, state->path.c_str(), state->type, 0, done, nullptr);
      }
      after_c_call();
    }
  }
  state->finish(std::nullopt, make_error_code(boost::asio::error::operation_aborted));
}

void session_impl::on_watch_event(zhandle_t* zh, int type, int, const char* path, void* ctx) {
  mark_c_client_thread();
  if (type == ZOO_SESSION_EVENT || type == ZOO_NOTWATCHING_EVENT) return;
  auto* hc = static_cast<const handle_context*>(zoo_get_context(zh));
  // Before the event is handed on (see deletion_observer): the proof of a deletion.
  if (type == ZOO_DELETED_EVENT && path) {
    if (const clientid_t* id = zoo_client_id(zh)) hc->impl->note_deleted(id->client_id, path);
  }
  hc->impl->fire_watch(reinterpret_cast<std::uintptr_t>(ctx),
                       watch_event{event_type_of(type), path ? path : ""});
}

void session_impl::fire_watch(std::uint64_t id, watch_event ev) {
  std::shared_ptr<watch_state> state;
  {
    std::lock_guard lock(watches_mutex_);
    auto it = watches_.find(id);
    if (it == watches_.end()) return;
    state = std::move(it->second);
    watches_.erase(it);
    count_watch_locked(*state, -1);
  }
  state->finish(std::move(ev), {});
}

void session_impl::forget_watch(const watch_state& state) {
  std::lock_guard lock(watches_mutex_);
  if (watches_.erase(state.id) != 0) count_watch_locked(state, -1);
}

void session_impl::fail_all_watches(error_code ec) {
  std::unordered_map<std::uint64_t, std::shared_ptr<watch_state>> all;
  {
    std::lock_guard lock(watches_mutex_);
    all.swap(watches_);
    watched_paths_.clear();
  }
  for (auto& [id, state] : all) state->finish(std::nullopt, ec);
  layer_state<path_watch_hub>().handle_closed();
}

bool session_impl::has_watch_on(const std::string& path, ZooWatcherType type) {
  std::lock_guard lock(watches_mutex_);
  return watched_locked(path, type);
}

namespace {
std::size_t type_slot(ZooWatcherType type) {
  return type == ZWATCHTYPE_CHILD ? 0 : 1;
}
}  // namespace

void session_impl::count_watch_locked(const watch_state& w, int delta) {
  auto& counts = watched_paths_[w.path];
  counts[type_slot(w.type)] += delta;
  if (counts[0] == 0 && counts[1] == 0) watched_paths_.erase(w.path);
}

bool session_impl::watched_locked(const std::string& path, ZooWatcherType type) const {
  const auto it = watched_paths_.find(path);
  return it != watched_paths_.end() && it->second[type_slot(type)] > 0;
}

}  // namespace detail

// ---- public watch -----------------------------------------------------------------------

watch::~watch() {
  if (!state_) return;
  if (auto impl = state_->session.lock()) impl->disarm(state_);
}

watch& watch::operator=(watch&& other) noexcept {
  if (this != &other) {
    if (state_) {
      if (auto impl = state_->session.lock()) impl->disarm(state_);
    }
    state_ = std::move(other.state_);
  }
  return *this;
}

bool watch::armed() const noexcept {
  if (!state_) return false;
  std::lock_guard lock(state_->mutex);
  return state_->armed || state_->event.has_value();
}

void watch::start_wait(std::shared_ptr<detail::watch_state> state,
                       detail::completion<watch_event> handler) {
  auto impl = state ? state->session.lock() : nullptr;
  const detail::handler_executor ex =
      impl ? impl->tracked_executor() : detail::handler_executor(boost::asio::system_executor());
  if (!state) {
    return detail::complete_via(ex, std::move(handler), make_error_code(zk_errc::no_watcher),
                                watch_event{});
  }
  auto slot = boost::asio::get_associated_cancellation_slot(handler);
  {
    std::lock_guard lock(state->mutex);
    state->waiter.emplace(std::move(handler));
    state->waiter_executor = ex;
    state->waiter_slot = slot;
    if (slot.is_connected()) {
      slot.assign([weak =
                       std::weak_ptr<detail::watch_state>(state)](boost::asio::cancellation_type) {
        auto s = weak.lock();
        if (!s) return;
        std::unique_lock lock(s->mutex);
        if (!s->waiter) return;
        auto h = std::move(*s->waiter);
        s->waiter.reset();
        auto ex = std::move(s->waiter_executor);
        s->waiter_executor = {};
        lock.unlock();
        detail::complete_via(ex, std::move(h),
                             make_error_code(boost::asio::error::operation_aborted), watch_event{});
      });
    }
  }
  detail::post_to(ex, [state] { state->deliver(); });
}

}  // namespace zkcoord
