// SPDX-License-Identifier: Apache-2.0
// The job-coordinator example: with one worker killed and two paused mid-run, every
// scheduled run still takes effect exactly once; with 40 jobs the runs follow each job's
// rendezvous home among the live workers, and move to the survivors when one is killed and
// one paused past its session.
#include "common/run_directory.hpp"
#include "common/sqlite_db.hpp"
#include "examples/example_run.hpp"
#include "job_coordinator/home.hpp"

#define BOOST_TEST_MODULE example_job_coordinator
#include <boost/test/results_collector.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <map>

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

namespace {

namespace fs = std::filesystem;

// The example's run directory (jobs.db, the workers' logs) under a directory of the test's own,
// kept when the test fails.
class example_scratch {
 public:
  example_scratch() : dir_("zkcoord-example-job-home") { dir_.keep(); }
  ~example_scratch() {
    namespace ut = boost::unit_test;
    if (ut::results_collector.results(ut::framework::current_test_case().p_id).passed()) {
      dir_.discard();
    } else {
      std::cerr << "the example's database and logs are kept in " << dir_.path() << "\n";
    }
  }
  std::string command(const std::string& arguments) const {
    return "TMPDIR=" + dir_.path().string() + " " + EXAMPLE_BINARY + " " + arguments;
  }
  fs::path database() const {
    for (const auto& entry : fs::directory_iterator(dir_.path())) {
      if (entry.is_directory() && fs::exists(entry.path() / "jobs.db")) {
        return entry.path() / "jobs.db";
      }
    }
    throw std::runtime_error("no jobs.db was kept in " + dir_.path().string());
  }

 private:
  examples::run_directory dir_;
};

struct effect_row {
  std::string job;
  std::string worker;
  std::int64_t started_ms = 0;
  std::int64_t committed_ms = 0;
};

std::vector<effect_row> effects(examples::sqlite_db& db) {
  std::vector<effect_row> rows;
  auto read =
      db.prepare("SELECT job, worker, started_ms, committed_ms FROM effects ORDER BY started_ms");
  while (read.step()) {
    rows.push_back(
        {*read.column_text(0), *read.column_text(1), read.column_int64(2), read.column_int64(3)});
  }
  return rows;
}

const std::vector<std::string> all_workers{"worker-1", "worker-2", "worker-3", "worker-4"};

/// For each job whose home (all four alive) was `worker`: ms from the fault at `fault_ms` to
/// the start of the job's first run by another worker (-1 if there was none).
std::map<std::string, std::int64_t> take_over_ms(const std::vector<effect_row>& rows,
                                                 const std::string& worker, std::int64_t fault_ms,
                                                 int jobs) {
  std::map<std::string, std::int64_t> delays;
  for (int j = 0; j < jobs; ++j) {
    const auto job = "job-" + std::to_string(j + 1);
    if (job_coordinator::home_of(job, all_workers) != worker) continue;
    delays[job] = -1;
    for (const auto& r : rows) {  // ordered by start
      if (r.job == job && r.worker != worker && r.started_ms >= fault_ms) {
        delays[job] = r.started_ms - fault_ms;
        break;
      }
    }
  }
  return delays;
}

}  // namespace

// 4 workers, 40 jobs x 8 runs, one run every 2 s per job. After 80 commits (two rounds, all
// four alive) the worker that sends the 3rd email is SIGKILLed mid-run and the one that sends
// the 7th is SIGSTOPped mid-run for 8 s (the session is 1.5 s). Read from jobs.db: every
// scheduled run has exactly one effect and one email; while all four were alive, each worker
// ran within 2x of an even share and (almost) only the jobs whose home it is; after each fault,
// every job of the faulted worker had a run started by a survivor within the session timeout
// + one tick (the job's interval) + a margin for a loaded machine.
BOOST_AUTO_TEST_CASE(forty_jobs_follow_their_home_and_move_to_survivors_on_kill_and_pause) {
  constexpr int jobs = 40, runs_per_job = 8, workers = 4;
  constexpr std::int64_t session_ms = 1500, interval_ms = 2000, margin_ms = 2000;
  example_scratch scratch;
  const auto run = example_test::run_command(
      scratch.command("--keep --workers 4 --jobs 40 --runs-per-job 8 --interval-ms 2000"
                      " --work-ms 100 --session-timeout-ms 1500 --pause 8 --faults-after 80"
                      " --pauses 1"),
      [](std::string_view) {});
  BOOST_TEST(run.exit_status == 0);
  BOOST_REQUIRE(run.number("killed") == 1);
  BOOST_REQUIRE(run.number("paused") == 1);
  const std::string killed = run.summary.at("killed_worker");
  const std::string paused = run.summary.at("paused_worker");
  const std::int64_t first_fault = run.number("first_fault_ms");

  examples::sqlite_db db(scratch.database());
  constexpr int runs = jobs * runs_per_job;
  BOOST_TEST(db.query_int64("SELECT COUNT(*) FROM effects") == runs);
  BOOST_TEST(db.query_int64("SELECT COUNT(*) FROM (SELECT DISTINCT job, due FROM effects)") ==
             runs);
  BOOST_TEST(db.query_int64("SELECT COUNT(*) FROM (SELECT job FROM effects GROUP BY job"
                            " HAVING COUNT(*) = 8)") == jobs);
  BOOST_TEST(db.query_int64("SELECT COUNT(*) FROM outbox") == runs);
  BOOST_TEST(db.query_int64("SELECT COUNT(*) FROM outbox o JOIN effects e"
                            " ON o.idempotency_key = e.job || '@' || e.due") == runs);

  // While all four were alive: the spread, and who ran what.
  const auto rows = effects(db);
  std::map<std::string, int> per_worker;
  for (const auto& w : all_workers) per_worker[w] = 0;
  int before_faults = 0, by_home = 0;
  for (const auto& r : rows) {
    if (r.committed_ms >= first_fault) continue;
    ++before_faults;
    ++per_worker[r.worker];
    by_home += job_coordinator::home_of(r.job, all_workers) == r.worker;
  }
  BOOST_TEST_MESSAGE("before the faults: " << before_faults << " runs, " << by_home
                                           << " by the job's home");
  BOOST_TEST(before_faults >= 80);
  const double even = double(before_faults) / workers;
  for (const auto& [worker, count] : per_worker) {
    BOOST_TEST_MESSAGE("  " << worker << ": " << count << " runs (even: " << even << ")");
    BOOST_TEST(count >= even / 2, worker << " ran " << count);
    BOOST_TEST(count <= even * 2, worker << " ran " << count);
  }
  // A view that has not seen every worker yet may put a job elsewhere for a turn at the start.
  BOOST_TEST(by_home >= 0.9 * before_faults);

  // After the faults: the faulted workers' jobs move to survivors.
  const std::int64_t bound = session_ms + interval_ms + margin_ms;
  for (const auto& [worker, at] : {std::pair{killed, run.number("killed_at_ms")},
                                   std::pair{paused, run.number("paused_at_ms")}}) {
    const auto delays = take_over_ms(rows, worker, at, jobs);
    BOOST_TEST(!delays.empty());
    std::int64_t worst = 0;
    std::string each;
    for (const auto& [job, delay] : delays) {
      each += " " + job + "=" + std::to_string(delay);
      BOOST_TEST(delay >= 0, job << " of " << worker << " never ran elsewhere");
      BOOST_TEST(delay <= bound, job << " of " << worker << " moved after " << delay << " ms");
      worst = std::max(worst, delay);
    }
    BOOST_TEST_MESSAGE(worker << " (" << (worker == killed ? "killed" : "paused") << "): its "
                              << delays.size() << " jobs moved within " << worst << " ms (bound "
                              << bound << " ms):" << each);
  }
}
