// SPDX-License-Identifier: Apache-2.0
// The cache-regeneration example: with the efficiency lock, 20 concurrent misses in 4
// processes cause exactly one regeneration; without it, every miss regenerates.
#include "examples/example_run.hpp"

#define BOOST_TEST_MODULE example_cache_regen
#include <boost/test/unit_test.hpp>

using example_test::run_example;

using example_test::zookeeper_fixture;
BOOST_TEST_GLOBAL_FIXTURE(zookeeper_fixture);

BOOST_AUTO_TEST_CASE(dedup_regenerates_once_plain_regenerates_per_miss) {
  const auto run = run_example("--mode both --processes 4 --requests 20 --compute-ms 300");
  BOOST_TEST(run.exit_status == 0);
  BOOST_TEST(run.number("requests") == 20);
  BOOST_TEST(run.number("dedup_regenerations") == 1);
  BOOST_TEST(run.number("plain_regenerations") > 1);
  BOOST_TEST_MESSAGE("regenerations without dedup: " << run.number("plain_regenerations"));
}

BOOST_AUTO_TEST_CASE(dedup_holds_over_repeated_runs) {
  for (int i = 0; i < 3; ++i) {
    BOOST_TEST_CONTEXT("run " << i) {
      const auto run = run_example("--mode dedup --processes 4 --requests 20");
      BOOST_TEST(run.exit_status == 0);
      BOOST_TEST(run.number("dedup_regenerations") == 1);
    }
  }
}
