// SPDX-License-Identifier: Apache-2.0
// Lock-node sequence parsing and contender order: Curator and kazoo names, non-lock children,
// the 32-bit overflow of ZooKeeper's counter, predecessor choice.
#include "recipe/contender_queue.hpp"
#include "recipe/sequence.hpp"

#define BOOST_TEST_MODULE lock_sequence
#include <boost/test/unit_test.hpp>

#include <random>

using zkcoord::detail::contender_queue;
using zkcoord::detail::parse_lock_sequence;

namespace {

std::vector<std::string> names_in_order(const contender_queue& queue) {
  std::vector<std::string> names;
  for (const auto& node : queue.nodes()) names.push_back(node.name);
  return names;
}

}  // namespace

BOOST_AUTO_TEST_CASE(parses_curator_and_kazoo_suffixes) {
  BOOST_TEST(parse_lock_sequence("_c_0f3e-lock-0000000042").value() == 42);
  BOOST_TEST(parse_lock_sequence("lock-0000000000").value() == 0);
  BOOST_TEST(parse_lock_sequence("f00d__lock__0000000007").value() == 7);
  BOOST_TEST(parse_lock_sequence("_c_x-lock-2147483647").value() == 2147483647);
}

BOOST_AUTO_TEST_CASE(parses_overflowed_negative_suffixes) {
  // ZooKeeper's "%010d" of a negative cversion: sign included in the width, or 11 characters.
  BOOST_TEST(parse_lock_sequence("_c_x-lock--000000005").value() == -5);
  BOOST_TEST(parse_lock_sequence("_c_x-lock--2147483648").value() == -2147483648);
  BOOST_TEST(parse_lock_sequence("_c_x-lock--1000000000").value() == -1000000000);
  BOOST_TEST(parse_lock_sequence("k__lock__-000000001").value() == -1);
}

BOOST_AUTO_TEST_CASE(rejects_names_that_are_not_lock_nodes) {
  const char* not_lock_nodes[] = {
      "",
      "config",
      "lock-",
      "lock-123",               // too short
      "lock-00000000001",       // 11 digits without a sign
      "lock-000000000a",        // not a digit
      "lock-+000000001",        // '+' is never written
      "lock--00000000001",      // 11 characters but below -999999999 needs 10 digits
      "lock--2147483649",       // out of int32 range
      "lock-9999999999",        // out of int32 range
      "_c_x-lease-0000000001",  // another recipe
      "__rlock__0000000001",    // kazoo read lock: not an exclusive-lock contender
  };
  for (const char* name : not_lock_nodes) {
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST(!parse_lock_sequence(name).has_value());
    }
  }
}

BOOST_AUTO_TEST_CASE(orders_by_sequence_not_by_name) {
  // The uuid prefixes would sort the other way round as strings.
  const contender_queue queue(
      {"_c_ffff-lock-0000000003", "_c_aaaa-lock-0000000010", "_c_0000-lock-0000000007"});
  BOOST_TEST(names_in_order(queue) ==
                 (std::vector<std::string>{"_c_ffff-lock-0000000003", "_c_0000-lock-0000000007",
                                           "_c_aaaa-lock-0000000010"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(mixes_kazoo_and_curator_contenders_and_skips_other_children) {
  const contender_queue queue(
      {"readme", "k1__lock__0000000005", "_c_a-lock-0000000004", "leases", "_c_b-lock-0000000006"});
  BOOST_TEST(names_in_order(queue) ==
                 (std::vector<std::string>{"_c_a-lock-0000000004", "k1__lock__0000000005",
                                           "_c_b-lock-0000000006"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(nodes_created_after_the_overflow_sort_last) {
  const contender_queue queue({"_c_new2-lock--2147483647", "_c_old-lock-2147483646",
                          "_c_new1-lock--2147483648", "_c_old2-lock-2147483647"});
  BOOST_TEST(names_in_order(queue) ==
                 (std::vector<std::string>{"_c_old-lock-2147483646", "_c_old2-lock-2147483647",
                                           "_c_new1-lock--2147483648", "_c_new2-lock--2147483647"}),
             boost::test_tools::per_element());
  BOOST_TEST(queue.predecessor_of("_c_new1-lock--2147483648").value() == "_c_old2-lock-2147483647");
}

BOOST_AUTO_TEST_CASE(small_negatives_before_zero_sort_numerically) {
  // The counter kept running through the negative half and back to zero.
  const contender_queue queue({"_c_b-lock-0000000001", "_c_a-lock--000000002", "_c_c-lock-0000000000"});
  BOOST_TEST(names_in_order(queue) ==
                 (std::vector<std::string>{"_c_a-lock--000000002", "_c_c-lock-0000000000",
                                           "_c_b-lock-0000000001"}),
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(all_negative_after_the_overflow_sort_numerically) {
  const contender_queue queue({"_c_b-lock--2147483600", "_c_a-lock--2147483648"});
  BOOST_TEST(queue.position_of("_c_a-lock--2147483648").value() == 0u);
}

BOOST_AUTO_TEST_CASE(position_and_predecessor) {
  const contender_queue queue({"_c_c-lock-0000000009", "_c_a-lock-0000000001", "_c_b-lock-0000000004"});
  BOOST_TEST(queue.position_of("_c_a-lock-0000000001").value() == 0u);
  BOOST_TEST(queue.position_of("_c_c-lock-0000000009").value() == 2u);
  BOOST_TEST(!queue.position_of("_c_z-lock-0000000002").has_value());
  BOOST_TEST(!queue.predecessor_of("_c_a-lock-0000000001").has_value());
  BOOST_TEST(queue.predecessor_of("_c_c-lock-0000000009").value() == "_c_b-lock-0000000004");
  BOOST_TEST(!queue.predecessor_of("config").has_value());
  BOOST_TEST(contender_queue({}).empty());
}

BOOST_AUTO_TEST_CASE(order_does_not_depend_on_listing_order) {
  // Fuzz: any window of < 2^31 consecutive counter values, around the overflow or not, in any
  // listing order, comes out in creation order.
  std::mt19937 random(7);
  for (int round = 0; round < 500; ++round) {
    const std::uint32_t first = round % 2 ? 0x7fffff00u + random() % 0x200 : random();
    std::vector<std::string> created;
    for (std::uint32_t k = 0; k < 20; ++k) {
      const auto seq = static_cast<std::int32_t>(first + 2 * k);
      char suffix[16];
      std::snprintf(suffix, sizeof suffix, seq < 0 ? "-%09lld" : "%010lld",
                    seq < 0 ? -static_cast<long long>(seq) : static_cast<long long>(seq));
      created.push_back("_c_" + std::to_string(k) + "-lock-" + suffix);
    }
    auto listed = created;
    std::shuffle(listed.begin(), listed.end(), random);
    BOOST_TEST_CONTEXT("first " << first) {
      const contender_queue queue(listed);
      BOOST_TEST(names_in_order(queue) == created, boost::test_tools::per_element());
      // Every waiter finds itself (a binary search on the same ring order) ...
      for (std::size_t k = 0; k < created.size(); ++k)
        BOOST_TEST(queue.position_of(created[k]).value() == k);
      // ... and a name with a listed sequence but another prefix is not a contender here.
      BOOST_TEST(!queue.position_of("_c_x" + created[3].substr(created[3].find('-'))));
    }
  }
}
