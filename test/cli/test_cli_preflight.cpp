// SPDX-License-Identifier: Apache-2.0
// What `zkcoord` refuses before it connects or creates anything (issue 11, part 2), and
// `zkcoord server` noticing that its ZooKeeper died (part 5): the built binary against a real
// ZooKeeper, checked by status, the one line on stderr and the znodes left behind.
#include "cli/cli_process.hpp"

#include <zkcoord/error.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE cli_preflight
#include <boost/test/unit_test.hpp>

#include "cli/cli_fixture.hpp"
#include "testing/free_ports.hpp"

#include <signal.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
using test::clean_env;
using test::cli_process;
using test::global_server;
using test::run_cli;
BOOST_TEST_GLOBAL_FIXTURE(global_server);

namespace {

using fixture = test::cli_fixture;

// Refusals come before any connection attempt: well within this, even on a loaded machine.
constexpr auto quick = 10s;

void require_one_line_error(const test::cli_result& r, int status, const std::string& says) {
  BOOST_TEST(r.status == status, "stderr: " << r.err);
  BOOST_TEST(r.err_lines().size() == 1u, "stderr: " << r.err);
  BOOST_TEST(r.err.rfind("zkcoord: ", 0) == 0u, "stderr: " << r.err);
  BOOST_TEST(r.err.find(says) != std::string::npos, "stderr: " << r.err);
  BOOST_TEST(r.out.empty(), "stdout: " << r.out);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(refused_before_connecting, fixture)

BOOST_AUTO_TEST_CASE(a_session_timeout_past_the_c_clients_range_is_a_usage_error) {
  // Before: accepted, overflowed in the C client, and never connected (hung).
  auto r = run_cli(zkcoord({"--session-timeout", "100000h", "locks", root}), clean_env, quick);
  require_one_line_error(r, 64, "--session-timeout 100000h is too long (at most 24h)");
  // The largest accepted value works: the server clamps it to its maxSessionTimeout.
  auto longest = run_cli(zkcoord({"--session-timeout", "24h", "locks", root}), clean_env);
  BOOST_TEST(longest.status == 0, "stderr: " << longest.err);
}

BOOST_AUTO_TEST_CASE(a_zero_connect_timeout_is_a_usage_error) {
  auto r = run_cli(zkcoord({"--connect-timeout", "0s", "locks", root}), clean_env, quick);
  require_one_line_error(r, 64, "--connect-timeout must be greater than 0");
}

BOOST_AUTO_TEST_CASE(a_host_name_that_does_not_resolve_is_said_as_such) {
  // .invalid never resolves (RFC 6761). Before: "no ZooKeeper server answered in time", 69.
  auto r = run_cli({test::cli_binary, "--connect", "nosuchhost.invalid:2181", "locks"}, clean_env,
                   quick);
  require_one_line_error(r, 68, "no host name of the connect string could be resolved");
}

BOOST_AUTO_TEST_CASE(the_library_reports_an_unresolvable_host_as_unknown_host) {
  session s{io.executor(), {.connect = "nosuchhost.invalid:2181", .session_timeout = 4s}};
  auto [ec] = test::get(s.async_connect(test::tuple_future));
  BOOST_TEST(ec == errc::unknown_host, ec.message());
}

BOOST_AUTO_TEST_CASE(a_missing_chroot_makes_locks_fail_with_78) {
  // Before: "no locks at or under /", status 0.
  auto r = run_cli({test::cli_binary, "--connect",
                    test::shared_cluster->connect_string() + root + "/missing", "locks"},
                   clean_env);
  require_one_line_error(r, 78, "the chroot " + root + "/missing of --connect does not exist");
}

BOOST_AUTO_TEST_CASE(a_lock_path_too_long_for_the_environment_creates_nothing) {
  // Before: granted, then exec failed (ZKCOORD_LOCK_NODE too long), status 127.
  std::string path = root + "/" + std::string(131'000, 'x');
  auto r = run_cli(zkcoord({"lock", path, "true"}), clean_env, quick);
  require_one_line_error(r, 64, "bytes long; at most 1024 are allowed");
  BOOST_TEST(children(root).empty());
}

BOOST_AUTO_TEST_CASE(a_lock_path_too_deep_creates_nothing) {
  // Before: granted, leaving 32 container parents behind (until the server collects them).
  std::string path = root;
  for (int i = 0; i < 33; ++i) path += "/d";
  auto r = run_cli(zkcoord({"lock", path, "true"}), clean_env, quick);
  require_one_line_error(r, 64, "levels deep; at most 32 are allowed");
  BOOST_TEST(children(root).empty());
}

BOOST_AUTO_TEST_CASE(the_servers_own_tree_is_refused_as_a_lock_path) {
  // Before: accepted; the lock node went under /zookeeper.
  std::string name = "zkcoord-" + root.substr(root.rfind('-') + 1);
  auto r = run_cli(zkcoord({"lock", "/zookeeper/" + name, "true"}), clean_env, quick);
  require_one_line_error(r, 64, "/zookeeper is the server's own tree");
  auto names = children("/zookeeper");
  BOOST_TEST((std::find(names.begin(), names.end(), name) == names.end()));
}

BOOST_AUTO_TEST_CASE(control_bytes_of_a_bad_path_do_not_reach_the_terminal) {
  // Before: the ESC and BEL bytes were copied to stderr as they were.
  auto r = run_cli(zkcoord({"lock", "/a\x1b[31mred\a", "true"}), clean_env, quick);
  require_one_line_error(r, 64, "/a\\x1b[31mred\\x07");
  BOOST_TEST(r.err.find('\x1b') == std::string::npos);
  BOOST_TEST(r.err.find('\a') == std::string::npos);
}

BOOST_AUTO_TEST_CASE(double_dash_before_the_command_word_is_a_usage_error) {
  // Before: `--` ended the options, and "--" after PATH was run as COMMAND (127).
  auto r = run_cli(zkcoord({"--", "lock", root + "/b", "--", "echo", "ran"}), clean_env, quick);
  require_one_line_error(r, 64, "'--' before the command word");
  BOOST_TEST(children(root).empty());
}

BOOST_AUTO_TEST_CASE(a_command_that_cannot_run_is_refused_before_connecting) {
  // No server listens there: any connection attempt would end in 69 after the connect timeout.
  const std::string nowhere =
      "127.0.0.1:" + std::to_string(testing::detail::pick_free_ports(1).at(0));
  struct refusal {
    std::string command;
    int status;
    std::string says;
  };
  const std::string dir = scratch.string();
  for (const auto& c : std::vector<refusal>{
           {"/no/such/cmd", 127, "command not found: /no/such/cmd"},
           {"", 127, "empty command name"},
           {"/etc/passwd", 126, "cannot execute '/etc/passwd': permission denied"},
           {dir, 126, "is a directory"},
           {"no-such-command-zkcoord", 127, "command not found: no-such-command-zkcoord"}}) {
    // Before: found only after the grant (127, or 75 with --timeout), or 69 here.
    auto r = run_cli({test::cli_binary, "--connect", nowhere, "--connect-timeout", "20s", "lock",
                      "--timeout", "0s", root + "/a", "--", c.command},
                     clean_env, quick);
    require_one_line_error(r, c.status, c.says);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(server_command)

BOOST_AUTO_TEST_CASE(exits_at_once_when_its_zookeeper_dies) {
  cli_process server({test::cli_binary, "server", "-v"}, clean_env);
  pid_t jvm = -1;
  BOOST_REQUIRE(test::eventually(
      [&] {
        auto err = server.err_so_far();
        auto at = err.find("(pid ");
        if (at == std::string::npos) return false;
        jvm = std::stoi(err.substr(at + 5));
        return true;
      },
      60s));
  BOOST_REQUIRE(jvm > 0);
  ::kill(jvm, SIGKILL);  // as the OOM killer would
  // Before: it kept running next to the dead JVM (this wait threw).
  auto r = server.wait(20s);
  BOOST_TEST(r.status == 71, "stderr: " << r.err);
  BOOST_TEST(r.err.find("the local ZooKeeper (pid " + std::to_string(jvm) +
                        ") was killed by SIGKILL; stopping") != std::string::npos,
             "stderr: " << r.err);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(checked_once_connected, fixture)

BOOST_AUTO_TEST_CASE(a_missing_chroot_makes_lock_fail_with_78_creating_nothing) {
  // Before: "cannot acquire lock /a: node does not exist", status 70.
  auto r =
      run_cli({test::cli_binary, "--connect",
               test::shared_cluster->connect_string() + root + "/missing", "lock", "/a", "true"},
              clean_env);
  require_one_line_error(r, 78, "the chroot " + root + "/missing of --connect does not exist");
  BOOST_TEST(children(root).empty());
  // With the chroot there, the same call works.
  auto ok = run_cli({test::cli_binary, "--connect", test::shared_cluster->connect_string() + root,
                     "lock", "/a", "true"},
                    clean_env);
  BOOST_TEST(ok.status == 0, "stderr: " << ok.err);
}

BOOST_AUTO_TEST_SUITE_END()
