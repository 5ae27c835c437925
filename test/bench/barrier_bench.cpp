// SPDX-License-Identifier: Apache-2.0
// Double barrier rounds: MEMBERS members, each on its own session, of one double_barrier path
// (member_count MEMBERS). A round: every member starts async_enter at once; once all have
// entered, every member starts async_leave at once; once all have left, the next round (a new
// double_barrier object per member and round, as a new DistributedDoubleBarrier per round is
// in peers/CuratorBarrierBench.java; same workload and lines).
//   usage: zkcoord-barrier-bench CONNECT MEMBERS SECONDS
// Sampled per round (rounds starting in the first second are not):
//   barrier-enter: the last member's enter started -> the last member's enter completed;
//   barrier-leave: the last member's leave started -> the last member's leave completed.
// rate= is rounds per second (both lines).
#include <zkcoord/barrier.hpp>
#include <zkcoord/session.hpp>

#include "bench_connect.hpp"
#include "bench_stats.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
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
constexpr auto warm_up = std::chrono::seconds(1);
// A generous liveness bound: a member that waits longer fails the run.
constexpr auto step_timeout = std::chrono::seconds(60);

namespace {

struct barrier_state {
  int members = 0;
  double seconds = 0;
  std::string path;  ///< per run: an earlier run's nodes cannot count in this one
  std::vector<std::unique_ptr<zkcoord::session>> sessions;
  steady::time_point start, deadline;  ///< the sampled window, after the warm-up
  long rounds = 0, errors = 0;
  bool finished = false;
  std::vector<steady::duration> enters, leaves;
};

// Starts every member's enter (or leave) at once; completes when all have completed. Returns
// the last start -> the last completion.
asio::awaitable<steady::duration> step(barrier_state& b,
                                       std::vector<std::unique_ptr<zkcoord::double_barrier>>& db,
                                       bool enter) {
  const auto ex = co_await asio::this_coro::executor;
  asio::steady_timer all_done(ex, steady::time_point::max());
  int pending = b.members;
  steady::time_point last_start{}, last_end{};
  for (int i = 0; i < b.members; ++i) {
    asio::co_spawn(
        ex,
        [&, i]() -> asio::awaitable<void> {
          last_start = std::max(last_start, steady::now());
          auto [ec] = enter ? co_await db[i]->async_enter(step_timeout, tuple)
                            : co_await db[i]->async_leave(step_timeout, tuple);
          last_end = std::max(last_end, steady::now());
          if (ec) {
            std::fprintf(stderr, "%s %s: %s\n", enter ? "enter" : "leave", b.path.c_str(),
                         ec.message().c_str());
            ++b.errors;
          }
          if (--pending == 0) all_done.cancel();
        },
        asio::detached);
  }
  co_await all_done.async_wait(tuple);
  co_return last_end - last_start;
}

asio::awaitable<void> run(barrier_state& b) {
  if (!co_await zkcoord::bench::connect_all(b.sessions)) {
    ++b.errors;
    co_return;
  }
  b.start = steady::now() + warm_up;
  b.deadline = b.start + std::chrono::duration_cast<steady::duration>(
                             std::chrono::duration<double>(b.seconds));
  while (steady::now() < b.deadline && !b.errors) {
    const bool sampled = steady::now() >= b.start;
    std::vector<std::unique_ptr<zkcoord::double_barrier>> db;
    for (int i = 0; i < b.members; ++i)
      db.push_back(std::make_unique<zkcoord::double_barrier>(
          *b.sessions[i], b.path, static_cast<std::uint32_t>(b.members)));
    const auto entered = co_await step(b, db, true);
    if (b.errors) break;
    const auto left = co_await step(b, db, false);
    if (b.errors || !sampled) continue;
    b.enters.push_back(entered);
    b.leaves.push_back(left);
    ++b.rounds;
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s CONNECT MEMBERS SECONDS\n", argv[0]);
    return 2;
  }
  barrier_state b;
  b.members = std::max(1, std::atoi(argv[2]));
  b.seconds = std::atof(argv[3]);
  b.path = "/bench/zkcoord-barrier/" + std::to_string(::getpid());
  asio::io_context io;
  for (int i = 0; i < b.members; ++i)
    b.sessions.push_back(std::make_unique<zkcoord::session>(
        io.get_executor(), zkcoord::session_options{.connect = argv[1]}));
  asio::co_spawn(io, run(b), [&](std::exception_ptr) { b.finished = true; });
  while (!b.finished) io.run_one();
  const double elapsed = zkcoord::bench::seconds_since(b.start);
  for (const char* which : {"enter", "leave"}) {
    const auto& samples = which[0] == 'e' ? b.enters : b.leaves;
    std::printf(
        "zkcoord workload=barrier-%s members=%d seconds=%.1f ops=%ld rate=%.1f/s p50=%.2fms "
        "p99=%.2fms\n",
        which, b.members, elapsed, b.rounds, b.rounds / elapsed,
        zkcoord::bench::quantile_ms(samples, 0.5), zkcoord::bench::quantile_ms(samples, 0.99));
  }
  for (auto& s : b.sessions) s->close();
  return b.errors ? 1 : 0;
}
