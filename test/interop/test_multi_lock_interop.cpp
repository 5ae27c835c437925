// SPDX-License-Identifier: Apache-2.0
// Interoperability of the multi-lock: Apache Curator's InterProcessMultiLock (test/interop/
// CuratorMultiLock.java, compiled here at test time against Debian's jars) and zkcoord's
// multi_lock on two sessions take the same two locks, round after round, at the same time.
// Whoever holds every lock creates one ephemeral holder node and deletes it before releasing,
// so two holders at once show up as NodeExists from ZooKeeper itself. Asserted: every round of
// every side completes (no deadlock: zkcoord sorts its paths, and Curator is given them in that
// order, as docs/multi_lock.md asks of Curator callers), nobody ever finds the holder node, and
// nothing is left under the lock paths. Missing java, javac or the Curator jars FAILS the test.
#include <zkcoord/multi_lock.hpp>

#include <zkcoord/testing/test_cluster.hpp>

#include "support/io_thread.hpp"
#include "support/piped_child.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE multi_lock_interop
#include <boost/test/unit_test.hpp>

#include "support/interop_cluster.hpp"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <mutex>
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

struct cluster_fixture : test::interop_cluster {
  cluster_fixture() : interop_cluster(sources / "CuratorMultiLock.java", work / "classes") {}
};
BOOST_TEST_GLOBAL_FIXTURE(cluster_fixture);

std::string connect() {
  return test::interop_cluster::connect_string();
}

using client = test::connected_client;

std::size_t children_of(session& s, const std::string& path) {
  auto [ec, kids] = test::get(s.async_children(path, tuple_future));
  if (ec == condition::not_found) return 0;
  BOOST_REQUIRE_MESSAGE(!ec, "children " << path << ": " << ec.message());
  return kids.names.size();
}

BOOST_AUTO_TEST_CASE(curator_and_zkcoord_multi_locks_exclude_each_other_on_the_same_paths) {
  const std::string a = "/interop/multi/a", b = "/interop/multi/b";
  const std::string holder = "/interop/multi-holder";
  const int rounds = 15;
  client admin;
  for (const char* p : {"/interop", "/interop/multi"}) {
    auto [ec, made] = test::get(admin.s->async_create(p, "", {}, tuple_future));
    BOOST_REQUIRE(!ec || ec == condition::already_exists);
  }

  // Curator takes them in sorted order: the order zkcoord's multi_lock uses.
  test::piped_child curator({"java", "-cp", test::curator_classpath(work / "classes"),
                             "CuratorMultiLock", connect(), holder, std::to_string(rounds), a, b});
  std::mutex mutex;
  std::vector<std::string> failures;
  std::atomic<int> done{0};
  auto zkcoord_side = [&](int who) {
    client c;
    // Named in the other order: multi_lock sorts them.
    multi_lock locks(*c.s, {b, a});
    for (int i = 0; i < rounds; ++i) {
      auto [ec, held] = test::get(locks.async_acquire(60s, tuple_future), std::chrono::seconds(90));
      std::string problem;
      if (ec) {
        problem = "acquire: " + ec.message();
      } else {
        auto [cec, made] = test::get(
            c.s->async_create(holder, "zkcoord", {.mode = create_mode::ephemeral}, tuple_future));
        if (cec) {
          problem = "holder node: " + cec.message() + " (two holders at once?)";
        } else {
          std::this_thread::sleep_for(20ms);
          auto [dec] = test::get(c.s->async_remove(holder, -1, tuple_future));
          if (dec) problem = "holder delete: " + dec.message();
        }
        auto [rec] = test::get(held.async_release(tuple_future));
        if (rec && problem.empty()) problem = "release: " + rec.message();
      }
      if (!problem.empty()) {
        std::lock_guard lock(mutex);
        failures.push_back("zkcoord " + std::to_string(who) + " round " + std::to_string(i) + ": " +
                           problem);
        return;
      }
      ++done;
    }
  };
  std::thread first(zkcoord_side, 1), second(zkcoord_side, 2);
  first.join();
  second.join();
  BOOST_TEST(failures.empty(),
             failures.size() << " failures, first: " << (failures.empty() ? "" : failures[0]));
  BOOST_TEST(done.load() == 2 * rounds);

  std::string last;
  while (auto line = curator.read_line(90s)) last = *line;
  BOOST_TEST(last == "rounds " + std::to_string(rounds), "Curator printed: " << last);

  BOOST_TEST(children_of(*admin.s, a) == 0u);
  BOOST_TEST(children_of(*admin.s, b) == 0u);
}

}  // namespace
