// SPDX-License-Identifier: Apache-2.0
// Interoperability of the semaphore: Apache Curator InterProcessSemaphoreV2 contenders (Java,
// test/interop/CuratorSemaphore.java, compiled here at test time against Debian's jars) and
// zkcoord semaphores with the same number of leases take leases of ONE path for some seconds,
// marking every lease held in a shared cross-process occupancy store. Asserted: never more
// than N holders, all N leases were in use at once, a Curator and a zkcoord holder were inside
// together, every contender got leases, the two share the internal lock's queue (an observer
// saw nodes of both under PATH/locks in one listing, told apart by their ephemeral owners), no
// node left behind. Missing java, javac or the Curator jars FAILS the test (scripts/install-deps
// installs them).
#include <zkcoord/semaphore.hpp>

#include <zkcoord/testing/test_cluster.hpp>

#include "support/io_thread.hpp"
#include "support/lease_occupancy_store.hpp"
#include "support/piped_child.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE semaphore_interop
#include <boost/test/unit_test.hpp>

#include "support/curator_java.hpp"
#include "testing/temp_dir.hpp"

#include <filesystem>
#include <random>
#include <set>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {

const fs::path sources = ZKCOORD_INTEROP_SOURCES;
const fs::path work = ZKCOORD_INTEROP_WORK;
constexpr auto tuple = asio::as_tuple(asio::use_awaitable);

struct lease_cycles {
  long leases = 0;
  std::string error;  ///< the first failure, which ended the contender
};

// Acquire a lease, mark it held, hold it a few milliseconds, unmark, return it; until
// `deadline`.
asio::awaitable<void> lease_contender(session& s, std::string path, std::uint32_t max_leases,
                                      std::string who,
                                      std::chrono::steady_clock::time_point deadline,
                                      test::lease_occupancy_store& store, lease_cycles& done) {
  semaphore sem(s, path, max_leases);
  asio::steady_timer timer(co_await asio::this_coro::executor);
  std::mt19937 rng(static_cast<unsigned>(std::hash<std::string>{}(who)));
  while (std::chrono::steady_clock::now() < deadline) {
    auto [ec, held] = co_await sem.async_acquire(tuple);
    if (ec) {
      done.error = who + " acquire: " + ec.message();
      co_return;
    }
    store.enter(who);
    timer.expires_after(std::chrono::milliseconds(2 + rng() % 12));
    co_await timer.async_wait(tuple);
    store.exit(who);
    if (auto [release_ec] = co_await held.async_release(tuple); release_ec) {
      done.error = who + " release: " + release_ec.message();
      co_return;
    }
    ++done.leases;
  }
}

struct queue_sightings {
  long listings = 0;  ///< listings of PATH/locks with at least two nodes
  long mixed = 0;     ///< ... of which held nodes of a zkcoord session and of another
};

// Until `deadline`, lists PATH/locks every few milliseconds and tells its nodes apart by
// their ephemeral owner: a zkcoord session in `ours`, or another (Curator's).
asio::awaitable<void> watch_internal_lock(session& s, std::string locks,
                                          std::set<std::int64_t> ours,
                                          std::chrono::steady_clock::time_point deadline,
                                          queue_sightings& seen) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  while (std::chrono::steady_clock::now() < deadline) {
    timer.expires_after(3ms);
    co_await timer.async_wait(tuple);
    auto [ec, list] = co_await s.async_children(locks, tuple);
    if (ec || list.names.size() < 2) continue;
    bool zkcoord = false, other = false;
    for (const auto& name : list.names) {
      auto [stat_ec, stat] = co_await s.async_exists(locks + "/" + name, tuple);
      if (stat_ec || !stat) continue;  // gone meanwhile
      (ours.contains(stat->ephemeral_owner) ? zkcoord : other) = true;
    }
    ++seen.listings;
    if (zkcoord && other) ++seen.mixed;
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(zkcoord_and_curator_semaphores_share_the_leases_of_one_path) {
  constexpr int curator_count = 3, zkcoord_count = 3;
  constexpr std::uint32_t max_leases = 2;
  constexpr auto duration = 10s;
  test::compile_curator_program(sources / "CuratorSemaphore.java", work / "classes");
  testing::test_cluster cluster;
  testing::detail::temp_dir dir("zkcoord-semaphore-interop-");
  test::lease_occupancy_store store(dir.path(), max_leases);
  const std::string path = testing::unique_path("semaphore-interop");

  test::piped_child curators(std::vector<std::string>{
      "java", "-cp", test::curator_classpath(work / "classes"), "CuratorSemaphore",
      cluster.connect_string(), path, std::to_string(max_leases), dir.path().string(),
      std::to_string(duration.count()), std::to_string(curator_count)});

  test::io_thread io;
  std::vector<std::unique_ptr<session>> sessions;
  std::set<std::int64_t> zkcoord_sessions;
  for (int i = 0; i <= zkcoord_count; ++i) {  // the contenders', then the observer's
    sessions.push_back(std::make_unique<session>(
        io.executor(), session_options{.connect = cluster.connect_string()}));
    test::get(sessions.back()->async_connect(asio::use_future));
    if (i < zkcoord_count) zkcoord_sessions.insert(sessions.back()->session_id());
  }
  session& observer = *sessions.back();
  // The JVM takes a second or two to start: run a little longer, so the two overlap.
  const auto deadline = std::chrono::steady_clock::now() + duration + 2s;
  std::vector<lease_cycles> cycles(zkcoord_count);
  std::vector<std::future<void>> done;
  for (int i = 0; i < zkcoord_count; ++i)
    done.push_back(
        asio::co_spawn(io.executor(),
                       lease_contender(*sessions[i], path, max_leases,
                                       "zkcoord-" + std::to_string(i), deadline, store, cycles[i]),
                       asio::use_future));
  queue_sightings sightings;
  auto watched = asio::co_spawn(
      io.executor(),
      watch_internal_lock(observer, path + "/locks", zkcoord_sessions, deadline, sightings),
      asio::use_future);

  long leases = 0;
  for (int i = 0; i < curator_count; ++i) {
    BOOST_TEST_CONTEXT("curator-" << i) {
      const auto line = curators.read_line(duration + 90s);
      BOOST_REQUIRE_MESSAGE(line.has_value(), "no result from curator-" << i);
      BOOST_TEST_MESSAGE(*line);
      const auto at = line->find("leases=");
      BOOST_REQUIRE(at != std::string::npos);
      const long mine = std::stol(line->substr(at + 7));
      BOOST_TEST(mine > 0);
      leases += mine;
    }
  }
  BOOST_TEST(curators.wait_exit(30s).value_or(-1) == 0);
  for (int i = 0; i < zkcoord_count; ++i) {
    test::get(done[i], duration + 90s);
    BOOST_TEST_CONTEXT("zkcoord-" << i) {
      BOOST_TEST(cycles[i].error.empty(), cycles[i].error);
      BOOST_TEST(cycles[i].leases > 0);
    }
    BOOST_TEST_MESSAGE("zkcoord-" << i << " leases=" << cycles[i].leases);
    leases += cycles[i].leases;
  }
  test::get(watched, duration + 30s);

  const auto state = store.snapshot();
  BOOST_TEST_MESSAGE("most holders at once " << state.max_holders << ", mixed holds "
                                             << state.mixed_holds << "; internal lock listings "
                                             << sightings.listings << ", with both "
                                             << sightings.mixed);
  BOOST_TEST(state.violations == 0);  // never more than max_leases holders
  BOOST_TEST(state.max_holders == static_cast<std::int64_t>(max_leases));  // all leases used
  BOOST_TEST(state.mixed_holds > 0);  // a Curator and a zkcoord holder at once
  BOOST_TEST(state.zkcoord_leases + state.curator_leases == leases);
  BOOST_TEST(state.holders() == 0);
  BOOST_TEST(sightings.mixed > 0);  // one internal-lock queue, both kinds in it
  for (const char* sub : {"/leases", "/locks"}) {
    auto [ec, left] = test::get(observer.async_children(path + sub, test::tuple_future));
    BOOST_TEST((ec == zk_errc::no_node || left.names.empty()), path + sub << " not empty");
  }
}
