// SPDX-License-Identifier: Apache-2.0
// Path watches: one-shot watches kept per path by a few bits instead of one `watch` object each,
// for the tree cache (cache/cache_driver.hpp), which holds thousands of them.
//
// A subscriber (one per cache) gets an id; every watch it arms goes to the C client with the
// same watcher function and, as its context, that id. The C client keeps one watcher per
// (function, context) for a path and type, and calls it once with the path and type when it
// fires, so the hub needs nothing per watch but, per path and subscriber, which watches the C
// client holds (`registered`, exact: set by the reply that registered it on the C client's
// completion thread, cleared by the event that fired it there, by the handle's close and by a
// removal) and how many reads that arm one are in flight (`arming`, counted by the subscriber
// from its send to its reply). Nothing is kept for a path with neither.
//
// Removal (`drop`) waits for the path's arming reads (a watch set by a read in flight cannot be
// removed before its reply: the C client knows it only then), and removes the server's watch
// unless another subscriber or a user `watch` of the session still needs it (the server keeps
// one watch per path and type for the whole session): then only this subscriber's watcher is
// removed from the C client. Both run under the session's watch_wire_mutex, as the arming reads
// are sent, so a removal never overtakes a newer arming read of the path on the wire.
//
// The deletion observers (session_impl.hpp, deletion_observer) are told of a NodeDeleted before
// the subscriber is. One hub per session (session_impl::layer_state); it outlives the handles,
// whose close flushes every callback.
#pragma once

#include "session/session_impl.hpp"

#include <zkcoord/ops.hpp>
#include <zkcoord/types.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace zkcoord::detail {

class path_watch_hub {
 public:
  /// Called on a C client thread, outside the hub's lock, with each event of the subscriber's
  /// watches, in the order the server sent them: post it, do not run it there.
  using deliver_fn = std::function<void(const watch_event&)>;

  std::uint32_t subscribe(deliver_fn deliver);
  /// Forgets the subscriber and everything kept for it (no removal: drop first).
  void unsubscribe(std::uint32_t sub);

  /// Before a read of `path` that may arm a watch of `type`: whether it arms one (counted as
  /// arming until end_arm) — not when that watch is registered or being armed already, unless
  /// `always`.
  bool begin_arm(std::uint32_t sub, std::string_view path, ZooWatcherType type, bool always);
  /// The reply to an arming read was handed on (any outcome).
  void end_arm(std::uint32_t sub, std::string_view path, ZooWatcherType type);
  /// Whether `sub` has a read arming a watch on `path` in flight.
  bool arming(std::uint32_t sub, std::string_view path) const;
  /// Whether anything is kept for `sub` (a watch registered or being armed).
  bool holds_any(std::uint32_t sub) const;
  /// Whether any subscriber has a watch of `type` on `path` registered or being armed.
  bool watches(std::string_view path, ZooWatcherType type) const;

  /// Forgets `sub`'s watches on `path` and removes them (see above); false, and nothing done,
  /// while a read arming one is in flight (drop again after its reply).
  bool drop(session_impl& impl, std::uint32_t sub, const std::string& path);
  /// drop for each of `sub`'s paths; false if some are still being armed.
  bool drop_all(session_impl& impl, std::uint32_t sub);

  /// The handle was closed: the C client holds none of the watches any more.
  void handle_closed();

  /// The C client's side (path_watch.cpp).
  static void on_event(zhandle_t* zh, int type, int state, const char* path, void* ctx);
  static void* context(std::uint32_t sub) {
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(sub));
  }
  void registered(const session_impl& impl, std::uint32_t sub, std::string_view path,
                  ZooWatcherType type, std::uint64_t generation);

 private:
  struct sub_state {
    std::uint32_t sub = 0;  ///< 0: unused
    std::uint8_t registered = 0;
    std::uint16_t arming[2] = {0, 0};  ///< data, child
    bool idle() const noexcept { return registered == 0 && arming[0] == 0 && arming[1] == 0; }
  };
  /// One path's state: a single allocation holding the path's characters after it (a cache
  /// keeps thousands; no std::string, no node of a standard container). Nearly always one
  /// subscriber per path: it is kept inline.
  struct path_entry {
    path_entry* next = nullptr;  ///< the next entry of its bucket
    std::unique_ptr<std::vector<sub_state>> more;
    sub_state first;
    std::uint32_t size = 0;
    std::string_view path() const noexcept {
      return {reinterpret_cast<const char*>(this + 1), size};
    }
    bool has_more() const noexcept { return more && !more->empty(); }
  };
  /// The paths' entries, by path (chained in buckets, no allocation to look one up).
  class path_table {
   public:
    path_table() = default;
    path_table(const path_table&) = delete;
    path_table& operator=(const path_table&) = delete;
    ~path_table();
    path_entry* find(std::string_view path) const noexcept;
    path_entry& get(std::string_view path);
    void erase(path_entry* e) noexcept;
    /// Calls f(entry) for each entry; erases those for which it returns true.
    template <class F>
    void sweep(F f);
    template <class F>
    void for_each(F f) const {
      for (path_entry* head : buckets_)
        for (path_entry* e = head; e; e = e->next) f(*e);
    }

   private:
    std::size_t bucket_of(std::string_view path) const noexcept;
    void rehash(std::size_t count);
    static void destroy(path_entry* e) noexcept;
    std::vector<path_entry*> buckets_;
    std::size_t size_ = 0;
  };

  static sub_state* find(path_entry& e, std::uint32_t sub);
  static const sub_state* find(const path_entry& e, std::uint32_t sub);
  static sub_state& find_or_add(path_entry& e, std::uint32_t sub);
  /// Removes `sub`'s state if idle, and the entry if nothing is left.
  void tidy(path_entry* e, std::uint32_t sub);
  void fire(std::uint32_t sub, int zk_type, const char* path);

  mutable std::mutex mutex_;
  path_table paths_;
  std::unordered_map<std::uint32_t, deliver_fn> subs_;
  std::uint32_t next_sub_ = 1;
};

// Reads that arm a hub watch of `sub` when `arm` (begin_arm said so), else plain reads; as
// request_get, request_children and request_exists (session_requests.hpp), on any session.
void request_get_watched(session_impl& impl, const std::string& path, std::uint32_t sub, bool arm,
                         completion<node_data> handler);
void request_children_watched(session_impl& impl, const std::string& path, std::uint32_t sub,
                              bool arm, completion<child_list> handler);
void request_exists_watched(session_impl& impl, const std::string& path, std::uint32_t sub,
                            bool arm, completion<std::optional<node_stat>> handler);

}  // namespace zkcoord::detail
