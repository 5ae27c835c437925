// SPDX-License-Identifier: Apache-2.0
// Test-matrix rows 6 and 16 for the election: the leader of a 3-node ensemble is killed (row 6)
// or SIGSTOPped for 1.5 T (row 16) while 5 participants, each on its own session, loop
// campaign -> a few fenced writes of "term=<token>;n=<k>" to one data node -> relinquish.
// Checked in the server's order of the accepted writes (their returned mzxid): terms never go
// back and each term's writes are contiguous and in order, so no two leaders' writes were
// accepted interleaved; the node's final version accounts for every accepted write; terms
// strictly increase across elections; elections resume within 2T + 10 s; every participant led;
// no node is left on the election path.
//
// That a leader's session expires during the fault is made certain, not left to chance:
// participant 0 connects to the ZooKeeper leader only and keeps its term through the fault,
// writing every 100 ms as a leader that never looks would. Its session cannot move to another
// member, so it expires: its async_wait_lost must report session_expired, every fenced write
// it starts after that must be rejected, and the next leader is elected only once the server
// has expired it (which is what the 2T + 10 s bound allows for).
#include <zkcoord/election.hpp>

#include <zkcoord/fenced.hpp>
#include <zkcoord/testing/ensemble.hpp>

#define BOOST_TEST_MODULE election_leader_failover
#include <boost/test/unit_test.hpp>

#include "support/fault_run_checks.hpp"
#include "support/io_thread.hpp"
#include "support/leader_faults.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using steady = std::chrono::steady_clock;

namespace {

constexpr auto timeout = 8000ms;
constexpr int participants = 5;
constexpr int writes_per_term = 3;
constexpr int holder = 0;  // the participant pinned to the ZooKeeper leader

struct term_record {
  int participant = 0;
  std::int64_t token = 0;
  steady::time_point elected;
  steady::time_point relinquished;  ///< when the release was started
  bool loss_reported = false;
  error_code lost_ec;  ///< async_wait_lost's outcome (not_held: relinquished first)
  steady::time_point lost_at;
  error_code release_ec;
};

struct write_record {
  int participant = 0;
  std::size_t term_index = 0;
  std::int64_t term = 0;
  int n = 0;
  steady::time_point started, completed;
  error_code ec;
  node_stat stat;  ///< the data node's Stat after an accepted write
};

bool outcome_unknown(const write_record& w) {
  return w.ec == condition::connection_loss;
}

bool rejected_as_stale(const write_record& w) {
  return w.ec == errc::lock_lost || w.ec == zk_errc::session_expired || w.ec == errc::not_held;
}

std::string data_of(const write_record& w) {
  return "term=" + std::to_string(w.term) + ";n=" + std::to_string(w.n);
}

struct run_options {
  std::string connect;
  std::string holder_connect;  ///< participant 0's only server
  std::string election_path;
  std::string data_node;
};

// The participants' loops on one executor, and everything they saw. Read after stop().
class election_run {
 public:
  election_run(asio::any_io_executor ex, run_options o) : ex_(std::move(ex)), o_(std::move(o)) {
    for (int i = 0; i < participants; ++i) {
      const std::string& connect = i == holder ? o_.holder_connect : o_.connect;
      sessions_.push_back(std::make_unique<session>(
          ex_, session_options{.connect = connect, .session_timeout = timeout}));
      expiries_.emplace_back();
      subscriptions_.push_back(sessions_.back()->subscribe([this, i](session_state st) {
        if (st != session_state::expired) return;
        std::lock_guard l(mutex_);
        expiries_[i].push_back(steady::now());
      }));
    }
  }
  ~election_run() { stop(60s); }

  void start() {
    std::vector<std::future<void>> connected;
    for (auto& s : sessions_) connected.push_back(s->async_connect(asio::use_future));
    for (auto& f : connected) test::get(f);
    for (int i = 0; i < participants; ++i)
      done_.push_back(asio::co_spawn(ex_, participant_loop(i), asio::use_future));
  }
  /// The holder's next term is kept until release_hold(); returns its index once it leads.
  std::optional<std::size_t> hold_next_term(std::chrono::seconds bound) {
    hold_requested_ = true;
    const auto deadline = steady::now() + bound;
    while (held_term_ < 0 && steady::now() < deadline) std::this_thread::sleep_for(10ms);
    if (held_term_ < 0) return std::nullopt;
    return static_cast<std::size_t>(held_term_.load());
  }
  void release_hold() { hold_released_ = true; }
  /// Every loop ends its cycle; true if all ended (and every loss wait reported) in `bound`.
  bool stop(std::chrono::seconds bound) {
    stopping_ = true;
    release_hold();
    const auto deadline = steady::now() + bound;
    bool all = true;
    for (auto& f : done_) {
      if (!f.valid()) continue;
      if (f.wait_until(deadline) != std::future_status::ready)
        all = false;
      else
        f.get();
    }
    while (unreported_losses_ > 0 && steady::now() < deadline) std::this_thread::sleep_for(10ms);
    return all && unreported_losses_ == 0;
  }
  void close_all() {
    for (auto& s : sessions_) s->close();
  }

  std::vector<term_record> terms() const {
    std::lock_guard l(mutex_);
    return terms_;
  }
  std::vector<write_record> writes() const {
    std::lock_guard l(mutex_);
    return writes_;
  }
  std::vector<steady::time_point> expiries_of(int participant) const {
    std::lock_guard l(mutex_);
    return expiries_.at(participant);
  }
  std::map<std::string, int> campaign_failures() const {
    std::lock_guard l(mutex_);
    return campaign_failures_;
  }

 private:
  asio::awaitable<void> participant_loop(int id) {
    constexpr auto tuple = asio::as_tuple(asio::use_awaitable);
    std::mt19937 rng(static_cast<unsigned>(id) * 7919u + 1u);
    asio::steady_timer timer(ex_);
    election e(*sessions_[id], o_.election_path, "p" + std::to_string(id));
    while (!stopping_) {
      auto [ec, term] = co_await e.async_campaign(60s, tuple);
      if (ec) {
        {
          std::lock_guard l(mutex_);
          ++campaign_failures_[ec.message()];
        }
        timer.expires_after(100ms);  // the session renewing, its server down
        co_await timer.async_wait(tuple);
        continue;
      }
      const std::size_t index = record_term(id, term);
      const bool hold = id == holder && hold_requested_ && held_term_ < 0;
      if (hold) held_term_ = static_cast<long>(index);
      // A holding leader writes on regardless of what it is told, as one that never checks
      // would: whatever it writes after its term ended must be refused by the fence.
      for (int n = 0; hold ? !hold_released_ : n < writes_per_term; ++n) {
        co_await fenced_write(id, index, term, n);
        timer.expires_after(hold ? 100ms : std::chrono::milliseconds(rng() % 5));
        co_await timer.async_wait(tuple);
      }
      {
        std::lock_guard l(mutex_);
        terms_[index].relinquished = steady::now();
      }
      auto [release_ec] = co_await term.async_release(tuple);
      std::lock_guard l(mutex_);
      terms_[index].release_ec = release_ec;
    }
  }

  asio::awaitable<void> fenced_write(int id, std::size_t index, const leadership& term, int n) {
    write_record w{id, index, term.token().value(), n, steady::now(), {}, {}, {}};
    auto [ec, stat] = co_await async_fenced_set(term, o_.data_node, data_of(w), -1,
                                                asio::as_tuple(asio::use_awaitable));
    w.completed = steady::now();
    w.ec = ec;
    w.stat = stat;
    std::lock_guard l(mutex_);
    writes_.push_back(w);
  }

  std::size_t record_term(int id, leadership& term) {
    std::size_t index = 0;
    {
      std::lock_guard l(mutex_);
      term_record t;
      t.participant = id;
      t.token = term.token().value();
      t.elected = steady::now();
      terms_.push_back(t);
      index = terms_.size() - 1;
    }
    ++unreported_losses_;
    term.async_wait_lost([this, index](error_code ec) {
      {
        std::lock_guard l(mutex_);
        terms_[index].loss_reported = true;
        terms_[index].lost_ec = ec;
        terms_[index].lost_at = steady::now();
      }
      --unreported_losses_;
    });
    return index;
  }

  asio::any_io_executor ex_;
  run_options o_;
  std::vector<std::unique_ptr<session>> sessions_;
  std::vector<std::future<void>> done_;
  std::atomic<bool> stopping_{false};
  std::atomic<bool> hold_requested_{false};
  std::atomic<bool> hold_released_{false};
  std::atomic<long> held_term_{-1};
  std::atomic<int> unreported_losses_{0};
  mutable std::mutex mutex_;
  std::vector<term_record> terms_;
  std::vector<write_record> writes_;
  std::map<std::string, int> campaign_failures_;
  std::vector<std::vector<steady::time_point>> expiries_;
  std::vector<state_subscription> subscriptions_;
};

// The accepted writes in the server's order: terms never go back, one term's writes form one
// run in the order they were made, versions follow the zxids, and the node's final state
// accounts for every accepted write (plus at most the writes whose outcome is unknown: a write
// whose reply was lost must say so, and one reported refused must not have been applied).
void check_server_order(const std::vector<write_record>& writes, const node_data& final_node) {
  std::vector<write_record> accepted;
  std::size_t unknown = 0;
  for (const auto& w : writes) {
    if (!w.ec) accepted.push_back(w);
    if (outcome_unknown(w)) ++unknown;
  }
  BOOST_REQUIRE(!accepted.empty());
  std::sort(accepted.begin(), accepted.end(),
            [](const auto& a, const auto& b) { return a.stat.mzxid < b.stat.mzxid; });
  std::map<std::int64_t, std::size_t> runs_of_term;
  int interleaved = 0;
  for (std::size_t i = 0; i < accepted.size(); ++i) {
    const auto& w = accepted[i];
    if (i == 0 || accepted[i - 1].term != w.term) ++runs_of_term[w.term];
    if (i == 0) continue;
    const auto& before = accepted[i - 1];
    BOOST_TEST(before.stat.mzxid < w.stat.mzxid);
    BOOST_TEST(before.stat.version < w.stat.version);
    if (w.term < before.term || (w.term == before.term && w.n <= before.n)) {
      if (++interleaved <= 5)
        BOOST_TEST_MESSAGE("accepted out of order: '"
                           << data_of(w) << "' (participant " << w.participant << ") after '"
                           << data_of(before) << "' (participant " << before.participant << ")");
    }
  }
  BOOST_TEST(interleaved == 0, interleaved << " accepted writes follow a later term's write or "
                                              "an earlier write of their own term");
  int split = 0;
  for (const auto& [term, runs] : runs_of_term) {
    if (runs == 1u) continue;
    if (++split <= 3)
      BOOST_TEST_MESSAGE("term " << fencing_token(term) << " has " << runs << " runs");
  }
  BOOST_TEST(split == 0, split << " terms' accepted writes are not contiguous");
  const auto versions = static_cast<std::size_t>(final_node.stat.version);
  BOOST_TEST_MESSAGE("data node version " << versions << ", accepted " << accepted.size()
                                          << ", outcome unknown " << unknown);
  BOOST_TEST(versions >= accepted.size());
  BOOST_TEST(versions <= accepted.size() + unknown, "a write reported refused was applied");
  if (final_node.stat.mzxid == accepted.back().stat.mzxid)
    BOOST_TEST(final_node.data == data_of(accepted.back()));
  else
    BOOST_TEST(unknown > 0u, "the node changed after the last accepted write");
}

// Terms strictly increase in election order; a term whose session expired while it led
// reports session_expired; every write a term starts after its loss was reported is refused
// (lock_lost, session_expired or not_held: not even "outcome unknown").
void check_terms(const election_run& run, const std::vector<term_record>& terms,
                 const std::vector<write_record>& writes) {
  for (std::size_t i = 1; i < terms.size(); ++i)
    BOOST_TEST(terms[i].token > terms[i - 1].token, "term " << i << " is not newer");
  for (std::size_t i = 0; i < terms.size(); ++i) {
    const auto& t = terms[i];
    BOOST_TEST(t.loss_reported);
    const auto expiries = run.expiries_of(t.participant);
    const bool expired_while_leading = std::any_of(expiries.begin(), expiries.end(), [&](auto e) {
      return e > t.elected && e < t.relinquished;
    });
    if (expired_while_leading)
      BOOST_TEST(t.lost_ec == zk_errc::session_expired,
                 "participant " << t.participant << "'s session expired while it led, and its "
                                << "loss wait said '" << t.lost_ec.message() << "'");
    if (t.lost_ec == errc::not_held) continue;  // relinquished before any loss
    int not_refused = 0;
    for (const auto& w : writes) {
      if (w.term_index != i || w.started < t.lost_at || rejected_as_stale(w)) continue;
      if (++not_refused <= 3)
        BOOST_TEST_MESSAGE("participant " << w.participant << " wrote '" << data_of(w)
                                          << "' after its term ended (" << t.lost_ec.message()
                                          << "): " << (w.ec ? w.ec.message() : "accepted"));
    }
    BOOST_TEST(not_refused == 0, not_refused << " writes of term " << fencing_token(t.token)
                                             << " started after its loss were not refused");
  }
}

// The holder led through the fault, its session expired, its loss wait said so, and what it
// wrote after that (there must be some) was refused.
void check_holder(const election_run& run, const term_record& held,
                  const std::vector<write_record>& writes) {
  BOOST_TEST(!run.expiries_of(holder).empty(), "the holder's session never expired");
  BOOST_TEST(held.lost_ec == zk_errc::session_expired, held.lost_ec.message());
  std::size_t after_loss = 0;
  std::map<std::string, int> before, after;
  for (const auto& w : writes) {
    if (w.participant != holder || w.term != held.token) continue;
    const bool late = w.started >= held.lost_at;
    if (late) ++after_loss;
    ++(late ? after : before)[w.ec ? w.ec.message() : "accepted"];
  }
  BOOST_TEST(after_loss > 0u, "the holder wrote nothing after its loss: nothing is tested");
  for (const auto& [what, count] : before)
    BOOST_TEST_MESSAGE("holder writes started before its loss: " << count << " x " << what);
  for (const auto& [what, count] : after)
    BOOST_TEST_MESSAGE("holder writes started after its loss: " << count << " x " << what);
  BOOST_TEST_MESSAGE("holder lost its term " << (held.lost_at - held.elected) / 1ms
                                             << " ms after its election: " << held.lost_ec.message()
                                             << "; released: " << held.release_ec.message());
}

// Runs the workload, applies `fault` to the ZooKeeper leader while the holder leads (`fault`
// returns once the member may come back, which `recover` does), and checks everything above.
template <class Fault, class Recover>
void leader_fault_under_elections(const char* what, Fault fault, Recover recover) {
  testing::ensemble zk;
  const std::size_t leader = zk.wait_for_leader(30s);
  test::io_thread io;
  const run_options options{.connect = zk.connect_string(),
                            .holder_connect = zk.member_connect_string(leader),
                            .election_path = "/elections/failover",
                            .data_node = "/failover-data"};
  session admin(io.executor(), {.connect = zk.connect_string()});
  test::get(admin.async_connect(asio::use_future));
  auto [create_ec, made] =
      test::get(admin.async_create(options.data_node, "initial", {}, test::tuple_future));
  BOOST_REQUIRE_MESSAGE(!create_ec, create_ec.message());

  election_run run(io.executor(), options);
  run.start();
  std::this_thread::sleep_for(3s);
  BOOST_REQUIRE(!run.terms().empty());
  const auto held_index = run.hold_next_term(15s);
  BOOST_REQUIRE_MESSAGE(held_index, "the holder was not elected within 15 s");
  BOOST_REQUIRE_MESSAGE(zk.wait_for_leader(30s) == leader, "the ZooKeeper leader moved");

  const auto fault_at = steady::now();
  BOOST_TEST_MESSAGE(what << " leader " << leader << " at election " << *held_index);
  fault(zk, leader);
  recover(zk, leader);
  std::this_thread::sleep_for(3s);
  run.release_hold();
  std::this_thread::sleep_for(4s);
  BOOST_REQUIRE_MESSAGE(run.stop(60s), "a participant loop did not finish");

  const auto terms = run.terms();
  const auto writes = run.writes();
  const auto resumed =
      std::find_if(terms.begin(), terms.end(), [&](const auto& t) { return t.elected > fault_at; });
  BOOST_REQUIRE_MESSAGE(resumed != terms.end(), "nobody was elected after the fault");
  const auto gap = resumed->elected - fault_at;
  BOOST_TEST_MESSAGE("elections resumed " << gap / 1ms << " ms after the fault (participant "
                                          << resumed->participant << ")");
  BOOST_TEST((gap <= 2 * timeout + 10s));
  BOOST_TEST((terms.back().elected > resumed->elected));  // and went on

  auto [read_ec, final_node] = test::get(admin.async_get(options.data_node, test::tuple_future));
  BOOST_REQUIRE_MESSAGE(!read_ec, read_ec.message());
  check_server_order(writes, final_node);
  check_terms(run, terms, writes);
  check_holder(run, terms.at(*held_index), writes);

  std::vector<int> led(participants, 0);
  for (const auto& t : terms) ++led[t.participant];
  for (int i = 0; i < participants; ++i)
    BOOST_TEST(led[i] > 0, "participant " << i << " never led");
  const auto accepted = std::count_if(writes.begin(), writes.end(), [](auto& w) { return !w.ec; });
  BOOST_TEST_MESSAGE("elections=" << terms.size()
                                  << " after the fault=" << std::distance(resumed, terms.end())
                                  << " writes=" << writes.size() << " accepted=" << accepted);
  for (const auto& [message, count] : run.campaign_failures())
    BOOST_TEST_MESSAGE("campaign failed " << count << " x " << message);
  test::check_no_node_left(io.executor(), zk.connect_string(), options.election_path);
  run.close_all();
}

}  // namespace

BOOST_AUTO_TEST_CASE(leader_killed_during_elections_then_restarted) {
  leader_fault_under_elections("killed", test::kill_leader, test::restart_leader);
}

BOOST_AUTO_TEST_CASE(leader_paused_for_one_and_a_half_session_timeouts) {
  leader_fault_under_elections("paused", test::pause_leader_for(timeout), test::resume_leader);
}
