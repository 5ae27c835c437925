// SPDX-License-Identifier: Apache-2.0
// The grant policies without I/O: for each recipe (exclusive lock, election, write lock, read
// lock), who holds and which one node a waiter watches, over Curator, kazoo and zkcoord names,
// listings in any order, sequences across the 32-bit overflow, and paths holding another
// recipe's nodes. Each case states the answer by hand.
#include "recipe/grant_policy.hpp"

#define BOOST_TEST_MODULE grant_policy
#include <boost/test/unit_test.hpp>

#include "contender_fsm_test_support.hpp"
#include "recipe/contender_queue.hpp"
#include "recipe/node_name.hpp"

#include <algorithm>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

using namespace zkcoord::detail;
using zkcoord::detail::testing::sequence_suffix;
using outcome = grant_policy::verdict::outcome;

namespace zkcoord::detail {
std::ostream& operator<<(std::ostream& os, outcome o) {
  switch (o) {
    case outcome::granted:
      return os << "granted";
    case outcome::wait:
      return os << "wait";
    case outcome::wait_for_change:
      return os << "wait_for_change";
    case outcome::not_listed:
      return os << "not_listed";
    case outcome::recipe_mismatch:
      return os << "recipe_mismatch";
  }
  return os << "?";
}
}  // namespace zkcoord::detail

namespace {

constexpr std::int32_t max_sequence = 2147483647;
constexpr std::int32_t min_sequence = -2147483647 - 1;

// Curator's protected names (zkcoord writes the same): "_c_<uuid>-<marker><sequence>".
std::string curator(const std::string& uuid, node_kind kind, std::int32_t seq) {
  return protected_node_prefix(uuid, kind) + sequence_suffix(seq);
}
std::string lock(const std::string& uuid, std::int32_t seq) {
  return curator(uuid, node_kind::lock, seq);
}
std::string latch(const std::string& uuid, std::int32_t seq) {
  return curator(uuid, node_kind::latch, seq);
}
std::string reader(const std::string& uuid, std::int32_t seq) {
  return curator(uuid, node_kind::read, seq);
}
std::string writer(const std::string& uuid, std::int32_t seq) {
  return curator(uuid, node_kind::write, seq);
}
std::string lease(const std::string& uuid, std::int32_t seq) {
  return curator(uuid, node_kind::lease, seq);
}
// kazoo's Lock: "<uuid hex>__lock__<sequence>".
std::string kazoo(const std::string& id, std::int32_t seq) {
  return id + "__lock__" + sequence_suffix(seq);
}

struct decide_case {
  std::string name;
  grant_policy policy;
  std::vector<std::string> children;  // as the server lists them: in no particular order
  std::string own;
  outcome expected;
  std::string blocker = {};  // for wait
};

void check(const decide_case& c) {
  BOOST_TEST_CONTEXT(c.name) {
    const contender_queue queue(c.children);
    const auto verdict = c.policy.decide(queue, c.own);
    BOOST_TEST(verdict.result == c.expected);
    BOOST_TEST(verdict.blocker == c.blocker);
  }
}

// One case per node of another recipe next to ours (its sequence puts it ahead or behind).
std::vector<decide_case> mismatches(const std::string& policy_name, grant_policy policy,
                                    const std::string& own,
                                    const std::vector<std::string>& others) {
  std::vector<decide_case> cases;
  for (const auto& other : others) {
    cases.push_back({policy_name + ": another recipe's node " + other,
                     policy,
                     {other, own},
                     own,
                     outcome::recipe_mismatch});
  }
  return cases;
}

}  // namespace

BOOST_AUTO_TEST_CASE(exclusive_lock) {
  const auto p = grant_policy::exclusive_lock();
  const decide_case cases[] = {
      {"alone: granted", p, {lock("own", 5)}, lock("own", 5), outcome::granted},
      {"first of Curator, kazoo and zkcoord names wins",
       p,
       {kazoo("9f3c", 7), lock("b", 9), lock("own", 3)},
       lock("own", 3),
       outcome::granted},
      {"waits for the node just ahead, not the first",
       p,
       {lock("a", 1), lock("c", 8), lock("own", 9), lock("b", 4), lock("d", 12)},
       lock("own", 9),
       outcome::wait,
       lock("c", 8)},
      {"a kazoo contender just ahead is waited for",
       p,
       {lock("a", 1), kazoo("9f3c", 2), lock("own", 3)},
       lock("own", 3),
       outcome::wait,
       kazoo("9f3c", 2)},
      {"children that are no contender are ignored",
       p,
       {"config", "leases", "locks-0000000001", "_c_x-lock-12", lock("own", 3)},
       lock("own", 3),
       outcome::granted},
      {"past the overflow: 2^31 - 1 is ahead of -2^31",
       p,
       {lock("own", min_sequence), lock("a", max_sequence - 1), lock("b", max_sequence)},
       lock("own", min_sequence),
       outcome::wait,
       lock("b", max_sequence)},
      {"before the overflow: first although negative sequences exist",
       p,
       {lock("b", min_sequence), lock("own", max_sequence), lock("c", min_sequence + 1)},
       lock("own", max_sequence),
       outcome::granted},
      {"past the overflow: negative sequences in order",
       p,
       {lock("own", -2), lock("a", max_sequence - 40), lock("b", -3)},
       lock("own", -2),
       outcome::wait,
       lock("b", -3)},
      {"our node gone", p, {lock("a", 1), lock("b", 3)}, lock("own", 2), outcome::not_listed},
      {"our name is no contender", p, {lock("a", 1)}, "own-lock-12", outcome::not_listed},
      {"nothing listed", p, {}, lock("own", 1), outcome::not_listed},
  };
  for (const auto& c : cases) check(c);
  const auto own = lock("own", 5);
  for (const auto& c :
       mismatches("lock", p, own, {latch("x", 1), reader("x", 1), writer("x", 9), lease("x", 9)})) {
    check(c);
  }
}

BOOST_AUTO_TEST_CASE(election) {
  const auto p = grant_policy::election();
  const decide_case cases[] = {
      {"first latch leads", p, {latch("b", 4), latch("own", 2)}, latch("own", 2), outcome::granted},
      {"waits for the latch just ahead",
       p,
       {latch("a", 1), latch("own", 6), latch("c", 5), latch("b", 3), latch("d", 7)},
       latch("own", 6),
       outcome::wait,
       latch("c", 5)},
      {"past the overflow",
       p,
       {latch("own", min_sequence + 1), latch("a", max_sequence), latch("b", min_sequence)},
       latch("own", min_sequence + 1),
       outcome::wait,
       latch("b", min_sequence)},
      {"our node gone", p, {latch("a", 1)}, latch("own", 2), outcome::not_listed},
  };
  for (const auto& c : cases) check(c);
  const auto own = latch("own", 5);
  for (const auto& c : mismatches(
           "election", p, own,
           {lock("x", 1), kazoo("9f3c", 9), reader("x", 1), writer("x", 1), lease("x", 9)})) {
    check(c);
  }
}

BOOST_AUTO_TEST_CASE(write_lock) {
  const auto p = grant_policy::write_lock();
  const decide_case cases[] = {
      {"first wins", p, {reader("b", 2), writer("own", 1)}, writer("own", 1), outcome::granted},
      {"a reader ahead blocks a writer",
       p,
       {writer("own", 2), reader("a", 1)},
       writer("own", 2),
       outcome::wait,
       reader("a", 1)},
      {"waits for the node just ahead, reader or writer",
       p,
       {reader("c", 3), writer("a", 1), writer("own", 4), reader("b", 2)},
       writer("own", 4),
       outcome::wait,
       reader("c", 3)},
      {"a writer just ahead",
       p,
       {reader("a", 1), writer("b", 2), writer("own", 3)},
       writer("own", 3),
       outcome::wait,
       writer("b", 2)},
      {"past the overflow",
       p,
       {writer("own", min_sequence), reader("a", max_sequence)},
       writer("own", min_sequence),
       outcome::wait,
       reader("a", max_sequence)},
      {"our node gone", p, {reader("a", 1)}, writer("own", 2), outcome::not_listed},
  };
  for (const auto& c : cases) check(c);
  const auto own = writer("own", 5);
  for (const auto& c : mismatches("write lock", p, own,
                                  {lock("x", 1), kazoo("9f3c", 9), latch("x", 1), lease("x", 9)})) {
    check(c);
  }
}

BOOST_AUTO_TEST_CASE(read_lock) {
  const auto p = grant_policy::read_lock();
  const decide_case cases[] = {
      {"alone: granted", p, {reader("own", 1)}, reader("own", 1), outcome::granted},
      {"only readers ahead: granted",
       p,
       {reader("b", 2), reader("own", 3), reader("a", 1)},
       reader("own", 3),
       outcome::granted},
      {"a writer behind blocks nothing",
       p,
       {writer("a", 2), reader("own", 1), reader("b", 3)},
       reader("own", 1),
       outcome::granted},
      {"a writer ahead is waited for",
       p,
       {reader("own", 2), writer("a", 1)},
       reader("own", 2),
       outcome::wait,
       writer("a", 1)},
      {"waits for the nearest writer ahead, not the first nor the node just ahead",
       p,
       {reader("e", 5), writer("a", 1), reader("own", 6), writer("c", 3), reader("b", 2),
        reader("d", 4), writer("f", 7)},
       reader("own", 6),
       outcome::wait,
       writer("c", 3)},
      {"past the overflow: a writer at 2^31 - 1 is ahead",
       p,
       {reader("own", min_sequence + 1), reader("b", min_sequence), writer("a", max_sequence)},
       reader("own", min_sequence + 1),
       outcome::wait,
       writer("a", max_sequence)},
      {"before the overflow: a writer at -2^31 is behind",
       p,
       {writer("b", min_sequence), reader("own", max_sequence), reader("a", max_sequence - 1)},
       reader("own", max_sequence),
       outcome::granted},
      {"our node gone", p, {writer("a", 1)}, reader("own", 2), outcome::not_listed},
  };
  for (const auto& c : cases) check(c);
  const auto own = reader("own", 5);
  for (const auto& c : mismatches("read lock", p, own,
                                  {lock("x", 9), kazoo("9f3c", 1), latch("x", 9), lease("x", 1)})) {
    check(c);
  }
}

// A semaphore lease counts the children of the leases path, ours included, whatever their
// names and order; at most N children: granted, otherwise wait for any change.
BOOST_AUTO_TEST_CASE(semaphore) {
  const auto one = grant_policy::semaphore(1);
  const auto four = grant_policy::semaphore(4);
  const decide_case cases[] = {
      {"N=1, alone: granted", one, {lease("own", 5)}, lease("own", 5), outcome::granted},
      {"N=1, one other lease: wait for a change",
       one,
       {lease("own", 5), lease("a", 4)},
       lease("own", 5),
       outcome::wait_for_change},
      {"N=1, ours first but another lease exists: no ranking, still wait",
       one,
       {lease("a", 6), lease("own", 5)},
       lease("own", 5),
       outcome::wait_for_change},
      {"N=4, four leases, ours last: granted",
       four,
       {lease("a", 1), lease("b", 2), lease("own", 4), lease("c", 3)},
       lease("own", 4),
       outcome::granted},
      {"N=4, five leases: wait",
       four,
       {lease("a", 1), lease("b", 2), lease("own", 4), lease("c", 3), lease("d", 9)},
       lease("own", 4),
       outcome::wait_for_change},
      {"N=4, three leases and a stray child: the stray takes a lease",
       four,
       {lease("a", 1), "config", lease("own", 4), lease("c", 3), "x-lease-12"},
       lease("own", 4),
       outcome::wait_for_change},
      {"N=4, across the 32-bit overflow: counted the same",
       four,
       {lease("a", max_sequence), lease("own", min_sequence)},
       lease("own", min_sequence),
       outcome::granted},
      {"our lease is gone", four, {lease("a", 1)}, lease("own", 4), outcome::not_listed},
  };
  for (const auto& c : cases) check(c);
  for (const auto& c :
       mismatches("semaphore", four, lease("own", 5),
                  {lock("x", 4), kazoo("9f3c", 6), latch("y", 7), writer("z", 1)})) {
    check(c);
  }
  BOOST_TEST(four.max_holders() == 4u);
  BOOST_TEST(grant_policy::exclusive_lock().max_holders() == 1u);
  BOOST_TEST(grant_policy::read_lock().max_holders() == 0u);
}

// Every contender on a path gets the same recipe_mismatch, the holder included: none grants
// past a node it does not understand.
BOOST_AUTO_TEST_CASE(recipe_mismatch_for_every_contender) {
  const std::vector<std::string> children = {writer("a", 1), reader("b", 2), latch("x", 3),
                                             reader("c", 4)};
  for (const auto& own : {writer("a", 1), reader("b", 2), reader("c", 4)}) {
    const auto& policy =
        own == writer("a", 1) ? grant_policy::write_lock() : grant_policy::read_lock();
    check({"rw path with a latch, for " + own, policy, children, own, outcome::recipe_mismatch});
  }
}

BOOST_AUTO_TEST_CASE(what_each_policy_creates_and_understands) {
  struct row {
    const char* name;
    grant_policy policy;
    node_kind creates;
    bool shares;
    std::vector<node_kind> understood;
  };
  const row rows[] = {
      {"lock", grant_policy::exclusive_lock(), node_kind::lock, false, {node_kind::lock}},
      {"election", grant_policy::election(), node_kind::latch, false, {node_kind::latch}},
      {"write lock",
       grant_policy::write_lock(),
       node_kind::write,
       false,
       {node_kind::read, node_kind::write}},
      {"read lock",
       grant_policy::read_lock(),
       node_kind::read,
       true,
       {node_kind::read, node_kind::write}},
      {"semaphore", grant_policy::semaphore(3), node_kind::lease, true, {node_kind::lease}},
  };
  for (const auto& r : rows) {
    BOOST_TEST_CONTEXT(r.name) {
      BOOST_TEST((r.policy.creates() == r.creates));
      BOOST_TEST(r.policy.shares() == r.shares);
      for (int k = 0; k < node_kind_count; ++k) {
        const auto kind = static_cast<node_kind>(k);
        const bool expected =
            std::find(r.understood.begin(), r.understood.end(), kind) != r.understood.end();
        BOOST_TEST_CONTEXT("kind " << k) {
          BOOST_TEST(r.policy.understands(kind) == expected);
        }
      }
    }
  }
}
