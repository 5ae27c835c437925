// SPDX-License-Identifier: Apache-2.0
// The programs whose code the docs show (examples/quickstart.cpp in docs/getting-started.md,
// docs/snippets/fenced_lock.cpp in README.md), run as a user runs them against a real ZooKeeper:
// they must do what the docs say, and fail with a message and exit status 1 on an error instead
// of hanging or exiting 0.
#define BOOST_TEST_MODULE doc_programs
#include <zkcoord/lock.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include <boost/asio/use_future.hpp>
#include <boost/test/unit_test.hpp>

#include <regex>
#include <string>

#include "cli/cli_process.hpp"
#include "support/io_thread.hpp"
#include "support/tuple_future.hpp"

namespace asio = boost::asio;
namespace testing = zkcoord::testing;
using namespace std::chrono_literals;
using zkcoord::test::run_cli;

namespace {

// One server for the file; each test runs its program under its own chroot.
testing::test_cluster* shared_cluster = nullptr;
struct global_server {
  global_server() { shared_cluster = &cluster; }
  testing::test_cluster cluster;
};
BOOST_TEST_GLOBAL_FIXTURE(global_server);

/// A session of the test's own, and a fresh chroot the program under test is pointed at.
struct chrooted {
  zkcoord::test::io_thread io;
  zkcoord::session zk{io.executor(), {.connect = shared_cluster->connect_string()}};
  std::string root = testing::unique_path("docs");

  chrooted() {
    zkcoord::test::get(zk.async_connect(asio::use_future));
    create("/zkcoord-test", /*may_exist=*/true);
    create(root, false);
  }
  void create(const std::string& path, bool may_exist) {
    auto [ec, node] =
        zkcoord::test::get(zk.async_create(path, "", {}, zkcoord::test::tuple_future));
    BOOST_REQUIRE_MESSAGE(!ec || (may_exist && ec == zkcoord::zk_errc::node_exists),
                          "create " << path << ": " << ec.message());
  }
  std::string connect_string() const { return shared_cluster->connect_string() + root; }
  zkcoord::node_stat stat(const std::string& path) {
    auto found = zkcoord::test::get(zk.async_exists(root + path, asio::use_future));
    BOOST_REQUIRE_MESSAGE(found, root + path << " does not exist");
    return *found;
  }
  bool exists(const std::string& path) {
    return zkcoord::test::get(zk.async_exists(root + path, asio::use_future)).has_value();
  }
};

zkcoord::test::cli_result run_program(const char* binary, const std::string& connect,
                                      std::chrono::seconds bound = 60s) {
  auto result = run_cli({binary, connect}, {"ZKCOORD_CONNECT="}, bound);
  BOOST_TEST_MESSAGE("$ " << binary << " " << connect << "  -> " << result.status << "\nstdout:\n"
                          << result.out << "stderr:\n"
                          << result.err);
  return result;
}

std::smatch must_find(const std::string& text, const std::string& pattern) {
  std::smatch match;
  BOOST_REQUIRE_MESSAGE(std::regex_search(text, match, std::regex(pattern)),
                        "no line matching '" << pattern << "' in:\n"
                                             << text);
  return match;
}

}  // namespace

BOOST_FIXTURE_TEST_CASE(quickstart_connects_creates_watches_and_commits_a_multi, chrooted) {
  const auto result = run_program(QUICKSTART_BINARY, connect_string());
  BOOST_TEST(result.status == 0);
  const auto created = must_find(result.out, R"(created /quickstart czxid=(\d+))");
  BOOST_TEST(std::stoll(created[1]) > 0);
  must_find(result.out, "watch fired: data_changed /quickstart\n");
  must_find(result.out, "multi committed: version 2\n");
  must_find(result.out, "session connected\n");
  // It worked in our chroot: its ephemeral node was created there and went with its session.
  BOOST_TEST(stat("").cversion >= 2);
  BOOST_TEST(!exists("/quickstart"));
}

BOOST_FIXTURE_TEST_CASE(quickstart_reports_its_first_error_and_exits_1, chrooted) {
  create(root + "/quickstart", false);  // its create fails with node_exists
  const auto result = run_program(QUICKSTART_BINARY, connect_string());
  BOOST_TEST(result.status == 1);
  must_find(result.err, "quickstart: .*exists");
  BOOST_TEST(result.out.find("watch fired") == std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(fenced_lock_books_in_token_order_and_refuses_the_late_write, chrooted) {
  const auto result = run_program(FENCED_LOCK_BINARY, connect_string());
  BOOST_TEST(result.status == 0);
  const auto first = must_find(result.out, R"(fan_a booked C14: holder=fan_a fence=(\d+)\n)");
  const auto second = must_find(result.out, R"(fan_b booked C14: holder=fan_b fence=(\d+)\n)");
  const long long fan_a_token = std::stoll(first[1]), fan_b_token = std::stoll(second[1]);
  BOOST_TEST(fan_a_token > 0);
  BOOST_TEST(fan_b_token > fan_a_token);
  must_find(result.out, "late write by fan_a with token " + std::to_string(fan_a_token) +
                            ": 0 rows changed, holder=fan_b\n");
  // Both grants were released: no lock node is left behind.
  const std::string lock_path = "/locks/shows/sh_88/C14";
  if (exists(lock_path)) BOOST_TEST(stat(lock_path).num_children == 0);
}

BOOST_FIXTURE_TEST_CASE(fenced_lock_reports_a_lock_it_cannot_get_and_exits_1, chrooted) {
  // The test holds the seat's lock, so the snippet's 5 s acquire times out.
  zkcoord::lock blocker(zk, root + "/locks/shows/sh_88/C14");
  auto held = zkcoord::test::get(blocker.async_acquire(asio::use_future));
  const auto result = run_program(FENCED_LOCK_BINARY, connect_string());
  BOOST_TEST(result.status == 1);
  must_find(result.err, "fenced_lock: .*tim");
  BOOST_TEST(result.out.find("booked") == std::string::npos);
}

BOOST_FIXTURE_TEST_CASE(async_shapes_complete_with_callback_future_and_coroutine, chrooted) {
  const auto result = run_program(ASYNC_SHAPES_BINARY, connect_string());
  BOOST_TEST(result.status == 0);
  must_find(result.out, "coroutine: read hello\n");
  must_find(result.out, "coroutine: /missing: the node is not there\n");
  const auto granted = must_find(result.out, R"(coroutine: lock granted, token (\d+)\n)");
  // The token is the lock node's czxid: created after /shapes, within the lock path's life.
  BOOST_TEST(std::stoll(granted[1]) > stat("/shapes").czxid);
  BOOST_TEST(std::stoll(granted[1]) > stat("/shapes-lock").czxid);
  must_find(result.out, R"(future: / has [1-9]\d* children\n)");
  must_find(result.out, "callback: /shapes exists\n");
  // It ran in our chroot, and its lock node went with the grant's release.
  BOOST_TEST(exists("/shapes"));
  BOOST_TEST(stat("/shapes-lock").num_children == 0);
}

BOOST_FIXTURE_TEST_CASE(async_shapes_reports_a_failed_create_and_exits_1, chrooted) {
  create(root + "/shapes", false);  // the coroutine's create fails with node_exists
  const auto result = run_program(ASYNC_SHAPES_BINARY, connect_string());
  BOOST_TEST(result.status == 1);
  must_find(result.err, "async_shapes: .*exists");
  BOOST_TEST(result.out.find("callback:") == std::string::npos);
}
