// SPDX-License-Identifier: Apache-2.0
// Scripted tests of the tree cache's engine, no server: one case per Curator cache bug of
// issue 30, each failing without the rule its comment names (test/unit/mutants/cache/ holds the
// wrong variants), and the options (max_depth, path filter, keep_data).
#include "cache/tree_cache_fsm.hpp"

#define BOOST_TEST_MODULE tree_cache_fsm
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using zkcoord::cache_event;
using zkcoord::cache_event_type;
using zkcoord::cache_options;
using zkcoord::node_stat;
using zkcoord::watch_event;
using zkcoord::watch_event_type;
using zkcoord::zk_errc;
using zkcoord::detail::cache_read;
using zkcoord::detail::cache_request;
using zkcoord::detail::cache_session_event;
using zkcoord::detail::tree_cache_fsm;

node_stat stat_of(zkcoord::zxid czxid, zkcoord::zxid mzxid, zkcoord::zxid pzxid = 0,
                  std::int32_t version = 0) {
  node_stat s;
  s.czxid = czxid;
  s.mzxid = mzxid;
  s.pzxid = pzxid == 0 ? czxid : pzxid;
  s.version = version;
  return s;
}

// Drives the engine as the session would and keeps everything it published and asked for.
struct driver {
  explicit driver(cache_options options = {}) : fsm("/r", std::move(options)) {}

  void pump() {
    for (auto& e : fsm.take_events()) events.push_back(std::move(e));
    for (auto& r : fsm.take_requests()) requests.push_back(std::move(r));
  }
  void start() { fsm.start(), pump(); }
  void data(const std::string& path, const std::string& value, const node_stat& s) {
    fsm.on_data(path, {}, value, s), pump();
  }
  void no_data(const std::string& path) {
    fsm.on_data(path, make_error_code(zk_errc::no_node), "", {}), pump();
  }
  void lost_data(const std::string& path) {
    fsm.on_data(path, make_error_code(zk_errc::connection_loss), "", {}), pump();
  }
  void kids(const std::string& path, std::vector<std::string> names, const node_stat& s) {
    fsm.on_children(path, {}, names, s), pump();
  }
  void no_kids(const std::string& path) {
    fsm.on_children(path, make_error_code(zk_errc::no_node), {}, {}), pump();
  }
  void lost_kids(const std::string& path) {
    fsm.on_children(path, make_error_code(zk_errc::connection_loss), {}, {}), pump();
  }
  void watch(watch_event_type type, const std::string& path) {
    fsm.on_watch(watch_event{type, path}), pump();
  }
  void session(cache_session_event e) { fsm.on_session(e), pump(); }

  // The events about one path (or the session events when path is empty), in order.
  std::vector<cache_event_type> of(const std::string& path) const {
    std::vector<cache_event_type> out;
    for (const auto& e : events)
      if (e.path == path) out.push_back(e.type);
    return out;
  }
  std::size_t count(cache_event_type type) const {
    return static_cast<std::size_t>(
        std::count_if(events.begin(), events.end(), [&](const auto& e) { return e.type == type; }));
  }
  std::vector<cache_request> take() { return std::exchange(requests, {}); }
  // The cached node, or an empty one (a failed check, not a crash, when it is missing).
  zkcoord::cached_node at(const std::string& path) const {
    return fsm.get(path).value_or(zkcoord::cached_node{});
  }

  tree_cache_fsm fsm;
  std::vector<cache_event> events;
  std::vector<cache_request> requests;
};

// /r (czxid 1) with the children names given, each a leaf created at zxid 2, 3, ...
void load(driver& d, const std::vector<std::string>& names) {
  d.start();
  const zkcoord::zxid last = static_cast<zkcoord::zxid>(names.size()) + 1;
  d.data("/r", "root", stat_of(1, 1, last));
  d.kids("/r", names, stat_of(1, 1, last));
  zkcoord::zxid z = 2;
  for (const auto& n : names) {
    d.data("/r/" + n, n, stat_of(z, z));
    d.kids("/r/" + n, {}, stat_of(z, z));
    ++z;
  }
  BOOST_TEST_REQUIRE(d.fsm.outstanding() == 0u);
  BOOST_TEST_REQUIRE(d.count(cache_event_type::initialized) == 1u);
  d.take();
}

using T = cache_event_type;

}  // namespace

BOOST_AUTO_TEST_CASE(initial_load_reads_every_node_with_watches_and_initializes_once) {
  driver d;
  d.start();
  BOOST_TEST((d.take() ==
              std::vector<cache_request>{{cache_read::data, "/r"}, {cache_read::children, "/r"}}));
  d.data("/r", "root", stat_of(1, 1, 3));
  d.kids("/r", {"b", "a"}, stat_of(1, 1, 3));
  BOOST_TEST((d.take() == std::vector<cache_request>{{cache_read::data, "/r/a"},
                                                     {cache_read::children, "/r/a"},
                                                     {cache_read::data, "/r/b"},
                                                     {cache_read::children, "/r/b"}}));
  d.data("/r/a", "A", stat_of(2, 2));
  d.kids("/r/a", {}, stat_of(2, 2));
  d.data("/r/b", "B", stat_of(3, 3));
  BOOST_TEST(d.count(T::initialized) == 0u);  // /r/b's listing is still outstanding
  d.kids("/r/b", {}, stat_of(3, 3));
  BOOST_TEST(d.count(T::initialized) == 1u);
  BOOST_TEST(d.events.back().type == T::initialized);
  BOOST_TEST((d.fsm.children("/r") == std::vector<std::string>{"a", "b"}));
  BOOST_TEST(d.at("/r/a").data == "A");
}

// CURATOR-324: no duplicate added after a delete. Rule: a node enters the cache only from its
// parent's listing; a late data reply for a node already removed is dropped, never revives it.
BOOST_AUTO_TEST_CASE(curator_324_no_duplicate_added_after_a_delete) {
  driver d;
  load(d, {"a"});
  d.watch(watch_event_type::data_changed, "/r/a");  // a read of /r/a is outstanding ...
  d.watch(watch_event_type::deleted, "/r/a");       // ... the deletion is delivered first
  d.data("/r/a", "a2", stat_of(2, 5));              // the late reply of the read
  d.watch(watch_event_type::children_changed, "/r");
  d.kids("/r", {}, stat_of(1, 1, 6));
  BOOST_TEST((d.of("/r/a") == std::vector<T>{T::added, T::removed}));
  BOOST_TEST(!d.fsm.get("/r/a").has_value());
}

// CURATOR-183: a root deleted and re-created (unseen, while disconnected) is added, not
// updated. Rule: a Stat with a newer czxid is a new incarnation (removed, then added).
BOOST_AUTO_TEST_CASE(curator_183_a_re_created_root_is_added_not_updated) {
  driver d;
  load(d, {"a"});
  d.session(cache_session_event::suspended);
  d.session(cache_session_event::reconnected);
  d.data("/r", "root2", stat_of(10, 10, 10));
  d.kids("/r", {}, stat_of(10, 10, 10));
  d.no_data("/r/a");
  d.no_kids("/r/a");
  d.kids("/r", {}, stat_of(10, 10, 10));  // the listing of the new incarnation
  BOOST_TEST((d.of("/r") == std::vector<T>{T::added, T::removed, T::added}));
  BOOST_TEST((d.of("/r/a") == std::vector<T>{T::added, T::removed}));
  BOOST_TEST(d.at("/r").stat.czxid == 10);
  BOOST_TEST(d.fsm.outstanding() == 0u);
}

// CURATOR-240: no refresh loop while the root is missing. Rule: a missing root is waited for
// with one exists watch, never read again until it is created.
BOOST_AUTO_TEST_CASE(curator_240_no_refresh_loop_while_the_root_is_missing) {
  driver d;
  d.start();
  d.take();
  d.no_data("/r");
  d.no_kids("/r");
  BOOST_TEST((d.take() == std::vector<cache_request>{{cache_read::exists, "/r"}}));
  d.fsm.on_exists("/r", make_error_code(zk_errc::no_node), {}), d.pump();
  BOOST_TEST(d.take().empty());               // waits for the watch
  BOOST_TEST(d.count(T::initialized) == 1u);  // an empty cache is whole too
  d.watch(watch_event_type::created, "/r");
  BOOST_TEST((d.take() ==
              std::vector<cache_request>{{cache_read::data, "/r"}, {cache_read::children, "/r"}}));
  d.data("/r", "root", stat_of(4, 4));
  d.kids("/r", {}, stat_of(4, 4));
  BOOST_TEST((d.of("/r") == std::vector<T>{T::added}));
}

// CURATOR-236: /a and /ab are told apart. Rule: what is below /a is what starts with "/a/".
BOOST_AUTO_TEST_CASE(curator_236_a_and_ab_are_told_apart) {
  driver d;
  load(d, {"a", "ab"});
  d.watch(watch_event_type::children_changed, "/r/ab");
  d.kids("/r/ab", {"x"}, stat_of(3, 3, 7));
  d.data("/r/ab/x", "x", stat_of(7, 7));
  d.kids("/r/ab/x", {}, stat_of(7, 7));
  BOOST_TEST(d.fsm.children("/r/a").empty());
  BOOST_TEST((d.fsm.children("/r/ab") == std::vector<std::string>{"x"}));
  d.watch(watch_event_type::deleted, "/r/a");
  BOOST_TEST((d.of("/r/a") == std::vector<T>{T::added, T::removed}));
  BOOST_TEST((d.of("/r/ab/x") == std::vector<T>{T::added}));
  BOOST_TEST(d.fsm.get("/r/ab").has_value());
  BOOST_TEST(d.fsm.get("/r/ab/x").has_value());
}

// CURATOR-296: a signal when the cache is whole again after a reconnect. Rule: initialized is
// published once per walk, after start and after each reconnect.
BOOST_AUTO_TEST_CASE(curator_296_initialized_again_after_a_reconnect) {
  driver d;
  load(d, {"a"});
  d.session(cache_session_event::suspended);
  d.session(cache_session_event::reconnected);
  BOOST_TEST(d.fsm.outstanding() == 4u);  // /r and /r/a: data and children each
  d.data("/r", "root", stat_of(1, 1, 2));
  d.kids("/r", {"a"}, stat_of(1, 1, 2));
  d.data("/r/a", "a", stat_of(2, 2));
  BOOST_TEST(d.count(T::initialized) == 1u);
  d.kids("/r/a", {}, stat_of(2, 2));
  BOOST_TEST(d.count(T::initialized) == 2u);
  BOOST_TEST(d.events.back().type == T::initialized);
  BOOST_TEST(
      (d.of("") == std::vector<T>{T::initialized, T::suspended, T::reconnected, T::initialized}));
}

// A reply lost with the connection leaves the walk incomplete: no initialized until the walk
// after the reconnect is done.
BOOST_AUTO_TEST_CASE(a_lost_reply_delays_initialized_to_the_next_walk) {
  driver d;
  d.start();
  d.data("/r", "root", stat_of(1, 1));
  d.lost_kids("/r");
  d.session(cache_session_event::suspended);
  BOOST_TEST(d.count(T::initialized) == 0u);
  d.session(cache_session_event::reconnected);
  d.data("/r", "root", stat_of(1, 1));
  d.kids("/r", {}, stat_of(1, 1));
  BOOST_TEST(d.count(T::initialized) == 1u);
}

// CURATOR-391: a node deleted and re-created while disconnected, with the same data and
// version, is seen. Rule: compare czxid/mzxid, never versions.
BOOST_AUTO_TEST_CASE(curator_391_re_created_while_disconnected_is_seen) {
  driver d;
  load(d, {"a"});
  d.session(cache_session_event::suspended);
  d.session(cache_session_event::new_session);
  d.data("/r", "root", stat_of(1, 1, 9));
  d.kids("/r", {"a"}, stat_of(1, 1, 9));
  d.data("/r/a", "a", stat_of(9, 9));  // same data, version 0 again
  d.kids("/r/a", {}, stat_of(9, 9));
  BOOST_TEST((d.of("/r/a") == std::vector<T>{T::added, T::removed, T::added}));
  BOOST_TEST(d.at("/r/a").stat.czxid == 9);
  BOOST_TEST(d.at("/r/a").stat.mzxid == 9);
}

// CURATOR-476: a child that dies before its watch is set does not stop initialization. Rule:
// a no-node reply completes its read like any other reply.
BOOST_AUTO_TEST_CASE(curator_476_a_child_dying_before_its_watch_does_not_stop_initialization) {
  driver d;
  d.start();
  d.data("/r", "root", stat_of(1, 1, 3));
  d.kids("/r", {"a", "b"}, stat_of(1, 1, 3));
  d.no_data("/r/a");
  d.no_kids("/r/a");
  d.data("/r/b", "b", stat_of(3, 3));
  d.kids("/r/b", {}, stat_of(3, 3));
  BOOST_TEST(d.count(T::initialized) == 1u);
  BOOST_TEST(d.of("/r/a").empty());  // never seen alive: no event
  BOOST_TEST((d.fsm.children("/r") == std::vector<std::string>{"b"}));
}

// CURATOR-388: a container parent that the server removed and someone re-created is followed
// again. Rule: a removed node is erased, not kept as a tombstone: a later listing adds it anew.
BOOST_AUTO_TEST_CASE(curator_388_a_re_created_container_parent_is_followed_again) {
  driver d;
  load(d, {"p"});
  d.watch(watch_event_type::children_changed, "/r/p");
  d.kids("/r/p", {"c"}, stat_of(2, 2, 5));
  d.data("/r/p/c", "c", stat_of(5, 5));
  d.kids("/r/p/c", {}, stat_of(5, 5));
  // c leaves; the server removes the empty container p; another client re-creates p/c.
  d.watch(watch_event_type::deleted, "/r/p/c");
  d.watch(watch_event_type::children_changed, "/r/p");
  d.watch(watch_event_type::deleted, "/r/p");
  d.no_kids("/r/p");
  d.watch(watch_event_type::children_changed, "/r");
  d.kids("/r", {"p"}, stat_of(1, 1, 8));
  d.data("/r/p", "", stat_of(8, 8, 9));
  d.kids("/r/p", {"c"}, stat_of(8, 8, 9));
  d.data("/r/p/c", "c2", stat_of(9, 9));
  d.kids("/r/p/c", {}, stat_of(9, 9));
  BOOST_TEST((d.of("/r/p") == std::vector<T>{T::added, T::removed, T::added}));
  BOOST_TEST((d.of("/r/p/c") == std::vector<T>{T::added, T::removed, T::added}));
  BOOST_TEST(d.at("/r/p/c").data == "c2");
}

// CURATOR-191: per path, events are in server order. Rule: a data reply is dropped unless its
// mzxid is newer than the cached one (two reads of one node answered out of order, or twice).
BOOST_AUTO_TEST_CASE(curator_191_per_path_events_in_server_order) {
  driver d;
  load(d, {"a"});
  d.watch(watch_event_type::data_changed, "/r/a");
  d.watch(watch_event_type::data_changed, "/r/a");
  d.data("/r/a", "v9", stat_of(2, 9, 2, 2));
  d.data("/r/a", "v5", stat_of(2, 5, 2, 1));  // the older reply, delivered late
  d.data("/r/a", "v9", stat_of(2, 9, 2, 2));  // the same answer twice
  BOOST_TEST((d.of("/r/a") == std::vector<T>{T::added, T::updated}));
  BOOST_TEST(d.at("/r/a").data == "v9");
}

// Rule: a child listing only adds; a child's removal is learned from its own deletion or
// no-node reply (a listing answered before the child was created may be delivered late).
BOOST_AUTO_TEST_CASE(a_child_listing_never_removes_a_node) {
  driver d;
  load(d, {"a"});
  d.kids("/r", {}, stat_of(1, 1, 1));  // a stale listing without a
  BOOST_TEST(d.fsm.get("/r/a").has_value());
  BOOST_TEST((d.of("/r/a") == std::vector<T>{T::added}));
  d.no_data("/r/a");  // its own no-node reply is proof
  BOOST_TEST((d.of("/r/a") == std::vector<T>{T::added, T::removed}));
}

BOOST_AUTO_TEST_CASE(a_deletion_seen_by_two_watches_is_removed_once) {
  driver d;
  load(d, {"a"});
  d.watch(watch_event_type::deleted, "/r/a");  // the data watch
  d.watch(watch_event_type::deleted, "/r/a");  // the child watch
  BOOST_TEST((d.of("/r/a") == std::vector<T>{T::added, T::removed}));
}

BOOST_AUTO_TEST_CASE(a_child_change_refreshes_the_parent_stat_without_an_event) {
  driver d;
  load(d, {"a"});
  d.watch(watch_event_type::children_changed, "/r");
  d.kids("/r", {"a", "b"}, stat_of(1, 1, 7));
  BOOST_TEST(d.at("/r").stat.pzxid == 7);
  BOOST_TEST((d.of("/r") == std::vector<T>{T::added}));
}

BOOST_AUTO_TEST_CASE(max_depth_filter_and_keep_data) {
  cache_options options;
  options.max_depth = 1;
  options.path_filter = [](std::string_view p) { return p != "/r/skip"; };
  options.keep_data = false;
  driver d(options);
  d.start();
  d.data("/r", "root", stat_of(1, 1, 3));
  d.kids("/r", {"a", "skip"}, stat_of(1, 1, 3));
  // /r/a is at max_depth: its data is read, its children are not listed; /r/skip is filtered.
  BOOST_TEST((d.take() == std::vector<cache_request>{{cache_read::data, "/r"},
                                                     {cache_read::children, "/r"},
                                                     {cache_read::data, "/r/a"}}));
  d.data("/r/a", "A", stat_of(2, 2));
  BOOST_TEST(d.count(T::initialized) == 1u);
  BOOST_TEST(d.at("/r/a").data.empty());  // not kept ...
  BOOST_TEST(d.events[1].data == "A");    // ... but reported
  d.watch(watch_event_type::children_changed, "/r/a");
  BOOST_TEST(d.take().empty());
}

BOOST_AUTO_TEST_CASE(node_cache_is_depth_zero) {
  cache_options options;
  options.max_depth = 0;
  driver d(options);
  d.start();
  BOOST_TEST((d.take() == std::vector<cache_request>{{cache_read::data, "/r"}}));
  d.data("/r", "v", stat_of(1, 1));
  BOOST_TEST(d.count(T::initialized) == 1u);
}

BOOST_AUTO_TEST_CASE(the_root_slash_is_cached_whole) {
  tree_cache_fsm fsm("/", {});
  fsm.start();
  fsm.on_data("/", {}, "", stat_of(0, 0, 2));
  fsm.on_children("/", {}, {"x"}, stat_of(0, 0, 2));
  const auto requests = fsm.take_requests();
  BOOST_TEST((requests.back() == cache_request{cache_read::children, "/x"}));
  fsm.on_data("/x", {}, "x", stat_of(2, 2));
  fsm.on_children("/x", {}, {}, stat_of(2, 2));
  BOOST_TEST((fsm.children("/") == std::vector<std::string>{"x"}));
  fsm.on_watch(watch_event{watch_event_type::deleted, "/x"});
  BOOST_TEST(fsm.children("/").empty());
  BOOST_TEST(fsm.get("/").has_value());
}
