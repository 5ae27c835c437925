// SPDX-License-Identifier: Apache-2.0
// The ZooKeeper an integration test runs against: an external one named by
// $ZKCOORD_TEST_CONNECT, or a standalone server started by the harness.
#pragma once

#include <zkcoord/testing/server.hpp>
#include <zkcoord/testing/server_options.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace zkcoord::testing {

class test_cluster {
 public:
  /// Uses $ZKCOORD_TEST_CONNECT when set (starts nothing), else starts a `server`.
  explicit test_cluster(server_options options = {});
  ~test_cluster();

  std::string connect_string() const;
  /// True when running against $ZKCOORD_TEST_CONNECT.
  bool external() const noexcept;
  /// The harness-started server; throws std::runtime_error when external().
  server& local_server();

  /// Fault injection on the harness-started server; each throws std::runtime_error when
  /// external(), naming the test's need for a harness-started server.
  void stop();
  void kill();
  void pause();
  void resume();
  void restart();

 private:
  std::string external_connect_;
  std::unique_ptr<server> server_;
};

/// A fresh znode path "/zkcoord-test/<prefix>-<random>" so tests sharing an external ensemble
/// do not collide. Its parent "/zkcoord-test" may not exist yet: create it (or the node with
/// parents) first.
std::string unique_path(std::string_view prefix);

}  // namespace zkcoord::testing
