// SPDX-License-Identifier: Apache-2.0
// Test-matrix row 5: the server applies the create of our lock node but the reply is lost (a
// TCP proxy forwards the request, swallows the reply and resets the connection; new
// connections are refused meanwhile so the node is seen on the server before the client can
// reconnect). After reconnect the acquire finds its node by uuid prefix and ephemeralOwner and
// adopts it: exactly one node of ours ever exists, the acquire completes within T, and
// nothing is left after close. Uncontended and behind another holder.
#include <zkcoord/lock.hpp>

#include <zkcoord/testing/server.hpp>
#include <zkcoord/testing/tcp_proxy.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include "support/io_thread.hpp"
#include "support/state_recorder.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE lock_lost_create_reply
#include <boost/test/unit_test.hpp>

#include <thread>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using steady = std::chrono::steady_clock;

namespace {

struct fixture {
  testing::server server;
  testing::tcp_proxy proxy{"127.0.0.1", server.port()};
  test::io_thread io;
  session observer{io.executor(), {.connect = server.connect_string()}};
  std::string path = testing::unique_path("lost-create");

  fixture() {
    test::get(observer.async_connect(asio::use_future));
    for (std::string p : {std::string("/zkcoord-test"), path})
      test::get(observer.async_create(p, "", {}, test::tuple_future));
  }
  // The lock nodes under `path` owned by `session_id`.
  std::vector<contender> nodes_of(std::int64_t session_id) {
    auto [ec, all] = test::get(async_contenders(observer, path, test::tuple_future));
    BOOST_REQUIRE(!ec);
    std::vector<contender> mine;
    for (auto& c : all)
      if (c.session_id == session_id) mine.push_back(c);
    return mine;
  }
  std::int32_t children_version() {
    return test::get(observer.async_children(path, asio::use_future)).stat.cversion;
  }
};

void lose_the_create_reply(fixture& f, bool contended) {
  const auto timeout = 4000ms;
  session client(f.io.executor(),
                 {.connect = f.proxy.connect_string(), .session_timeout = timeout});
  test::state_recorder states(client);
  test::get(client.async_connect(asio::use_future));
  lock other(f.observer, f.path, {.app_id = "holder"});
  held_lock holder;
  if (contended) holder = test::get(other.async_acquire(asio::use_future));
  const auto cversion_before = f.children_version();

  lock l(client, f.path, {.app_id = "lost-reply"});
  f.proxy.refuse(true);
  f.proxy.drop_next_reply_after_request();
  const auto started = steady::now();
  auto acquired = l.async_acquire(test::tuple_future);
  BOOST_REQUIRE(states.wait_for(session_state::suspended, 10s).has_value());
  // Disconnected and unable to reconnect: the node exists on the server all the same.
  const auto seen = f.nodes_of(client.session_id());
  BOOST_REQUIRE_EQUAL(seen.size(), 1u);
  std::this_thread::sleep_for(300ms);
  f.proxy.refuse(false);

  if (contended) {
    BOOST_REQUIRE(states.wait_for(session_state::reconnected, 10s).has_value());
    BOOST_TEST((acquired.wait_for(1s) == std::future_status::timeout));
    const auto waiting = f.nodes_of(client.session_id());
    BOOST_REQUIRE_EQUAL(waiting.size(), 1u);
    BOOST_TEST(waiting[0].node == seen[0].node);
    auto [release_ec] = test::get(holder.async_release(test::tuple_future));
    BOOST_TEST(!release_ec);
  }
  BOOST_REQUIRE(acquired.wait_for(contended ? 5s : timeout) == std::future_status::ready);
  BOOST_TEST_MESSAGE("acquired " << (steady::now() - started) / 1ms << " ms after the start");
  auto [ec, held] = acquired.get();
  BOOST_REQUIRE_MESSAGE(!ec, ec.message());
  BOOST_TEST(held.path() == f.path + "/" + seen[0].node);  // adopted, not created again
  BOOST_TEST(f.nodes_of(client.session_id()).size() == 1u);
  // One create of ours, and the holder's create and delete when contended: nothing else.
  BOOST_TEST(f.children_version() - cversion_before == (contended ? 2 : 1));

  client.close();
  BOOST_TEST(f.nodes_of(client.session_id()).empty());
  auto [list_ec, left] = test::get(f.observer.async_children(f.path, test::tuple_future));
  BOOST_TEST((list_ec == zk_errc::no_node || left.names.empty()));
}

}  // namespace

BOOST_FIXTURE_TEST_CASE(lost_create_reply_uncontended, fixture) {
  lose_the_create_reply(*this, false);
}

BOOST_FIXTURE_TEST_CASE(lost_create_reply_behind_a_holder, fixture) {
  lose_the_create_reply(*this, true);
}
