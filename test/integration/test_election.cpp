// SPDX-License-Identifier: Apache-2.0
// Leader election against a real ZooKeeper: one leader at a time among participants on separate
// sessions, hand-over with higher terms on relinquish, expiry and deletion, rejoining at the
// tail, a stale leader's writes fenced off, the observer following every change, and bad input
// refused with a clear error. Every test ends with no node left on its path.
#include <zkcoord/election.hpp>

#include <zkcoord/fenced.hpp>
#include <zkcoord/lock.hpp>
#include <zkcoord/testing/expire_session.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE election
#include <boost/test/unit_test.hpp>

#include "support/election_listing.hpp"
#include "support/fence_store.hpp"
#include "support/lock_fixture.hpp"

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <future>
#include <memory>
#include <regex>
#include <string>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using test::campaign_future;
using test::ids_of;
using test::participants_of;
using test::tuple_future;

namespace {

using test::lock_server;
BOOST_TEST_GLOBAL_FIXTURE(lock_server);

// How long expire_session waits for the handle to let go of the server before it closes the
// session anyway (its default, 10 s, only makes the test slower).
constexpr auto expire_wait = std::chrono::milliseconds(2000);

// Blocks an io thread's event loop, as a paused process would be: its handlers (completions,
// loss reports) wait, while the C client's own threads go on. Resumed at the latest when
// destroyed.
class paused_event_loop {
 public:
  explicit paused_event_loop(test::io_thread& io) {
    // Both promises are members: the loop's task may still be inside set_value when the
    // constructor's wait returns.
    asio::post(io.executor(), [this, resume = resume_.get_future()]() mutable {
      paused_.set_value();
      resume.wait();
    });
    paused_.get_future().wait();
  }
  ~paused_event_loop() { resume(); }
  paused_event_loop(const paused_event_loop&) = delete;
  paused_event_loop& operator=(const paused_event_loop&) = delete;
  void resume() {
    if (!resumed_) resume_.set_value();
    resumed_ = true;
  }

 private:
  std::promise<void> paused_;
  std::promise<void> resume_;
  bool resumed_ = false;
};

bool ready_within(campaign_future& f, std::chrono::milliseconds bound) {
  return f.wait_for(bound) == std::future_status::ready;
}

// The leadership `campaign` produced, once it did (at most 10 s); fails the test otherwise.
leadership elected(campaign_future& campaign) {
  BOOST_REQUIRE_MESSAGE(ready_within(campaign, 10s), "not elected within 10 s");
  auto [ec, term] = campaign.get();
  BOOST_REQUIRE_MESSAGE(!ec, "campaign: " << ec.message());
  return std::move(term);
}

// N participants, each on its own session (its own client as far as ZooKeeper is concerned),
// on one fresh election path; the path is checked empty when the test ends.
struct fixture {
  explicit fixture(std::size_t n = 0) {
    for (std::size_t i = 0; i < n; ++i) add(std::string(1, static_cast<char>('a' + i)));
  }
  ~fixture() {
    participants.clear();  // aborts pending campaigns
    if (!data_node_.empty())
      BOOST_TEST(
          !std::get<0>(test::get(admin_session().async_remove(data_node_, -1, tuple_future))));
    BOOST_TEST(test::eventually([&] { return participants_of(admin_session(), path).empty(); }),
               "nodes left on " << path);
  }
  election& add(const std::string& id) {
    clients.push_back(std::make_unique<test::client>());
    participants.push_back(std::make_unique<election>(*clients.back()->s, path, id));
    return *participants.back();
  }
  session& session_of(std::size_t i) { return *clients.at(i)->s; }
  session& admin_session() { return *admin.s; }
  // Campaigns participant i and waits until its node is listed (so the queue order is i's).
  campaign_future campaign_queued(std::size_t i) {
    return test::campaign_queued(*participants.at(i), admin_session(), path);
  }
  // Participant 0 elected with participant 1 queued behind it (`second`).
  leadership elect_first_of_two(campaign_future& second) {
    auto first = campaign_queued(0);
    second = campaign_queued(1);
    return elected(first);
  }
  // A node beside the election path for fenced writes, removed when the test ends.
  const std::string& data_node() {
    if (data_node_.empty()) {
      data_node_ = path + "-data";
      auto [ec, made] =
          test::get(admin_session().async_create(data_node_, "initial", {}, tuple_future));
      BOOST_REQUIRE_MESSAGE(!ec, ec.message());
    }
    return data_node_;
  }
  std::string data_of(const std::string& node) {
    auto [ec, read] = test::get(admin_session().async_get(node, tuple_future));
    BOOST_TEST(!ec);
    return read.data;
  }

  std::string path = testing::unique_path("election");
  test::client admin;
  std::vector<std::unique_ptr<test::client>> clients;
  std::vector<std::unique_ptr<election>> participants;

 private:
  std::string data_node_;
};

// Relinquishes `term`; fails the test if that fails.
void relinquish(leadership& term) {
  auto [ec] = test::get(term.async_release(tuple_future));
  BOOST_TEST(!ec, "relinquish: " << ec.message());
}

}  // namespace

BOOST_AUTO_TEST_CASE(one_leader_at_a_time_and_relinquish_elects_the_next_with_a_higher_term) {
  constexpr std::size_t n = 4;
  fixture f(n);
  std::vector<campaign_future> campaigns;
  for (std::size_t i = 0; i < n; ++i) campaigns.push_back(f.campaign_queued(i));

  // Curator's LeaderLatch layout: protected name with "latch-", the id as data.
  const auto listed = participants_of(f.admin_session(), f.path);
  BOOST_TEST(ids_of(listed) == (std::vector<std::string>{"a", "b", "c", "d"}),
             boost::test_tools::per_element());
  const std::regex curator_latch_name(
      "_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-"
      "[0-9a-f]{12}-latch-[0-9]{10}");
  for (const auto& p : listed) {
    BOOST_TEST(std::regex_match(p.node, curator_latch_name), p.node);
    auto [ec, data] = test::get(f.admin_session().async_get(f.path + "/" + p.node, tuple_future));
    BOOST_TEST(!ec);
    BOOST_TEST(data.data == p.id);
    BOOST_TEST(p.term.value() == data.stat.czxid);
    BOOST_TEST(p.session_id == f.session_of(static_cast<std::size_t>(p.id[0] - 'a')).session_id());
    BOOST_TEST(p.leader == (&p == &listed.front()));
  }

  fencing_token previous_term;
  for (std::size_t leader = 0; leader < n; ++leader) {
    BOOST_REQUIRE_MESSAGE(ready_within(campaigns[leader], 10s), "participant " << leader);
    for (std::size_t other = leader + 1; other < n; ++other) {
      BOOST_TEST(!ready_within(campaigns[other], leader == 0 ? 300ms : 50ms),
                 "participant " << other << " elected while " << leader << " leads");
    }
    auto [ec, term] = campaigns[leader].get();
    BOOST_REQUIRE_MESSAGE(!ec, ec.message());
    BOOST_TEST(term.owns());
    BOOST_TEST(term.token() > previous_term);
    previous_term = term.token();
    const auto now = participants_of(f.admin_session(), f.path);
    BOOST_REQUIRE(!now.empty());
    BOOST_TEST(now.front().leader);
    BOOST_TEST(now.front().id == f.participants[leader]->participant_id());
    BOOST_TEST(now.front().term == term.token());
    BOOST_TEST(now.size() == n - leader);
    // Relinquish: leave the race, keep the session.
    const auto session_before = f.session_of(leader).session_id();
    auto [release_ec] = test::get(term.async_release(tuple_future));
    BOOST_TEST(!release_ec);
    BOOST_TEST(f.session_of(leader).session_id() == session_before);
    BOOST_TEST(f.session_of(leader).state() == session_state::connected);
  }
}

BOOST_AUTO_TEST_CASE(rejoin_after_relinquish_goes_to_the_tail_with_a_new_term) {
  fixture f(3);
  auto a = f.campaign_queued(0);
  auto b = f.campaign_queued(1);
  auto c = f.campaign_queued(2);
  auto a_term = elected(a);
  // Campaigning again while leading is refused: the object is one participant.
  auto [again_ec, again] = test::get(f.participants[0]->async_campaign(tuple_future));
  BOOST_TEST(again_ec == errc::already_held);

  relinquish(a_term);
  auto a_again = f.campaign_queued(0);
  BOOST_TEST(ids_of(participants_of(f.admin_session(), f.path)) ==
                 (std::vector<std::string>{"b", "c", "a"}),
             boost::test_tools::per_element());
  auto b_term = elected(b);
  BOOST_TEST(b_term.token() > a_term.token());
  BOOST_TEST(!ready_within(a_again, 200ms));
  relinquish(b_term);
  auto c_term = elected(c);
  BOOST_TEST(!ready_within(a_again, 200ms));
  relinquish(c_term);
  auto a2_term = elected(a_again);
  BOOST_TEST(a2_term.token() > c_term.token());  // the rejoined node's term is its own, newer
  relinquish(a2_term);
}

BOOST_AUTO_TEST_CASE(leader_session_expiry_elects_one_successor_with_a_higher_term) {
  fixture f(3);
  auto a = f.campaign_queued(0);
  auto b = f.campaign_queued(1);
  auto c = f.campaign_queued(2);
  auto a_term = elected(a);
  auto lost = a_term.async_wait_lost(tuple_future);
  BOOST_TEST((lost.wait_for(200ms) == std::future_status::timeout));

  testing::expire_session(f.session_of(0), expire_wait);
  BOOST_REQUIRE(lost.wait_for(10s) == std::future_status::ready);
  const auto [lost_ec] = lost.get();
  BOOST_TEST(lost_ec == zk_errc::session_expired, lost_ec.message());
  BOOST_TEST(!a_term.owns());
  BOOST_REQUIRE(ready_within(b, 10s));
  BOOST_TEST(!ready_within(c, 300ms), "two successors");
  auto [b_ec, b_term] = b.get();
  BOOST_REQUIRE(!b_ec);
  BOOST_TEST(b_term.token() > a_term.token());
  BOOST_TEST(
      ids_of(participants_of(f.admin_session(), f.path)) == (std::vector<std::string>{"b", "c"}),
      boost::test_tools::per_element());
  relinquish(b_term);
  auto c_term = elected(c);
  relinquish(c_term);
}

BOOST_AUTO_TEST_CASE(an_admin_deleting_the_leaders_node_ends_its_term_with_lock_lost) {
  fixture f(2);
  campaign_future b;
  auto a_term = f.elect_first_of_two(b);
  auto lost = a_term.async_wait_lost(tuple_future);
  auto [rm_ec] = test::get(f.admin_session().async_remove(a_term.path(), -1, tuple_future));
  BOOST_REQUIRE(!rm_ec);
  BOOST_REQUIRE(lost.wait_for(10s) == std::future_status::ready);
  const auto [lost_ec] = lost.get();
  BOOST_TEST(lost_ec == errc::lock_lost, lost_ec.message());
  BOOST_TEST(!a_term.owns());
  auto b_term = elected(b);
  BOOST_TEST(b_term.token() > a_term.token());
  relinquish(b_term);
}

// A leader paused past its session (its event loop blocked: it cannot learn of the loss) still
// believes it leads. Once the successor wrote, the store it protects rejects its old term, and
// its fenced ZooKeeper write does not apply either.
BOOST_AUTO_TEST_CASE(a_leader_paused_past_its_session_has_its_old_term_rejected) {
  fixture f(2);
  test::fence_store store;
  campaign_future b;
  auto a_term = f.elect_first_of_two(b);
  BOOST_TEST(store.write("config", a_term.token().value(), 1, "a"));
  BOOST_TEST(
      !std::get<0>(test::get(async_fenced_set(a_term, f.data_node(), "by a", -1, tuple_future))));

  paused_event_loop pause(f.clients[0]->io);
  testing::expire_session(f.session_of(0), expire_wait);
  auto b_term = elected(b);
  BOOST_TEST(b_term.token() > a_term.token());
  BOOST_TEST(store.write("config", b_term.token().value(), 2, "b"));
  BOOST_TEST(
      !std::get<0>(test::get(async_fenced_set(b_term, f.data_node(), "by b", -1, tuple_future))));

  // The paused leader has not heard of the loss, and writes with its old term.
  BOOST_TEST(a_term.owns(), "the paused leader already knew it lost: nothing is tested");
  BOOST_TEST(!store.write("config", a_term.token().value(), 3, "a"));
  auto stale = async_fenced_set(a_term, f.data_node(), "stale a", -1, tuple_future);
  pause.resume();
  auto [stale_ec, stale_stat] = test::get(stale);
  BOOST_TEST(stale_ec, "the stale leader's fenced write succeeded");
  BOOST_TEST_MESSAGE("stale fenced write: " << stale_ec.message());
  BOOST_TEST(store.read("config") == 2);
  BOOST_TEST(f.data_of(f.data_node()) == "by b");
  auto [lost_ec] = test::get(a_term.async_wait_lost(tuple_future));
  BOOST_TEST(lost_ec == zk_errc::session_expired, lost_ec.message());
  relinquish(b_term);
}

// The server's check is what fences: a leader whose node was deleted while its event loop was
// blocked still believes it leads, sends its fenced write, and the server refuses it (lock_lost).
BOOST_AUTO_TEST_CASE(a_fenced_write_after_the_term_ended_fails_with_lock_lost_on_the_server) {
  fixture f(2);
  campaign_future b;
  auto a_term = f.elect_first_of_two(b);
  const std::string& data_node = f.data_node();

  paused_event_loop pause(f.clients[0]->io);
  BOOST_REQUIRE(
      !std::get<0>(test::get(f.admin_session().async_remove(a_term.path(), -1, tuple_future))));
  auto b_term = elected(b);
  BOOST_TEST(a_term.owns(), "the paused leader already knew it lost: nothing is tested");
  auto stale = async_fenced_set(a_term, data_node, "stale a", -1, tuple_future);
  pause.resume();
  auto [stale_ec, stale_stat] = test::get(stale);
  BOOST_TEST(stale_ec == errc::lock_lost, stale_ec.message());
  BOOST_TEST(f.data_of(data_node) == "initial");
  auto [lost_ec] = test::get(a_term.async_wait_lost(tuple_future));
  BOOST_TEST(lost_ec == errc::lock_lost, lost_ec.message());
  relinquish(b_term);
}

BOOST_AUTO_TEST_CASE(the_observer_sees_every_leader_change_in_order) {
  fixture f(3);
  election_observer observer(f.admin_session(), f.path);
  const auto next = [&](std::chrono::seconds bound = 10s) {
    auto [ec, list] = test::get(observer.async_wait_change(tuple_future), bound);
    BOOST_REQUIRE_MESSAGE(!ec, "async_wait_change: " << ec.message());
    return list;
  };
  BOOST_TEST(next().empty());  // the path does not exist yet: the first wait reports at once

  // The path's creation is noticed: a's campaign creates it.
  auto a = f.participants[0]->async_campaign(tuple_future);
  auto seen = next();
  BOOST_REQUIRE(seen.size() == 1u);
  BOOST_TEST(seen.front().id == "a");
  BOOST_TEST(seen.front().leader);
  auto a_term = elected(a);
  BOOST_TEST(seen.front().term == a_term.token());

  // A change made while no wait is pending is not missed: the watch armed by the last read is
  // still there.
  auto b = f.campaign_queued(1);
  auto c = f.campaign_queued(2);
  seen = next();
  BOOST_TEST(ids_of(seen) == (std::vector<std::string>{"a", "b", "c"}),
             boost::test_tools::per_element());

  // With nothing changing, a wait stays pending.
  auto idle = observer.async_wait_change(tuple_future);
  BOOST_TEST((idle.wait_for(300ms) == std::future_status::timeout));

  std::vector<std::string> leaders_seen;
  relinquish(a_term);
  auto [idle_ec, after_a] = test::get(idle);
  BOOST_REQUIRE(!idle_ec);
  BOOST_REQUIRE(!after_a.empty());
  leaders_seen.push_back(after_a.front().id);
  BOOST_TEST(after_a.front().leader);
  auto b_term = elected(b);
  BOOST_TEST(after_a.front().term == b_term.token());
  relinquish(b_term);
  auto after_b = next();
  BOOST_REQUIRE(!after_b.empty());
  leaders_seen.push_back(after_b.front().id);
  auto c_term = elected(c);
  relinquish(c_term);
  BOOST_TEST(next().empty());
  BOOST_TEST(leaders_seen == (std::vector<std::string>{"b", "c"}),
             boost::test_tools::per_element());

  // One wait at a time per observer; cancelling by destruction completes it.
  auto pending = observer.async_wait_change(tuple_future);
  auto [twice_ec, twice] = test::get(observer.async_wait_change(tuple_future));
  BOOST_TEST(twice_ec == errc::already_held);
  { election_observer gone = std::move(observer); }
  auto [pending_ec, pending_list] = test::get(pending);
  BOOST_TEST(pending_ec == asio::error::operation_aborted, pending_ec.message());
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused_with_a_clear_error_and_leaves_no_node) {
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64);
  auto logger = std::make_shared<spdlog::logger>("election-test", sink);
  logger->set_level(spdlog::level::warn);
  test::io_thread io;
  session s(io.executor(), {.connect = test::lock_cluster()->connect_string(), .logger = logger});
  test::get(s.async_connect(asio::use_future));
  const std::string path = testing::unique_path("election-bad");
  const auto logged = [&](const std::string& what) {
    for (const auto& line : sink->last_formatted())
      if (line.find(what) != std::string::npos) return true;
    return false;
  };
  struct bad_id {
    std::string id;
    std::string log_says;
  };
  const std::vector<bad_id> bad_ids{
      {"group/a", "'/'"},
      {std::string("a\0b", 3), "NUL"},
      {std::string(max_participant_id_size + 1, 'x'), "longer than"},
      {"\xff\xfe", "UTF-8"},
      {"\xc0\xaf", "UTF-8"},  // an overlong '/'
  };
  for (const auto& bad : bad_ids) {
    BOOST_TEST_CONTEXT("id " << bad.log_says) {
      election e(s, path, bad.id);
      auto [ec, term] = test::get(e.async_campaign(tuple_future));
      BOOST_TEST(ec == errc::bad_argument, ec.message());
      BOOST_TEST(!term.owns());
      BOOST_TEST(logged(bad.log_says));
    }
  }
  BOOST_TEST(!test::get(s.async_exists(path, asio::use_future)).has_value());

  for (const std::string bad_path : {"no-slash", "/trailing/", "/a//b", ""}) {
    election e(s, bad_path, "ok");
    auto [ec, term] = test::get(e.async_campaign(tuple_future));
    BOOST_TEST(ec == errc::bad_path, bad_path);
    auto [list_ec, list] = test::get(async_participants(s, bad_path, tuple_future));
    BOOST_TEST(list_ec == errc::bad_path, bad_path);
    election_observer o(s, bad_path);
    auto [obs_ec, obs] = test::get(o.async_wait_change(tuple_future));
    BOOST_TEST(obs_ec == errc::bad_path, bad_path);
  }

  // A path that holds a lock's nodes: nobody can be elected there, and no latch node stays.
  lock holder(s, path);
  auto [lock_ec, held] = test::get(holder.async_acquire(tuple_future));
  BOOST_REQUIRE(!lock_ec);
  {
    election e(s, path, "candidate");
    auto [ec, term] = test::get(e.async_campaign(tuple_future));
    BOOST_TEST(ec == errc::recipe_mismatch, ec.message());
    auto [list_ec, list] = test::get(async_participants(s, path, tuple_future));
    BOOST_TEST(list_ec == errc::recipe_mismatch, list_ec.message());
    election_observer o(s, path);
    auto [obs_ec, obs] = test::get(o.async_wait_change(tuple_future));
    BOOST_TEST(obs_ec == errc::recipe_mismatch, obs_ec.message());
  }
  BOOST_TEST(test::eventually([&] {
    auto [ec, children] = test::get(s.async_children(path, tuple_future));
    return !ec && children.names.size() == 1u;
  }));
  BOOST_TEST(test::contenders_of(s, path).size() == 1u);
  relinquish(held);

  // The empty id is allowed (Curator's default): empty node data.
  {
    election e(s, path, "");
    auto [ec, term] = test::get(e.async_campaign(tuple_future));
    BOOST_REQUIRE_MESSAGE(!ec, ec.message());
    const auto list = participants_of(s, path);
    BOOST_REQUIRE(list.size() == 1u);
    BOOST_TEST(list.front().id == "");
    BOOST_TEST(list.front().leader);
    relinquish(term);
  }
  // A campaign that times out leaves no node either.
  {
    election first(s, path, "first");
    election second(s, path, "second");
    auto [ec, term] = test::get(first.async_campaign(tuple_future));
    BOOST_REQUIRE(!ec);
    auto [timeout_ec, none] = test::get(second.async_campaign(300ms, tuple_future));
    BOOST_TEST(timeout_ec == errc::timeout, timeout_ec.message());
    BOOST_TEST(test::eventually([&] { return participants_of(s, path).size() == 1u; }));
    relinquish(term);
  }
  BOOST_TEST(test::eventually([&] { return participants_of(s, path).empty(); }));
}
