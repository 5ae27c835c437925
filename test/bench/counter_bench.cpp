// SPDX-License-Identifier: Apache-2.0
// Counter rate: CONTENDERS contenders, each on its own session with its own
// distributed_atomic_long on one path, loop async_increment for SECONDS. Same workload and line
// as peers/CuratorCounterBench.java (Curator DistributedAtomicLong).
//   usage: zkcoord-counter-bench CONNECT CONTENDERS SECONDS optimistic|promoted
// optimistic: up to 100 compare-and-set attempts (Curator: RetryNTimes(99, 0)).
// promoted:   up to 3 optimistic attempts (Curator: RetryNTimes(2, 0)), then up to 100 under the
//             lock at a separate lock path (Curator: PromotedToLock, RetryNTimes(99, 0), 10 s).
// Only successful increments are counted (rate, p50/p99 of one successful increment); failed=
// counts those whose attempts ran out. At the end the counter is read: final= must equal every
// success (the warm-up's and the unsampled ones included); otherwise a failure line on stderr
// and exit 1.
#include <zkcoord/counter.hpp>
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
// Increments that begin in the first second are not sampled (nor are Curator's: its JVM
// compiles the hot paths meanwhile).
constexpr auto warm_up = std::chrono::seconds(1);

namespace {

struct counter_state {
  int contenders = 0;
  double seconds = 0;
  bool promoted = false;
  std::string path;  ///< per run: an earlier run's value cannot leak into this one
  std::vector<std::unique_ptr<zkcoord::session>> sessions;
  steady::time_point start, deadline;  ///< the sampled window, after the warm-up
  long sampled = 0, successes = 0, failed = 0, errors = 0;
  int running = 0;
  bool checked = false;
  std::int64_t final_value = -1;
  std::vector<steady::duration> latencies;
};

zkcoord::atomic_counter_options options_for(const counter_state& c) {
  if (!c.promoted) return {.max_tries = 100};
  return {.max_tries = 3,
          .lock_path = c.path + "-lock",
          .lock_max_tries = 100,
          .lock_timeout = std::chrono::seconds(10)};
}

asio::awaitable<void> contender_loop(int id, counter_state& c) {
  zkcoord::distributed_atomic_long counter(*c.sessions[id], c.path, options_for(c));
  std::vector<steady::duration> mine;
  while (steady::now() < c.deadline) {
    const auto t0 = steady::now();
    auto [ec, result] = co_await counter.async_increment(tuple);
    if (ec) {
      std::fprintf(stderr, "increment %s: %s\n", c.path.c_str(), ec.message().c_str());
      ++c.errors;
      break;
    }
    if (!result.succeeded) {
      if (t0 >= c.start) ++c.failed;
      continue;
    }
    ++c.successes;
    if (t0 < c.start) continue;
    mine.push_back(steady::now() - t0);
    ++c.sampled;
  }
  c.latencies.insert(c.latencies.end(), mine.begin(), mine.end());
  if (--c.running == 0) {  // the last one out reads the value every success added to
    zkcoord::distributed_atomic_long reader(*c.sessions[0], c.path);
    auto [ec, value] = co_await reader.async_get(tuple);
    if (ec) {
      std::fprintf(stderr, "get %s: %s\n", c.path.c_str(), ec.message().c_str());
      ++c.errors;
    }
    c.final_value = value.post_value;
    c.checked = true;
  }
}

asio::awaitable<void> run(counter_state& c) {
  if (!co_await zkcoord::bench::connect_all(c.sessions)) {
    ++c.errors;
    co_return;
  }
  {  // Warm-up: creates the counter and its parents, as CuratorCounterBench does.
    zkcoord::distributed_atomic_long warm(*c.sessions[0], c.path, options_for(c));
    auto [ec, result] = co_await warm.async_increment(tuple);
    if (ec || !result.succeeded) {
      std::fprintf(stderr, "warm-up increment %s: %s\n", c.path.c_str(),
                   ec ? ec.message().c_str() : "not written");
      ++c.errors;
      co_return;
    }
    ++c.successes;
  }
  c.start = steady::now() + warm_up;
  c.deadline = c.start + std::chrono::duration_cast<steady::duration>(
                             std::chrono::duration<double>(c.seconds));
  c.running = c.contenders;
  const auto ex = co_await asio::this_coro::executor;
  for (int i = 0; i < c.contenders; ++i) asio::co_spawn(ex, contender_loop(i, c), asio::detached);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc == 5 ? argv[4] : "";
  if (mode != "optimistic" && mode != "promoted") {
    std::fprintf(stderr, "usage: %s CONNECT CONTENDERS SECONDS optimistic|promoted\n", argv[0]);
    return 2;
  }
  counter_state c;
  c.contenders = std::max(1, std::atoi(argv[2]));
  c.seconds = std::atof(argv[3]);
  c.promoted = mode == "promoted";
  c.path = "/bench/zkcoord-counter/" + std::to_string(::getpid()) + "/" + mode;
  asio::io_context io;
  for (int i = 0; i < c.contenders; ++i)
    c.sessions.push_back(std::make_unique<zkcoord::session>(
        io.get_executor(), zkcoord::session_options{.connect = argv[1]}));
  bool started = false;
  asio::co_spawn(io, run(c), [&](std::exception_ptr) { started = true; });
  // Until the value was read after every loop ended (the sessions' timers keep io busy).
  while (!(started && (c.checked || (c.errors && c.running == 0)))) io.run_one();
  const double elapsed = zkcoord::bench::seconds_since(c.start);
  std::printf(
      "zkcoord workload=counter-%s clients=%d seconds=%.1f ops=%ld rate=%.1f/s p50=%.2fms "
      "p99=%.2fms failed=%ld successes=%ld final=%lld\n",
      mode.c_str(), c.contenders, elapsed, c.sampled, c.sampled / elapsed,
      zkcoord::bench::quantile_ms(c.latencies, 0.5), zkcoord::bench::quantile_ms(c.latencies, 0.99),
      c.failed, c.successes, static_cast<long long>(c.final_value));
  for (auto& s : c.sessions) s->close();
  const bool mismatch = c.checked && c.final_value != c.successes;
  if (mismatch)
    std::fprintf(stderr, "FAILED counter-%s: final value %lld != %ld successful increments\n",
                 mode.c_str(), static_cast<long long>(c.final_value), c.successes);
  return c.errors || mismatch ? 1 : 0;
}
