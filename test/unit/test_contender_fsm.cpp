// SPDX-License-Identifier: Apache-2.0
// The lock state machine driven through scripted results and events: grants, waiting,
// recovery of lost create replies, abort and guaranteed delete, try-acquire, session events,
// release and loss of a held lock.
#include "recipe/contender_fsm.hpp"

#define BOOST_TEST_MODULE contender_fsm
#include <boost/test/unit_test.hpp>

#include "recipe/node_name.hpp"

#include <zkcoord/path.hpp>
#include "contender_fsm_test_support.hpp"

#include <boost/asio/error.hpp>

#include <map>

using namespace zkcoord;
using namespace zkcoord::detail;
using namespace zkcoord::detail::contender_action;
using namespace zkcoord::detail::contender_event;
using zkcoord::detail::testing::kinds;
using zkcoord::detail::testing::listing;
using zkcoord::detail::testing::sequence_suffix;
using zkcoord::detail::testing::the;

namespace {

constexpr std::int64_t our_session = 0x1000;
constexpr std::int64_t other_session = 0x2000;
const std::string lock_path = "/locks/l";
const std::string our_prefix = protected_node_prefix("1111");

std::string ours(std::int32_t seq) {
  return our_prefix + sequence_suffix(seq);
}
std::string other(const std::string& id, std::int32_t seq) {
  return protected_node_prefix(id) + sequence_suffix(seq);
}
std::string full(const std::string& name) {
  return join_path(lock_path, name);
}

node_stat stat_owned_by(std::int64_t owner, zxid czxid = 0x100000099) {
  node_stat stat;
  stat.czxid = czxid;
  stat.ephemeral_owner = owner;
  return stat;
}

error_code zk(zk_errc e) {
  return make_error_code(e);
}
error_code own(errc e) {
  return make_error_code(e);
}
const error_code aborted = boost::asio::error::operation_aborted;

struct fsm_fixture {
  explicit fsm_fixture(wait_mode mode = wait_mode::wait,
                       grant_policy policy = grant_policy::exclusive_lock(),
                       const std::string& prefix = our_prefix)
      : fsm(contender_config{lock_path, prefix, "host=h;pid=1;app=", our_session, mode, policy}) {}

  void start() { remember(fsm.start()); }
  void feed(const contender_event_t& event) { remember(fsm.resume(event)); }

  /// The tag of the latest request of type A the machine emitted.
  template <class A>
  std::uint64_t tag() {
    const auto it = tags.find(typeid(A));
    BOOST_REQUIRE(it != tags.end());
    return it->second;
  }

  // Common steps.
  void created(std::int32_t seq, zxid czxid = 0x100000010 + 1) {
    feed(node_created{tag<create_node>(),
                      {},
                      full(fsm.config().node_prefix + sequence_suffix(seq)),
                      stat_owned_by(our_session, czxid)});
  }
  void listed(std::vector<std::string> names) {
    feed(children_listed{tag<list_children>(), {}, listing(names)});
  }
  /// A listing with the session's deletion count attached (recipe/handoff_count.hpp).
  void listed_counting(std::vector<std::string> names, std::uint64_t deletions_seen) {
    feed(children_listed{tag<list_children>(), {}, listing(names), deletions_seen});
  }
  /// The watched node's deletion, with the session's count at that moment.
  void watched_deleted(std::optional<std::uint64_t> deletions_seen) {
    feed(watch_fired{tag<watch_node>(), true, deletions_seen});
  }
  void listed_error(error_code ec) { feed(children_listed{tag<list_children>(), ec, {}}); }
  void watched_children(std::vector<std::string> names) {
    feed(children_listed{tag<watch_children>(), {}, listing(names)});
  }
  void watched(std::optional<node_stat> stat) {
    feed(node_read{tag<watch_node>(), {}, std::move(stat)});
  }
  void session(session_state s) { feed(session_changed{s}); }
  /// The reply to the waiter's read of its own node (watch_own_node): found, ours.
  void own_node_found() { feed(node_read{tag<watch_own_node>(), {}, stat_owned_by(our_session)}); }

  /// Starts and gets to "waiting behind `predecessor`" with our node `seq`.
  void wait_behind(const std::string& predecessor, std::int32_t seq) {
    start();
    created(seq);
    listed({predecessor, ours(seq)});
    // Our own node first, then the blocker: both watched (one pipelined round trip).
    BOOST_REQUIRE_EQUAL(kinds(acts), "watch_own_node watch_node");
    BOOST_REQUIRE(the<watch_own_node>(acts).path == full(ours(seq)));
    own_node_found();
    BOOST_REQUIRE(acts.empty());
    watched(stat_owned_by(other_session));
    BOOST_REQUIRE(acts.empty());
  }
  void hold(std::int32_t seq = 5) {
    start();
    created(seq);
    listed({ours(seq)});
    BOOST_REQUIRE_EQUAL(kinds(acts), "complete_acquire watch_node");
    watched(stat_owned_by(our_session));
  }

  error_code the_ec() { return the<complete_acquire>(acts).ec; }

  contender_fsm fsm;
  contender_actions acts;
  contender_actions all_acts;  ///< every action since start()
  std::map<std::type_index, std::uint64_t> tags;
  std::map<std::string, std::uint64_t> path_tags;  ///< the latest request on each path

 private:
  void remember(contender_actions actions) {
    acts = std::move(actions);
    for (const auto& a : acts) {
      all_acts.push_back(a);
      std::visit(
          [this](const auto& x) {
            if constexpr (std::is_base_of_v<request, std::decay_t<decltype(x)>>) {
              tags[typeid(x)] = x.tag;
              if constexpr (requires { x.path; }) path_tags[x.path] = x.tag;
            }
          },
          a);
    }
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(grant)

BOOST_FIXTURE_TEST_CASE(create_is_pipelined_with_the_listing, fsm_fixture) {
  start();
  BOOST_TEST(kinds(acts) == "create_node list_children");
  const auto& create = the<create_node>(acts);
  BOOST_TEST(create.path_prefix == "/locks/l/_c_1111-lock-");
  BOOST_TEST(create.data == "host=h;pid=1;app=");
  BOOST_TEST(!create.after_reconnect);
  BOOST_TEST(!the<list_children>(acts).sync_first);
  BOOST_TEST(the<list_children>(acts).path == lock_path);
  BOOST_TEST(fsm.acquire_pending());
}

BOOST_FIXTURE_TEST_CASE(first_contender_is_granted_with_its_czxid_as_token, fsm_fixture) {
  start();
  created(7, 0x300000042);
  BOOST_TEST(acts.empty());  // the pipelined listing is already on its way
  listed({ours(7)});
  BOOST_TEST(kinds(acts) == "complete_acquire watch_node");
  const auto& done = the<complete_acquire>(acts);
  BOOST_TEST(!done.ec);
  BOOST_REQUIRE(done.grant.has_value());
  BOOST_TEST(done.grant->path == full(ours(7)));
  BOOST_TEST(done.grant->token().value() == 0x300000042);
  BOOST_TEST(the<watch_node>(acts).path == full(ours(7)));  // to notice the node's loss
  BOOST_TEST(fsm.current_state() == contender_fsm::state::held);
  BOOST_TEST(!fsm.acquire_pending());
}

BOOST_FIXTURE_TEST_CASE(non_lock_children_are_ignored, fsm_fixture) {
  start();
  created(3);
  listed({"config", "leases", "_c_x-lease-00001", "locks-0000000001", ours(3)});
  BOOST_TEST(kinds(acts) == "complete_acquire watch_node");
}

// A lock that ignored a latch, a reader or a lease ahead of it would give the path two
// holders: every contender refuses the path instead, and leaves no node behind.
BOOST_AUTO_TEST_CASE(another_recipes_nodes_fail_the_acquire_and_delete_ours) {
  for (const std::string foreign : {"_c_x-lease-0000000001", "_c_x-latch-0000000001",
                                    "_c_x-__READ__0000000001", "_c_x-__WRIT__0000000009"}) {
    BOOST_TEST_CONTEXT(foreign) {
      fsm_fixture f;
      f.start();
      f.created(3);
      f.listed({foreign, ours(3)});
      BOOST_TEST(kinds(f.acts) == "complete_acquire delete_node");
      BOOST_TEST(the<complete_acquire>(f.acts).ec == errc::recipe_mismatch);
      BOOST_TEST(the<delete_node>(f.acts).path == full(ours(3)));
    }
  }
}

BOOST_FIXTURE_TEST_CASE(waits_for_the_immediate_predecessor_only, fsm_fixture) {
  start();
  created(9);
  listed({other("a", 1), other("c", 8), ours(9), other("b", 4), other("d", 12)});
  BOOST_TEST(kinds(acts) == "watch_own_node watch_node");
  BOOST_TEST(the<watch_node>(acts).path == full(other("c", 8)));
  BOOST_TEST(fsm.current_state() == contender_fsm::state::watching_predecessor);
}

BOOST_FIXTURE_TEST_CASE(kazoo_contender_ahead_is_waited_for, fsm_fixture) {
  start();
  created(2);
  listed({"9f3c__lock__0000000001", ours(2)});
  BOOST_TEST(the<watch_node>(acts).path == full("9f3c__lock__0000000001"));
}

BOOST_FIXTURE_TEST_CASE(orders_across_the_sequence_overflow, fsm_fixture) {
  start();
  created(-2147483648);
  listed({ours(-2147483648), other("old", 2147483646)});
  BOOST_TEST(kinds(acts) == "watch_own_node watch_node");
  BOOST_TEST(the<watch_node>(acts).path == full(other("old", 2147483646)));
  watched(std::nullopt);  // the old holder is gone
  listed({ours(-2147483648), other("newer", -2147483646)});
  BOOST_TEST(kinds(acts) == "complete_acquire drop_watch watch_node");
}

BOOST_FIXTURE_TEST_CASE(predecessor_deleted_means_relist_then_grant, fsm_fixture) {
  wait_behind(other("a", 1), 2);
  feed(watch_fired{tag<watch_node>()});
  BOOST_TEST(kinds(acts) == "list_children");  // a wake-up is not a grant
  listed({ours(2)});
  BOOST_TEST(kinds(acts) == "complete_acquire");
}

BOOST_FIXTURE_TEST_CASE(predecessor_gone_before_the_watch_was_set, fsm_fixture) {
  start();
  created(2);
  listed({other("a", 1), ours(2)});
  watched(std::nullopt);
  BOOST_TEST(kinds(acts) == "drop_watch list_children");
  listed({ours(2)});
  BOOST_TEST(kinds(acts) == "complete_acquire drop_watch watch_node");
}

BOOST_FIXTURE_TEST_CASE(predecessor_gone_reported_as_no_node, fsm_fixture) {
  start();
  created(2);
  listed({other("a", 1), ours(2)});
  feed(node_read{tag<watch_node>(), zk(zk_errc::no_node), std::nullopt});
  BOOST_TEST(kinds(acts) == "drop_watch list_children");
}

BOOST_FIXTURE_TEST_CASE(predecessor_waiter_gave_up_relinks_to_the_next_one, fsm_fixture) {
  wait_behind(other("waiter", 2), 3);
  feed(watch_fired{tag<watch_node>()});
  listed({other("holder", 1), ours(3)});  // the waiter left, the holder still holds
  BOOST_TEST(kinds(acts) == "watch_node");
  BOOST_TEST(the<watch_node>(acts).path == full(other("holder", 1)));
  watched(stat_owned_by(other_session));
  BOOST_TEST(acts.empty());
  feed(watch_fired{tag<watch_node>()});
  listed({ours(3)});
  BOOST_TEST(kinds(acts) == "complete_acquire");
}

BOOST_FIXTURE_TEST_CASE(stale_watch_of_an_earlier_predecessor_is_ignored, fsm_fixture) {
  wait_behind(other("waiter", 2), 3);
  const auto old_watch = tag<watch_node>();
  feed(watch_fired{old_watch});
  listed({other("holder", 1), ours(3)});
  watched(stat_owned_by(other_session));
  feed(watch_fired{old_watch});
  BOOST_TEST(acts.empty());
}

BOOST_FIXTURE_TEST_CASE(pipelined_listing_delivered_early_is_not_trusted, fsm_fixture) {
  start();
  listed({other("a", 1)});  // before the create's reply: cannot tell if it shows our node
  BOOST_TEST(acts.empty());
  created(2);
  BOOST_TEST(kinds(acts) == "list_children");
  listed({other("a", 1), ours(2)});
  BOOST_TEST(kinds(acts) == "watch_own_node watch_node");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(lost_create_reply)

BOOST_FIXTURE_TEST_CASE(node_was_created_and_is_adopted, fsm_fixture) {
  start();
  const auto pipelined = tag<list_children>();
  feed(node_created{tag<create_node>(), zk(zk_errc::connection_loss), {}, {}});
  BOOST_TEST(kinds(acts) == "list_children");
  BOOST_TEST(the<list_children>(acts).sync_first);  // a lagging server must not hide it
  BOOST_TEST(the<list_children>(acts).after_reconnect);
  BOOST_TEST(fsm.current_state() == contender_fsm::state::finding_own_node);
  feed(children_listed{pipelined, zk(zk_errc::connection_loss), {}});  // stale: ignored
  BOOST_TEST(acts.empty());

  listed({other("a", 4), ours(5), "config"});
  BOOST_TEST(kinds(acts) == "read_node");
  BOOST_TEST(the<read_node>(acts).path == full(ours(5)));
  feed(node_read{tag<read_node>(), {}, stat_owned_by(our_session, 0x100000077)});
  BOOST_TEST(kinds(acts) == "list_children");  // adopted: find our place
  BOOST_TEST(fsm.own_node() == full(ours(5)));
  listed({ours(5)});
  BOOST_TEST(the<complete_acquire>(acts).grant->token().value() == 0x100000077);
}

BOOST_FIXTURE_TEST_CASE(node_was_not_created_so_create_again, fsm_fixture) {
  start();
  feed(node_created{tag<create_node>(), zk(zk_errc::connection_loss), {}, {}});
  listed({other("a", 4)});
  BOOST_TEST(kinds(acts) == "create_node list_children");
  BOOST_TEST(the<create_node>(acts).path_prefix == full(our_prefix));  // same uuid
  created(6);
  listed({other("a", 4), ours(6)});
  BOOST_TEST(kinds(acts) == "watch_own_node watch_node");
}

BOOST_FIXTURE_TEST_CASE(operation_timeout_is_handled_as_connection_loss, fsm_fixture) {
  start();
  feed(node_created{tag<create_node>(), zk(zk_errc::operation_timeout), {}, {}});
  BOOST_TEST(kinds(acts) == "list_children");
  BOOST_TEST(the<list_children>(acts).sync_first);
}

BOOST_FIXTURE_TEST_CASE(node_of_another_session_with_our_prefix_is_not_adopted, fsm_fixture) {
  start();
  feed(node_created{tag<create_node>(), zk(zk_errc::connection_loss), {}, {}});
  listed({ours(5)});
  feed(node_read{tag<read_node>(), {}, stat_owned_by(other_session)});
  BOOST_TEST(kinds(acts) == "create_node list_children");
  BOOST_TEST(fsm.own_node().empty());
}

BOOST_FIXTURE_TEST_CASE(candidate_gone_before_its_owner_was_read, fsm_fixture) {
  start();
  feed(node_created{tag<create_node>(), zk(zk_errc::connection_loss), {}, {}});
  listed({ours(5)});
  feed(node_read{tag<read_node>(), zk(zk_errc::no_node), std::nullopt});
  BOOST_TEST(kinds(acts) == "create_node list_children");
}

BOOST_FIXTURE_TEST_CASE(candidates_are_checked_in_order_until_ours, fsm_fixture) {
  start();
  feed(node_created{tag<create_node>(), zk(zk_errc::connection_loss), {}, {}});
  listed({ours(9), ours(3)});
  BOOST_TEST(the<read_node>(acts).path == full(ours(3)));
  feed(node_read{tag<read_node>(), {}, stat_owned_by(other_session)});
  BOOST_TEST(the<read_node>(acts).path == full(ours(9)));
  feed(node_read{tag<read_node>(), {}, stat_owned_by(our_session)});
  BOOST_TEST(fsm.own_node() == full(ours(9)));
}

BOOST_FIXTURE_TEST_CASE(lookups_are_retried_after_reconnect, fsm_fixture) {
  start();
  feed(node_created{tag<create_node>(), zk(zk_errc::connection_loss), {}, {}});
  listed_error(zk(zk_errc::connection_loss));
  BOOST_TEST(kinds(acts) == "list_children");
  BOOST_TEST(the<list_children>(acts).after_reconnect);
  listed({ours(5)});
  feed(node_read{tag<read_node>(), zk(zk_errc::operation_timeout), std::nullopt});
  BOOST_TEST(kinds(acts) == "read_node");
  BOOST_TEST(the<read_node>(acts).after_reconnect);
  BOOST_TEST(the<read_node>(acts).path == full(ours(5)));
}

BOOST_FIXTURE_TEST_CASE(parent_gone_during_lookup_means_create_again, fsm_fixture) {
  start();
  feed(node_created{tag<create_node>(), zk(zk_errc::connection_loss), {}, {}});
  listed_error(zk(zk_errc::no_node));
  BOOST_TEST(kinds(acts) == "create_node list_children");
}

BOOST_FIXTURE_TEST_CASE(gives_up_after_repeated_lost_creates, fsm_fixture) {
  start();
  for (int attempt = 1; attempt < contender_fsm::max_create_attempts; ++attempt) {
    feed(node_created{tag<create_node>(), zk(zk_errc::connection_loss), {}, {}});
    listed({});
    BOOST_REQUIRE_EQUAL(kinds(acts), "create_node list_children");
  }
  feed(node_created{tag<create_node>(), zk(zk_errc::connection_loss), {}, {}});
  listed({});
  BOOST_TEST(kinds(acts) == "complete_acquire finished");
  BOOST_TEST((the<complete_acquire>(acts).ec == condition::connection_loss));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(create_errors)

BOOST_FIXTURE_TEST_CASE(missing_parent_is_created_then_create_retried, fsm_fixture) {
  start();
  feed(node_created{tag<create_node>(), zk(zk_errc::no_node), {}, {}});
  BOOST_TEST(kinds(acts) == "create_parents");
  BOOST_TEST(the<create_parents>(acts).path == lock_path);
  feed(parents_created{tag<create_parents>(), zk(zk_errc::node_exists)});  // someone else won
  BOOST_TEST(kinds(acts) == "create_node list_children");
}

BOOST_FIXTURE_TEST_CASE(parent_creation_retried_after_connection_loss, fsm_fixture) {
  start();
  feed(node_created{tag<create_node>(), zk(zk_errc::no_node), {}, {}});
  feed(parents_created{tag<create_parents>(), zk(zk_errc::connection_loss)});
  BOOST_TEST(kinds(acts) == "create_parents");
  BOOST_TEST(the<create_parents>(acts).after_reconnect);
  feed(parents_created{tag<create_parents>(), {}});
  BOOST_TEST(kinds(acts) == "create_node list_children");
}

BOOST_FIXTURE_TEST_CASE(parent_garbage_collected_again_and_again_gives_up, fsm_fixture) {
  start();
  for (int attempt = 1; attempt < contender_fsm::max_create_attempts; ++attempt) {
    feed(node_created{tag<create_node>(), zk(zk_errc::no_node), {}, {}});
    feed(parents_created{tag<create_parents>(), {}});
    BOOST_REQUIRE_EQUAL(kinds(acts), "create_node list_children");
  }
  feed(node_created{tag<create_node>(), zk(zk_errc::no_node), {}, {}});
  BOOST_TEST(kinds(acts) == "complete_acquire finished");
  BOOST_TEST(the<complete_acquire>(acts).ec == zk(zk_errc::no_node));
}

BOOST_FIXTURE_TEST_CASE(permanent_errors_fail_without_retry_or_delete, fsm_fixture) {
  for (auto e : {zk_errc::no_auth, zk_errc::no_children_for_ephemerals, zk_errc::invalid_acl}) {
    BOOST_TEST_CONTEXT(make_error_code(e).message()) {
      fsm_fixture f;
      f.start();
      f.feed(node_created{f.tag<create_node>(), zk(e), {}, {}});
      BOOST_TEST(kinds(f.acts) == "complete_acquire finished");
      BOOST_TEST(f.the_ec() == zk(e));
    }
  }
}

BOOST_FIXTURE_TEST_CASE(parent_creation_refused, fsm_fixture) {
  start();
  feed(node_created{tag<create_node>(), zk(zk_errc::no_node), {}, {}});
  feed(parents_created{tag<create_parents>(), zk(zk_errc::no_auth)});
  BOOST_TEST(kinds(acts) == "complete_acquire finished");
}

BOOST_FIXTURE_TEST_CASE(listing_refused_deletes_our_node, fsm_fixture) {
  start();
  created(4);
  listed_error(zk(zk_errc::no_auth));
  BOOST_TEST(kinds(acts) == "complete_acquire delete_node");
  BOOST_TEST(the<delete_node>(acts).path == full(ours(4)));
}

BOOST_FIXTURE_TEST_CASE(own_node_deleted_while_waiting_fails_without_requeue, fsm_fixture) {
  start();
  created(4);
  listed({other("a", 1)});  // someone deleted our node
  BOOST_TEST(kinds(acts) == "complete_acquire finished");
  BOOST_TEST(the<complete_acquire>(acts).ec == own(errc::lock_lost));
}

BOOST_FIXTURE_TEST_CASE(listing_retried_after_connection_loss, fsm_fixture) {
  start();
  created(4);
  listed_error(zk(zk_errc::connection_loss));
  BOOST_TEST(kinds(acts) == "list_children");
  BOOST_TEST(the<list_children>(acts).after_reconnect);
  BOOST_TEST(!the<list_children>(acts).sync_first);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(abort_and_cleanup)

BOOST_FIXTURE_TEST_CASE(cancel_while_waiting_deletes_our_node_and_the_watch, fsm_fixture) {
  wait_behind(other("a", 1), 2);
  const auto watch = tag<watch_node>();
  feed(abort_requested{aborted});
  BOOST_TEST(kinds(acts) == "complete_acquire drop_watch drop_watch delete_node");
  BOOST_TEST(the<complete_acquire>(acts).ec == aborted);
  BOOST_TEST(std::get<drop_watch>(acts[1]).tag == watch);  // the blocker's, then our node's
  BOOST_TEST(std::get<drop_watch>(acts[2]).tag == tag<watch_own_node>());
  BOOST_TEST(the<delete_node>(acts).path == full(ours(2)));
  feed(watch_fired{watch});  // too late: nothing happens
  BOOST_TEST(acts.empty());
  feed(node_deleted{tag<delete_node>(), {}});
  BOOST_TEST(kinds(acts) == "finished");
}

BOOST_FIXTURE_TEST_CASE(timeout_is_reported_as_timeout, fsm_fixture) {
  wait_behind(other("a", 1), 2);
  feed(abort_requested{own(errc::timeout)});
  BOOST_TEST(the<complete_acquire>(acts).ec == own(errc::timeout));
  BOOST_TEST(kinds(acts) == "complete_acquire drop_watch drop_watch delete_node");
}

BOOST_FIXTURE_TEST_CASE(delete_is_guaranteed_across_connection_loss, fsm_fixture) {
  wait_behind(other("a", 1), 2);
  feed(abort_requested{aborted});
  for (auto e : {zk_errc::connection_loss, zk_errc::operation_timeout, zk_errc::connection_loss}) {
    feed(node_deleted{tag<delete_node>(), zk(e)});
    BOOST_TEST(kinds(acts) == "delete_node");
    BOOST_TEST(the<delete_node>(acts).after_reconnect);
    BOOST_TEST(the<delete_node>(acts).path == full(ours(2)));
  }
  feed(node_deleted{tag<delete_node>(), zk(zk_errc::no_node)});  // an earlier try went through
  BOOST_TEST(kinds(acts) == "finished");
}

BOOST_FIXTURE_TEST_CASE(delete_stops_when_the_session_ends, fsm_fixture) {
  wait_behind(other("a", 1), 2);
  feed(abort_requested{aborted});
  feed(node_deleted{tag<delete_node>(), zk(zk_errc::connection_loss)});
  session(session_state::expired);  // the node went with the session
  BOOST_TEST(kinds(acts) == "finished");
}

BOOST_FIXTURE_TEST_CASE(cancel_while_creating_deletes_once_the_node_exists, fsm_fixture) {
  start();
  const auto pipelined = tag<list_children>();
  feed(abort_requested{aborted});
  BOOST_TEST(kinds(acts) == "complete_acquire");  // the caller hears at once
  created(3);
  BOOST_TEST(kinds(acts) == "delete_node");
  feed(children_listed{pipelined, {}, listing({ours(3)})});  // never a grant now
  BOOST_TEST(acts.empty());
  feed(node_deleted{tag<delete_node>(), {}});
  BOOST_TEST(kinds(acts) == "finished");
}

BOOST_FIXTURE_TEST_CASE(cancel_while_create_reply_is_lost_finds_and_deletes, fsm_fixture) {
  start();
  feed(abort_requested{aborted});
  feed(node_created{tag<create_node>(), zk(zk_errc::connection_loss), {}, {}});
  BOOST_TEST(kinds(acts) == "list_children");
  listed({ours(3)});
  feed(node_read{tag<read_node>(), {}, stat_owned_by(our_session)});
  BOOST_TEST(kinds(acts) == "delete_node");
  BOOST_TEST(the<delete_node>(acts).path == full(ours(3)));
}

BOOST_FIXTURE_TEST_CASE(cancel_while_create_reply_is_lost_and_nothing_was_created, fsm_fixture) {
  start();
  feed(abort_requested{aborted});
  feed(node_created{tag<create_node>(), zk(zk_errc::connection_loss), {}, {}});
  listed({other("a", 1)});
  BOOST_TEST(kinds(acts) == "finished");  // and never a create again
}

BOOST_FIXTURE_TEST_CASE(cancel_while_creating_parents_creates_nothing, fsm_fixture) {
  start();
  feed(node_created{tag<create_node>(), zk(zk_errc::no_node), {}, {}});
  feed(abort_requested{aborted});
  BOOST_TEST(kinds(acts) == "complete_acquire");
  feed(parents_created{tag<create_parents>(), {}});
  BOOST_TEST(kinds(acts) == "finished");
}

BOOST_FIXTURE_TEST_CASE(cancel_while_listing, fsm_fixture) {
  start();
  created(3);
  feed(abort_requested{aborted});
  BOOST_TEST(kinds(acts) == "complete_acquire delete_node");
  listed({ours(3)});  // the listing's answer no longer counts
  BOOST_TEST(acts.empty());
}

BOOST_FIXTURE_TEST_CASE(abort_after_completion_is_ignored, fsm_fixture) {
  hold();
  feed(abort_requested{aborted});
  BOOST_TEST(acts.empty());
  BOOST_TEST(fsm.current_state() == contender_fsm::state::held);
}

BOOST_FIXTURE_TEST_CASE(second_abort_is_ignored, fsm_fixture) {
  wait_behind(other("a", 1), 2);
  feed(abort_requested{aborted});
  feed(abort_requested{own(errc::timeout)});
  BOOST_TEST(acts.empty());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(try_acquire)

BOOST_AUTO_TEST_CASE(busy_when_another_contender_is_ahead) {
  fsm_fixture f(wait_mode::try_once);
  f.start();
  f.created(2);
  f.listed({other("a", 1), f.fsm.config().node_prefix + "0000000002"});
  BOOST_TEST(kinds(f.acts) == "complete_acquire delete_node");
  BOOST_TEST(f.the_ec() == own(errc::busy));
  BOOST_TEST(the<delete_node>(f.acts).path == full(ours(2)));
  f.feed(node_deleted{f.tag<delete_node>(), {}});
  BOOST_TEST(kinds(f.acts) == "finished");
}

BOOST_AUTO_TEST_CASE(granted_when_first) {
  fsm_fixture f(wait_mode::try_once);
  f.start();
  f.created(1);
  f.listed({ours(1), other("b", 2)});
  BOOST_TEST(kinds(f.acts) == "complete_acquire watch_node");
  BOOST_TEST(!f.the_ec());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(session_events)

BOOST_FIXTURE_TEST_CASE(expiry_while_waiting_fails_and_never_grants, fsm_fixture) {
  wait_behind(other("a", 1), 2);
  const auto watch = tag<watch_node>();
  session(session_state::expired);
  BOOST_TEST(kinds(acts) == "complete_acquire drop_watch drop_watch finished");
  BOOST_TEST((the<complete_acquire>(acts).ec == condition::session_expired));
  feed(watch_fired{watch});
  listed({ours(2)});
  session(session_state::connected);  // a new session: nothing is re-queued on it
  BOOST_TEST(acts.empty());
  BOOST_TEST(fsm.current_state() == contender_fsm::state::done);
}

BOOST_FIXTURE_TEST_CASE(expiry_reported_by_a_result, fsm_fixture) {
  start();
  feed(node_created{tag<create_node>(), zk(zk_errc::session_expired), {}, {}});
  BOOST_TEST(kinds(acts) == "complete_acquire finished");
  BOOST_TEST((the<complete_acquire>(acts).ec == condition::session_expired));
}

BOOST_FIXTURE_TEST_CASE(expiry_while_creating_never_creates_on_the_next_session, fsm_fixture) {
  start();
  session(session_state::expired);
  BOOST_TEST(kinds(acts) == "complete_acquire finished");
  feed(node_created{tag<create_node>(), zk(zk_errc::connection_loss), {}, {}});
  BOOST_TEST(acts.empty());
}

BOOST_FIXTURE_TEST_CASE(new_session_without_expiry_event_counts_as_expiry, fsm_fixture) {
  wait_behind(other("a", 1), 2);
  session(session_state::connected);
  BOOST_TEST((the<complete_acquire>(acts).ec == condition::session_expired));
}

BOOST_FIXTURE_TEST_CASE(close_while_waiting, fsm_fixture) {
  wait_behind(other("a", 1), 2);
  session(session_state::closed);
  BOOST_TEST(the<complete_acquire>(acts).ec == own(errc::closed));
  BOOST_TEST(fsm.current_state() == contender_fsm::state::done);
}

BOOST_FIXTURE_TEST_CASE(suspension_while_waiting_keeps_the_place, fsm_fixture) {
  wait_behind(other("a", 1), 2);
  session(session_state::suspended);
  BOOST_TEST(acts.empty());
  session(session_state::reconnected);
  // Re-check our node and place; the old watch is replaced.
  BOOST_TEST(kinds(acts) == "drop_watch drop_watch list_children");
  listed({other("a", 1), ours(2)});
  BOOST_TEST(kinds(acts) == "watch_own_node watch_node");
}

BOOST_FIXTURE_TEST_CASE(predecessor_released_while_disconnected, fsm_fixture) {
  wait_behind(other("a", 1), 2);
  session(session_state::suspended);
  session(session_state::reconnected);
  listed({ours(2)});
  BOOST_TEST(kinds(acts) == "complete_acquire watch_node");
}

BOOST_FIXTURE_TEST_CASE(watch_request_lost_means_relist, fsm_fixture) {
  start();
  created(2);
  listed({other("a", 1), ours(2)});
  feed(node_read{tag<watch_node>(), zk(zk_errc::connection_loss), std::nullopt});
  BOOST_TEST(kinds(acts) == "drop_watch list_children");
  BOOST_TEST(the<list_children>(acts).after_reconnect);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(held)

BOOST_FIXTURE_TEST_CASE(suspension_puts_the_lock_in_doubt_until_verified, fsm_fixture) {
  hold(5);
  session(session_state::suspended);
  BOOST_TEST(kinds(acts) == "set_in_doubt");
  BOOST_TEST(the<set_in_doubt>(acts).in_doubt);
  BOOST_TEST(fsm.in_doubt());
  session(session_state::suspended);
  BOOST_TEST(acts.empty());
  session(session_state::reconnected);
  BOOST_TEST(kinds(acts) == "drop_watch watch_node");
  BOOST_TEST(fsm.in_doubt());  // not until our node is seen again
  watched(stat_owned_by(our_session));
  BOOST_TEST(kinds(acts) == "set_in_doubt");
  BOOST_TEST(!the<set_in_doubt>(acts).in_doubt);
  BOOST_TEST(!fsm.in_doubt());
}

BOOST_FIXTURE_TEST_CASE(own_node_deleted_by_someone_else_is_lost, fsm_fixture) {
  hold(5);
  feed(watch_fired{tag<watch_node>()});
  BOOST_TEST(kinds(acts) == "watch_node");  // re-read: a data change is not a loss
  watched(std::nullopt);
  BOOST_TEST(kinds(acts) == "report_lost drop_watch finished");
  BOOST_TEST(the<report_lost>(acts).reason == own(errc::lock_lost));
  feed(release_requested{});
  BOOST_TEST(the<complete_release>(acts).ec == own(errc::lock_lost));
}

BOOST_FIXTURE_TEST_CASE(own_node_data_changed_is_not_a_loss, fsm_fixture) {
  hold(5);
  feed(watch_fired{tag<watch_node>()});
  watched(stat_owned_by(our_session));
  BOOST_TEST(acts.empty());
  BOOST_TEST(fsm.current_state() == contender_fsm::state::held);
}

BOOST_FIXTURE_TEST_CASE(own_node_owned_by_another_session_is_lost, fsm_fixture) {
  hold(5);
  session(session_state::reconnected);
  watched(stat_owned_by(other_session));
  BOOST_TEST(kinds(acts) == "report_lost drop_watch finished");
}

BOOST_FIXTURE_TEST_CASE(expiry_while_held_is_lost, fsm_fixture) {
  hold(5);
  session(session_state::suspended);
  session(session_state::expired);
  BOOST_TEST(kinds(acts) == "report_lost drop_watch finished");
  BOOST_TEST((the<report_lost>(acts).reason == condition::session_expired));
}

BOOST_FIXTURE_TEST_CASE(close_while_held_is_lost_with_closed, fsm_fixture) {
  hold(5);
  session(session_state::closed);
  BOOST_TEST(the<report_lost>(acts).reason == own(errc::closed));
}

BOOST_FIXTURE_TEST_CASE(release_deletes_our_node, fsm_fixture) {
  hold(5);
  const auto held_watch = tag<watch_node>();
  // The held node's watch is not removed first: our delete fires it.
  feed(release_requested{});
  BOOST_TEST(kinds(acts) == "delete_node");
  BOOST_TEST(the<delete_node>(acts).path == full(ours(5)));
  feed(release_requested{});  // already releasing
  BOOST_TEST(acts.empty());
  feed(node_deleted{tag<delete_node>(), zk(zk_errc::connection_loss)});
  BOOST_TEST(kinds(acts) == "delete_node");
  feed(watch_fired{held_watch, true});  // the event of our own delete: not a loss
  BOOST_TEST(acts.empty());
  feed(node_deleted{tag<delete_node>(), {}});
  BOOST_TEST(kinds(acts) == "complete_release drop_watch finished");
  BOOST_TEST(the<drop_watch>(acts).tag == held_watch);
  BOOST_TEST(!the<complete_release>(acts).ec);
  feed(release_requested{});
  BOOST_TEST(the<complete_release>(acts).ec == own(errc::not_held));
}

BOOST_FIXTURE_TEST_CASE(release_of_a_node_someone_else_deleted, fsm_fixture) {
  hold(5);
  feed(release_requested{});
  feed(node_deleted{tag<delete_node>(), zk(zk_errc::no_node)});
  BOOST_TEST(the<complete_release>(acts).ec == own(errc::lock_lost));
}

BOOST_FIXTURE_TEST_CASE(session_expiry_during_release, fsm_fixture) {
  hold(5);
  feed(release_requested{});
  session(session_state::expired);
  BOOST_TEST(kinds(acts) == "complete_release drop_watch finished");
  BOOST_TEST((the<complete_release>(acts).ec == condition::session_expired));
}

BOOST_FIXTURE_TEST_CASE(release_refused_reports_the_error, fsm_fixture) {
  hold(5);
  feed(release_requested{});
  feed(node_deleted{tag<delete_node>(), zk(zk_errc::no_auth)});
  BOOST_TEST(kinds(acts) == "complete_release drop_watch finished");  // the node stays: unwatch
  BOOST_TEST(the<complete_release>(acts).ec == zk(zk_errc::no_auth));
}

BOOST_AUTO_TEST_CASE(release_before_grant_is_not_held) {
  fsm_fixture f;
  f.start();
  f.feed(release_requested{});
  BOOST_TEST(the<complete_release>(f.acts).ec == own(errc::not_held));
  BOOST_TEST(f.fsm.current_state() == contender_fsm::state::creating);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(events_before_start_are_ignored) {
  fsm_fixture f;
  f.feed(session_changed{session_state::expired});
  BOOST_TEST(f.acts.empty());
  BOOST_TEST(f.fsm.current_state() == contender_fsm::state::idle);
}

// A semaphore lease: granted while the leases path has at most N children, ours included;
// otherwise one child watch, and a look at every change.
namespace {

const std::string our_lease_prefix = protected_node_prefix("1111", node_kind::lease);

std::string our_lease(std::int32_t seq) {
  return our_lease_prefix + sequence_suffix(seq);
}
std::string other_lease(const std::string& id, std::int32_t seq) {
  return protected_node_prefix(id, node_kind::lease) + sequence_suffix(seq);
}

struct lease_fixture : fsm_fixture {
  explicit lease_fixture(std::uint32_t max_leases = 2, wait_mode mode = wait_mode::wait)
      : fsm_fixture(mode, grant_policy::semaphore(max_leases), our_lease_prefix) {}

  /// Starts with our lease `seq` among `others`, all N taken: waiting on a child watch.
  void wait_full(const std::vector<std::string>& others, std::int32_t seq = 9) {
    start();
    created(seq);
    auto names = others;
    names.push_back(our_lease(seq));
    listed(names);
    BOOST_REQUIRE_EQUAL(kinds(acts), "watch_children");
    BOOST_REQUIRE_EQUAL(the<watch_children>(acts).path, lock_path);
    watched_children(names);
    BOOST_REQUIRE_EQUAL(kinds(acts), "");  // the watch is armed: wait for it
    BOOST_REQUIRE_EQUAL(fsm.current_state(), contender_fsm::state::watching_children);
  }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(semaphore_lease)

BOOST_FIXTURE_TEST_CASE(granted_while_at_most_n_children, lease_fixture) {
  start();
  BOOST_TEST(the<create_node>(acts).path_prefix == "/locks/l/_c_1111-lease-");
  created(4, 0x300000042);
  listed({other_lease("a", 2), our_lease(4)});
  BOOST_TEST(kinds(acts) == "complete_acquire watch_node");
  BOOST_TEST(the<complete_acquire>(acts).grant->token().value() == 0x300000042);
}

BOOST_FIXTURE_TEST_CASE(a_later_lease_counts_as_much_as_an_earlier_one, lease_fixture) {
  // No ranking: N = 2 with three leases, ours first, is full for us too.
  start();
  created(1);
  listed({our_lease(1), other_lease("a", 2), other_lease("b", 3)});
  BOOST_TEST(kinds(acts) == "watch_children");
}

BOOST_FIXTURE_TEST_CASE(every_child_counts_whatever_its_name, lease_fixture) {
  // Curator counts children, not lease nodes: a stray node takes a lease, never gives one.
  start();
  created(4);
  listed({"config", other_lease("a", 2), our_lease(4)});
  BOOST_TEST(kinds(acts) == "watch_children");
}

BOOST_FIXTURE_TEST_CASE(waits_until_a_change_frees_a_lease, lease_fixture) {
  wait_full({other_lease("a", 2), other_lease("b", 3)});
  const auto watch_tag = tag<watch_children>();
  feed(watch_fired{watch_tag});
  BOOST_TEST(kinds(acts) == "watch_children");  // look again, watching again
  BOOST_TEST(tag<watch_children>() != watch_tag);
  watched_children({other_lease("a", 2), other_lease("b", 3), our_lease(9), other_lease("c", 10)});
  BOOST_TEST(kinds(acts) == "");  // still full (a later node counts too): keep the new watch
  feed(watch_fired{tag<watch_children>()});
  watched_children({other_lease("b", 3), our_lease(9)});
  BOOST_TEST(kinds(acts) == "complete_acquire drop_watch watch_node");
  BOOST_TEST(the<drop_watch>(acts).tag == tag<watch_children>());  // the child watch goes
  BOOST_TEST(fsm.current_state() == contender_fsm::state::held);
}

BOOST_FIXTURE_TEST_CASE(a_stale_child_watch_is_ignored, lease_fixture) {
  wait_full({other_lease("a", 2), other_lease("b", 3)});
  const auto first = tag<watch_children>();
  session(session_state::reconnected);  // re-list after a reconnect: a new watch
  BOOST_TEST(kinds(acts) == "drop_watch watch_children");
  feed(watch_fired{first});
  BOOST_TEST(acts.empty());
  feed(children_listed{first, {}, listing({our_lease(9)})});
  BOOST_TEST(acts.empty());  // not the listing we wait for: never a grant
}

BOOST_AUTO_TEST_CASE(try_acquire_when_full_is_busy_and_deletes_our_lease) {
  lease_fixture f(1, wait_mode::try_once);
  f.start();
  f.created(4);
  f.listed({other_lease("a", 2), our_lease(4)});
  BOOST_TEST(kinds(f.acts) == "complete_acquire delete_node");
  BOOST_TEST(f.the_ec() == own(errc::busy));
}

BOOST_FIXTURE_TEST_CASE(abort_while_waiting_deletes_our_lease, lease_fixture) {
  wait_full({other_lease("a", 2), other_lease("b", 3)});
  feed(abort_requested{own(errc::timeout)});
  BOOST_TEST(kinds(acts) == "complete_acquire drop_watch delete_node");
  BOOST_TEST(the_ec() == own(errc::timeout));
  BOOST_TEST(the<delete_node>(acts).path == full(our_lease(9)));
}

BOOST_FIXTURE_TEST_CASE(our_lease_deleted_while_waiting_is_lock_lost, lease_fixture) {
  wait_full({other_lease("a", 2), other_lease("b", 3)});
  feed(watch_fired{tag<watch_children>()});
  watched_children({other_lease("a", 2), other_lease("b", 3)});
  BOOST_TEST(kinds(acts) == "complete_acquire drop_watch finished");
  BOOST_TEST(the_ec() == own(errc::lock_lost));
}

BOOST_FIXTURE_TEST_CASE(a_lost_watched_listing_is_retried_after_reconnect, lease_fixture) {
  wait_full({other_lease("a", 2), other_lease("b", 3)});
  feed(watch_fired{tag<watch_children>()});
  feed(children_listed{tag<watch_children>(), zk(zk_errc::connection_loss), {}});
  BOOST_TEST(kinds(acts) == "drop_watch list_children");
  BOOST_TEST(the<list_children>(acts).after_reconnect);
  listed({other_lease("b", 3), our_lease(9)});
  BOOST_TEST(kinds(acts) == "complete_acquire watch_node");
}

BOOST_FIXTURE_TEST_CASE(a_lock_node_among_the_leases_is_a_recipe_mismatch, lease_fixture) {
  start();
  created(4);
  listed({other("a", 2), our_lease(4)});
  BOOST_TEST(kinds(acts) == "complete_acquire delete_node");
  BOOST_TEST(the_ec() == own(errc::recipe_mismatch));
}

BOOST_AUTO_TEST_SUITE_END()

// The hand-off without a listing: when the node we watch is deleted and our last listing
// showed nothing else blocking us, we hold at once (nodes ahead of ours can only leave);
// in every other case we list again.
BOOST_AUTO_TEST_SUITE(handoff_without_listing)

BOOST_FIXTURE_TEST_CASE(the_only_node_ahead_deleted_grants_without_a_read, fsm_fixture) {
  wait_behind(other("holder", 1), 2);
  const auto own_watch = tag<watch_own_node>();
  feed(watch_fired{tag<watch_node>(), true});
  // No request: the wait's watch on our own node goes on as the held lock's.
  BOOST_TEST(kinds(acts) == "complete_acquire");
  BOOST_TEST(the<complete_acquire>(acts).grant->path == full(ours(2)));
  feed(watch_fired{own_watch, false});  // it is the held lock's now: re-read on a change
  BOOST_TEST(the<watch_node>(acts).path == full(ours(2)));
  BOOST_TEST(fsm.current_state() == contender_fsm::state::held);
}

// Someone else (an operator, a buggy peer) deletes our node while we wait, then the holder
// releases: the blocker's deletion must not grant a node that no longer exists (written with
// no name of the fix, so that it builds and fails against the machine without it).
BOOST_FIXTURE_TEST_CASE(our_waiting_node_deleted_by_someone_else_is_never_granted, fsm_fixture) {
  start();
  created(2);
  listed({other("holder", 1), ours(2)});
  const std::uint64_t blocker = path_tags.at(full(other("holder", 1)));
  const auto own_watch = path_tags.find(full(ours(2)));  // a watch on our own node, if any
  const bool watches_own = own_watch != path_tags.end();
  // The replies, in the order the requests went: every read of ours finds our node.
  if (watches_own) feed(node_read{own_watch->second, {}, stat_owned_by(our_session)});
  feed(node_read{blocker, {}, stat_owned_by(other_session)});
  // Our node is deleted: the server fires every watch on it, before the holder's deletion.
  if (watches_own) feed(watch_fired{own_watch->second, true});
  feed(watch_fired{blocker, true});
  std::vector<complete_acquire> completions;
  for (const auto& a : all_acts)
    if (const auto* c = std::get_if<complete_acquire>(&a)) completions.push_back(*c);
  BOOST_REQUIRE_EQUAL(completions.size(), 1u);
  BOOST_TEST(!completions.front().grant.has_value());  // never a grant on a node that is gone
  BOOST_TEST(completions.front().ec == own(errc::lock_lost));
  BOOST_TEST(!fsm.acquire_pending());
  BOOST_TEST(fsm.own_node().empty());
  BOOST_TEST(fsm.current_state() == contender_fsm::state::done);
}

BOOST_FIXTURE_TEST_CASE(our_node_found_gone_by_its_first_read_fails_at_once, fsm_fixture) {
  start();
  created(2);
  listed({other("holder", 1), ours(2)});
  feed(node_read{tag<watch_own_node>(), zk(zk_errc::no_node), std::nullopt});
  BOOST_TEST(kinds(acts) == "complete_acquire drop_watch drop_watch finished");
  BOOST_TEST(std::get<drop_watch>(acts[1]).tag == tag<watch_node>());  // the blocker's goes
  BOOST_TEST(the_ec() == own(errc::lock_lost));
}

// Two events the C client handed on in order (our node's deletion, then the blocker's) may run
// out of order on a multi-threaded executor: the session's proof of our node's deletion
// (deletion_log::guard_node, attached by the driver) stops the hand-off all the same.
BOOST_FIXTURE_TEST_CASE(our_node_seen_deleted_by_the_session_means_a_listing, fsm_fixture) {
  wait_behind(other("holder", 1), 2);
  watch_fired fired{tag<watch_node>(), true};
  fired.own_node_seen_deleted = true;
  feed(fired);
  BOOST_TEST(kinds(acts) == "list_children");
  listed({});  // the holder and our node are gone
  BOOST_TEST(the_ec() == own(errc::lock_lost));
  BOOST_TEST(fsm.current_state() == contender_fsm::state::done);
}

BOOST_FIXTURE_TEST_CASE(our_node_not_yet_confirmed_means_a_listing, fsm_fixture) {
  start();
  created(2);
  listed({other("holder", 1), ours(2)});
  watched(stat_owned_by(other_session));  // the reply of our own node's read is not in yet
  feed(watch_fired{tag<watch_node>(), true});
  BOOST_TEST(kinds(acts) == "list_children");
  listed({ours(2)});
  // Granted by the listing; the unanswered own-node watch is replaced by the held one.
  BOOST_TEST(kinds(acts) == "complete_acquire drop_watch watch_node");
}

BOOST_FIXTURE_TEST_CASE(our_node_written_is_watched_again, fsm_fixture) {
  wait_behind(other("holder", 1), 2);
  const auto first = tag<watch_own_node>();
  feed(watch_fired{first, false});  // someone set its data: still ours
  BOOST_TEST(kinds(acts) == "watch_own_node");
  BOOST_TEST(tag<watch_own_node>() != first);
  feed(watch_fired{tag<watch_node>(), true});  // before the new read's reply: not proven
  BOOST_TEST(kinds(acts) == "list_children");
}

BOOST_FIXTURE_TEST_CASE(the_wait_own_node_watch_becomes_the_held_one, fsm_fixture) {
  wait_behind(other("holder", 1), 2);
  const auto own_watch = tag<watch_own_node>();
  feed(watch_fired{tag<watch_node>(), true});
  BOOST_TEST(kinds(acts) == "complete_acquire");  // no request of its own
  BOOST_TEST(fsm.current_state() == contender_fsm::state::held);
  feed(watch_fired{own_watch, true});  // deleted while held: read again, then lost
  BOOST_TEST(kinds(acts) == "watch_node");
  BOOST_TEST(the<watch_node>(acts).path == full(ours(2)));
  watched(std::nullopt);
  BOOST_TEST(the<report_lost>(acts).reason == own(errc::lock_lost));
}

BOOST_FIXTURE_TEST_CASE(a_change_that_is_not_a_deletion_lists_again, fsm_fixture) {
  wait_behind(other("holder", 1), 2);
  feed(watch_fired{tag<watch_node>(), false});  // e.g. its data was set
  BOOST_TEST(kinds(acts) == "list_children");
}

BOOST_FIXTURE_TEST_CASE(other_nodes_ahead_mean_a_listing, fsm_fixture) {
  // The holder may still hold while the waiter between us gave up.
  start();
  created(3);
  listed({other("holder", 1), other("waiter", 2), ours(3)});
  BOOST_TEST(the<watch_node>(acts).path == full(other("waiter", 2)));
  watched(stat_owned_by(other_session));
  feed(watch_fired{tag<watch_node>(), true});
  BOOST_TEST(kinds(acts) == "list_children");
  listed({other("holder", 1), ours(3)});
  BOOST_TEST(kinds(acts) == "watch_node");  // our own node's watch is still armed
  BOOST_TEST(the<watch_node>(acts).path == full(other("holder", 1)));
  own_node_found();
  watched(stat_owned_by(other_session));
  // That listing showed only the holder ahead: its deletion grants without another one.
  feed(watch_fired{tag<watch_node>(), true});
  BOOST_TEST(kinds(acts) == "complete_acquire");
}

// Nodes still ahead: the session's deletion count (recipe/deletion_log.hpp) tells how many
// nodes of our last listing it saw deleted since; all of them gone grants without a read.
BOOST_FIXTURE_TEST_CASE(every_node_ahead_seen_deleted_grants_without_a_read, fsm_fixture) {
  start();
  created(4);
  listed_counting({other("holder", 1), other("a", 2), other("b", 3), ours(4)}, 7);
  BOOST_TEST(the<watch_node>(acts).path == full(other("b", 3)));
  own_node_found();
  watched(stat_owned_by(other_session));
  watched_deleted(7 + 3);  // holder, a and b: the three nodes of the listing ahead of ours
  BOOST_TEST(kinds(acts) == "complete_acquire");
  BOOST_TEST(fsm.current_state() == contender_fsm::state::held);
}

BOOST_FIXTURE_TEST_CASE(a_node_ahead_not_seen_deleted_means_a_listing, fsm_fixture) {
  start();
  created(4);
  listed_counting({other("holder", 1), other("a", 2), other("b", 3), ours(4)}, 7);
  watched(stat_owned_by(other_session));
  watched_deleted(7 + 2);  // one of them may still be there (the holder, say)
  BOOST_TEST(kinds(acts) == "list_children");
}

BOOST_FIXTURE_TEST_CASE(a_count_missing_on_either_side_means_a_listing, fsm_fixture) {
  start();
  created(3);
  listed({other("holder", 1), other("a", 2), ours(3)});  // not counted
  watched(stat_owned_by(other_session));
  watched_deleted(2);
  BOOST_TEST(kinds(acts) == "list_children");
  listed_counting({other("holder", 1), other("a", 2), ours(3)}, 0);
  watched(stat_owned_by(other_session));
  watched_deleted(std::nullopt);
  BOOST_TEST(kinds(acts) == "list_children");
}

BOOST_FIXTURE_TEST_CASE(a_count_higher_than_the_listing_explains_means_a_listing, fsm_fixture) {
  // Cannot happen (only nodes of the listing are counted since it); if it did, list.
  start();
  created(3);
  listed_counting({other("holder", 1), other("a", 2), ours(3)}, 0);
  watched(stat_owned_by(other_session));
  watched_deleted(3);
  BOOST_TEST(kinds(acts) == "list_children");
}

BOOST_FIXTURE_TEST_CASE(the_count_is_not_trusted_after_a_session_event, fsm_fixture) {
  start();
  created(3);
  listed_counting({other("holder", 1), other("a", 2), ours(3)}, 0);
  watched(stat_owned_by(other_session));
  session(session_state::suspended);
  watched_deleted(2);
  BOOST_TEST(kinds(acts) == "list_children");
}

BOOST_AUTO_TEST_CASE(a_reader_does_not_use_the_count) {
  // The count does not tell the writers ahead of a reader (its blockers) from readers.
  const auto reader = [](const std::string& id, std::int32_t seq) {
    return protected_node_prefix(id, node_kind::read) + sequence_suffix(seq);
  };
  const auto writer = [](const std::string& id, std::int32_t seq) {
    return protected_node_prefix(id, node_kind::write) + sequence_suffix(seq);
  };
  fsm_fixture f(wait_mode::wait, grant_policy::read_lock(),
                protected_node_prefix("1111", node_kind::read));
  f.start();
  f.created(5);
  f.listed_counting({writer("v", 1), reader("r", 2), writer("w", 3), reader("1111", 5)}, 0);
  BOOST_TEST(the<watch_node>(f.acts).path == full(writer("w", 3)));
  f.watched(stat_owned_by(other_session));
  f.watched_deleted(2);  // w and r gone, v may still be there
  BOOST_TEST(kinds(f.acts) == "list_children");
}

BOOST_AUTO_TEST_CASE(a_write_lock_and_an_election_use_the_count) {
  for (const auto kind : {node_kind::write, node_kind::latch}) {
    const auto node = [kind](const std::string& id, std::int32_t seq) {
      return protected_node_prefix(id, kind) + sequence_suffix(seq);
    };
    fsm_fixture f(wait_mode::wait,
                  kind == node_kind::write ? grant_policy::write_lock() : grant_policy::election(),
                  protected_node_prefix("1111", kind));
    f.start();
    f.created(3);
    f.listed_counting({node("a", 1), node("b", 2), node("1111", 3)}, 4);
    f.own_node_found();
    f.watched(stat_owned_by(other_session));
    f.watched_deleted(6);
    BOOST_TEST(kinds(f.acts) == "complete_acquire", "for " << marker_of(kind));
  }
}

BOOST_AUTO_TEST_CASE(a_session_event_since_the_listing_means_a_listing) {
  for (const auto s : {session_state::suspended, session_state::connecting}) {
    fsm_fixture f;
    f.wait_behind(other("holder", 1), 2);
    f.session(s);
    f.feed(watch_fired{f.tag<watch_node>(), true});
    BOOST_TEST(kinds(f.acts) == "list_children", "after " << to_string(s));
  }
}

BOOST_FIXTURE_TEST_CASE(a_listing_after_a_reconnect_is_trusted_again, fsm_fixture) {
  wait_behind(other("holder", 1), 2);
  session(session_state::suspended);
  session(session_state::reconnected);
  // A reconnect is not a grant: list again, and watch our own node again too.
  BOOST_TEST(kinds(acts) == "drop_watch drop_watch list_children");
  listed({other("holder", 1), ours(2)});
  BOOST_TEST(kinds(acts) == "watch_own_node watch_node");
  own_node_found();
  watched(stat_owned_by(other_session));
  feed(watch_fired{tag<watch_node>(), true});
  BOOST_TEST(kinds(acts) == "complete_acquire");
}

BOOST_FIXTURE_TEST_CASE(a_listing_across_the_sequence_overflow_is_not_trusted, fsm_fixture) {
  start();
  created(-2147483648);
  listed({ours(-2147483648), other("old", 2147483646)});
  watched(stat_owned_by(other_session));
  feed(watch_fired{tag<watch_node>(), true});
  BOOST_TEST(kinds(acts) == "list_children");
}

BOOST_AUTO_TEST_CASE(a_reader_whose_only_writer_ahead_leaves_holds_at_once) {
  const std::string reader_prefix = protected_node_prefix("1111", node_kind::read);
  const auto reader = [](const std::string& id, std::int32_t seq) {
    return protected_node_prefix(id, node_kind::read) + sequence_suffix(seq);
  };
  const auto writer = [](const std::string& id, std::int32_t seq) {
    return protected_node_prefix(id, node_kind::write) + sequence_suffix(seq);
  };
  fsm_fixture f(wait_mode::wait, grant_policy::read_lock(), reader_prefix);
  f.start();
  f.created(4);
  // Readers ahead never block a reader: only the writer does.
  f.listed({reader("r", 1), writer("w", 2), reader("s", 3), reader("1111", 4)});
  BOOST_TEST(the<watch_node>(f.acts).path == full(writer("w", 2)));
  f.own_node_found();
  f.watched(stat_owned_by(other_session));
  f.feed(watch_fired{f.tag<watch_node>(), true});
  BOOST_TEST(kinds(f.acts) == "complete_acquire");
}

BOOST_AUTO_TEST_CASE(a_reader_with_two_writers_ahead_lists_again) {
  const auto writer = [](const std::string& id, std::int32_t seq) {
    return protected_node_prefix(id, node_kind::write) + sequence_suffix(seq);
  };
  fsm_fixture f(wait_mode::wait, grant_policy::read_lock(),
                protected_node_prefix("1111", node_kind::read));
  f.start();
  f.created(4);
  f.listed({writer("v", 1), writer("w", 2),
            protected_node_prefix("1111", node_kind::read) + sequence_suffix(4)});
  f.watched(stat_owned_by(other_session));
  f.feed(watch_fired{f.tag<watch_node>(), true});
  BOOST_TEST(kinds(f.acts) == "list_children");
}

BOOST_AUTO_TEST_SUITE_END()
