// SPDX-License-Identifier: Apache-2.0
// Cache-regeneration dedup: many requests in several processes miss the same cache entry;
// with dedup one regenerates it under a zkcoord efficiency lock and the others wait for the
// fresh value (a watch on a "fresh" znode) instead of computing it again.
//   cache_regen [--mode plain|dedup|both] [--processes N] [--requests N] [--compute-ms N]
// Uses $ZKCOORD_CONNECT, or starts a throwaway local ZooKeeper. The last line is the summary.
#include "cache_regen/orchestrator.hpp"
#include "cache_regen/worker.hpp"
#include "common/command_line.hpp"
#include "common/zookeeper_endpoint.hpp"

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  try {
    const examples::command_line args(argc, argv);
    if (args.has("worker")) return cache_regen::run_worker(cache_regen::parse_worker_options(args));
    if (args.has("help")) {
      std::cout << "usage: cache_regen [--mode plain|dedup|both] [--processes N] [--requests N]\n"
                   "         [--compute-ms N] [--keep]\n";
      return 0;
    }
    const auto options = cache_regen::parse_run_options(args);
    const examples::zookeeper_endpoint zookeeper;
    return cache_regen::run_orchestrator(options, zookeeper.connect_string());
  } catch (const std::exception& e) {
    std::cerr << "cache_regen: " << e.what() << "\n";
    return 1;
  }
}
