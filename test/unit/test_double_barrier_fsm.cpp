// SPDX-License-Identifier: Apache-2.0
// The double barrier's enter and leave decisions without a server: entering on `ready` or on
// enough members, waiting otherwise (a wake-up alone never enters, Curator GH-1290), our node
// gone, and the leave protocol (the lowest watches the highest, the others delete their own
// node and watch the lowest), played to the end for a whole group.
#include "barrier/double_barrier_fsm.hpp"

#define BOOST_TEST_MODULE double_barrier_fsm
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

using namespace zkcoord::detail::double_barrier_fsm;
using kind = leave_step::kind;
using names = std::vector<std::string>;

BOOST_AUTO_TEST_CASE(members_are_sorted_and_exclude_ready) {
  BOOST_TEST(members_of({"c", "ready", "a", "b"}) == (names{"a", "b", "c"}),
             boost::test_tools::per_element());
  BOOST_TEST(members_of({"ready"}).empty());
}

BOOST_AUTO_TEST_CASE(enter_waits_until_enough_members_then_creates_ready) {
  BOOST_TEST((decide_enter({"m1"}, "m1", 3) == enter_step::wait_for_ready));
  BOOST_TEST((decide_enter({"m1", "m2"}, "m2", 3) == enter_step::wait_for_ready));
  BOOST_TEST((decide_enter({"m1", "m2", "m3"}, "m2", 3) == enter_step::create_ready));
  // More members than expected (a late joiner of the last round): still enough.
  BOOST_TEST((decide_enter({"m1", "m2", "m3", "m4"}, "m4", 3) == enter_step::create_ready));
  BOOST_TEST((decide_enter({"m1"}, "m1", 1) == enter_step::create_ready));
}

BOOST_AUTO_TEST_CASE(ready_is_not_counted_as_a_member) {
  // Curator's old count included `ready` (Netflix/curator#99): two members and `ready` are not
  // three members, but `ready` itself means the barrier is open.
  BOOST_TEST((decide_enter({"m1", "ready"}, "m1", 3) == enter_step::entered));
  BOOST_TEST((decide_enter({"m1", "m2"}, "m1", 3) == enter_step::wait_for_ready));
}

BOOST_AUTO_TEST_CASE(a_wake_up_with_too_few_members_decides_wait_again) {
  // GH-1290: after a wake-up enter lists again; the listing, not the wake-up, decides. A
  // `ready` created and deleted again (or any other event) leaves too few members: wait.
  const names after_spurious_wake_up{"m1", "m2"};
  for (int wake_ups = 0; wake_ups < 3; ++wake_ups)
    BOOST_TEST((decide_enter(after_spurious_wake_up, "m1", 3) == enter_step::wait_for_ready));
}

BOOST_AUTO_TEST_CASE(enter_fails_when_our_node_is_gone) {
  BOOST_TEST((decide_enter({"m2", "m3"}, "m1", 2) == enter_step::our_node_missing));
  BOOST_TEST((decide_enter({"ready", "m2"}, "m1", 2) == enter_step::our_node_missing));
}

BOOST_AUTO_TEST_CASE(the_lowest_watches_the_highest) {
  BOOST_TEST((decide_leave({"b", "a", "c", "ready"}, "a", false) == leave_step{kind::watch, "c"}));
}

BOOST_AUTO_TEST_CASE(the_others_delete_their_own_node_and_watch_the_lowest) {
  BOOST_TEST(
      (decide_leave({"b", "a", "c"}, "b", false) == leave_step{kind::delete_mine_and_watch, "a"}));
  BOOST_TEST(
      (decide_leave({"b", "a", "c"}, "c", false) == leave_step{kind::delete_mine_and_watch, "a"}));
  // Once deleted, only watch the lowest.
  BOOST_TEST((decide_leave({"a", "c"}, "b", true) == leave_step{kind::watch, "a"}));
}

BOOST_AUTO_TEST_CASE(the_last_member_deletes_its_own_node) {
  BOOST_TEST((decide_leave({"a", "ready"}, "a", false) == leave_step{kind::delete_mine_done, {}}));
  BOOST_TEST((decide_leave({"ready"}, "a", true) == leave_step{kind::done, {}}));
  BOOST_TEST((decide_leave({}, "a", true) == leave_step{kind::done, {}}));
  // A non-lowest member that left is done once only the lowest remains.
  BOOST_TEST((decide_leave({"a"}, "b", true) == leave_step{kind::done, {}}));
}

BOOST_AUTO_TEST_CASE(leave_fails_when_our_node_vanished_before_we_deleted_it) {
  BOOST_TEST((decide_leave({"a", "c"}, "b", false) == leave_step{kind::our_node_missing, {}}));
  BOOST_TEST((decide_leave({"a"}, "b", false) == leave_step{kind::our_node_missing, {}}));
  // Nothing left at all: nobody to wait for (Curator breaks out here too).
  BOOST_TEST((decide_leave({}, "b", false) == leave_step{kind::done, {}}));
}

// Plays a whole group's leave against a model of the server: each member acts on the children
// it lists, deletions happen, and a member blocked on a watch runs again only once the node it
// watches is gone. Every member must finish and every node be deleted, in any order of turns.
BOOST_AUTO_TEST_CASE(a_whole_group_leaves_in_any_order_of_turns) {
  for (unsigned seed = 0; seed < 200; ++seed) {
    const names group{"m0", "m1", "m2", "m3", "m4"};
    std::set<std::string> server(group.begin(), group.end());
    server.insert("ready");
    std::map<std::string, bool> deleted, finished;
    std::map<std::string, std::string> waiting_on;  // member -> node it watches
    unsigned state = seed * 2654435761u + 1;
    for (int turn = 0; turn < 1000; ++turn) {
      names runnable;
      for (const auto& m : group) {
        if (finished[m]) continue;
        auto w = waiting_on.find(m);
        if (w != waiting_on.end() && server.count(w->second)) continue;
        runnable.push_back(m);
      }
      if (runnable.empty()) break;
      state = state * 1103515245u + 12345u;
      const std::string me = runnable[(state >> 16) % runnable.size()];
      waiting_on.erase(me);
      const leave_step step = decide_leave(names(server.begin(), server.end()), me, deleted[me]);
      BOOST_TEST_REQUIRE((step.what != kind::our_node_missing), "seed " << seed << " " << me);
      switch (step.what) {
        case kind::done:
          finished[me] = true;
          server.erase("ready");
          break;
        case kind::delete_mine_done:
          server.erase(me);
          deleted[me] = finished[me] = true;
          server.erase("ready");
          break;
        case kind::delete_mine_and_watch:
          server.erase(me);
          deleted[me] = true;
          [[fallthrough]];
        case kind::watch:
          BOOST_TEST_REQUIRE(step.node != me);
          waiting_on[me] = step.node;
          break;
        case kind::our_node_missing:
          break;
      }
    }
    for (const auto& m : group) BOOST_TEST_REQUIRE(finished[m], "seed " << seed << ": " << m);
    BOOST_TEST_REQUIRE(server.empty(), "seed " << seed);
  }
}
