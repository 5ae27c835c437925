// SPDX-License-Identifier: Apache-2.0
// `zkcoord counter` run as a user runs it, against a real ZooKeeper: get, add (negative too),
// set and cas on Curator's 8- and 4-byte layouts, the distinct status of a cas that loses,
// concurrent adds from several processes summing, and malformed arguments refused with the
// usage status before anything is created.
#include "cli/cli_process.hpp"

#include <zkcoord/session.hpp>

#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE cli_counter
#include <boost/test/unit_test.hpp>

#include "cli/cli_fixture.hpp"

#include <memory>
#include <string>
#include <vector>

using namespace zkcoord;
using test::cli_process;
using test::run_cli;
using test::tuple_future;

namespace {

using fixture = test::cli_fixture;
using test::clean_env;
using test::global_server;

BOOST_TEST_GLOBAL_FIXTURE(global_server);

}  // namespace

BOOST_FIXTURE_TEST_SUITE(counter_command, fixture)

BOOST_AUTO_TEST_CASE(get_add_set_and_cas_on_a_long) {
  const std::string path = root + "/hits";
  auto got = run_cli(zkcoord({"counter", path}), clean_env);
  BOOST_TEST(got.status == 0, got.err);
  BOOST_TEST(got.out == "0\n");
  BOOST_TEST(children(root).empty(), "a read creates nothing");

  auto added = run_cli(zkcoord({"counter", path, "add", "5"}), clean_env);
  BOOST_TEST(added.status == 0, added.err);
  BOOST_TEST(added.out == "5\n");
  auto less = run_cli(zkcoord({"counter", path, "add", "-7"}), clean_env);
  BOOST_TEST(less.status == 0, less.err);
  BOOST_TEST(less.out == "-2\n");
  auto [ec, node] = test::get(zk.async_get(path, tuple_future));
  BOOST_TEST_REQUIRE(!ec);
  BOOST_TEST(node.data == std::string("\xff\xff\xff\xff\xff\xff\xff\xfe", 8));

  auto set = run_cli(zkcoord({"counter", path, "set", "40"}), clean_env);
  BOOST_TEST(set.status == 0, set.err);
  BOOST_TEST(set.out == "40\n");
  auto cas = run_cli(zkcoord({"counter", path, "cas", "40", "41"}), clean_env);
  BOOST_TEST(cas.status == 0, cas.err);
  BOOST_TEST(cas.out == "41\n");

  // A cas that loses: its own status, nothing written, the value it found in the message.
  auto lost = run_cli(zkcoord({"counter", path, "cas", "40", "99"}), clean_env);
  BOOST_TEST(lost.status == 1, lost.err);
  BOOST_TEST(lost.out.empty());
  BOOST_TEST(lost.err.find("holds 41, not 40") != std::string::npos, lost.err);
  auto after = run_cli(zkcoord({"counter", path, "get"}), clean_env);
  BOOST_TEST(after.out == "41\n");
}

BOOST_AUTO_TEST_CASE(four_bytes_and_the_wrong_width) {
  const std::string path = root + "/int";
  auto added = run_cli(zkcoord({"counter", path, "add", "258", "--bytes", "4"}), clean_env);
  BOOST_TEST(added.status == 0, added.err);
  auto [ec, node] = test::get(zk.async_get(path, tuple_future));
  BOOST_TEST_REQUIRE(!ec);
  BOOST_TEST(node.data == std::string("\0\0\x01\x02", 4));
  // Read as a long, the four bytes are another recipe's data: 65, with the reason.
  auto wrong = run_cli(zkcoord({"counter", path}), clean_env);
  BOOST_TEST(wrong.status == 65, wrong.err);
  BOOST_TEST(wrong.err.find("wrong length") != std::string::npos, wrong.err);
}

BOOST_AUTO_TEST_CASE(concurrent_adds_from_several_processes_sum) {
  const std::string path = root + "/together";
  std::vector<std::unique_ptr<cli_process>> procs;
  for (int i = 0; i < 6; ++i)
    procs.push_back(
        std::make_unique<cli_process>(zkcoord({"counter", path, "add", "3"}), clean_env));
  for (auto& p : procs) BOOST_TEST(p->wait().status == 0);
  auto got = run_cli(zkcoord({"counter", path}), clean_env);
  BOOST_TEST(got.out == "18\n");
}

BOOST_AUTO_TEST_CASE(malformed_arguments_are_refused_before_connecting) {
  const std::string path = root + "/bad";
  const std::vector<std::vector<std::string>> cases = {
      {"counter"},
      {"counter", path, "add"},
      {"counter", path, "add", "x"},
      {"counter", path, "add", "1.5"},
      {"counter", path, "set", "1", "2"},
      {"counter", path, "cas", "1"},
      {"counter", path, "frobnicate"},
      {"counter", path, "add", "99999999999", "--bytes", "4"},
      {"counter", path, "add", "99999999999999999999"},
      {"counter", path, "--bytes", "2"},
      {"counter", "relative/path"},
      {"counter", path, "--watch"},
  };
  for (const auto& args : cases) {
    auto r = run_cli(zkcoord(args), clean_env);
    BOOST_TEST_CONTEXT(args.back()) {
      BOOST_TEST(r.status == 64, r.err);
      BOOST_TEST(!r.err.empty());
    }
  }
  BOOST_TEST(children(root).empty());
}

BOOST_AUTO_TEST_SUITE_END()
