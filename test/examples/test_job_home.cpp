// SPDX-License-Identifier: Apache-2.0
// The job coordinator's rendezvous hashing (examples/job_coordinator/home.*), without a server:
// every process agrees, the jobs spread evenly, and a member that leaves (or joins) moves only
// the jobs it held (or takes).
#include "job_coordinator/home.hpp"

#define BOOST_TEST_MODULE unit_job_home
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>
#include <random>

using job_coordinator::home_of;

namespace {

std::vector<std::string> workers(int n) {
  std::vector<std::string> ids;
  for (int i = 1; i <= n; ++i) ids.push_back("worker-" + std::to_string(i));
  return ids;
}

std::string job(int i) {
  return "job-" + std::to_string(i);
}

std::map<std::string, int> homes_per_member(int jobs, const std::vector<std::string>& members) {
  std::map<std::string, int> count;
  for (const auto& m : members) count[m] = 0;
  for (int j = 1; j <= jobs; ++j) ++count[*home_of(job(j), members)];
  return count;
}

}  // namespace

BOOST_AUTO_TEST_CASE(no_members_no_home_and_one_member_is_everyones_home) {
  BOOST_TEST(!home_of("job-1", {}).has_value());
  BOOST_TEST(*home_of("job-1", {"only"}) == "only");
}

BOOST_AUTO_TEST_CASE(the_home_does_not_depend_on_the_order_of_the_members) {
  auto members = workers(7);
  std::mt19937 shuffle_seed(15);
  for (int j = 1; j <= 200; ++j) {
    const auto expected = home_of(job(j), members);
    auto shuffled = members;
    std::shuffle(shuffled.begin(), shuffled.end(), shuffle_seed);
    BOOST_TEST(home_of(job(j), shuffled).value() == expected.value());
  }
}

// The weights are a fixed function of the bytes (not std::hash, which may differ between
// builds): workers built separately, or of two versions during a rolling upgrade, must agree.
// The pinned value was computed once; changing the hash moves every job.
BOOST_AUTO_TEST_CASE(the_weights_are_the_same_in_every_process) {
  BOOST_TEST(job_coordinator::rendezvous_weight("worker-1", "job-1") ==
             job_coordinator::rendezvous_weight(std::string("worker-1"), std::string("job-1")));
  BOOST_TEST(job_coordinator::rendezvous_weight("ab", "c") !=
             job_coordinator::rendezvous_weight("a", "bc"));
  BOOST_TEST(job_coordinator::rendezvous_weight("worker-1", "job-1") == 0xf726b73930450adcULL);
}

BOOST_AUTO_TEST_CASE(jobs_spread_evenly_over_the_members) {
  for (const int n : {2, 4, 10}) {
    BOOST_TEST_CONTEXT(n << " members") {
      const int jobs = 10000;
      const double even = double(jobs) / n;
      for (const auto& [member, count] : homes_per_member(jobs, workers(n))) {
        BOOST_TEST_CONTEXT(member) {
          BOOST_TEST(count > 0.9 * even);
          BOOST_TEST(count < 1.1 * even);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_member_that_leaves_moves_only_its_own_jobs_spread_over_the_rest) {
  const auto all = workers(5);
  for (std::size_t leaving = 0; leaving < all.size(); ++leaving) {
    BOOST_TEST_CONTEXT(all[leaving] << " leaves") {
      auto rest = all;
      rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(leaving));
      std::map<std::string, int> moved_to;
      int moved = 0;
      const int jobs = 5000;
      for (int j = 1; j <= jobs; ++j) {
        const auto before = *home_of(job(j), all);
        const auto after = *home_of(job(j), rest);
        if (before == all[leaving]) {
          ++moved;
          ++moved_to[after];
        } else {
          BOOST_TEST(after == before);  // a job of a member that stays does not move
        }
      }
      BOOST_TEST(moved > 0);
      BOOST_TEST(moved_to.size() == rest.size());  // the leaver's jobs go to every survivor
      for (const auto& [member, count] : moved_to) {
        BOOST_TEST(count > 0.8 * moved / double(rest.size()), member);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_member_that_joins_takes_jobs_only_for_itself) {
  const auto before_members = workers(4);
  auto after_members = before_members;
  after_members.push_back("worker-5");
  int taken = 0;
  for (int j = 1; j <= 5000; ++j) {
    const auto before = *home_of(job(j), before_members);
    const auto after = *home_of(job(j), after_members);
    if (after != before) {
      BOOST_TEST(after == "worker-5");
      ++taken;
    }
  }
  BOOST_TEST(taken > 0.8 * 5000 / 5);
  BOOST_TEST(taken < 1.2 * 5000 / 5);
}

// The example's own shape (4 workers, 40 jobs): what the integration test's spread relies on.
BOOST_AUTO_TEST_CASE(forty_jobs_over_four_workers_are_within_twice_of_even) {
  for (const auto& [member, count] : homes_per_member(40, workers(4))) {
    BOOST_TEST_CONTEXT(member << " is home of " << count) {
      BOOST_TEST(count >= 5);
      BOOST_TEST(count <= 20);
    }
  }
}
