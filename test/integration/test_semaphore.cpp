// SPDX-License-Identifier: Apache-2.0
// The semaphore against a real server: N leases at once and the next acquirer waiting in
// order, try-acquire, N = 0 and other bad input, a lease deleted by an admin, a leases path
// holding another recipe's nodes, and the matrix's faults (holders' sessions killed, holders
// paused past their session) with never more than N holders, judged on the server: each
// holder creates an ephemeral "occupant" node with a write fenced by its lease, and counts the
// occupants right after.
#include <zkcoord/fenced.hpp>
#include <zkcoord/semaphore.hpp>
#include <zkcoord/testing/expire_session.hpp>
#include <zkcoord/testing/tcp_proxy.hpp>

#define BOOST_TEST_MODULE semaphore
#include <boost/test/unit_test.hpp>

#include "support/lock_fixture.hpp"

#include <algorithm>
#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <tuple>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using test::tuple_future;

namespace {

using test::lock_server;
BOOST_TEST_GLOBAL_FIXTURE(lock_server);

using lease_result = std::tuple<error_code, lease>;

// Children of `path` (0 when it does not exist).
std::size_t children_of(session& s, const std::string& path) {
  auto [ec, list] = test::get(s.async_children(path, tuple_future));
  if (ec == zk_errc::no_node) return 0;
  BOOST_REQUIRE_MESSAGE(!ec, "children of " << path << ": " << ec.message());
  return list.names.size();
}

// Waits until the semaphore at `path` has `leases` lease nodes and `locks` internal-lock nodes.
bool nodes_reach(session& s, const std::string& path, std::size_t leases, std::size_t locks) {
  return test::eventually([&] {
    return children_of(s, path + "/leases") == leases && children_of(s, path + "/locks") == locks;
  });
}

bool ready(std::future<lease_result>& f) {
  return f.wait_for(0ms) == std::future_status::ready;
}

}  // namespace

BOOST_AUTO_TEST_CASE(n_leases_at_once_then_the_next_waits_in_order) {
  const std::string path = "/sem/basic";
  test::client observer;
  std::vector<std::unique_ptr<test::client>> clients;
  std::vector<std::unique_ptr<semaphore>> sems;
  for (int i = 0; i < 6; ++i) {
    clients.push_back(std::make_unique<test::client>());
    sems.push_back(std::make_unique<semaphore>(*clients.back()->s, path, 3));
  }
  std::vector<lease> held;
  for (int i = 0; i < 3; ++i) {
    auto [ec, l] = test::get(sems[i]->async_acquire(tuple_future));
    BOOST_TEST_REQUIRE(!ec, "lease " << i << ": " << ec.message());
    BOOST_TEST(l.owns());
    held.push_back(std::move(l));
  }
  BOOST_TEST(held[0].token() < held[1].token());
  BOOST_TEST(held[1].token() < held[2].token());
  BOOST_TEST(nodes_reach(*observer.s, path, 3, 0));  // the internal lock returned each time

  // The fourth waits holding the internal lock (its lease counted, not granted); the fifth
  // queues for the internal lock.
  auto fourth = sems[3]->async_acquire(tuple_future);
  BOOST_TEST_REQUIRE(nodes_reach(*observer.s, path, 4, 1));
  auto fifth = sems[4]->async_acquire(tuple_future);
  BOOST_TEST_REQUIRE(nodes_reach(*observer.s, path, 4, 2));
  BOOST_TEST(!ready(fourth));
  BOOST_TEST(!ready(fifth));

  auto [busy_ec, none] = test::get(sems[5]->async_try_acquire(tuple_future));
  BOOST_TEST(busy_ec == errc::busy);
  BOOST_TEST(!none.owns());
  BOOST_TEST(nodes_reach(*observer.s, path, 4, 2));  // the try left nothing behind

  test::get(held[1].async_release(asio::use_future));
  auto [e4, l4] = test::get(fourth);
  BOOST_TEST_REQUIRE(!e4, e4.message());
  BOOST_TEST(l4.token() > held[2].token());
  // The fifth now holds the internal lock and waits with its lease.
  BOOST_TEST_REQUIRE(nodes_reach(*observer.s, path, 4, 1));
  BOOST_TEST(!ready(fifth));

  test::get(held[0].async_release(asio::use_future));
  auto [e5, l5] = test::get(fifth);
  BOOST_TEST_REQUIRE(!e5, e5.message());
  BOOST_TEST(l5.token() > l4.token());

  for (lease* l : {&held[2], &l4, &l5}) test::get(l->async_release(asio::use_future));
  BOOST_TEST(nodes_reach(*observer.s, path, 0, 0));
}

BOOST_AUTO_TEST_CASE(a_timed_out_waiter_leaves_no_node_and_returns_the_internal_lock) {
  const std::string path = "/sem/timeout";
  test::client a, b, c, observer;
  semaphore one(*a.s, path, 1), two(*b.s, path, 1), three(*c.s, path, 1);
  auto [e1, held] = test::get(one.async_acquire(tuple_future));
  BOOST_REQUIRE(!e1);
  auto behind = three.async_acquire(tuple_future);  // first in line: holds the internal lock
  BOOST_REQUIRE(nodes_reach(*observer.s, path, 2, 1));
  // Times out in the internal lock's queue.
  auto [e2, none] = test::get(two.async_acquire(300ms, tuple_future));
  BOOST_TEST(e2 == errc::timeout);
  BOOST_TEST(nodes_reach(*observer.s, path, 2, 1));
  test::get(held.async_release(asio::use_future));
  auto [e3, l3] = test::get(behind);
  BOOST_TEST_REQUIRE(!e3, e3.message());
  // Times out waiting for a lease, holding the internal lock: both nodes go.
  auto [e4, none4] = test::get(two.async_acquire(300ms, tuple_future));
  BOOST_TEST(e4 == errc::timeout);
  BOOST_TEST(nodes_reach(*observer.s, path, 1, 0));
  test::get(l3.async_release(asio::use_future));
  BOOST_TEST(nodes_reach(*observer.s, path, 0, 0));
}

BOOST_AUTO_TEST_CASE(zero_leases_is_a_clear_error_and_creates_nothing) {
  test::client a;
  semaphore none(*a.s, "/sem/zero", 0);
  auto [ec, l] = test::get(none.async_acquire(tuple_future));
  BOOST_TEST(ec == errc::bad_argument);
  BOOST_TEST(!l.owns());
  auto [ee, stat] = test::get(a.s->async_exists("/sem/zero", tuple_future));
  BOOST_TEST(!ee);
  BOOST_TEST(!stat.has_value());
}

BOOST_AUTO_TEST_CASE(an_invalid_path_is_refused_and_creates_nothing) {
  test::client a;
  for (const char* bad : {"sem/relative", "/sem//double", "/sem/trailing/", "/sem/\x01x"}) {
    semaphore s(*a.s, bad, 2);
    auto [ec, l] = test::get(s.async_acquire(tuple_future));
    BOOST_TEST(ec == errc::bad_path, bad << ": " << ec.message());
  }
}

BOOST_AUTO_TEST_CASE(a_second_acquire_of_one_object_is_already_held) {
  const std::string path = "/sem/again";
  test::client a, observer;
  semaphore s(*a.s, path, 2);
  auto [e1, l1] = test::get(s.async_acquire(tuple_future));
  BOOST_REQUIRE(!e1);
  auto [e2, l2] = test::get(s.async_acquire(tuple_future));
  BOOST_TEST(e2 == errc::already_held);  // one lease per object, even with one free
  BOOST_TEST(nodes_reach(*observer.s, path, 1, 0));
  test::get(l1.async_release(asio::use_future));
  auto [e3, l3] = test::get(s.async_acquire(tuple_future));
  BOOST_TEST(!e3);
  test::get(l3.async_release(asio::use_future));
}

BOOST_AUTO_TEST_CASE(a_lease_deleted_by_an_admin_is_reported_lost_and_frees_a_lease) {
  const std::string path = "/sem/admin";
  test::client a, b, admin;
  semaphore first(*a.s, path, 1), second(*b.s, path, 1);
  auto [e1, held] = test::get(first.async_acquire(tuple_future));
  BOOST_REQUIRE(!e1);
  auto lost = held.async_wait_lost(tuple_future);
  auto next = second.async_acquire(tuple_future);
  BOOST_REQUIRE(nodes_reach(*admin.s, path, 2, 1));

  auto [le, leases] = test::get(admin.s->async_children(path + "/leases", tuple_future));
  BOOST_REQUIRE(!le);
  std::sort(leases.names.begin(), leases.names.end(), [](const auto& x, const auto& y) {
    return x.substr(x.size() - 10) < y.substr(y.size() - 10);
  });
  auto [de] = test::get(
      admin.s->async_remove(path + "/leases/" + leases.names.front(), any_version, tuple_future));
  BOOST_REQUIRE(!de);
  auto [el] = test::get(lost);
  BOOST_TEST(el == errc::lock_lost);
  auto [e2, l2] = test::get(next);
  BOOST_TEST_REQUIRE(!e2, e2.message());
  BOOST_TEST(l2.token() > held.token());
  test::get(l2.async_release(asio::use_future));
}

BOOST_AUTO_TEST_CASE(a_leases_path_holding_lock_nodes_is_a_recipe_mismatch) {
  const std::string path = "/sem/mixed";
  test::client a, intruder;
  // A lock contender where leases belong (someone pointed a lock at PATH/leases).
  lock stray(*intruder.s, path + "/leases");
  auto [el, stray_held] = test::acquire(stray);
  BOOST_REQUIRE(!el);
  semaphore s(*a.s, path, 5);
  auto [ec, l] = test::get(s.async_acquire(tuple_future));
  BOOST_TEST(ec == errc::recipe_mismatch);
  BOOST_TEST(nodes_reach(*a.s, path, 1, 0));  // the stray node only: ours are gone
  test::get(stray_held.async_release(asio::use_future));
}

// Test-matrix rows 1-2 for the semaphore: holders' sessions are killed (expired) and holders
// are paused past their session (their link to the server stalls), over and over, while five
// clients cycle through two leases. On the server, never more than two occupants.
BOOST_AUTO_TEST_CASE(kills_and_pauses_never_admit_more_than_n) {
  constexpr std::uint32_t leases = 2;
  constexpr int workers = 5;
  const std::string path = "/sem/faults";
  const std::string occupants = "/sem-occupants";
  const auto session_timeout = 1500ms;
  auto& cluster = *test::lock_cluster();

  test::client setup;
  {
    auto [ec, n] = test::get(setup.s->async_create(occupants, "", {}, tuple_future));
    BOOST_REQUIRE(!ec || ec == zk_errc::node_exists);
  }

  std::vector<std::unique_ptr<testing::tcp_proxy>> proxies;
  std::vector<std::unique_ptr<test::client>> clients;
  for (int i = 0; i < workers; ++i) {
    proxies.push_back(
        std::make_unique<testing::tcp_proxy>("127.0.0.1", cluster.local_server().port()));
    clients.push_back(
        std::make_unique<test::client>(session_timeout, proxies.back()->connect_string()));
  }

  std::atomic<bool> stop{false};
  std::atomic<int> grants{0}, refused{0}, most_occupants{0};
  std::mutex errors_mutex;
  std::map<std::string, int> errors;
  const auto note = [&](const std::string& what) {
    std::lock_guard lock(errors_mutex);
    ++errors[what];
  };

  const auto work = [&](int i) {
    semaphore sem(*clients[i]->s, path, leases);
    std::mt19937 rng(static_cast<unsigned>(i) + 1);
    for (int cycle = 0; !stop; ++cycle) {
      auto [ec, held] = test::get(sem.async_acquire(10s, tuple_future));
      if (ec) {
        note("acquire: " + ec.message());
        std::this_thread::sleep_for(50ms);
        continue;
      }
      ++grants;
      const std::string me = occupants + "/w" + std::to_string(i) + "-" + std::to_string(cycle);
      // Our marker must be gone before the lease goes back, or the next holders would be
      // counted beside a marker of nobody's: after an outcome-unknown write, remove it again
      // until the answer is known (no_node: it was never there, or already removed).
      const auto remove_marker = [&] {
        auto [re] = test::get(async_fenced_remove(held, me, any_version, tuple_future));
        for (int retry = 0; re == condition::connection_loss && retry < 100; ++retry) {
          note("fenced remove: " + re.message());
          std::this_thread::sleep_for(50ms);
          std::tie(re) = test::get(async_fenced_remove(held, me, any_version, tuple_future));
          if (re == zk_errc::no_node) re = {};
        }
        if (re) note("fenced remove: " + re.message());
      };
      auto [ce, node] = test::get(
          async_fenced_create(held, me, "", {.mode = create_mode::ephemeral}, tuple_future));
      if (ce) {
        // The lease is gone (a kill or a pause took it): the fence refused the write.
        ++refused;
        note("fenced create: " + ce.message());
        if (ce == condition::connection_loss) remove_marker();
      } else {
        auto [le, inside] = test::get(clients[i]->s->async_children(occupants, tuple_future));
        if (!le) {
          int seen = static_cast<int>(inside.names.size());
          int prev = most_occupants.load();
          while (seen > prev && !most_occupants.compare_exchange_weak(prev, seen)) {
          }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5 + rng() % 20));
        remove_marker();
      }
      auto [rel] = test::get(held.async_release(tuple_future));
      if (rel) note("release: " + rel.message());
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < workers; ++i) threads.emplace_back(work, i);

  // The nemesis: one fault at a time on a random worker, alternating kill and pause.
  std::mt19937 rng(7);
  int kills = 0, pauses = 0;
  double slowest_kill = 0;
  for (int round = 0; round < 12; ++round) {
    std::this_thread::sleep_for(std::chrono::milliseconds(300 + rng() % 600));
    const int victim = static_cast<int>(rng() % workers);
    if (round % 2 == 0) {
      try {
        const auto start = std::chrono::steady_clock::now();
        testing::expire_session(*clients[victim]->s, 3000ms);
        slowest_kill = std::max(slowest_kill, test::seconds_since(start));
        ++kills;
      } catch (const std::exception& e) {
        note(std::string("expire_session: ") + e.what());  // e.g. between two sessions
      }
    } else {
      proxies[victim]->blackhole(true);
      std::this_thread::sleep_for(session_timeout * 3 / 2);  // past the session
      proxies[victim]->blackhole(false);
      ++pauses;
    }
  }
  stop = true;
  for (auto& t : threads) t.join();

  std::string summary;
  for (const auto& [what, n] : errors) summary += "\n  " + std::to_string(n) + " x " + what;
  BOOST_TEST_MESSAGE("grants " << grants << ", fenced writes refused " << refused << ", kills "
                               << kills << " (slowest " << slowest_kill << " s), pauses " << pauses
                               << ", most occupants " << most_occupants << summary);
  BOOST_TEST(most_occupants.load() <= static_cast<int>(leases));
  BOOST_TEST(most_occupants.load() >= 1);
  BOOST_TEST(kills >= 4);  // a kill may miss a session being renewed
  BOOST_TEST(pauses == 6);
  BOOST_TEST(grants.load() >= 40);  // progress through the faults (liveness, generous)
  clients.clear();                  // every session closed: nothing may be left
  BOOST_TEST(nodes_reach(*setup.s, path, 0, 0));
  BOOST_TEST(children_of(*setup.s, occupants) == 0u);
}
