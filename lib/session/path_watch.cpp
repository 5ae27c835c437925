// SPDX-License-Identifier: Apache-2.0
// Path watches (see path_watch.hpp): the hub's bookkeeping, its C client watcher, the reads
// that arm its watches and the removal of a path's watches.
#include "session/path_watch.hpp"
#include "session/c_types.hpp"

#include "session/session_replies.hpp"
#include "session/session_requests.hpp"

#include <algorithm>
#include <utility>

namespace zkcoord::detail {
namespace {

constexpr std::uint8_t data_bit = 1;
constexpr std::uint8_t child_bit = 2;

int index_of(ZooWatcherType type) {
  return type == ZWATCHTYPE_CHILD ? 1 : 0;
}
std::uint8_t bit_of(ZooWatcherType type) {
  return type == ZWATCHTYPE_CHILD ? child_bit : data_bit;
}

// A read arming a hub watch: its reply, on the C client's completion thread and before it is
// handed on, tells the hub whether the C client registered the watch.
template <class T>
struct armed_op : pending_op<T> {
  path_watch_hub* hub = nullptr;
  std::uint32_t sub = 0;
  std::string path;
  ZooWatcherType type = ZWATCHTYPE_DATA;
  void settle(int rc, bool exists) {
    // The C client registers an exists watch on ZOK and ZNONODE, the others only on ZOK.
    if (rc == ZOK || (exists && rc == ZNONODE))
      hub->registered(*this->impl, sub, path, type, this->generation);
  }
};

template <class T>
armed_op<T>* as_armed(const void* data) {
  return static_cast<armed_op<T>*>(const_cast<void*>(data));
}

void on_armed_get_reply(int rc, const char* value, int len, const Stat* stat, const void* data) {
  auto* op = as_armed<node_data>(data);
  op->settle(rc, false);
  on_get_reply(rc, value, len, stat, static_cast<pending_op<node_data>*>(op));
}

void on_armed_children_reply(int rc, const String_vector* names, const Stat* stat,
                             const void* data) {
  auto* op = as_armed<child_list>(data);
  op->settle(rc, false);
  on_children_reply(rc, names, stat, static_cast<pending_op<child_list>*>(op));
}

void on_armed_exists_reply(int rc, const Stat* stat, const void* data) {
  using result = std::optional<node_stat>;
  auto* op = as_armed<result>(data);
  op->settle(rc, true);
  on_exists_reply(rc, stat, static_cast<pending_op<result>*>(op));
}

// Sends an arming read under the wire lock (see path_watch.hpp).
template <class T, class Call>
void send_armed(session_impl& impl, request_kind kind, const std::string& path, std::uint32_t sub,
                ZooWatcherType type, completion<T> handler, Call&& call) {
  auto op = impl.make_op_of<armed_op<T>>(std::move(handler));
  op->hub = &impl.layer_state<path_watch_hub>();
  op->sub = sub;
  op->path = path;
  op->type = type;
  std::lock_guard wire(impl.watch_wire_mutex());
  impl.submit(kind, std::move(op), std::forward<Call>(call));
}

}  // namespace

// ---- bookkeeping ------------------------------------------------------------------------

path_watch_hub::sub_state* path_watch_hub::find(path_entry& e, std::uint32_t sub) {
  if (e.first.sub == sub) return &e.first;
  for (auto& s : e.more)
    if (s.sub == sub) return &s;
  return nullptr;
}

const path_watch_hub::sub_state* path_watch_hub::find(const path_entry& e, std::uint32_t sub) {
  return find(const_cast<path_entry&>(e), sub);
}

path_watch_hub::sub_state& path_watch_hub::find_or_add(path_entry& e, std::uint32_t sub) {
  if (sub_state* s = find(e, sub)) return *s;
  if (e.first.sub == 0) {
    e.first = sub_state{sub};
    return e.first;
  }
  return e.more.emplace_back(sub_state{sub});
}

void path_watch_hub::tidy(path_map::iterator it, std::uint32_t sub) {
  path_entry& e = it->second;
  if (e.first.sub == sub && e.first.idle()) {
    if (e.more.empty()) {
      paths_.erase(it);
      return;
    }
    e.first = e.more.back();
    e.more.pop_back();
  } else {
    std::erase_if(e.more, [&](const sub_state& s) { return s.sub == sub && s.idle(); });
  }
  if (e.first.sub == 0 && e.more.empty()) paths_.erase(it);
}

std::uint32_t path_watch_hub::subscribe(deliver_fn deliver) {
  std::lock_guard lock(mutex_);
  const std::uint32_t sub = next_sub_++;
  subs_.emplace(sub, std::move(deliver));
  return sub;
}

void path_watch_hub::unsubscribe(std::uint32_t sub) {
  deliver_fn gone;  // released outside the lock
  std::lock_guard lock(mutex_);
  if (auto it = subs_.find(sub); it != subs_.end()) {
    gone = std::move(it->second);
    subs_.erase(it);
  }
  for (auto it = paths_.begin(); it != paths_.end();) {
    path_entry& e = it->second;
    std::erase_if(e.more, [&](const sub_state& s) { return s.sub == sub; });
    if (e.first.sub == sub) {
      if (e.more.empty()) {
        it = paths_.erase(it);
        continue;
      }
      e.first = e.more.back();
      e.more.pop_back();
    }
    ++it;
  }
}

bool path_watch_hub::begin_arm(std::uint32_t sub, const std::string& path, ZooWatcherType type,
                               bool always) {
  std::lock_guard lock(mutex_);
  sub_state& s = find_or_add(paths_[path], sub);
  const int i = index_of(type);
  if (!always && ((s.registered & bit_of(type)) != 0 || s.arming[i] > 0)) return false;
  ++s.arming[i];
  return true;
}

void path_watch_hub::end_arm(std::uint32_t sub, const std::string& path, ZooWatcherType type) {
  std::lock_guard lock(mutex_);
  const auto it = paths_.find(path);
  if (it == paths_.end()) return;
  sub_state* s = find(it->second, sub);
  if (!s) return;
  auto& n = s->arming[index_of(type)];
  if (n > 0) --n;
  tidy(it, sub);
}

bool path_watch_hub::arming(std::uint32_t sub, const std::string& path) const {
  std::lock_guard lock(mutex_);
  const auto it = paths_.find(path);
  if (it == paths_.end()) return false;
  const sub_state* s = find(it->second, sub);
  return s && (s->arming[0] > 0 || s->arming[1] > 0);
}

bool path_watch_hub::holds_any(std::uint32_t sub) const {
  std::lock_guard lock(mutex_);
  return std::any_of(paths_.begin(), paths_.end(),
                     [&](const auto& p) { return find(p.second, sub) != nullptr; });
}

bool path_watch_hub::watches(const std::string& path, ZooWatcherType type) const {
  std::lock_guard lock(mutex_);
  const auto it = paths_.find(path);
  if (it == paths_.end()) return false;
  const auto uses = [&](const sub_state& s) {
    return s.sub != 0 && ((s.registered & bit_of(type)) != 0 || s.arming[index_of(type)] > 0);
  };
  return uses(it->second.first) ||
         std::any_of(it->second.more.begin(), it->second.more.end(), uses);
}

void path_watch_hub::registered(const session_impl& impl, std::uint32_t sub,
                                const std::string& path, ZooWatcherType type,
                                std::uint64_t generation) {
  std::lock_guard lock(mutex_);
  // Checked under the lock that handle_closed takes after the close is recorded: a reply of a
  // closed handle registers nothing that the close would have to clear.
  if (impl.close_cause(generation)) return;
  const auto it = paths_.find(path);
  if (it == paths_.end()) return;  // cannot happen: the read is still counted as arming
  if (sub_state* s = find(it->second, sub)) s->registered |= bit_of(type);
}

void path_watch_hub::handle_closed() {
  std::lock_guard lock(mutex_);
  for (auto it = paths_.begin(); it != paths_.end();) {
    path_entry& e = it->second;
    e.first.registered = 0;
    for (auto& s : e.more) s.registered = 0;
    std::erase_if(e.more, [](const sub_state& s) { return s.idle(); });
    if (e.first.sub != 0 && e.first.idle()) {
      e.first = sub_state{};
      if (!e.more.empty()) {
        e.first = e.more.back();
        e.more.pop_back();
      }
    }
    it = e.first.sub == 0 ? paths_.erase(it) : std::next(it);
  }
}

// ---- the C client's side ----------------------------------------------------------------

void path_watch_hub::on_event(zhandle_t* zh, int type, int, const char* path, void* ctx) {
  on_c_client_thread = true;
  if (type == ZOO_SESSION_EVENT || type == ZOO_NOTWATCHING_EVENT || !path) return;
  auto* hc = static_cast<const handle_context*>(zoo_get_context(zh));
  // Before the event is handed on (see deletion_observer): the proof of a deletion.
  if (type == ZOO_DELETED_EVENT) {
    if (const clientid_t* id = zoo_client_id(zh)) hc->impl->note_deleted(id->client_id, path);
  }
  hc->impl->layer_state<path_watch_hub>().fire(
      static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(ctx)), type, path);
}

void path_watch_hub::fire(std::uint32_t sub, int zk_type, const char* path) {
  deliver_fn deliver;
  {
    std::lock_guard lock(mutex_);
    const auto it = paths_.find(path);
    if (it == paths_.end()) return;  // dropped: its removal is on its way
    sub_state* s = find(it->second, sub);
    if (!s) return;
    // Which of the C client's watchers this event consumed (a deletion fires them all).
    const std::uint8_t fired = zk_type == ZOO_CHILD_EVENT     ? child_bit
                               : zk_type == ZOO_DELETED_EVENT ? (data_bit | child_bit)
                                                              : data_bit;
    s->registered &= static_cast<std::uint8_t>(~fired);
    tidy(it, sub);
    const auto d = subs_.find(sub);
    if (d == subs_.end()) return;
    deliver = d->second;
  }
  deliver(watch_event{event_type_of(zk_type), path});
}

// ---- removal ----------------------------------------------------------------------------

bool path_watch_hub::drop(session_impl& impl, std::uint32_t sub, const std::string& path) {
  std::lock_guard wire(impl.watch_wire_mutex());
  std::uint8_t held = 0;
  std::uint8_t shared = 0;  // types another subscriber still needs
  {
    std::lock_guard lock(mutex_);
    const auto it = paths_.find(path);
    if (it == paths_.end()) return true;
    sub_state* s = find(it->second, sub);
    if (!s) return true;
    if (s->arming[0] > 0 || s->arming[1] > 0) return false;
    held = s->registered;
    s->registered = 0;
    tidy(it, sub);
    if (held != 0) {
      if (const auto again = paths_.find(path); again != paths_.end()) {
        const auto needs = [&](const sub_state& o) {
          if (o.sub == 0 || o.sub == sub) return;
          if ((o.registered & data_bit) || o.arming[0] > 0) shared |= data_bit;
          if ((o.registered & child_bit) || o.arming[1] > 0) shared |= child_bit;
        };
        needs(again->second.first);
        for (const auto& o : again->second.more) needs(o);
      }
    }
  }
  if (held == 0) return true;
  // A user `watch` of the session on the path needs the server's watch too.
  if ((held & data_bit) && impl.has_watch_on(path, ZWATCHTYPE_DATA)) shared |= data_bit;
  if ((held & child_bit) && impl.has_watch_on(path, ZWATCHTYPE_CHILD)) shared |= child_bit;
  const auto remove = [&](ZooWatcherType type, bool all) {
    impl.remove_watches_on(path, type, &path_watch_hub::on_event, context(sub), all);
  };
  if (held == (data_bit | child_bit) && shared == 0) {
    remove(ZWATCHTYPE_ANY, true);
    return true;
  }
  if (held & data_bit) remove(ZWATCHTYPE_DATA, (shared & data_bit) == 0);
  if (held & child_bit) remove(ZWATCHTYPE_CHILD, (shared & child_bit) == 0);
  return true;
}

bool path_watch_hub::drop_all(session_impl& impl, std::uint32_t sub) {
  std::vector<std::string> paths;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [path, e] : paths_)
      if (find(e, sub)) paths.push_back(path);
  }
  bool done = true;
  for (const auto& path : paths) done &= drop(impl, sub, path);
  return done;
}

// ---- reads ------------------------------------------------------------------------------

void request_get_watched(session_impl& impl, const std::string& path, std::uint32_t sub, bool arm,
                         completion<node_data> handler) {
  if (!arm) return request_get(impl, any_session, path, nullptr, std::move(handler));
  send_armed<node_data>(impl, &request_counters::gets, path, sub, ZWATCHTYPE_DATA,
                        std::move(handler), [&](zhandle_t* zh, armed_op<node_data>* raw) {
                          return zoo_awget(zh, path.c_str(), &path_watch_hub::on_event,
                                           path_watch_hub::context(sub), &on_armed_get_reply, raw);
                        });
}

void request_children_watched(session_impl& impl, const std::string& path, std::uint32_t sub,
                              bool arm, completion<child_list> handler) {
  if (!arm) return request_children(impl, any_session, path, nullptr, std::move(handler));
  send_armed<child_list>(impl, &request_counters::listings, path, sub, ZWATCHTYPE_CHILD,
                         std::move(handler), [&](zhandle_t* zh, armed_op<child_list>* raw) {
                           return zoo_awget_children2(zh, path.c_str(), &path_watch_hub::on_event,
                                                      path_watch_hub::context(sub),
                                                      &on_armed_children_reply, raw);
                         });
}

void request_exists_watched(session_impl& impl, const std::string& path, std::uint32_t sub,
                            bool arm, completion<std::optional<node_stat>> handler) {
  using result = std::optional<node_stat>;
  if (!arm) return request_exists(impl, any_session, path, nullptr, std::move(handler));
  send_armed<result>(impl, &request_counters::exists, path, sub, ZWATCHTYPE_DATA,
                     std::move(handler), [&](zhandle_t* zh, armed_op<result>* raw) {
                       return zoo_awexists(zh, path.c_str(), &path_watch_hub::on_event,
                                           path_watch_hub::context(sub), &on_armed_exists_reply,
                                           raw);
                     });
}

// ---- session_impl's part ----------------------------------------------------------------

void session_impl::remove_watches_on(const std::string& path, ZooWatcherType type, watcher_fn fn,
                                     void* ctx, bool all) {
  std::shared_lock lock(handle_mutex_);
  if (!zh_) return;
  // As in session_impl::disarm (watch.cpp): `all` removes the server's watch too; one watcher's
  // removal only checks it there. The C client stores the completion argument as the function
  // pointer itself.
  auto* done = reinterpret_cast<void_completion_t*>(&ignore_reply);
  if (all) {
    zoo_aremove_all_watches(zh_, path.c_str(), type, 0, done, nullptr);
  } else {
    zoo_aremove_watches(zh_, path.c_str(), type, fn, ctx, 0, done, nullptr);
  }
}

}  // namespace zkcoord::detail
