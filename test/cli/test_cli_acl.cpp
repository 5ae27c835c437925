// SPDX-License-Identifier: Apache-2.0
// `zkcoord` with credentials and ACLs, run as users run it against a real ZooKeeper: secrets
// from the environment or a private file, lock nodes and parents only their principal can
// touch, and every refusal one line with a documented status.
#include "cli/cli_process.hpp"

#include <zkcoord/lock.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include "support/io_thread.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE cli_acl
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
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

const std::string cli = ZKCOORD_CLI_BINARY;

testing::test_cluster* shared_cluster = nullptr;
struct global_server {
  global_server() { shared_cluster = &cluster; }
  testing::test_cluster cluster;
};
BOOST_TEST_GLOBAL_FIXTURE(global_server);

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds bound = 20s) {
  auto deadline = std::chrono::steady_clock::now() + bound;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

const std::string alice_auth = "ZKCOORD_AUTH=digest:alice:alice-secret";
const std::string mallory_auth = "ZKCOORD_AUTH=digest:mallory:mallory-secret";

void require_one_line_error(const test::cli_result& r, int status) {
  BOOST_TEST(r.status == status, "stderr: " << r.err);
  BOOST_TEST(r.err_lines().size() == 1u, "stderr: " << r.err);
  BOOST_TEST(r.err.rfind("zkcoord: ", 0) == 0u, "stderr: " << r.err);
}

// A session of the test's own (anonymous, or a principal's) to look at what the tool did and
// to try what a foreign client would; the test's root is open, the tool creates the rest.
struct fixture {
  test::io_thread io;
  session zk{io.executor(), {.connect = shared_cluster->connect_string(), .session_timeout = 4s}};
  std::string root = testing::unique_path("cli-acl");
  std::string path = root + "/jobs/a";
  fs::path scratch =
      fs::temp_directory_path() / ("zkcoord-cli-acl-" + root.substr(root.rfind('-') + 1));

  fixture() {
    test::get(zk.async_connect(asio::use_future));
    for (std::size_t slash = root.find('/', 1);; slash = root.find('/', slash + 1)) {
      auto [ec, node] =
          test::get(zk.async_create(root.substr(0, slash), "", create_options{}, tuple_future));
      BOOST_REQUIRE(!ec || ec == zk_errc::node_exists);
      if (slash == std::string::npos) break;
    }
    fs::create_directories(scratch);
  }
  ~fixture() {
    std::error_code ec;
    fs::remove_all(scratch, ec);
  }

  std::vector<std::string> zkcoord(std::vector<std::string> args) const {
    std::vector<std::string> argv{cli, "--connect", shared_cluster->connect_string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  std::string file(const std::string& name) const { return (scratch / name).string(); }
  bool exists(const std::string& name) const { return fs::exists(scratch / name); }
  std::string auth_file(const std::string& name, const std::string& content, mode_t mode) const {
    std::ofstream(file(name)) << content << '\n';
    ::chmod(file(name).c_str(), mode);
    return file(name);
  }

  // A holder run by alice: it signals "held" and runs until "done" exists.
  std::unique_ptr<cli_process> hold(std::vector<std::string> options, std::string env) const {
    std::vector<std::string> args{"lock"};
    args.insert(args.end(), options.begin(), options.end());
    args.insert(args.end(), {path, "sh", "-c",
                             "touch \"$1.held\"; while [ ! -e \"$1.done\" ]; do sleep 0.05; done",
                             "sh", file("alice")});
    return std::make_unique<cli_process>(zkcoord(args),
                                         std::vector<std::string>{"ZKCOORD_CONNECT=", env});
  }

  // The only lock node under `path` and its czxid, as the test's session sees it.
  std::pair<std::string, zxid> the_lock_node() {
    auto [ec, list] = test::get(zk.async_children(path, tuple_future));
    BOOST_REQUIRE_MESSAGE(!ec, ec.message());
    BOOST_REQUIRE_EQUAL(list.names.size(), 1u);
    const std::string node = path + "/" + list.names[0];
    auto [ec_stat, stat] = test::get(zk.async_exists(node, tuple_future));
    BOOST_REQUIRE(!ec_stat && stat);
    return {node, stat->czxid};
  }
};

const std::vector<std::string> no_credentials{"ZKCOORD_CONNECT=", "ZKCOORD_AUTH="};

}  // namespace

BOOST_FIXTURE_TEST_SUITE(cli_acl, fixture)

BOOST_AUTO_TEST_CASE(with_credentials_others_can_inspect_but_not_take_or_break_the_lock) {
  auto alice = hold({}, alice_auth);  // default with credentials: world-read
  BOOST_REQUIRE(eventually([&] { return exists("alice.held"); }));
  const auto [node, czxid] = the_lock_node();

  // Mallory (credentials in a private file) and an anonymous client are refused at once.
  const std::string mallory_file = auth_file("mallory", "digest:mallory:mallory-secret", 0600);
  auto foreign = run_cli(zkcoord({"lock", "--auth-file", mallory_file, path, "touch", file("ran")}),
                         no_credentials, 15s);
  require_one_line_error(foreign, 77);
  BOOST_TEST(foreign.err.find("cannot acquire lock " + path +
                              ": not authorised by the node's ACL") != std::string::npos,
             foreign.err);
  auto anonymous = run_cli(zkcoord({"lock", path, "touch", file("ran")}), no_credentials, 15s);
  require_one_line_error(anonymous, 77);
  BOOST_TEST(!exists("ran"));
  // Both may read who holds it.
  auto listing = run_cli(zkcoord({"locks", "--json", path}), {"ZKCOORD_CONNECT=", mallory_auth});
  BOOST_TEST(listing.status == 0, listing.err);
  BOOST_TEST(listing.out.find("\"token\":" + std::to_string(czxid)) != std::string::npos,
             listing.out);
  // Neither this anonymous session nor a foreign principal can delete or overwrite the node.
  auto [ec_remove] = test::get(zk.async_remove(node, -1, tuple_future));
  BOOST_TEST(ec_remove == zk_errc::no_auth, ec_remove.message());
  auto [ec_set, stat] = test::get(zk.async_set(node, "taken", -1, tuple_future));
  BOOST_TEST(ec_set == zk_errc::no_auth, ec_set.message());

  // Alice still holds, the same node with the same token, and her command ends normally.
  BOOST_TEST((the_lock_node() == std::pair<std::string, zxid>{node, czxid}));
  BOOST_TEST(alice->running());
  std::ofstream(file("alice.done")).put('x');
  auto r = alice->wait();
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.err.empty(), r.err);
}

BOOST_AUTO_TEST_CASE(creator_all_hides_holders_and_a_wrong_password_is_refused_in_bounded_time) {
  const std::string alice_file = auth_file("alice", "digest:alice:alice-secret", 0600);
  auto alice = hold({"--auth-file", alice_file, "--acl", "creator-all"}, "ZKCOORD_AUTH=");
  BOOST_REQUIRE(eventually([&] { return exists("alice.held"); }));

  auto listing = run_cli(zkcoord({"locks", path}), {"ZKCOORD_CONNECT=", mallory_auth});
  require_one_line_error(listing, 77);
  // ZooKeeper accepts any digest password when the session starts: the wrong one is another
  // identity, which the ACL refuses when the lock is requested, at once.
  auto wrong = run_cli(zkcoord({"lock", path, "touch", file("ran")}),
                       {"ZKCOORD_CONNECT=", "ZKCOORD_AUTH=digest:alice:not-her-secret"}, 15s);
  require_one_line_error(wrong, 77);
  BOOST_TEST(wrong.err.find("a wrong password is a different identity") != std::string::npos,
             wrong.err);
  BOOST_TEST(wrong.elapsed < 10s);
  BOOST_TEST(!exists("ran"));
  // The right password on another process contends as usual.
  auto again = run_cli(zkcoord({"lock", "--timeout", "0s", path, "touch", file("ran")}),
                       {"ZKCOORD_CONNECT=", alice_auth}, 15s);
  require_one_line_error(again, 75);

  std::ofstream(file("alice.done")).put('x');
  BOOST_TEST(alice->wait().status == 0);
}

BOOST_AUTO_TEST_CASE(an_auth_file_others_can_read_or_write_is_refused_before_connecting) {
  for (mode_t mode : {0644, 0640, 0620, 0606}) {
    const std::string f = auth_file("loose", "digest:alice:alice-secret", 0600);
    ::chmod(f.c_str(), mode);
    char shown[8];
    std::snprintf(shown, sizeof shown, "%04o", static_cast<unsigned>(mode));
    auto r =
        run_cli(zkcoord({"lock", "--auth-file", f, path, "touch", file("ran")}), no_credentials);
    require_one_line_error(r, 64);
    BOOST_TEST(r.err.find("has mode " + std::string(shown)) != std::string::npos, r.err);
    BOOST_TEST(r.err.find("alice-secret") == std::string::npos, r.err);
  }
  auto missing = run_cli(zkcoord({"locks", "--auth-file", file("missing")}), no_credentials);
  require_one_line_error(missing, 64);
  BOOST_TEST(missing.err.find("cannot open auth file " + file("missing") +
                              ": No such file or directory") != std::string::npos,
             missing.err);
  auto [ec, children] = test::get(zk.async_children(root, tuple_future));
  BOOST_TEST(children.names.empty(), "nothing was created");
  BOOST_TEST(!exists("ran"));
}

BOOST_AUTO_TEST_CASE(auth_on_the_command_line_still_works_but_warns) {
  auto r = run_cli(zkcoord({"lock", "--auth", "alice:alice-secret", path, "true"}), no_credentials);
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.err ==
             "zkcoord: warning: --auth on the command line is visible to other local users (ps, "
             "/proc); use ZKCOORD_AUTH or --auth-file instead\n");
}

BOOST_AUTO_TEST_CASE(creator_acls_without_credentials_are_refused) {
  for (const char* choice : {"creator-all", "world-read"}) {
    auto r =
        run_cli(zkcoord({"lock", "--acl", choice, path, "touch", file("ran")}), no_credentials);
    require_one_line_error(r, 64);
    BOOST_TEST(r.err.find("needs credentials") != std::string::npos, r.err);
  }
  BOOST_TEST(!exists("ran"));
}

BOOST_AUTO_TEST_CASE(open_acl_on_request_lets_anyone_contend) {
  auto alice = hold({"--acl", "open"}, alice_auth);
  BOOST_REQUIRE(eventually([&] { return exists("alice.held"); }));
  auto anonymous = run_cli(zkcoord({"lock", "--timeout", "0s", path, "true"}), no_credentials, 15s);
  require_one_line_error(anonymous, 75);  // busy, not refused
  std::ofstream(file("alice.done")).put('x');
  BOOST_TEST(alice->wait().status == 0);
}

BOOST_AUTO_TEST_CASE(the_lock_node_records_the_command_name_only) {
  cli_process p(zkcoord({"lock", path, "sh", "-c",
                         "touch \"$0.held\"; while [ ! -e \"$0.done\" ]; do sleep 0.05; done",
                         file("alice"), "--password=hunter2"}),
                no_credentials);
  BOOST_REQUIRE(eventually([&] { return exists("alice.held"); }));
  const auto [node, czxid] = the_lock_node();
  auto [ec, data] = test::get(zk.async_get(node, tuple_future));
  BOOST_REQUIRE_MESSAGE(!ec, ec.message());
  char session[24];
  std::snprintf(session, sizeof session, "0x%llx",
                static_cast<unsigned long long>(data.stat.ephemeral_owner));
  BOOST_TEST(data.data.find(";pid=" + std::to_string(p.pid()) + ";session=" + session +
                            ";start=") != std::string::npos,
             data.data);
  BOOST_TEST(data.data.ends_with(";app=zkcoord lock: sh"), data.data);
  BOOST_TEST(data.data.find("hunter2") == std::string::npos, data.data);
  std::ofstream(file("alice.done")).put('x');
  BOOST_TEST(p.wait().status == 0);

  cli_process described(
      zkcoord({"lock", "--describe", "nightly backup", path, "sh", "-c",
               "touch \"$0.held2\"; while [ ! -e \"$0.done2\" ]; do sleep 0.05; done",
               file("alice"), "--password=hunter2"}),
      no_credentials);
  BOOST_REQUIRE(eventually([&] { return exists("alice.held2"); }));
  auto [ec2, data2] = test::get(zk.async_get(the_lock_node().first, tuple_future));
  BOOST_TEST(data2.data.ends_with(";app=nightly backup"), data2.data);
  std::ofstream(file("alice.done2")).put('x');
  BOOST_TEST(described.wait().status == 0);
}

BOOST_AUTO_TEST_CASE(a_node_deleted_by_another_client_is_said_so) {
  auto alice = hold({"--acl", "open"}, alice_auth);
  BOOST_REQUIRE(eventually([&] { return exists("alice.held"); }));
  auto [ec] = test::get(zk.async_remove(the_lock_node().first, -1, tuple_future));
  BOOST_REQUIRE_MESSAGE(!ec, ec.message());
  auto r = alice->wait();
  BOOST_TEST(r.status == 76);
  BOOST_TEST(r.err.find("lock " + path + " lost (its node was deleted by another client)") !=
                 std::string::npos,
             r.err);
}

BOOST_AUTO_TEST_SUITE_END()
