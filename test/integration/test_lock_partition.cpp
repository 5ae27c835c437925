// SPDX-License-Identifier: Apache-2.0
// Test-matrix row 8: the holder is partitioned from the server (a blackholing proxy: its bytes
// wait, nothing is reset) for less than 2/3 T, between 2/3 T and T, and longer than T, while
// a waiter on another session queues behind it.
//   short:  nothing changes (no state event, still owned, not in doubt; the waiter waits);
//   middle: suspended (in doubt) then reconnected with the same session: the same node and
//           token, no longer in doubt, the waiter still waits;
//   long:   lost locally once the lease deadline passes (at most T after the last answer),
//           before the waiter is granted (the holder knew it lost before anyone else held),
//           and the waiter is granted within T + 1 s of the partition.
#include <zkcoord/lock.hpp>

#include <zkcoord/testing/tcp_proxy.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE lock_partition
#include <boost/test/unit_test.hpp>

#include "support/lock_fixture.hpp"
#include "support/state_recorder.hpp"

#include <future>
#include <thread>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using test::acquire;
using test::tuple_future;
using clock_type = std::chrono::steady_clock;

namespace {

using test::lock_server;
BOOST_TEST_GLOBAL_FIXTURE(lock_server);

constexpr auto requested_timeout = 3000ms;

// A holder behind a proxy, a waiter queued behind it on a direct session.
struct partitioned_holder {
  // When the holder's loss and the waiter's grant completed (steady clock of this process,
  // stamped in the completion handlers themselves). Declared before the locks, whose
  // destruction may still complete a pending operation.
  clock_type::time_point lost_at, granted_at;
  std::promise<test::acquire_result> granted_promise;
  std::promise<std::tuple<error_code>> lost_promise;
  testing::tcp_proxy proxy{"127.0.0.1", test::lock_cluster()->local_server().port()};
  std::string path = testing::unique_path("partition");
  test::client holder{requested_timeout, proxy.connect_string()};
  test::client waiter;
  lock lh{*holder.s, path}, lw{*waiter.s, path};
  held_lock held;
  std::future<test::acquire_result> queued;
  std::future<std::tuple<error_code>> lost;
  std::unique_ptr<test::state_recorder> states;
  std::chrono::milliseconds t{0};

  partitioned_holder() {
    auto [ec, h] = acquire(lh);
    BOOST_REQUIRE(!ec);
    held = std::move(h);
    queued = granted_promise.get_future();
    lw.async_acquire([this](error_code ec, held_lock h) {
      granted_at = clock_type::now();
      granted_promise.set_value({ec, std::move(h)});
    });
    BOOST_REQUIRE(test::contenders_reach(*waiter.s, path, 2));
    lost = lost_promise.get_future();
    held.async_wait_lost([this](error_code ec) {
      lost_at = clock_type::now();
      lost_promise.set_value({ec});
    });
    states = std::make_unique<test::state_recorder>(*holder.s);
    t = holder.s->negotiated_timeout();
    BOOST_TEST_MESSAGE("negotiated session timeout " << t.count() << " ms");
  }

  // Cuts the holder off right after an answered request, so that the outage as the session
  // sees it starts at the cut (otherwise the last ping may be up to T/3 older).
  clock_type::time_point cut() {
    test::get(holder.s->async_exists("/", asio::use_future));
    const auto at = clock_type::now();
    proxy.blackhole(true);
    return at;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(shorter_than_two_thirds_of_t_changes_nothing, partitioned_holder) {
  const auto token = held.token();
  cut();
  std::this_thread::sleep_for(t * 3 / 10);
  proxy.blackhole(false);
  std::this_thread::sleep_for(t / 2);  // time for anything that would happen to show

  BOOST_TEST(states->states().empty(), states->states().size() << " state events");
  BOOST_TEST(held.owns());
  BOOST_TEST(!held.in_doubt());
  BOOST_TEST((held.token() == token));
  BOOST_TEST((lost.wait_for(0ms) == std::future_status::timeout));
  BOOST_TEST((queued.wait_for(0ms) == std::future_status::timeout));
  test::get(held.async_release(asio::use_future));
  BOOST_TEST(!std::get<0>(test::get(queued)));
}

BOOST_FIXTURE_TEST_CASE(between_two_thirds_of_t_and_t_is_in_doubt_then_reconnected,
                        partitioned_holder) {
  const auto token = held.token();
  const std::string node = held.path();
  const auto session_id = holder.s->session_id();
  const auto cut_at = cut();
  const auto suspended = states->wait_for(session_state::suspended, t);
  BOOST_REQUIRE(suspended);
  BOOST_TEST_MESSAGE("suspended " << (*suspended - cut_at) / 1ms << " ms after the cut");
  BOOST_TEST(held.in_doubt());
  // Heal soon after the client noticed (2/3 T), well before the server's T runs out.
  std::this_thread::sleep_until(*suspended + t / 10);
  BOOST_REQUIRE((clock_type::now() - cut_at < t * 9 / 10));
  proxy.blackhole(false);
  BOOST_REQUIRE(states->wait_for(session_state::reconnected, 10s));
  BOOST_REQUIRE(test::eventually([&] { return !held.in_doubt(); }));

  BOOST_TEST(holder.s->session_id() == session_id);
  BOOST_TEST(held.owns());
  BOOST_TEST(held.path() == node);
  BOOST_TEST((held.token() == token));
  BOOST_TEST((lost.wait_for(0ms) == std::future_status::timeout));
  BOOST_TEST((queued.wait_for(0ms) == std::future_status::timeout));
  const auto contenders = test::contenders_of(*waiter.s, path);
  BOOST_REQUIRE(contenders.size() == 2u);
  BOOST_TEST(contenders[0].session_id == session_id);
  test::get(held.async_release(asio::use_future));
  BOOST_TEST(!std::get<0>(test::get(queued)));
}

BOOST_FIXTURE_TEST_CASE(longer_than_t_is_lost_locally_and_the_waiter_is_granted,
                        partitioned_holder) {
  const auto cut_at = cut();
  const auto deadline = held.valid_until();
  BOOST_TEST_MESSAGE("the holder's lease at the cut ends " << (deadline - cut_at) / 1ms
                                                           << " ms after it");

  auto [lost_ec] = test::get(lost, 30s);
  BOOST_TEST(lost_ec == zk_errc::session_expired);
  // Lost locally, at the lease deadline (never before it), while still cut off.
  BOOST_TEST((lost_at >= deadline));
  BOOST_TEST((lost_at - cut_at <= t + 1s), (lost_at - cut_at) / 1ms << " ms after the cut");
  BOOST_TEST(!held.owns());

  auto [ec, granted] = test::get(queued, 30s);
  BOOST_REQUIRE(!ec);
  // The local lease ends no later than the server's session (its deadline counts from the send
  // time of the last answered request), and the server grants the waiter only after that.
  BOOST_TEST((lost_at <= granted_at), "the holder learned of its loss "
                                          << (lost_at - granted_at) / 1us
                                          << " us after the waiter was granted");
  BOOST_TEST((granted_at - cut_at <= t + 1s), (granted_at - cut_at) / 1ms << " ms after the cut");
  BOOST_TEST((granted.token() > held.token()));
  BOOST_TEST_MESSAGE("lost locally " << (lost_at - cut_at) / 1ms << " ms and successor granted "
                                     << (granted_at - cut_at) / 1ms << " ms after the cut ("
                                     << (granted_at - lost_at) / 1us << " us later)");
  proxy.blackhole(false);
}
