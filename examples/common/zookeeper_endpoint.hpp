// SPDX-License-Identifier: Apache-2.0
// Where an example's processes find ZooKeeper: $ZKCOORD_CONNECT, or a throwaway local server
// (zkcoord::testing::server: free port, temp dir) that lives as long as this object.
#pragma once

#include <zkcoord/testing/server.hpp>

#include <memory>
#include <string>

namespace examples {

class zookeeper_endpoint {
 public:
  /// Throws std::runtime_error when no server is named and a local one cannot start.
  zookeeper_endpoint();
  const std::string& connect_string() const noexcept { return connect_; }
  bool local() const noexcept { return server_ != nullptr; }

 private:
  std::unique_ptr<zkcoord::testing::server> server_;
  std::string connect_;
};

}  // namespace examples
