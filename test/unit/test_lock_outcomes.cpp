// SPDX-License-Identifier: Apache-2.0
// Pure pieces behind fenced writes and async_contenders: the check-first multi and its
// outcome, and the contender list built from children and their data.
#include "lock/contender_list.hpp"
#include "recipe/fenced_outcome.hpp"

#define BOOST_TEST_MODULE lock_outcomes
#include <boost/test/unit_test.hpp>

#include <zkcoord/fenced.hpp>

using namespace zkcoord;
using namespace zkcoord::detail;

namespace {

op_result result(error_code ec) {
  return op_result{ec, {}, {}};
}
error_code zk(zk_errc e) {
  return make_error_code(e);
}

node_data data_of(std::string data, zxid czxid, std::int64_t owner, std::int64_t ctime_ms) {
  node_data d;
  d.data = std::move(data);
  d.stat.czxid = czxid;
  d.stat.ephemeral_owner = owner;
  d.stat.ctime = ctime_ms;
  return d;
}

}  // namespace

BOOST_AUTO_TEST_CASE(fenced_ops_put_our_check_first) {
  const auto ops = fenced_ops({{"/l/_c_a-lock-0000000001", 0}},
                              {op::set{"/data", "x", any_version}, op::remove{"/old", 3}});
  BOOST_REQUIRE_EQUAL(ops.size(), 3u);
  const auto* check = std::get_if<op::check>(&ops[0]);
  BOOST_REQUIRE(check);
  BOOST_TEST(check->path == "/l/_c_a-lock-0000000001");
  BOOST_TEST(check->version == 0);
  BOOST_TEST(std::get<op::set>(ops[1]).path == "/data");
  BOOST_TEST(std::get<op::remove>(ops[2]).version == 3);
}

BOOST_AUTO_TEST_CASE(success_drops_the_check_result) {
  std::vector<op_result> results{result({}), result({}), result({})};
  results[1].path = "/created";
  BOOST_TEST(!fenced_outcome({}, results, 1));
  BOOST_REQUIRE_EQUAL(results.size(), 2u);
  BOOST_TEST(results[0].path == "/created");
}

BOOST_AUTO_TEST_CASE(failed_check_is_lock_lost) {
  for (auto e : {zk_errc::no_node, zk_errc::bad_version}) {
    std::vector<op_result> results{result(zk(e)), result(zk(zk_errc::runtime_inconsistency))};
    BOOST_TEST(fenced_outcome(zk(e), results, 1) == make_error_code(errc::lock_lost));
    BOOST_TEST(results.size() == 1u);
  }
}

BOOST_AUTO_TEST_CASE(failure_of_a_user_op_is_reported_as_is) {
  std::vector<op_result> results{result(zk(zk_errc::runtime_inconsistency)),
                                 result(zk(zk_errc::bad_version))};
  BOOST_TEST(fenced_outcome(zk(zk_errc::bad_version), results, 1) == zk(zk_errc::bad_version));
  BOOST_TEST(results.front().ec == zk(zk_errc::bad_version));
}

// The C client fills every op's result with the connection loss when the connection drops
// with the multi in flight: it may have been applied, so it is no lock_lost ("nothing was
// written"). Found by ensemble_election_leader_failover's probe: a fenced set sent while the
// server was down came back lock_lost while the handle still owned the lock.
BOOST_AUTO_TEST_CASE(connection_loss_in_every_result_stays_outcome_unknown) {
  for (auto e : {zk_errc::connection_loss, zk_errc::operation_timeout, zk_errc::session_expired}) {
    std::vector<op_result> results{result(zk(e)), result(zk(e))};
    const error_code outcome = fenced_outcome(zk(e), results, 1);
    BOOST_TEST(outcome == zk(e));
    BOOST_TEST(outcome != make_error_code(errc::lock_lost));
    BOOST_TEST(results.size() == 1u);
  }
}

BOOST_AUTO_TEST_CASE(no_results_keeps_the_error) {
  std::vector<op_result> results;
  BOOST_TEST(
      (fenced_outcome(zk(zk_errc::connection_loss), results, 1) == condition::connection_loss));
}

// A multi-lock's fenced write checks each of its nodes, in order, ahead of the caller's ops.
BOOST_AUTO_TEST_CASE(fenced_ops_check_every_node_of_a_multi_lock_in_order) {
  const auto ops = fenced_ops({{"/l1/n", 0}, {"/l2/n", 3}}, {op::set{"/data", "x", any_version}});
  BOOST_REQUIRE_EQUAL(ops.size(), 3u);
  BOOST_TEST(std::get<op::check>(ops[0]).path == "/l1/n");
  BOOST_TEST(std::get<op::check>(ops[1]).path == "/l2/n");
  BOOST_TEST(std::get<op::check>(ops[1]).version == 3);
  BOOST_TEST(std::holds_alternative<op::set>(ops[2]));
}

// Whichever of the checks failed on its own, the multi-lock was lost and nothing was written;
// the caller sees only its own ops' results.
BOOST_AUTO_TEST_CASE(any_failed_check_of_a_multi_lock_is_lock_lost) {
  for (auto e : {zk_errc::no_node, zk_errc::bad_version}) {
    std::vector<op_result> results{result(zk(zk_errc::runtime_inconsistency)), result(zk(e)),
                                   result(zk(zk_errc::runtime_inconsistency))};
    BOOST_TEST(fenced_outcome(zk(e), results, 2) == make_error_code(errc::lock_lost));
    BOOST_TEST(results.size() == 1u);
  }
  std::vector<op_result> ok{result({}), result({}), result({})};
  BOOST_TEST(!fenced_outcome({}, ok, 2));
  BOOST_TEST(ok.size() == 1u);
}

BOOST_AUTO_TEST_CASE(contenders_in_grant_order_with_holder_first) {
  const auto now = std::chrono::system_clock::time_point(std::chrono::milliseconds(100'000));
  const std::map<std::string, node_data> read{
      {"_c_b-lock-0000000002", data_of("host=h2;pid=22;app=jobs", 0x102, 0xb, 99'000)},
      {"_c_a-lock-0000000001", data_of("host=h1;pid=11;app=jobs", 0x101, 0xa, 90'000)},
      {"kz__lock__0000000003", data_of("worker-7", 0x103, 0xc, 100'500)},
  };
  const auto list = make_contenders(
      {"kz__lock__0000000003", "config", "_c_b-lock-0000000002", "_c_a-lock-0000000001"}, read,
      now);
  BOOST_REQUIRE_EQUAL(list.size(), 3u);
  BOOST_TEST(list[0].node == "_c_a-lock-0000000001");
  BOOST_TEST(list[0].holder);
  BOOST_TEST(list[0].token.value() == 0x101);
  BOOST_TEST(list[0].session_id == 0xa);
  BOOST_TEST(list[0].host == "h1");
  BOOST_TEST(list[0].pid == 11);
  BOOST_TEST(list[0].app_id == "jobs");
  BOOST_TEST(list[0].age.count() == 10'000);
  BOOST_TEST(!list[1].holder);
  BOOST_TEST(list[2].app_id == "worker-7");  // kazoo's identifier
  BOOST_TEST(list[2].age.count() == 0);      // server clock ahead: clamped
}

BOOST_AUTO_TEST_CASE(vanished_contenders_are_left_out_and_the_next_holds) {
  const std::map<std::string, node_data> read{{"_c_b-lock-0000000002", data_of("", 0x102, 0xb, 0)}};
  const auto list = make_contenders({"_c_a-lock-0000000001", "_c_b-lock-0000000002"}, read,
                                    std::chrono::system_clock::now());
  BOOST_REQUIRE_EQUAL(list.size(), 1u);
  BOOST_TEST(list[0].node == "_c_b-lock-0000000002");
  BOOST_TEST(list[0].holder);
}

BOOST_AUTO_TEST_CASE(readers_ahead_of_every_writer_all_hold) {
  // Curator's read-write lock layout: two readers, a writer, then a reader behind the writer.
  const std::vector<std::string> children{"_c_a-__READ__0000000001", "_c_b-__READ__0000000002",
                                          "_c_c-__WRIT__0000000003", "_c_d-__READ__0000000004"};
  std::map<std::string, node_data> read;
  for (const auto& name : children) read.emplace(name, data_of("", 1, 1, 0));
  const auto list = make_contenders(children, read, std::chrono::system_clock::now());
  BOOST_REQUIRE_EQUAL(list.size(), 4u);
  BOOST_TEST(list[0].holder);
  BOOST_TEST(list[1].holder);
  BOOST_TEST(!list[2].holder);  // the writer waits for both readers
  BOOST_TEST(!list[3].holder);  // a reader behind a writer waits for it
}

BOOST_AUTO_TEST_CASE(a_writer_first_holds_alone) {
  const std::vector<std::string> children{"_c_c-__WRIT__0000000001", "_c_a-__READ__0000000002"};
  std::map<std::string, node_data> read;
  for (const auto& name : children) read.emplace(name, data_of("", 1, 1, 0));
  const auto list = make_contenders(children, read, std::chrono::system_clock::now());
  BOOST_REQUIRE_EQUAL(list.size(), 2u);
  BOOST_TEST(list[0].holder);
  BOOST_TEST(!list[1].holder);
}
