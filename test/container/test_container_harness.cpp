// SPDX-License-Identifier: Apache-2.0
// The container harness itself: an ensemble starts serving with one leader, every fault does
// what it says (pause, kill/restart, cut off from the quorum while clients still reach it,
// heal), the destructor leaves no container or network, and the next start removes what a
// crashed run left behind.
#include <zkcoord/testing/container_ensemble.hpp>

#include <zkcoord/session.hpp>
#include <zkcoord/testing/four_letter.hpp>

#define BOOST_TEST_MODULE container_harness
#include <boost/test/unit_test.hpp>

#include "container/container_logs_on_failure.hpp"
#include "container/docker_queries.hpp"
#include "support/io_thread.hpp"
#include "testing/container_labels.hpp"

#include <boost/asio/use_future.hpp>

#include <unistd.h>

#include <cstdlib>
#include <set>
#include <thread>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using steady = std::chrono::steady_clock;

namespace {

// Writes and reads back a node through `connect`: the ensemble serves clients there.
void round_trip(const std::string& connect, const std::string& path) {
  test::io_thread io;
  session zk(io.executor(), {.connect = connect, .session_timeout = 4s});
  test::get(zk.async_connect(asio::use_future));
  test::get(zk.async_create(path, "value", {create_mode::ephemeral}, asio::use_future));
  BOOST_TEST(test::get(zk.async_get(path, asio::use_future)).data == "value");
  zk.close();
}

// Polls `condition` every 100 ms until it holds or `bound` passes.
template <class Condition>
bool eventually(Condition condition, std::chrono::milliseconds bound) {
  const auto deadline = steady::now() + bound;
  while (!condition()) {
    if (steady::now() >= deadline) return false;
    std::this_thread::sleep_for(100ms);
  }
  return true;
}

std::size_t follower_of(const testing::container_ensemble& zk, std::size_t leader) {
  return (leader + 1) % zk.size();
}

}  // namespace

BOOST_AUTO_TEST_CASE(starts_serving_with_one_leader_and_leaves_nothing_behind) {
  std::vector<std::string> containers;
  std::vector<std::string> networks;
  {
    testing::container_ensemble zk;
    test::container_logs_on_failure logs(zk);
    BOOST_REQUIRE_EQUAL(zk.size(), 3u);
    std::set<std::uint16_t> ports;
    int leaders = 0;
    for (std::size_t i = 0; i < zk.size(); ++i) {
      ports.insert(zk.client_port(i));
      const std::string mode = zk.mode(i);
      BOOST_TEST_MESSAGE("zk" << i + 1 << " at " << zk.member_connect_string(i) << ": " << mode);
      BOOST_TEST((mode == "leader" || mode == "follower"));
      leaders += mode == "leader";
      containers.push_back(zk.container_id(i));
      // Published on 127.0.0.1 only, at the port the harness chose.
      const std::string published = test::docker_output({"port", zk.container_id(i), "2181/tcp"});
      BOOST_TEST(published.find("127.0.0.1:" + std::to_string(zk.client_port(i))) == 0u);
    }
    BOOST_TEST(leaders == 1);
    BOOST_TEST(ports.size() == zk.size());
    BOOST_TEST(zk.leader().has_value());
    networks = {zk.client_network(), zk.quorum_network()};
    for (const auto& id : containers) BOOST_TEST(test::container_exists(id));
    for (const auto& id : networks) BOOST_TEST(test::network_exists(id));
    round_trip(zk.connect_string(), "/harness-round-trip");
    BOOST_TEST(zk.logs(0).find("QuorumPeer") != std::string::npos);  // the server logs
  }
  for (const auto& id : containers) BOOST_TEST(!test::container_exists(id), "container " << id);
  for (const auto& id : networks) BOOST_TEST(!test::network_exists(id), "network " << id);
}

BOOST_AUTO_TEST_CASE(faults_pause_kill_restart_isolate_heal) {
  testing::container_ensemble zk;
  test::container_logs_on_failure logs(zk);
  std::size_t leader = zk.wait_for_leader(60s);
  std::size_t follower = follower_of(zk, leader);

  // pause: the port still accepts connections (docker-proxy), the server answers nothing.
  zk.pause(follower);
  BOOST_TEST(testing::four_letter("127.0.0.1", zk.client_port(follower), "ruok", 1500ms) == "");
  round_trip(zk.connect_string(), "/harness-paused");
  zk.unpause(follower);
  BOOST_TEST(eventually([&] { return zk.is_serving(follower); }, 30s));

  // kill the leader: the other two elect one of them; restart: same port, same data.
  zk.kill(leader);
  BOOST_TEST(zk.mode(leader) == "");
  const std::size_t new_leader = zk.wait_for_leader(60s, leader);
  BOOST_TEST_MESSAGE("killed leader zk" << leader + 1 << ", new leader zk" << new_leader + 1);
  round_trip(zk.connect_string(), "/harness-killed");
  const std::uint16_t port_before = zk.client_port(leader);
  zk.restart(leader);
  BOOST_TEST(zk.client_port(leader) == port_before);
  BOOST_TEST(zk.mode(leader) == "follower");
  leader = zk.wait_for_leader(60s);
  follower = follower_of(zk, leader);

  // isolate a follower: it stops serving, yet its clients still reach its port.
  zk.isolate(follower);
  BOOST_TEST(eventually([&] { return !zk.is_serving(follower); }, 30s));
  BOOST_TEST(testing::four_letter("127.0.0.1", zk.client_port(follower), "ruok") != "",
             "the isolated member's client port must stay reachable");
  BOOST_TEST(zk.is_serving(leader));
  round_trip(zk.connect_string(), "/harness-isolated-follower");
  zk.heal(follower);
  BOOST_TEST(eventually([&] { return zk.mode(follower) == "follower"; }, 60s));

  // isolate the leader: the majority elects another one; healed, it rejoins as a follower.
  zk.isolate(leader);
  const std::size_t majority_leader = zk.wait_for_leader(60s, leader);
  BOOST_TEST_MESSAGE("isolated leader zk" << leader + 1 << ", majority leader zk"
                                          << majority_leader + 1);
  BOOST_TEST(eventually([&] { return !zk.is_serving(leader); }, 30s));
  zk.heal(leader);
  BOOST_TEST(eventually([&] { return zk.mode(leader) == "follower"; }, 60s));
  BOOST_TEST(zk.wait_for_leader(60s) == majority_leader);
  round_trip(zk.connect_string(), "/harness-healed");
}

BOOST_AUTO_TEST_CASE(the_next_start_removes_what_a_crashed_run_left) {
  // What a crashed run leaves: a running (here paused) container and a network, labelled by
  // an owner process that no longer exists. And one of a live owner (this process), which a
  // concurrent test still uses: it must stay.
  const std::string dead_owner = std::string(testing::detail::owner_label) + "=999999999:1";
  const std::string live_owner =
      std::string(testing::detail::owner_label) + "=" + testing::detail::owner_label_value();
  const char* image_variable = std::getenv("ZKCOORD_ZK_IMAGE");
  const std::string image =
      image_variable && *image_variable ? image_variable : "zkcoord/zookeeper:3.8";
  const std::string network =
      test::docker_words({"network", "create", "--label", dead_owner, "zkcoord-stale-test"}).at(0);
  auto sleeper = [&](const std::string& owner, const std::vector<std::string>& more) {
    std::vector<std::string> args{"run", "--detach", "--label", owner};
    args.insert(args.end(), more.begin(), more.end());
    args.insert(args.end(), {"--entrypoint", "sleep", image, "600"});
    return test::docker_words(args).at(0);
  };
  const std::string stale = sleeper(dead_owner, {"--network", network});
  test::docker_output({"pause", stale});
  const std::string in_use = sleeper(live_owner, {});
  {
    testing::container_ensemble zk({.size = 1});
    test::container_logs_on_failure logs(zk);
    BOOST_TEST(zk.mode(0) == "standalone");
    BOOST_TEST(!test::container_exists(stale));
    BOOST_TEST(!test::network_exists(network));
    BOOST_TEST(test::container_exists(in_use));
    round_trip(zk.connect_string(), "/harness-standalone");
  }
  test::docker_output({"rm", "--force", in_use});
}
