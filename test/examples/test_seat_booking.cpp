// SPDX-License-Identifier: Apache-2.0
// The seat-booking example: the naive and unfenced runs oversell, the fenced and conditional
// ones never do, and a paused holder's late write is rejected by the fence.
#include "examples/example_run.hpp"

#define BOOST_TEST_MODULE example_seat_booking
#include <boost/test/unit_test.hpp>

using example_test::run_example;

using example_test::zookeeper_fixture;
BOOST_TEST_GLOBAL_FIXTURE(zookeeper_fixture);

namespace {

void check_never_oversold(const example_test::example_result& run) {
  BOOST_TEST(run.exit_status == 0);
  BOOST_TEST(run.number("seats") == 5);
  BOOST_TEST(run.number("sold") == 5);
  BOOST_TEST(run.number("confirmations") == 5);
  BOOST_TEST(run.number("oversold") == 0);
}

}  // namespace

BOOST_AUTO_TEST_CASE(naive_oversells_when_check_and_write_are_apart) {
  const auto run = run_example("naive --delay-ms 200");
  BOOST_TEST(run.exit_status == 0);
  BOOST_TEST(run.summary.at("mode") == "naive");
  BOOST_TEST(run.number("oversold") >= 1);
  BOOST_TEST(run.number("confirmations") == 12);  // every customer was told "booked"
}

BOOST_AUTO_TEST_CASE(conditional_never_oversells) {
  for (int i = 0; i < 3; ++i) {
    BOOST_TEST_CONTEXT("run " << i) {
      check_never_oversold(run_example("conditional"));
    }
  }
}

BOOST_AUTO_TEST_CASE(fenced_never_oversells) {
  for (int i = 0; i < 2; ++i) {
    BOOST_TEST_CONTEXT("run " << i) {
      const auto run = run_example("fenced");
      check_never_oversold(run);
      BOOST_TEST(run.number("stale_rejected") == 0);
    }
  }
}

BOOST_AUTO_TEST_CASE(fenced_rejects_the_paused_holders_stale_write) {
  for (int i = 0; i < 2; ++i) {
    BOOST_TEST_CONTEXT("run " << i) {
      const auto run = run_example("fenced --pause-holder 4 --session-timeout-ms 1500");
      check_never_oversold(run);
      BOOST_TEST(run.number("stale_rejected") == 1);
    }
  }
}

BOOST_AUTO_TEST_CASE(lock_without_fence_lets_the_paused_holder_overwrite_a_sale) {
  const auto run = run_example("lock --pause-holder 4 --session-timeout-ms 1500");
  BOOST_TEST(run.exit_status == 0);
  BOOST_TEST(run.number("sold") == 5);
  BOOST_TEST(run.number("confirmations") == 6);  // 5 successors + the late writer
  BOOST_TEST(run.number("oversold") == 1);       // the successor whose sale was overwritten
  BOOST_TEST(run.number("stale_rejected") == 0);
}

BOOST_AUTO_TEST_CASE(bad_mode_is_a_one_line_error) {
  const auto run = run_example("oversell");
  BOOST_TEST(run.exit_status != 0);
  BOOST_TEST(run.output.find("unknown mode 'oversell'") != std::string::npos);
}
