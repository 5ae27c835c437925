// SPDX-License-Identifier: Apache-2.0
// persistent_node and persistent_ttl_node against a real server: the node is created, created
// again after another client deletes it and after a session expiry, taken over and overwritten
// when it exists (CURATOR-154), written again on reconnect (CURATOR-241), found again by its
// protection prefix after a lost create reply and re-created at its own path (CURATOR-190),
// deleted on close. TTL nodes: create_mode::persistent_with_ttl on the session, the touched
// child keeping the parent alive until the server reaps both after we stop, the typed error
// of a server without -Dzookeeper.extendedTypesEnabled=true, and bad paths and ttls.
#include <zkcoord/path.hpp>
#include <zkcoord/persistent_node.hpp>
#include <zkcoord/testing/expire_session.hpp>
#include <zkcoord/testing/server.hpp>
#include <zkcoord/testing/tcp_proxy.hpp>

#define BOOST_TEST_MODULE persistent_node
#include <boost/test/unit_test.hpp>

#include "support/lock_fixture.hpp"

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using test::tuple_future;

namespace {

using test::lock_server;
BOOST_TEST_GLOBAL_FIXTURE(lock_server);

std::optional<node_data> read(session& s, const std::string& path) {
  auto [ec, got] = test::get(s.async_get(path, tuple_future));
  if (ec == zk_errc::no_node) return std::nullopt;
  BOOST_REQUIRE_MESSAGE(!ec, "get " << path << ": " << ec.message());
  return got;
}

std::vector<std::string> children(session& s, const std::string& path) {
  auto [ec, list] = test::get(s.async_children(path, tuple_future));
  if (ec == zk_errc::no_node) return {};
  BOOST_REQUIRE_MESSAGE(!ec, "children of " << path << ": " << ec.message());
  return list.names;
}

void make_path(session& s, const std::string& path) {
  std::string at;
  std::size_t from = 1;
  while (from <= path.size()) {
    auto slash = path.find('/', from);
    if (slash == std::string::npos) slash = path.size();
    at = path.substr(0, slash);
    auto [ec, made] = test::get(s.async_create(at, "", {}, tuple_future));
    BOOST_REQUIRE_MESSAGE(!ec || ec == zk_errc::node_exists,
                          "create " << at << ": " << ec.message());
    from = slash + 1;
  }
}

// The error of async_wait_for_initial_create (no exception).
error_code initial(persistent_node& n, std::chrono::milliseconds timeout = 15000ms) {
  auto [ec] = test::get(n.async_wait_for_initial_create(timeout, tuple_future));
  return ec;
}

// The server shows TTL (and container) nodes to clients with ephemeralOwner 0, as persistent
// ones (DataNode.getClientEphemeralOwner): only their reaping tells them apart.
bool shown_as_persistent(std::int64_t owner) {
  return owner == 0;
}

}  // namespace

BOOST_AUTO_TEST_CASE(an_ephemeral_node_is_created_with_its_data) {
  const std::string path = "/pn/created/node";
  test::client a, b;
  persistent_node node(*a.s, path, "hello");
  BOOST_TEST_REQUIRE(!initial(node));
  BOOST_TEST(node.actual_path() == path);
  auto got = read(*b.s, path);
  BOOST_TEST_REQUIRE(got.has_value());
  BOOST_TEST(got->data == "hello");
  BOOST_TEST(got->stat.ephemeral_owner == a.s->session_id());
}

BOOST_AUTO_TEST_CASE(a_node_deleted_by_another_client_is_created_again) {
  const std::string path = "/pn/deleted/node";
  test::client a, b;
  persistent_node node(*a.s, path, "d1", {.mode = create_mode::persistent});
  BOOST_TEST_REQUIRE(!initial(node));
  const zxid first = read(*b.s, path)->stat.czxid;
  auto [ec] = test::get(b.s->async_remove(path, any_version, tuple_future));
  BOOST_TEST_REQUIRE(!ec);
  BOOST_TEST(test::eventually(
      [&] {
        auto got = read(*b.s, path);
        return got && got->stat.czxid > first && got->data == "d1";
      },
      15000ms));
}

BOOST_AUTO_TEST_CASE(an_ephemeral_node_is_created_again_on_the_session_after_an_expiry) {
  const std::string path = "/pn/expiry/node";
  test::client a(2000ms), b;
  persistent_node node(*a.s, path, "e1");
  BOOST_TEST_REQUIRE(!initial(node));
  const std::int64_t old_session = a.s->session_id();
  testing::expire_session(*a.s);
  BOOST_TEST(test::eventually(
      [&] {
        auto got = read(*b.s, path);
        return a.s->session_id() != old_session && got &&
               got->stat.ephemeral_owner == a.s->session_id() && got->data == "e1";
      },
      20000ms));
}

// CURATOR-154: a node already at the path is overwritten, never deleted and made again.
BOOST_AUTO_TEST_CASE(an_existing_node_is_overwritten_not_deleted) {
  const std::string path = "/pn/existing/node";
  test::client a, b;
  make_path(*b.s, path);
  auto [se, stat] = test::get(b.s->async_set(path, "theirs", any_version, tuple_future));
  BOOST_TEST_REQUIRE(!se);
  const zxid czxid = stat.czxid;
  persistent_node node(*a.s, path, "ours", {.mode = create_mode::persistent});
  BOOST_TEST_REQUIRE(!initial(node));
  auto got = read(*b.s, path);
  BOOST_TEST_REQUIRE(got.has_value());
  BOOST_TEST(got->data == "ours");
  BOOST_TEST(got->stat.czxid == czxid);
  BOOST_TEST(node.actual_path() == path);
}

// CURATOR-241: data set while disconnected, and a change another client made meanwhile, end
// with our latest data once we are back.
BOOST_AUTO_TEST_CASE(the_data_is_written_again_on_reconnect) {
  const std::string path = "/pn/reconnect/node";
  auto& cluster = *test::lock_cluster();
  testing::tcp_proxy proxy("127.0.0.1", cluster.local_server().port());
  test::client a(6000ms, proxy.connect_string()), b;
  persistent_node node(*a.s, path, "v1");
  BOOST_TEST_REQUIRE(!initial(node));
  const std::int64_t session_before = a.s->session_id();

  // Another client changes the node while we are away: the reconnect writes ours back.
  proxy.refuse(true);
  proxy.drop_all();
  BOOST_TEST_REQUIRE(test::eventually([&] { return a.s->state() == session_state::suspended; }));
  auto [te, ts] = test::get(b.s->async_set(path, "changed", any_version, tuple_future));
  BOOST_TEST_REQUIRE(!te);
  proxy.refuse(false);
  BOOST_TEST(test::eventually([&] { return read(*b.s, path)->data == "v1"; }, 15000ms));

  // Data set while away, and another change meanwhile: our latest wins once we are back.
  BOOST_TEST_REQUIRE(test::eventually([&] { return a.s->state() == session_state::reconnected; }));
  proxy.refuse(true);
  proxy.drop_all();
  BOOST_TEST_REQUIRE(test::eventually([&] { return a.s->state() == session_state::suspended; }));
  auto set = node.async_set_data("v2", tuple_future);
  auto [be, bs] = test::get(b.s->async_set(path, "theirs", any_version, tuple_future));
  BOOST_TEST_REQUIRE(!be);
  proxy.refuse(false);

  auto [ec] = test::get(std::move(set), std::chrono::seconds(30));
  BOOST_TEST(!ec, ec.message());
  BOOST_TEST(a.s->session_id() == session_before);  // a reconnect, not a new session
  BOOST_TEST(test::eventually([&] { return read(*b.s, path)->data == "v2"; }, 15000ms));
  BOOST_TEST(node.data() == "v2");
}

BOOST_AUTO_TEST_CASE(set_data_updates_the_node_in_place) {
  const std::string path = "/pn/set/node";
  test::client a, b;
  persistent_node node(*a.s, path, "s1", {.mode = create_mode::persistent});
  BOOST_TEST_REQUIRE(!initial(node));
  const zxid czxid = read(*b.s, path)->stat.czxid;
  auto [ec] = test::get(node.async_set_data("s2", tuple_future));
  BOOST_TEST_REQUIRE(!ec);
  auto got = read(*b.s, path);
  BOOST_TEST(got->data == "s2");
  BOOST_TEST(got->stat.czxid == czxid);
}

// CURATOR-190: the create's reply is lost; the node finds its own protected node by the prefix
// instead of making a second one, and a later re-create uses that same path.
BOOST_AUTO_TEST_CASE(a_protected_node_whose_create_reply_was_lost_is_not_made_twice) {
  const std::string parent = "/pn/protected";
  const std::string path = parent + "/member-";
  auto& cluster = *test::lock_cluster();
  testing::tcp_proxy proxy("127.0.0.1", cluster.local_server().port());
  test::client a(6000ms, proxy.connect_string()), b;
  make_path(*b.s, parent);
  proxy.drop_next_reply_after_request();  // the create is applied, its reply never arrives
  persistent_node node(*a.s, path, "p1",
                       {.mode = create_mode::ephemeral_sequential, .protected_name = true});
  BOOST_TEST_REQUIRE(!initial(node, 20000ms));
  const auto names = children(*b.s, parent);
  BOOST_TEST_REQUIRE(names.size() == 1u);
  BOOST_TEST(names[0].starts_with("_c_"));
  BOOST_TEST(node.actual_path() == parent + "/" + names[0]);

  // Deleted: created again at the same path (same prefix, same sequence), still one node.
  auto [re] = test::get(b.s->async_remove(node.actual_path(), any_version, tuple_future));
  BOOST_TEST_REQUIRE(!re);
  BOOST_TEST(
      test::eventually([&] { return read(*b.s, parent + "/" + names[0]).has_value(); }, 15000ms));
  BOOST_TEST(children(*b.s, parent).size() == 1u);
}

BOOST_AUTO_TEST_CASE(close_deletes_the_node_ephemeral_or_not) {
  const std::string path = "/pn/close/node";
  test::client a, b;
  persistent_node node(*a.s, path, "c1", {.mode = create_mode::persistent});
  BOOST_TEST_REQUIRE(!initial(node));
  auto [ec] = test::get(node.async_close(tuple_future));
  BOOST_TEST(!ec);
  BOOST_TEST(!read(*b.s, path).has_value());
  {
    persistent_node scoped(*a.s, path, "c2", {.mode = create_mode::persistent});
    BOOST_TEST_REQUIRE(!initial(scoped));
  }
  BOOST_TEST(test::eventually([&] { return !read(*b.s, path).has_value(); }));
  // A closed node is not created again.
  auto [se] = test::get(node.async_set_data("after", tuple_future));
  BOOST_TEST(se == errc::closed);
}

BOOST_AUTO_TEST_CASE(bad_paths_and_ttls_are_typed_errors_and_create_nothing) {
  test::client a, b;
  persistent_node relative(*a.s, "pn/relative", "");
  BOOST_TEST(initial(relative) == errc::bad_path);
  persistent_node root(*a.s, "/", "");
  BOOST_TEST(initial(root) == errc::bad_path);
  persistent_node no_ttl(*a.s, "/pn/bad/no-ttl", "", {.mode = create_mode::persistent_with_ttl});
  BOOST_TEST(initial(no_ttl) == errc::bad_argument);
  persistent_node huge(*a.s, "/pn/bad/huge", "",
                       {.mode = create_mode::persistent_with_ttl, .ttl = max_node_ttl + 1ms});
  BOOST_TEST(initial(huge) == errc::bad_argument);
  persistent_node ttl_on_ephemeral(*a.s, "/pn/bad/eph", "", {.ttl = 1000ms});
  BOOST_TEST(initial(ttl_on_ephemeral) == errc::bad_argument);
  persistent_ttl_node zero(*a.s, "/pn/bad/zero", 0ms, "");
  auto [ze] = test::get(zero.async_wait_for_initial_create(1000ms, tuple_future));
  BOOST_TEST(ze == errc::bad_argument);

  auto [e1, n1] = test::get(a.s->async_create(
      "/pn-bad-ttl", "", {.mode = create_mode::persistent_with_ttl, .ttl = 0ms}, tuple_future));
  BOOST_TEST(e1 == errc::bad_argument);
  auto [e2, n2] = test::get(a.s->async_create(
      "/pn-bad-ttl", "", {.mode = create_mode::persistent, .ttl = 5ms}, tuple_future));
  BOOST_TEST(e2 == errc::bad_argument);
  auto [e3, r3] = test::get(a.s->async_multi(
      {op::create{"/pn-bad-ttl", "", {.mode = create_mode::persistent_with_ttl, .ttl = 5000ms}}},
      tuple_future));
  BOOST_TEST(e3 == errc::bad_argument);
  BOOST_TEST(!read(*b.s, "/pn-bad-ttl").has_value());
  BOOST_TEST(children(*b.s, "/pn/bad").empty());
}

BOOST_AUTO_TEST_CASE(a_ttl_node_is_created_on_a_server_with_extended_types) {
  test::client a;
  auto [ec, made] = test::get(
      a.s->async_create("/pn-ttl-node", "t",
                        {.mode = create_mode::persistent_with_ttl, .ttl = 60000ms}, tuple_future));
  BOOST_TEST_REQUIRE(!ec, ec.message());
  BOOST_TEST(shown_as_persistent(made.stat.ephemeral_owner));
  auto [se, seq] = test::get(a.s->async_create(
      "/pn-ttl-seq-", "t", {.mode = create_mode::persistent_sequential_with_ttl, .ttl = 60000ms},
      tuple_future));
  BOOST_TEST_REQUIRE(!se, se.message());
  BOOST_TEST(seq.path.size() == std::string("/pn-ttl-seq-").size() + 10);
}

// The touched child keeps the parent while we run; after close the server reaps both.
BOOST_AUTO_TEST_CASE(a_persistent_ttl_node_lives_while_touched_and_is_reaped_after) {
  testing::server_options o;
  o.container_check_interval = 200ms;
  testing::server server(o);
  test::client a(4000ms, server.connect_string()), b(4000ms, server.connect_string());
  const std::string path = "/ttl/parent";
  persistent_ttl_node node(*a.s, path, 1000ms, "payload");
  auto [ie] = test::get(node.async_wait_for_initial_create(15000ms, tuple_future));
  BOOST_TEST_REQUIRE(!ie, ie.message());
  std::this_thread::sleep_for(3500ms);  // 3.5 ttls: only the touches keep it
  auto parent = read(*b.s, path);
  BOOST_TEST_REQUIRE(parent.has_value());
  BOOST_TEST(parent->data == "payload");
  BOOST_TEST(shown_as_persistent(parent->stat.ephemeral_owner));
  auto touch = read(*b.s, path + "/touch");
  BOOST_TEST_REQUIRE(touch.has_value());
  BOOST_TEST(shown_as_persistent(touch->stat.ephemeral_owner));
  node.close();
  BOOST_TEST(read(*b.s, path).has_value());  // close deletes nothing
  BOOST_TEST(test::eventually([&] { return !read(*b.s, path).has_value(); }, 20000ms));
}

BOOST_AUTO_TEST_CASE(a_server_without_extended_types_gives_a_typed_error_and_creates_nothing) {
  testing::server_options o;
  o.extended_types = false;
  testing::server server(o);
  test::client a(4000ms, server.connect_string());
  auto [ec, made] = test::get(a.s->async_create(
      "/no-ttl", "", {.mode = create_mode::persistent_with_ttl, .ttl = 1000ms}, tuple_future));
  BOOST_TEST(ec == errc::ttl_nodes_disabled);
  BOOST_TEST(ec.message().find("-Dzookeeper.extendedTypesEnabled=true") != std::string::npos);
  BOOST_TEST(ec.message().find("unimplemented") == std::string::npos);
  BOOST_TEST(ec == condition::permanent);

  persistent_ttl_node node(*a.s, "/no-ttl/parent", 1000ms, "");
  auto [we] = test::get(node.async_wait_for_initial_create(15000ms, tuple_future));
  BOOST_TEST(we == errc::ttl_nodes_disabled);
  BOOST_TEST(!read(*a.s, "/no-ttl").has_value());
  BOOST_TEST(!read(*a.s, "/no-ttl/parent").has_value());
  // A non-TTL node on that server is fine.
  persistent_node plain(*a.s, "/plain", "x");
  BOOST_TEST(!initial(plain));
}
