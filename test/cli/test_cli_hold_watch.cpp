// SPDX-License-Identifier: Apache-2.0
// `zkcoord lock --hold` (the grant printed, held while stdin is open, released when it closes
// or a signal comes, exit 76 when lost) and `zkcoord locks --watch` (a listing at each change
// of the lock tree, until SIGTERM), run as a shell script runs them against a real ZooKeeper.
#include "cli/cli_process.hpp"

#include <zkcoord/path.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/testing/tcp_proxy.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include "support/tuple_future.hpp"

#define BOOST_TEST_MODULE cli_hold_watch
#include <boost/test/unit_test.hpp>

#include "cli/cli_fixture.hpp"

#include <chrono>
#include <sstream>
#include <string>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
using test::cli_process;
using test::run_cli;
using test::tuple_future;

namespace {

using test::clean_env;
using test::eventually;
using test::global_server;
using test::shared_cluster;

BOOST_TEST_GLOBAL_FIXTURE(global_server);

// What `--hold` printed: "granted TOKEN NODE".
struct grant {
  std::string word;
  std::int64_t token = -1;
  std::string node;
};

grant read_grant(const std::string& out) {
  grant g;
  std::istringstream in(out);
  in >> g.word >> g.token >> g.node;
  return g;
}

struct hold_fixture : test::cli_fixture {
  // Starts `lock --hold` on `path` with a pipe on its stdin and waits for its grant line.
  grant granted(cli_process& p) {
    BOOST_REQUIRE_MESSAGE(
        eventually([&] { return p.out_so_far().find('\n') != std::string::npos || !p.running(); }),
        "no grant line; stderr: " << p.err_so_far());
    BOOST_REQUIRE_MESSAGE(p.running(), "exited before holding; stderr: " << p.err_so_far());
    return read_grant(p.out_so_far());
  }
  std::int64_t czxid_of(const std::string& node) {
    auto [ec, stat] = test::get(zk.async_exists(node, tuple_future));
    BOOST_REQUIRE_MESSAGE(!ec && stat, "no node " << node);
    return stat->czxid;
  }
};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(lock_hold, hold_fixture)

BOOST_AUTO_TEST_CASE(prints_the_grant_holds_while_stdin_is_open_and_releases_at_its_end) {
  std::string path = root + "/hold";
  cli_process p(zkcoord({"lock", path, "--hold"}), clean_env, /*stdin_pipe=*/true);
  auto g = granted(p);
  BOOST_TEST(g.word == "granted");
  auto nodes = children(path);
  BOOST_REQUIRE_EQUAL(nodes.size(), 1u);
  BOOST_TEST(g.node == join_path(path, nodes[0]));
  // The token in decimal, as the lock's command would get it: the lock node's czxid.
  BOOST_TEST(g.token == czxid_of(g.node));
  BOOST_TEST(p.out_so_far() == "granted " + std::to_string(g.token) + " " + g.node + "\n");

  // Held while stdin stays open: nobody else gets it.
  auto other = run_cli(zkcoord({"lock", "--timeout", "0s", path, "true"}), clean_env);
  BOOST_TEST(other.status == 75, other.err);
  BOOST_TEST(p.running());

  p.close_stdin();
  auto r = p.wait();
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.err.empty(), r.err);
  BOOST_TEST(children(path).empty());
}

BOOST_AUTO_TEST_CASE(sigterm_and_sigint_release_with_status_0) {
  for (int sig : {SIGTERM, SIGINT}) {
    std::string path = root + "/signal-" + std::to_string(sig);
    cli_process p(zkcoord({"lock", path, "--hold"}), clean_env, true);
    granted(p);
    p.signal(sig);
    auto r = p.wait();
    BOOST_TEST(r.status == 0, "signal " << sig << ": " << r.err);
    BOOST_TEST(children(path).empty());
  }
}

BOOST_AUTO_TEST_CASE(a_write_lock_hold_excludes_readers) {
  std::string path = root + "/rw";
  cli_process p(zkcoord({"lock", "--write", path, "--hold"}), clean_env, true);
  auto g = granted(p);
  BOOST_TEST(g.token == czxid_of(g.node));
  auto reader = run_cli(zkcoord({"lock", "--read", "--timeout", "0s", path, "true"}), clean_env);
  BOOST_TEST(reader.status == 75, reader.err);
  p.close_stdin();
  BOOST_TEST(p.wait().status == 0);
}

BOOST_AUTO_TEST_CASE(lock_node_deleted_while_held_exits_76) {
  std::string path = root + "/deleted";
  cli_process p(zkcoord({"lock", path, "--hold"}), clean_env, true);
  auto g = granted(p);
  auto [ec] = test::get(zk.async_remove(g.node, -1, tuple_future));
  BOOST_REQUIRE(!ec);
  // Without stdin closing: the loss alone ends it.
  auto r = p.wait();
  BOOST_TEST(r.status == 76);
  BOOST_TEST(r.err.find("lost while held") != std::string::npos, r.err);
}

// The session expires for real on the server: the tool is cut off (a proxy stops forwarding)
// for longer than its session timeout. The tool's password never leaves it, so the harness's
// expire_session cannot be aimed at it; the server's own expiry is the real thing anyway.
BOOST_AUTO_TEST_CASE(session_expired_while_held_exits_76) {
  std::string path = root + "/expired";
  const std::string direct = shared_cluster->connect_string();
  const auto port = static_cast<std::uint16_t>(std::stoi(direct.substr(direct.rfind(':') + 1)));
  testing::tcp_proxy proxy("127.0.0.1", port);
  cli_process p({test::cli_binary, "--connect", proxy.connect_string(), "--session-timeout", "2s",
                 "lock", path, "--hold"},
                clean_env, true);
  auto g = granted(p);
  proxy.blackhole(true);
  auto r = p.wait(60s);
  BOOST_TEST(r.status == 76, r.err);
  BOOST_TEST(r.err.find("lost while held") != std::string::npos, r.err);
  // The server expired the session: its lock node is gone.
  BOOST_TEST(eventually([&] { return children(path).empty(); }));
}

BOOST_AUTO_TEST_CASE(a_command_with_hold_is_refused_before_connecting) {
  auto r = run_cli({test::cli_binary, "--connect", "127.0.0.1:1", "lock", "/x", "--hold", "true"},
                   clean_env);
  BOOST_TEST(r.status == 64);
  BOOST_TEST(r.err.find("--hold takes no COMMAND") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(locks_watch, test::cli_fixture)

BOOST_AUTO_TEST_CASE(prints_again_after_a_change_and_stops_on_sigterm) {
  std::string a = root + "/watched/a", b = root + "/watched/deeper/b";
  cli_process holder(zkcoord({"lock", a, "--hold"}), clean_env, true);
  BOOST_REQUIRE(eventually([&] { return holder.out_so_far().find('\n') != std::string::npos; }));
  auto first_token = read_grant(holder.out_so_far()).token;

  cli_process watcher(zkcoord({"locks", "--watch", root + "/watched"}), clean_env);
  auto listings = [&] {
    std::string out = watcher.out_so_far();
    std::size_t n = 0;
    for (auto at = out.find("--\n"); at != std::string::npos; at = out.find("--\n", at + 3)) ++n;
    return n;
  };
  BOOST_REQUIRE_MESSAGE(eventually([&] { return listings() == 1; }), watcher.err_so_far());
  BOOST_TEST(watcher.out_so_far().find("LOCK " + a + "\n") == 0u, watcher.out_so_far());
  BOOST_TEST(watcher.out_so_far().find(std::to_string(first_token)) != std::string::npos);

  // A new lock deeper down: a new listing shows both.
  cli_process other(zkcoord({"lock", b, "--hold"}), clean_env, true);
  BOOST_REQUIRE(eventually([&] { return other.out_so_far().find('\n') != std::string::npos; }));
  BOOST_REQUIRE_MESSAGE(eventually([&] {
                          auto out = watcher.out_so_far();
                          auto last = out.rfind("--\n", out.size() - 4);
                          return out.find("LOCK " + b + "\n", last) != std::string::npos;
                        }),
                        watcher.out_so_far());

  // Released: the last listing no longer shows it.
  holder.close_stdin();
  BOOST_TEST(holder.wait().status == 0);
  BOOST_REQUIRE_MESSAGE(eventually([&] {
                          auto out = watcher.out_so_far();
                          auto last = out.rfind("--\n", out.size() - 4);
                          last = last == std::string::npos ? 0 : last;
                          return out.size() > 3 &&
                                 out.find("LOCK " + a + "\n", last) == std::string::npos;
                        }),
                        watcher.out_so_far());
  BOOST_TEST(watcher.running());

  watcher.signal(SIGTERM);
  auto r = watcher.wait();
  BOOST_TEST(r.status == 0, r.err);
  other.close_stdin();
  BOOST_TEST(other.wait().status == 0);
}

BOOST_AUTO_TEST_CASE(a_missing_path_is_watched_for_its_creation_and_json_is_a_line_each) {
  std::string path = root + "/later";
  cli_process watcher(zkcoord({"locks", "--watch", "--json", path}), clean_env);
  BOOST_REQUIRE_MESSAGE(eventually([&] { return watcher.out_so_far() == "{\"locks\":[]}\n"; }),
                        watcher.out_so_far() << watcher.err_so_far());
  cli_process holder(zkcoord({"lock", path, "--hold"}), clean_env, true);
  BOOST_REQUIRE_MESSAGE(eventually([&] {
                          return watcher.out_so_far().find("\"path\":\"" + path + "\"") !=
                                 std::string::npos;
                        }),
                        watcher.out_so_far() << watcher.err_so_far());
  watcher.signal(SIGTERM);
  BOOST_TEST(watcher.wait().status == 0);
  holder.close_stdin();
  BOOST_TEST(holder.wait().status == 0);
}

BOOST_AUTO_TEST_SUITE_END()
