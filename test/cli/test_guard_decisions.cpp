// SPDX-License-Identifier: Apache-2.0
// The job guard's decisions without processes: which signals go out when, what zkcoord is
// told, and when the guard is done. The processes themselves: test_cli_job.cpp.
#include "guard_decisions.hpp"

#define BOOST_TEST_MODULE guard_decisions
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>

using namespace zkcoord::cli;

namespace {

constexpr std::int64_t ms = 1'000'000;
constexpr std::int64_t grace = 500 * ms;
constexpr std::int64_t lease = 2000 * ms;

bool reports(const guard_decisions::actions& a, guard_report type) {
  return std::any_of(a.reports.begin(), a.reports.end(),
                     [&](const guard_message& m) { return m.type == static_cast<unsigned>(type); });
}

}  // namespace

BOOST_AUTO_TEST_CASE(nothing_happens_while_the_lease_is_renewed) {
  guard_decisions d(grace, lease);
  for (std::int64_t now = 0; now < 10 * lease; now += 100 * ms) {
    auto a = d.renew(now + lease, now);
    auto t = d.tick(now);
    BOOST_TEST((!a.kill_all && !a.terminate_all && a.reports.empty()));
    BOOST_TEST((!t.kill_all && !t.terminate_all && t.reports.empty()));
  }
}

BOOST_AUTO_TEST_CASE(lease_deadline_kills_everything_once_without_grace) {
  guard_decisions d(grace, lease);
  BOOST_TEST(d.next_wakeup(0) == lease);
  BOOST_TEST(!d.tick(lease - 1).kill_all);
  auto a = d.tick(lease);
  BOOST_TEST(a.kill_all);
  BOOST_TEST(!a.terminate_all);
  BOOST_TEST(reports(a, guard_report::lease_kill));
  // Repeated (orphans arrive later) but reported once.
  BOOST_TEST(d.next_wakeup(lease) == lease + guard_decisions::kill_repeat);
  auto again = d.tick(lease + guard_decisions::kill_repeat);
  BOOST_TEST(again.kill_all);
  BOOST_TEST(again.reports.empty());
}

BOOST_AUTO_TEST_CASE(a_lease_renewed_to_min_kills_at_once) {
  guard_decisions d(grace, lease);
  auto a = d.renew(std::numeric_limits<std::int64_t>::min(), 100 * ms);
  BOOST_TEST(a.kill_all);
  BOOST_TEST(reports(a, guard_report::lease_kill));
}

BOOST_AUTO_TEST_CASE(terminate_then_sigkill_after_the_grace) {
  guard_decisions d(grace, 100 * lease);
  auto a = d.terminate(1000 * ms);
  BOOST_TEST(a.terminate_all);
  BOOST_TEST(!a.kill_all);
  BOOST_TEST(d.next_wakeup(1000 * ms) == 1000 * ms + grace);
  BOOST_TEST(!d.tick(1000 * ms + grace - 1).kill_all);
  auto k = d.tick(1000 * ms + grace);
  BOOST_TEST(k.kill_all);
  BOOST_TEST(reports(k, guard_report::grace_kill));
  // A second terminate does not move the SIGKILL back.
  guard_decisions e(grace, 100 * lease);
  e.terminate(0);
  e.terminate(400 * ms);
  BOOST_TEST(e.next_wakeup(400 * ms) == grace);
}

BOOST_AUTO_TEST_CASE(the_lease_still_bounds_a_grace_period) {
  guard_decisions d(10 * lease, lease);
  d.terminate(0);
  auto a = d.tick(lease);
  BOOST_TEST(a.kill_all);
  BOOST_TEST(reports(a, guard_report::lease_kill));
}

BOOST_AUTO_TEST_CASE(top_exit_alone_finishes) {
  guard_decisions d(grace, lease);
  auto a = d.reaped(7, 0, 10 * ms);
  BOOST_TEST(reports(a, guard_report::exited));
  BOOST_TEST(a.reports.front().value == 7);
  BOOST_TEST(reports(a, guard_report::finished));
  BOOST_TEST(a.done);
  BOOST_TEST(!a.terminate_all);
}

BOOST_AUTO_TEST_CASE(leftovers_of_the_top_process_are_terminated_then_killed) {
  guard_decisions d(grace, 100 * lease);
  auto a = d.reaped(0, 2, 10 * ms);
  BOOST_TEST(reports(a, guard_report::exited));
  BOOST_TEST(reports(a, guard_report::leftovers));
  BOOST_TEST(a.terminate_all);
  BOOST_TEST(!a.done);
  // A grandchild that ignores SIGTERM: SIGKILL when the grace is over.
  auto k = d.tick(10 * ms + grace);
  BOOST_TEST(k.kill_all);
  BOOST_TEST(reports(k, guard_report::grace_kill));
  auto f = d.reaped(std::nullopt, 0, 10 * ms + grace + ms);
  BOOST_TEST(reports(f, guard_report::finished));
  BOOST_TEST(f.done);
}

BOOST_AUTO_TEST_CASE(the_lease_applies_to_leftovers_too) {
  guard_decisions d(10 * lease, lease);
  d.reaped(0, 1, 0);
  auto a = d.tick(lease);
  BOOST_TEST(a.kill_all);
  BOOST_TEST(reports(a, guard_report::lease_kill));
}

BOOST_AUTO_TEST_CASE(not_done_while_the_top_process_runs) {
  guard_decisions d(grace, lease);
  auto a = d.reaped(std::nullopt, 0, ms);  // a grandchild reaped; the count may lag
  BOOST_TEST(!a.done);
  BOOST_TEST(a.reports.empty());
}

BOOST_AUTO_TEST_CASE(zkcoord_gone_kills_everything_and_keeps_killing_until_none_is_left) {
  guard_decisions d(grace, 100 * lease);
  auto a = d.zkcoord_gone();
  BOOST_TEST(a.kill_all);
  BOOST_TEST(d.tick(ms).kill_all);
  auto f = d.reaped(137, 0, 2 * ms);
  BOOST_TEST(f.done);
  BOOST_TEST(d.tick(3 * ms).kill_all == false);
}

BOOST_AUTO_TEST_CASE(nothing_after_finished) {
  guard_decisions d(grace, lease);
  d.reaped(0, 0, 0);
  for (auto a : {d.tick(2 * lease), d.terminate(0), d.zkcoord_gone(), d.renew(0, lease)}) {
    BOOST_TEST((!a.kill_all && !a.terminate_all && a.reports.empty()));
  }
}
