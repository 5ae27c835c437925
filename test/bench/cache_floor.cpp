// SPDX-License-Identifier: Apache-2.0
// The floor under zkcoord-cache-bench's initial load, written against the ZooKeeper C client
// with nothing else: the reads a tree cache must make to load /bench/cache/load (made by
// `zkcoord-cache-bench CONNECT setup`: 100 x 100 under one root, 10,101 nodes), breadth-first,
// each node's children learned from its own listing, as fast as one client can ask.
//   usage: zkcoord-cache-floor CONNECT MODE INFLIGHT [SESSIONS]
// MODE, the reads per node:
//   watch             getData and getChildren, each arming its watch (what tree_cache does);
//   nowatch           the same two reads without watches (what CuratorCache does under its
//                     persistent recursive watch);
//   children          getChildren with its watch only (half the reads);
//   children-nowatch  getChildren only, no watch.
// INFLIGHT: the most reads outstanding at once; 0 = no bound (every read is sent as soon as
// its node is discovered). SESSIONS (1): the nodes are dealt round-robin, in the order they
// are discovered, to that many sessions (one session serves its reads in order).
// Prints the time from the first read sent to the last reply in, reads per second, and the
// CPU time (user + system) this process spent meanwhile, all its threads.
#include <zookeeper/zookeeper.h>

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace {

double cpu_ms() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  auto ms = [](const timeval& t) { return t.tv_sec * 1000.0 + t.tv_usec / 1000.0; };
  return ms(u.ru_utime) + ms(u.ru_stime);
}

using steady = std::chrono::steady_clock;

constexpr const char* root = "/bench/cache/load";
constexpr long want_nodes = 1 + 100 + 100 * 100;

struct request {
  std::string path;
  bool children;  // getChildren, else getData
};

bool with_data = true, with_watch = true;
long cap = 0;  // 0: no bound
std::vector<zhandle_t*> handles;

std::mutex mutex;
std::condition_variable finished;
std::deque<request> queue;  // discovered, not yet sent (only when capped)
long outstanding = 0, replies = 0, nodes = 0, data_bytes = 0, errors = 0, watch_events = 0;
std::size_t next_session = 0;

void no_op_watcher(zhandle_t*, int type, int, const char*, void*) {
  if (type != ZOO_SESSION_EVENT) {
    std::lock_guard lock(mutex);
    ++watch_events;  // nothing changes the tree during the run: there should be none
  }
}

void on_data(int rc, const char* value, int length, const Stat*, const void* data);
void on_children(int rc, const String_vector* names, const void* data);

// Sends one read; `mutex` is held. The path lives until its completion runs.
void send(request r) {
  auto* path = new std::string(std::move(r.path));
  zhandle_t* zh = handles[next_session++ % handles.size()];
  int rc;
  if (r.children) {
    rc = with_watch
             ? zoo_awget_children(zh, path->c_str(), no_op_watcher, nullptr, on_children, path)
             : zoo_aget_children(zh, path->c_str(), 0, on_children, path);
  } else {
    rc = with_watch ? zoo_awget(zh, path->c_str(), no_op_watcher, nullptr, on_data, path)
                    : zoo_aget(zh, path->c_str(), 0, on_data, path);
  }
  if (rc != ZOK) {
    std::fprintf(stderr, "send %s: %s\n", path->c_str(), zerror(rc));
    ++errors;
    delete path;
    return;
  }
  ++outstanding;
}

// A node is known: its reads go out now, or join the queue.
void discovered(std::string path) {
  ++nodes;
  if (with_data) {
    request d{path, false};
    if (cap == 0 || outstanding < cap) {
      send(std::move(d));
    } else {
      queue.push_back(std::move(d));
    }
  }
  request c{std::move(path), true};
  if (cap == 0 || outstanding < cap) {
    send(std::move(c));
  } else {
    queue.push_back(std::move(c));
  }
}

// One reply is in; `mutex` is held.
void replied() {
  --outstanding;
  ++replies;
  while (!queue.empty() && outstanding < cap) {
    send(std::move(queue.front()));
    queue.pop_front();
  }
  if (outstanding == 0 && queue.empty()) finished.notify_all();
}

void on_data(int rc, const char*, int length, const Stat*, const void* data) {
  std::unique_ptr<const std::string> path(static_cast<const std::string*>(data));
  std::lock_guard lock(mutex);
  if (rc != ZOK) {
    std::fprintf(stderr, "getData %s: %s\n", path->c_str(), zerror(rc));
    ++errors;
  } else {
    data_bytes += length;
  }
  replied();
}

void on_children(int rc, const String_vector* names, const void* data) {
  std::unique_ptr<const std::string> path(static_cast<const std::string*>(data));
  std::lock_guard lock(mutex);
  if (rc != ZOK) {
    std::fprintf(stderr, "getChildren %s: %s\n", path->c_str(), zerror(rc));
    ++errors;
  } else {
    for (int i = 0; i < names->count; ++i) discovered(*path + "/" + names->data[i]);
  }
  replied();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && argc != 5) {
    std::fprintf(stderr,
                 "usage: %s CONNECT watch|nowatch|children|children-nowatch INFLIGHT "
                 "[SESSIONS]\n",
                 argv[0]);
    return 2;
  }
  const std::string mode = argv[2];
  if (mode == "watch") {
  } else if (mode == "nowatch") {
    with_watch = false;
  } else if (mode == "children") {
    with_data = false;
  } else if (mode == "children-nowatch") {
    with_data = with_watch = false;
  } else {
    std::fprintf(stderr, "unknown mode %s\n", mode.c_str());
    return 2;
  }
  cap = std::atol(argv[3]);
  const int sessions = argc == 5 ? std::atoi(argv[4]) : 1;
  if (cap < 0 || sessions < 1) {
    std::fprintf(stderr, "INFLIGHT must be >= 0 and SESSIONS >= 1\n");
    return 2;
  }
  zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR);
  for (int s = 0; s < sessions; ++s) {
    zhandle_t* zh = zookeeper_init(argv[1], nullptr, 30000, nullptr, nullptr, 0);
    for (int i = 0; i < 200 && zh && zoo_state(zh) != ZOO_CONNECTED_STATE; ++i) usleep(50000);
    if (zh == nullptr || zoo_state(zh) != ZOO_CONNECTED_STATE) {
      std::fprintf(stderr, "cannot connect to %s\n", argv[1]);
      return 1;
    }
    handles.push_back(zh);
  }
  Stat stat{};
  if (zoo_exists(handles[0], root, 0, &stat) != ZOK || stat.numChildren != 100) {
    std::fprintf(stderr, "%s is not there: run zkcoord-cache-bench CONNECT setup first\n", root);
    return 1;
  }
  const double cpu_start = cpu_ms();
  const auto start = steady::now();
  steady::time_point end;
  {
    std::unique_lock lock(mutex);
    discovered(root);
    finished.wait(lock, [] { return outstanding == 0 && queue.empty(); });
    end = steady::now();
  }
  const double cpu = cpu_ms() - cpu_start;
  const double ms = std::chrono::duration<double, std::milli>(end - start).count();
  for (zhandle_t* zh : handles) zookeeper_close(zh);
  const long want_bytes = with_data ? want_nodes * 100 : 0;
  if (errors || nodes != want_nodes || data_bytes != want_bytes || watch_events) {
    std::fprintf(stderr,
                 "the walk failed: %ld errors, %ld nodes (want %ld), %ld data bytes, %ld "
                 "watch events\n",
                 errors, nodes, want_nodes, data_bytes, watch_events);
    return 1;
  }
  char inflight[24];
  if (cap == 0) {
    std::snprintf(inflight, sizeof inflight, "all");
  } else {
    std::snprintf(inflight, sizeof inflight, "%ld", cap);
  }
  std::printf(
      "floor workload=cache-floor mode=%s inflight=%s sessions=%d nodes=%ld reads=%ld "
      "load_ms=%.1f rate=%.0f/s cpu_ms=%.0f\n",
      mode.c_str(), inflight, sessions, nodes, replies, ms, replies * 1000.0 / ms, cpu);
  return 0;
}
