// SPDX-License-Identifier: Apache-2.0
// The tree cache's engine, sans I/O: fed the replies to its reads, the watch events and the
// session events, it says which reads to issue and which events to publish, and answers
// snapshot queries. The rules (Curator's TreeCache, without its bugs):
// - every read arms the watch of what it reads (getData: data watch, getChildren: child watch,
//   exists on the missing root: exists watch);
// - a data reply is dropped unless it is a new incarnation (newer czxid) or newer data (newer
//   mzxid); versions are never compared (a node re-created has version 0 again);
// - a node's removal is learned only from its own deletion, its own no-node reply, or a new
//   incarnation of itself or an ancestor, never from a child listing;
// - a node enters the cache only from its parent's listing (or as the root): a late reply for a
//   node already removed does not revive it;
// - after a reconnect or a new session every cached node is read again;
// - initialized is published the first time nothing is outstanding, after start and again
//   after each reconnect (the cache is whole again).
#pragma once

#include <zkcoord/cache.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/types.hpp>

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zkcoord::detail {

enum class cache_read {
  data,      ///< getData(path) with a data watch
  children,  ///< getChildren(path) with a child watch
  exists,    ///< exists(path) with a watch (the root, while it is missing)
};

/// A read the driver must issue. Each gets exactly one reply (on_data, on_children, on_exists),
/// success or error, as the C client guarantees (connection loss fails pending requests).
struct cache_request {
  cache_read kind = cache_read::data;
  std::string path;
  friend bool operator==(const cache_request&, const cache_request&) = default;
};

enum class cache_session_event {
  suspended,    ///< connection lost, session may live
  reconnected,  ///< same session again
  expired,      ///< the session is gone
  new_session,  ///< connected with a new session after expiry
};

class tree_cache_fsm {
 public:
  tree_cache_fsm(std::string root, cache_options options);

  /// Begin: read the root. Call once, with the session connected.
  void start();
  void on_data(const std::string& path, error_code ec, const std::string& data,
               const node_stat& stat);
  void on_children(const std::string& path, error_code ec, const std::vector<std::string>& names,
                   const node_stat& stat);
  void on_exists(const std::string& path, error_code ec, const node_stat& stat);
  void on_watch(const watch_event& event);
  void on_session(cache_session_event event);

  /// The reads to issue and the events to publish since the last call, in order.
  std::vector<cache_request> take_requests();
  std::vector<cache_event> take_events();

  std::optional<cached_node> get(std::string_view path) const;
  /// The names of the cached children of path, sorted.
  std::vector<std::string> children(std::string_view path) const;
  /// Whether path has an entry (listed or read): a driver keeps the watches of such paths.
  bool tracks(std::string_view path) const { return entries_.find(path) != entries_.end(); }
  /// How many nodes are cached (read at least once).
  std::size_t size() const noexcept;
  std::size_t outstanding() const noexcept { return outstanding_; }
  /// The first initialized was published.
  bool initialized() const noexcept { return initialized_; }
  const std::string& root() const noexcept { return root_; }

 private:
  struct entry {
    bool live = false;  ///< false: listed by its parent, its data not read yet
    std::string data;
    node_stat stat;
  };
  enum class freshness { stale, same_data, newer_data, new_incarnation };

  static freshness compare(const node_stat& cached, const node_stat& fresh);
  std::size_t depth_of(std::string_view path) const;
  std::string child_path(const std::string& parent, const std::string& name) const;
  static std::string subtree_prefix(const std::string& path);
  void issue(cache_read kind, const std::string& path);
  void read_node(const std::string& path);
  void watch_missing_root();
  void remove_subtree(const std::string& path, bool including_self);
  void remove_node(const std::string& path);
  void remove_older_descendants(const std::string& path, zxid born);
  void apply_data(const std::string& path, const std::string& data, const node_stat& stat);
  void add_listed_children(const std::string& path, const std::vector<std::string>& names);
  void reply_failed(const std::string& path, error_code ec);
  void walk_again();
  void publish(cache_event_type type, const std::string& path = {}, const std::string& data = {},
               const node_stat& stat = {});
  void maybe_initialized();

  std::string root_;
  cache_options options_;
  std::map<std::string, entry, std::less<>> entries_;
  std::vector<cache_request> requests_;
  std::vector<cache_event> events_;
  std::size_t outstanding_ = 0;
  bool started_ = false;
  bool connected_ = false;
  bool walk_incomplete_ = false;  ///< a reply of this walk was lost with the connection
  bool walk_published_ = false;   ///< initialized was published for this walk
  bool initialized_ = false;
  bool exists_outstanding_ = false;
};

}  // namespace zkcoord::detail
