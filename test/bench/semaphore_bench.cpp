// SPDX-License-Identifier: Apache-2.0
// Semaphore rate: CONTENDERS contenders, each on its own session, loop acquire/release of one
// lease of a semaphore with LEASES leases for SECONDS. Same workload and line as
// peers/CuratorSemaphoreBench.java (Curator InterProcessSemaphoreV2).
//   usage: zkcoord-semaphore-bench CONNECT CONTENDERS LEASES SECONDS
// max_holders is the most leases granted and not yet released at once (at most LEASES; more
// is reported as a failure).
#include <zkcoord/semaphore.hpp>
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

struct semaphore_state {
  int contenders = 0;
  std::uint32_t leases = 0;
  double seconds = 0;
  std::string path;  ///< per run: a crashed earlier run's leases could not block this one
  std::vector<std::unique_ptr<zkcoord::session>> sessions;
  steady::time_point start, deadline;  ///< the counted window, after the warm-up
  long acquisitions = 0, errors = 0;
  int holders = 0, max_holders = 0, running = 0;
  std::vector<steady::duration> latencies;
};

asio::awaitable<bool> cycle(zkcoord::semaphore& sem, semaphore_state& b) {
  auto [ec, lease] = co_await sem.async_acquire(tuple);
  if (ec) {
    std::fprintf(stderr, "acquire %s: %s\n", sem.path().c_str(), ec.message().c_str());
    co_return false;
  }
  b.max_holders = std::max(b.max_holders, ++b.holders);
  auto [release_ec] = co_await lease.async_release(tuple);
  --b.holders;
  if (release_ec) {
    std::fprintf(stderr, "release %s: %s\n", sem.path().c_str(), release_ec.message().c_str());
    co_return false;
  }
  co_return true;
}

asio::awaitable<void> contender_loop(int id, semaphore_state& b) {
  zkcoord::semaphore sem(*b.sessions[id], b.path, b.leases);
  std::vector<steady::duration> mine;
  while (steady::now() < b.deadline) {
    const auto t0 = steady::now();
    if (!co_await cycle(sem, b)) {
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

asio::awaitable<void> run(semaphore_state& b) {
  if (!co_await zkcoord::bench::connect_all(b.sessions)) {
    ++b.errors;
    co_return;
  }
  {  // Warm-up: creates the semaphore's parents (as CONTAINERs), as CuratorSemaphoreBench does.
    zkcoord::semaphore warm(*b.sessions[0], b.path, b.leases);
    if (!co_await cycle(warm, b)) ++b.errors;
  }
  if (b.errors) co_return;
  b.start = steady::now() + warm_up;
  b.deadline = b.start + std::chrono::duration_cast<steady::duration>(
                             std::chrono::duration<double>(b.seconds));
  b.running = b.contenders;
  const auto ex = co_await asio::this_coro::executor;
  for (int i = 0; i < b.contenders; ++i) asio::co_spawn(ex, contender_loop(i, b), asio::detached);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s CONNECT CONTENDERS LEASES SECONDS\n", argv[0]);
    return 2;
  }
  semaphore_state b;
  b.contenders = std::max(1, std::atoi(argv[2]));
  b.leases = static_cast<std::uint32_t>(std::max(1, std::atoi(argv[3])));
  b.seconds = std::atof(argv[4]);
  b.path = "/bench/zkcoord-semaphore/" + std::to_string(::getpid());
  asio::io_context io;
  for (int i = 0; i < b.contenders; ++i)
    b.sessions.push_back(std::make_unique<zkcoord::session>(
        io.get_executor(), zkcoord::session_options{.connect = argv[1]}));
  bool started = false;
  asio::co_spawn(io, run(b), [&](std::exception_ptr) { started = true; });
  // Until every loop ended (the sessions' timers keep run() busy forever).
  while (!(started && (b.errors || (b.running == 0 && b.start != steady::time_point{}))))
    io.run_one();
  const double elapsed = zkcoord::bench::seconds_since(b.start);
  std::printf(
      "zkcoord workload=semaphore clients=%d leases=%u seconds=%.1f ops=%ld rate=%.1f/s "
      "p50=%.2fms p99=%.2fms max_holders=%d\n",
      b.contenders, b.leases, elapsed, b.acquisitions, b.acquisitions / elapsed,
      zkcoord::bench::quantile_ms(b.latencies, 0.5), zkcoord::bench::quantile_ms(b.latencies, 0.99),
      b.max_holders);
  for (auto& s : b.sessions) s->close();
  const bool too_many = b.max_holders > static_cast<int>(b.leases);
  if (too_many) std::fprintf(stderr, "more holders than leases: %d\n", b.max_holders);
  return b.errors || too_many ? 1 : 0;
}
