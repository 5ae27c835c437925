// SPDX-License-Identifier: Apache-2.0
// The seat-booking `fenced` demo and the job coordinator, run as users run them
// (test/examples/example_run.hpp), against a 3-node container ensemble whose leader is killed
// mid-run. Killing the leader drops every client of the ensemble: the followers lose their
// leader and close their client connections until a new one is elected. The outcome is read
// from the examples' own SQLite databases: no seat sold twice, every job run exactly once.
#include "examples/example_run.hpp"

#include <zkcoord/testing/container_ensemble.hpp>

#define BOOST_TEST_MODULE container_examples_server_killed
#include <boost/test/unit_test.hpp>

#include "common/run_directory.hpp"
#include "common/sqlite_db.hpp"
#include "container/container_logs_on_failure.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

using namespace std::chrono_literals;
namespace fs = std::filesystem;
using steady = std::chrono::steady_clock;

namespace {

// One ensemble for both examples; each test kills its leader and starts it again at the end.
struct ensemble_fixture {
  ensemble_fixture() { instance = this; }
  ~ensemble_fixture() { instance = nullptr; }
  zkcoord::testing::container_ensemble zk;
  static inline ensemble_fixture* instance = nullptr;
};
BOOST_TEST_GLOBAL_FIXTURE(ensemble_fixture);

zkcoord::testing::container_ensemble& ensemble() {
  return ensemble_fixture::instance->zk;
}

// Kills the ensemble's leader when the example prints its `kill_after`-th line containing
// `trigger`, and counts the trigger lines printed after the kill (the run went on without it).
class leader_killer {
 public:
  leader_killer(std::string trigger, int kill_after)
      : trigger_(std::move(trigger)), kill_after_(kill_after) {}

  void operator()(std::string_view line) {
    if (line.find(trigger_) == std::string_view::npos) return;
    if (killed_) {
      ++after_kill_;
      return;
    }
    if (++seen_ < kill_after_) return;
    auto& zk = ensemble();
    const std::size_t leader = zk.wait_for_leader(30s);
    const auto start = steady::now();
    zk.kill(leader);
    killed_ = leader;
    const std::size_t successor = zk.wait_for_leader(60s, leader);
    report_ = "killed the leader zk" + std::to_string(leader + 1) + " after " +
              std::to_string(seen_) + " '" + trigger_ + "' lines; zk" +
              std::to_string(successor + 1) + " led " +
              std::to_string((steady::now() - start) / 1ms) + " ms after the kill";
    std::cout << "--- " << report_ << std::endl;
  }

  std::optional<std::size_t> killed() const { return killed_; }
  int after_kill() const { return after_kill_; }
  const std::string& report() const { return report_; }

 private:
  std::string trigger_;
  int kill_after_;
  int seen_ = 0;
  int after_kill_ = 0;
  std::optional<std::size_t> killed_;
  std::string report_;
};

// A run directory for the example (its TMPDIR): the example keeps its database there
// (--keep), and this removes it unless the test failed.
class example_scratch {
 public:
  explicit example_scratch(const std::string& prefix) : dir_(prefix) { dir_.keep(); }
  ~example_scratch() {
    namespace ut = boost::unit_test;
    if (ut::results_collector.results(ut::framework::current_test_case().p_id).passed()) {
      dir_.discard();
    } else {
      std::cerr << "the example's database and logs are kept in " << dir_.path() << "\n";
    }
  }
  /// The command line that runs `binary` with its temporary files here.
  std::string command(const std::string& binary, const std::string& arguments) const {
    return "TMPDIR=" + dir_.path().string() + " " + binary + " " + arguments;
  }
  /// The one file `name` in the one run directory the example made here.
  fs::path database(const std::string& name) const {
    std::optional<fs::path> found;
    for (const auto& entry : fs::directory_iterator(dir_.path())) {
      if (!entry.is_directory()) continue;
      if (found) throw std::runtime_error("several run directories in " + dir_.path().string());
      found = entry.path() / name;
    }
    if (!found || !fs::exists(*found)) throw std::runtime_error("no " + name + " was kept");
    return *found;
  }

 private:
  examples::run_directory dir_;
};

// After a test: the killed member runs again, so the next test has all three.
void restart_killed(const leader_killer& killer) {
  if (killer.killed()) ensemble().restart(*killer.killed());
}

}  // namespace

BOOST_AUTO_TEST_CASE(seat_booking_fenced_never_oversells_with_the_leader_killed_mid_run) {
  auto& zk = ensemble();
  zkcoord::test::container_logs_on_failure logs(zk);
  ::setenv("ZKCOORD_CONNECT", zk.connect_string().c_str(), 1);
  example_scratch scratch("zkcoord-container-seat-booking");
  // The kill comes right after the first seat is sold: four more are sold after it. Each
  // customer books once and gives up when its session ends, so the sessions must outlive the
  // fail-over (1.2-1.9 s measured on a quiet machine): with the example's 1.5 s default the
  // waiting customers' sessions expired, they exited with the error and only 2 seats were sold
  // (none twice); under load a 6 s session expired too (one clean-clone run). 15 s, within
  // the ensemble's maxSessionTimeout (20 s), leaves a wide margin.
  leader_killer killer(" wrote ", 1);
  const auto started = steady::now();
  const auto run = example_test::run_command(
      scratch.command(SEAT_BOOKING_BINARY,
                      "fenced --keep --delay-ms 200 --session-timeout-ms 15000"),
      killer);
  std::cout << "--- run took " << (steady::now() - started) / 1ms << " ms; " << killer.report()
            << std::endl;
  restart_killed(killer);

  BOOST_REQUIRE(killer.killed());
  BOOST_TEST(killer.after_kill() >= 1, "no seat was sold after the kill");
  BOOST_TEST(run.exit_status == 0);
  BOOST_TEST(run.number("oversold") == 0);
  BOOST_TEST(run.number("sold") == 5);

  // The database itself: every seat sold once, one confirmation per seat, each to its holder.
  examples::sqlite_db db(scratch.database("seats.db"));
  const auto seats = db.query_int64("SELECT COUNT(*) FROM seats");
  BOOST_TEST(seats == 5);
  BOOST_TEST(db.query_int64("SELECT COUNT(*) FROM seats WHERE holder IS NOT NULL") == seats);
  BOOST_TEST(db.query_int64("SELECT COUNT(*) FROM confirmations") == seats);
  BOOST_TEST(db.query_int64("SELECT COUNT(DISTINCT seat) FROM confirmations") == seats);
  BOOST_TEST(db.query_int64("SELECT COUNT(*) FROM confirmations c JOIN seats s"
                            " ON s.seat = c.seat AND s.holder = c.customer") == seats);
}

BOOST_AUTO_TEST_CASE(job_coordinator_runs_every_job_once_with_the_leader_killed_mid_run) {
  auto& zk = ensemble();
  zkcoord::test::container_logs_on_failure logs(zk);
  ::setenv("ZKCOORD_CONNECT", zk.connect_string().c_str(), 1);
  example_scratch scratch("zkcoord-container-job-coordinator");
  // The example's own faults (one worker killed, two paused) stay on; the server is killed
  // after the 5th of 20 commits.
  leader_killer killer(" committed ", 5);
  const auto started = steady::now();
  const auto run = example_test::run_command(
      scratch.command(JOB_COORDINATOR_BINARY, "--keep --workers 4 --jobs 4 --runs-per-job 5"),
      killer);
  std::cout << "--- run took " << (steady::now() - started) / 1ms << " ms; " << killer.report()
            << std::endl;
  restart_killed(killer);

  BOOST_REQUIRE(killer.killed());
  BOOST_TEST(killer.after_kill() >= 1, "no run was committed after the kill");
  BOOST_TEST(run.exit_status == 0);
  BOOST_TEST(run.number("runs") == 20);
  BOOST_TEST(run.number("killed") == 1);

  // The job store itself: 4 jobs x 5 runs, each with exactly one effect and one email.
  examples::sqlite_db db(scratch.database("jobs.db"));
  BOOST_TEST(db.query_int64("SELECT COUNT(*) FROM effects") == 20);
  BOOST_TEST(db.query_int64("SELECT COUNT(*) FROM (SELECT DISTINCT job, due FROM effects)") == 20);
  BOOST_TEST(db.query_int64("SELECT COUNT(*) FROM (SELECT job FROM effects GROUP BY job"
                            " HAVING COUNT(*) = 5)") == 4);
  BOOST_TEST(db.query_int64("SELECT COUNT(*) FROM outbox") == 20);
  BOOST_TEST(db.query_int64("SELECT COUNT(*) FROM outbox o JOIN effects e"
                            " ON o.idempotency_key = e.job || '@' || e.due") == 20);
  // Each job's state names its last run.
  BOOST_TEST(db.query_int64("SELECT COUNT(*) FROM job_state j WHERE j.last_run ="
                            " (SELECT MAX(due) FROM effects e WHERE e.job = j.job)") == 4);
}
