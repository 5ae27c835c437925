// SPDX-License-Identifier: Apache-2.0
// Session life cycle against a real server that is paused, or whose session is expired:
// suspended -> reconnected, server-reported expiry, local expiry from the lease deadline, and
// a working new session afterwards.
#include <zkcoord/session.hpp>

#include <zkcoord/testing/expire_session.hpp>
#include <zkcoord/testing/server.hpp>

#include "support/io_thread.hpp"
#include "support/state_recorder.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>
#include "support/tuple_future.hpp"

#define BOOST_TEST_MODULE session_faults
#include <boost/test/unit_test.hpp>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;

namespace {
struct fixture {
  testing::server server;
  test::io_thread io;
  session_options options(std::chrono::milliseconds timeout) {
    session_options o;
    o.connect = server.connect_string();
    o.session_timeout = timeout;
    return o;
  }
};
}  // namespace

BOOST_FIXTURE_TEST_CASE(pause_shorter_than_timeout_suspends_then_reconnects, fixture) {
  session s(io.executor(), options(6000ms));
  test::state_recorder rec(s);
  test::get(s.async_connect(asio::use_future));
  const auto id = s.session_id();
  auto eph = test::get(s.async_create("/eph", "", {create_mode::ephemeral}, asio::use_future));

  server.pause();
  // Contact is declared lost after 2/3 of the timeout; resume at once so the server still
  // holds the session.
  const auto suspended = rec.wait_for(session_state::suspended, 10s);
  server.resume();
  BOOST_REQUIRE(suspended.has_value());
  BOOST_REQUIRE(rec.wait_for(session_state::reconnected, 10s).has_value());
  BOOST_TEST(s.session_id() == id);
  BOOST_TEST(test::get(s.async_exists("/eph", asio::use_future)).has_value());
  const auto states = rec.states();
  BOOST_TEST((std::find(states.begin(), states.end(), session_state::expired) == states.end()));
}

BOOST_FIXTURE_TEST_CASE(server_reported_expiry_then_a_new_session, fixture) {
  session s(io.executor(), options(4000ms));
  test::state_recorder rec(s);
  test::get(s.async_connect(asio::use_future));
  const auto old_id = s.session_id();
  test::get(s.async_create("/eph2", "", {create_mode::ephemeral}, asio::use_future));
  watch w;
  test::get(s.async_get("/eph2", w, asio::use_future));

  testing::expire_session(s);
  BOOST_REQUIRE(rec.wait_for(session_state::expired, 20s).has_value());
  auto [watch_ec, ev] = test::get(w.async_wait(test::tuple_future));
  BOOST_TEST((watch_ec == condition::session_expired || !watch_ec));
  // From the expiry's own position: the new session may connect before this line runs.
  const auto expired_at = rec.position_of(session_state::expired).value();
  BOOST_REQUIRE(rec.wait_for(session_state::connected, 20s, expired_at).has_value());
  BOOST_TEST(s.session_id() != old_id);
  BOOST_TEST(!test::get(s.async_exists("/eph2", asio::use_future)).has_value());
  test::get(s.async_create("/after", "", {create_mode::ephemeral}, asio::use_future));
}

BOOST_FIXTURE_TEST_CASE(local_expiry_while_the_server_is_paused, fixture) {
  session s(io.executor(), options(2000ms));
  test::state_recorder rec(s);
  test::get(s.async_connect(asio::use_future));
  const auto timeout = s.negotiated_timeout();
  const auto deadline_before = s.lease_deadline();
  BOOST_TEST((deadline_before > std::chrono::steady_clock::now()));

  const auto paused_at = std::chrono::steady_clock::now();
  server.pause();
  BOOST_REQUIRE(rec.wait_for(session_state::suspended, timeout * 4).has_value());
  const auto deadline = s.lease_deadline();  // no answer can renew it while paused
  const auto expired = rec.wait_for(session_state::expired, timeout * 4);
  BOOST_TEST(server.is_running());  // still paused: only the lease deadline can tell
  BOOST_REQUIRE(expired.has_value());
  // Reported locally no later than the timeout after the last contact (+ scheduling slack),
  // and not before the deadline.
  BOOST_TEST((*expired - paused_at < timeout + 1s));
  BOOST_TEST((*expired >= deadline - 5ms));
  BOOST_TEST((deadline <= paused_at + timeout));
  server.resume();
  const auto mark = rec.position_of(session_state::expired).value();
  BOOST_REQUIRE(rec.wait_for(session_state::connected, 20s, mark).has_value());
  test::get(s.async_create("/again", "", {create_mode::ephemeral}, asio::use_future));
}

BOOST_FIXTURE_TEST_CASE(wait_state_and_cancellation, fixture) {
  session s(io.executor(), options(4000ms));
  test::get(s.async_connect(asio::use_future));
  test::get(s.async_wait_state(session_state::connected, asio::use_future));
  asio::cancellation_signal cancel;
  std::promise<error_code> waited;
  s.async_wait_state(
      session_state::expired,
      asio::bind_cancellation_slot(cancel.slot(), [&](error_code ec) { waited.set_value(ec); }));
  asio::post(io.executor(), [&] { cancel.emit(asio::cancellation_type::terminal); });
  BOOST_TEST(test::get(waited.get_future()) == asio::error::operation_aborted);
}
