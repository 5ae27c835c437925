// SPDX-License-Identifier: Apache-2.0
// The zkcoord tool run as a user runs it: separate processes against a real ZooKeeper,
// checked by exit status, output, the command's environment and the znodes left behind.
#include "cli/cli_process.hpp"

#include <zkcoord/lock.hpp>
#include <zkcoord/path.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include "support/io_thread.hpp"
#include "support/tuple_future.hpp"
#include "testing/free_ports.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE cli
#include <boost/test/unit_test.hpp>

#include "cli/cli_fixture.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace fs = std::filesystem;
using test::cli_process;
using test::run_cli;
using test::tuple_future;

namespace {

const std::string& cli = test::cli_binary;
using fixture = test::cli_fixture;
using test::clean_env;
using test::eventually;
using test::global_server;
using test::shared_cluster;

BOOST_TEST_GLOBAL_FIXTURE(global_server);

void require_one_line_error(const test::cli_result& r, int status) {
  BOOST_TEST(r.status == status);
  BOOST_TEST(r.err_lines().size() == 1u, "stderr: " << r.err);
  BOOST_TEST(r.err.rfind("zkcoord: ", 0) == 0u, "stderr: " << r.err);
  BOOST_TEST(r.out.empty(), "stdout: " << r.out);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(lock_command, fixture)

BOOST_AUTO_TEST_CASE(runs_the_command_with_token_and_node_and_exits_with_its_status) {
  std::string path = root + "/job";
  cli_process p(zkcoord({"lock", path, "--", "sh", "-c",
                         "printf '%s\\n%s\\n' \"$ZKCOORD_FENCING_TOKEN\" \"$ZKCOORD_LOCK_NODE\" "
                         "> \"$1.tmp\" && mv \"$1.tmp\" \"$1\"; "
                         "while [ ! -e \"$1.done\" ]; do sleep 0.05; done; exit 7",
                         "sh", file("env")}),
                clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("env"); }));
  auto env = read("env");
  auto newline = env.find('\n');
  std::string token = env.substr(0, newline);
  std::string node = env.substr(newline + 1, env.size() - newline - 2);
  // The token is the decimal czxid of the lock node the command runs under.
  BOOST_TEST(node.rfind(path + "/_c_", 0) == 0u, node);
  auto [ec, data] = test::get(zk.async_get(node, tuple_future));
  BOOST_REQUIRE_MESSAGE(!ec, ec.message());
  BOOST_TEST(token == std::to_string(data.stat.czxid));
  std::ofstream(file("env.done")).put('x');
  auto r = p.wait();
  BOOST_TEST(r.status == 7);
  BOOST_TEST(r.err.empty(), r.err);
  BOOST_TEST(children(path).empty(), "the lock node is released");
}

BOOST_AUTO_TEST_CASE(exit_status_of_a_signalled_command_and_of_a_missing_one) {
  auto killed = run_cli(zkcoord({"lock", root + "/a", "sh", "-c", "kill -KILL $$"}), clean_env);
  BOOST_TEST(killed.status == 128 + SIGKILL);
  auto missing = run_cli(zkcoord({"lock", root + "/a", "no-such-command-zkcoord"}), clean_env);
  require_one_line_error(missing, 127);
  BOOST_TEST(children(root + "/a").empty());
}

BOOST_AUTO_TEST_CASE(command_options_are_not_taken_for_the_tools) {
  // Everything after PATH's first word is the command's, with or without "--".
  auto r = run_cli(zkcoord({"lock", root + "/a", "sh", "-c", "echo \"$0 $1\"", "--timeout", "-v"}),
                   clean_env);
  BOOST_TEST(r.status == 0);
  BOOST_TEST(r.out == "--timeout -v\n");
}

BOOST_AUTO_TEST_CASE(connect_string_from_the_environment) {
  auto r = run_cli({cli, "lock", root + "/a", "true"},
                   {"ZKCOORD_CONNECT=" + shared_cluster->connect_string()});
  BOOST_TEST(r.status == 0, r.err);
}

BOOST_AUTO_TEST_CASE(two_processes_on_one_path_never_overlap) {
  std::string path = root + "/exclusive";
  std::string script =
      "echo start >> \"$1\"; sleep 0.3; echo end >> \"$1\"; echo start >> \"$1\"; "
      "sleep 0.1; echo end >> \"$1\"";
  std::vector<std::unique_ptr<cli_process>> runs;
  for (int i = 0; i < 3; ++i)
    runs.push_back(std::make_unique<cli_process>(
        zkcoord({"lock", path, "--", "sh", "-c", script, "sh", file("log")}), clean_env));
  for (auto& p : runs) BOOST_TEST(p->wait(60s).status == 0);
  std::string expected;
  for (int i = 0; i < 6; ++i) expected += "start\nend\n";
  BOOST_TEST(read("log") == expected);
  BOOST_TEST(children(path).empty());
}

BOOST_AUTO_TEST_CASE(timeout_while_another_holds) {
  std::string path = root + "/busy";
  cli_process holder(
      zkcoord({"lock", path, "sh", "-c", "touch \"$1\"; sleep 30", "sh", file("held")}), clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("held"); }));
  auto r = run_cli(zkcoord({"lock", "--timeout", "700ms", path, "touch", file("ran")}), clean_env);
  require_one_line_error(r, 75);
  BOOST_TEST(r.elapsed < 10s);
  BOOST_TEST(!exists("ran"));
  auto once = run_cli(zkcoord({"lock", "--timeout", "0s", path, "touch", file("ran")}), clean_env);
  require_one_line_error(once, 75);
  BOOST_TEST(!exists("ran"));
  // Only the holder's node is left: the waiters removed theirs.
  BOOST_TEST(eventually([&] { return children(path).size() == 1; }));
}

BOOST_AUTO_TEST_CASE(lost_lock_terminates_the_command) {
  std::string path = root + "/lost";
  cli_process p(zkcoord({"lock", path, "sh", "-c",
                         "trap 'echo TERM > \"$1\"; exit 0' TERM; touch \"$1.ready\"; "
                         "while true; do sleep 0.05; done",
                         "sh", file("signal")}),
                clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("signal.ready"); }));
  auto nodes = children(path);
  BOOST_REQUIRE_EQUAL(nodes.size(), 1u);
  // Someone else deleting our node is how a lock is lost without waiting for an expiry.
  auto [ec] = test::get(zk.async_remove(join_path(path, nodes[0]), -1, tuple_future));
  BOOST_REQUIRE(!ec);
  auto r = p.wait();
  BOOST_TEST(r.status == 76);
  BOOST_TEST(read("signal") == "TERM\n");
  BOOST_TEST(r.err.find("lost") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(lost_lock_kills_a_command_that_ignores_sigterm) {
  std::string path = root + "/stubborn";
  cli_process p(
      zkcoord({"lock", "--grace", "500ms", path, "sh", "-c",
               "trap '' TERM; touch \"$1\"; while true; do sleep 0.05; done", "sh", file("ready")}),
      clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("ready"); }));
  auto nodes = children(path);
  BOOST_REQUIRE_EQUAL(nodes.size(), 1u);
  auto removed_at = std::chrono::steady_clock::now();
  test::get(zk.async_remove(join_path(path, nodes[0]), -1, tuple_future));
  auto r = p.wait();
  BOOST_TEST(r.status == 76);
  BOOST_TEST((std::chrono::steady_clock::now() - removed_at) < 10s);
}

BOOST_AUTO_TEST_CASE(sigterm_is_forwarded_and_the_lock_released) {
  std::string path = root + "/forward";
  cli_process p(zkcoord({"lock", path, "sh", "-c",
                         "trap 'echo TERM > \"$1\"; exit 3' TERM; touch \"$1.ready\"; "
                         "while true; do sleep 0.05; done",
                         "sh", file("signal")}),
                clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("signal.ready"); }));
  p.signal(SIGTERM);
  auto r = p.wait();
  BOOST_TEST(r.status == 3);
  BOOST_TEST(read("signal") == "TERM\n");
  BOOST_TEST(children(path).empty());
}

BOOST_AUTO_TEST_CASE(interrupted_while_waiting) {
  std::string path = root + "/interrupt";
  cli_process holder(
      zkcoord({"lock", path, "sh", "-c", "touch \"$1\"; sleep 30", "sh", file("held")}), clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("held"); }));
  cli_process waiter(zkcoord({"lock", path, "touch", file("ran")}), clean_env);
  BOOST_REQUIRE(eventually([&] { return children(path).size() == 2; }));
  waiter.signal(SIGINT);
  auto r = waiter.wait();
  require_one_line_error(r, 128 + SIGINT);
  BOOST_TEST(!exists("ran"));
  BOOST_TEST(eventually([&] { return children(path).size() == 1; }));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(locks_command, fixture)

BOOST_AUTO_TEST_CASE(shows_holder_and_waiter_as_text_and_json) {
  std::string a = root + "/locks/a", b = root + "/locks/deeper/b";
  cli_process holder(zkcoord({"lock", a, "sh", "-c", "touch \"$1\"; sleep 30", "sh", file("held")}),
                     clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("held"); }));
  cli_process waiter(zkcoord({"lock", a, "true"}), clean_env);
  cli_process other(zkcoord({"lock", b, "sleep", "30"}), clean_env);
  BOOST_REQUIRE(eventually([&] { return children(a).size() == 2 && children(b).size() == 1; }));

  auto text = run_cli(zkcoord({"locks", a}), clean_env);
  BOOST_TEST(text.status == 0, text.err);
  BOOST_TEST(text.out.find("LOCK " + a + "\n") == 0u, text.out);
  auto holder_at = text.out.find("holder"), waiter_at = text.out.find("waiter");
  BOOST_TEST(
      (holder_at != std::string::npos && waiter_at != std::string::npos && holder_at < waiter_at),
      text.out);
  BOOST_TEST(text.out.find(std::to_string(holder.pid())) != std::string::npos, text.out);

  auto json = run_cli(zkcoord({"locks", "--json", a}), clean_env);
  BOOST_TEST(json.status == 0, json.err);
  BOOST_TEST(json.out.find("{\"locks\":[{\"path\":\"" + a +
                           "\",\"contenders\":[{\"role\":\"holder\"") == 0u,
             json.out);
  BOOST_TEST(json.out.find("\"role\":\"waiter\"") != std::string::npos, json.out);
  BOOST_TEST(json.out.find("\"pid\":" + std::to_string(holder.pid())) != std::string::npos);

  // Above both locks: each is listed.
  auto all = run_cli(zkcoord({"locks", "--json", root + "/locks"}), clean_env);
  BOOST_TEST(all.out.find("\"path\":\"" + a + "\"") != std::string::npos, all.out);
  BOOST_TEST(all.out.find("\"path\":\"" + b + "\"") != std::string::npos, all.out);
}

BOOST_AUTO_TEST_CASE(no_locks_is_not_an_error) {
  auto text = run_cli(zkcoord({"locks", root + "/nothing-here"}), clean_env);
  BOOST_TEST(text.status == 0);
  BOOST_TEST(text.out.empty());
  auto json = run_cli(zkcoord({"locks", "--json", root + "/nothing-here"}), clean_env);
  BOOST_TEST(json.status == 0);
  BOOST_TEST(json.out == "{\"locks\":[]}\n");
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(server_command)

void check_serves(const std::string& connect) {
  test::io_thread io;
  session zk{io.executor(), {.connect = connect, .session_timeout = 4s}};
  test::get(zk.async_connect(asio::use_future));
  auto [ec, node] =
      test::get(zk.async_create("/cli-server-check", "", create_options{}, tuple_future));
  BOOST_TEST(!ec, ec.message());
}

std::string first_line(cli_process& p) {
  std::string out;
  BOOST_REQUIRE(
      eventually([&] { return (out = p.out_so_far()).find('\n') != std::string::npos; }, 90s));
  return out.substr(0, out.find('\n'));
}

BOOST_AUTO_TEST_CASE(prints_a_working_connect_string_and_stops_at_stdin_eof) {
  cli_process p({cli, "server", "--until-eof"}, clean_env, /*stdin_pipe=*/true);
  std::string connect = first_line(p);
  BOOST_TEST(connect.rfind("127.0.0.1:", 0) == 0u, connect);
  check_serves(connect);
  p.close_stdin();
  auto r = p.wait(30s);
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.out == connect + "\n");
}

BOOST_AUTO_TEST_CASE(stops_on_sigterm) {
  cli_process p({cli, "server"}, clean_env);
  std::string connect = first_line(p);
  check_serves(connect);
  p.signal(SIGTERM);
  auto r = p.wait(30s);
  BOOST_TEST(r.status == 0, r.err);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(bad_input, fixture)

BOOST_AUTO_TEST_CASE(one_line_error_and_documented_status) {
  struct bad_case {
    std::string name;
    std::vector<std::string> args;
    int status;
  };
  std::string lock = root + "/bad";
  const std::vector<bad_case> cases{
      {"no command", {}, 64},
      {"unknown command", {"frobnicate"}, 64},
      {"unknown option", {"lock", "--frob", lock, "true"}, 64},
      {"missing PATH", {"lock"}, 64},
      {"missing command", {"lock", lock}, 64},
      {"missing command after --", {"lock", lock, "--"}, 64},
      {"relative path", {"lock", "bad/path", "true"}, 64},
      {"trailing slash", {"lock", lock + "/", "true"}, 64},
      {"bad path for locks", {"locks", "//x"}, 64},
      {"duration without unit", {"lock", "--timeout", "5", lock, "true"}, 64},
      {"duration with a bad unit", {"lock", "--timeout", "5y", lock, "true"}, 64},
      {"negative duration", {"--session-timeout", "-1s", "locks"}, 64},
      {"option without value", {"lock", lock, "--timeout"}, 64},
      {"--auth without colon", {"--auth", "nopassword", "locks"}, 64},
      {"--auth without user", {"--auth", ":pw", "locks"}, 64},
      {"option of another command", {"locks", "--timeout", "1s"}, 64},
      {"extra operand", {"locks", "/a", "/b"}, 64},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.name) {
      auto r = run_cli(zkcoord(c.args), clean_env, 10s);
      require_one_line_error(r, c.status);
    }
  }
  BOOST_TEST(children(root).empty(), "no znode was left behind");
}

BOOST_AUTO_TEST_CASE(malformed_connect_string) {
  for (std::string connect : {"", "localhost", "host:notaport", "host:2181/chroot/"}) {
    BOOST_TEST_CONTEXT(connect) {
      auto r = run_cli({cli, "--connect", connect, "lock", root + "/a", "touch", file("ran")},
                       clean_env, 10s);
      require_one_line_error(r, 64);
    }
  }
  auto env = run_cli({cli, "locks"}, {"ZKCOORD_CONNECT=nonsense"}, 10s);
  require_one_line_error(env, 64);
  BOOST_TEST(!exists("ran"));
}

BOOST_AUTO_TEST_CASE(unreachable_server_in_bounded_time) {
  // A port nothing listens on: refused at once, so only the connect timeout bounds the wait.
  std::string nowhere = "127.0.0.1:" + std::to_string(testing::detail::pick_free_ports(1).at(0));
  for (auto args : std::vector<std::vector<std::string>>{
           {"lock", root + "/a", "touch", file("ran")}, {"locks"}}) {
    std::vector<std::string> argv{cli, "--connect", nowhere, "--connect-timeout", "1500ms"};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_cli(argv, clean_env, 20s);
    require_one_line_error(r, 69);
    BOOST_TEST(r.elapsed < 10s);
  }
  BOOST_TEST(!exists("ran"));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(help_for_each_command) {
  for (std::vector<std::string> args : {std::vector<std::string>{"--help"},
                                        {"lock", "--help"},
                                        {"locks", "--help"},
                                        {"server", "--help"},
                                        {"help", "lock"}}) {
    std::vector<std::string> argv{cli};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run_cli(argv, clean_env, 10s);
    BOOST_TEST(r.status == 0);
    BOOST_TEST(r.out.find("Usage: zkcoord") == 0u, r.out);
    BOOST_TEST(r.err.empty());
  }
}
