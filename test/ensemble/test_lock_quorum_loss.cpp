// SPDX-License-Identifier: Apache-2.0
// Test-matrix row 7: 2 of 3 members are stopped for longer than T while one client holds the
// lock and 4 others wait. No grant while quorum is lost; the holder reports in doubt
// (suspended) and then lost; after the members return, the waiters get the lock again and
// mutual exclusion through the fence held throughout.
#include <zkcoord/lock.hpp>

#include <zkcoord/testing/ensemble.hpp>

#include "support/fence_store.hpp"
#include "support/io_thread.hpp"
#include "support/lock_contention.hpp"
#include "support/state_recorder.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE lock_quorum_loss
#include <boost/test/unit_test.hpp>

#include <thread>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using steady = std::chrono::steady_clock;

BOOST_AUTO_TEST_CASE(quorum_lost_longer_than_the_session_timeout) {
  testing::ensemble zk;
  test::io_thread io;
  test::fence_store store;
  const auto timeout = 4000ms;
  const std::string path = "/locks/quorum";

  session holder_session(io.executor(),
                         {.connect = zk.connect_string(), .session_timeout = timeout});
  test::state_recorder holder_states(holder_session);
  test::get(holder_session.async_connect(asio::use_future));
  lock holder_lock(holder_session, path, {.app_id = "holder"});
  held_lock holder = test::get(holder_lock.async_acquire(asio::use_future));
  auto lost = holder.async_wait_lost(test::tuple_future);

  test::lock_contention run(io.executor(), store,
                            {.connect = zk.connect_string(),
                             .lock_path = path,
                             .clients = 4,
                             .session_timeout = timeout,
                             .max_critical_section = 10ms,
                             .fenced_read = true});
  run.start();
  std::this_thread::sleep_for(1s);
  BOOST_REQUIRE(run.grants().empty());  // all queued behind the holder

  const std::size_t leader = zk.wait_for_leader(30s);
  const std::size_t follower = (leader + 1) % zk.size();
  zk.stop(leader);
  zk.stop(follower);
  const auto quorum_lost_at = steady::now();
  BOOST_TEST_MESSAGE("stopped members " << leader << " and " << follower);

  BOOST_TEST(holder_states.wait_for(session_state::suspended, timeout * 2).has_value());
  BOOST_REQUIRE(lost.wait_for(timeout * 2) == std::future_status::ready);
  const auto [lost_ec] = lost.get();
  BOOST_TEST_MESSAGE("holder lost after " << (steady::now() - quorum_lost_at) / 1ms
                                          << " ms: " << lost_ec.message());
  BOOST_TEST((lost_ec == condition::session_expired));
  BOOST_TEST(!holder.owns());
  const auto states = holder_states.states();
  const auto suspended = std::find(states.begin(), states.end(), session_state::suspended);
  BOOST_TEST((std::find(suspended, states.end(), session_state::expired) != states.end()));

  std::this_thread::sleep_until(quorum_lost_at + 2 * timeout);
  const auto restore_at = steady::now();
  zk.restart(leader, false);
  zk.restart(follower, true);
  zk.wait_for_leader(60s);
  BOOST_TEST_MESSAGE("quorum restored after " << (steady::now() - quorum_lost_at) / 1ms << " ms");

  // Progress resumes: waiters (on renewed sessions) get the lock again.
  const auto deadline = steady::now() + 60s;
  while (run.grants().size() < 5 && steady::now() < deadline) std::this_thread::sleep_for(100ms);
  BOOST_REQUIRE_MESSAGE(run.stop(60s), "a client loop did not finish");
  const auto grants = run.grants();
  BOOST_REQUIRE(grants.size() >= 5u);
  for (const auto& g : grants)  // nothing granted between the loss of quorum and its return
    BOOST_TEST(!(g.granted > quorum_lost_at && g.granted < restore_at),
               "client " << g.client << " granted while quorum was lost");
  BOOST_TEST_MESSAGE("first grant " << (grants.front().granted - restore_at) / 1ms
                                    << " ms after the restart began; grants=" << grants.size());
  BOOST_TEST(run.tokens_strictly_increase());
  BOOST_TEST(grants.front().token > holder.token().value());
  BOOST_TEST(store.stale_accepted() == 0u);
  BOOST_TEST(store.read("counter") == store.accepted_writes("counter"));
  BOOST_TEST(run.overlaps() == 0);
  run.close_all();
}
