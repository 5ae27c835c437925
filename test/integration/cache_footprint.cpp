// SPDX-License-Identifier: Apache-2.0
// What one tree cache costs per node (docs/cache.md, "Cost per node"): starts a local ZooKeeper,
// makes a 100 x 100 tree of 100-byte values (10,101 nodes) with one session, then measures this
// process's resident set (VmRSS) before a second session's cache starts and once it is
// initialized, with keep_data on and off, and the heap in use (mallinfo2: live allocations of
// the cache, the session's watch states and the C client's watcher tables), and the resident
// set again after malloc_trim (without the load's transient buffers). Prints one line
// per run; not a test (no assertion), not the benchmark (scripts/bench-recipes).
//   cache_footprint [CONNECT]
#include <zkcoord/cache.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/testing/server.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <malloc.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <future>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

namespace {

long rss_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

void make_tree(zkcoord::session& zk, const std::string& root) {
  const std::string value(100, 'v');
  auto create = [&](const std::string& path, const std::string& data) {
    return zk.async_create(path, data, {}, boost::asio::use_future);
  };
  try {
    create(root, "").get();
  } catch (const std::exception&) {  // already there from an earlier run
    return;
  }
  std::vector<std::future<zkcoord::created_node>> pending;
  for (int i = 0; i < 100; ++i) pending.push_back(create(root + "/p" + std::to_string(i), value));
  for (auto& f : pending) f.get();
  pending.clear();
  for (int i = 0; i < 100; ++i)
    for (int j = 0; j < 100; ++j)
      pending.push_back(create(root + "/p" + std::to_string(i) + "/c" + std::to_string(j), value));
  for (auto& f : pending) f.get();
}

}  // namespace

int main(int argc, char** argv) {
  std::unique_ptr<zkcoord::testing::server> server;
  std::string connect;
  if (argc > 1) {
    connect = argv[1];
  } else {
    server = std::make_unique<zkcoord::testing::server>();
    connect = server->connect_string();
  }
  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  std::thread runner([&] { io.run(); });
  const std::string root = "/footprint";
  {
    zkcoord::session maker(io.get_executor(), {.connect = connect});
    maker.async_connect(boost::asio::use_future).get();
    make_tree(maker, root);
  }
  for (bool keep_data : {true, false}) {
    zkcoord::session zk(io.get_executor(), {.connect = connect});
    zk.async_connect(boost::asio::use_future).get();
    malloc_trim(0);
    const long before = rss_kib();
    const std::size_t heap_before = mallinfo2().uordblks;
    const auto t0 = std::chrono::steady_clock::now();
    zkcoord::tree_cache cache(zk, root, {.keep_data = keep_data});
    cache.async_start(boost::asio::use_future).get();
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const long after = rss_kib();
    const std::size_t heap_after = mallinfo2().uordblks;
    // What stays once the load's transient buffers (thousands of reads in flight) went back.
    malloc_trim(0);
    const long after_trim = rss_kib();
    const std::size_t nodes = cache.size();
    std::cout << "keep_data=" << (keep_data ? "true " : "false") << " nodes=" << nodes
              << " load_s=" << secs << " rss_before_kib=" << before << " rss_after_kib=" << after
              << " rss_bytes_per_node=" << (after - before) * 1024.0 / static_cast<double>(nodes)
              << " rss_after_trim_bytes_per_node="
              << (after_trim - before) * 1024.0 / static_cast<double>(nodes)
              << " heap_in_use_bytes_per_node="
              << static_cast<double>(heap_after - heap_before) / static_cast<double>(nodes) << "\n";
  }
  work.reset();
  runner.join();
  return 0;
}
