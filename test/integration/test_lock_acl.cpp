// SPDX-License-Identifier: Apache-2.0
// Lock nodes and the parents the lock creates carry the session's default ACL: with two digest
// principals against a real server, the foreign one can read holders where the ACL allows, but
// can neither delete nor overwrite the holder's node nor enqueue under a creator-only parent,
// and the holder keeps its lock and token.
#include <zkcoord/lock.hpp>

#include <zkcoord/session.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE integration_lock_acl
#include <boost/test/unit_test.hpp>

#include "support/lock_fixture.hpp"

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using test::tuple_future;

using test::lock_server;
BOOST_TEST_GLOBAL_FIXTURE(lock_server);

namespace {

// One connected session of a principal (no digest: anonymous), on its own io thread.
struct principal {
  explicit principal(std::optional<std::pair<std::string, std::string>> digest,
                     acl default_acl = open_acl_unsafe()) {
    session_options o;
    o.connect = test::lock_cluster()->connect_string();
    o.session_timeout = 4s;
    o.digest = std::move(digest);
    o.default_acl = std::move(default_acl);
    s = std::make_unique<session>(io.executor(), o);
    test::get(s->async_connect(asio::use_future));
  }
  test::io_thread io;
  std::unique_ptr<session> s;
};

const std::pair<std::string, std::string> alice_credentials{"alice", "alice-secret"};

// The holder's view, taken once it holds, to compare with after the foreign attempts.
struct holder_view {
  fencing_token token;
  std::string node;
  std::int64_t session_id;
};

struct fixture {
  std::string root = testing::unique_path("acl");
  std::string path = root + "/jobs/a";
  principal mallory{std::pair<std::string, std::string>{"mallory", "mallory-secret"}};
  principal anonymous{std::nullopt};

  // The test's root is open (also on a shared ensemble); the lock creates the rest.
  fixture() {
    for (std::size_t slash = root.find('/', 1);; slash = root.find('/', slash + 1)) {
      auto [ec, node] = test::get(
          anonymous.s->async_create(root.substr(0, slash), "", create_options{}, tuple_future));
      BOOST_REQUIRE_MESSAGE(!ec || ec == zk_errc::node_exists, ec.message());
      if (slash == std::string::npos) break;
    }
  }

  // The holder still holds, with the same token, and its node is the only one there.
  static void require_still_held(session& holder_session, const held_lock& held,
                                 const holder_view& before, const std::string& path,
                                 const std::atomic<bool>& lost) {
    // A round trip on the holder's session: any deletion would have been delivered before it.
    auto [ec_sync] = test::get(holder_session.async_sync(path, tuple_future));
    BOOST_TEST(!ec_sync, ec_sync.message());
    BOOST_TEST(held.owns());
    BOOST_TEST(!lost.load(), "the holder was told its lock was lost");
    BOOST_TEST(held.token() == before.token);
    auto [ec, stat] = test::get(holder_session.async_exists(before.node, tuple_future));
    BOOST_TEST(!ec, ec.message());
    BOOST_REQUIRE(stat.has_value());
    BOOST_TEST(stat->czxid == before.token.value());
    BOOST_TEST(stat->ephemeral_owner == before.session_id);
    auto [ec_children, children] = test::get(holder_session.async_children(path, tuple_future));
    BOOST_TEST(!ec_children, ec_children.message());
    BOOST_TEST(children.names.size() == 1u, "a refused contender left a node behind");
  }

  static void require_no_auth(const error_code& ec, const std::string& what) {
    BOOST_TEST(ec == zk_errc::no_auth, what << ": " << ec.message());
    BOOST_TEST(ec.message() == "not authorised by the node's ACL", what);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(lock_acl, fixture)

BOOST_AUTO_TEST_CASE(world_read_lets_others_inspect_but_not_delete_overwrite_or_enqueue) {
  principal alice(alice_credentials, world_read_creator_all_acl());
  lock l(*alice.s, path, {.app_id = "alice-job"});
  auto [ec, held] = test::acquire(l);
  BOOST_REQUIRE_MESSAGE(!ec, ec.message());
  const holder_view before{held.token(), held.path(), held.session_id()};
  std::atomic<bool> lost = false;
  held.async_wait_lost([&](error_code) { lost = true; });

  // Anyone may read who holds it.
  for (session* reader : {mallory.s.get(), anonymous.s.get()}) {
    auto [ec_list, list] = test::get(async_contenders(*reader, path, tuple_future));
    BOOST_TEST(!ec_list, ec_list.message());
    BOOST_REQUIRE_EQUAL(list.size(), 1u);
    BOOST_TEST(list[0].holder);
    BOOST_TEST(list[0].app_id == "alice-job");
    BOOST_TEST(list[0].token == before.token);
  }
  // Nobody else may delete the node (DELETE on the parent), overwrite it (WRITE on the node) or
  // enqueue (CREATE on the parent).
  for (session* other : {mallory.s.get(), anonymous.s.get()}) {
    auto [ec_remove] = test::get(other->async_remove(before.node, -1, tuple_future));
    require_no_auth(ec_remove, "delete of the holder's node");
    auto [ec_set, stat] = test::get(other->async_set(before.node, "taken", -1, tuple_future));
    require_no_auth(ec_set, "overwrite of the holder's node");
    lock foreign(*other, path, {.app_id = "intruder"});
    const auto started = std::chrono::steady_clock::now();
    auto [ec_enqueue, foreign_held] = test::acquire(foreign);
    require_no_auth(ec_enqueue, "enqueue under the holder's parent");
    BOOST_TEST(test::seconds_since(started) < 5.0, "the refusal is prompt");
    BOOST_TEST(!foreign_held.owns());
  }
  require_still_held(*alice.s, held, before, path, lost);
}

BOOST_AUTO_TEST_CASE(creator_all_hides_the_holders_and_refuses_every_other_principal) {
  principal alice(alice_credentials, creator_all_acl());
  lock l(*alice.s, path, {.app_id = "alice-job"});
  auto [ec, held] = test::acquire(l);
  BOOST_REQUIRE_MESSAGE(!ec, ec.message());
  const holder_view before{held.token(), held.path(), held.session_id()};
  std::atomic<bool> lost = false;
  held.async_wait_lost([&](error_code) { lost = true; });

  for (session* other : {mallory.s.get(), anonymous.s.get()}) {
    auto [ec_list, list] = test::get(async_contenders(*other, path, tuple_future));
    require_no_auth(ec_list, "listing of the holders");
    auto [ec_get, data] = test::get(other->async_get(before.node, tuple_future));
    require_no_auth(ec_get, "read of the holder's node");
    auto [ec_remove] = test::get(other->async_remove(before.node, -1, tuple_future));
    require_no_auth(ec_remove, "delete of the holder's node");
    lock foreign(*other, path);
    auto [ec_enqueue, foreign_held] = test::acquire(foreign);
    require_no_auth(ec_enqueue, "enqueue under the holder's parent");
  }
  // The same principal on another session (another process of alice's) contends as usual.
  principal alice_again(alice_credentials, creator_all_acl());
  lock second(*alice_again.s, path);
  auto [ec_busy, not_held] = test::get(second.async_try_acquire(tuple_future));
  BOOST_TEST(ec_busy == errc::busy, ec_busy.message());
  require_still_held(*alice.s, held, before, path, lost);
}

BOOST_AUTO_TEST_CASE(a_wrong_password_connects_as_another_identity_and_is_refused_at_once) {
  principal alice(alice_credentials, world_read_creator_all_acl());
  lock l(*alice.s, path);
  auto [ec, held] = test::acquire(l);
  BOOST_REQUIRE_MESSAGE(!ec, ec.message());
  const holder_view before{held.token(), held.path(), held.session_id()};
  std::atomic<bool> lost = false;
  held.async_wait_lost([&](error_code) { lost = true; });

  // ZooKeeper's digest provider accepts any password when the session authenticates: the
  // session connects, under the identity alice:<digest of the wrong password>.
  principal wrong(std::pair<std::string, std::string>{"alice", "not-her-secret"},
                  world_read_creator_all_acl());
  BOOST_TEST(wrong.s->state() == session_state::connected);
  lock l_wrong(*wrong.s, path);
  const auto started = std::chrono::steady_clock::now();
  auto [ec_wrong, wrong_held] = test::acquire(l_wrong);
  require_no_auth(ec_wrong, "enqueue with a wrong password");
  BOOST_TEST(test::seconds_since(started) < 5.0, "refused at once, not after a hang");
  auto [ec_remove] = test::get(wrong.s->async_remove(before.node, -1, tuple_future));
  require_no_auth(ec_remove, "delete with a wrong password");
  require_still_held(*alice.s, held, before, path, lost);
}

BOOST_AUTO_TEST_CASE(a_creator_acl_without_credentials_is_invalid) {
  // "auth" entries name the session's authenticated identities: without any, none to name.
  principal nobody(std::nullopt, world_read_creator_all_acl());
  lock l(*nobody.s, path);
  auto [ec, held] = test::acquire(l);
  BOOST_TEST(ec == zk_errc::invalid_acl, ec.message());
  BOOST_TEST(!held.owns());
}

BOOST_AUTO_TEST_CASE(node_deleted_by_another_client_is_reported_as_lock_lost) {
  principal alice(alice_credentials, open_acl_unsafe());
  lock l(*alice.s, path);
  auto [ec, held] = test::acquire(l);
  BOOST_REQUIRE_MESSAGE(!ec, ec.message());
  auto lost = held.async_wait_lost(asio::use_future);
  // The open ACL lets anyone delete it.
  auto [ec_remove] = test::get(mallory.s->async_remove(held.path(), -1, tuple_future));
  BOOST_REQUIRE_MESSAGE(!ec_remove, ec_remove.message());
  BOOST_REQUIRE(lost.wait_for(10s) == std::future_status::ready);
  error_code reason;
  try {
    lost.get();
  } catch (const boost::system::system_error& e) {
    reason = e.code();
  }
  BOOST_TEST(reason == errc::lock_lost, reason.message());
  BOOST_TEST(!held.owns());
}

BOOST_AUTO_TEST_SUITE_END()

// A failed acquire leaves no parent it created: the server never removes a container that
// never had a child. Here the session's ACL lets nobody create children, so the acquire
// creates the first missing parent and then fails one level deeper.
BOOST_FIXTURE_TEST_CASE(a_failed_acquire_leaves_no_parent_it_created, fixture) {
  principal reader{std::nullopt, read_acl_unsafe()};
  lock l(*reader.s, path);
  auto [ec, held] = test::acquire(l);
  BOOST_TEST(ec == zk_errc::no_auth, ec.message());
  BOOST_TEST(!held.owns());
  // Before: root/jobs stayed, an empty container for good.
  BOOST_TEST(test::eventually([&] {
    auto [cec, children] = test::get(anonymous.s->async_children(root, tuple_future));
    return !cec && children.names.empty();
  }));
}
