// SPDX-License-Identifier: Apache-2.0
#include "common/zookeeper_endpoint.hpp"

#include <cstdlib>
#include <iostream>

namespace examples {

zookeeper_endpoint::zookeeper_endpoint() {
  const char* named = std::getenv("ZKCOORD_CONNECT");
  if (named != nullptr && *named != '\0') {
    connect_ = named;
    return;
  }
  std::cout << "starting a local ZooKeeper (set ZKCOORD_CONNECT to use yours)..." << std::endl;
  server_ = std::make_unique<zkcoord::testing::server>();
  connect_ = server_->connect_string();
  std::cout << "local ZooKeeper at " << connect_ << std::endl;
}

}  // namespace examples
