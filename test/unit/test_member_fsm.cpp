// SPDX-License-Identifier: Apache-2.0
// The member state machine driven through scripted results and events: join, a lost create
// reply, ids held by another session, expiry and re-registration, a node of our earlier session
// waited for, deletion by someone else, data updates, leave and aborted joins. No server.
#include "membership/member_fsm.hpp"

#define BOOST_TEST_MODULE member_fsm
#include <boost/test/unit_test.hpp>

#include <boost/asio/error.hpp>

#include <map>
#include <string>
#include <typeindex>

using namespace zkcoord;
using namespace zkcoord::detail;
using namespace zkcoord::detail::member_action;
using namespace zkcoord::detail::member_event;

namespace {

constexpr std::int64_t our_session = 0x1000;
constexpr std::int64_t next_session = 0x1001;
constexpr std::int64_t other_session = 0x2000;
const std::string node = "/groups/g/worker-1";

node_stat owned_by(std::int64_t owner, zxid czxid = 0x100000010, std::int32_t version = 0) {
  node_stat stat;
  stat.czxid = czxid;
  stat.ephemeral_owner = owner;
  stat.version = version;
  return stat;
}

error_code zk(zk_errc e) {
  return make_error_code(e);
}
const error_code aborted = boost::asio::error::operation_aborted;

std::string kind(const member_action_t& a) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, create_node>) return "create_node";
        if constexpr (std::is_same_v<T, create_parents>) return "create_parents";
        if constexpr (std::is_same_v<T, read_node>) return x.watch ? "watch_node" : "read_node";
        if constexpr (std::is_same_v<T, set_data>) return "set_data";
        if constexpr (std::is_same_v<T, delete_node>) return "delete_node";
        if constexpr (std::is_same_v<T, drop_watch>) return "drop_watch";
        if constexpr (std::is_same_v<T, complete_join>) return "complete_join";
        if constexpr (std::is_same_v<T, report_registration>) return "report_registration";
        if constexpr (std::is_same_v<T, data_written>) return "data_written";
        if constexpr (std::is_same_v<T, report_ended>) return "report_ended";
        if constexpr (std::is_same_v<T, complete_leave>) return "complete_leave";
        return "finished";
      },
      a);
}

struct fixture {
  explicit fixture(bool renews = true) : fsm(member_config{node, "payload", our_session, renews}) {}

  void start() { remember(fsm.start()); }
  void feed(const member_event_t& e) { remember(fsm.resume(e)); }

  std::string kinds() const {
    std::string out;
    for (const auto& a : acts) out += (out.empty() ? "" : " ") + kind(a);
    return out;
  }
  /// The action of type A in the latest actions, else the latest one the machine emitted
  /// (a request still in flight).
  template <class A>
  const A& the() const {
    for (const auto& a : acts)
      if (const auto* x = std::get_if<A>(&a)) return *x;
    const auto it = last.find(typeid(A));
    if (it == last.end()) BOOST_FAIL("no such action in: " + kinds());
    return std::get<A>(it->second);
  }
  template <class A>
  bool has() const {
    for (const auto& a : acts)
      if (std::holds_alternative<A>(a)) return true;
    return false;
  }

  // Replies to the latest request of each kind.
  void created(std::int64_t owner = our_session, zxid czxid = 0x100000010) {
    feed(member_event::created{the<create_node>().tag, {}, owned_by(owner, czxid)});
  }
  void create_failed(error_code ec) { feed(member_event::created{the<create_node>().tag, ec, {}}); }
  void read(std::optional<node_stat> stat) {
    feed(node_read{the<read_node>().tag, {}, std::move(stat)});
  }
  void fired() { feed(watch_fired{watch_tag}); }
  void session(session_state s, std::int64_t id) { feed(session_changed{s, id}); }

  /// Joined: our node created and its watch armed.
  void join() {
    start();
    created();
    BOOST_REQUIRE_EQUAL(kinds(), "data_written complete_join watch_node");
    read(owned_by(our_session));
    BOOST_REQUIRE(acts.empty());
  }

  member_fsm fsm;
  member_actions acts;
  std::uint64_t watch_tag = 0;
  std::map<std::type_index, member_action_t> last;

 private:
  void remember(member_actions a) {
    acts = std::move(a);
    for (const auto& x : acts) {
      if (const auto* r = std::get_if<read_node>(&x); r && r->watch) watch_tag = r->tag;
      std::visit([&](const auto& y) { last.insert_or_assign(typeid(y), x); }, x);
    }
  }
};

BOOST_AUTO_TEST_CASE(join_creates_an_ephemeral_node_with_our_data_and_watches_it) {
  fixture f;
  f.start();
  BOOST_TEST(f.kinds() == "create_node");
  BOOST_TEST(f.the<create_node>().path == node);
  BOOST_TEST(f.the<create_node>().data == "payload");
  BOOST_TEST(f.the<create_node>().session == our_session);
  f.created(our_session, 0x100000042);
  BOOST_TEST(f.kinds() == "data_written complete_join watch_node");
  const auto& joined = f.the<complete_join>();
  BOOST_TEST(!joined.ec);
  BOOST_REQUIRE(joined.first);
  BOOST_TEST(joined.first->number == 1u);
  BOOST_TEST((joined.first->cause == registration_cause::joined));
  BOOST_TEST(joined.first->czxid == 0x100000042);
  BOOST_TEST(f.the<read_node>().path == node);
}

BOOST_AUTO_TEST_CASE(missing_group_gets_container_parents_then_the_create_again) {
  fixture f;
  f.start();
  f.create_failed(zk(zk_errc::no_node));
  BOOST_TEST(f.kinds() == "create_parents");
  BOOST_TEST(f.the<create_parents>().path == "/groups/g");
  f.feed(parents_created{f.the<create_parents>().tag, {}});
  BOOST_TEST(f.kinds() == "create_node");
}

BOOST_AUTO_TEST_CASE(lost_create_reply_adopts_our_node_after_checking_its_owner) {
  fixture f;
  f.start();
  f.create_failed(zk(zk_errc::connection_loss));
  BOOST_TEST(f.kinds() == "watch_node");
  BOOST_TEST(f.the<read_node>().after_reconnect);
  f.read(owned_by(our_session));
  BOOST_TEST(f.kinds() == "data_written complete_join watch_node set_data");
  BOOST_TEST(!f.the<complete_join>().ec);
  // Which create's data it holds is unknown: the latest is written.
  BOOST_TEST(f.the<set_data>().data == "payload");
}

BOOST_AUTO_TEST_CASE(lost_create_reply_with_no_node_creates_again) {
  fixture f;
  f.start();
  f.create_failed(zk(zk_errc::operation_timeout));
  f.read(std::nullopt);
  BOOST_TEST(f.kinds() == "drop_watch create_node");
}

// Curator's PersistentNode adopts whatever sits at its path: we never do.
BOOST_AUTO_TEST_CASE(id_held_by_another_live_session_is_already_registered_and_left_alone) {
  fixture f;
  f.start();
  f.create_failed(zk(zk_errc::node_exists));
  BOOST_TEST(f.kinds() == "watch_node");
  f.read(owned_by(other_session));
  BOOST_TEST(f.kinds() == "drop_watch complete_join finished");
  BOOST_TEST(f.the<complete_join>().ec == errc::already_registered);
  BOOST_TEST(!f.has<delete_node>());
  BOOST_TEST(!f.has<set_data>());
}

BOOST_AUTO_TEST_CASE(a_persistent_node_under_our_id_is_already_registered) {
  fixture f;
  f.start();
  f.create_failed(zk(zk_errc::node_exists));
  f.read(owned_by(0));
  BOOST_TEST(f.the<complete_join>().ec == errc::already_registered);
}

BOOST_AUTO_TEST_CASE(expiry_re_registers_on_the_next_session_and_reports_it) {
  fixture f;
  f.join();
  f.session(session_state::suspended, our_session);
  BOOST_TEST(f.acts.empty());  // the node may still be there: no flap
  f.session(session_state::expired, our_session);
  BOOST_TEST(f.kinds() == "drop_watch");
  f.session(session_state::connected, next_session);
  BOOST_TEST(f.kinds() == "create_node");
  BOOST_TEST(f.the<create_node>().session == next_session);
  f.created(next_session, 0x200000005);
  BOOST_TEST(f.kinds() == "report_registration watch_node");
  const auto& r = f.the<report_registration>().now;
  BOOST_TEST(r.number == 2u);
  BOOST_TEST((r.cause == registration_cause::session_expired));
  BOOST_TEST(r.session_id == next_session);
  BOOST_TEST(r.czxid == 0x200000005);
}

// The end of a watch reports its session's expiry, and that report can arrive after the next
// session is up (found by integration_membership: the late report ended the new create).
BOOST_AUTO_TEST_CASE(late_expiry_report_of_an_earlier_session_is_ignored) {
  fixture f;
  f.join();
  f.session(session_state::expired, our_session);
  f.session(session_state::connected, next_session);
  BOOST_TEST(f.kinds() == "create_node");
  f.session(session_state::expired, our_session);
  BOOST_TEST(f.acts.empty());
  f.created(next_session);
  BOOST_TEST(f.the<report_registration>().now.session_id == next_session);
}

BOOST_AUTO_TEST_CASE(new_session_without_the_expiry_event_still_re_registers) {
  fixture f;
  f.join();
  f.session(session_state::connected, next_session);
  BOOST_TEST(f.kinds() == "drop_watch create_node");
  BOOST_TEST(f.the<create_node>().session == next_session);
}

// Expiry seen locally (lease deadline) before the server ended the session: its node is still
// there for a moment. Waited for, never deleted and never refused.
BOOST_AUTO_TEST_CASE(node_of_our_earlier_session_is_waited_for_then_replaced) {
  fixture f;
  f.join();
  f.session(session_state::expired, our_session);
  f.session(session_state::connected, next_session);
  f.create_failed(zk(zk_errc::node_exists));
  f.read(owned_by(our_session));
  BOOST_TEST(f.acts.empty());
  BOOST_TEST((f.fsm.current_state() == member_fsm::state::awaiting_release));
  f.fired();
  BOOST_TEST(f.kinds() == "watch_node");
  f.read(std::nullopt);
  BOOST_TEST(f.kinds() == "drop_watch create_node");
  f.created(next_session);
  BOOST_TEST(f.the<report_registration>().now.number == 2u);
}

BOOST_AUTO_TEST_CASE(deleted_node_is_created_again_and_reported) {
  fixture f;
  f.join();
  f.fired();
  BOOST_TEST(f.kinds() == "watch_node");
  f.read(std::nullopt);
  BOOST_TEST(f.kinds() == "drop_watch create_node");
  f.created(our_session, 0x100000077);
  const auto& r = f.the<report_registration>().now;
  BOOST_TEST((r.cause == registration_cause::node_deleted));
  BOOST_TEST(r.number == 2u);
}

BOOST_AUTO_TEST_CASE(our_node_replaced_by_another_session_ends_the_member_untouched) {
  fixture f;
  f.join();
  f.fired();
  f.read(owned_by(other_session));
  BOOST_TEST(f.kinds() == "drop_watch report_ended finished");
  BOOST_TEST(f.the<report_ended>().reason == errc::already_registered);
}

BOOST_AUTO_TEST_CASE(data_is_updated_in_place_with_the_known_version) {
  fixture f;
  f.join();
  f.feed(data_requested{"v2", 1});
  BOOST_TEST(f.kinds() == "set_data");
  BOOST_TEST(f.the<set_data>().data == "v2");
  BOOST_TEST(f.the<set_data>().version == 0);
  const auto first = f.the<set_data>().tag;
  f.feed(data_requested{"v3", 2});  // while the first is in flight: sent after it
  BOOST_TEST(f.acts.empty());
  f.feed(data_set{first, {}, owned_by(our_session, 0x100000010, 1)});
  BOOST_TEST(f.kinds() == "data_written set_data");
  BOOST_TEST(f.the<data_written>().generation == 1u);
  BOOST_TEST(f.the<set_data>().data == "v3");
  BOOST_TEST(f.the<set_data>().version == 1);
  f.feed(data_set{f.the<set_data>().tag, {}, owned_by(our_session, 0x100000010, 2)});
  BOOST_TEST(f.the<data_written>().generation == 2u);
}

BOOST_AUTO_TEST_CASE(data_updated_between_sessions_goes_into_the_new_node) {
  fixture f;
  f.join();
  f.session(session_state::expired, our_session);
  f.feed(data_requested{"v2", 1});
  BOOST_TEST(f.acts.empty());
  f.session(session_state::connected, next_session);
  BOOST_TEST(f.the<create_node>().data == "v2");
  f.created(next_session);
  BOOST_TEST(f.the<data_written>().generation == 1u);
}

BOOST_AUTO_TEST_CASE(leave_deletes_our_node_at_its_version) {
  fixture f;
  f.join();
  f.feed(leave_requested{});
  BOOST_TEST(f.kinds() == "drop_watch delete_node");
  BOOST_TEST(f.the<delete_node>().version == 0);
  f.feed(node_deleted{f.the<delete_node>().tag, {}});
  BOOST_TEST(f.kinds() == "complete_leave finished");
  BOOST_TEST(!f.the<complete_leave>().ec);
}

BOOST_AUTO_TEST_CASE(leave_after_bad_version_deletes_only_a_node_still_ours) {
  fixture f;
  f.join();
  f.feed(leave_requested{});
  f.feed(node_deleted{f.the<delete_node>().tag, zk(zk_errc::bad_version)});
  BOOST_TEST(f.kinds() == "read_node");
  f.read(owned_by(other_session));
  BOOST_TEST(f.kinds() == "complete_leave finished");  // not ours: left alone
}

BOOST_AUTO_TEST_CASE(leave_cut_off_checks_after_reconnect) {
  fixture f;
  f.join();
  f.feed(leave_requested{});
  f.feed(node_deleted{f.the<delete_node>().tag, zk(zk_errc::connection_loss)});
  BOOST_TEST(f.kinds() == "read_node");
  BOOST_TEST(f.the<read_node>().after_reconnect);
  f.read(owned_by(our_session, 0x100000010, 3));
  BOOST_TEST(f.kinds() == "delete_node");
  BOOST_TEST(f.the<delete_node>().version == 3);
}

BOOST_AUTO_TEST_CASE(aborted_join_deletes_the_node_its_create_made) {
  fixture f;
  f.start();
  f.feed(abort_requested{aborted});
  BOOST_TEST(f.kinds() == "complete_join");
  BOOST_TEST(f.the<complete_join>().ec == aborted);
  f.created();
  BOOST_TEST(f.kinds() == "delete_node");
  f.feed(node_deleted{f.the<delete_node>().tag, {}});
  BOOST_TEST(f.kinds() == "finished");
}

BOOST_AUTO_TEST_CASE(aborted_join_with_lost_reply_deletes_only_our_node) {
  for (const std::int64_t owner : {our_session, other_session}) {
    BOOST_TEST_CONTEXT("owner " << owner) {
      fixture f;
      f.start();
      f.create_failed(zk(zk_errc::connection_loss));
      f.feed(abort_requested{aborted});
      f.read(owned_by(owner));
      BOOST_TEST(f.has<delete_node>() == (owner == our_session));
      BOOST_TEST(!f.has<complete_join>());  // completed once, at the abort
    }
  }
}

BOOST_AUTO_TEST_CASE(expiry_during_join_fails_it_and_never_joins_on_the_next_session) {
  fixture f;
  f.start();
  f.session(session_state::expired, our_session);
  BOOST_TEST(f.kinds() == "complete_join finished");
  BOOST_TEST(f.the<complete_join>().ec == zk(zk_errc::session_expired));
  f.session(session_state::connected, next_session);
  BOOST_TEST(f.acts.empty());
}

BOOST_AUTO_TEST_CASE(expiry_without_renewal_ends_the_member) {
  fixture f(false);
  f.join();
  f.session(session_state::expired, our_session);
  BOOST_TEST(f.the<report_ended>().reason == zk(zk_errc::session_expired));
  BOOST_TEST(f.has<finished>());
}

BOOST_AUTO_TEST_CASE(closed_session_ends_the_member) {
  fixture f;
  f.join();
  f.session(session_state::closed, our_session);
  BOOST_TEST(f.kinds() == "drop_watch report_ended finished");
  BOOST_TEST(f.the<report_ended>().reason == errc::closed);
}

BOOST_AUTO_TEST_CASE(reconnect_re_reads_our_node_and_stale_replies_are_ignored) {
  fixture f;
  f.join();
  const auto old_watch = f.watch_tag;
  f.session(session_state::reconnected, our_session);
  BOOST_TEST(f.kinds() == "watch_node");
  f.feed(watch_fired{old_watch});  // the previous watch: replaced
  BOOST_TEST(f.acts.empty());
  f.feed(node_read{f.the<read_node>().tag - 1, {}, std::nullopt});
  BOOST_TEST(f.acts.empty());
}

}  // namespace
