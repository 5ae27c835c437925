// SPDX-License-Identifier: Apache-2.0
#include <zkcoord/testing/test_cluster.hpp>

#include <cstdlib>
#include <random>
#include <stdexcept>

namespace zkcoord::testing {

test_cluster::test_cluster(server_options options) {
  if (const char* external = std::getenv("ZKCOORD_TEST_CONNECT"); external && *external) {
    external_connect_ = external;
  } else {
    server_ = std::make_unique<server>(std::move(options));
  }
}

test_cluster::~test_cluster() = default;

std::string test_cluster::connect_string() const {
  return server_ ? server_->connect_string() : external_connect_;
}

bool test_cluster::external() const noexcept {
  return !server_;
}

server& test_cluster::local_server() {
  if (!server_) {
    throw std::runtime_error(
        "zkcoord::testing: this test controls the ZooKeeper process (stop/kill/pause/restart) "
        "and needs a harness-started server; it cannot run against ZKCOORD_TEST_CONNECT=" +
        external_connect_ + " (unset ZKCOORD_TEST_CONNECT to run it)");
  }
  return *server_;
}

void test_cluster::stop() {
  local_server().stop();
}

void test_cluster::kill() {
  local_server().kill();
}

void test_cluster::pause() {
  local_server().pause();
}

void test_cluster::resume() {
  local_server().resume();
}

void test_cluster::restart() {
  local_server().restart();
}

std::string unique_path(std::string_view prefix) {
  static thread_local std::mt19937_64 rng{std::random_device{}()};
  static const char hex[] = "0123456789abcdef";
  std::string suffix;
  for (std::uint64_t bits = rng(), i = 0; i < 12; ++i, bits >>= 4) suffix += hex[bits & 0xf];
  return "/zkcoord-test/" + std::string(prefix) + "-" + suffix;
}

}  // namespace zkcoord::testing
