// SPDX-License-Identifier: Apache-2.0
// The sound lease under a minority partition, for any exclusive recipe of
// test/support/recipe_adapters.hpp (lock, write lock, election, 1-lease semaphore).
//
// The holder's session talks to one member only; that member is cut off from the quorum (a
// follower, or the leader: then the two others elect a new one). The cut-off member goes on
// answering the holder's pings and reads for about syncLimit x tickTime, while the majority
// expires the session and grants the recipe to a successor queued on the other members. The
// contract checked: every valid_until() the holder read after the cut lies at or before the
// successor's grant (lease_end <= granted_at), the loss is reported at the lease's end (not
// later than a scheduling allowance after it), and the successor's token is higher. The holder
// reads valid_until() right after the grant (which starts the session's renewals), samples it
// every 10 ms, and issues an application's ordinary reads every 50 ms: under the old rule
// (ZKCOORD_TEST_OLD_LEASE_RULE=1) those answered reads renew the lease past the re-grant.
#pragma once

#include <zkcoord/ownership.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/testing/container_ensemble.hpp>

#include <boost/asio/use_future.hpp>
#include <boost/test/unit_test.hpp>

#include "container/background_reads.hpp"
#include "container/lease_cases.hpp"
#include "container/lease_cut.hpp"
#include "container/lease_report.hpp"
#include "container/lease_sampler.hpp"
#include "container/minority_partition.hpp"
#include "support/io_thread.hpp"
#include "support/state_recorder.hpp"

#include <chrono>
#include <future>
#include <iostream>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

namespace zkcoord::test {

/// tau of every client in these cases (the ensemble's maxSessionTimeout, so none is clamped).
inline constexpr std::chrono::milliseconds lease_session_timeout{4000};
/// How late the loss may be reported after the lease's end: the session's own timer fires at
/// the deadline, and its completion then waits for the io thread, on a shared 2-core machine
/// that also runs three JVMs and dockerd. Scheduling only: it does not widen the safety bound.
inline constexpr std::chrono::milliseconds loss_delivery_allowance{250};

template <class Recipe>
void run_recipe_lease_partition(testing::container_ensemble& zk, io_thread& io, const lease_case& c,
                                lease_figures& figures) {
  namespace asio = boost::asio;
  using steady = std::chrono::steady_clock;
  using namespace std::chrono_literals;

  const std::size_t member = member_to_cut(zk, c.cut);
  const std::string member_name = "zk" + std::to_string(member + 1);
  const std::string path = case_path(c);
  partition_timeline events;
  cut_guard cut(zk, member);

  // The holder is on the member to be cut, and only on it. The rule is told the ensemble's
  // tick: the smallest t/2 allowance, so the longest lease the rule will prove, which is the
  // tighter test of the bound (the CLI cases run with the default, tick unknown: t <= tau/2).
  session holder_session(io.executor(), {.connect = zk.member_connect_string(member),
                                         .session_timeout = lease_session_timeout,
                                         .lease = {.tick_time = c.config.tick}});
  state_recorder holder_states(holder_session);
  get(holder_session.async_connect(asio::use_future));
  typename Recipe::contender holder_contender(holder_session, path);
  ownership held = get(holder_contender.async_acquire(asio::use_future));
  const auto lease_at_grant = held.valid_until();  // the first read starts the renewals
  // Completion times taken in the handlers: the order against the re-grant is what counts.
  // The promises are shared with the handlers: a failed check unwinds this frame while they
  // may still complete (operation_aborted) on the io thread.
  auto lost_promise = std::make_shared<std::promise<std::pair<steady::time_point, error_code>>>();
  auto lost = lost_promise->get_future();
  held.async_wait_lost([lost_promise](error_code ec) {
    lost_promise->set_value({steady::now(), ec});
  });
  lease_sampler sampler(held);
  background_reads reads(holder_session, 50ms);

  session successor_session(io.executor(), {.connect = majority_connect(zk, member),
                                            .session_timeout = lease_session_timeout});
  get(successor_session.async_connect(asio::use_future));
  typename Recipe::contender successor_contender(successor_session, path);
  auto granted_promise =
      std::make_shared<std::promise<std::tuple<steady::time_point, error_code, ownership>>>();
  auto granted = granted_promise->get_future();
  successor_contender.async_acquire([granted_promise](error_code ec, ownership h) {
    granted_promise->set_value({steady::now(), ec, std::move(h)});
  });
  // Queued behind the holder; meanwhile the holder's renewals (every tau/8) have run twice.
  BOOST_REQUIRE(granted.wait_for(1s) == std::future_status::timeout);

  const std::size_t states_before_cut = holder_states.size();
  events.cut_now();
  const auto cut_at = steady::now();
  events.add("cut: " + member_name + " (the " + name_of(c.cut) + " the holder is on) " +
             "disconnected from the quorum network");
  cut.isolate();
  events.add("cut: docker network disconnect returned");

  // Generous liveness bounds: the grant waits for the majority to notice the cut (a leader cut:
  // syncLimit x tickTime, up to 5 s, then an election) and then for the session's expiry.
  BOOST_REQUIRE_MESSAGE(lost.wait_for(30s) == std::future_status::ready,
                        "the holder's loss was never reported");
  const auto [lost_at, lost_ec] = lost.get();
  sampler.stop();
  reads.stop();
  BOOST_REQUIRE_MESSAGE(granted.wait_for(60s) == std::future_status::ready,
                        "the successor was never granted");
  auto [granted_at, granted_ec, successor] = granted.get();
  BOOST_REQUIRE_MESSAGE(successor.owns(),
                        "the successor's acquire failed: " << granted_ec.message());
  const auto lease_end = sampler.max_from(cut_at);
  BOOST_REQUIRE_MESSAGE(lease_end, "no valid lease was read after the cut");
  const auto before_cut = sampler.last_before(cut_at);
  BOOST_REQUIRE(before_cut);

  figures.add("lease_end-granted_ms", *lease_end - granted_at);
  figures.add("lost-lease_end_ms", lost_at - *lease_end);
  figures.add("lease_end-cut_ms", *lease_end - cut_at);
  figures.add("granted-cut_ms", granted_at - cut_at);

  if (auto suspended_at = holder_states.wait_for(session_state::suspended, 0ms, states_before_cut))
    events.add("holder: session suspended", *suspended_at);
  if (auto read_at = reads.last_answered(); read_at && *read_at >= cut_at)
    events.add("holder: last ordinary read answered by " + member_name, *read_at);
  events.add("holder: lease_end (the latest valid_until() read after the cut)", *lease_end);
  events.add("holder: " + std::string(Recipe::name) + " lost (" + lost_ec.message() + ")", lost_at);
  events.add("successor: granted on the majority, token " +
                 std::to_string(successor.token().value()) +
                 " (the holder's: " + std::to_string(held.token().value()) + ")",
             granted_at);
  // Shown, not asserted: until its first renewal is answered, a grant that waited in the
  // queue longer than a lease length has only its create's proof, which may lie in the past.
  const auto successor_lease = successor.valid_until();
  events.add(successor_lease == steady::time_point::min()
                 ? std::string("successor: its first valid_until() read says min()")
                 : "successor: its first valid_until() read says " +
                       std::to_string((successor_lease - granted_at) / 1ms) + " ms from the grant",
             granted_at);
  const auto renewals = holder_session.sent_requests().lease_renewals;

  BOOST_TEST((lost_ec == condition::session_expired), "lost with " << lost_ec.message());
  // The renewals ran: the lease read just before the cut lies past the one proven by the grant.
  BOOST_TEST((before_cut->valid_until > lease_at_grant),
             "the lease was not renewed between the grant and the cut");
  // The safety bound: nothing the holder was told after the cut outlasts the majority's
  // decision to give the recipe to someone else.
  BOOST_TEST((*lease_end <= granted_at), "the holder's lease ran "
                                             << (*lease_end - granted_at) / 1ms
                                             << " ms past the successor's grant");
  BOOST_TEST((lost_at <= *lease_end + loss_delivery_allowance), "the loss was reported "
                                                                    << (lost_at - *lease_end) / 1ms
                                                                    << " ms after the lease's end");
  BOOST_TEST(successor.token() > held.token());

  cut.heal();
  events.add("heal: " + member_name + " reconnected, every member serves again");
  const std::string text = "lease partition " + case_name(c) + ", " + std::to_string(renewals) +
                           " lease renewals sent; " + events.text();
  BOOST_TEST_MESSAGE(text);
  std::cout << text << std::endl;
  successor_session.close();
  holder_session.close();
}

}  // namespace zkcoord::test
