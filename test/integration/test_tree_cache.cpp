// SPDX-License-Identifier: Apache-2.0
// The tree cache against a real ZooKeeper: the initial load and `initialized`, changes by
// another client in per-path server order, a root deleted and re-created (added, not updated:
// CURATOR-183), a missing root then created without a refresh loop (CURATOR-240), max_depth and
// the path filter (/a and /ab told apart: CURATOR-236), node and children caches, a disconnect
// through the TCP proxy (suspended, reconnected, then whole again: CURATOR-296, and a node
// re-created meanwhile seen: CURATOR-391), a session expiry (lost, then a fresh walk), twenty
// caches on one session without a thread each, stop() removing the watches from the server,
// the three async shapes, and a bad path.
#include <zkcoord/cache.hpp>

#include <zkcoord/path.hpp>
#include <zkcoord/testing/expire_session.hpp>
#include <zkcoord/testing/tcp_proxy.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE tree_cache
#include <boost/test/unit_test.hpp>

#include "support/lock_fixture.hpp"
#include "support/server_watches.hpp"

#include <dirent.h>

#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using test::tuple_future;

namespace {

using test::lock_server;
BOOST_TEST_GLOBAL_FIXTURE(lock_server);

constexpr auto session_timeout = 4000ms;

// Every event a cache published, via its listener (which shares the list: it may run after
// the recorder is gone, until the cache is stopped).
struct recorder {
  struct shared {
    std::mutex mutex;
    std::vector<cache_event> events;
  };
  explicit recorder(tree_cache& c) : state(std::make_shared<shared>()) {
    c.set_listener([s = state](const cache_event& e) {
      std::lock_guard lock(s->mutex);
      s->events.push_back(e);
    });
  }
  std::vector<cache_event> all() const {
    std::lock_guard lock(state->mutex);
    return state->events;
  }
  std::size_t count(cache_event_type t, const std::string& path = {}) const {
    std::size_t n = 0;
    for (const auto& e : all()) n += e.type == t && (path.empty() || e.path == path);
    return n;
  }
  std::vector<cache_event_type> of(const std::string& path) const {
    std::vector<cache_event_type> out;
    for (const auto& e : all())
      if (e.path == path) out.push_back(e.type);
    return out;
  }
  bool reaches(cache_event_type t, std::size_t n, const std::string& path = {}) const {
    return test::eventually([&] { return count(t, path) >= n; }, 20s);
  }
  std::shared_ptr<shared> state;
};

void create(session& s, const std::string& path, const std::string& data = {}) {
  auto [ec, node] = test::get(s.async_create(path, data, create_options{}, tuple_future));
  BOOST_REQUIRE_MESSAGE(!ec || ec == zk_errc::node_exists,
                        "create " << path << ": " << ec.message());
}

void set(session& s, const std::string& path, const std::string& data) {
  auto [ec, stat] = test::get(s.async_set(path, data, any_version, tuple_future));
  BOOST_REQUIRE_MESSAGE(!ec, "set " << path << ": " << ec.message());
}

// Deletes path and everything below it.
void remove_tree(session& s, const std::string& path) {
  auto [ec, list] = test::get(s.async_children(path, tuple_future));
  if (ec == zk_errc::no_node) return;
  for (const auto& n : list.names) remove_tree(s, join_path(path, n));
  auto [rc] = test::get(s.async_remove(path, any_version, tuple_future));
  BOOST_REQUIRE_MESSAGE(!rc || rc == zk_errc::no_node, "remove " << path << ": " << rc.message());
}

// Makes the parents of path (persistent, empty).
void create_parents(session& s, const std::string& path) {
  std::vector<std::string> up;
  for (std::string p = parent_path(path); p != "/"; p = parent_path(p)) up.push_back(p);
  for (auto it = up.rbegin(); it != up.rend(); ++it) create(s, *it);
}

using tree = std::map<std::string, cached_node>;

// The server's subtree at root, up to depth levels below it.
tree server_tree(session& s, const std::string& root, std::size_t depth = 100) {
  tree out;
  auto [ec, node] = test::get(s.async_get(root, tuple_future));
  if (ec == zk_errc::no_node) return out;
  BOOST_REQUIRE_MESSAGE(!ec, "get " << root << ": " << ec.message());
  auto [lec, list] = test::get(s.async_children(root, tuple_future));
  if (lec == zk_errc::no_node) return out;
  out[root] = cached_node{node.data, node.stat};
  if (depth == 0) return out;
  for (const auto& n : list.names) out.merge(server_tree(s, join_path(root, n), depth - 1));
  return out;
}

// What the cache holds below root.
tree cache_tree(const tree_cache& c, const std::string& root) {
  tree out;
  auto node = c.get(root);
  if (!node) return out;
  out[root] = *node;
  for (const auto& n : c.children(root)) out.merge(cache_tree(c, join_path(root, n)));
  return out;
}

// The cache equals the server (data and Stat; a node's pzxid/cversion may lag behind a child
// change the cache read only as a listing, so those are compared as read).
bool equals_server(session& s, const tree_cache& c, std::size_t depth = 100) {
  return test::eventually(
      [&] {
        const tree server = server_tree(s, c.root(), depth);
        const tree cached = cache_tree(c, c.root());
        if (server.size() != cached.size()) return false;
        for (const auto& [path, node] : server) {
          const auto it = cached.find(path);
          if (it == cached.end() || it->second.data != node.data ||
              it->second.stat.czxid != node.stat.czxid ||
              it->second.stat.mzxid != node.stat.mzxid ||
              it->second.stat.version != node.stat.version)
            return false;
        }
        return true;
      },
      20s);
}

// Per path: added first, then updates in mzxid order, removed last (or added again after it).
void check_history(const std::vector<cache_event>& events) {
  std::map<std::string, std::vector<const cache_event*>> by_path;
  for (const auto& e : events)
    if (!e.path.empty()) by_path[e.path].push_back(&e);
  for (const auto& [path, list] : by_path) {
    bool present = false;
    zxid last = 0;
    for (const cache_event* e : list) {
      switch (e->type) {
        case cache_event_type::added:
          BOOST_TEST(!present, path << ": added while present");
          present = true;
          last = e->stat.mzxid;
          break;
        case cache_event_type::updated:
          BOOST_TEST(present, path << ": updated while absent");
          BOOST_TEST(e->stat.mzxid > last, path << ": update out of server order");
          last = e->stat.mzxid;
          break;
        case cache_event_type::removed:
          BOOST_TEST(present, path << ": removed while absent");
          present = false;
          break;
        default:
          break;
      }
    }
  }
}

std::unique_ptr<test::client> connect(std::string via = {}) {
  return std::make_unique<test::client>(session_timeout, std::move(via));
}

void start(tree_cache& c) {
  auto [ec] = test::get(c.async_start(tuple_future));
  BOOST_REQUIRE_MESSAGE(!ec, "start " << c.root() << ": " << ec.message());
}

// The paths at or below root the server watches for the session (wchc). After the last watch
// of a session is removed, ZooKeeper 3.8 may still list the session with no path.
std::vector<std::string> watched_below(std::int64_t session_id, const std::string& root) {
  std::vector<std::string> out;
  std::istringstream lines(test::watches_of(session_id));
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find('/');
    if (at == std::string::npos) continue;
    const std::string path = line.substr(at);
    if (path == root || path.starts_with(root + "/")) out.push_back(path);
  }
  return out;
}

std::size_t thread_count() {
  std::size_t n = 0;
  if (DIR* d = opendir("/proc/self/task")) {
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
  }
  return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(initial_load_adds_every_node_then_initialized) {
  auto admin = connect();
  const std::string root = "/tc/load";
  remove_tree(*admin->s, root);
  create_parents(*admin->s, root);
  create(*admin->s, root, "r");
  for (const char* p : {"/a", "/a/x", "/a/y", "/b"}) create(*admin->s, root + p, p);
  auto c = connect();
  tree_cache cache(*c->s, root);
  recorder rec(cache);
  start(cache);
  BOOST_TEST(cache.initialized());
  // Everything is there when async_start completes, and `initialized` comes after the adds.
  BOOST_REQUIRE(rec.reaches(cache_event_type::initialized, 1));
  BOOST_TEST(rec.count(cache_event_type::added) == 5u);
  BOOST_TEST(rec.all().back().type == cache_event_type::initialized);
  BOOST_TEST(cache.size() == 5u);
  BOOST_TEST(cache.get(root + "/a/x")->data == "/a/x");
  BOOST_TEST((cache.children(root + "/a") == std::vector<std::string>{"x", "y"}));
  BOOST_TEST(equals_server(*admin->s, cache));
  remove_tree(*admin->s, root);
}

BOOST_AUTO_TEST_CASE(changes_by_another_client_in_per_path_server_order) {
  auto admin = connect();
  const std::string root = "/tc/changes";
  remove_tree(*admin->s, root);
  create_parents(*admin->s, root);
  create(*admin->s, root);
  auto c = connect();
  tree_cache cache(*c->s, root);
  recorder rec(cache);
  start(cache);
  const std::string n = root + "/n", k = root + "/n/k";
  create(*admin->s, n, "1");
  BOOST_REQUIRE(rec.reaches(cache_event_type::added, 1, n));
  for (const char* v : {"2", "3", "4"}) set(*admin->s, n, v);
  create(*admin->s, k, "k");
  BOOST_REQUIRE(rec.reaches(cache_event_type::added, 1, k));
  BOOST_TEST(test::eventually([&] { return cache.get(n) && cache.get(n)->data == "4"; }, 20s));
  remove_tree(*admin->s, n);
  BOOST_REQUIRE(rec.reaches(cache_event_type::removed, 1, n));
  BOOST_TEST(rec.of(k) == (std::vector<cache_event_type>{cache_event_type::added,
                                                         cache_event_type::removed}),
             boost::test_tools::per_element());
  const auto of_n = rec.of(n);
  BOOST_TEST(of_n.front() == cache_event_type::added);
  BOOST_TEST(of_n.back() == cache_event_type::removed);
  BOOST_TEST(rec.count(cache_event_type::updated, n) >= 1u);
  BOOST_TEST(rec.count(cache_event_type::updated, n) <= 3u);
  check_history(rec.all());
  BOOST_TEST(!cache.get(n));
  BOOST_TEST(equals_server(*admin->s, cache));
  remove_tree(*admin->s, root);
}

// CURATOR-183: the root deleted and re-created is added again, never updated.
BOOST_AUTO_TEST_CASE(root_deleted_and_recreated_is_added_not_updated) {
  auto admin = connect();
  const std::string root = "/tc/recreated";
  remove_tree(*admin->s, root);
  create_parents(*admin->s, root);
  create(*admin->s, root, "one");
  auto c = connect();
  tree_cache cache(*c->s, root);
  recorder rec(cache);
  start(cache);
  remove_tree(*admin->s, root);
  BOOST_REQUIRE(rec.reaches(cache_event_type::removed, 1, root));
  BOOST_TEST(!cache.get(root));
  create(*admin->s, root, "two");
  BOOST_REQUIRE(rec.reaches(cache_event_type::added, 2, root));
  BOOST_TEST(rec.count(cache_event_type::updated, root) == 0u);
  BOOST_TEST(cache.get(root)->data == "two");
  check_history(rec.all());
  remove_tree(*admin->s, root);
}

// A missing root: initialized (empty), one exists watch and no reads in a loop (CURATOR-240),
// then its creation is seen with what is below it.
BOOST_AUTO_TEST_CASE(missing_root_then_created_without_a_refresh_loop) {
  auto admin = connect();
  const std::string root = "/tc/missing";
  remove_tree(*admin->s, root);
  create_parents(*admin->s, root);
  auto c = connect();
  tree_cache cache(*c->s, root);
  recorder rec(cache);
  start(cache);
  BOOST_TEST(cache.size() == 0u);
  const auto before = c->s->sent_requests();
  std::this_thread::sleep_for(1s);
  const auto after = c->s->sent_requests();
  BOOST_TEST(after.gets + after.exists + after.listings ==
             before.gets + before.exists + before.listings);
  create(*admin->s, root, "here");
  create(*admin->s, root + "/kid", "k");
  BOOST_REQUIRE(rec.reaches(cache_event_type::added, 1, root + "/kid"));
  BOOST_TEST(rec.of(root) == std::vector<cache_event_type>{cache_event_type::added},
             boost::test_tools::per_element());
  BOOST_TEST(equals_server(*admin->s, cache));
  remove_tree(*admin->s, root);
}

// max_depth stops the walk; the filter drops a subtree and tells /f/a from /f/ab (CURATOR-236).
BOOST_AUTO_TEST_CASE(max_depth_and_path_filter) {
  auto admin = connect();
  const std::string root = "/tc/options";
  remove_tree(*admin->s, root);
  create_parents(*admin->s, root);
  create(*admin->s, root);
  for (const char* p : {"/a", "/a/b", "/a/b/c", "/ab", "/ab/x"}) create(*admin->s, root + p, p);
  auto c = connect();
  cache_options shallow;
  shallow.max_depth = 1;
  tree_cache one(*c->s, root, shallow);
  start(one);
  BOOST_TEST(one.size() == 3u);  // root, a, ab
  BOOST_TEST(!one.get(root + "/a/b"));
  BOOST_TEST(equals_server(*admin->s, one, 1));
  create(*admin->s, root + "/a/b/d");
  create(*admin->s, root + "/new");
  BOOST_TEST(test::eventually([&] { return one.get(root + "/new").has_value(); }, 20s));
  BOOST_TEST(!one.get(root + "/a/b/d"));

  cache_options filtered;
  filtered.path_filter = [&](std::string_view p) { return p != root + "/a"; };
  filtered.keep_data = false;
  tree_cache f(*c->s, root, filtered);
  start(f);
  BOOST_TEST(!f.get(root + "/a"));
  BOOST_TEST(!f.get(root + "/a/b"));
  BOOST_TEST(f.get(root + "/ab").has_value());
  BOOST_TEST(f.get(root + "/ab/x").has_value());
  BOOST_TEST(f.get(root + "/ab/x")->data.empty());  // keep_data = false
  BOOST_TEST(f.get(root + "/ab/x")->stat.czxid != 0);

  node_cache node(*c->s, root + "/ab");
  children_cache kids(*c->s, root);
  start(node);
  start(kids);
  BOOST_TEST(node.current()->data == "/ab");
  BOOST_TEST(node.size() == 1u);
  BOOST_TEST((kids.names() == std::vector<std::string>{"a", "ab", "new"}));
  set(*admin->s, root + "/ab", "changed");
  BOOST_TEST(test::eventually([&] { return node.current()->data == "changed"; }, 20s));
  remove_tree(*admin->s, root);
  BOOST_TEST(test::eventually([&] { return !node.current() && kids.size() == 0; }, 20s));
}

// A connection loss shorter than the session: suspended, reconnected, initialized again, and
// the changes made meanwhile are seen, including a node deleted and re-created (CURATOR-391).
BOOST_AUTO_TEST_CASE(disconnect_gives_suspended_then_reconnected_and_the_cache_catches_up) {
  auto admin = connect();
  const std::string root = "/tc/proxy";
  remove_tree(*admin->s, root);
  create_parents(*admin->s, root);
  create(*admin->s, root);
  for (const char* p : {"/keep", "/gone", "/again", "/edit"}) create(*admin->s, root + p, p);
  testing::tcp_proxy proxy{"127.0.0.1", test::lock_cluster()->local_server().port()};
  auto c = connect(proxy.connect_string());
  tree_cache cache(*c->s, root);
  recorder rec(cache);
  start(cache);
  const zxid again_czxid = cache.get(root + "/again")->stat.czxid;
  proxy.drop_all();
  proxy.blackhole(true);
  BOOST_REQUIRE(rec.reaches(cache_event_type::suspended, 1));
  remove_tree(*admin->s, root + "/gone");
  remove_tree(*admin->s, root + "/again");
  create(*admin->s, root + "/again", "reborn");
  set(*admin->s, root + "/edit", "edited");
  create(*admin->s, root + "/fresh", "fresh");
  proxy.blackhole(false);
  BOOST_REQUIRE(rec.reaches(cache_event_type::reconnected, 1));
  BOOST_REQUIRE(rec.reaches(cache_event_type::initialized, 2));
  BOOST_TEST(c->s->state() == session_state::reconnected);
  BOOST_TEST(equals_server(*admin->s, cache));
  BOOST_TEST(cache.get(root + "/again")->stat.czxid != again_czxid);
  BOOST_TEST(rec.count(cache_event_type::added, root + "/again") == 2u);
  BOOST_TEST(rec.count(cache_event_type::removed, root + "/gone") == 1u);
  // The session events in order: suspended, reconnected, then whole again.
  std::vector<cache_event_type> session_events;
  for (const auto& e : rec.all())
    if (e.path.empty()) session_events.push_back(e.type);
  BOOST_TEST(session_events == (std::vector<cache_event_type>{
                                   cache_event_type::initialized, cache_event_type::suspended,
                                   cache_event_type::reconnected, cache_event_type::initialized}),
             boost::test_tools::per_element());
  check_history(rec.all());
  remove_tree(*admin->s, root);
}

// An expiry: lost, then a new session's walk (reconnected, initialized) to the server's tree.
BOOST_AUTO_TEST_CASE(session_expiry_gives_lost_and_a_fresh_walk) {
  auto admin = connect();
  const std::string root = "/tc/expiry";
  remove_tree(*admin->s, root);
  create_parents(*admin->s, root);
  create(*admin->s, root);
  for (const char* p : {"/a", "/b"}) create(*admin->s, root + p, p);
  auto c = connect();
  tree_cache cache(*c->s, root);
  recorder rec(cache);
  start(cache);
  const auto first_session = c->s->session_id();
  testing::expire_session(*c->s, 2000ms);
  BOOST_REQUIRE(rec.reaches(cache_event_type::lost, 1));
  remove_tree(*admin->s, root + "/a");
  create(*admin->s, root + "/c", "c");
  BOOST_REQUIRE(rec.reaches(cache_event_type::initialized, 2));
  BOOST_TEST(c->s->session_id() != first_session);
  BOOST_TEST(equals_server(*admin->s, cache));
  // Still followed on the new session.
  set(*admin->s, root + "/b", "b2");
  BOOST_TEST(test::eventually([&] { return cache.get(root + "/b")->data == "b2"; }, 20s));
  check_history(rec.all());
  remove_tree(*admin->s, root);
}

BOOST_AUTO_TEST_CASE(twenty_caches_on_one_session_and_no_thread_each) {
  auto admin = connect();
  const std::string root = "/tc/many";
  remove_tree(*admin->s, root);
  create_parents(*admin->s, root);
  create(*admin->s, root);
  for (int i = 0; i < 5; ++i) create(*admin->s, root + "/n" + std::to_string(i));
  auto c = connect();
  const std::size_t threads = thread_count();
  std::vector<std::unique_ptr<tree_cache>> caches;
  for (int i = 0; i < 20; ++i) caches.push_back(std::make_unique<tree_cache>(*c->s, root));
  for (auto& cache : caches) start(*cache);
  BOOST_TEST(thread_count() == threads);
  create(*admin->s, root + "/late", "x");
  for (auto& cache : caches) {
    BOOST_TEST(test::eventually([&] { return cache->get(root + "/late").has_value(); }, 20s));
    BOOST_TEST(cache->size() == 7u);
  }
  // Stopping one leaves the others' watches in place.
  caches[0]->stop();
  set(*admin->s, root + "/late", "y");
  for (std::size_t i = 1; i < caches.size(); ++i)
    BOOST_TEST(test::eventually([&] { return caches[i]->get(root + "/late")->data == "y"; }, 20s));
  BOOST_TEST(caches[0]->get(root + "/late")->data == "x");
  remove_tree(*admin->s, root);
}

// stop() and the destructor remove the cache's watches from the server; nothing is left.
BOOST_AUTO_TEST_CASE(stop_and_destruction_remove_the_watches) {
  auto admin = connect();
  const std::string root = "/tc/stop";
  remove_tree(*admin->s, root);
  create_parents(*admin->s, root);
  create(*admin->s, root);
  for (const char* p : {"/a", "/a/b"}) create(*admin->s, root + p);
  auto c = connect();
  const auto id = c->s->session_id();
  {
    tree_cache cache(*c->s, root);
    recorder rec(cache);
    start(cache);
    BOOST_TEST(test::eventually([&] { return watched_below(id, root).size() == 3u; }));
    cache.stop();
    BOOST_TEST(test::eventually([&] { return watched_below(id, root).empty(); }, 20s),
               "left: " << test::watches_of(id));
    const auto seen = rec.all().size();
    set(*admin->s, root + "/a", "after");
    std::this_thread::sleep_for(300ms);
    BOOST_TEST(rec.all().size() == seen);            // no event after stop
    BOOST_TEST(cache.get(root + "/a").has_value());  // the snapshot stays readable
  }
  {
    tree_cache cache(*c->s, root);
    start(cache);
    BOOST_TEST(test::eventually([&] { return watched_below(id, root).size() == 3u; }));
  }
  BOOST_TEST(test::eventually([&] { return watched_below(id, root).empty(); }, 20s),
             "left: " << test::watches_of(id));
  // The cache wrote nothing: the tree is as the test made it.
  BOOST_TEST(server_tree(*admin->s, root).size() == 3u);
  remove_tree(*admin->s, root);
}

// async_next_event with a future, a callback and a coroutine; the queue keeps every event.
BOOST_AUTO_TEST_CASE(events_are_awaited_with_any_token) {
  auto admin = connect();
  const std::string root = "/tc/tokens";
  remove_tree(*admin->s, root);
  create_parents(*admin->s, root);
  create(*admin->s, root, "r");
  auto c = connect();
  tree_cache cache(*c->s, root);
  BOOST_REQUIRE(!cache.start());
  auto [e1, first] = test::get(cache.async_next_event(tuple_future));
  BOOST_TEST(!e1);
  BOOST_TEST(first.type == cache_event_type::added);
  BOOST_TEST(first.path == root);
  std::promise<std::pair<error_code, cache_event>> by_callback;
  cache.async_next_event([&](error_code ec, cache_event e) {
    by_callback.set_value({ec, std::move(e)});
  });
  auto [e0, second] = test::get(by_callback.get_future());
  BOOST_TEST(!e0);
  BOOST_TEST(second.type == cache_event_type::initialized);
  // A second wait while one is pending is refused.
  auto pending = cache.async_next_event(tuple_future);
  auto [busy, none] = test::get(cache.async_next_event(tuple_future));
  BOOST_TEST(busy == errc::already_held);
  set(*admin->s, root, "r2");
  auto [e2, updated] = test::get(pending);
  BOOST_TEST(updated.type == cache_event_type::updated);
  BOOST_TEST(updated.data == "r2");
  std::promise<cache_event> by_coroutine;
  asio::co_spawn(
      c->io.executor(),
      [&]() -> asio::awaitable<void> {
        auto e = co_await cache.async_next_event(asio::use_awaitable);
        by_coroutine.set_value(std::move(e));
      },
      asio::detached);
  remove_tree(*admin->s, root);
  auto removed = test::get(by_coroutine.get_future());
  BOOST_TEST(removed.type == cache_event_type::removed);
  BOOST_TEST(removed.data == "r2");  // the last cached data
  // stop() aborts a pending wait.
  auto aborted = cache.async_next_event(tuple_future);
  cache.stop();
  BOOST_TEST(std::get<0>(test::get(aborted)) == asio::error::operation_aborted);
}

BOOST_AUTO_TEST_CASE(bad_path_and_unconnected_session_are_clear_errors) {
  auto c = connect();
  for (const char* bad : {"", "no-slash", "/trailing/", "/a//b"}) {
    tree_cache cache(*c->s, bad);
    BOOST_TEST(cache.start() == errc::bad_path, bad);
    BOOST_TEST(std::get<0>(test::get(cache.async_start(tuple_future))) == errc::bad_path, bad);
  }
  test::io_thread io;
  session_options o;
  o.connect = "127.0.0.1:1";
  session unconnected(io.executor(), o);
  tree_cache cache(unconnected, "/tc");
  BOOST_TEST(cache.start() == errc::not_connected);
}
