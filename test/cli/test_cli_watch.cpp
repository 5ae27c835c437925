// SPDX-License-Identifier: Apache-2.0
// `zkcoord watch` run as a user runs it, against a real ZooKeeper: the tree printed once
// whole, then a line per change another client makes (per path in server order), --depth and
// --json, exit 0 on SIGTERM and SIGINT, and malformed arguments refused with the usage status.
#include "cli/cli_process.hpp"

#include <zkcoord/session.hpp>

#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE cli_watch
#include <boost/test/unit_test.hpp>

#include "cli/cli_fixture.hpp"

#include <signal.h>

#include <string>
#include <vector>

using namespace zkcoord;
using test::cli_process;
using test::run_cli;
using test::tuple_future;

namespace {

using fixture = test::cli_fixture;
using test::clean_env;
using test::eventually;
using test::global_server;

BOOST_TEST_GLOBAL_FIXTURE(global_server);

void create(session& zk, const std::string& path, const std::string& data) {
  auto [ec, node] = test::get(zk.async_create(path, data, create_options{}, tuple_future));
  BOOST_REQUIRE_MESSAGE(!ec, "create " << path << ": " << ec.message());
}

bool printed(cli_process& p, const std::string& text) {
  return eventually([&] { return p.out_so_far().find(text) != std::string::npos; });
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(watch_command, fixture)

BOOST_AUTO_TEST_CASE(prints_the_tree_then_each_change_until_sigterm) {
  const std::string top = root + "/app";
  create(zk, top, "cfg");
  create(zk, top + "/a", "one");
  create(zk, top + "/a/deep", "");
  cli_process watcher(zkcoord({"watch", top}), clean_env);
  const std::string tree =
      top + " [3 bytes] cfg\n" + top + "/a [3 bytes] one\n" + top + "/a/deep [0 bytes]\n";
  BOOST_REQUIRE_MESSAGE(eventually([&] { return watcher.out_so_far() == tree; }),
                        watcher.out_so_far() << watcher.err_so_far());
  create(zk, top + "/b", "bee");
  BOOST_TEST(printed(watcher, "added " + top + "/b [3 bytes] bee\n"), watcher.out_so_far());
  test::get(zk.async_set(top + "/b", "buzz", any_version, tuple_future));
  BOOST_TEST(printed(watcher, "updated " + top + "/b [4 bytes] buzz\n"), watcher.out_so_far());
  test::get(zk.async_remove(top + "/b", any_version, tuple_future));
  BOOST_TEST(printed(watcher, "removed " + top + "/b\n"), watcher.out_so_far());
  // Per path in server order: added, updated, removed.
  const std::string out = watcher.out_so_far();
  BOOST_TEST(out.find("added " + top + "/b") < out.find("updated " + top + "/b"));
  BOOST_TEST(out.find("updated " + top + "/b") < out.find("removed " + top + "/b"));
  watcher.signal(SIGTERM);
  auto r = watcher.wait(std::chrono::seconds(10));
  BOOST_TEST(r.status == 0, r.err);
  BOOST_TEST(r.err.empty(), r.err);
  BOOST_TEST((children(top) == std::vector<std::string>{"a"}), "the watcher wrote nothing");
}

BOOST_AUTO_TEST_CASE(depth_and_json) {
  const std::string top = root + "/json";
  create(zk, top, "");
  create(zk, top + "/k", "v");
  create(zk, top + "/k/below", "x");
  cli_process watcher(zkcoord({"watch", top, "--depth", "1", "--json"}), clean_env);
  BOOST_REQUIRE_MESSAGE(printed(watcher, "\"path\":\"" + top + "/k\""), watcher.err_so_far());
  BOOST_TEST(watcher.out_so_far().find("{\"event\":\"node\",\"path\":\"" + top + "\"") == 0u);
  BOOST_TEST(watcher.out_so_far().find("/k/below") == std::string::npos, "--depth 1 went deeper");
  create(zk, top + "/new", "n");
  BOOST_TEST(printed(watcher, "{\"event\":\"added\",\"path\":\"" + top +
                                  "/new\",\"size\":1,"
                                  "\"data\":\"n\",\"czxid\":"),
             watcher.out_so_far());
  watcher.signal(SIGINT);
  BOOST_TEST(watcher.wait(std::chrono::seconds(10)).status == 0);
}

BOOST_AUTO_TEST_CASE(a_missing_path_is_followed_until_created) {
  const std::string top = root + "/later";
  cli_process watcher(zkcoord({"watch", top}), clean_env);
  BOOST_REQUIRE_MESSAGE(
      eventually([&] { return watcher.out_so_far() == "no node at " + top + "\n"; }),
      watcher.out_so_far() << watcher.err_so_far());
  create(zk, top, "here");
  BOOST_TEST(printed(watcher, "added " + top + " [4 bytes] here\n"), watcher.out_so_far());
  watcher.signal(SIGTERM);
  BOOST_TEST(watcher.wait(std::chrono::seconds(10)).status == 0);
}

BOOST_AUTO_TEST_CASE(malformed_arguments_give_the_usage_status) {
  const std::string top = root + "/bad";
  auto depth = run_cli(zkcoord({"watch", top, "--depth", "x"}), clean_env);
  BOOST_TEST(depth.status == 64);
  BOOST_TEST(depth.err.find("invalid --depth 'x'") != std::string::npos, depth.err);
  auto negative = run_cli(zkcoord({"watch", top, "--depth", "-1"}), clean_env);
  BOOST_TEST(negative.status == 64, negative.err);
  auto no_path = run_cli(zkcoord({"watch"}), clean_env);
  BOOST_TEST(no_path.status == 64);
  BOOST_TEST(no_path.err.find("watch: missing PATH") != std::string::npos, no_path.err);
  auto bad_path = run_cli(zkcoord({"watch", "relative"}), clean_env);
  BOOST_TEST(bad_path.status == 64, bad_path.err);
  auto extra = run_cli(zkcoord({"watch", top, "more"}), clean_env);
  BOOST_TEST(extra.status == 64, extra.err);
  auto wrong_option = run_cli(zkcoord({"watch", top, "--watch"}), clean_env);
  BOOST_TEST(wrong_option.status == 64, wrong_option.err);
  BOOST_TEST(children(root).empty());
}

BOOST_AUTO_TEST_SUITE_END()
