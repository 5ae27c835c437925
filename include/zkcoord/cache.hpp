// SPDX-License-Identifier: Apache-2.0
// The tree cache's public vocabulary: its options, the events it publishes and what a snapshot
// query returns. The engine is lib/cache/tree_cache_fsm (sans-I/O); the Asio object that drives
// it on a session is not here yet.
#pragma once

#include <zkcoord/types.hpp>

#include <cstddef>
#include <functional>
#include <limits>
#include <ostream>
#include <string>
#include <string_view>

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

}  // namespace zkcoord
