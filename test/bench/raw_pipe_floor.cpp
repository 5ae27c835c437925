// SPDX-License-Identifier: Apache-2.0
// The floor under zkcoord-pipe-bench, written against the multi-threaded ZooKeeper C client
// with nothing else: WINDOW create(EPHEMERAL|SEQUENTIAL)+delete cycles in flight on one
// session for SECONDS, each next step started from the previous one's completion (on the C
// client's completion thread). Same workload and output line as zkcoord-pipe-bench.
//   usage: zkcoord-raw-pipe-floor CONNECT WINDOW SECONDS
#include "bare_connect.hpp"

#include <zookeeper/zookeeper.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>

namespace {

using steady = std::chrono::steady_clock;

zhandle_t* zh = nullptr;
steady::time_point end_at;
std::atomic<long> cycles{0};
std::atomic<int> in_flight{0};
std::atomic<bool> failed{false};

void start_cycle();

void on_deleted(int rc, const void*) {
  if (rc != ZOK) failed = true;
  ++cycles;
  if (!failed && steady::now() < end_at) {
    start_cycle();
  } else {
    --in_flight;
  }
}

void on_created(int rc, const char* name, const void*) {
  if (rc != ZOK || zoo_adelete(zh, name, -1, on_deleted, nullptr) != ZOK) {
    failed = true;
    --in_flight;
  }
}

void start_cycle() {
  if (zoo_acreate(zh, "/bench/pipe/n-", nullptr, -1, &ZOO_OPEN_ACL_UNSAFE,
                  ZOO_EPHEMERAL | ZOO_SEQUENCE, on_created, nullptr) != ZOK) {
    failed = true;
    --in_flight;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s CONNECT WINDOW SECONDS\n", argv[0]);
    return 2;
  }
  const int window = std::atoi(argv[2]);
  const double seconds = std::atof(argv[3]);
  if (window < 1 || seconds <= 0) {
    std::fprintf(stderr, "WINDOW and SECONDS must be positive\n");
    return 2;
  }
  zh = zkcoord::bench::connect_bare(argv[1]);
  for (const char* p : {"/bench", "/bench/pipe"})
    zoo_create(zh, p, nullptr, -1, &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0);
  const auto start = steady::now();
  end_at =
      start + std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(seconds));
  in_flight = window;
  for (int i = 0; i < window; ++i) start_cycle();
  while (in_flight.load() > 0) usleep(1000);
  const double elapsed = std::chrono::duration<double>(steady::now() - start).count();
  zookeeper_close(zh);
  if (failed) {
    std::fprintf(stderr, "a request failed\n");
    return 1;
  }
  std::printf("raw-pipe window=%d cycles=%ld rate=%.1f/s\n", window, cycles.load(),
              static_cast<double>(cycles.load()) / elapsed);
  return 0;
}
