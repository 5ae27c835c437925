// SPDX-License-Identifier: Apache-2.0
// The floor under zkcoord-lock-pending-bench's drain, written against the ZooKeeper C client
// with nothing else: PENDING sequential ephemeral nodes on ONE session, spread over LOCKS
// parents (i % LOCKS, as the pending bench queues them); each node but the first of its parent
// has an exists watch on its predecessor. Then the first node of every parent is deleted, and
// each deletion event deletes the next node at once: the fewest requests a queue can drain
// with (one delete per hand-off, no read), hand-offs serial within a parent and concurrent
// across parents. Prints the time from the first delete to the last reply.
//   usage: zkcoord-raw-drain-floor CONNECT PENDING LOCKS
#include "bare_connect.hpp"

#include <zookeeper/zookeeper.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

using steady = std::chrono::steady_clock;

struct node {
  std::string path;  // filled by the create completion
  node* next = nullptr;
};

zhandle_t* zh = nullptr;
// answered: create and watch-setting replies (pending + pending - locks in all).
std::atomic<long> answered{0}, deleted{0}, failures{0};

void on_deleted(int rc, const void*) {
  if (rc != ZOK) ++failures;
  ++deleted;
}

void leave(node* n) {
  if (zoo_adelete(zh, n->path.c_str(), -1, on_deleted, nullptr) != ZOK) ++failures, ++deleted;
}

// The predecessor of `data`'s node is gone: its turn, and it leaves at once.
void on_predecessor_event(zhandle_t*, int type, int, const char*, void* data) {
  if (type == ZOO_DELETED_EVENT) leave(static_cast<node*>(data));
}

void on_created(int rc, const char* name, const void* data) {
  if (rc != ZOK) {
    ++failures;
  } else {
    const_cast<node*>(static_cast<const node*>(data))->path = name;
  }
  ++answered;
}

void on_watch_set(int rc, const Stat*, const void*) {
  if (rc != ZOK) ++failures;  // ZNONODE would mean the predecessor left early: it cannot here
  ++answered;
}

bool wait_for(std::atomic<long>& counter, long target) {
  for (int i = 0; i < 60000 && counter.load() < target; ++i) usleep(1000);
  return counter.load() >= target && failures.load() == 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s CONNECT PENDING LOCKS\n", argv[0]);
    return 2;
  }
  const long pending = std::atol(argv[2]);
  const int locks = std::atoi(argv[3]);
  if (pending < 1 || locks < 1 || pending < locks) {
    std::fprintf(stderr, "PENDING and LOCKS must be positive, PENDING >= LOCKS\n");
    return 2;
  }
  zh = zkcoord::bench::connect_bare(argv[1]);
  const std::string root = "/bench/raw-drain-" + std::to_string(getpid());
  for (const std::string& p : {std::string("/bench"), root}) {
    zoo_create(zh, p.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0);
  }
  std::vector<std::string> parents;
  for (int l = 0; l < locks; ++l) {
    parents.push_back(root + "/l" + std::to_string(l));
    zoo_create(zh, parents.back().c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE, 0, nullptr, 0);
  }
  // One session's requests are served in order, so each parent's nodes are numbered in the
  // order they are created here.
  std::vector<node> nodes(static_cast<size_t>(pending));
  for (long i = 0; i < pending; ++i) {
    if (i >= locks) nodes[static_cast<size_t>(i - locks)].next = &nodes[static_cast<size_t>(i)];
    const std::string prefix = parents[static_cast<size_t>(i % locks)] + "/n-";
    zoo_acreate(zh, prefix.c_str(), nullptr, -1, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL | ZOO_SEQUENCE,
                on_created, &nodes[static_cast<size_t>(i)]);
  }
  if (!wait_for(answered, pending)) {
    std::fprintf(stderr, "creating the queue failed\n");
    return 1;
  }
  for (auto& n : nodes) {
    if (n.next == nullptr) continue;
    zoo_awexists(zh, n.path.c_str(), on_predecessor_event, n.next, on_watch_set, nullptr);
  }
  if (!wait_for(answered, 2 * pending - locks)) {
    std::fprintf(stderr, "setting the watches failed\n");
    return 1;
  }
  const auto start = steady::now();
  for (int l = 0; l < locks; ++l) leave(&nodes[static_cast<size_t>(l)]);
  const bool drained = wait_for(deleted, pending);
  const double drain_s = std::chrono::duration<double>(steady::now() - start).count();
  for (auto it = parents.rbegin(); it != parents.rend(); ++it) zoo_delete(zh, it->c_str(), -1);
  zoo_delete(zh, root.c_str(), -1);
  zookeeper_close(zh);
  if (!drained) {
    std::fprintf(stderr, "the drain failed (%ld of %ld deleted)\n", deleted.load(), pending);
    return 1;
  }
  std::printf("raw-drain pending=%ld locks=%d drain=%.2fs per-handoff=%.3fms\n", pending, locks,
              drain_s, drain_s * 1000.0 * locks / static_cast<double>(pending));
  return 0;
}
