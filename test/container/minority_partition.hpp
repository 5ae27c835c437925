// SPDX-License-Identifier: Apache-2.0
// Minority partition (the fault the process harness cannot make), for any exclusive recipe of
// test/support/recipe_adapters.hpp (the lock, the election): the owner's server is cut off from
// the quorum while the owner still reaches it. The owner sees suspended, then lost; the majority
// grants the recipe to another client with a higher token; the isolated owner's fenced writes
// are rejected, the one it started while suspended and the one after the loss, and so is its
// fence when the server sees it after the heal. The timeline is printed in the test log.
#pragma once

#include <zkcoord/fenced.hpp>
#include <zkcoord/ownership.hpp>
#include <zkcoord/testing/container_ensemble.hpp>

#include <boost/test/unit_test.hpp>

#include "container/container_logs_on_failure.hpp"
#include "support/io_thread.hpp"
#include "support/state_recorder.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#include <algorithm>
#include <chrono>
#include <future>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace zkcoord::test {

// Events with their offsets from the cut, printed as one block at the end of the test.
class partition_timeline {
 public:
  using steady = std::chrono::steady_clock;
  void cut_now() { cut_ = steady::now(); }
  void add(const std::string& event, steady::time_point at = steady::now()) {
    entries_.emplace_back(at, event);
  }
  std::string text() const {
    using namespace std::chrono_literals;
    std::ostringstream out;
    out << "timeline (ms from the cut):";
    auto sorted = entries_;
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [at, event] : sorted)
      out << "\n  " << std::showpos << (at - cut_) / 1ms << std::noshowpos << "  " << event;
    return out.str();
  }

 private:
  steady::time_point cut_ = steady::now();
  std::vector<std::pair<steady::time_point, std::string>> entries_;
};

/// Every member but `minority`, for a client that must stay on the majority side.
inline std::string majority_connect(const testing::container_ensemble& zk, std::size_t minority) {
  std::string connect;
  for (std::size_t i = 0; i < zk.size(); ++i) {
    if (i == minority) continue;
    if (!connect.empty()) connect += ',';
    connect += zk.member_connect_string(i);
  }
  return connect;
}

/// How the timeline names the parts of one recipe.
struct partition_words {
  std::string owner;  ///< "holder", "leader"
  std::string grant;  ///< "granted", "elected"
  std::string what;   ///< "lock", "term"
  std::string path;   ///< the recipe's path
  std::string data;   ///< the node the fenced writes go to
};

/// The scenario on a fresh 3-node ensemble. `Recipe` is one of recipe_adapters.hpp's exclusive
/// recipes: Recipe::contender(session, path).async_acquire(token) -> void(error_code, ownership).
template <class Recipe>
void run_minority_partition(const partition_words& words) {
  using namespace std::chrono_literals;
  namespace asio = boost::asio;
  using steady = std::chrono::steady_clock;

  // sync_limit 5 x 200 ms: a cut-off member stops serving (and drops its clients) after 1 s.
  testing::container_ensemble zk({.sync_limit = 5});
  container_logs_on_failure logs(zk);
  io_thread io;
  partition_timeline events;
  const auto timeout = 4000ms;
  const std::string& owner = words.owner;

  const std::size_t leader = zk.wait_for_leader(60s);
  const std::size_t minority = (leader + 1) % zk.size();  // a follower
  BOOST_TEST_MESSAGE(owner << " on zk" << minority + 1 << " (follower), ZooKeeper leader zk"
                           << leader + 1);

  // The owner talks to its own server only: the partition leaves it on the minority side.
  session owner_session(
      io.executor(), {.connect = zk.member_connect_string(minority), .session_timeout = timeout});
  state_recorder owner_states(owner_session);
  get(owner_session.async_connect(asio::use_future));
  typename Recipe::contender owner_contender(owner_session, words.path);
  ownership held = get(owner_contender.async_acquire(asio::use_future));
  // Completion times taken in the handlers: the order of loss and re-grant is what counts.
  std::promise<std::pair<steady::time_point, error_code>> lost_promise;
  held.async_wait_lost([&](error_code ec) { lost_promise.set_value({steady::now(), ec}); });
  auto lost = lost_promise.get_future();
  get(owner_session.async_create(words.data, "initial", {}, asio::use_future));
  get(async_fenced_set(held, words.data, owner + "-before-cut", -1, asio::use_future));

  session successor_session(
      io.executor(), {.connect = majority_connect(zk, minority), .session_timeout = timeout});
  get(successor_session.async_connect(asio::use_future));
  typename Recipe::contender successor_contender(successor_session, words.path);
  std::promise<std::tuple<steady::time_point, error_code, ownership>> granted_promise;
  successor_contender.async_acquire([&](error_code ec, ownership h) {
    granted_promise.set_value({steady::now(), ec, std::move(h)});
  });
  auto granted = granted_promise.get_future();
  BOOST_REQUIRE(granted.wait_for(1s) == std::future_status::timeout);  // queued behind the owner

  const std::size_t states_before_cut = owner_states.size();
  zk.isolate(minority);
  events.cut_now();
  events.add("cut: zk" + std::to_string(minority + 1) + " disconnected from the quorum network");

  const auto suspended_at =
      owner_states.wait_for(session_state::suspended, timeout * 3, states_before_cut);
  BOOST_REQUIRE_MESSAGE(suspended_at, "the " << owner << " never saw its session suspended");
  events.add(owner + ": session suspended (" + words.what + " in doubt)", *suspended_at);
  const auto doubt_deadline = steady::now() + 2s;
  while (!held.in_doubt() && steady::now() < doubt_deadline) std::this_thread::sleep_for(10ms);
  BOOST_TEST(held.in_doubt());
  // A write started while suspended: the fence is still ours here, the outcome must not be.
  auto in_flight = async_fenced_set(held, words.data, owner + "-while-suspended", -1, tuple_future);

  BOOST_REQUIRE(lost.wait_for(timeout * 3) == std::future_status::ready);
  const auto [lost_at, lost_ec] = lost.get();
  events.add(owner + ": " + words.what + " lost (" + lost_ec.message() + ")", lost_at);
  BOOST_TEST((lost_ec == condition::session_expired));
  BOOST_TEST(!held.owns());

  BOOST_REQUIRE(granted.wait_for(timeout * 3) == std::future_status::ready);
  auto [granted_at, granted_ec, successor] = granted.get();
  BOOST_REQUIRE_MESSAGE(successor.owns(),
                        "the successor's acquire failed: " << granted_ec.message());
  events.add("successor: " + words.grant + " on the majority, token " +
                 successor.token().to_string() + " (" + owner + "'s was " +
                 held.token().to_string() + ")",
             granted_at);
  BOOST_TEST(successor.token() > held.token());
  // What protects the gap: the owner is in doubt (suspended) before anyone else is granted.
  // Its server stops serving after sync_limit x tick_time (1 s); the leader expires the session
  // no sooner than timeout - ping interval (4 s - 1.33 s) after the cut.
  BOOST_TEST((*suspended_at < granted_at),
             "the " << owner << " must be in doubt before the re-grant");
  // Its lease, though, may end after the re-grant: the cut-off server kept answering its pings
  // (renewing the lease) while the leader no longer heard of the session. Shown, not asserted.
  if (granted_at < lost_at) {
    events.add("note: the " + owner + "'s lease outlived the server's expiry by " +
                   std::to_string((lost_at - granted_at) / 1ms) + " ms (fencing covers it)",
               lost_at);
  }
  get(async_fenced_set(successor, words.data, "successor", -1, asio::use_future));
  events.add("successor: fenced write committed");

  // The owner's write after the loss: refused before anything is sent.
  auto [stale_ec, stale_stat] =
      get(async_fenced_set(held, words.data, owner + "-stale", -1, tuple_future));
  events.add(owner + ": stale fenced write rejected (" + stale_ec.message() + ")");
  BOOST_TEST((stale_ec == errc::not_held));

  zk.heal(minority);
  events.add("heal: zk" + std::to_string(minority + 1) + " reconnected");
  zk.wait_for_leader(60s);
  events.add("ensemble: every member serves again");

  auto [in_flight_ec, in_flight_stat] = get(in_flight, 60s);
  events.add(owner + ": write started while suspended completed with: " + in_flight_ec.message());
  BOOST_TEST(in_flight_ec.failed());

  // The owner's fence as the healed server sees it: the check on its node fails, so a write
  // carrying it commits nothing, also from a fresh session on the formerly cut server.
  session late(io.executor(),
               {.connect = zk.member_connect_string(minority), .session_timeout = timeout});
  get(late.async_connect(asio::use_future));
  std::vector<multi_op> stale_fence{op::check{held.path(), held.node_version()},
                                    op::set{words.data, owner + "-fence-after-heal"}};
  auto [fence_ec, fence_results] = get(late.async_multi(stale_fence, tuple_future));
  events.add("server: the " + owner + "'s fence after the heal rejected (" + fence_ec.message() +
             ")");
  BOOST_TEST(fence_ec.failed());
  BOOST_TEST(get(late.async_get(words.data, asio::use_future)).data == "successor");

  BOOST_TEST_MESSAGE(events.text());
  std::cout << events.text() << std::endl;
  late.close();
  successor_session.close();
  owner_session.close();
}

}  // namespace zkcoord::test
