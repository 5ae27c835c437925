// SPDX-License-Identifier: Apache-2.0
// The session's lease against a real server (docs/session.md, "The lease"): only replies that a
// quorum acknowledged renew it, counted from their send time; reads and pings never do; the
// session renews it only while someone wants it and sends nothing extra otherwise; a renewal
// the server refuses (ACL, a chroot that vanished) ends the lease early and the session
// reports its own expiry, so whatever relies on the lease acts, and nothing hangs.
#define BOOST_TEST_MODULE session_lease
#include <boost/test/unit_test.hpp>

#include <zkcoord/lock.hpp>
#include <zkcoord/session.hpp>

#include "session/lease_rule.hpp"
#include "support/lock_fixture.hpp"
#include "support/state_recorder.hpp"

#include <thread>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using test::lock_server;
BOOST_TEST_GLOBAL_FIXTURE(lock_server);

namespace {

using clock_type = std::chrono::steady_clock;
constexpr auto timeout = 4000ms;

session_options options(lease_options lease = {}, std::string connect = {}) {
  session_options o;
  o.connect = connect.empty() ? test::lock_cluster()->connect_string() : std::move(connect);
  o.session_timeout = timeout;
  o.lease = std::move(lease);
  return o;
}

std::chrono::nanoseconds lease_length(const session& s, const lease_options& lease = {}) {
  return detail::lease_rule::of(lease, s.negotiated_timeout()).length();
}

std::uint64_t renewals(const session& s) {
  return s.sent_requests().lease_renewals;
}

// The parent of testing::unique_path's paths.
void create_test_root(session& s) {
  auto [ec, created] = test::get(s.async_create("/zkcoord-test", "", {}, test::tuple_future));
  BOOST_REQUIRE(!ec || ec == zk_errc::node_exists);
}

// Keeps one session busy with reads, as an application does, for `how_long`.
void read_for(session& s, std::chrono::milliseconds how_long) {
  const auto until = clock_type::now() + how_long;
  while (clock_type::now() < until) {
    test::get(s.async_exists("/", asio::use_future));
    std::this_thread::sleep_for(50ms);
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(reads_never_renew_it_writes_do_from_their_send_time) {
  test::io_thread io;
  session s(io.executor(), options());
  test::get(s.async_connect(asio::use_future));
  const std::string path = testing::unique_path("lease-write");
  create_test_root(s);
  test::get(s.async_create(path, "", {}, asio::use_future));
  const auto after_write = s.lease_deadline();

  read_for(s, 1500ms);
  BOOST_TEST((s.lease_deadline() == after_write), "a read moved the lease");

  const auto before = clock_type::now();
  test::get(s.async_set(path, "x", -1, asio::use_future));
  const auto after = clock_type::now();
  const auto renewed = s.lease_deadline();
  BOOST_TEST((renewed >= before + lease_length(s)), "not counted from the send time");
  BOOST_TEST((renewed <= after + lease_length(s)), "counted from later than the reply");
}

BOOST_AUTO_TEST_CASE(a_session_that_never_asks_sends_nothing_extra) {
  test::io_thread io;
  session s(io.executor(), options());
  test::state_recorder states(s);
  test::get(s.async_connect(asio::use_future));
  read_for(s, 3000ms);  // longer than the lease: nobody wants it, nothing renews it
  BOOST_TEST(renewals(s) == 0u);
  BOOST_TEST(s.sent_requests().multis == 0u);
  BOOST_TEST((s.lease_deadline() < clock_type::now()));
  // An unwanted lease that ran out is no expiry: the session lives on.
  BOOST_TEST(!states.position_of(session_state::expired).has_value());
  BOOST_TEST((s.state() == session_state::connected));
}

BOOST_AUTO_TEST_CASE(a_keeper_keeps_it_ahead_until_it_goes) {
  test::io_thread io;
  session s(io.executor(), options());
  test::state_recorder states(s);
  test::get(s.async_connect(asio::use_future));
  {
    lease_keeper keeper = s.keep_lease();
    BOOST_TEST(static_cast<bool>(keeper));
    // Well past one lease length: only renewals can keep it ahead.
    std::this_thread::sleep_for(timeout);
    BOOST_TEST((s.lease_deadline() > clock_type::now()));
    // One every eighth of the timeout (500 ms): about 8 in 4 s; liveness bounds only.
    BOOST_TEST(renewals(s) >= 4u);
    BOOST_TEST(renewals(s) <= 12u);
    BOOST_TEST_MESSAGE("renewals of an idle session keeping its lease: " << renewals(s) << " in "
                                                                         << timeout / 1ms << " ms");
  }
  std::this_thread::sleep_for(100ms);
  const auto after_keeper = renewals(s);
  std::this_thread::sleep_for(3000ms);
  BOOST_TEST(renewals(s) == after_keeper, "renewals went on without a keeper");
  BOOST_TEST((s.lease_deadline() < clock_type::now()));
  BOOST_TEST(!states.position_of(session_state::expired).has_value());
}

BOOST_AUTO_TEST_CASE(valid_until_starts_renewals_until_the_lock_is_released) {
  test::client c;
  const std::string path = testing::unique_path("lease-lock");
  lock l(*c.s, path);
  auto [ec, held] = test::acquire(l);
  BOOST_REQUIRE(!ec);
  std::this_thread::sleep_for(1000ms);
  BOOST_TEST(renewals(*c.s) == 0u, "renewals before anyone read the lease");

  BOOST_TEST((held.valid_until() > clock_type::now()));  // the lock's create proved it
  std::this_thread::sleep_for(timeout);
  BOOST_TEST((held.valid_until() > clock_type::now()));
  BOOST_TEST(renewals(*c.s) >= 4u);
  BOOST_TEST(held.owns());

  test::get(held.async_release(asio::use_future));
  std::this_thread::sleep_for(100ms);
  const auto after_release = renewals(*c.s);
  std::this_thread::sleep_for(1500ms);
  BOOST_TEST(renewals(*c.s) == after_release, "renewals went on after the release");
}

// The check needs read access: a session whose check path it may not read renews nothing, so
// its lock's lease ends early and the lock is reported lost; the server itself is fine.
BOOST_AUTO_TEST_CASE(a_renewal_refused_by_the_acl_ends_the_lease_and_the_lock) {
  test::io_thread io;
  session_options alice_options = options();
  alice_options.digest = {"alice", "alice-secret"};
  session alice(io.executor(), alice_options);
  test::get(alice.async_connect(asio::use_future));
  const std::string secret = testing::unique_path("lease-secret");
  create_test_root(alice);
  test::get(alice.async_create(secret, "", {.acl_entries = creator_all_acl()}, asio::use_future));

  lease_options lease;
  lease.check_path = secret;
  session s(io.executor(), options(lease));
  test::state_recorder states(s);
  test::get(s.async_connect(asio::use_future));
  const std::string lock_path = testing::unique_path("lease-acl-lock");
  lock l(s, lock_path);
  auto [ec, held] = test::acquire(l);
  BOOST_REQUIRE(!ec);
  std::promise<std::pair<clock_type::time_point, error_code>> lost_promise;
  held.async_wait_lost([&](error_code e) { lost_promise.set_value({clock_type::now(), e}); });
  auto lost = lost_promise.get_future();
  const auto wanted_at = clock_type::now();
  const auto lease_end = held.valid_until();  // what the create proved; renewals start

  BOOST_REQUIRE((lost.wait_for(timeout * 3) == std::future_status::ready));
  const auto [lost_at, why] = lost.get();
  BOOST_TEST((why == condition::session_expired), why.message());
  // Enforced at what the lock's create proved (it was live when wanted), not later.
  BOOST_TEST((lost_at >= lease_end));
  BOOST_TEST((lost_at - wanted_at < lease_length(s, lease) + 1s),
             (lost_at - wanted_at) / 1ms << " ms after the lease was wanted");
  BOOST_TEST(renewals(s) >= 1u);
  BOOST_TEST(states.position_of(session_state::expired).has_value());
  // The session renews itself; its old node is gone with the old session.
  BOOST_REQUIRE(
      states.wait_for(session_state::connected, 20s, *states.position_of(session_state::expired))
          .has_value());
  BOOST_TEST(test::contenders_of(alice, lock_path).empty());
}

// A chroot deleted under a session: every renewal fails with no_node, the lease ends.
BOOST_AUTO_TEST_CASE(a_vanished_chroot_ends_the_lease) {
  test::io_thread io;
  session admin(io.executor(), options());
  test::get(admin.async_connect(asio::use_future));
  const std::string chroot = testing::unique_path("lease-chroot");
  create_test_root(admin);
  test::get(admin.async_create(chroot, "", {}, asio::use_future));

  session s(io.executor(), options({}, test::lock_cluster()->connect_string() + chroot));
  test::state_recorder states(s);
  test::get(s.async_connect(asio::use_future));
  lease_keeper keeper = s.keep_lease();
  std::this_thread::sleep_for(1000ms);
  BOOST_TEST((s.lease_deadline() > clock_type::now()));
  const auto mark = states.size();

  test::get(admin.async_remove(chroot, -1, asio::use_future));
  const auto removed_at = clock_type::now();
  const auto expired_at = states.wait_for(session_state::expired, timeout * 3, mark);
  BOOST_REQUIRE(expired_at.has_value());
  BOOST_TEST((*expired_at - removed_at < lease_length(s) + 1s),
             (*expired_at - removed_at) / 1ms << " ms after the chroot was removed");
}

BOOST_AUTO_TEST_CASE(lease_options_out_of_range_fail_the_connect) {
  test::io_thread io;
  lease_options lease;
  lease.clock_drift = 2;
  session s(io.executor(), options(lease));
  auto [ec] = test::get(s.async_connect(test::tuple_future));
  BOOST_TEST(ec == errc::bad_argument);
}
