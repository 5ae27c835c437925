// SPDX-License-Identifier: Apache-2.0
// `zkcoord barrier` run as a user runs it: separate processes against a real ZooKeeper. The
// members run COMMAND only once all have entered, leave together, and exit with COMMAND's
// status; a timeout exits 75 and leaves no node; malformed arguments exit 64 with a message.
#include "cli/cli_process.hpp"

#include <zkcoord/session.hpp>

#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE cli_barrier
#include <boost/test/unit_test.hpp>

#include "cli/cli_fixture.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
using test::cli_process;
using test::run_cli;
using test::tuple_future;

namespace {

using fixture = test::cli_fixture;
using test::clean_env;
using test::eventually;
using test::global_server;

BOOST_TEST_GLOBAL_FIXTURE(global_server);

// A member's COMMAND: records its node, says it runs, exits with `status`.
std::vector<std::string> member(const fixture& f, const std::string& path, const std::string& name,
                                int status, const std::string& members = "3") {
  std::vector<std::string> argv = {"barrier", path, "--members", members, "--timeout", "60s", "--"};
  for (const std::string& word :
       {std::string("sh"), std::string("-c"),
        std::string("echo \"$ZKCOORD_BARRIER_NODE\" > \"$1.node\"; touch \"$1.ran\"; exit ") +
            std::to_string(status),
        std::string("sh"), f.file(name)})
    argv.push_back(word);
  return f.zkcoord(argv);
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(barrier_command, fixture)

BOOST_AUTO_TEST_CASE(members_run_their_command_only_once_all_entered_and_exit_with_its_status) {
  const std::string path = root + "/barrier";
  cli_process a(member(*this, path, "a", 0), clean_env);
  cli_process b(member(*this, path, "b", 3), clean_env);
  BOOST_REQUIRE(eventually([&] { return children(path).size() == 2; }));
  std::this_thread::sleep_for(300ms);
  BOOST_TEST(!exists("a.ran"), "a ran before all members entered");
  BOOST_TEST(!exists("b.ran"), "b ran before all members entered");
  cli_process c(member(*this, path, "c", 0), clean_env);
  const auto ra = a.wait(60s), rb = b.wait(60s), rc = c.wait(60s);
  BOOST_TEST(ra.status == 0, ra.err);
  BOOST_TEST(rb.status == 3, rb.err);  // COMMAND's status
  BOOST_TEST(rc.status == 0, rc.err);
  for (const char* name : {"a", "b", "c"}) {
    BOOST_TEST(exists(std::string(name) + ".ran"), name);
    BOOST_TEST(read(std::string(name) + ".node").rfind(path + "/", 0) == 0u, name);
  }
  BOOST_TEST(children(path).empty());  // every member node and `ready` gone
}

// The session lives on while COMMAND runs, however long: the member node stays and leaving
// succeeds. (Built on libzookeeper_st, a `barrier` that waited for COMMAND without running its
// io_context sent no pings, so its session expired under a COMMAND longer than the timeout.)
BOOST_AUTO_TEST_CASE(the_member_node_outlives_a_command_longer_than_the_session_timeout) {
  const std::string path = root + "/long";
  cli_process a(zkcoord({"--session-timeout", "1s", "barrier", path, "--members", "1", "--timeout",
                         "60s", "--", "sh", "-c",
                         "echo \"$ZKCOORD_BARRIER_NODE\" > \"$1.node\"; sleep 4", "sh", file("a")}),
                clean_env);
  BOOST_REQUIRE(eventually([&] { return read("a.node").rfind(path + "/", 0) == 0; }));
  std::string node = read("a.node");
  node = node.substr(path.size() + 1, node.find('\n') - path.size() - 1);
  std::this_thread::sleep_for(3s);  // three session timeouts into COMMAND
  const auto left = children(path);
  BOOST_TEST((std::find(left.begin(), left.end(), node) != left.end()),
             "the member node " << node << " went while COMMAND ran");
  const auto r = a.wait(60s);
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(children(path).empty());
}

BOOST_AUTO_TEST_CASE(a_timeout_exits_75_without_running_the_command_and_leaves_no_node) {
  const std::string path = root + "/timeout";
  auto argv = zkcoord({"barrier", path, "--members", "2", "--timeout", "500ms", "--", "sh", "-c",
                       "touch \"$1\"", "sh", file("ran")});
  const auto r = run_cli(argv, clean_env);
  BOOST_TEST(r.status == 75, r.err);
  BOOST_TEST(r.err.find("cannot enter the barrier " + path) != std::string::npos, r.err);
  BOOST_TEST(!exists("ran"));
  BOOST_TEST(children(path).empty());
}

BOOST_AUTO_TEST_CASE(malformed_arguments_exit_64_with_a_clear_message) {
  struct bad_case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<bad_case> cases{
      {{"barrier", "/b", "--", "true"}, "barrier: missing --members N"},
      {{"barrier", "/b", "--members", "0", "--", "true"}, "invalid --members '0'"},
      {{"barrier", "/b", "--members", "x", "--", "true"}, "invalid --members 'x'"},
      {{"barrier", "/b", "--members", "2"}, "barrier: missing COMMAND after PATH"},
      {{"barrier", "/b", "--members", "2", "--"}, "barrier: missing command after --"},
      {{"barrier", "--members", "2"}, "barrier: missing PATH"},
      {{"barrier", "b", "--members", "2", "--", "true"}, "path must start with '/'"},
      {{"barrier", "/b", "--members", "2", "--timeout", "0s", "--", "true"},
       "barrier: --timeout must be greater than 0"},
      {{"barrier", "/b", "--members", "2", "--hold"}, "--hold does not apply to 'barrier'"},
  };
  for (const auto& c : cases) {
    const auto r = run_cli(zkcoord(c.args), clean_env);
    BOOST_TEST_CONTEXT(c.args.size() << " args, wanted '" << c.message << "'") {
      BOOST_TEST(r.status == 64, r.err);
      BOOST_TEST(r.err.find(c.message) != std::string::npos, r.err);
    }
  }
  // A command that does not exist: 127 before anything is created.
  const auto r =
      run_cli(zkcoord({"barrier", root + "/nocmd", "--members", "1", "--", "no-such-command-zk"}),
              clean_env);
  BOOST_TEST(r.status == 127, r.err);
  BOOST_TEST(children(root + "/nocmd").empty());
}

BOOST_AUTO_TEST_SUITE_END()
