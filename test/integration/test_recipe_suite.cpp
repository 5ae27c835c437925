// SPDX-License-Identifier: Apache-2.0
// One integration suite for every queue recipe (Curator's TestInterProcessMutexBase style):
// the same cases run against the lock, the write lock, the read lock, the election and the
// semaphore (with one lease), each through a small adapter. What users rely on whatever the recipe:
// grants in queue order, timeout and cancellation that complete promptly and leave no node, a
// waiter's expiry that fails its acquire and lets the next one through, a holder's expiry reported
// as lost with the next grant's token higher, a destroyed recipe object that leaves nothing behind.
#include <zkcoord/testing/expire_session.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/post.hpp>
#include <boost/mpl/list.hpp>

#define BOOST_TEST_MODULE recipe_suite
#include <boost/test/unit_test.hpp>

#include "support/lock_fixture.hpp"
#include "support/recipe_adapters.hpp"

#include <atomic>
#include <future>
#include <optional>
#include <string>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using test::tuple_future;

namespace {

using test::lock_server;
BOOST_TEST_GLOBAL_FIXTURE(lock_server);

std::atomic<int> path_counter{0};

// A fresh path per case, under a parent named after the recipe, and the session that owns it.
template <class Recipe>
struct fixture {
  fixture() : path("/suite/" + std::string(Recipe::name) + "/" + std::to_string(++path_counter)) {}
  ~fixture() {
    // Every case ends with nothing of ours on the path (containers: the path may be gone).
    BOOST_TEST(nodes_reach(0, 0), "nodes left on " << path);
  }
  /// Waits until the path holds the nodes of `holders` holders and `waiters` waiters.
  bool nodes_reach(std::size_t holders, std::size_t waiters) {
    const std::size_t expected = Recipe::nodes(holders, waiters);
    return test::eventually([&] {
      std::size_t count = 0;
      for (const auto& parent : Recipe::node_parents(path))
        count += test::contenders_of(*observer.s, parent).size();
      return count == expected;
    });
  }
  /// The blocker holds the path (on a session of its own) until the returned handle goes.
  ownership hold_blocker() {
    blocker.emplace(*blocker_client.s, path);
    auto [ec, held] = test::get(blocker->async_acquire(tuple_future));
    BOOST_REQUIRE_MESSAGE(!ec, "blocker: " << ec.message());
    return std::move(held);
  }
  std::string path;
  test::client observer;
  test::client blocker_client;
  std::optional<typename Recipe::blocker> blocker;
};

using recipes = boost::mpl::list<test::lock_recipe, test::write_lock_recipe, test::read_lock_recipe,
                                 test::election_recipe, test::semaphore_recipe>;

}  // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(grants_follow_the_queue_order, Recipe, recipes) {
  fixture<Recipe> f;
  ownership held = f.hold_blocker();

  constexpr int waiters = 4;
  std::vector<std::unique_ptr<test::client>> clients;
  std::vector<std::unique_ptr<typename Recipe::contender>> contenders;
  std::vector<std::future<test::ownership_result>> pending;
  for (int i = 0; i < waiters; ++i) {
    clients.push_back(std::make_unique<test::client>());
    contenders.push_back(std::make_unique<typename Recipe::contender>(*clients.back()->s, f.path));
    pending.push_back(contenders.back()->async_acquire(tuple_future));
    // Queued one after the other: each node exists before the next contender starts.
    BOOST_REQUIRE(f.nodes_reach(1, static_cast<std::size_t>(i + 1)));
  }
  const auto first_token = held.token();
  test::get(held.async_release(asio::use_future));

  if constexpr (Recipe::exclusive) {
    // One at a time, in the order they queued, each token higher than the one before.
    fencing_token last = first_token;
    for (int i = 0; i < waiters; ++i) {
      auto [ec, own] = test::get(pending[i]);
      BOOST_TEST_REQUIRE(!ec, "waiter " << i << ": " << ec.message());
      BOOST_TEST(own.token() > last);
      last = own.token();
      for (int j = i + 1; j < waiters; ++j) {
        BOOST_TEST((pending[j].wait_for(0ms) != std::future_status::ready),
                   "waiter " << j << " granted while waiter " << i << " holds");
      }
      test::get(own.async_release(asio::use_future));
    }
  } else {
    // Shared: the blocker's release lets every waiter in at once.
    std::vector<ownership> held_all;
    for (int i = 0; i < waiters; ++i) {
      auto [ec, own] = test::get(pending[i]);
      BOOST_TEST_REQUIRE(!ec, "waiter " << i << ": " << ec.message());
      BOOST_TEST(own.owns());
      held_all.push_back(std::move(own));
    }
    for (auto& own : held_all) test::get(own.async_release(asio::use_future));
  }
}

BOOST_AUTO_TEST_CASE_TEMPLATE(timeout_completes_and_leaves_no_node, Recipe, recipes) {
  fixture<Recipe> f;
  test::client b;
  ownership held = f.hold_blocker();
  typename Recipe::contender waiter(*b.s, f.path);
  const auto start = std::chrono::steady_clock::now();
  auto [ec, own] = test::get(waiter.async_acquire(300ms, tuple_future));
  BOOST_TEST(ec == errc::timeout);
  BOOST_TEST(!own.owns());
  BOOST_TEST(test::seconds_since(start) < 3.0);  // liveness bound, generous under load
  BOOST_TEST(f.nodes_reach(1, 0));               // the blocker's node only
  test::get(held.async_release(asio::use_future));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(cancel_completes_promptly_and_leaves_no_node, Recipe, recipes) {
  fixture<Recipe> f;
  test::client b;
  ownership held = f.hold_blocker();
  typename Recipe::contender waiter(*b.s, f.path);
  asio::cancellation_signal cancel;
  auto pending = waiter.async_acquire(asio::bind_cancellation_slot(cancel.slot(), tuple_future));
  BOOST_REQUIRE(f.nodes_reach(1, 1));
  const auto start = std::chrono::steady_clock::now();
  asio::post(b.io.executor(), [&] { cancel.emit(asio::cancellation_type::terminal); });
  auto [ec, own] = test::get(pending);
  BOOST_TEST(ec == asio::error::operation_aborted);
  BOOST_TEST(test::seconds_since(start) < 2.0);  // liveness bound, generous under load
  BOOST_TEST(f.nodes_reach(1, 0));
  test::get(held.async_release(asio::use_future));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(destroying_the_object_aborts_and_leaves_no_node, Recipe, recipes) {
  fixture<Recipe> f;
  test::client b;
  ownership held = f.hold_blocker();
  auto waiter = std::make_unique<typename Recipe::contender>(*b.s, f.path);
  auto pending = waiter->async_acquire(tuple_future);
  BOOST_REQUIRE(f.nodes_reach(1, 1));
  waiter.reset();
  auto [ec, own] = test::get(pending);
  BOOST_TEST(ec == asio::error::operation_aborted);
  BOOST_TEST(f.nodes_reach(1, 0));
  test::get(held.async_release(asio::use_future));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(a_waiters_expiry_fails_its_acquire_and_lets_the_next_through, Recipe,
                              recipes) {
  fixture<Recipe> f;
  test::client b, c;
  ownership held = f.hold_blocker();
  typename Recipe::contender doomed(*b.s, f.path);
  auto doomed_pending = doomed.async_acquire(tuple_future);
  BOOST_REQUIRE(f.nodes_reach(1, 1));
  typename Recipe::contender next(*c.s, f.path);
  auto next_pending = next.async_acquire(tuple_future);
  BOOST_REQUIRE(f.nodes_reach(1, 2));

  testing::expire_session(*b.s);
  auto [ed, od] = test::get(doomed_pending);
  BOOST_TEST(ed == zk_errc::session_expired);  // never silently re-queued on a new session
  BOOST_TEST(f.nodes_reach(1, 1));

  test::get(held.async_release(asio::use_future));
  auto [en, own] = test::get(next_pending);
  BOOST_TEST_REQUIRE(!en, en.message());
  BOOST_TEST(own.token() > held.token());
  test::get(own.async_release(asio::use_future));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(a_holders_expiry_is_reported_lost_and_the_next_token_is_higher,
                              Recipe, recipes) {
  fixture<Recipe> f;
  test::client a, b;
  typename Recipe::contender first(*a.s, f.path);
  auto [e1, held] = test::get(first.async_acquire(tuple_future));
  BOOST_REQUIRE(!e1);
  auto lost = held.async_wait_lost(tuple_future);
  typename Recipe::blocker next(*b.s, f.path);
  auto next_pending = next.async_acquire(tuple_future);
  BOOST_REQUIRE(f.nodes_reach(1, 1));

  testing::expire_session(*a.s);
  auto [el] = test::get(lost);
  BOOST_TEST(el == zk_errc::session_expired);
  BOOST_TEST(!held.owns());
  auto [en, own] = test::get(next_pending);
  BOOST_TEST_REQUIRE(!en, en.message());
  BOOST_TEST(own.token() > held.token());
  test::get(own.async_release(asio::use_future));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(a_second_acquire_of_one_object_is_already_held, Recipe, recipes) {
  fixture<Recipe> f;
  typename Recipe::contender one(*f.observer.s, f.path);
  auto [e1, held] = test::get(one.async_acquire(tuple_future));
  BOOST_REQUIRE(!e1);
  auto [e2, again] = test::get(one.async_acquire(tuple_future));
  BOOST_TEST(e2 == errc::already_held);
  BOOST_TEST(!again.owns());
  BOOST_TEST(f.nodes_reach(1, 0));
  test::get(held.async_release(asio::use_future));
  auto [e3, after] = test::get(one.async_acquire(tuple_future));
  BOOST_TEST(!e3);  // released: the object may contend again
  test::get(after.async_release(asio::use_future));
}
