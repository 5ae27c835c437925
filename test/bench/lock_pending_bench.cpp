// SPDX-License-Identifier: Apache-2.0
// Many pending acquisitions on one session and one thread: LOCKS locks are held, PENDING
// acquisitions queue behind them (i % LOCKS), then the holders release and every waiter is
// granted in turn and releases at once. Reported: time to queue, time to drain, and the
// process's resident memory (VmRSS before/after queueing, VmHWM peak) from /proc/self/status.
//   usage: zkcoord-lock-pending-bench CONNECT PENDING LOCKS
#include <zkcoord/lock.hpp>
#include <zkcoord/session.hpp>

#include "bench_stats.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace asio = boost::asio;
using zkcoord::bench::steady;
constexpr auto tuple = asio::as_tuple(asio::use_awaitable);

namespace {

struct pending_state {
  int pending = 0, locks = 0;
  long granted = 0, errors = 0;
  bool done = false;
  long rss_before_kib = 0, rss_queued_kib = 0;
  double queue_s = 0, drain_s = 0;
};

std::string lock_path(int i) {
  return "/bench/zkcoord-pending/l" + std::to_string(i);
}

asio::awaitable<long> queued_nodes(zkcoord::session& s, int locks) {
  long n = 0;
  for (int i = 0; i < locks; ++i) {
    auto [ec, children] = co_await s.async_children(lock_path(i), tuple);
    if (!ec) n += static_cast<long>(children.names.size());
  }
  co_return n;
}

asio::awaitable<void> run(zkcoord::session& s, pending_state& p) {
  auto ex = co_await asio::this_coro::executor;
  if (auto [ec] = co_await s.async_connect(tuple); ec) {
    std::fprintf(stderr, "connect: %s\n", ec.message().c_str());
    ++p.errors;
    co_return;
  }
  std::vector<std::unique_ptr<zkcoord::lock>> holder_locks, waiters;
  std::vector<zkcoord::held_lock> holders;
  for (int i = 0; i < p.locks; ++i) {
    holder_locks.push_back(std::make_unique<zkcoord::lock>(s, lock_path(i)));
    auto [ec, held] = co_await holder_locks.back()->async_acquire(tuple);
    if (ec) ++p.errors;
    holders.push_back(std::move(held));
  }
  p.rss_before_kib = zkcoord::bench::proc_status_kib("VmRSS");
  const auto t0 = steady::now();
  for (int i = 0; i < p.pending; ++i) {
    waiters.push_back(std::make_unique<zkcoord::lock>(s, lock_path(i % p.locks)));
    waiters.back()->async_acquire([&p](zkcoord::error_code ec, zkcoord::held_lock held) {
      if (ec) {
        std::fprintf(stderr, "acquire: %s\n", ec.message().c_str());
        ++p.errors;
        return;
      }
      ++p.granted;
      held.async_release([&p](zkcoord::error_code rec) { p.errors += rec ? 1 : 0; });
    });
  }
  asio::steady_timer timer(ex);
  while (co_await queued_nodes(s, p.locks) < p.pending + p.locks && !p.errors) {
    timer.expires_after(std::chrono::milliseconds(50));
    co_await timer.async_wait(tuple);
  }
  p.queue_s = zkcoord::bench::seconds_since(t0);
  p.rss_queued_kib = zkcoord::bench::proc_status_kib("VmRSS");
  const auto t1 = steady::now();
  for (auto& h : holders)
    if (auto [ec] = co_await h.async_release(tuple); ec) ++p.errors;
  while (p.granted < p.pending && !p.errors) {
    timer.expires_after(std::chrono::milliseconds(10));
    co_await timer.async_wait(tuple);
  }
  p.drain_s = zkcoord::bench::seconds_since(t1);
  p.done = true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s CONNECT PENDING LOCKS\n", argv[0]);
    return 2;
  }
  pending_state p;
  p.pending = std::atoi(argv[2]);
  p.locks = std::max(1, std::atoi(argv[3]));
  asio::io_context io;
  zkcoord::session s(io.get_executor(),
                     {.connect = argv[1], .session_timeout = std::chrono::seconds(20)});
  asio::co_spawn(io, run(s, p), asio::detached);
  while (!p.done && !p.errors) io.run_one();
  std::printf(
      "zkcoord-pending pending=%d locks=%d granted=%ld queue=%.2fs drain=%.2fs "
      "rss_before=%.1fMiB rss_queued=%.1fMiB rss_peak=%.1fMiB\n",
      p.pending, p.locks, p.granted, p.queue_s, p.drain_s, p.rss_before_kib / 1024.0,
      p.rss_queued_kib / 1024.0, zkcoord::bench::proc_status_kib("VmHWM") / 1024.0);
  s.close();
  return p.errors ? 1 : 0;
}
