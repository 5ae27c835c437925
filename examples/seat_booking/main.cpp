// SPDX-License-Identifier: Apache-2.0
// The oversold comedy show: 5 seats left, 12 booking processes, one SQLite seats database.
//   seat_booking naive|lock|fenced|conditional [--pause-holder S] [--delay-ms N] [--keep]
// Uses $ZKCOORD_CONNECT, or starts a throwaway local ZooKeeper. The last line is the summary:
//   mode=M seats=5 sold=N confirmations=C stale_rejected=R oversold=O
#include "common/command_line.hpp"
#include "common/zookeeper_endpoint.hpp"
#include "seat_booking/orchestrator.hpp"
#include "seat_booking/worker.hpp"

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  try {
    const examples::command_line args(argc, argv);
    if (args.has("worker")) {
      return seat_booking::run_worker(seat_booking::parse_worker_options(args));
    }
    if (args.has("help") || args.positional().empty()) {
      std::cout << "usage: seat_booking naive|lock|fenced|conditional [--pause-holder SECONDS]\n"
                   "         [--delay-ms N] [--workers N] [--seats N] [--session-timeout-ms N]"
                   " [--keep]\n";
      return args.has("help") ? 0 : 2;
    }
    const auto options = seat_booking::parse_run_options(args);
    const bool needs_zookeeper = seat_booking::uses_lock(options.mode);
    std::optional<examples::zookeeper_endpoint> zookeeper;
    if (needs_zookeeper) zookeeper.emplace();
    return seat_booking::run_orchestrator(options, zookeeper ? zookeeper->connect_string() : "");
  } catch (const std::exception& e) {
    std::cerr << "seat_booking: " << e.what() << "\n";
    return 1;
  }
}
