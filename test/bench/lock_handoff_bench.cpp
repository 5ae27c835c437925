// SPDX-License-Identifier: Apache-2.0
// Handoff latency: CONTENDERS (default 2) contenders with their own sessions take turns on one
// lock; each holds it until all the others are queued behind it (an observer session's
// listing), then releases. Reported: release started -> the next holder's acquire completed.
// The first second is not sampled, as in test/bench/peers/CuratorLockBench.java (handoff),
// whose output line this one matches.
//   usage: zkcoord-lock-handoff-bench CONNECT SECONDS [CONTENDERS]
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

struct handoff_state {
  int contenders = 2;
  steady::time_point sampled_from;  ///< after the unsampled first second
  steady::time_point deadline;
  steady::time_point released{};  ///< when the last holder started its release
  int last_holder = -1;
  int finished = 0;
  long errors = 0;
  std::vector<steady::duration> handoffs;
};

const char* lock_path = "/bench/zkcoord-handoff/l";

// Holds until every other contender's node is queued behind ours (each re-queues right after
// its release completed), then releases.
asio::awaitable<void> contender(zkcoord::session& s, zkcoord::session& observer, int id,
                                handoff_state& h) {
  zkcoord::lock l(s, lock_path);
  asio::steady_timer timer(co_await asio::this_coro::executor);
  while (steady::now() < h.deadline) {
    auto [ec, held] = co_await l.async_acquire(tuple);
    if (ec) {
      std::fprintf(stderr, "acquire: %s\n", ec.message().c_str());
      ++h.errors;
      break;
    }
    if (h.last_holder >= 0 && h.last_holder != id && h.released >= h.sampled_from)
      h.handoffs.push_back(steady::now() - h.released);
    h.last_holder = id;
    for (int waited = 0; waited < 1000 && steady::now() < h.deadline; ++waited) {
      auto [list_ec, children] = co_await observer.async_children(lock_path, tuple);
      if (!list_ec && children.names.size() >= static_cast<std::size_t>(h.contenders)) break;
      timer.expires_after(std::chrono::milliseconds(1));
      co_await timer.async_wait(tuple);
    }
    h.released = steady::now();
    auto [release_ec] = co_await held.async_release(tuple);
    if (release_ec) ++h.errors;
  }
  ++h.finished;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s CONNECT SECONDS [CONTENDERS]\n", argv[0]);
    return 2;
  }
  handoff_state h;
  if (argc == 4) h.contenders = std::atoi(argv[3]);
  if (h.contenders < 2) {
    std::fprintf(stderr, "CONTENDERS: at least 2\n");
    return 2;
  }
  asio::io_context io;
  std::vector<std::unique_ptr<zkcoord::session>> sessions;
  for (int i = 0; i <= h.contenders; ++i)  // the contenders and an observer
    sessions.push_back(std::make_unique<zkcoord::session>(
        io.get_executor(), zkcoord::session_options{.connect = argv[1]}));
  bool started = false;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        for (auto& s : sessions)
          if (auto [ec] = co_await s->async_connect(tuple); ec) ++h.errors;
        h.sampled_from = steady::now() + std::chrono::seconds(1);
        h.deadline = h.sampled_from + std::chrono::duration_cast<steady::duration>(
                                          std::chrono::duration<double>(std::atof(argv[2])));
        for (int i = 0; i < h.contenders; ++i)
          asio::co_spawn(io, contender(*sessions[i], *sessions[h.contenders], i, h),
                         asio::detached);
        started = true;
      },
      asio::detached);
  while (!h.errors && !(started && h.finished == h.contenders)) io.run_one();
  std::printf("zkcoord-handoff contenders=%d samples=%zu p50=%.2fms p99=%.2fms\n", h.contenders,
              h.handoffs.size(), zkcoord::bench::quantile_ms(h.handoffs, 0.5),
              zkcoord::bench::quantile_ms(h.handoffs, 0.99));
  for (auto& s : sessions) s->close();
  return h.errors ? 1 : 0;
}
