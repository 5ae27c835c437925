// SPDX-License-Identifier: Apache-2.0
// Lock throughput, same workload and output line as test/bench/peers/CuratorLockBench.java:
// CLIENTS loops acquire/release lock (i % LOCKS) for SECONDS.
//   usage: zkcoord-lock-bench CONNECT CLIENTS SECONDS LOCKS [--pipelined-release] [--read-lease]
//                             [--observer | --prometheus]
// --pipelined-release drops the held_lock instead of awaiting async_release: the delete is
// sent at once and the next acquire follows it on the same session (Curator cannot do this:
// its release blocks).
// --read-lease reads the held lock's valid_until() inside the critical section, as a holder
// does before unfenceable work: it starts the session's lease renewals (docs/session.md), and
// the line adds how many were sent (their cost to the workload).
// --observer gives every session a metrics observer counting every report with relaxed atomics,
// --prometheus the zkcoord::prometheus one (when built with prometheus-cpp): what metrics cost
// a lock cycle, against the same run without (docs/metrics.md, "Cost").
// With one lock every contender has its own session, so each handoff goes through ZooKeeper
// (and `violations` counts two contenders inside at once, across a yield in the critical
// section). With several locks all loops share
// one session and one thread: what an asynchronous client buys over a thread per lock.
#include <zkcoord/lock.hpp>
#include <zkcoord/metrics.hpp>
#include <zkcoord/session.hpp>
#ifdef ZKCOORD_BENCH_PROMETHEUS
#include <zkcoord/prometheus.hpp>

#include <prometheus/registry.h>
#endif

#include "bench_connect.hpp"
#include "bench_stats.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace asio = boost::asio;
using zkcoord::bench::steady;
constexpr auto tuple = asio::as_tuple(asio::use_awaitable);

namespace {

// The cheapest honest observer: one relaxed atomic increment per report.
struct counting_observer : zkcoord::metrics_observer {
  void request_sent(zkcoord::request_type) noexcept override { bump(); }
  void session_state_changed(zkcoord::session_state) noexcept override { bump(); }
  void lease_renewed(std::chrono::steady_clock::duration) noexcept override { bump(); }
  void acquire_started(const zkcoord::recipe_labels&) noexcept override { bump(); }
  void acquire_finished(const zkcoord::recipe_labels&, zkcoord::error_code,
                        std::chrono::steady_clock::duration) noexcept override {
    bump();
  }
  void ownership_lost(const zkcoord::recipe_labels&, zkcoord::error_code) noexcept override {
    bump();
  }
  void bump() noexcept { reports.fetch_add(1, std::memory_order_relaxed); }
  std::atomic<std::uint64_t> reports{0};
};

struct bench_state {
  int clients = 0, locks = 0;
  double seconds = 0;
  std::vector<std::unique_ptr<zkcoord::session>> sessions;
  steady::time_point start, deadline;
  bool pipelined_release = false;
  bool read_lease = false;
  std::string observer;  // "", "observer" or "prometheus"
  long acquisitions = 0, violations = 0, errors = 0, expired_leases = 0;
  int inside = 0, running = 0;
  double cpu_at_start = 0;  // this process's CPU seconds when the timed loops started
  std::vector<steady::duration> latencies;

  zkcoord::session& session_of(int client) { return *sessions[locks == 1 ? client : 0]; }
  static std::string lock_path(int i) { return "/bench/zkcoord/l" + std::to_string(i); }
};

// Inside the critical section: yields once (a post, ~1 us against a lock cycle of ms), so any
// other contender the lock wrongly granted meanwhile runs here and is counted. Without the
// yield nothing could interleave on the one thread and `violations` could never be non-zero.
asio::awaitable<void> overlap_check(bench_state& b) {
  if (++b.inside != 1) ++b.violations;
  co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
  --b.inside;
}

asio::awaitable<bool> cycle(zkcoord::lock& l, bench_state& b) {
  auto [ec, held] = co_await l.async_acquire(tuple);
  if (ec) {
    std::fprintf(stderr, "acquire %s: %s\n", l.path().c_str(), ec.message().c_str());
    co_return false;
  }
  if (b.locks == 1) co_await overlap_check(b);
  // What a holder does before unfenceable work; it starts the session's lease renewals.
  if (b.read_lease && held.valid_until() <= steady::now()) ++b.expired_leases;
  if (b.pipelined_release) {
    // Dropping the handle sends the delete without waiting for it; the next acquire's create
    // follows it on the same session, which ZooKeeper applies in order.
    held = zkcoord::held_lock();
    co_return true;
  }
  auto [release_ec] = co_await held.async_release(tuple);
  if (release_ec) {
    std::fprintf(stderr, "release %s: %s\n", l.path().c_str(), release_ec.message().c_str());
    co_return false;
  }
  co_return true;
}

asio::awaitable<void> client_loop(int id, bench_state& b) {
  zkcoord::lock l(b.session_of(id), bench_state::lock_path(id % b.locks));
  std::vector<steady::duration> mine;
  while (steady::now() < b.deadline) {
    const auto t0 = steady::now();
    if (!co_await cycle(l, b)) {
      ++b.errors;
      break;
    }
    mine.push_back(steady::now() - t0);
    ++b.acquisitions;
  }
  b.latencies.insert(b.latencies.end(), mine.begin(), mine.end());
  --b.running;
}

asio::awaitable<void> run(bench_state& b) {
  if (!co_await zkcoord::bench::connect_all(b.sessions)) {
    ++b.errors;
    co_return;
  }
  // Warm-up: creates the parents (as CONTAINERs) of every lock path in use.
  for (int i = 0; i < std::min(b.locks, b.clients); ++i) {
    zkcoord::lock warm(b.session_of(i), bench_state::lock_path(i));
    if (!co_await cycle(warm, b)) ++b.errors;
  }
  if (b.errors) co_return;
  b.start = steady::now();
  b.cpu_at_start = zkcoord::bench::process_cpu_seconds();
  b.deadline = b.start + std::chrono::duration_cast<steady::duration>(
                             std::chrono::duration<double>(b.seconds));
  b.running = b.clients;
  const auto ex = co_await asio::this_coro::executor;
  for (int i = 0; i < b.clients; ++i) asio::co_spawn(ex, client_loop(i, b), asio::detached);
}

}  // namespace

int main(int argc, char** argv) {
  bench_state b;
  bool usage = argc < 5;
  for (int i = 5; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--pipelined-release") {
      b.pipelined_release = true;
    } else if (flag == "--read-lease") {
      b.read_lease = true;
    } else if (flag == "--observer") {
      b.observer = "observer";
#ifdef ZKCOORD_BENCH_PROMETHEUS
    } else if (flag == "--prometheus") {
      b.observer = "prometheus";
#endif
    } else {
      usage = true;
    }
  }
  if (usage) {
    std::fprintf(stderr,
                 "usage: %s CONNECT CLIENTS SECONDS LOCKS [--pipelined-release] [--read-lease] "
                 "[--observer | --prometheus]\n",
                 argv[0]);
    return 2;
  }
  b.clients = std::atoi(argv[2]);
  b.seconds = std::atof(argv[3]);
  b.locks = std::max(1, std::atoi(argv[4]));
  asio::io_context io;
  const auto counter = std::make_shared<counting_observer>();
  std::shared_ptr<zkcoord::metrics_observer> observer;
  if (b.observer == "observer") observer = counter;
#ifdef ZKCOORD_BENCH_PROMETHEUS
  if (b.observer == "prometheus")
    observer = zkcoord::make_prometheus_observer(std::make_shared<prometheus::Registry>());
#endif
  for (int i = 0; i < (b.locks == 1 ? b.clients : 1); ++i)
    b.sessions.push_back(std::make_unique<zkcoord::session>(
        io.get_executor(), zkcoord::session_options{.connect = argv[1], .metrics = observer}));
  bool started = false;
  asio::co_spawn(io, run(b), [&](std::exception_ptr) { started = true; });
  // Until every loop ended (the sessions' timers keep run() busy forever).
  while (!(started && (b.errors || (b.running == 0 && b.start != steady::time_point{}))))
    io.run_one();
  const double elapsed = zkcoord::bench::seconds_since(b.start);
  const double cpu = zkcoord::bench::process_cpu_seconds() - b.cpu_at_start;
  std::printf(
      "zkcoord%s%s%s clients=%d locks=%d seconds=%.1f acquisitions=%ld rate=%.1f/s p50=%.2fms "
      "p99=%.2fms",
      b.pipelined_release ? "-pipelined-release" : "", b.read_lease ? "-read-lease" : "",
      b.observer.empty() ? "" : ("-" + b.observer).c_str(), b.clients, b.locks, elapsed,
      b.acquisitions, b.acquisitions / elapsed, zkcoord::bench::quantile_ms(b.latencies, 0.5),
      zkcoord::bench::quantile_ms(b.latencies, 0.99));
  if (b.locks == 1) std::printf(" violations=%ld", b.violations);
  if (b.read_lease) {
    std::uint64_t renewals = 0;
    for (const auto& s : b.sessions) renewals += s->sent_requests().lease_renewals;
    std::printf(" lease_renewals=%llu renewals_per_session=%.2f/s expired_leases=%ld",
                static_cast<unsigned long long>(renewals),
                static_cast<double>(renewals) / static_cast<double>(b.sessions.size()) / elapsed,
                b.expired_leases);
  }
  // The client's own cost (all its threads, the C client's too), less noisy than the rate:
  // the server's fsyncs set the rate, and other processes on the machine move it.
  std::printf(" cpu=%.1fus/acquisition",
              b.acquisitions ? cpu * 1e6 / static_cast<double>(b.acquisitions) : 0.0);
  if (b.observer == "observer")
    std::printf(" reports=%llu", static_cast<unsigned long long>(counter->reports.load()));
  std::printf("\n");
  for (auto& s : b.sessions) s->close();
  return b.errors || b.violations ? 1 : 0;
}
