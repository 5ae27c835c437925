// SPDX-License-Identifier: Apache-2.0
// Election failover: PARTICIPANTS participants, each on its own session, campaign on one
// election path. The leader waits until every other participant is queued behind it (seen by
// an observer session's listing), then relinquishes (async_release) and campaigns again at
// the tail. Reported per hand-over: release started -> the next participant's campaign
// completed (our delete, its watch notification, its listing). Same workload and line as
// peers/CuratorRecipeBench.java's election-failover (Curator LeaderLatch).
//   usage: zkcoord-election-bench CONNECT PARTICIPANTS SECONDS
#include <zkcoord/election.hpp>
#include <zkcoord/session.hpp>

#include "bench_stats.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace asio = boost::asio;
using zkcoord::bench::steady;
constexpr auto tuple = asio::as_tuple(asio::use_awaitable);
// Hand-overs that begin in the first second are not sampled (nor are Curator's: its JVM
// compiles the hot paths meanwhile).
constexpr auto warm_up = std::chrono::seconds(1);

namespace {

struct failover_state {
  int participants = 0;
  std::string path;  ///< per run: a crashed earlier run's live nodes cannot block this one
  steady::time_point start, deadline;  ///< the sampled window, after the warm-up
  steady::time_point released{};       ///< when the last leader started to relinquish
  int last_leader = -1;
  int finished = 0;
  long errors = 0, two_leaders = 0;
  int leading = 0;
  std::vector<steady::duration> failovers;
};

// Until the observer lists every participant (all others queued behind the leader), so each
// hand-over has a successor waiting on a watch, as in a steady election; gives up at the
// deadline (participants that finished do not rejoin).
asio::awaitable<void> wait_all_queued(zkcoord::session& observer, failover_state& f) {
  asio::steady_timer timer(co_await asio::this_coro::executor);
  while (steady::now() < f.deadline) {
    auto [ec, children] = co_await observer.async_children(f.path, tuple);
    if (!ec && children.names.size() >= static_cast<std::size_t>(f.participants)) co_return;
    timer.expires_after(std::chrono::milliseconds(1));
    co_await timer.async_wait(tuple);
  }
}

asio::awaitable<void> participant(zkcoord::session& s, zkcoord::session& observer, int id,
                                  failover_state& f) {
  zkcoord::election e(s, f.path, "participant-" + std::to_string(id));
  while (steady::now() < f.deadline) {
    auto [ec, term] = co_await e.async_campaign(tuple);
    if (ec) {
      std::fprintf(stderr, "campaign: %s\n", ec.message().c_str());
      ++f.errors;
      break;
    }
    if (++f.leading != 1) ++f.two_leaders;
    if (f.last_leader >= 0 && f.last_leader != id && f.released >= f.start &&
        f.released < f.deadline)
      f.failovers.push_back(steady::now() - f.released);
    f.last_leader = id;
    co_await wait_all_queued(observer, f);
    --f.leading;
    f.released = steady::now();
    auto [release_ec] = co_await term.async_release(tuple);
    if (release_ec) {
      std::fprintf(stderr, "release: %s\n", release_ec.message().c_str());
      ++f.errors;
      break;
    }
  }
  ++f.finished;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s CONNECT PARTICIPANTS SECONDS\n", argv[0]);
    return 2;
  }
  failover_state f;
  f.participants = std::max(2, std::atoi(argv[2]));
  f.path = "/bench/zkcoord-election/" + std::to_string(::getpid());
  asio::io_context io;
  std::vector<std::unique_ptr<zkcoord::session>> sessions;
  for (int i = 0; i <= f.participants; ++i)  // the participants and an observer
    sessions.push_back(std::make_unique<zkcoord::session>(
        io.get_executor(), zkcoord::session_options{.connect = argv[1]}));
  bool started = false;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        for (auto& s : sessions)
          if (auto [ec] = co_await s->async_connect(tuple); ec) {
            std::fprintf(stderr, "connect: %s\n", ec.message().c_str());
            ++f.errors;
            co_return;
          }
        f.start = steady::now() + warm_up;
        f.deadline = f.start + std::chrono::duration_cast<steady::duration>(
                                   std::chrono::duration<double>(std::atof(argv[3])));
        for (int i = 0; i < f.participants; ++i)
          asio::co_spawn(io, participant(*sessions[i], *sessions.back(), i, f), asio::detached);
        started = true;
      },
      asio::detached);
  // Until every participant ended (the sessions' timers keep the context busy forever).
  while (!f.errors && !(started && f.finished == f.participants)) io.run_one();
  const double elapsed = zkcoord::bench::seconds_since(f.start);
  std::printf(
      "zkcoord workload=election-failover clients=%d seconds=%.1f ops=%zu rate=%.1f/s "
      "p50=%.2fms p99=%.2fms two_leaders=%ld\n",
      f.participants, elapsed, f.failovers.size(), f.failovers.size() / elapsed,
      zkcoord::bench::quantile_ms(f.failovers, 0.5), zkcoord::bench::quantile_ms(f.failovers, 0.99),
      f.two_leaders);
  for (auto& s : sessions) s->close();
  return f.errors || f.two_leaders ? 1 : 0;
}
