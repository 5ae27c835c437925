// SPDX-License-Identifier: Apache-2.0
// The check-first multi of the fenced writes (recipe/fenced_outcome.hpp): one check per lock
// node ahead of the caller's ops, and the outcome as the caller sees it, for one lock and for
// the several of a multi-lock.
#include "recipe/fenced_outcome.hpp"

#define BOOST_TEST_MODULE fenced_outcome
#include <boost/test/unit_test.hpp>

#include <variant>

using namespace zkcoord;
using namespace zkcoord::detail;

namespace {

op_result with(error_code ec) {
  return op_result{ec, {}, {}};
}
error_code zk(zk_errc e) {
  return make_error_code(e);
}

}  // namespace

BOOST_AUTO_TEST_CASE(one_check_per_node_ahead_of_the_ops_in_order) {
  const auto all = fenced_ops({{"/l1/n", 0}, {"/l2/n", 3}}, {op::set{"/data", "x", -1}});
  BOOST_REQUIRE_EQUAL(all.size(), 3u);
  const auto* first = std::get_if<op::check>(&all[0]);
  const auto* second = std::get_if<op::check>(&all[1]);
  BOOST_REQUIRE(first);
  BOOST_REQUIRE(second);
  BOOST_TEST(first->path == "/l1/n");
  BOOST_TEST(first->version == 0);
  BOOST_TEST(second->path == "/l2/n");
  BOOST_TEST(second->version == 3);
  BOOST_TEST(std::holds_alternative<op::set>(all[2]));
}

BOOST_AUTO_TEST_CASE(success_leaves_only_the_callers_results) {
  std::vector<op_result> results{with({}), with({}), with({})};
  BOOST_TEST(!fenced_outcome({}, results, 2));
  BOOST_TEST(results.size() == 1u);
}

// Any of the checks failing on its own (gone or changed) means the lock was lost and nothing
// was written, whichever lock it was.
BOOST_AUTO_TEST_CASE(any_failed_check_is_lock_lost) {
  for (const auto failing : {zk_errc::no_node, zk_errc::bad_version}) {
    std::vector<op_result> second_lost{with(zk(zk_errc::runtime_inconsistency)), with(zk(failing)),
                                       with(zk(zk_errc::runtime_inconsistency))};
    BOOST_TEST(fenced_outcome(zk(failing), second_lost, 2) == errc::lock_lost);
    BOOST_TEST(second_lost.size() == 1u);
    std::vector<op_result> first_lost{with(zk(failing)), with(zk(zk_errc::runtime_inconsistency))};
    BOOST_TEST(fenced_outcome(zk(failing), first_lost, 1) == errc::lock_lost);
  }
}

// When the caller's own op fails the checks are only rolled back: the error is the op's.
BOOST_AUTO_TEST_CASE(a_failing_op_of_the_caller_is_its_own_error) {
  std::vector<op_result> results{with(zk(zk_errc::runtime_inconsistency)),
                                 with(zk(zk_errc::runtime_inconsistency)),
                                 with(zk(zk_errc::bad_version))};
  BOOST_TEST(fenced_outcome(zk(zk_errc::bad_version), results, 2) == zk_errc::bad_version);
  BOOST_REQUIRE_EQUAL(results.size(), 1u);
  BOOST_TEST(results.front().ec == zk_errc::bad_version);
}

// Connection loss, with or without per-op results, stays connection loss: outcome unknown.
BOOST_AUTO_TEST_CASE(connection_loss_stays_unknown) {
  std::vector<op_result> none;
  BOOST_TEST(fenced_outcome(zk(zk_errc::connection_loss), none, 2) == zk_errc::connection_loss);
  std::vector<op_result> copied{with(zk(zk_errc::connection_loss)),
                                with(zk(zk_errc::connection_loss)),
                                with(zk(zk_errc::connection_loss))};
  BOOST_TEST(fenced_outcome(zk(zk_errc::connection_loss), copied, 2) == zk_errc::connection_loss);
}
