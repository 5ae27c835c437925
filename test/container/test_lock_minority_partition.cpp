// SPDX-License-Identifier: Apache-2.0
// Minority partition for the lock (test/container/minority_partition.hpp): the lock holder's
// server is cut off from the quorum while the holder still reaches it. The holder sees
// suspended, then lost; the majority grants the lock to another client with a higher token;
// the isolated holder's fenced writes are rejected. The timeline is printed in the test log.
#define BOOST_TEST_MODULE lock_minority_partition
#include <boost/test/unit_test.hpp>

#include "container/minority_partition.hpp"
#include "support/recipe_adapters.hpp"

BOOST_AUTO_TEST_CASE(holder_cut_off_from_the_quorum_loses_the_lock_and_its_writes_are_fenced) {
  zkcoord::test::run_minority_partition<zkcoord::test::lock_recipe>({.owner = "holder",
                                                                     .grant = "granted",
                                                                     .what = "lock",
                                                                     .path = "/locks/partition",
                                                                     .data = "/partition-data"});
}
