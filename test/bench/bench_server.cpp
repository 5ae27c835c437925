// SPDX-License-Identifier: Apache-2.0
// Starts a throwaway ZooKeeper for the benchmarks, prints its connect string, and stops it
// when standard input closes.   usage: zkcoord-bench-server
#include <zkcoord/testing/server.hpp>

#include <iostream>
#include <string>

int main() {
  zkcoord::testing::server_options options;
  options.log_level = "WARN";
  zkcoord::testing::server zk(options);
  std::cout << zk.connect_string() << std::endl;
  std::string line;
  while (std::getline(std::cin, line)) {
  }
  return 0;
}
