// SPDX-License-Identifier: Apache-2.0
// The lease rule without a server: the length a quorum-acknowledged reply proves, the
// parameters' defaults and refusals, and when the session must report its own expiry.
#include "session/lease_rule.hpp"

#define BOOST_TEST_MODULE lease_rule
#include <boost/test/unit_test.hpp>

using namespace zkcoord;
using namespace std::chrono_literals;
using detail::lease_clock;
using detail::lease_rule;

namespace {
long long ms(std::chrono::nanoseconds d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}
}  // namespace

// (1 - rho)(tau - t/2 - H - J) - delta, with t bounded by tau/2 and H = tau/8 by default.
BOOST_AUTO_TEST_CASE(length_with_the_defaults_bounds_the_tick_by_half_the_timeout) {
  const auto rule = lease_rule::of({}, 4000ms);
  BOOST_TEST(ms(rule.tick_bound) == 2000);
  BOOST_TEST(ms(rule.renew_every) == 500);
  // 0.999 * (4000 - 1000 - 500 - 100) - 50 = 2347.6
  BOOST_TEST(ms(rule.length()) == 2347);
}

BOOST_AUTO_TEST_CASE(a_known_tick_lengthens_the_lease) {
  lease_options o;
  o.tick_time = 200ms;
  // 0.999 * (4000 - 100 - 500 - 100) - 50 = 3246.7
  BOOST_TEST(ms(lease_rule::of(o, 4000ms).length()) == 3246);
  // Debian's default tickTime (2000 ms) with a 10 s session, renewals every 1.25 s:
  // 0.999 * (10000 - 1000 - 1250 - 100) - 50 = 7592.35
  o.tick_time = 2000ms;
  BOOST_TEST(ms(lease_rule::of(o, 10000ms).length()) == 7592);
}

BOOST_AUTO_TEST_CASE(every_parameter_shortens_it) {
  const auto base = lease_rule::of({}, 4000ms).length();
  lease_options o;
  o.renew_every = 1000ms;
  BOOST_TEST(ms(base - lease_rule::of(o, 4000ms).length()) == 499);
  o = {};
  o.late_ping = 600ms;
  BOOST_TEST(ms(base - lease_rule::of(o, 4000ms).length()) == 499);
  o = {};
  o.margin = 550ms;
  BOOST_TEST(ms(base - lease_rule::of(o, 4000ms).length()) == 500);
  o = {};
  o.clock_drift = 0.1;
  BOOST_TEST(ms(lease_rule::of(o, 4000ms).length()) == 2110);  // 0.9 * 2400 - 50
}

BOOST_AUTO_TEST_CASE(the_deadline_counts_from_the_send_time) {
  const auto rule = lease_rule::of({}, 4000ms);
  const auto sent = lease_clock::now();
  BOOST_TEST((rule.deadline_from(sent) == sent + rule.length()));
  BOOST_TEST(
      (rule.deadline_from(lease_clock::time_point::min()) == lease_clock::time_point::min()));
}

BOOST_AUTO_TEST_CASE(a_timeout_too_short_for_the_rule_proves_nothing) {
  // 0.999 * (400 - 100 - 50 - 100) - 50 = 99.85 ms: positive but tiny; with J = 300 ms none.
  lease_options o;
  BOOST_TEST(ms(lease_rule::of(o, 400ms).length()) == 99);
  o.late_ping = 300ms;
  BOOST_TEST(lease_rule::of(o, 400ms).length().count() <= 0);
}

BOOST_AUTO_TEST_CASE(options_out_of_range_are_refused_with_a_reason) {
  BOOST_TEST(detail::lease_options_problem({}).empty());
  lease_options o;
  o.clock_drift = -0.1;
  BOOST_TEST(detail::lease_options_problem(o).find("clock_drift") != std::string::npos);
  o = {};
  o.clock_drift = 0.5;
  BOOST_TEST(!detail::lease_options_problem(o).empty());
  o = {};
  o.renew_every = 0ms;
  BOOST_TEST(detail::lease_options_problem(o).find("renew_every") != std::string::npos);
  o = {};
  o.tick_time = -1ms;
  BOOST_TEST(detail::lease_options_problem(o).find("tick_time") != std::string::npos);
  o = {};
  o.margin = -1ms;
  BOOST_TEST(!detail::lease_options_problem(o).empty());
  o = {};
  o.check_path = "relative";
  BOOST_TEST(detail::lease_options_problem(o).find("check_path") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(local_expiry_when_wanted_at_the_proven_deadline_connected_or_not) {
  const auto now = lease_clock::now();
  detail::local_expiry_input in;
  in.wanted = true;
  in.wanted_since = now - 10s;
  in.proven_deadline = now + 1s;
  in.contact_deadline = now + 3s;  // a follower's answers: not a bound, not used
  for (bool suspended : {false, true}) {
    in.suspended = suspended;
    BOOST_TEST((detail::local_expiry_at(in)->at == now + 1s));
  }
  // Live when it became wanted: enforced even once past.
  in.wanted_since = now - 1s;
  in.proven_deadline = now - 500ms;
  BOOST_TEST((detail::local_expiry_at(in)->at == now - 500ms));
}

// Reading valid_until() after a long idle hold must not end the session by itself: a lease
// that had lapsed before anyone wanted it is enforced once a renewal proves it again; until
// then the rule for an unwanted lease applies (the contact rule, only while suspended).
BOOST_AUTO_TEST_CASE(a_lease_lapsed_before_it_was_wanted_is_enforced_once_renewed) {
  const auto now = lease_clock::now();
  detail::local_expiry_input in;
  in.wanted = true;
  in.wanted_since = now;
  in.proven_deadline = now - 1h;  // the last write was long ago
  in.contact_deadline = now + 3s;
  BOOST_TEST(!detail::local_expiry_at(in).has_value());
  in.suspended = true;
  BOOST_TEST((detail::local_expiry_at(in)->at == now + 3s));
  BOOST_TEST(!detail::local_expiry_at(in)->by_lease);
  in.proven_deadline = now + 2s;  // a renewal sent after `now` was answered
  BOOST_TEST((detail::local_expiry_at(in)->at == now + 2s));
  BOOST_TEST(detail::local_expiry_at(in)->by_lease);
}

BOOST_AUTO_TEST_CASE(unwanted_leases_expire_locally_only_while_suspended_at_the_contact_rule) {
  const auto now = lease_clock::now();
  detail::local_expiry_input in;
  in.proven_deadline = now - 1h;
  in.contact_deadline = now + 3s;
  BOOST_TEST(!detail::local_expiry_at(in).has_value());
  in.suspended = true;
  BOOST_TEST((detail::local_expiry_at(in)->at == now + 3s));
}

// The bound needs the session's requests to reach its server no more than G apart: a write
// after a silence proves less, down to what the C client's idle ping (a third of the timeout)
// guarantees.
BOOST_AUTO_TEST_CASE(a_request_after_a_silence_proves_less) {
  const auto rule = lease_rule::of({}, 3000ms);  // H = 375 ms
  BOOST_TEST((rule.length(100ms) == rule.length()));
  BOOST_TEST((rule.length(375ms) == rule.length()));
  // 0.999 * (3000 - 750 - 800 - 100) - 50 = 1298.65
  BOOST_TEST(ms(rule.length(800ms)) == 1298);
  // Capped at 3000/3 + 100 ms: 0.999 * (3000 - 750 - 1100 - 100) - 50 = 998.95
  BOOST_TEST(ms(rule.length(1h)) == 998);
  const auto sent = lease_clock::now();
  BOOST_TEST((rule.deadline_from(sent, 800ms) == sent + rule.length(800ms)));
}
