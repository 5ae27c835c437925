// SPDX-License-Identifier: Apache-2.0
// zkcoord's Debian packages on a bare Debian (the consumer image of docker/Dockerfile: the
// debootstrapped base, the packages installed by apt with what they declare, and a compiler):
// a program built against them with pkg-config and with find_package takes a lock on a
// ZooKeeper container and prints its token, and `zkcoord lock` runs a command there.
#include <zkcoord/testing/container_ensemble.hpp>

#include "testing/command_runner.hpp"
#include "testing/container_labels.hpp"

#define BOOST_TEST_MODULE packages_bare_machine
#include <boost/test/unit_test.hpp>

#include <cstdlib>
#include <iostream>
#include <regex>
#include <string>

using namespace std::chrono_literals;
namespace testing = zkcoord::testing;

namespace {

std::string consumer_image() {
  const char* image = std::getenv("ZKCOORD_CONSUMER_IMAGE");
  return image && *image ? image : "zkcoord/consumer:latest";
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// The token a line "<label>: consumer ok token N node P" reports (0 when it does not).
long long token_of(const std::string& out, const std::string& label) {
  std::smatch m;
  const std::regex line(label + R"(: consumer ok token (\d+) node /zkcoord-consumer/lock/\S+)");
  return std::regex_search(out, m, line) ? std::stoll(m[1].str()) : 0;
}

}  // namespace

BOOST_AUTO_TEST_CASE(packages_install_and_a_program_built_against_them_takes_a_lock) {
  testing::container_ensemble zk({.size = 1});
  // The server's address on the ensemble's client network, which the consumer joins.
  const auto ip = testing::detail::run_command(
      {"docker", "inspect", "--format",
       "{{range .NetworkSettings.Networks}}{{if eq .NetworkID \"" + zk.client_network() +
           "\"}}{{.IPAddress}}{{end}}{{end}}",
       zk.container_id(0)},
      60s);
  BOOST_REQUIRE_MESSAGE(ip.ok(), ip.err);
  BOOST_REQUIRE_MESSAGE(!trimmed(ip.out).empty(), "the server has no address on the client network");
  const std::string connect = trimmed(ip.out) + ":2181";

  const auto run = testing::detail::run_command(
      {"docker", "run", "--rm", "--label",
       std::string(testing::detail::owner_label) + "=" + testing::detail::owner_label_value(),
       "--network", zk.client_network(), consumer_image(), "consumer-check", connect},
      600s);
  std::cout << run.out << run.err << std::flush;
  BOOST_REQUIRE_MESSAGE(run.ok(), "consumer-check exited " << run.exit_code);

  for (const char* package : {"libzkcoord0", "libzkcoord-dev", "libzkcoord-testing-dev", "zkcoord"})
    BOOST_TEST(run.out.find(std::string("installed ") + package + " 0.1.0-1") != std::string::npos,
               package);
  // Each program took the lock and got a token; the later grant's token is the larger.
  const long long by_pkg_config = token_of(run.out, "pkg-config");
  const long long by_find_package = token_of(run.out, "find_package");
  BOOST_TEST(by_pkg_config > 0);
  BOOST_TEST(by_find_package > by_pkg_config);
  std::smatch m;
  BOOST_REQUIRE(std::regex_search(run.out, m, std::regex(R"(zkcoord lock ran: token (\d+))")));
  BOOST_TEST(std::stoll(m[1].str()) > by_find_package);
}
