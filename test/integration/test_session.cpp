// SPDX-License-Identifier: Apache-2.0
// The session against a real ZooKeeper: every operation, watches, multi, ACLs, bad input,
// and the three call styles (callback, use_future, use_awaitable).
#include <zkcoord/session.hpp>

#include <zkcoord/detail/session_access.hpp>

#include <zkcoord/testing/test_cluster.hpp>

#include "support/io_thread.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include "support/tuple_future.hpp"

#define BOOST_TEST_MODULE session
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using test::tuple_future;

namespace {

struct server_fixture {
  testing::test_cluster cluster;
};

// One server for the whole file: these tests do not disturb it.
testing::test_cluster* shared_cluster = nullptr;
struct global_server {
  global_server() { shared_cluster = &instance.cluster; }
  server_fixture instance;
};
BOOST_TEST_GLOBAL_FIXTURE(global_server);

struct connected {
  test::io_thread io;
  session s{io.executor(), options()};
  std::string root = testing::unique_path("session");

  static session_options options(std::optional<std::pair<std::string, std::string>> digest = {}) {
    session_options o;
    o.connect = shared_cluster->connect_string();
    o.session_timeout = 4s;
    o.digest = std::move(digest);
    return o;
  }
  connected() {
    test::get(s.async_connect(asio::use_future));
    create_with_parents(s, root);
  }
  static void create_with_parents(session& s, const std::string& path) {
    for (std::size_t slash = path.find('/', 1);; slash = path.find('/', slash + 1)) {
      auto [ec, node] =
          test::get(s.async_create(path.substr(0, slash), "", create_options{}, tuple_future));
      BOOST_REQUIRE(!ec || ec == zk_errc::node_exists);
      if (slash == std::string::npos) break;
    }
  }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(create_get_set_exists_children_remove, connected) {
  BOOST_TEST(s.state() == session_state::connected);
  BOOST_TEST(s.session_id() != 0);
  BOOST_TEST(s.negotiated_timeout() == 4000ms);
  const request_counts before = s.sent_requests();

  const std::string node = root + "/a";
  auto created = test::get(s.async_create(node, "v1", create_options{}, asio::use_future));
  BOOST_TEST(created.path == node);
  BOOST_TEST(created.stat.czxid > 0);
  BOOST_TEST(created.stat.ephemeral_owner == 0);

  auto data = test::get(s.async_get(node, asio::use_future));
  BOOST_TEST(data.data == "v1");
  BOOST_TEST(data.stat.czxid == created.stat.czxid);

  auto stat = test::get(s.async_set(node, "v2", data.stat.version, asio::use_future));
  BOOST_TEST(stat.version == data.stat.version + 1);
  auto [stale_ec, unused] = test::get(s.async_set(node, "v3", data.stat.version, tuple_future));
  BOOST_TEST(stale_ec == zk_errc::bad_version);
  BOOST_TEST(test::get(s.async_get(node, asio::use_future)).data == "v2");

  auto exists = test::get(s.async_exists(node, asio::use_future));
  BOOST_REQUIRE(exists.has_value());
  BOOST_TEST(exists->version == stat.version);
  BOOST_TEST(!test::get(s.async_exists(root + "/missing", asio::use_future)).has_value());

  auto kids = test::get(s.async_children(root, asio::use_future));
  BOOST_TEST(kids.names == std::vector<std::string>{"a"});
  BOOST_TEST(kids.stat.num_children == 1);

  auto [bad_version_ec] = test::get(s.async_remove(node, stat.version + 7, tuple_future));
  BOOST_TEST(bad_version_ec == zk_errc::bad_version);
  test::get(s.async_remove(node, stat.version, asio::use_future));
  auto [missing_ec, missing] = test::get(s.async_get(node, tuple_future));
  BOOST_TEST(missing_ec == zk_errc::no_node);
  test::get(s.async_sync(root, asio::use_future));

  // Every request sent is counted by kind, the failed ones too.
  const request_counts after = s.sent_requests();
  BOOST_TEST(after.creates - before.creates == 1u);
  BOOST_TEST(after.gets - before.gets == 3u);
  BOOST_TEST(after.sets - before.sets == 2u);
  BOOST_TEST(after.exists - before.exists == 2u);
  BOOST_TEST(after.listings - before.listings == 1u);
  BOOST_TEST(after.removes - before.removes == 2u);
  BOOST_TEST(after.syncs - before.syncs == 1u);
  BOOST_TEST(after.multis == before.multis);
}

BOOST_FIXTURE_TEST_CASE(create_modes, connected) {
  auto eph = test::get(
      s.async_create(root + "/e", "", create_options{create_mode::ephemeral}, asio::use_future));
  BOOST_TEST(eph.stat.ephemeral_owner == s.session_id());
  auto seq1 = test::get(
      s.async_create(root + "/n-", "", {create_mode::persistent_sequential}, asio::use_future));
  auto seq2 = test::get(
      s.async_create(root + "/n-", "", {create_mode::ephemeral_sequential}, asio::use_future));
  BOOST_TEST(seq1.path.size() == (root + "/n-").size() + 10);
  BOOST_TEST(seq1.path < seq2.path);
  BOOST_TEST(seq1.stat.czxid < seq2.stat.czxid);
  auto container =
      test::get(s.async_create(root + "/c", "", {create_mode::container}, asio::use_future));
  BOOST_TEST(container.path == root + "/c");
  auto [ec, none] =
      test::get(s.async_create(root + "/e/child", "", create_options{}, tuple_future));
  BOOST_TEST(ec == zk_errc::no_children_for_ephemerals);
  BOOST_TEST((ec == condition::permanent));
}

BOOST_FIXTURE_TEST_CASE(watches_fire_exactly_once, connected) {
  const std::string node = root + "/w";
  watch on_create;
  BOOST_TEST(!test::get(s.async_exists(node, on_create, asio::use_future)).has_value());
  BOOST_TEST(on_create.armed());
  test::get(s.async_create(node, "x", create_options{}, asio::use_future));
  auto created = test::get(on_create.async_wait(asio::use_future));
  BOOST_TEST(created.type == watch_event_type::created);
  BOOST_TEST(created.path == node);

  watch on_data;
  test::get(s.async_get(node, on_data, asio::use_future));
  test::get(s.async_set(node, "y", any_version, asio::use_future));
  test::get(s.async_set(node, "z", any_version, asio::use_future));
  BOOST_TEST(test::get(on_data.async_wait(asio::use_future)).type ==
             watch_event_type::data_changed);
  // One-shot: the second change is not delivered again.
  auto [again, ev] = test::get(on_data.async_wait(tuple_future));
  BOOST_TEST(again == zk_errc::no_watcher);
  BOOST_TEST(!on_data.armed());

  watch on_children;
  test::get(s.async_children(node, on_children, asio::use_future));
  test::get(s.async_create(node + "/k", "", create_options{}, asio::use_future));
  BOOST_TEST(test::get(on_children.async_wait(asio::use_future)).type ==
             watch_event_type::children_changed);

  watch on_delete;
  test::get(s.async_get(node + "/k", on_delete, asio::use_future));
  test::get(s.async_remove(node + "/k", any_version, asio::use_future));
  BOOST_TEST(test::get(on_delete.async_wait(asio::use_future)).type == watch_event_type::deleted);
}

BOOST_FIXTURE_TEST_CASE(a_failed_read_arms_no_watch, connected) {
  watch w;
  auto [ec, data] = test::get(s.async_get(root + "/absent", w, tuple_future));
  BOOST_TEST(ec == zk_errc::no_node);
  BOOST_TEST(!w.armed());
  auto [wait_ec, ev] = test::get(w.async_wait(tuple_future));
  BOOST_TEST(wait_ec == zk_errc::no_node);
}

BOOST_FIXTURE_TEST_CASE(destroying_an_armed_watch_removes_it, connected) {
  const std::string node = root + "/rm";
  test::get(s.async_create(node, "", create_options{}, asio::use_future));
  for (int i = 0; i < 50; ++i) {
    watch w;
    test::get(s.async_get(node, w, asio::use_future));
  }
  // Nothing left behind fires into freed state; the node still works.
  test::get(s.async_set(node, "after", any_version, asio::use_future));
  BOOST_TEST(test::get(s.async_get(node, asio::use_future)).data == "after");
}

BOOST_FIXTURE_TEST_CASE(multi_is_atomic, connected) {
  const std::string a = root + "/ma", b = root + "/mb";
  test::get(s.async_create(a, "0", create_options{}, asio::use_future));
  auto [ec, results] = test::get(
      s.async_multi({op::create{b, "new"}, op::check{a, 5}, op::set{a, "changed"}}, tuple_future));
  BOOST_TEST(ec == zk_errc::bad_version);
  BOOST_REQUIRE(results.size() == 3u);
  BOOST_TEST(results[1].ec == zk_errc::bad_version);
  BOOST_TEST(results[0].ec == zk_errc::runtime_inconsistency);
  BOOST_TEST(!test::get(s.async_exists(b, asio::use_future)).has_value());
  BOOST_TEST(test::get(s.async_get(a, asio::use_future)).data == "0");

  auto ok = test::get(
      s.async_multi({op::create{b, "new"}, op::check{a, 0}, op::set{a, "changed"}, op::remove{b}},
                    asio::use_future));
  BOOST_TEST(ok[0].path == b);
  BOOST_TEST(ok[2].stat.version == 1);
  BOOST_TEST(!test::get(s.async_exists(b, asio::use_future)).has_value());
  BOOST_TEST(test::get(s.async_get(a, asio::use_future)).data == "changed");
  BOOST_TEST(s.sent_requests().multis == 2u);
}

BOOST_FIXTURE_TEST_CASE(acl_denial_changes_nothing, connected) {
  session owner(io.executor(), options(std::pair<std::string, std::string>{"alice", "secret"}));
  test::get(owner.async_connect(asio::use_future));
  const std::string node = root + "/private";
  test::get(owner.async_create(
      node, "mine", create_options{create_mode::persistent, creator_all_acl()}, asio::use_future));

  session intruder(io.executor(), options(std::pair<std::string, std::string>{"alice", "wrong"}));
  test::get(intruder.async_connect(asio::use_future));
  auto [set_ec, st] = test::get(intruder.async_set(node, "theirs", any_version, tuple_future));
  BOOST_TEST(set_ec == zk_errc::no_auth);
  BOOST_TEST((set_ec == condition::permanent));
  auto [get_ec, d] = test::get(s.async_get(node, tuple_future));
  BOOST_TEST(get_ec == zk_errc::no_auth);
  BOOST_TEST(test::get(owner.async_get(node, asio::use_future)).data == "mine");

  // digest ACL naming alice explicitly: only the right password gets in.
  const std::string named = root + "/named";
  test::get(s.async_create(
      named, "d",
      create_options{create_mode::persistent,
                     {acl_entry{perms::all, "digest", digest_id("alice", "secret")}}},
      asio::use_future));
  BOOST_TEST(test::get(owner.async_get(named, asio::use_future)).data == "d");
  auto [named_ec, nd] = test::get(intruder.async_get(named, tuple_future));
  BOOST_TEST(named_ec == zk_errc::no_auth);
}

BOOST_FIXTURE_TEST_CASE(invalid_paths_are_refused_before_sending, connected) {
  using namespace std::string_literals;
  const request_counts before = s.sent_requests();
  for (const std::string& bad : {""s, "//"s, "/."s, "/a/./"s, "/a/"s, "a"s, "/a\0b"s}) {
    BOOST_TEST_CONTEXT("path " << bad) {
      auto [ec, node] = test::get(s.async_create(bad, "", create_options{}, tuple_future));
      BOOST_TEST(ec == errc::bad_path);
      auto [get_ec, d] = test::get(s.async_get(bad, tuple_future));
      BOOST_TEST(get_ec == errc::bad_path);
    }
  }
  auto [big_ec, n] = test::get(s.async_create(root + "/big", std::string(1024 * 1024 + 1, 'x'),
                                              create_options{}, tuple_future));
  BOOST_TEST(big_ec == errc::data_too_large);
  const request_counts after = s.sent_requests();  // nothing refused was sent
  BOOST_TEST(after.creates == before.creates);
  BOOST_TEST(after.gets == before.gets);
  BOOST_TEST(test::get(s.async_children(root, asio::use_future)).names.empty());
}

BOOST_AUTO_TEST_CASE(unreachable_and_malformed_connect_strings) {
  test::io_thread io;
  session_options o;
  o.connect = "127.0.0.1:1";  // nothing listens on port 1
  o.connect_timeout = 1500ms;
  session s(io.executor(), o);
  const auto start = std::chrono::steady_clock::now();
  auto [ec] = test::get(s.async_connect(tuple_future));
  BOOST_TEST(ec == errc::unreachable);
  BOOST_TEST((std::chrono::steady_clock::now() - start < 10s));  // liveness bound
  auto [op_ec, d] = test::get(s.async_get("/", tuple_future));
  BOOST_TEST(op_ec.failed());

  for (const char* bad : {"", "localhost", "host:99999", "a:1,,b:2", "a:1/bad/"}) {
    BOOST_TEST_CONTEXT(bad) {
      session_options m;
      m.connect = bad;
      session broken(io.executor(), m);
      auto [bad_ec] = test::get(broken.async_connect(tuple_future));
      BOOST_TEST(bad_ec == errc::bad_connect_string);
    }
  }
}

BOOST_FIXTURE_TEST_CASE(operations_before_connect_fail_cleanly, connected) {
  session idle(io.executor(), options());
  auto [ec, d] = test::get(idle.async_get(root, tuple_future));
  BOOST_TEST(ec == errc::not_connected);
  idle.close();
  auto [closed_ec] = test::get(idle.async_connect(tuple_future));
  BOOST_TEST(closed_ec == errc::closed);
}

BOOST_FIXTURE_TEST_CASE(chroot_scopes_every_path, connected) {
  session_options o = options();
  o.connect += root;
  session chrooted(io.executor(), o);
  test::get(chrooted.async_connect(asio::use_future));
  test::get(chrooted.async_create("/inside", "x", create_options{}, asio::use_future));
  BOOST_TEST(test::get(s.async_get(root + "/inside", asio::use_future)).data == "x");
  watch w;
  test::get(chrooted.async_get("/inside", w, asio::use_future));
  test::get(s.async_set(root + "/inside", "y", any_version, asio::use_future));
  BOOST_TEST(test::get(w.async_wait(asio::use_future)).path == "/inside");
}

BOOST_FIXTURE_TEST_CASE(three_call_styles_from_one_signature, connected) {
  const std::string node = root + "/styles";
  test::get(s.async_create(node, "v", create_options{}, asio::use_future));

  std::promise<std::string> from_callback;
  std::thread::id callback_thread;
  s.async_get(node, [&](error_code ec, node_data d) {
    callback_thread = std::this_thread::get_id();
    from_callback.set_value(ec ? ec.message() : d.data);
  });
  BOOST_TEST(test::get(from_callback.get_future()) == "v");
  // Completions run on the caller's executor (the io thread), never on the C client's.
  std::promise<std::thread::id> io_thread_id;
  asio::post(io.executor(), [&] { io_thread_id.set_value(std::this_thread::get_id()); });
  BOOST_TEST((callback_thread == test::get(io_thread_id.get_future())));

  BOOST_TEST(test::get(s.async_get(node, asio::use_future)).data == "v");

  auto coro = [&]() -> asio::awaitable<std::string> {
    auto d = co_await s.async_get(node, asio::use_awaitable);
    co_return d.data;
  };
  BOOST_TEST(test::get(asio::co_spawn(io.executor(), coro(), asio::use_future)) == "v");

  // Errors: use_future throws system_error carrying the code.
  BOOST_CHECK_EXCEPTION(test::get(s.async_get(node + "/none", asio::use_future)), system_error,
                        [](const system_error& e) { return e.code() == zk_errc::no_node; });
}

// A handler may start the next request at once (on libzookeeper_st it runs right after the round
// that read its reply, docs/session.md), and the next request's handler never runs inside the
// call that started it, whichever backend.
BOOST_FIXTURE_TEST_CASE(handlers_start_requests_and_never_run_inside_the_starting_call, connected) {
  const std::string node = root + "/chain";
  test::get(s.async_create(node, "v", create_options{}, asio::use_future));
  constexpr int chains = 32, links = 8;
  std::promise<void> all_done;
  int done = 0, inline_completions = 0, failures = 0;
  std::function<void(int)> next = [&](int left) {
    auto started = std::make_shared<bool>(false);
    s.async_get(node, [&, left, started](error_code ec, node_data d) {
      if (!*started) ++inline_completions;
      if (ec || d.data != "v") ++failures;
      if (left > 1) return next(left - 1);
      if (++done == chains) all_done.set_value();
    });
    *started = true;
  };
  // On the io thread: the handlers and the starting calls share it.
  asio::post(io.executor(), [&] {
    for (int i = 0; i < chains; ++i) next(links);
  });
  auto f = all_done.get_future();
  test::get(f);
  BOOST_TEST(failures == 0);
  BOOST_TEST(inline_completions == 0);
}

// A handler that throws: the exception leaves io_context::run as Asio's rules say, and the
// replies read in the same round still reach their handlers when run() is called again.
BOOST_AUTO_TEST_CASE(a_throwing_handler_loses_no_other_reply) {
  asio::io_context io;
  session s(io.get_executor(), connected::options());
  bool connected_ok = false;
  s.async_connect([&](error_code ec) { connected_ok = !ec; });
  for (int i = 0; !connected_ok && i < 300; ++i) io.run_one_for(100ms);
  BOOST_TEST_REQUIRE(connected_ok);
  constexpr int requests = 20;
  int completed = 0, thrown = 0;
  for (int i = 0; i < requests; ++i)
    s.async_exists("/", [&, i](error_code ec, std::optional<node_stat>) {
      BOOST_TEST(!ec);
      ++completed;
      if (i == 0) throw std::runtime_error("the first handler fails");
    });
  // As after any handler's exception, the io_context carries on where it was.
  for (int i = 0; completed < requests && i < 300; ++i) {
    try {
      io.run_one_for(100ms);
    } catch (const std::runtime_error&) {
      ++thrown;
    }
  }
  BOOST_TEST(completed == requests);
  BOOST_TEST(thrown == 1);
  s.close();
}

BOOST_FIXTURE_TEST_CASE(close_completes_pending_and_removes_ephemerals, connected) {
  session other(io.executor(), options());
  test::get(other.async_connect(asio::use_future));
  test::get(other.async_create(root + "/mine", "", {create_mode::ephemeral}, asio::use_future));
  watch w;
  test::get(s.async_exists(root + "/never", w, asio::use_future));
  other.close();
  BOOST_TEST(other.state() == session_state::closed);
  BOOST_TEST(!test::get(s.async_exists(root + "/mine", asio::use_future)).has_value());
  auto [ec, d] = test::get(other.async_get(root, tuple_future));
  BOOST_TEST(ec == errc::closed);
  s.close();
  auto [wait_ec, ev] = test::get(w.async_wait(tuple_future));
  BOOST_TEST(wait_ec == errc::closed);
}

// zookeeper_close waits for the answer to its close request only until anything is readable,
// and the last close of the connection, with replies still unread, sends a reset that can
// destroy the close request before the server reads it: the session would live on to its
// timeout (20 s here) with its ephemeral nodes (docs/session.md, "Closing"). Each round leaves
// 100 replies unread and sends 100 requests more right before closing, as a process does that
// stops running its io_context and closes its sessions on the way out; the session must end on
// the server well within its timeout.
BOOST_FIXTURE_TEST_CASE(closing_with_replies_unread_ends_the_session_on_the_server, connected) {
  constexpr int rounds = 6, nodes = 100;
  for (int round = 0; round < rounds; ++round) {
    const std::string dir = root + "/unread-" + std::to_string(round);
    test::get(s.async_create(dir, "", create_options{}, asio::use_future));
    {
      asio::io_context loop;  // run to connect only: then nobody reads the session's replies
      session_options o = options();
      o.session_timeout = 20s;
      session other(loop.get_executor(), o);
      bool up = false;
      other.async_connect([&](error_code ec) {
        BOOST_REQUIRE(!ec);
        up = true;
      });
      for (int i = 0; i < 300 && !up; ++i) loop.run_one_for(100ms);
      BOOST_REQUIRE(up);
      for (int i = 0; i < nodes; ++i)
        other.async_create(dir + "/n-", "", {create_mode::ephemeral_sequential},
                           [](error_code, created_node) {});
      // The server has made them all, so their replies are on their way or in the socket.
      std::size_t made = 0;
      for (int i = 0; i < 100 && made < nodes; ++i) {
        if (i > 0) std::this_thread::sleep_for(50ms);
        made = test::get(s.async_children(dir, asio::use_future)).names.size();
      }
      BOOST_REQUIRE_EQUAL(made, static_cast<std::size_t>(nodes));
      // As many again right before the close: the server is still reading them when the
      // close request comes (a process releasing its locks as it shuts down).
      for (int i = 0; i < nodes; ++i)
        other.async_create(dir + "/n-", "", {create_mode::ephemeral_sequential},
                           [](error_code, created_node) {});
      other.close();
    }  // the session and its io_context go: nothing of the connection is left open
    // Liveness bound, a quarter of the session's timeout: without an orderly close the nodes
    // stay for the whole 20 s.
    std::size_t left = 1;
    for (int i = 0; i < 50 && left > 0; ++i) {
      if (i > 0) std::this_thread::sleep_for(100ms);
      left = test::get(s.async_children(dir, asio::use_future)).names.size();
    }
    BOOST_TEST(left == 0u, "round " << round << ": " << left
                                    << " ephemeral nodes outlived their closed session");
  }
}

// Names are resolved with Asio's resolver before zookeeper_init; the C client gets addresses
// (docs/session.md, "Name resolution").
namespace {
std::string with_host(std::string connect, const std::string& from, const std::string& to) {
  for (std::size_t at = connect.find(from); at != std::string::npos;
       at = connect.find(from, at + to.size()))
    connect.replace(at, from.size(), to);
  return connect;
}
}  // namespace

BOOST_FIXTURE_TEST_CASE(host_names_resolve_before_the_c_client_sees_them, connected) {
  session_options o = options();
  o.connect = with_host(o.connect, "127.0.0.1", "localhost") + root;  // a name, and a chroot
  BOOST_TEST_REQUIRE(o.connect.find("localhost:") == 0);
  session named(io.executor(), o);
  auto [ec] = test::get(named.async_connect(tuple_future));
  BOOST_TEST_REQUIRE(!ec, ec.message());
  auto made = test::get(named.async_create("/by-name", "v", create_options{}, asio::use_future));
  BOOST_TEST(made.path == "/by-name");
  // The chroot went to the C client unchanged: the node is under root.
  auto [get_ec, data] = test::get(s.async_get(root + "/by-name", tuple_future));
  BOOST_TEST(!get_ec);

  // A name that does not resolve beside one that does: connected to the one that does.
  session_options mixed = options();
  mixed.connect = "no-such-host.invalid:2181," + with_host(mixed.connect, "127.0.0.1", "localhost");
  session partly(io.executor(), mixed);
  auto [mixed_ec] = test::get(partly.async_connect(tuple_future));
  BOOST_TEST(!mixed_ec, mixed_ec.message());
  BOOST_TEST(!std::get<0>(test::get(partly.async_exists("/", tuple_future))));
}

BOOST_AUTO_TEST_CASE(a_name_that_does_not_resolve_fails_with_unknown_host,
                     *boost::unit_test::timeout(120)) {
  test::io_thread io;
  session_options o;
  o.connect = "no-such-host.invalid:2181,also-not-there.invalid:2182/app";
  o.session_timeout = 4s;
  o.connect_timeout = 90s;  // the resolver answers, not the connect timer
  session s(io.executor(), o);
  for (int attempt = 0; attempt < 2; ++attempt) {  // a second attempt resolves again
    const auto start = std::chrono::steady_clock::now();
    auto [ec] = test::get(s.async_connect(tuple_future));
    BOOST_TEST(ec == errc::unknown_host, ec.message());
    BOOST_TEST(ec == condition::unavailable);
    BOOST_TEST((std::chrono::steady_clock::now() - start < 60s));  // liveness bound
    BOOST_TEST(s.state() == session_state::closed);
    auto [op_ec, d] = test::get(s.async_get("/", tuple_future));
    BOOST_TEST(op_ec.failed());
  }
  // Nothing is left behind: once the session is gone, its state is too (no resolution or
  // retry keeps it).
  std::weak_ptr<detail::session_impl> left;
  {
    session other(io.executor(), o);
    left = detail::session_access::impl(other);
    auto [ec] = test::get(other.async_connect(tuple_future));
    BOOST_TEST(ec == errc::unknown_host);
  }
  // The io thread may still be returning from the handler that completed the connect.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!left.expired() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  BOOST_TEST(left.expired());
}
