// SPDX-License-Identifier: Apache-2.0
// Interoperability of the tree cache: Apache Curator's CuratorCache (test/interop/
// CuratorCacheWatch.java, compiled here at test time against Debian's jars; on this server it
// follows the tree with a persistent recursive watch) and zkcoord's tree_cache follow ONE tree
// while a third client changes it at random (creates, data changes, deletions, re-creations,
// two levels deep). The third client knows the true history: every incarnation (czxid) of every
// path and every data version (mzxid) it wrote. Asserted:
// - each side's node events, per path, are a valid reading of that history: added first (an
//   incarnation that existed), then updates to data versions that were written, in mzxid order,
//   then removed of that same incarnation, which was deleted; no event for a change that did not
//   happen; a cache may skip intermediate versions, never reorder or invent them;
// - once the writer stops, both caches hold the server's tree: the same paths, czxid, mzxid and
//   data, read back from the server itself.
// Missing java, javac or the Curator jars FAILS the test.
#include <zkcoord/cache.hpp>

#include <zkcoord/testing/test_cluster.hpp>

#include "support/io_thread.hpp"
#include "support/piped_child.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE cache_interop
#include <boost/test/unit_test.hpp>

#include "support/interop_cluster.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
using test::tuple_future;

namespace {

const fs::path sources = ZKCOORD_INTEROP_SOURCES;
const fs::path work = ZKCOORD_INTEROP_WORK;
const std::string root = "/shared";

struct cluster_fixture : test::interop_cluster {
  cluster_fixture() : interop_cluster(sources / "CuratorCacheWatch.java", work / "classes") {}
};
BOOST_TEST_GLOBAL_FIXTURE(cluster_fixture);

std::string connect() {
  return test::interop_cluster::connect_string();
}

using client = test::connected_client;

// A node event as either cache reports it.
struct node_event {
  std::string type;  // added, updated, removed
  std::string path;
  zxid czxid = 0, mzxid = 0;
};

// A cached or server node: what the two caches and the server must agree on at the end.
struct node_state {
  zxid czxid = 0, mzxid = 0;
  std::string data;
  friend bool operator==(const node_state&, const node_state&) = default;
};
using tree = std::map<std::string, node_state>;

std::ostream& operator<<(std::ostream& os, const tree& t) {
  for (const auto& [path, n] : t) os << "\n  " << path << " " << n.czxid << " " << n.mzxid;
  return os;
}

std::string hex(const std::string& data) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : data) {
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out;
}

// The true history of one path, as the only writer saw it: per incarnation (czxid), the data
// versions (mzxid) in the order written, and whether it was deleted.
struct incarnation {
  zxid czxid = 0;
  std::vector<zxid> versions;
  bool deleted = false;
};
using history = std::map<std::string, std::vector<incarnation>>;

// The first problem with `events` read against `truth`, or "" when the events are a valid
// reading of it (per path: added, updates in order, removed; each naming a real state).
std::string check_events(const std::vector<node_event>& events, const history& truth) {
  struct reading {
    std::size_t incarnation = 0;  // index into the path's history of the one last added
    std::size_t version = 0;      // index into its versions of the last one seen
    bool present = false;
    bool any = false;
  };
  std::map<std::string, reading> at;
  for (const auto& e : events) {
    const std::string where = e.type + " " + e.path + " czxid " + std::to_string(e.czxid) +
                              " mzxid " + std::to_string(e.mzxid) + ": ";
    const auto h = truth.find(e.path);
    if (h == truth.end()) return where + "that path never existed";
    const auto& incs = h->second;
    auto& r = at[e.path];
    auto version_after = [&](std::size_t inc, std::size_t from) -> std::optional<std::size_t> {
      const auto& v = incs[inc].versions;
      for (std::size_t i = from; i < v.size(); ++i)
        if (v[i] == e.mzxid) return i;
      return std::nullopt;
    };
    if (e.type == "added") {
      if (r.present) return where + "added while present (no removed before it)";
      std::optional<std::size_t> inc;
      for (std::size_t i = r.any ? r.incarnation + 1 : 0; i < incs.size(); ++i)
        if (incs[i].czxid == e.czxid) inc = i;
      if (!inc) return where + "no later incarnation has that czxid";
      const auto v = version_after(*inc, 0);
      if (!v) return where + "that incarnation never had that mzxid";
      r = {*inc, *v, true, true};
    } else if (e.type == "updated") {
      if (!r.present || incs[r.incarnation].czxid != e.czxid)
        return where + "not the incarnation that was added";
      const auto v = version_after(r.incarnation, r.version + 1);
      if (!v) return where + "not a data version written after the last one seen";
      r.version = *v;
    } else if (e.type == "removed") {
      if (!r.present || incs[r.incarnation].czxid != e.czxid)
        return where + "not the incarnation that was added";
      if (!incs[r.incarnation].deleted) return where + "that incarnation was never deleted";
      r.present = false;
    } else {
      return where + "unknown event";
    }
  }
  return "";
}

// The server's tree under root, read directly.
tree server_tree(session& s) {
  tree out;
  std::vector<std::string> todo{root};
  while (!todo.empty()) {
    const std::string path = todo.back();
    todo.pop_back();
    auto [ec, got] = test::get(s.async_get(path, tuple_future));
    if (ec == condition::not_found) continue;
    BOOST_REQUIRE_MESSAGE(!ec, "get " << path << ": " << ec.message());
    out[path] = {got.stat.czxid, got.stat.mzxid, hex(got.data)};
    auto [cec, kids] = test::get(s.async_children(path, tuple_future));
    if (cec == condition::not_found) continue;
    BOOST_REQUIRE_MESSAGE(!cec, "children " << path << ": " << cec.message());
    for (const auto& k : kids.names) todo.push_back(path + "/" + k);
  }
  return out;
}

tree snapshot_of(const tree_cache& cache) {
  tree out;
  std::vector<std::string> todo{root};
  while (!todo.empty()) {
    const std::string path = todo.back();
    todo.pop_back();
    const auto n = cache.get(path);
    if (!n) continue;
    out[path] = {n->stat.czxid, n->stat.mzxid, hex(n->data)};
    for (const auto& k : cache.children(path)) todo.push_back(path + "/" + k);
  }
  return out;
}

// CuratorCache in a Java process: its event lines as they come, its tree on "dump".
class curator_cache {
 public:
  curator_cache()
      : child_({"java", "-cp", test::curator_classpath(work / "classes"), "CuratorCacheWatch",
                connect(), root}) {}

  // Reads lines until `done` says stop (true) or the bound passes (false).
  template <class Done>
  bool read_until(Done done, std::chrono::seconds bound = 60s) {
    const auto deadline = std::chrono::steady_clock::now() + bound;
    while (std::chrono::steady_clock::now() < deadline) {
      auto line = child_.read_line(1000ms);
      if (!line) continue;
      BOOST_REQUIRE_MESSAGE(line->rfind("error", 0) != 0, "CuratorCacheWatch: " << *line);
      if (*line == "initialized") initialized_ = true;
      std::istringstream in(*line);
      node_event e;
      in >> e.type;
      if (e.type == "added" || e.type == "updated" || e.type == "removed") {
        in >> e.path >> e.czxid >> e.mzxid;
        events.push_back(e);
      } else if (e.type == "node") {
        std::string path;
        node_state n;
        in >> path >> n.czxid >> n.mzxid >> n.data;
        if (n.data == "-") n.data.clear();
        dumped_[path] = n;
      } else if (e.type == "end") {
        dump_ready_ = true;
      }
      if (done()) return true;
    }
    return false;
  }
  bool initialized() const { return initialized_; }
  std::optional<tree> dump() {
    dumped_.clear();
    dump_ready_ = false;
    child_.write_line("dump");
    if (!read_until([this] { return dump_ready_; }, 30s)) return std::nullopt;
    return dumped_;
  }

  std::vector<node_event> events;

 private:
  test::piped_child child_;
  bool initialized_ = false;
  bool dump_ready_ = false;
  tree dumped_;
};

// The third client: random changes two levels deep under root, recording the true history.
class writer {
 public:
  explicit writer(session& s, std::uint32_t seed) : s_(s), rng_(seed) {
    for (int i = 0; i < 5; ++i) {
      const std::string top = root + "/n" + std::to_string(i);
      paths_.push_back(top);
      for (int j = 0; j < 3; ++j) paths_.push_back(top + "/c" + std::to_string(j));
    }
  }

  void create(const std::string& path, const std::string& data) {
    auto [ec, made] = test::get(s_.async_create(path, data, {}, tuple_future));
    BOOST_REQUIRE_MESSAGE(!ec, "create " << path << ": " << ec.message());
    truth[path].push_back({made.stat.czxid, {made.stat.mzxid}, false});
    live_[path] = 0;
  }

  void step() {
    const std::string& path = paths_[pick(paths_.size())];
    const std::string parent = path.substr(0, path.rfind('/'));
    const std::string data = "v" + std::to_string(pick(1000000));
    if (!live_.contains(path)) {
      if (parent == root || live_.contains(parent)) create(path, data);
      return;
    }
    const bool has_children = std::any_of(live_.begin(), live_.end(), [&](const auto& kv) {
      return kv.first.rfind(path + "/", 0) == 0;
    });
    if (has_children || pick(10) < 6) {
      auto [ec, st] = test::get(s_.async_set(path, data, -1, tuple_future));
      BOOST_REQUIRE_MESSAGE(!ec, "set " << path << ": " << ec.message());
      truth[path].back().versions.push_back(st.mzxid);
    } else {
      auto [ec] = test::get(s_.async_remove(path, -1, tuple_future));
      BOOST_REQUIRE_MESSAGE(!ec, "remove " << path << ": " << ec.message());
      truth[path].back().deleted = true;
      live_.erase(path);
    }
  }

  history truth;

 private:
  std::size_t pick(std::size_t n) {
    return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_);
  }
  session& s_;
  std::mt19937 rng_;
  std::vector<std::string> paths_;
  std::map<std::string, int> live_;
};

BOOST_AUTO_TEST_CASE(curator_cache_and_tree_cache_agree_with_the_true_history) {
  client writer_client, cache_client;
  const std::uint32_t seed = std::random_device{}();
  BOOST_TEST_MESSAGE("seed " << seed);
  writer w(*writer_client.s, seed);
  w.create(root, "root");
  for (int i = 0; i < 20; ++i) w.step();  // some tree before either cache starts

  std::mutex mutex;
  std::vector<node_event> ours;
  tree_cache cache(*cache_client.s, root);
  cache.set_listener([&](const cache_event& e) {
    if (e.type != cache_event_type::added && e.type != cache_event_type::updated &&
        e.type != cache_event_type::removed)
      return;
    std::lock_guard lock(mutex);
    ours.push_back({to_string(e.type), e.path, e.stat.czxid, e.stat.mzxid});
  });
  curator_cache theirs;
  auto [start_ec] = test::get(cache.async_start(tuple_future));
  BOOST_REQUIRE_MESSAGE(!start_ec, "tree_cache start: " << start_ec.message());
  BOOST_REQUIRE_MESSAGE(theirs.read_until([&] { return theirs.initialized(); }),
                        "CuratorCache did not initialize");

  // Changes while both follow; a short breath now and then lets each cache catch up part way
  // (coalesced and uncoalesced readings both get exercised).
  for (int i = 0; i < 400; ++i) {
    w.step();
    if (i % 50 == 49) std::this_thread::sleep_for(20ms);
  }

  // Quiescence: both hold the server's tree (bounded; the caches only have to get there).
  const tree server = server_tree(*writer_client.s);
  BOOST_TEST_MESSAGE(server.size() << " nodes at the end");
  bool ours_equal = false;
  for (int i = 0; i < 300 && !ours_equal; ++i) {
    ours_equal = snapshot_of(cache) == server;
    if (!ours_equal) std::this_thread::sleep_for(100ms);
  }
  BOOST_TEST(ours_equal, "tree_cache: " << snapshot_of(cache) << "\nserver: " << server);
  std::optional<tree> curator;
  for (int i = 0; i < 60; ++i) {
    theirs.read_until([] { return false; }, 1s);  // take in events meanwhile
    curator = theirs.dump();
    BOOST_REQUIRE_MESSAGE(curator, "CuratorCacheWatch did not answer dump");
    if (*curator == server) break;
  }
  BOOST_TEST((*curator == server), "CuratorCache: " << *curator << "\nserver: " << server);

  std::lock_guard lock(mutex);
  BOOST_TEST_MESSAGE("tree_cache " << ours.size() << " node events, CuratorCache "
                                   << theirs.events.size());
  const std::string our_problem = check_events(ours, w.truth);
  BOOST_TEST(our_problem.empty(), "tree_cache (seed " << seed << "): " << our_problem);
  const std::string their_problem = check_events(theirs.events, w.truth);
  BOOST_TEST(their_problem.empty(), "CuratorCache (seed " << seed << "): " << their_problem);
}

// The history check itself: it must refuse what a wrong cache would report.
BOOST_AUTO_TEST_CASE(the_history_check_refuses_invented_reordered_and_duplicate_events) {
  const history truth = {{"/shared/a", {{10, {10, 12, 15}, true}, {20, {20}, false}}}};
  using events = std::vector<node_event>;
  const auto ev = [](const char* type, zxid c, zxid m) {
    return node_event{type, "/shared/a", c, m};
  };
  // Valid: skipping version 12 and reading the second incarnation after the removal.
  BOOST_TEST(check_events(events{ev("added", 10, 10), ev("updated", 10, 15), ev("removed", 10, 15),
                                 ev("added", 20, 20)},
                          truth) == "");
  BOOST_TEST(check_events(events{ev("added", 10, 13)}, truth) != "");  // a version never written
  BOOST_TEST(check_events(events{ev("added", 10, 15), ev("updated", 10, 12)}, truth) !=
             "");  // reordered
  BOOST_TEST(check_events(events{ev("added", 10, 10), ev("added", 10, 10)}, truth) !=
             "");  // duplicate added (CURATOR-324)
  BOOST_TEST(check_events(events{ev("added", 10, 10), ev("updated", 20, 20)}, truth) !=
             "");  // a new incarnation as an update (CURATOR-183)
  BOOST_TEST(check_events(events{ev("added", 20, 20), ev("removed", 20, 20)}, truth) !=
             "");  // removal of a node that was never deleted
  BOOST_TEST(check_events(events{{"added", "/shared/b", 30, 30}}, truth) != "");  // never existed
}

}  // namespace
