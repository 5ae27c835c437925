// SPDX-License-Identifier: Apache-2.0
// The real-ZooKeeper ensemble harness: start, leader detection, fail-over, member restart.
#include <zkcoord/testing/ensemble.hpp>

#define BOOST_TEST_MODULE zkcoord_testing_ensemble
#include <boost/test/unit_test.hpp>

#include <zkcoord/testing/four_letter.hpp>

#include <signal.h>

#include <thread>

#include "support/c_client.hpp"

using namespace std::chrono_literals;
namespace zt = zkcoord::testing;
using zkcoord::test::c_client;

namespace {

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(50ms);
  }
  return true;
}

}  // namespace

BOOST_AUTO_TEST_CASE(starts_with_one_leader_and_serving_followers,
                     *boost::unit_test::timeout(180)) {
  zt::ensemble zk;
  BOOST_TEST(zk.size() == 3u);
  const auto leader = zk.leader();
  BOOST_TEST_REQUIRE(leader.has_value());
  for (std::size_t i = 0; i < zk.size(); ++i) {
    BOOST_TEST_CONTEXT("member " << i) {
      BOOST_TEST(zk.is_serving(i));
      BOOST_TEST(zt::server_mode("127.0.0.1", zk.client_port(i)) ==
                 (i == *leader ? "leader" : "follower"));
      BOOST_TEST(zk.member_connect_string(i) == "127.0.0.1:" + std::to_string(zk.client_port(i)));
    }
  }
  BOOST_TEST(zk.connect_string() == zk.member_connect_string(0) + "," +
                                        zk.member_connect_string(1) + "," +
                                        zk.member_connect_string(2));
  // A write through one member is visible through another.
  BOOST_TEST(c_client(zk.member_connect_string(0)).create("/replicated") == ZOK);
  c_client other(zk.member_connect_string(2));
  BOOST_TEST(zoo_async(
                 other.handle(), "/", [](int, const char*, const void*) {}, nullptr) == ZOK);
  BOOST_TEST(other.exists("/replicated") == ZOK);
}

BOOST_AUTO_TEST_CASE(killing_the_leader_elects_another, *boost::unit_test::timeout(180)) {
  zt::ensemble zk;
  const std::size_t old_leader = zk.wait_for_leader(30s);
  const pid_t old_pid = zk.pid(old_leader);
  zk.kill(old_leader);
  BOOST_TEST(!zk.is_running(old_leader));
  BOOST_TEST(::kill(old_pid, 0) != 0);
  const std::size_t new_leader = zk.wait_for_leader(30s, old_leader);
  BOOST_TEST(new_leader != old_leader);
  BOOST_TEST(c_client(zk.connect_string()).create("/after-failover") == ZOK);

  zk.restart(old_leader);
  BOOST_TEST(zk.is_serving(old_leader));
  BOOST_TEST(c_client(zk.member_connect_string(old_leader)).exists("/after-failover") == ZOK);
}

BOOST_AUTO_TEST_CASE(quorum_loss_and_recovery, *boost::unit_test::timeout(180)) {
  zt::ensemble zk;
  zk.stop(0);
  zk.stop(1);
  // The survivor notices within syncLimit ticks that it has no quorum.
  BOOST_TEST(eventually([&] { return !zk.is_serving(2); }, 10s));
  BOOST_TEST(!zk.leader().has_value());
  zk.restart(0, /*wait_serving=*/false);  // one member alone is no quorum yet
  zk.restart(1);
  BOOST_TEST(zk.wait_for_leader(30s) < zk.size());
}

BOOST_AUTO_TEST_CASE(a_paused_leader_is_replaced, *boost::unit_test::timeout(180)) {
  zt::ensemble zk;
  const std::size_t old_leader = zk.wait_for_leader(30s);
  zk.pause(old_leader);
  BOOST_TEST(zk.is_running(old_leader));
  BOOST_TEST(zk.wait_for_leader(30s, old_leader) != old_leader);
  zk.resume(old_leader);
  zk.wait_for_leader(30s);
  BOOST_TEST(zk.is_serving(old_leader));
}
