// SPDX-License-Identifier: Apache-2.0
// Error codes: ZooKeeper's values kept distinct, messages, and the conditions callers test;
// and how a fencing token prints.
#include "session/c_types.hpp"
#include "zk_result.hpp"

#include <zkcoord/error.hpp>
#include <zkcoord/types.hpp>

#define BOOST_TEST_MODULE error
#include <boost/test/unit_test.hpp>

using namespace zkcoord;

BOOST_AUTO_TEST_CASE(zookeeper_codes_keep_the_c_client_values) {
  BOOST_TEST(from_zk_result(0).failed() == false);
  BOOST_TEST(from_zk_result(-4) == make_error_code(zk_errc::connection_loss));
  BOOST_TEST(from_zk_result(-101) == make_error_code(zk_errc::no_node));
  BOOST_TEST(from_zk_result(-102).value() == -102);
  BOOST_TEST(std::string(from_zk_result(-102).category().name()) == "zookeeper");
  BOOST_TEST(make_error_code(zk_errc::connection_loss) !=
             make_error_code(zk_errc::operation_timeout));
}

// A whole request failed with ZRUNTIMEINCONSISTENCY: the C client dropped the connection on a
// reply it could not match. The caller learns a connection loss (outcome unknown), and the
// completion proves no contact, like every other code that means no answer came.
BOOST_AUTO_TEST_CASE(a_dropped_connection_is_an_unanswered_request) {
  BOOST_TEST(from_request_result(-2) == make_error_code(zk_errc::connection_loss));
  BOOST_TEST(from_request_result(-2) == condition::connection_loss);
  BOOST_TEST(from_request_result(0).failed() == false);
  BOOST_TEST(from_request_result(-101) == make_error_code(zk_errc::no_node));
  BOOST_TEST(from_request_result(-116) == make_error_code(errc::closed));
  for (const int rc : {-2, -4, -7, -9, -112, -116}) BOOST_TEST(is_unanswered(rc), rc);
  for (const int rc : {0, -101, -102, -103, -110, -111, -118}) BOOST_TEST(!is_unanswered(rc), rc);
}

BOOST_AUTO_TEST_CASE(closing_maps_to_closed) {
  BOOST_TEST(from_zk_result(-116) == make_error_code(errc::closed));
}

BOOST_AUTO_TEST_CASE(connection_loss_condition_covers_both_unknown_outcomes) {
  BOOST_TEST(make_error_code(zk_errc::connection_loss) == condition::connection_loss);
  BOOST_TEST(make_error_code(zk_errc::operation_timeout) == condition::connection_loss);
  BOOST_TEST(make_error_code(zk_errc::no_node) != condition::connection_loss);
  BOOST_TEST(make_error_code(errc::timeout) != condition::connection_loss);
}

BOOST_AUTO_TEST_CASE(session_expired_condition) {
  BOOST_TEST(make_error_code(zk_errc::session_expired) == condition::session_expired);
  BOOST_TEST(make_error_code(zk_errc::connection_loss) != condition::session_expired);
}

struct permanence_case {
  error_code ec;
  bool permanent;
};

BOOST_AUTO_TEST_CASE(permanent_condition) {
  const permanence_case cases[] = {
      {make_error_code(zk_errc::no_auth), true},
      {make_error_code(zk_errc::invalid_acl), true},
      {make_error_code(zk_errc::no_children_for_ephemerals), true},
      {make_error_code(zk_errc::bad_arguments), true},
      {make_error_code(errc::bad_path), true},
      {make_error_code(errc::bad_connect_string), true},
      {make_error_code(errc::data_too_large), true},
      {make_error_code(zk_errc::connection_loss), false},
      {make_error_code(zk_errc::operation_timeout), false},
      {make_error_code(zk_errc::session_expired), false},
      {make_error_code(zk_errc::node_exists), false},
      {make_error_code(errc::lock_lost), false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.ec.message()) {
      BOOST_TEST((c.ec == condition::permanent) == c.permanent);
    }
  }
}

BOOST_AUTO_TEST_CASE(every_code_has_a_message) {
  for (int v = -127; v <= -1; ++v)
    BOOST_TEST(!make_error_code(static_cast<zk_errc>(v)).message().empty());
  BOOST_TEST(make_error_code(errc::lock_lost).message() == "the lock was lost");
  BOOST_TEST(std::string(make_error_code(errc::lock_lost).category().name()) == "zkcoord");
  BOOST_TEST(make_error_code(errc::already_registered).message().find("member id") !=
             std::string::npos);
  // It frees once the other session ends: not permanent.
  BOOST_TEST(make_error_code(errc::already_registered) != condition::permanent);
}

struct condition_case {
  error_code ec;
  condition matches;
};

BOOST_AUTO_TEST_CASE(callers_test_conditions_not_numbers) {
  const condition_case cases[] = {
      {make_error_code(zk_errc::no_node), condition::not_found},
      {make_error_code(zk_errc::node_exists), condition::already_exists},
      {make_error_code(errc::already_registered), condition::already_exists},
      {make_error_code(zk_errc::bad_version), condition::version_conflict},
      {make_error_code(zk_errc::no_auth), condition::access_denied},
      {make_error_code(zk_errc::auth_failed), condition::access_denied},
      {make_error_code(errc::lock_lost), condition::ownership_lost},
      {make_error_code(errc::timeout), condition::timed_out},
      {make_error_code(errc::bad_path), condition::invalid_argument},
      {make_error_code(errc::bad_connect_string), condition::invalid_argument},
      {make_error_code(zk_errc::invalid_acl), condition::invalid_argument},
      {make_error_code(errc::unreachable), condition::unavailable},
      {make_error_code(errc::unknown_host), condition::unavailable},
  };
  const condition all[] = {condition::connection_loss,  condition::session_expired,
                           condition::not_found,        condition::already_exists,
                           condition::version_conflict, condition::access_denied,
                           condition::ownership_lost,   condition::timed_out,
                           condition::invalid_argument, condition::unavailable};
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.ec.message()) {
      for (const condition other : all) BOOST_TEST((c.ec == other) == (other == c.matches));
    }
  }
  // The operation timeout of the C client is an unknown outcome, not our own deadline.
  BOOST_TEST(make_error_code(zk_errc::operation_timeout) != condition::timed_out);
  BOOST_TEST(!make_error_condition(condition::unavailable).message().empty());
}

BOOST_AUTO_TEST_CASE(tokens_print_in_decimal_with_epoch_and_counter) {
  const zkcoord::fencing_token token(0x200000021);
  BOOST_TEST(token.to_string() == "8589934625 (epoch 2, counter 33)");
  BOOST_TEST(token.epoch() == 2u);
  BOOST_TEST(token.counter() == 33u);
}

// A TTL create refused by a server without extended types: a typed, permanent error that says
// which flag is missing, never the server's bare "unimplemented".
BOOST_AUTO_TEST_CASE(ttl_nodes_disabled_names_the_server_flag) {
  const error_code ec = make_error_code(errc::ttl_nodes_disabled);
  BOOST_TEST(ec.message().find("-Dzookeeper.extendedTypesEnabled=true") != std::string::npos);
  BOOST_TEST(ec.message().find("unimplemented") == std::string::npos);
  BOOST_TEST(ec == condition::permanent);
  BOOST_TEST(ec != make_error_code(zk_errc::unimplemented));
}

BOOST_AUTO_TEST_CASE(ttls_fit_only_the_ttl_modes_within_zookeepers_bounds) {
  using namespace std::chrono_literals;
  using zkcoord::detail::ttl_problem;
  BOOST_TEST(ttl_problem(create_mode::persistent_with_ttl, 1ms).empty());
  BOOST_TEST(ttl_problem(create_mode::persistent_sequential_with_ttl, max_node_ttl).empty());
  BOOST_TEST(!ttl_problem(create_mode::persistent_with_ttl, 0ms).empty());
  BOOST_TEST(!ttl_problem(create_mode::persistent_with_ttl, -5ms).empty());
  BOOST_TEST(!ttl_problem(create_mode::persistent_with_ttl, max_node_ttl + 1ms).empty());
  BOOST_TEST(!ttl_problem(create_mode::ephemeral, 10ms).empty());
  BOOST_TEST(ttl_problem(create_mode::persistent, 0ms).empty());
  BOOST_TEST(max_node_ttl.count() == 0xFFFFFFFFFFLL);  // EphemeralType.TTL.maxValue()
  BOOST_TEST(is_sequential(create_mode::persistent_sequential_with_ttl));
  BOOST_TEST(!is_sequential(create_mode::persistent_with_ttl));
  BOOST_TEST(has_ttl(create_mode::persistent_sequential_with_ttl));
  BOOST_TEST(!has_ttl(create_mode::container));
}
