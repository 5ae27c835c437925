// SPDX-License-Identifier: Apache-2.0
// The tree cache's engine: the rules are listed in tree_cache_fsm.hpp.
#include "cache/tree_cache_fsm.hpp"

#include <algorithm>
#include <iterator>
#include <utility>

namespace zkcoord::detail {

tree_cache_fsm::tree_cache_fsm(std::string root, cache_options options)
    : root_(std::move(root)), options_(std::move(options)) {}

void tree_cache_fsm::start() {
  if (started_) return;
  started_ = true;
  connected_ = true;
  entries_.emplace(root_, entry{});
  read_node(root_);
}

// Identity first (czxid: which incarnation), then data (mzxid). Versions restart at 0 when a
// node is re-created, so they cannot tell a new incarnation from an old one (CURATOR-391).
tree_cache_fsm::freshness tree_cache_fsm::compare(const node_stat& cached, const node_stat& fresh) {
  if (fresh.czxid > cached.czxid) return freshness::new_incarnation;
  if (fresh.czxid < cached.czxid) return freshness::stale;
  if (fresh.mzxid > cached.mzxid) return freshness::newer_data;
  if (fresh.mzxid < cached.mzxid) return freshness::stale;
  return freshness::same_data;
}

std::size_t tree_cache_fsm::depth_of(std::string_view path) const {
  if (path == root_) return 0;
  const std::string_view below = root_ == "/" ? path : path.substr(root_.size());
  return static_cast<std::size_t>(std::count(below.begin(), below.end(), '/'));
}

std::string tree_cache_fsm::child_path(const std::string& parent, const std::string& name) const {
  return parent == "/" ? "/" + name : parent + "/" + name;
}

// The prefix of everything strictly below path: "/a/" (so that "/ab" is not below "/a").
std::string tree_cache_fsm::subtree_prefix(const std::string& path) {
  return path == "/" ? path : path + "/";
}

void tree_cache_fsm::issue(cache_read kind, const std::string& path) {
  requests_.push_back(cache_request{kind, path});
  ++outstanding_;
}

void tree_cache_fsm::read_node(const std::string& path) {
  issue(cache_read::data, path);
  if (depth_of(path) < options_.max_depth) issue(cache_read::children, path);
}

// A missing root is waited for with one exists watch, never read again in a loop (CURATOR-240).
void tree_cache_fsm::watch_missing_root() {
  if (exists_outstanding_) return;
  exists_outstanding_ = true;
  issue(cache_read::exists, root_);
}

void tree_cache_fsm::remove_subtree(const std::string& path, bool including_self) {
  const std::string prefix = subtree_prefix(path);
  auto first = entries_.lower_bound(prefix);
  if (first != entries_.end() && first->first == path) ++first;  // the root "/" is its own prefix
  auto last = first;
  while (last != entries_.end() && last->first.starts_with(prefix)) ++last;
  // A descendant sorts after its ancestors: in reverse, children are removed before parents.
  for (auto it = std::make_reverse_iterator(last); it != std::make_reverse_iterator(first); ++it) {
    if (it->second.live)
      publish(cache_event_type::removed, it->first, it->second.data, it->second.stat);
  }
  entries_.erase(first, last);
  if (!including_self) return;
  const auto self = entries_.find(path);
  if (self == entries_.end()) return;
  if (self->second.live)
    publish(cache_event_type::removed, path, self->second.data, self->second.stat);
  entries_.erase(self);
}

// A new incarnation of path (created at born) proves that its descendants created before it
// are gone, with everything below them; those created after it (found by a listing answered
// after the re-creation) and those not read yet stay.
void tree_cache_fsm::remove_older_descendants(const std::string& path, zxid born) {
  const std::string prefix = subtree_prefix(path);
  std::vector<std::string> gone;
  for (auto it = entries_.lower_bound(prefix);
       it != entries_.end() && it->first.starts_with(prefix); ++it) {
    if (it->first == path) continue;
    const bool below_gone = !gone.empty() && it->first.starts_with(subtree_prefix(gone.back()));
    if (below_gone || (it->second.live && it->second.stat.czxid < born)) {
      if (!below_gone) gone.push_back(it->first);
    }
  }
  for (auto it = gone.rbegin(); it != gone.rend(); ++it) remove_subtree(*it, true);
}

// The node's own deletion or no-node reply: it and everything below it are gone. The entry is
// erased, not kept as a tombstone: a re-created node found in a later listing is followed again.
void tree_cache_fsm::remove_node(const std::string& path) {
  if (!entries_.contains(path)) return;
  remove_subtree(path, true);
  if (path == root_) watch_missing_root();
}

void tree_cache_fsm::apply_data(const std::string& path, const std::string& data,
                                const node_stat& stat) {
  const auto it = entries_.find(path);
  if (it == entries_.end()) return;  // removed meanwhile: a late reply never revives a node
  entry& node = it->second;
  const std::string kept = options_.keep_data ? data : std::string{};
  if (!node.live) {
    node = entry{true, kept, stat};
    return publish(cache_event_type::added, path, data, stat);
  }
  switch (compare(node.stat, stat)) {
    case freshness::stale:
      return;
    case freshness::same_data:
      // Same data; the Stat may still be newer by a child change (pzxid, cversion).
      if (stat.pzxid > node.stat.pzxid) node.stat = stat;
      return;
    case freshness::newer_data:
      node.data = kept;
      node.stat = stat;
      return publish(cache_event_type::updated, path, data, stat);
    case freshness::new_incarnation:
      // Deleted and re-created unseen (while disconnected): the old one and its children went.
      remove_older_descendants(path, stat.czxid);
      publish(cache_event_type::removed, path, node.data, node.stat);
      node = entry{true, kept, stat};
      publish(cache_event_type::added, path, data, stat);
      if (depth_of(path) < options_.max_depth) issue(cache_read::children, path);
      return;
  }
}

// A listing only adds: a child missing from it is removed by its own deletion or no-node reply.
void tree_cache_fsm::add_listed_children(const std::string& path,
                                         const std::vector<std::string>& names) {
  if (depth_of(path) >= options_.max_depth) return;
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  for (const auto& name : sorted) {
    std::string child = child_path(path, name);
    if (options_.path_filter && !options_.path_filter(child)) continue;
    if (entries_.contains(child)) continue;
    entries_.emplace(child, entry{});
    read_node(child);
  }
}

void tree_cache_fsm::reply_failed(const std::string&, error_code ec) {
  // The reply was lost with the connection: the walk after the reconnect reads it again.
  if (ec == condition::connection_loss || ec == condition::session_expired) walk_incomplete_ = true;
}

void tree_cache_fsm::on_data(const std::string& path, error_code ec, const std::string& data,
                             const node_stat& stat) {
  if (outstanding_ > 0) --outstanding_;
  if (!ec) {
    apply_data(path, data, stat);
  } else if (ec == zk_errc::no_node) {
    remove_node(path);
  } else {
    reply_failed(path, ec);
  }
  maybe_initialized();
}

void tree_cache_fsm::on_children(const std::string& path, error_code ec,
                                 const std::vector<std::string>& names, const node_stat& stat) {
  if (outstanding_ > 0) --outstanding_;
  if (!ec) {
    const auto it = entries_.find(path);
    if (it != entries_.end()) {
      entry& node = it->second;
      if (node.live && compare(node.stat, stat) == freshness::same_data &&
          stat.pzxid > node.stat.pzxid)
        node.stat = stat;
      add_listed_children(path, names);
    }
  } else if (ec == zk_errc::no_node) {
    remove_node(path);
  } else {
    reply_failed(path, ec);
  }
  maybe_initialized();
}

void tree_cache_fsm::on_exists(const std::string& path, error_code ec, const node_stat&) {
  if (outstanding_ > 0) --outstanding_;
  exists_outstanding_ = false;
  if (!ec) {
    // The root exists (again): read it. While it is missing, the exists watch waits.
    if (path == root_ && !entries_.contains(root_)) {
      entries_.emplace(root_, entry{});
      read_node(root_);
    }
  } else if (ec != zk_errc::no_node) {
    reply_failed(path, ec);
  }
  maybe_initialized();
}

void tree_cache_fsm::on_watch(const watch_event& event) {
  if (!started_) return;
  const auto it = entries_.find(event.path);
  switch (event.type) {
    case watch_event_type::deleted:
      remove_node(event.path);
      break;
    case watch_event_type::data_changed:
      if (it != entries_.end()) issue(cache_read::data, event.path);
      break;
    case watch_event_type::children_changed:
      if (it != entries_.end() && depth_of(event.path) < options_.max_depth)
        issue(cache_read::children, event.path);
      break;
    case watch_event_type::created:
      if (event.path == root_ && it == entries_.end()) {
        entries_.emplace(root_, entry{});
        read_node(root_);
      }
      break;
  }
  maybe_initialized();
}

// After a reconnect every node is read again (its watches were lost or may have fired unseen);
// the listings find the children created meanwhile. Nothing is removed without proof.
void tree_cache_fsm::walk_again() {
  walk_incomplete_ = false;
  walk_published_ = false;
  for (const auto& [path, node] : entries_) read_node(path);
  if (!entries_.contains(root_)) watch_missing_root();
}

void tree_cache_fsm::on_session(cache_session_event event) {
  if (!started_) return;
  switch (event) {
    case cache_session_event::suspended:
      connected_ = false;
      publish(cache_event_type::suspended);
      break;
    case cache_session_event::expired:
      connected_ = false;
      publish(cache_event_type::lost);
      break;
    case cache_session_event::reconnected:
    case cache_session_event::new_session:
      connected_ = true;
      exists_outstanding_ = false;  // a pending exists failed with the old connection
      publish(cache_event_type::reconnected);
      walk_again();
      break;
  }
  maybe_initialized();
}

void tree_cache_fsm::publish(cache_event_type type, const std::string& path,
                             const std::string& data, const node_stat& stat) {
  events_.push_back(cache_event{type, path, data, stat});
}

// Published once per walk, the first time nothing is outstanding and no reply of the walk was
// lost; again after each reconnect, so a listener knows the cache is whole again (CURATOR-296).
void tree_cache_fsm::maybe_initialized() {
  if (!started_ || !connected_ || outstanding_ != 0 || walk_incomplete_ || walk_published_) return;
  walk_published_ = true;
  initialized_ = true;
  publish(cache_event_type::initialized);
}

std::vector<cache_request> tree_cache_fsm::take_requests() {
  return std::exchange(requests_, {});
}

std::vector<cache_event> tree_cache_fsm::take_events() {
  return std::exchange(events_, {});
}

std::optional<cached_node> tree_cache_fsm::get(std::string_view path) const {
  const auto it = entries_.find(path);
  if (it == entries_.end() || !it->second.live) return std::nullopt;
  return cached_node{it->second.data, it->second.stat};
}

std::size_t tree_cache_fsm::size() const noexcept {
  return static_cast<std::size_t>(
      std::count_if(entries_.begin(), entries_.end(), [](const auto& e) { return e.second.live; }));
}

std::vector<std::string> tree_cache_fsm::children(std::string_view path) const {
  const std::string prefix = subtree_prefix(std::string(path));
  std::vector<std::string> names;
  for (auto it = entries_.lower_bound(prefix); it != entries_.end(); ++it) {
    if (!it->first.starts_with(prefix)) break;
    if (it->first == path) continue;
    const std::string_view rest = std::string_view(it->first).substr(prefix.size());
    if (it->second.live && rest.find('/') == std::string_view::npos) names.emplace_back(rest);
  }
  return names;
}

}  // namespace zkcoord::detail
