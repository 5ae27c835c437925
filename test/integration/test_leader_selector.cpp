// SPDX-License-Identifier: Apache-2.0
// The leader selector against a real ZooKeeper: selectors on their own sessions take turns in
// queue order with auto-requeue and higher terms, a handler that lets go of its term releases,
// without requeue the selector stops, the leader's session expiry fires the lost signal and the
// next one leads, close while waiting or leading leaves no node, bad input gets a typed error,
// and the Curator bugs the selector avoids (518, 671, 358). Every test ends with no node
// left on its path.
#include <zkcoord/leader_selector.hpp>

#include <zkcoord/fenced.hpp>
#include <zkcoord/testing/expire_session.hpp>
#include <zkcoord/testing/tcp_proxy.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include <boost/asio/error.hpp>

#define BOOST_TEST_MODULE leader_selector
#include <boost/test/unit_test.hpp>

#include "support/lock_fixture.hpp"

#include <algorithm>
#include <condition_variable>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
using test::tuple_future;

namespace {

using test::lock_server;
BOOST_TEST_GLOBAL_FIXTURE(lock_server);

const error_code aborted = make_error_code(boost::asio::error::operation_aborted);

// What the handlers saw, across every selector of a test (one process, so one clock and one
// lock: two terms at once would be seen here).
struct recorder {
  struct term_record {
    std::string id;
    fencing_token token;
  };

  // A handler that keeps the term until the test ends it (end()) or the term is lost.
  leader_selector::handler_type keeper(std::string id) {
    return [this, id](leader_term term) {
      term.async_wait_lost([this, id, token = term.token()](error_code ec) {
        if (ec == errc::not_held) return;  // ended by the test
        leader_term t;  // the handler stops on the signal: the term ends outside the lock
        std::lock_guard lock(mutex);
        lost.emplace(id, ec);
        // (only this term: a later term of the same selector is not the one lost)
        if (auto it = active.find(id); it != active.end() && it->second.token() == token) {
          t = std::move(it->second);
          active.erase(it);
        }
        cv.notify_all();
      });
      std::lock_guard lock(mutex);
      if (!active.empty()) ++overlaps;
      terms.push_back({id, term.token()});
      active.emplace(id, std::move(term));
      cv.notify_all();
    };
  }
  // A handler that returns at once (Curator's takeLeadership returning).
  leader_selector::handler_type returner(std::string id) {
    return [this, id](leader_term term) {
      std::lock_guard lock(mutex);
      terms.push_back({id, term.token()});
      cv.notify_all();
    };
  }

  // Waits until `count` terms began; returns the id of the last one.
  std::string await_terms(std::size_t count) {
    std::unique_lock lock(mutex);
    BOOST_REQUIRE_MESSAGE(cv.wait_for(lock, 15s, [&] { return terms.size() >= count; }),
                          "term " << count << " never began");
    return terms[count - 1].id;
  }
  // Ends `id`'s term as its handler would by returning.
  void end(const std::string& id) {
    leader_term t;
    {
      std::lock_guard lock(mutex);
      auto it = active.find(id);
      BOOST_REQUIRE_MESSAGE(it != active.end(), id << " does not lead");
      t = std::move(it->second);
      active.erase(it);
    }
  }
  // Takes `id`'s term out of the recorder (the test ends it).
  leader_term take(const std::string& id) {
    std::lock_guard lock(mutex);
    auto it = active.find(id);
    BOOST_REQUIRE_MESSAGE(it != active.end(), id << " does not lead");
    leader_term t = std::move(it->second);
    active.erase(it);
    return t;
  }
  error_code await_lost(const std::string& id) {
    std::unique_lock lock(mutex);
    BOOST_REQUIRE_MESSAGE(cv.wait_for(lock, 15s, [&] { return lost.count(id) != 0; }),
                          id << " was never told of the loss");
    return lost[id];
  }
  std::size_t term_count() {
    std::lock_guard lock(mutex);
    return terms.size();
  }
  std::vector<term_record> all_terms() {
    std::lock_guard lock(mutex);
    return terms;
  }
  // Drops every term still held (before the selectors go).
  void clear() {
    std::map<std::string, leader_term> dropped;
    std::lock_guard lock(mutex);
    dropped.swap(active);
  }

  std::mutex mutex;
  std::condition_variable cv;
  std::vector<term_record> terms;
  std::map<std::string, leader_term> active;
  std::map<std::string, error_code> lost;
  int overlaps = 0;
};

using run_future = std::future<std::tuple<error_code>>;

// N selectors, each on its own session, on one fresh path; checked empty when the test ends.
struct fixture {
  ~fixture() {
    rec.clear();
    selectors.clear();
    BOOST_TEST(test::eventually([&] { return listed().empty(); }), "nodes left on " << path);
  }
  leader_selector& add(const std::string& id, leader_selector::handler_type handler,
                       bool auto_requeue = true, std::string connect = {}) {
    clients.push_back(std::make_unique<test::client>(std::chrono::milliseconds(6000), connect));
    selectors.push_back(
        std::make_unique<leader_selector>(*clients.back()->s, path, id, std::move(handler),
                                          leader_selector_options{.auto_requeue = auto_requeue}));
    return *selectors.back();
  }
  leader_selector& keeper(const std::string& id, bool auto_requeue = true) {
    return add(id, rec.keeper(id), auto_requeue);
  }
  // The participants of the path, read through an observing selector on the admin session.
  std::vector<participant> listed() {
    auto [ec, list] = test::get(observer.async_participants(tuple_future));
    BOOST_REQUIRE_MESSAGE(!ec, "participants: " << ec.message());
    return std::move(list);
  }
  std::vector<std::string> listed_ids() {
    std::vector<std::string> ids;
    for (const auto& p : listed()) ids.push_back(p.id);
    return ids;
  }
  // Runs selector i and waits until its node is listed, so that the queue order is known.
  run_future run_queued(std::size_t i) {
    const std::size_t before = listed().size();
    auto f = selectors.at(i)->async_run(tuple_future);
    BOOST_REQUIRE_MESSAGE(test::eventually([&] { return listed().size() == before + 1; }),
                          "selector " << i << " never queued");
    return f;
  }
  session& session_of(std::size_t i) { return *clients.at(i)->s; }

  std::string path = testing::unique_path("selector");
  test::client admin;
  leader_selector observer{*admin.s, path, "observer", nullptr};
  recorder rec;
  std::vector<std::unique_ptr<test::client>> clients;
  std::vector<std::unique_ptr<leader_selector>> selectors;
};

error_code run_result(run_future& f) {
  return std::get<0>(test::get(f, std::chrono::seconds(15)));
}

}  // namespace

BOOST_AUTO_TEST_CASE(three_selectors_take_turns_in_queue_order_with_auto_requeue) {
  fixture f;
  for (const char* id : {"a", "b", "c"}) f.keeper(id);
  std::vector<run_future> runs;
  for (std::size_t i = 0; i < 3; ++i) runs.push_back(f.run_queued(i));

  // Curator's InterProcessMutex layout, the participant id as the node's data.
  const auto listed = f.listed();
  BOOST_TEST(f.listed_ids() == (std::vector<std::string>{"a", "b", "c"}),
             boost::test_tools::per_element());
  const std::regex curator_lock_name(
      "_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-lock-[0-9]{10}");
  for (const auto& p : listed) {
    BOOST_TEST(std::regex_match(p.node, curator_lock_name), p.node);
    auto [ec, data] = test::get(f.admin.s->async_get(f.path + "/" + p.node, tuple_future));
    BOOST_TEST(!ec);
    BOOST_TEST(data.data == p.id);
  }

  // a, b, c, then a and b again: each one joined at the tail when its handler let go.
  const std::vector<std::string> expected{"a", "b", "c", "a", "b"};
  for (std::size_t turn = 0; turn < expected.size(); ++turn) {
    const std::string leader = f.rec.await_terms(turn + 1);
    BOOST_TEST(leader == expected[turn]);
    // Every session names the same leader.
    for (std::size_t i = 0; i < 3; ++i) {
      auto [ec, named] = test::get(f.selectors[i]->async_leader(tuple_future));
      BOOST_TEST(!ec);
      BOOST_TEST(named.id == leader);
    }
    if (turn == 0) {
      auto [ec, named] = test::get(f.observer.async_leader(tuple_future));
      BOOST_TEST(named.id == "a");
    }
    f.rec.end(leader);
  }
  const auto terms = f.rec.all_terms();
  for (std::size_t i = 1; i < terms.size(); ++i)
    BOOST_TEST(terms[i - 1].token < terms[i].token, "term " << i << " token not larger");
  BOOST_TEST(f.rec.overlaps == 0);

  for (auto& s : f.selectors) s->close();
  for (auto& r : runs) BOOST_TEST(run_result(r) == aborted);
}

BOOST_AUTO_TEST_CASE(a_handler_that_returns_releases_and_without_requeue_the_selector_stops) {
  fixture f;
  auto& first = f.add("first", f.rec.returner("first"), false);
  auto& second = f.keeper("second", false);
  f.add("holder", f.rec.keeper("holder"), false);
  // holder leads first, so the other two queue behind it in a known order.
  auto hold = f.run_queued(2);
  BOOST_REQUIRE(f.rec.await_terms(1) == "holder");
  auto first_run = f.run_queued(0);
  auto second_run = f.run_queued(1);
  f.rec.end("holder");
  BOOST_TEST(!run_result(hold));  // without requeue: stopped after its term

  // first's handler returns at once: its term ends, its run ends, second leads.
  BOOST_TEST(f.rec.await_terms(2) == "first");
  BOOST_TEST(!run_result(first_run));
  BOOST_TEST(f.rec.await_terms(3) == "second");
  BOOST_TEST(f.listed_ids() == std::vector<std::string>{"second"});
  f.rec.end("second");
  BOOST_TEST(!run_result(second_run));
  BOOST_TEST(test::eventually([&] { return f.listed().empty(); }));

  // Running again queues again (Curator's requeue()), with a higher term.
  auto again = second.async_run(tuple_future);
  BOOST_TEST(f.rec.await_terms(4) == "second");
  const auto terms = f.rec.all_terms();
  BOOST_TEST(terms[2].token < terms[3].token);
  f.rec.end("second");
  BOOST_TEST(!run_result(again));
  (void)first;
}

BOOST_AUTO_TEST_CASE(a_term_fences_writes_until_it_ends) {
  fixture f;
  f.keeper("a", false);
  auto run = f.run_queued(0);
  BOOST_REQUIRE(f.rec.await_terms(1) == "a");
  const std::string data_node = f.path + "-data";
  BOOST_REQUIRE(!std::get<0>(test::get(f.admin.s->async_create(data_node, "", {}, tuple_future))));
  {
    std::lock_guard lock(f.rec.mutex);
    auto& term = f.rec.active.at("a");
    BOOST_TEST(term.held().owns());
    BOOST_TEST(term.held().token() == term.token());
    auto [ec, stat] = test::get(async_fenced_set(term.held(), data_node, "by a", -1, tuple_future));
    BOOST_TEST(!ec, ec.message());
  }
  // The handler lets go of the term: a write through its lock is refused from then on.
  leader_term ended;
  {
    std::lock_guard lock(f.rec.mutex);
    ended = std::move(f.rec.active.at("a"));
    f.rec.active.erase("a");
  }
  ended.finish();
  BOOST_TEST(!run_result(run));
  BOOST_TEST(!ended.held().owns());
  const error_code late =
      std::get<0>(test::get(async_fenced_set(ended.held(), data_node, "late", -1, tuple_future)));
  BOOST_TEST((late == errc::lock_lost || late == errc::not_held), late.message());
  auto [ec, read] = test::get(f.admin.s->async_get(data_node, tuple_future));
  BOOST_TEST(read.data == "by a");
  BOOST_TEST(!std::get<0>(test::get(f.admin.s->async_remove(data_node, -1, tuple_future))));
}

namespace {
/// After a's term ended: b leads, with a larger token, and a (auto-requeue) queues again
/// behind b.
void expect_b_leads_and_a_requeues(fixture& f) {
  BOOST_TEST(f.rec.await_terms(2) == "b");
  const auto terms = f.rec.all_terms();
  BOOST_TEST(terms[0].token < terms[1].token);
  BOOST_TEST(test::eventually(
      [&] {
        return f.listed_ids() == std::vector<std::string>{"b", "a"};
      },
      15000ms));
}
}  // namespace

BOOST_AUTO_TEST_CASE(expiry_of_the_leaders_session_fires_the_lost_signal_and_the_next_leads) {
  fixture f;
  f.keeper("a");
  f.keeper("b");
  auto run_a = f.run_queued(0);
  auto run_b = f.run_queued(1);
  BOOST_REQUIRE(f.rec.await_terms(1) == "a");
  testing::expire_session(f.session_of(0), 2000ms);
  // Told as the session's suspension (its connection was cut) or as its expiry, whichever
  // the client saw first.
  const error_code lost = f.rec.await_lost("a");
  BOOST_TEST((lost == zk_errc::session_expired || lost == zk_errc::connection_loss),
             lost.message());
  expect_b_leads_and_a_requeues(f);
  f.rec.end("b");
  BOOST_TEST(f.rec.await_terms(3) == "a");
  BOOST_TEST(f.rec.overlaps == 0);
  for (auto& s : f.selectors) s->close();
  BOOST_TEST(run_result(run_a) == aborted);
  BOOST_TEST(run_result(run_b) == aborted);
}

// A suspended session (contact lost, the session maybe alive) ends the handler through the same
// lost signal, as Curator's LeaderSelectorListenerAdapter does on SUSPENDED; once the session is
// back the term's node goes, the next participant leads, and the suspended one queues again.
BOOST_AUTO_TEST_CASE(suspension_fires_the_lost_signal_and_the_next_leads_after_reconnect) {
  fixture f;
  testing::tcp_proxy proxy("127.0.0.1", test::lock_cluster()->local_server().port());
  f.add("a", f.rec.keeper("a"), true, proxy.connect_string());
  f.keeper("b");
  auto run_a = f.run_queued(0);
  auto run_b = f.run_queued(1);
  BOOST_REQUIRE(f.rec.await_terms(1) == "a");
  proxy.blackhole(true);
  BOOST_TEST(f.rec.await_lost("a") == zk_errc::connection_loss);
  proxy.blackhole(false);
  expect_b_leads_and_a_requeues(f);
  BOOST_TEST(f.rec.overlaps == 0);
  for (auto& s : f.selectors) s->close();
  BOOST_TEST(run_result(run_a) == aborted);
  BOOST_TEST(run_result(run_b) == aborted);
  // The aborted waits delete their nodes in the background: let that happen while a's
  // connection (the proxy, destroyed first) is still there.
  BOOST_TEST(test::eventually([&] { return f.listed().empty(); }));
}

// Closing a selector that waits (it never held the lock) deletes its own node only;
// the leader keeps its node and its term, and nothing throws.
BOOST_AUTO_TEST_CASE(close_while_waiting_leaves_the_leader_alone) {
  fixture f;
  f.keeper("a");
  f.keeper("b");
  auto run_a = f.run_queued(0);
  auto run_b = f.run_queued(1);
  BOOST_REQUIRE(f.rec.await_terms(1) == "a");
  f.selectors[1]->close();
  BOOST_TEST(run_result(run_b) == aborted);
  BOOST_TEST(f.listed_ids() == std::vector<std::string>{"a"});
  {
    std::lock_guard lock(f.rec.mutex);
    BOOST_TEST(f.rec.active.at("a").held().owns());
    BOOST_TEST(!f.rec.active.at("a").lost());
  }
  // Closing it again, or destroying it, changes nothing.
  f.selectors[1]->close();
  f.selectors[1].reset();
  BOOST_TEST(f.listed_ids() == std::vector<std::string>{"a"});
  f.selectors[0]->close();
  BOOST_TEST(run_result(run_a) == aborted);
}

// Closing while the handler still runs: the lost signal fires and the node goes at once, whether
// or not the handler returns. And nothing queues again afterwards.
BOOST_AUTO_TEST_CASE(close_while_leading_leaves_no_node_and_never_requeues) {
  fixture f;
  // A handler that keeps its term and ignores the lost signal.
  std::mutex m;
  std::vector<leader_term> kept;
  f.add("a", [&](leader_term t) {
    std::lock_guard lock(m);
    kept.push_back(std::move(t));
  });
  f.keeper("b");
  auto run_a = f.run_queued(0);
  BOOST_REQUIRE(test::eventually([&] {
    std::lock_guard lock(m);
    return kept.size() == 1;
  }));
  auto run_b = f.run_queued(1);
  std::future<std::tuple<error_code>> lost;
  {
    std::lock_guard lock(m);
    lost = kept[0].async_wait_lost(tuple_future);
  }
  f.selectors[0]->close();
  BOOST_TEST(std::get<0>(test::get(lost)) == aborted);
  BOOST_TEST(run_result(run_a) == aborted);
  BOOST_TEST(f.rec.await_terms(1) == "b");  // a's node is gone though its handler holds on
  BOOST_TEST(f.listed_ids() == std::vector<std::string>{"b"});
  {
    std::lock_guard lock(m);
    BOOST_TEST(!kept[0].held().owns());
    BOOST_TEST(kept[0].lost());
    kept.clear();  // the handler returns now: no requeue after close
  }
  auto after_close = f.selectors[0]->async_run(tuple_future);
  BOOST_TEST(run_result(after_close) == aborted);
  f.rec.end("b");
  BOOST_TEST(f.rec.await_terms(2) == "b");
  BOOST_TEST(f.listed_ids() == std::vector<std::string>{"b"});
  f.selectors[1]->close();
  BOOST_TEST(run_result(run_b) == aborted);
}

// A run while queued or leading creates no second node.
BOOST_AUTO_TEST_CASE(a_run_while_queued_or_leading_creates_no_second_node) {
  fixture f;
  f.keeper("a");
  f.keeper("b");
  auto run_a = f.run_queued(0);
  auto run_b = f.run_queued(1);
  BOOST_REQUIRE(f.rec.await_terms(1) == "a");
  for (std::size_t i : {0u, 1u}) {
    auto again = f.selectors[i]->async_run(tuple_future);
    BOOST_TEST(run_result(again) == errc::already_held);
  }
  BOOST_TEST(f.listed_ids() == (std::vector<std::string>{"a", "b"}),
             boost::test_tools::per_element());
  // The term's end requeues once: still one node each.
  f.rec.end("a");
  BOOST_TEST(f.rec.await_terms(2) == "b");
  BOOST_TEST(test::eventually([&] {
    return f.listed_ids() == std::vector<std::string>{"b", "a"};
  }));
  for (auto& s : f.selectors) s->close();
  BOOST_TEST(run_result(run_a) == aborted);
  BOOST_TEST(run_result(run_b) == aborted);
}

// CURATOR-518: with auto-requeue, the term is interrupted twice at once (finish() from two
// threads while another client deletes our node, so the lost signal races the release and the
// requeue): each time the selector queues again exactly once (one node of ours) and leads again.
BOOST_AUTO_TEST_CASE(curator_518_interruptions_during_the_requeue_queue_once_and_lead_again) {
  fixture f;
  f.keeper("a");
  auto run_a = f.run_queued(0);
  constexpr std::size_t rounds = 10;
  for (std::size_t round = 1; round <= rounds; ++round) {
    BOOST_TEST_CONTEXT("round " << round) {
      BOOST_REQUIRE(f.rec.await_terms(round) == "a");
      leader_term term = f.rec.take("a");
      const std::string node = term.held().path();
      auto removed = f.admin.s->async_remove(node, -1, tuple_future);
      std::thread first([&] { term.finish(); });
      std::thread second([&] { term.finish(); });
      first.join();
      second.join();
      const auto [rm] = test::get(removed);
      BOOST_TEST((!rm || rm == zk_errc::no_node), rm.message());
      BOOST_REQUIRE_MESSAGE(f.rec.await_terms(round + 1) == "a", "a never led again");
      BOOST_TEST(f.listed_ids() == std::vector<std::string>{"a"});
    }
  }
  BOOST_TEST(f.rec.overlaps == 0);
  f.selectors[0]->close();
  BOOST_TEST(run_result(run_a) == aborted);
}

// CURATOR-671: without auto-requeue, a run started right after the previous run completed (the
// term just ended) queues once and leads again; so do 20 runs back to back, each started from
// the previous run's completion.
BOOST_AUTO_TEST_CASE(curator_671_a_run_right_after_a_term_queues_once_and_leads_again) {
  fixture f;
  auto& a = f.keeper("a", false);
  auto first = a.async_run(tuple_future);
  BOOST_REQUIRE(f.rec.await_terms(1) == "a");
  f.rec.end("a");
  BOOST_TEST(!run_result(first));
  auto second = a.async_run(tuple_future);  // at once: the requeue
  BOOST_REQUIRE(f.rec.await_terms(2) == "a");
  BOOST_TEST(f.listed_ids() == std::vector<std::string>{"a"});
  f.rec.end("a");
  BOOST_TEST(!run_result(second));

  auto& r = f.add("r", f.rec.returner("r"), false);  // each term ends at once
  constexpr std::size_t runs = 20;
  std::vector<error_code> results;  // written by the chain only, read once it is done
  std::promise<void> done;
  std::function<void(error_code)> next = [&](error_code ec) {
    results.push_back(ec);
    if (results.size() < runs && !ec)
      r.async_run(next);
    else
      done.set_value();
  };
  r.async_run(next);
  BOOST_REQUIRE_MESSAGE(done.get_future().wait_for(30s) == std::future_status::ready,
                        "the back-to-back runs stalled");
  BOOST_REQUIRE_EQUAL(results.size(), runs);
  for (std::size_t i = 0; i < runs; ++i) BOOST_TEST(!results[i], "run " << i << ": " << results[i]);
  const auto terms = f.rec.all_terms();
  BOOST_REQUIRE_EQUAL(terms.size(), runs + 2);
  for (std::size_t i = 2; i < terms.size(); ++i) {
    BOOST_TEST(terms[i].id == "r");
    BOOST_TEST(terms[i - 1].token < terms[i].token, "term " << i << " token not larger");
  }
  BOOST_TEST(test::eventually([&] { return f.listed().empty(); }));
}

// CURATOR-358: the leader is read while leadership changes under it; every answer names a real
// participant (never an empty id in place of a leader that was just deleted).
BOOST_AUTO_TEST_CASE(curator_358_leader_lookups_during_turnover_name_a_real_participant) {
  fixture f;
  const std::set<std::string> ids{"x", "y", "z"};
  for (const auto& id : ids) f.add(id, f.rec.returner(id));  // each term ends at once
  std::vector<run_future> runs;
  for (std::size_t i = 0; i < ids.size(); ++i)
    runs.push_back(f.selectors[i]->async_run(tuple_future));
  BOOST_REQUIRE(f.rec.await_terms(3) != "");
  int named = 0, nobody = 0;
  for (int i = 0; i < 300; ++i) {
    auto [ec, leader] = test::get(f.observer.async_leader(tuple_future));
    if (ec == zk_errc::no_node) {
      ++nobody;  // at that instant every node was between its release and its requeue
      continue;
    }
    BOOST_REQUIRE_MESSAGE(!ec, ec.message());
    BOOST_TEST(ids.count(leader.id) == 1, "leader named '" << leader.id << "'");
    BOOST_TEST(leader.leader);
    ++named;
  }
  BOOST_TEST_MESSAGE("named " << named << ", nobody " << nobody << ", terms "
                              << f.rec.term_count());
  BOOST_TEST(named > 0);
  for (auto& s : f.selectors) s->close();
  for (auto& r : runs) BOOST_TEST(run_result(r) == aborted);
}

BOOST_AUTO_TEST_CASE(bad_input_gets_a_typed_error_and_no_node) {
  fixture f;
  test::client c;
  leader_selector bad_path(*c.s, "no-slash", "a", f.rec.returner("a"));
  auto r = bad_path.async_run(tuple_future);
  BOOST_TEST(run_result(r) == errc::bad_path);
  auto [ec, list] = test::get(bad_path.async_participants(tuple_future));
  BOOST_TEST(ec == errc::bad_path);
  BOOST_TEST(std::get<0>(test::get(bad_path.async_leader(tuple_future))) == errc::bad_path);

  leader_selector bad_id(*c.s, f.path, std::string("a\0b", 3), f.rec.returner("a"));
  auto r2 = bad_id.async_run(tuple_future);
  BOOST_TEST(run_result(r2) == errc::bad_argument);
  BOOST_TEST(f.listed().empty());
  // Nobody leads an empty path: said, not an empty participant.
  BOOST_TEST(std::get<0>(test::get(f.observer.async_leader(tuple_future))) == condition::not_found);
  BOOST_TEST(f.rec.term_count() == 0u);
}
