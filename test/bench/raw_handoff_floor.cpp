// SPDX-License-Identifier: Apache-2.0
// The floor under zkcoord-lock-handoff-bench's figure, written against the ZooKeeper C client
// with nothing else: two sessions take turns on one lock-like queue. The waiter has its
// sequential ephemeral node behind the holder's and an exists watch on it; the holder deletes
// its node, and the sample is the time from that delete's call to the waiter's watch callback
// (the fewest steps a hand-off can take: one delete, its commit, one event; no read, no
// decision). Then the roles swap: the old holder queues again behind the new one. The first
// second is not sampled, as in the hand-off benches. Prints the line of those benches.
//   usage: zkcoord-raw-handoff-floor CONNECT SECONDS
#include "bare_connect.hpp"
#include "bench_stats.hpp"

#include <zookeeper/zookeeper.h>

#include <unistd.h>

#include <array>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace {

using zkcoord::bench::steady;

// The watch callback's clock reading, set on the waiter's completion thread.
std::mutex mutex;
std::condition_variable event_seen;
std::optional<steady::time_point> deleted_at;

void on_predecessor_event(zhandle_t*, int type, int, const char*, void*) {
  if (type != ZOO_DELETED_EVENT) return;
  const auto now = steady::now();
  std::lock_guard lock(mutex);
  deleted_at = now;
  event_seen.notify_one();
}

// A new sequential ephemeral node of `zh` in `queue`; its path.
std::string enqueue(zhandle_t* zh, const std::string& queue) {
  std::array<char, 512> path{};
  const std::string prefix = queue + "/n-";
  const int rc = zoo_create(zh, prefix.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE,
                            ZOO_EPHEMERAL | ZOO_SEQUENCE, path.data(), path.size());
  if (rc != ZOK) {
    std::fprintf(stderr, "create: %s\n", zerror(rc));
    std::exit(1);
  }
  return path.data();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s CONNECT SECONDS\n", argv[0]);
    return 2;
  }
  std::array<zhandle_t*, 2> zh{zkcoord::bench::connect_bare(argv[1]),
                               zkcoord::bench::connect_bare(argv[1])};
  const std::string queue = "/bench/raw-handoff-" + std::to_string(getpid());
  for (const std::string& p : {std::string("/bench"), queue})
    zoo_create(zh[0], p.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0);
  const auto sampled_from = steady::now() + std::chrono::seconds(1);
  const auto deadline = sampled_from + std::chrono::duration_cast<steady::duration>(
                                           std::chrono::duration<double>(std::atof(argv[2])));
  std::vector<steady::duration> handoffs;
  int holder = 0;
  std::string held = enqueue(zh[holder], queue);
  while (steady::now() < deadline) {
    const int waiter = 1 - holder;
    const std::string waiting = enqueue(zh[waiter], queue);
    {
      std::lock_guard lock(mutex);
      deleted_at.reset();
    }
    Stat stat;
    int rc = zoo_wexists(zh[waiter], held.c_str(), on_predecessor_event, nullptr, &stat);
    if (rc != ZOK) {
      std::fprintf(stderr, "exists: %s\n", zerror(rc));
      return 1;
    }
    const auto released = steady::now();
    rc = zoo_delete(zh[holder], held.c_str(), -1);
    if (rc != ZOK) {
      std::fprintf(stderr, "delete: %s\n", zerror(rc));
      return 1;
    }
    std::unique_lock lock(mutex);
    if (!event_seen.wait_for(lock, std::chrono::seconds(30),
                             [] { return deleted_at.has_value(); })) {
      std::fprintf(stderr, "no deletion event in 30 s\n");
      return 1;
    }
    if (released >= sampled_from) handoffs.push_back(*deleted_at - released);
    holder = waiter;
    held = waiting;
  }
  zoo_delete(zh[holder], held.c_str(), -1);
  zoo_delete(zh[0], queue.c_str(), -1);
  for (zhandle_t* h : zh) zookeeper_close(h);
  std::printf("raw-handoff contenders=2 samples=%zu p50=%.2fms p99=%.2fms\n", handoffs.size(),
              zkcoord::bench::quantile_ms(handoffs, 0.5),
              zkcoord::bench::quantile_ms(handoffs, 0.99));
  return 0;
}
