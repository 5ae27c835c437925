// SPDX-License-Identifier: Apache-2.0
// The session on a real 3-node ensemble: killing the member it is connected to suspends it,
// it reconnects to another member with the same session, and operations continue.
#include <zkcoord/session.hpp>

#include <zkcoord/testing/ensemble.hpp>

#include "support/io_thread.hpp"
#include "support/state_recorder.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE session_ensemble
#include <boost/test/unit_test.hpp>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;

BOOST_AUTO_TEST_CASE(killing_the_connected_member_keeps_the_session) {
  testing::ensemble zk;
  test::io_thread io;
  session_options o;
  o.connect = zk.connect_string();
  o.session_timeout = 8s;
  session s(io.executor(), o);
  test::state_recorder rec(s);
  test::get(s.async_connect(asio::use_future));
  const auto id = s.session_id();
  test::get(s.async_create("/survivor", "", {create_mode::ephemeral}, asio::use_future));

  const std::string current = s.connected_server();
  std::optional<std::size_t> member;
  for (std::size_t i = 0; i < zk.size(); ++i)
    if (current == zk.member_connect_string(i)) member = i;
  BOOST_REQUIRE_MESSAGE(member.has_value(), "connected to " << current);

  const auto mark = rec.size();
  zk.kill(*member);
  BOOST_REQUIRE(rec.wait_for(session_state::suspended, 20s, mark).has_value());
  BOOST_REQUIRE(rec.wait_for(session_state::reconnected, 30s, mark).has_value());
  BOOST_TEST(s.session_id() == id);
  BOOST_TEST(s.connected_server() != current);
  BOOST_TEST(test::get(s.async_exists("/survivor", asio::use_future)).has_value());
  test::get(s.async_create("/after-kill", "x", create_options{}, asio::use_future));
  BOOST_TEST(test::get(s.async_get("/after-kill", asio::use_future)).data == "x");

  zk.restart(*member);
  test::get(s.async_sync("/after-kill", asio::use_future));
}
