// SPDX-License-Identifier: Apache-2.0
// Group membership: MEMBERS members join a fresh group over ONE session (every join issued at
// once, pipelined, as a user of the async API would), while VIEWERS viewers, each a group_view
// on its own session, follow the group. Same workload and line as
// peers/CuratorMembershipBench.java (Curator PersistentNode EPHEMERAL, GroupMember's node, and
// one CuratorCache per viewer).
//   usage: zkcoord-membership-bench CONNECT [MEMBERS [VIEWERS]]   (default 1000 and 10)
// all_joined_ms: first join issued -> every join completed; all_seen_ms: first join issued ->
// every viewer's snapshot holds all MEMBERS members; rss_kib: the process's peak resident set
// (VmHWM). The viewers have read the (missing, so empty) group before the first join. Then
// every member leaves (pipelined) and the run checks that every viewer sees the group empty
// and the group holds no child (left_ms: first leave issued -> every viewer saw it empty).
#include <zkcoord/membership.hpp>
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

namespace {

struct membership_state {
  int members = 0, viewers = 0;
  std::string path;  ///< per run: a crashed earlier run's members could not be counted
  std::vector<std::unique_ptr<zkcoord::session>> sessions;  ///< [0] the members', then viewers'
  std::vector<zkcoord::membership> joined;
  int joins_done = 0, leaves_done = 0, ready = 0, seen = 0, emptied = 0, errors = 0;
  steady::time_point start, all_joined, all_seen, leave_start, all_left;
};

double ms(steady::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

/// Waits until the view's snapshot has `want` members (any other size: wait again).
asio::awaitable<bool> wait_size(zkcoord::group_view& view, std::size_t want, membership_state& b) {
  for (;;) {
    auto [ec, members] = co_await view.async_wait_change(tuple);
    if (ec) {
      std::fprintf(stderr, "view %s: %s\n", view.path().c_str(), ec.message().c_str());
      ++b.errors;
      co_return false;
    }
    if (members.size() == want) co_return true;
  }
}

asio::awaitable<void> viewer(int id, membership_state& b) {
  zkcoord::group_view view(*b.sessions[1 + id], b.path);
  // The first wait completes once the group has been read (missing: empty).
  auto [ec, members] = co_await view.async_wait_change(tuple);
  if (ec || !members.empty()) {
    std::fprintf(stderr, "first view of %s: %s, %zu members\n", b.path.c_str(),
                 ec.message().c_str(), members.size());
    ++b.errors;
    co_return;
  }
  ++b.ready;
  if (!co_await wait_size(view, static_cast<std::size_t>(b.members), b)) co_return;
  if (++b.seen == b.viewers) b.all_seen = steady::now();
  if (!co_await wait_size(view, 0, b)) co_return;
  if (++b.emptied == b.viewers) b.all_left = steady::now();
}

std::string member_id(int i) {
  char id[16];
  std::snprintf(id, sizeof id, "m%05d", i);
  return id;
}

void join_all(membership_state& b) {
  b.joined.resize(static_cast<std::size_t>(b.members));
  b.start = steady::now();
  for (int i = 0; i < b.members; ++i)
    zkcoord::async_join(*b.sessions[0], b.path, member_id(i), "member-" + std::to_string(i),
                        [&b, i](zkcoord::error_code ec, zkcoord::membership m) {
                          if (ec) {
                            std::fprintf(stderr, "join %s: %s\n", member_id(i).c_str(),
                                         ec.message().c_str());
                            ++b.errors;
                          }
                          b.joined[static_cast<std::size_t>(i)] = std::move(m);
                          if (++b.joins_done == b.members) b.all_joined = steady::now();
                        });
}

void leave_all(membership_state& b) {
  b.leave_start = steady::now();
  for (auto& m : b.joined)
    m.async_leave([&b, id = m.id()](zkcoord::error_code ec) {
      if (ec) {
        std::fprintf(stderr, "leave %s: %s\n", id.c_str(), ec.message().c_str());
        ++b.errors;
      }
      ++b.leaves_done;
    });
}

/// The group holds no child any more (or is gone: its parents are CONTAINERs).
asio::awaitable<void> check_empty(membership_state& b, bool& done) {
  auto [ec, children] = co_await b.sessions[0]->async_children(b.path, tuple);
  if (ec == zkcoord::zk_errc::no_node) {
  } else if (ec) {
    std::fprintf(stderr, "children %s: %s\n", b.path.c_str(), ec.message().c_str());
    ++b.errors;
  } else if (!children.names.empty()) {
    std::fprintf(stderr, "%zu children left under %s\n", children.names.size(), b.path.c_str());
    ++b.errors;
  }
  done = true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: %s CONNECT [MEMBERS [VIEWERS]]\n", argv[0]);
    return 2;
  }
  membership_state b;
  b.members = std::max(1, argc > 2 ? std::atoi(argv[2]) : 1000);
  b.viewers = std::max(1, argc > 3 ? std::atoi(argv[3]) : 10);
  b.path = "/bench/zkcoord-membership/" + std::to_string(::getpid());
  asio::io_context io;
  for (int i = 0; i <= b.viewers; ++i)
    b.sessions.push_back(std::make_unique<zkcoord::session>(
        io.get_executor(), zkcoord::session_options{.connect = argv[1]}));
  bool connected = false;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        if (!co_await zkcoord::bench::connect_all(b.sessions)) ++b.errors;
        connected = true;
      },
      asio::detached);
  // Each phase until it is over (the sessions' timers keep the context busy forever).
  while (!b.errors && !connected) io.run_one();
  for (int i = 0; !b.errors && i < b.viewers; ++i) asio::co_spawn(io, viewer(i, b), asio::detached);
  while (!b.errors && b.ready < b.viewers) io.run_one();
  if (!b.errors) join_all(b);
  while (!b.errors && !(b.joins_done == b.members && b.seen == b.viewers)) io.run_one();
  const long rss_kib = zkcoord::bench::proc_status_kib("VmHWM");
  if (!b.errors) leave_all(b);
  while (!b.errors && !(b.leaves_done == b.members && b.emptied == b.viewers)) io.run_one();
  bool checked = false;
  if (!b.errors) asio::co_spawn(io, check_empty(b, checked), asio::detached);
  while (!b.errors && !checked) io.run_one();
  if (b.errors) {
    std::fprintf(stderr, "membership bench failed (%d errors)\n", b.errors);
    for (auto& s : b.sessions) s->close();
    return 1;
  }
  std::printf(
      "zkcoord workload=membership members=%d viewers=%d all_joined_ms=%.1f all_seen_ms=%.1f "
      "rss_kib=%ld left_ms=%.1f\n",
      b.members, b.viewers, ms(b.all_joined - b.start), ms(b.all_seen - b.start), rss_kib,
      ms(b.all_left - b.leave_start));
  for (auto& s : b.sessions) s->close();
  return 0;
}
