// SPDX-License-Identifier: Apache-2.0
// What the tests of the built `zkcoord` binary share: one real ZooKeeper for the whole test
// module, a session of the test's own and a fresh lock root and scratch directory per test.
// Include after <boost/test/unit_test.hpp> with BOOST_TEST_MODULE defined, and declare
// BOOST_TEST_GLOBAL_FIXTURE(global_server) once in the test module (after a using-declaration:
// the macro needs an unqualified name).
#pragma once

#include "cli/cli_process.hpp"

#include <zkcoord/error.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include "support/io_thread.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace zkcoord::test {

/// The binary under test, as built by this tree.
inline const std::string cli_binary = ZKCOORD_CLI_BINARY;

inline zkcoord::testing::test_cluster* shared_cluster = nullptr;
struct global_server {
  global_server() { shared_cluster = &cluster; }
  zkcoord::testing::test_cluster cluster;
};

inline bool eventually(const std::function<bool()>& condition,
                       std::chrono::milliseconds bound = std::chrono::seconds(20)) {
  auto deadline = std::chrono::steady_clock::now() + bound;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// A session of the test's own to look at (and tamper with) what the tool does, and a fresh
// lock root under /zkcoord-test for each test.
struct cli_fixture {
  test::io_thread io;
  session zk{
      io.executor(),
      {.connect = shared_cluster->connect_string(), .session_timeout = std::chrono::seconds(4)}};
  std::string root = zkcoord::testing::unique_path("cli");
  std::filesystem::path scratch =
      std::filesystem::temp_directory_path() / ("zkcoord-cli-" + root.substr(root.rfind('-') + 1));

  cli_fixture() {
    test::get(zk.async_connect(boost::asio::use_future));
    for (std::size_t slash = root.find('/', 1);; slash = root.find('/', slash + 1)) {
      auto [ec, node] =
          test::get(zk.async_create(root.substr(0, slash), "", create_options{}, tuple_future));
      BOOST_REQUIRE(!ec || ec == zk_errc::node_exists);
      if (slash == std::string::npos) break;
    }
    std::filesystem::create_directories(scratch);
  }
  ~cli_fixture() {
    std::error_code ec;
    std::filesystem::remove_all(scratch, ec);
  }

  // argv for the tool against the test's ZooKeeper.
  std::vector<std::string> zkcoord(std::vector<std::string> args) const {
    std::vector<std::string> argv{cli_binary, "--connect", shared_cluster->connect_string()};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  std::vector<std::string> children(const std::string& path) {
    auto [ec, list] = test::get(zk.async_children(path, tuple_future));
    if (ec == zk_errc::no_node) return {};
    BOOST_REQUIRE_MESSAGE(!ec, ec.message());
    return list.names;
  }
  std::string file(const std::string& name) const { return (scratch / name).string(); }
  std::string read(const std::string& name) const { return test::read_file(scratch / name); }
  bool exists(const std::string& name) const { return std::filesystem::exists(scratch / name); }
};

// Env that keeps the caller's ZKCOORD_CONNECT out of the tool's way.
inline const std::vector<std::string> clean_env{"ZKCOORD_CONNECT="};

}  // namespace zkcoord::test
