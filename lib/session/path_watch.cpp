// SPDX-License-Identifier: Apache-2.0
// Path watches (see path_watch.hpp): the hub's bookkeeping, its C client watcher, the reads
// that arm its watches and the removal of a path's watches.
#include "session/path_watch.hpp"
#include "session/c_types.hpp"

#include "session/session_replies.hpp"
#include "session/session_requests.hpp"

#include <algorithm>
#include <cstring>
#include <new>
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

// ---- the table of paths -------------------------------------------------------------------

path_watch_hub::path_table::~path_table() {
  for (path_entry* head : buckets_) {
    while (head) destroy(std::exchange(head, head->next));
  }
}

std::size_t path_watch_hub::path_table::bucket_of(std::string_view path) const noexcept {
  return std::hash<std::string_view>{}(path) & (buckets_.size() - 1);
}

path_watch_hub::path_entry* path_watch_hub::path_table::find(std::string_view path) const noexcept {
  if (buckets_.empty()) return nullptr;
  for (path_entry* e = buckets_[bucket_of(path)]; e; e = e->next)
    if (e->path() == path) return e;
  return nullptr;
}

path_watch_hub::path_entry& path_watch_hub::path_table::get(std::string_view path) {
  if (path_entry* e = find(path)) return *e;
  if (size_ >= buckets_.size()) rehash(buckets_.empty() ? 16 : buckets_.size() * 2);
  // One allocation: the entry, then the path's characters.
  void* raw = ::operator new(sizeof(path_entry) + path.size());
  auto* e = new (raw) path_entry{};
  e->size = static_cast<std::uint32_t>(path.size());
  std::memcpy(static_cast<char*>(raw) + sizeof(path_entry), path.data(), path.size());
  path_entry*& head = buckets_[bucket_of(path)];
  e->next = head;
  head = e;
  ++size_;
  return *e;
}

void path_watch_hub::path_table::erase(path_entry* e) noexcept {
  for (path_entry** link = &buckets_[bucket_of(e->path())]; *link; link = &(*link)->next) {
    if (*link != e) continue;
    *link = e->next;
    destroy(e);
    --size_;
    break;
  }
  if (size_ == 0) std::vector<path_entry*>().swap(buckets_);  // nothing watched: no table
}

template <class F>
void path_watch_hub::path_table::sweep(F f) {
  for (path_entry*& head : buckets_) {
    for (path_entry** link = &head; *link;) {
      path_entry* e = *link;
      if (f(*e)) {
        *link = e->next;
        destroy(e);
        --size_;
      } else {
        link = &e->next;
      }
    }
  }
  if (size_ == 0) std::vector<path_entry*>().swap(buckets_);
}

void path_watch_hub::path_table::rehash(std::size_t count) {
  std::vector<path_entry*> old(count, nullptr);
  old.swap(buckets_);
  for (path_entry* head : old) {
    while (head) {
      path_entry* e = std::exchange(head, head->next);
      path_entry*& to = buckets_[bucket_of(e->path())];
      e->next = to;
      to = e;
    }
  }
}

void path_watch_hub::path_table::destroy(path_entry* e) noexcept {
  e->~path_entry();
  ::operator delete(e);
}

// ---- bookkeeping ------------------------------------------------------------------------

path_watch_hub::sub_state* path_watch_hub::find(path_entry& e, std::uint32_t sub) {
  if (e.first.sub == sub) return &e.first;
  if (e.more)
    for (auto& s : *e.more)
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
  if (!e.more) e.more = std::make_unique<std::vector<sub_state>>();
  return e.more->emplace_back(sub_state{sub});
}

namespace {

// Moves the last of the other subscribers into the inline place of a removed first one.
template <class Entry>
void promote(Entry& e) {
  e.first = {};
  if (e.more && !e.more->empty()) {
    e.first = e.more->back();
    e.more->pop_back();
  }
  if (e.more && e.more->empty()) e.more.reset();
}

}  // namespace

void path_watch_hub::tidy(path_entry* e, std::uint32_t sub) {
  if (e->first.sub == sub && e->first.idle()) {
    promote(*e);
  } else if (e->more) {
    std::erase_if(*e->more, [&](const sub_state& s) { return s.sub == sub && s.idle(); });
    if (e->more->empty()) e->more.reset();
  }
  if (e->first.sub == 0 && !e->has_more()) paths_.erase(e);
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
  paths_.sweep([&](path_entry& e) {
    if (e.more) std::erase_if(*e.more, [&](const sub_state& s) { return s.sub == sub; });
    if (e.first.sub == sub) promote(e);
    if (e.more && e.more->empty()) e.more.reset();
    return e.first.sub == 0 && !e.has_more();
  });
}

bool path_watch_hub::begin_arm(std::uint32_t sub, std::string_view path, ZooWatcherType type,
                               bool always) {
  std::lock_guard lock(mutex_);
  sub_state& s = find_or_add(paths_.get(path), sub);
  const int i = index_of(type);
  if (!always && ((s.registered & bit_of(type)) != 0 || s.arming[i] > 0)) return false;
  ++s.arming[i];
  return true;
}

void path_watch_hub::end_arm(std::uint32_t sub, std::string_view path, ZooWatcherType type) {
  std::lock_guard lock(mutex_);
  path_entry* e = paths_.find(path);
  if (!e) return;
  sub_state* s = find(*e, sub);
  if (!s) return;
  auto& n = s->arming[index_of(type)];
  if (n > 0) --n;
  tidy(e, sub);
}

bool path_watch_hub::arming(std::uint32_t sub, std::string_view path) const {
  std::lock_guard lock(mutex_);
  const path_entry* e = paths_.find(path);
  if (!e) return false;
  const sub_state* s = find(*e, sub);
  return s && (s->arming[0] > 0 || s->arming[1] > 0);
}

bool path_watch_hub::holds_any(std::uint32_t sub) const {
  std::lock_guard lock(mutex_);
  bool held = false;
  paths_.for_each([&](const path_entry& e) { held = held || find(e, sub) != nullptr; });
  return held;
}

bool path_watch_hub::watches(std::string_view path, ZooWatcherType type) const {
  std::lock_guard lock(mutex_);
  const path_entry* e = paths_.find(path);
  if (!e) return false;
  const auto uses = [&](const sub_state& s) {
    return s.sub != 0 && ((s.registered & bit_of(type)) != 0 || s.arming[index_of(type)] > 0);
  };
  return uses(e->first) || (e->more && std::any_of(e->more->begin(), e->more->end(), uses));
}

void path_watch_hub::registered(const session_impl& impl, std::uint32_t sub, std::string_view path,
                                ZooWatcherType type, std::uint64_t generation) {
  std::lock_guard lock(mutex_);
  // Checked under the lock that handle_closed takes after the close is recorded: a reply of a
  // closed handle registers nothing that the close would have to clear.
  if (impl.close_cause(generation)) return;
  path_entry* e = paths_.find(path);
  if (!e) return;  // cannot happen: the read is still counted as arming
  if (sub_state* s = find(*e, sub)) s->registered |= bit_of(type);
}

void path_watch_hub::handle_closed() {
  std::lock_guard lock(mutex_);
  paths_.sweep([](path_entry& e) {
    if (e.more) {
      for (auto& s : *e.more) s.registered = 0;
      std::erase_if(*e.more, [](const sub_state& s) { return s.idle(); });
    }
    e.first.registered = 0;
    if (e.first.sub != 0 && e.first.idle()) promote(e);
    if (e.more && e.more->empty()) e.more.reset();
    return e.first.sub == 0 && !e.has_more();
  });
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
    path_entry* e = paths_.find(path);
    if (!e) return;  // dropped: its removal is on its way
    sub_state* s = find(*e, sub);
    if (!s) return;
    // Which of the C client's watchers this event consumed (a deletion fires them all).
    const std::uint8_t fired = zk_type == ZOO_CHILD_EVENT     ? child_bit
                               : zk_type == ZOO_DELETED_EVENT ? (data_bit | child_bit)
                                                              : data_bit;
    s->registered &= static_cast<std::uint8_t>(~fired);
    tidy(e, sub);
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
    path_entry* e = paths_.find(path);
    if (!e) return true;
    sub_state* s = find(*e, sub);
    if (!s) return true;
    if (s->arming[0] > 0 || s->arming[1] > 0) return false;
    held = s->registered;
    s->registered = 0;
    tidy(e, sub);  // may free e
    if (held != 0) {
      if (const path_entry* again = paths_.find(path)) {
        const auto needs = [&](const sub_state& o) {
          if (o.sub == 0 || o.sub == sub) return;
          if ((o.registered & data_bit) || o.arming[0] > 0) shared |= data_bit;
          if ((o.registered & child_bit) || o.arming[1] > 0) shared |= child_bit;
        };
        needs(again->first);
        if (again->more)
          for (const auto& o : *again->more) needs(o);
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
    paths_.for_each([&](const path_entry& e) {
      if (find(e, sub)) paths.emplace_back(e.path());
    });
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
