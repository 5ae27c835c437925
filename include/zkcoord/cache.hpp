// SPDX-License-Identifier: Apache-2.0
// Caches: tree_cache follows a subtree (node_cache a node, children_cache a node and its
// children) and keeps a local copy of it, eventually equal to the server's, publishing what
// changed in server order per path. One engine (lib/cache/tree_cache_fsm, sans I/O) driven on
// a session (lib/cache/cache_driver). docs/cache.md has the promises and what they cost.
#pragma once

#include <zkcoord/detail/completion.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/export.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/types.hpp>

#include <boost/asio/async_result.hpp>
#include <boost/asio/deferred.hpp>

#include <cstddef>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace zkcoord {

struct cache_options {
  /// How deep below the root the cache follows: 0 caches the root only (a node cache), 1 the
  /// root and its children (a children cache). Nodes at max_depth are read, their children not.
  std::size_t max_depth = std::numeric_limits<std::size_t>::max();
  /// When set, a node whose full path it rejects is not cached, nor anything below it. The root
  /// is always cached.
  std::function<bool(std::string_view path)> path_filter = {};
  /// false: the cache keeps only each node's Stat (events still carry the data they report).
  bool keep_data = true;
};

enum class cache_event_type {
  added,        ///< a node is in the cache (first seen, or a new incarnation: new czxid)
  updated,      ///< its data changed (a newer mzxid)
  removed,      ///< it was deleted (learned from its own deletion or a no-node reply)
  initialized,  ///< the cache is whole: after start, and again after each reconnect
  suspended,    ///< contact lost; the cache keeps its contents and may be stale
  reconnected,  ///< contact regained (same or new session); every node is read again
  lost,         ///< the session expired; the contents are kept until the new session's walk
};

inline const char* to_string(cache_event_type t) noexcept {
  switch (t) {
    case cache_event_type::added:
      return "added";
    case cache_event_type::updated:
      return "updated";
    case cache_event_type::removed:
      return "removed";
    case cache_event_type::initialized:
      return "initialized";
    case cache_event_type::suspended:
      return "suspended";
    case cache_event_type::reconnected:
      return "reconnected";
    case cache_event_type::lost:
      return "lost";
  }
  return "unknown";
}
inline std::ostream& operator<<(std::ostream& os, cache_event_type t) {
  return os << to_string(t);
}

/// One published event. path, data and stat are set for added, updated and removed (removed
/// carries the last cached data and Stat); they are empty for the other types.
struct cache_event {
  cache_event_type type = cache_event_type::initialized;
  std::string path;
  std::string data;
  node_stat stat;
  friend bool operator==(const cache_event&, const cache_event&) = default;
};

/// What get(path) returns for a cached node (data is empty when keep_data is false).
struct cached_node {
  std::string data;
  node_stat stat;
  friend bool operator==(const cached_node&, const cached_node&) = default;
};

namespace detail {
class cache_driver;
}  // namespace detail

/// Follows the subtree at `root` on a session and keeps a copy of it (Curator's TreeCache and
/// CuratorCache, kazoo's TreeCache). Every read arms the watch of what it reads; a node's
/// removal is learned only from its own deletion; after a reconnect or a new session every
/// cached node is read again, and `initialized` says the copy is whole again.
///
/// Promises: once changes stop, the copy equals the server's tree (data and Stat); per path,
/// events come in server order (added, updates by mzxid, removed) provided the session's
/// executor runs its handlers in order (one thread, or a strand). Changes that cancel out
/// between two reads are not seen (two writes may show as one update). Not a lock: what the
/// copy shows may already be stale (docs/cache.md).
///
/// Many caches may share one session; no thread per cache. Events are queued for
/// async_next_event unless a listener is set (then they go to the listener only). stop(), or
/// destroying the cache, removes its watches from the server (zoo_remove_watches) and leaves
/// no znode (the cache never writes).
///
/// Errors: errc::bad_path, errc::not_connected, errc::closed (the session was closed, or start
/// after stop), zk_errc::session_expired (start while the session is expired), errc::already_held
/// (an async_next_event of this cache is pending), operation_aborted (stopped or cancelled).
class ZKCOORD_EXPORT tree_cache {
 public:
  /// Throws nothing; a bad root is reported by start (errc::bad_path).
  tree_cache(session& s, std::string root, cache_options options = {});
  /// stop().
  ~tree_cache();
  tree_cache(tree_cache&&) noexcept;
  /// Assigning over it stops it first.
  tree_cache& operator=(tree_cache&&) noexcept;
  tree_cache(const tree_cache&) = delete;
  tree_cache& operator=(const tree_cache&) = delete;

  const std::string& root() const noexcept;

  /// Starts following (the session must be connected). Starting again is a no-op.
  error_code start();
  /// start(), and completes once the cache is initialized (the first whole walk).
  /// Signature: void(error_code).
  template <class Token = boost::asio::deferred_t>
  auto async_start(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [](auto handler, std::shared_ptr<detail::cache_driver> d) {
          start_and_wait(std::move(d), detail::void_completion(std::move(handler)));
        },
        token, driver_);
  }
  /// Stops following: removes the cache's watches, aborts a pending wait (operation_aborted);
  /// the listener is not called once stop returns (unless stop runs inside it). The snapshot
  /// stays readable. Idempotent.
  void stop() noexcept;

  /// The cached node (nullopt if not cached). Any thread.
  std::optional<cached_node> get(std::string_view path) const;
  /// The names of path's cached children, sorted. Any thread.
  std::vector<std::string> children(std::string_view path) const;
  /// The number of cached nodes.
  std::size_t size() const;
  /// The first initialized was published.
  bool initialized() const noexcept;

  /// Called on the session's executor with each event, in order. Set it before start to see
  /// every event; with a listener set, events are not queued for async_next_event.
  void set_listener(std::function<void(const cache_event&)> listener);

  /// The oldest event not taken yet (waits for one). Signature: void(error_code, cache_event).
  /// Cancellable (operation_aborted; no event is lost).
  template <class Token = boost::asio::deferred_t>
  auto async_next_event(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code, cache_event)>(
        [](auto handler, std::shared_ptr<detail::cache_driver> d) {
          start_next_event(std::move(d), detail::completion<cache_event>(std::move(handler)));
        },
        token, driver_);
  }

 private:
  static void start_and_wait(std::shared_ptr<detail::cache_driver> d,
                             detail::void_completion handler);
  static void start_next_event(std::shared_ptr<detail::cache_driver> d,
                               detail::completion<cache_event> handler);

  std::shared_ptr<detail::cache_driver> driver_;
};

/// One node (Curator's NodeCache, kazoo's DataWatch): a tree_cache of depth 0.
class ZKCOORD_EXPORT node_cache : public tree_cache {
 public:
  node_cache(session& s, std::string path, cache_options options = {});
  /// The node, or nullopt while it does not exist (or was not read yet).
  std::optional<cached_node> current() const { return get(root()); }
};

/// A node's children (Curator's PathChildrenCache, kazoo's ChildrenWatch): a tree_cache of
/// depth 1 (the parent itself is cached too).
class ZKCOORD_EXPORT children_cache : public tree_cache {
 public:
  children_cache(session& s, std::string path, cache_options options = {});
  /// The children's names, sorted.
  std::vector<std::string> names() const { return children(root()); }
};

}  // namespace zkcoord
