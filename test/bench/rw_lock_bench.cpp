// SPDX-License-Identifier: Apache-2.0
// Read-lock rate: READERS readers, each on its own session, loop acquire/release of the read
// lock of one read-write lock path for SECONDS. Readers share, so nobody waits for anybody:
// the rate is what the acquire and release paths cost. Same workload and line as
// peers/CuratorRecipeBench.java's read-lock (Curator InterProcessReadWriteLock.readLock()).
//   usage: zkcoord-rw-lock-bench CONNECT READERS SECONDS [--pipelined-release]
// --pipelined-release drops the held_lock instead of awaiting async_release: the delete is sent
// at once and the next acquire follows it on the same session (Curator's release blocks).
// max_holders is the most readers granted and not yet released at once (more than 1: the
// grants are shared; printed without --pipelined-release only).
#include <zkcoord/rw_lock.hpp>
#include <zkcoord/session.hpp>

#include "bench_connect.hpp"
#include "bench_stats.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace asio = boost::asio;
using zkcoord::bench::steady;
constexpr auto tuple = asio::as_tuple(asio::use_awaitable);
// Cycles that begin in the first second are not counted (nor are Curator's: its JVM compiles
// the hot paths meanwhile).
constexpr auto warm_up = std::chrono::seconds(1);

namespace {

struct read_state {
  int readers = 0;
  double seconds = 0;
  bool pipelined_release = false;
  std::string path;  ///< per run: a crashed earlier run's writer could not block this one
  std::vector<std::unique_ptr<zkcoord::session>> sessions;
  steady::time_point start, deadline;  ///< the counted window, after the warm-up
  long acquisitions = 0, errors = 0;
  int holders = 0, max_holders = 0, running = 0;
  std::vector<steady::duration> latencies;
};

asio::awaitable<bool> cycle(zkcoord::read_lock& l, read_state& b) {
  auto [ec, held] = co_await l.async_acquire(tuple);
  if (ec) {
    std::fprintf(stderr, "acquire %s: %s\n", l.path().c_str(), ec.message().c_str());
    co_return false;
  }
  b.max_holders = std::max(b.max_holders, ++b.holders);
  if (b.pipelined_release) {
    held = zkcoord::held_lock();
    --b.holders;
    co_return true;
  }
  auto [release_ec] = co_await held.async_release(tuple);
  --b.holders;
  if (release_ec) {
    std::fprintf(stderr, "release %s: %s\n", l.path().c_str(), release_ec.message().c_str());
    co_return false;
  }
  co_return true;
}

asio::awaitable<void> reader_loop(int id, read_state& b) {
  zkcoord::read_lock l(*b.sessions[id], b.path);
  std::vector<steady::duration> mine;
  while (steady::now() < b.deadline) {
    const auto t0 = steady::now();
    if (!co_await cycle(l, b)) {
      ++b.errors;
      break;
    }
    if (t0 < b.start) continue;
    mine.push_back(steady::now() - t0);
    ++b.acquisitions;
  }
  b.latencies.insert(b.latencies.end(), mine.begin(), mine.end());
  --b.running;
}

asio::awaitable<void> run(read_state& b) {
  if (!co_await zkcoord::bench::connect_all(b.sessions)) {
    ++b.errors;
    co_return;
  }
  {  // Warm-up: creates the lock path's parents (as CONTAINERs), as CuratorRecipeBench does.
    zkcoord::read_lock warm(*b.sessions[0], b.path);
    if (!co_await cycle(warm, b)) ++b.errors;
  }
  if (b.errors) co_return;
  b.start = steady::now() + warm_up;
  b.deadline = b.start + std::chrono::duration_cast<steady::duration>(
                             std::chrono::duration<double>(b.seconds));
  b.running = b.readers;
  const auto ex = co_await asio::this_coro::executor;
  for (int i = 0; i < b.readers; ++i) asio::co_spawn(ex, reader_loop(i, b), asio::detached);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4 && !(argc == 5 && std::string(argv[4]) == "--pipelined-release")) {
    std::fprintf(stderr, "usage: %s CONNECT READERS SECONDS [--pipelined-release]\n", argv[0]);
    return 2;
  }
  read_state b;
  b.pipelined_release = argc == 5;
  b.readers = std::max(1, std::atoi(argv[2]));
  b.seconds = std::atof(argv[3]);
  b.path = "/bench/zkcoord-rw/" + std::to_string(::getpid());
  asio::io_context io;
  for (int i = 0; i < b.readers; ++i)
    b.sessions.push_back(std::make_unique<zkcoord::session>(
        io.get_executor(), zkcoord::session_options{.connect = argv[1]}));
  bool started = false;
  asio::co_spawn(io, run(b), [&](std::exception_ptr) { started = true; });
  // Until every loop ended (the sessions' timers keep run() busy forever).
  while (!(started && (b.errors || (b.running == 0 && b.start != steady::time_point{}))))
    io.run_one();
  const double elapsed = zkcoord::bench::seconds_since(b.start);
  std::printf(
      "zkcoord%s workload=read-lock clients=%d seconds=%.1f ops=%ld rate=%.1f/s p50=%.2fms "
      "p99=%.2fms",
      b.pipelined_release ? "-pipelined-release" : "", b.readers, elapsed, b.acquisitions,
      b.acquisitions / elapsed, zkcoord::bench::quantile_ms(b.latencies, 0.5),
      zkcoord::bench::quantile_ms(b.latencies, 0.99));
  // A dropped handle is released at once as far as this count goes, so only an awaited
  // release shows the sharing.
  if (!b.pipelined_release) std::printf(" max_holders=%d", b.max_holders);
  std::printf("\n");
  for (auto& s : b.sessions) s->close();
  return b.errors ? 1 : 0;
}
