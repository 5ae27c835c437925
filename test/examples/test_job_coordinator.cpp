// The job-coordinator example: with one worker killed and two paused mid-run, every
// scheduled run still takes effect exactly once.
#include "examples/example_run.hpp"

#define BOOST_TEST_MODULE example_job_coordinator
#include <boost/test/unit_test.hpp>

using example_test::run_example;

using example_test::zookeeper_fixture;
BOOST_TEST_GLOBAL_FIXTURE(zookeeper_fixture);

BOOST_AUTO_TEST_CASE(every_run_takes_effect_exactly_once_despite_kill_and_pauses) {
  const auto run = run_example("--workers 4 --jobs 4 --runs-per-job 5 --pause 3");
  BOOST_TEST(run.exit_status == 0);
  BOOST_TEST(run.number("runs") == 20);
  BOOST_TEST(run.number("effects") == 20);
  BOOST_TEST(run.number("missing") == 0);
  BOOST_TEST(run.number("duplicates") == 0);
  BOOST_TEST(run.number("emails") == 20);
  BOOST_TEST(run.number("killed") == 1);
  BOOST_TEST(run.number("paused") == 2);
  // The killed worker had sent its run's email: the retry's email is dropped as a duplicate.
  BOOST_TEST(run.number("duplicate_emails_dropped") >= 1);
  // The worker paused before its commit comes back with a stale token.
  BOOST_TEST(run.number("stale_rejected") >= 1);
  // The worker paused mid-run notices the loss and stops its job.
  BOOST_TEST(run.number("stopped_on_lost_lock") >= 1);
}

BOOST_AUTO_TEST_CASE(without_faults_every_run_takes_effect_once) {
  const auto run = run_example("--workers 3 --jobs 3 --runs-per-job 3 --no-faults");
  BOOST_TEST(run.exit_status == 0);
  BOOST_TEST(run.number("runs") == 9);
  BOOST_TEST(run.number("effects") == 9);
  BOOST_TEST(run.number("duplicates") == 0);
  BOOST_TEST(run.number("stale_rejected") == 0);
}
