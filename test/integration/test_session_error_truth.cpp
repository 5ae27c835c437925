// SPDX-License-Identifier: Apache-2.0
// What a pending operation reports when its session ends, decided in one place (the session):
// `closed` only after this process closed the session, `session_expired` after the server
// or the local lease deadline ended it, `unreachable` when no server answered the first
// connect. And the lease deadline, which locks report as "valid until", never trails the
// server's: it counts from the send time of a request, never from a receipt.
#define BOOST_TEST_MODULE session_error_truth
#include <boost/test/unit_test.hpp>

#include <zkcoord/lock.hpp>
#include <zkcoord/session.hpp>

#include <zkcoord/testing/tcp_proxy.hpp>

#include "support/lock_fixture.hpp"
#include "support/state_recorder.hpp"

#include <future>
#include <list>
#include <map>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using test::lock_server;
BOOST_TEST_GLOBAL_FIXTURE(lock_server);

namespace {

using clock_type = std::chrono::steady_clock;

session_options options_for(std::string connect, std::chrono::milliseconds timeout) {
  session_options o;
  o.connect = std::move(connect);
  o.session_timeout = timeout;
  return o;
}

// Operations left pending on a session, each recording the one code it completed with.
struct pending_ops {
  std::list<std::promise<error_code>> results;

  auto recorder() {
    auto& p = results.emplace_back();
    return [&p](error_code ec, auto&&...) { p.set_value(ec); };
  }
  void start_reads(session& s, int count) {
    for (int i = 0; i < count; ++i) s.async_get("/", recorder());
  }
  std::vector<error_code> outcomes() {
    std::vector<error_code> out;
    for (auto& p : results) out.push_back(test::get(p.get_future()));
    return out;
  }
};

std::string lock_path(std::string_view name) {
  return testing::unique_path(name);
}

}  // namespace

// The race this pins: closing a session failed its pending requests before it published
// `closed`, and the lock took a request cut short while the state was not yet `closed` for an
// expiry. Repeated, because it was a race (2 runs in 10 of integration_lock_faults).
BOOST_AUTO_TEST_CASE(close_reports_closed_to_every_pending_operation) {
  const std::string path = lock_path("close-truth");
  test::client holder;
  lock held_by_holder(*holder.s, path);
  auto [held_ec, held] = test::acquire(held_by_holder);
  BOOST_REQUIRE(!held_ec);
  for (int round = 0; round < 25; ++round) {
    BOOST_TEST_CONTEXT("round " << round) {
      auto c = std::make_unique<test::client>();
      pending_ops ops;
      lock waiting(*c->s, path);
      waiting.async_acquire(ops.recorder());
      BOOST_REQUIRE(test::contenders_reach(*holder.s, path, 2));
      watch w;
      test::get(c->s->async_exists(path + "/absent", w, asio::use_future));
      w.async_wait(ops.recorder());
      c->s->async_wait_state(session_state::expired, ops.recorder());
      pending_ops reads;
      reads.start_reads(*c->s, 20);
      c->s->close();
      for (const error_code& ec : ops.outcomes()) BOOST_TEST(ec == errc::closed, ec.message());
      // A read whose reply came before the close succeeds; none is reported as anything else.
      for (const error_code& ec : reads.outcomes())
        BOOST_TEST((!ec || ec == errc::closed), ec.message());
      // After the close, a new request is refused the same way.
      BOOST_TEST(std::get<0>(test::get(c->s->async_exists("/", test::tuple_future))) ==
                 errc::closed);
    }
  }
  BOOST_TEST(test::contenders_reach(*holder.s, path, 1));
}

// The session ends itself when its lease deadline passes out of contact (the server may not
// be reachable to say so): what was pending learns that the session expired, not that this
// process closed it.
BOOST_AUTO_TEST_CASE(local_expiry_reports_session_expired_to_every_pending_operation) {
  const std::string path = lock_path("local-expiry-truth");
  testing::tcp_proxy proxy{"127.0.0.1", test::lock_cluster()->local_server().port()};
  test::client holder;
  lock held_by_holder(*holder.s, path);
  auto [held_ec, held] = test::acquire(held_by_holder);
  BOOST_REQUIRE(!held_ec);

  test::client cut{2000ms, proxy.connect_string()};
  test::state_recorder states(*cut.s);
  pending_ops ops;
  lock waiting(*cut.s, path);
  waiting.async_acquire(ops.recorder());
  BOOST_REQUIRE(test::contenders_reach(*holder.s, path, 2));
  watch w;
  test::get(cut.s->async_exists(path + "/absent", w, asio::use_future));
  w.async_wait(ops.recorder());

  proxy.blackhole(true);
  BOOST_REQUIRE(states.wait_for(session_state::suspended, 20s).has_value());
  // Requests sent while out of contact: the C client fails some as outcome-unknown when a
  // reconnect attempt gives up; those still queued when the lease runs out end with it.
  pending_ops reads;
  while (!states.wait_for(session_state::expired, 20ms)) reads.start_reads(*cut.s, 1);
  for (const error_code& ec : ops.outcomes()) {
    BOOST_TEST(ec == zk_errc::session_expired, ec.message());
    BOOST_TEST(ec == condition::session_expired);
  }
  std::map<std::string, int> read_outcomes;
  for (const error_code& ec : reads.outcomes()) {
    ++read_outcomes[ec.message()];
    BOOST_TEST((ec == condition::session_expired || ec == condition::connection_loss),
               ec.message());
  }
  for (const auto& [what, count] : read_outcomes)
    BOOST_TEST_MESSAGE(count << " read(s) sent while suspended: " << what);
  BOOST_TEST(read_outcomes.count(make_error_code(zk_errc::session_expired).message()) == 1u,
             "no read was still pending when the lease ran out");
  proxy.blackhole(false);
  // The server ends the old session on its own clock; the waiter's node goes with it.
  BOOST_TEST(test::contenders_reach(*holder.s, path, 1));
}

// A request sent while the first connect is still trying ends with the connect's own verdict.
BOOST_AUTO_TEST_CASE(connect_timeout_reports_unreachable_to_requests_sent_while_connecting) {
  testing::tcp_proxy proxy{"127.0.0.1", test::lock_cluster()->local_server().port()};
  proxy.blackhole(true);  // connections are accepted, nothing answers
  test::io_thread io;
  auto o = options_for(proxy.connect_string(), 4000ms);
  o.connect_timeout = 1500ms;
  session s(io.executor(), o);
  test::state_recorder states(s);
  auto connected = s.async_connect(test::tuple_future);
  BOOST_REQUIRE(states.wait_for(session_state::connecting, 10s).has_value());
  pending_ops ops;
  ops.start_reads(s, 5);
  BOOST_TEST(std::get<0>(test::get(connected)) == errc::unreachable);
  for (const error_code& ec : ops.outcomes()) BOOST_TEST(ec == errc::unreachable, ec.message());
}

// Our deadline must never be later than the server's, which counts from when it last heard
// from us. The proxy holds the server's replies for a second, so a deadline taken from the
// time a reply arrived would trail the server's by that second; the proxy knows the last
// time a request reached the server.
BOOST_AUTO_TEST_CASE(lease_deadline_never_trails_the_server) {
  testing::tcp_proxy proxy{"127.0.0.1", test::lock_cluster()->local_server().port()};
  test::io_thread io;
  session s(io.executor(), options_for(proxy.connect_string(), 6000ms));
  test::state_recorder states(s);
  const auto within_servers_lease = [&](const char* when) {
    const auto ours = s.lease_deadline();
    const auto servers_latest = proxy.last_forwarded_to_server() + s.negotiated_timeout();
    BOOST_TEST((ours <= servers_latest),
               when << ": our deadline trails the server's by "
                    << std::chrono::duration<double>(ours - servers_latest).count() << " s");
  };

  proxy.hold_replies(true);
  auto connected = s.async_connect(test::tuple_future);
  std::this_thread::sleep_for(1s);
  proxy.hold_replies(false);
  BOOST_REQUIRE(!std::get<0>(test::get(connected)));
  within_servers_lease("connected");
  test::get(s.async_exists("/", asio::use_future));
  within_servers_lease("after a read");

  // The same session reconnects on a new connection whose replies are late again.
  const auto mark = states.size();
  proxy.hold_replies(true);
  proxy.drop_all();
  BOOST_REQUIRE(states.wait_for(session_state::suspended, 10s, mark).has_value());
  std::this_thread::sleep_for(1s);
  proxy.hold_replies(false);
  BOOST_REQUIRE(states.wait_for(session_state::reconnected, 10s, mark).has_value());
  within_servers_lease("reconnected");
  test::get(s.async_exists("/", asio::use_future));
  within_servers_lease("after a read on the reconnected session");
  // Only a quorum-acknowledged reply renews it (docs/session.md, "The lease"): a write does.
  test::get(
      s.async_create(lock_path("lease-write"), "", {create_mode::ephemeral}, asio::use_future));
  within_servers_lease("after a write");
  BOOST_TEST((s.lease_deadline() > clock_type::now()));
}
