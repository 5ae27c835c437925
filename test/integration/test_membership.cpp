// SPDX-License-Identifier: Apache-2.0
// Group membership against a real ZooKeeper: a member's node and its layout, leave, data
// updates in place, re-registration after session expiry and after an admin deletes the node
// (each reported), already_registered for an id another live session holds, cancelled joins
// leaving nothing, views that converge without missing a change, and a connection loss shorter
// than the session that nobody sees. Every test ends with no member node left.
#include <zkcoord/membership.hpp>

#include <zkcoord/path.hpp>
#include <zkcoord/testing/expire_session.hpp>
#include <zkcoord/testing/tcp_proxy.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/post.hpp>

#define BOOST_TEST_MODULE membership
#include <boost/test/unit_test.hpp>

#include "support/lock_fixture.hpp"

#include <spdlog/spdlog.h>

#include <future>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using test::tuple_future;
using steady = std::chrono::steady_clock;

namespace {

using test::lock_server;
BOOST_TEST_GLOBAL_FIXTURE(lock_server);

constexpr auto session_timeout = 4000ms;

using join_future = std::future<std::tuple<error_code, membership>>;
using wait_future = std::future<std::tuple<error_code, registration>>;
using view_future = std::future<std::tuple<error_code, std::vector<member_info>>>;

membership joined(join_future f) {
  auto [ec, m] = test::get(f);
  BOOST_REQUIRE_MESSAGE(!ec, "join: " << ec.message());
  return std::move(m);
}

template <class F>
bool ready_within(F& f, std::chrono::milliseconds bound) {
  return f.wait_for(bound) == std::future_status::ready;
}

// A fresh group path per test; the test ends with no child left under it.
struct fixture {
  fixture() = default;
  ~fixture() {
    BOOST_TEST(test::eventually([&] { return children().empty(); }), "members left on " << group);
  }
  std::unique_ptr<test::client> connect() {
    return std::make_unique<test::client>(session_timeout);
  }
  std::vector<std::string> children() {
    auto [ec, list] = test::get(admin.s->async_children(group, tuple_future));
    if (ec == zk_errc::no_node) return {};
    BOOST_REQUIRE_MESSAGE(!ec, "children: " << ec.message());
    return list.names;
  }
  // The member node's data and Stat; nullopt if it is missing.
  std::optional<node_data> node_of(const std::string& id) {
    auto [ec, d] = test::get(admin.s->async_get(join_path(group, id), tuple_future));
    if (ec == zk_errc::no_node) return std::nullopt;
    BOOST_REQUIRE_MESSAGE(!ec, "get: " << ec.message());
    return d;
  }
  join_future join(session& s, const std::string& id, const std::string& data = "payload") {
    return async_join(s, group, id, data, tuple_future);
  }

  const std::string group = testing::unique_path("members") + "/group";
  test::client admin{session_timeout};
};

std::vector<std::string> ids_of(const std::vector<member_info>& members) {
  std::vector<std::string> out;
  for (const auto& m : members) out.push_back(m.id);
  return out;
}

BOOST_FIXTURE_TEST_CASE(join_makes_curators_group_member_node_and_leave_removes_it, fixture) {
  test::client a{session_timeout};
  auto m = joined(join(*a.s, "worker-1", "10.0.0.1:8080"));
  BOOST_TEST(m.active());
  BOOST_TEST(m.id() == "worker-1");
  BOOST_TEST(m.path() == join_path(group, "worker-1"));
  const auto node = node_of("worker-1");
  BOOST_REQUIRE(node);
  // EPHEMERAL, not sequential, not protected: the name is the id, the data the payload.
  BOOST_TEST(node->data == "10.0.0.1:8080");
  BOOST_TEST(node->stat.ephemeral_owner == a.s->session_id());
  BOOST_TEST(m.current().number == 1u);
  BOOST_TEST(m.current().czxid == node->stat.czxid);
  BOOST_TEST(children() == std::vector<std::string>{"worker-1"});

  BOOST_TEST(!std::get<0>(test::get(m.async_leave(tuple_future))));
  BOOST_TEST(!m.active());
  BOOST_TEST(!node_of("worker-1"));
  BOOST_TEST(std::get<0>(test::get(m.async_leave(tuple_future))) == errc::not_held);
}

BOOST_FIXTURE_TEST_CASE(data_is_updated_in_place, fixture) {
  test::client a{session_timeout};
  auto m = joined(join(*a.s, "w"));
  const zxid czxid = node_of("w")->stat.czxid;
  BOOST_TEST(!std::get<0>(test::get(m.async_set_data("v2", tuple_future))));
  BOOST_TEST(!std::get<0>(test::get(m.async_set_data("v3", tuple_future))));
  const auto node = node_of("w");
  BOOST_TEST(node->data == "v3");
  BOOST_TEST(node->stat.czxid == czxid);  // the same node: nobody saw the member leave
  BOOST_TEST(m.current().number == 1u);
}

BOOST_FIXTURE_TEST_CASE(session_expiry_re_registers_the_same_id_and_reports_it, fixture) {
  test::client a{session_timeout};
  auto m = joined(join(*a.s, "w", "data-1"));
  BOOST_TEST(!std::get<0>(test::get(m.async_set_data("data-2", tuple_future))));
  const std::int64_t old_session = a.s->session_id();
  auto next = m.async_wait_reregistered(tuple_future);
  const auto expired_at = steady::now();
  testing::expire_session(*a.s, 2000ms);
  // Within the session timeout and a reconnect (generous on a loaded machine).
  BOOST_REQUIRE_MESSAGE(ready_within(next, session_timeout + 10s), "not re-registered");
  const auto took = steady::now() - expired_at;
  auto [ec, r] = next.get();
  BOOST_REQUIRE_MESSAGE(!ec, "wait: " << ec.message());
  BOOST_TEST_MESSAGE("re-registered " << took / 1ms << " ms after the expiry");
  BOOST_TEST((r.cause == registration_cause::session_expired));
  BOOST_TEST(r.number == 2u);
  BOOST_TEST(r.session_id != old_session);
  BOOST_TEST(r.session_id == a.s->session_id());
  const auto node = node_of("w");
  BOOST_REQUIRE(node);
  BOOST_TEST(node->stat.ephemeral_owner == r.session_id);
  BOOST_TEST(node->stat.czxid == r.czxid);
  BOOST_TEST(node->data == "data-2");  // the latest data, not the join's
  BOOST_TEST(m.active());
  // Reported once: the next wait waits for the next re-registration.
  auto again = m.async_wait_reregistered(tuple_future);
  BOOST_TEST(!ready_within(again, 300ms));
}

BOOST_FIXTURE_TEST_CASE(admin_delete_is_re_created_and_reported, fixture) {
  test::client a{session_timeout};
  auto m = joined(join(*a.s, "w"));
  const zxid first = node_of("w")->stat.czxid;
  for (std::uint64_t round = 2; round <= 4; ++round) {
    auto next = m.async_wait_reregistered(tuple_future);
    BOOST_REQUIRE(!std::get<0>(
        test::get(admin.s->async_remove(join_path(group, "w"), any_version, tuple_future))));
    BOOST_REQUIRE_MESSAGE(ready_within(next, 5s), "not re-created");
    auto [ec, r] = next.get();
    BOOST_REQUIRE(!ec);
    BOOST_TEST((r.cause == registration_cause::node_deleted));
    BOOST_TEST(r.number == round);
    const auto node = node_of("w");
    BOOST_REQUIRE(node);
    BOOST_TEST(node->stat.czxid == r.czxid);
    BOOST_TEST(node->stat.czxid > first);
    BOOST_TEST(node->stat.ephemeral_owner == a.s->session_id());
  }
}

BOOST_FIXTURE_TEST_CASE(an_id_held_by_another_live_session_is_already_registered, fixture) {
  test::client a{session_timeout};
  test::client b{session_timeout};
  auto m = joined(join(*a.s, "w", "a's"));
  const auto before = node_of("w");
  auto [ec, other] = test::get(join(*b.s, "w", "b's"));
  BOOST_TEST(ec == errc::already_registered, ec.message());
  BOOST_TEST(!other.active());
  // Nothing of a's was touched (Curator's registration would delete it, PersistentNode adopt).
  const auto after = node_of("w");
  BOOST_REQUIRE(after);
  BOOST_TEST(after->stat.czxid == before->stat.czxid);
  BOOST_TEST(after->data == "a's");
  BOOST_TEST(after->stat.version == before->stat.version);
  // The same id twice on one session is refused as well: they would share one node.
  BOOST_TEST(std::get<0>(test::get(join(*a.s, "w"))) == errc::already_registered);
  // A persistent node under the id is not ours either.
  BOOST_REQUIRE(!std::get<0>(
      test::get(admin.s->async_create(join_path(group, "static"), "", {}, tuple_future))));
  BOOST_TEST(std::get<0>(test::get(join(*b.s, "static"))) == errc::already_registered);
  BOOST_TEST(!std::get<0>(
      test::get(admin.s->async_remove(join_path(group, "static"), any_version, tuple_future))));
}

BOOST_FIXTURE_TEST_CASE(bad_ids_are_refused_before_anything_is_sent, fixture) {
  test::client a{session_timeout};
  for (const std::string& id : std::vector<std::string>{
           "", ".", "..", "a/b", std::string("a\0b", 3), std::string(256, 'x')}) {
    BOOST_TEST_CONTEXT("id '" << id << "'") {
      BOOST_TEST(std::get<0>(test::get(join(*a.s, id))) == errc::bad_argument);
    }
  }
  BOOST_TEST(std::get<0>(test::get(async_join(*a.s, "relative", "w", "", tuple_future))) ==
             errc::bad_path);
}

BOOST_FIXTURE_TEST_CASE(cancelled_join_leaves_no_node, fixture) {
  test::client a{session_timeout};
  int aborted = 0;
  for (int i = 0; i < 20; ++i) {
    // Cancelled on the io thread right after it started: the create is on its way.
    asio::cancellation_signal cancel;
    std::promise<join_future> started;
    asio::post(a.io.executor(), [&] {
      started.set_value(async_join(*a.s, group, "w", "",
                                   asio::bind_cancellation_slot(cancel.slot(), tuple_future)));
      cancel.emit(asio::cancellation_type::terminal);
    });
    auto [ec, m] = test::get(started.get_future().get());
    BOOST_TEST((ec == asio::error::operation_aborted || !ec), ec.message());
    if (ec) ++aborted;
    m = membership();  // a join that won the race leaves
    BOOST_TEST(test::eventually([&] { return !node_of("w"); }), "node left by join " << i);
  }
  BOOST_TEST(aborted > 0);
}

// Every view of one group on one session shares the watches; all converge to the truth after
// bursts of joins, leaves and data changes between waits.
BOOST_FIXTURE_TEST_CASE(views_converge_and_miss_no_change, fixture) {
  test::client viewers_client{session_timeout};
  test::client other_client{session_timeout};
  std::vector<std::unique_ptr<group_view>> views;
  for (int i = 0; i < 3; ++i)
    views.push_back(std::make_unique<group_view>(*viewers_client.s, group));
  views.push_back(std::make_unique<group_view>(*other_client.s, group));
  for (auto& v : views)
    BOOST_TEST(std::get<1>(test::get(v->async_wait_change(tuple_future))).empty());

  std::vector<std::unique_ptr<test::client>> clients;
  for (int i = 0; i < 4; ++i) clients.push_back(connect());
  std::map<std::string, membership> members;
  std::map<std::string, std::string> truth;  // id -> data
  std::vector<view_future> pending;
  std::vector<member_info> last_seen;
  for (auto& v : views) pending.push_back(v->async_wait_change(tuple_future));
  for (int round = 0; round < 6; ++round) {
    for (int k = 0; k < 8; ++k) {
      const std::string id = "m" + std::to_string((round * 5 + k * 3) % 17);
      if (members.count(id) != 0 && k % 3 == 0) {
        BOOST_REQUIRE(!std::get<0>(test::get(members.at(id).async_leave(tuple_future))));
        members.erase(id);
        truth.erase(id);
      } else if (members.count(id) != 0) {
        const std::string data = "r" + std::to_string(round) + "k" + std::to_string(k);
        BOOST_REQUIRE(!std::get<0>(test::get(members.at(id).async_set_data(data, tuple_future))));
        truth[id] = data;
      } else {
        members.emplace(id, joined(join(*clients[k % clients.size()]->s, id, "j" + id)));
        truth[id] = "j" + id;
      }
    }
    // Each view catches up to the truth, however many changes it has to cover.
    for (std::size_t v = 0; v < views.size(); ++v) {
      BOOST_TEST_CONTEXT("round " << round << " view " << v) {
        std::map<std::string, std::string> seen;
        const bool converged = test::eventually(
            [&] {
              if (!ready_within(pending[v], 50ms)) return false;
              auto [ec, list] = pending[v].get();
              BOOST_REQUIRE_MESSAGE(!ec, "wait: " << ec.message());
              seen.clear();
              for (const auto& m : list) seen[m.id] = m.data;
              if (v == 0) last_seen = list;
              pending[v] = views[v]->async_wait_change(tuple_future);
              return seen == truth;
            },
            10s);
        BOOST_TEST(converged, "view " << v << " saw " << seen.size() << " of " << truth.size());
      }
    }
  }
  // What a view reports of a member is its node's.
  for (const auto& m : last_seen) {
    const auto node = node_of(m.id);
    BOOST_REQUIRE(node);
    BOOST_TEST(m.session_id == node->stat.ephemeral_owner);
    BOOST_TEST(m.czxid == node->stat.czxid);
    BOOST_TEST(m.ctime_ms == node->stat.ctime);
  }
  // Everyone leaves: every view sees the group empty.
  members.clear();
  for (std::size_t v = 0; v < views.size(); ++v) {
    const bool empty = test::eventually([&] {
      if (!ready_within(pending[v], 50ms)) return false;
      auto [ec, list] = pending[v].get();
      pending[v] = views[v]->async_wait_change(tuple_future);
      return !ec && list.empty();
    });
    BOOST_TEST(empty, "view " << v << " still shows members");
  }
}

// A connection loss shorter than the session: the member keeps its node (no re-registration)
// and a view on the cut-off session reports nothing (no flap).
BOOST_FIXTURE_TEST_CASE(short_connection_loss_is_seen_by_nobody, fixture) {
  testing::tcp_proxy proxy{"127.0.0.1", test::lock_cluster()->local_server().port()};
  test::client member_client{session_timeout, proxy.connect_string()};
  test::client viewer_client{session_timeout, proxy.connect_string()};
  test::client direct_viewer{session_timeout};
  auto m = joined(join(*member_client.s, "w"));
  const zxid czxid = node_of("w")->stat.czxid;
  group_view cut_off(*viewer_client.s, group);
  group_view direct(*direct_viewer.s, group);
  BOOST_TEST(ids_of(std::get<1>(test::get(cut_off.async_wait_change(tuple_future)))) ==
             std::vector<std::string>{"w"});
  BOOST_TEST(ids_of(std::get<1>(test::get(direct.async_wait_change(tuple_future)))) ==
             std::vector<std::string>{"w"});
  auto reregistered = m.async_wait_reregistered(tuple_future);
  auto cut_off_change = cut_off.async_wait_change(tuple_future);
  auto direct_change = direct.async_wait_change(tuple_future);
  for (int i = 0; i < 3; ++i) {
    // Reset, then stalled for a while: the client reconnects within the session timeout.
    proxy.drop_all();
    proxy.blackhole(true);
    std::this_thread::sleep_for(session_timeout / 4);
    proxy.blackhole(false);
    BOOST_REQUIRE(test::eventually([&] {
      return member_client.s->state() == session_state::reconnected &&
             viewer_client.s->state() == session_state::reconnected;
    }));
  }
  std::this_thread::sleep_for(1s);
  BOOST_TEST(!ready_within(reregistered, 10ms), "the member was registered again");
  BOOST_TEST(!ready_within(cut_off_change, 10ms), "the cut-off view reported a change");
  BOOST_TEST(!ready_within(direct_change, 10ms), "the direct view reported a change");
  BOOST_TEST(node_of("w")->stat.czxid == czxid);
  // And the views still work: a change made now is seen by both.
  test::client late{session_timeout};
  auto n = joined(join(*late.s, "late"));
  BOOST_REQUIRE(ready_within(cut_off_change, 10s));
  BOOST_TEST(ids_of(std::get<1>(cut_off_change.get())) == (std::vector<std::string>{"late", "w"}),
             boost::test_tools::per_element());
  BOOST_REQUIRE(ready_within(direct_change, 10s));
  BOOST_TEST(std::get<1>(direct_change.get()).size() == 2u);
}

}  // namespace
