// SPDX-License-Identifier: Apache-2.0
// Minority partition for the election (test/container/minority_partition.hpp): the leader's
// server is cut off from the quorum while the leader still reaches it. The leader sees
// suspended, then its term lost; the majority elects the other participant with a higher term
// token; the isolated leader's fenced writes (fenced.hpp, with the leadership handle alone) are
// rejected. The timeline is printed in the test log.
#define BOOST_TEST_MODULE election_minority_partition
#include <boost/test/unit_test.hpp>

#include "container/minority_partition.hpp"
#include "support/recipe_adapters.hpp"

BOOST_AUTO_TEST_CASE(leader_cut_off_from_the_quorum_loses_its_term_and_its_writes_are_fenced) {
  zkcoord::test::run_minority_partition<zkcoord::test::election_recipe>(
      {.owner = "leader",
       .grant = "elected",
       .what = "term",
       .path = "/elections/partition",
       .data = "/partition-data"});
}
