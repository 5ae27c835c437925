// SPDX-License-Identifier: Apache-2.0
// The sound lease under a minority partition (docs/testing.md, "The lease under a minority
// partition"): a holder whose server is cut off from the quorum must stop believing in its
// lease before the majority grants the recipe to someone else. The cases come from the
// environment (test/container/lease_cases.hpp: by default 4, the full matrix with
// ZKCOORD_LEASE_MATRIX=full); one ensemble per (syncLimit, tickTime) serves all its cases, healed
// between them. Each case prints a timeline and a `lease-case` line (scripts/test-lease-matrix).
// With ZKCOORD_TEST_OLD_LEASE_RULE=1 the library (and the tool) use the old rule, and this test
// is expected to fail the bound in the follower cuts: it asserts the new contract either way.
#define BOOST_TEST_MODULE lease_partition
#include <boost/test/results_collector.hpp>
#include <boost/test/unit_test.hpp>

#include "container/lease_cases.hpp"
#include "container/lease_partition.hpp"
#include "container/lease_partition_cli.hpp"
#include "container/lease_report.hpp"
#include "support/recipe_adapters.hpp"

#include <iostream>
#include <memory>
#include <stdexcept>

namespace {

using namespace zkcoord::test;

void run_case(zkcoord::testing::container_ensemble& zk, io_thread& io, const lease_case& c,
              lease_figures& figures) {
  if (c.recipe == "lock") return run_recipe_lease_partition<lock_recipe>(zk, io, c, figures);
  if (c.recipe == "write_lock")
    return run_recipe_lease_partition<write_lock_recipe>(zk, io, c, figures);
  if (c.recipe == "election")
    return run_recipe_lease_partition<election_recipe>(zk, io, c, figures);
  if (c.recipe == "semaphore")
    return run_recipe_lease_partition<semaphore_recipe>(zk, io, c, figures);
  if (c.recipe == "cli") return run_cli_lease_partition(zk, io, c, figures);
  throw std::invalid_argument("no such lease case recipe: " + c.recipe);
}

std::size_t failed_assertions() {
  namespace ut = boost::unit_test;
  return ut::results_collector.results(ut::framework::current_test_case().p_id)
      .p_assertions_failed.get();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_cut_off_holders_lease_ends_before_the_majority_grants_again) {
  const auto cases = selected_lease_cases();
  io_thread io;
  std::unique_ptr<zkcoord::testing::container_ensemble> zk;
  bool ensemble_failed = false;
  // The members' logs of an ensemble on which a case failed, once, before it goes.
  auto retire = [&] {
    if (zk && ensemble_failed) zk->print_logs(std::cerr);
    zk.reset();
    ensemble_failed = false;
  };
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const lease_case& c = cases[i];
    if (i == 0 || !(c.config == cases[i - 1].config)) {
      retire();
      // maxSessionTimeout = tau: every client gets exactly the 4 s it asks for, at both ticks.
      zk = std::make_unique<zkcoord::testing::container_ensemble>(
          zkcoord::testing::container_options{.tick_time = c.config.tick,
                                              .sync_limit = c.config.sync_limit,
                                              .max_session_timeout = lease_session_timeout});
    }
    BOOST_TEST_CONTEXT(case_name(c)) {
      const auto failed_before = failed_assertions();
      lease_figures figures;
      try {
        run_case(*zk, io, c, figures);
      } catch (const std::exception& e) {
        // A harness error or a missed liveness bound ends this case only: the next one starts
        // from a healed ensemble (the cut guard healed it while unwinding).
        BOOST_ERROR("case " << case_name(c) << " stopped: " << e.what());
      } catch (...) {
        // A failed BOOST_REQUIRE (boost::execution_aborted, already counted as a failure).
        BOOST_TEST_MESSAGE("case " << case_name(c) << " stopped at a failed requirement");
      }
      const bool passed = failed_assertions() == failed_before;
      ensemble_failed = ensemble_failed || !passed;
      std::cout << lease_case_line(c, figures, passed) << std::endl;
    }
  }
  retire();
}
