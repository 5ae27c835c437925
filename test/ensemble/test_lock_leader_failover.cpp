// SPDX-License-Identifier: Apache-2.0
// Test-matrix rows 6 and 16: the leader of a 3-node ensemble is killed (row 6) or SIGSTOPped
// for 1.5 T (row 16) while 6 clients contend on one lock, then restarted / resumed. Mutual
// exclusion through the fence holds, two holders at once only where the earlier holder's
// session had expired (judged per overlap) and an unfenced counter lost no more updates than
// such overlaps allow (support/fault_run_checks.hpp), tokens strictly increase and their epoch
// (czxid >> 32) rises with the new leader, grants resume within 2T + 10 s, and no lock node is
// left behind.
// A paused leader is the nastier case: it still holds its clients' TCP connections and, once
// resumed, still believes it leads until it hears otherwise.
#include <zkcoord/lock.hpp>

#include <zkcoord/testing/ensemble.hpp>

#define BOOST_TEST_MODULE lock_leader_failover
#include <boost/test/unit_test.hpp>

#include "support/fault_run_checks.hpp"
#include "support/leader_faults.hpp"

#include <thread>

using namespace zkcoord;
using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

namespace {

constexpr auto timeout = 8000ms;

// Runs the contention, applies `fault` to the leader (it returns once the ensemble may recover
// the member again, which `recover` then does), and checks everything above.
template <class Fault, class Recover>
void leader_fault_under_load(const char* what, Fault fault, Recover recover) {
  testing::ensemble zk;
  test::io_thread io;
  test::fence_store store;
  const std::string path = "/locks/failover";
  // Fenced reads: a session that expires during the election must not cost an update.
  test::lock_contention run(io.executor(), store,
                            {.connect = zk.connect_string(),
                             .lock_path = path,
                             .clients = 6,
                             .session_timeout = timeout,
                             .max_critical_section = 20ms,
                             .fenced_read = true});
  run.start();
  std::this_thread::sleep_for(5s);
  const auto before = run.grants();
  BOOST_REQUIRE(!before.empty());
  const auto old_epoch = fencing_token(before.back().token).epoch();

  const std::size_t leader = zk.wait_for_leader(30s);
  const auto killed_at = steady::now();
  BOOST_TEST_MESSAGE(what << " leader " << leader << " at grant " << before.size());
  fault(zk, leader);
  recover(zk, leader);
  std::this_thread::sleep_for(5s);
  BOOST_REQUIRE_MESSAGE(run.stop(60s), "a client loop did not finish");

  const auto grants = run.grants();
  const auto resumed = std::find_if(grants.begin(), grants.end(), [&](const auto& g) {
    return g.granted > killed_at && fencing_token(g.token).epoch() > old_epoch;
  });
  BOOST_REQUIRE_MESSAGE(resumed != grants.end(), "no grant in a later epoch after the fault");
  const auto gap = resumed->granted - killed_at;
  BOOST_TEST_MESSAGE("grants resumed " << gap / 1ms << " ms after the fault, epoch " << old_epoch
                                       << " -> " << fencing_token(resumed->token).epoch());
  BOOST_TEST((gap <= 2 * timeout + 10s));
  BOOST_TEST((grants.back().granted > resumed->granted));  // and went on after the restart

  test::check_fenced_run(run, store);
  for (const auto& f : run.failures()) BOOST_TEST_MESSAGE("client " << f.client << ": " << f.what);
  BOOST_TEST_MESSAGE("grants=" << grants.size() << " overlaps=" << run.overlaps() << " rejected="
                               << store.rejected() << " refused reads=" << run.refused_reads());
  test::check_no_node_left(io.executor(), zk.connect_string(), path);
  run.close_all();
}

}  // namespace

BOOST_AUTO_TEST_CASE(leader_killed_under_load_then_restarted) {
  leader_fault_under_load("killed", test::kill_leader, test::restart_leader);
}

BOOST_AUTO_TEST_CASE(leader_paused_for_one_and_a_half_session_timeouts) {
  leader_fault_under_load("paused", test::pause_leader_for(timeout), test::resume_leader);
}
