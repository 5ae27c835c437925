// SPDX-License-Identifier: Apache-2.0
// The metrics example against a real ZooKeeper: check_metrics_server.py runs it for N
// acquisitions, scrapes /metrics and parses it with the Prometheus project's own parser
// (python3-prometheus-client); the names, types and values must match what happened.
#include "examples/example_run.hpp"

#define BOOST_TEST_MODULE example_metrics_server
#include <boost/test/unit_test.hpp>

#include <string>

using example_test::run_command;
using example_test::zookeeper_fixture;
BOOST_TEST_GLOBAL_FIXTURE(zookeeper_fixture);

BOOST_AUTO_TEST_CASE(scraped_metrics_match_the_acquisitions_and_the_requests_sent) {
  const int locks = 25;
  const auto run = run_command(std::string(PYTHON3) + " " + CHECK_SCRIPT + " " + EXAMPLE_BINARY +
                                   " " + std::to_string(locks),
                               [](std::string_view) {});
  BOOST_TEST_REQUIRE(run.exit_status == 0);
  BOOST_TEST(run.number("checked") == 1);
  BOOST_TEST(run.number("grants") == locks);
  BOOST_TEST(run.number("acquire_count") == locks);
  BOOST_TEST(run.number("requests_create") >= locks);
}
