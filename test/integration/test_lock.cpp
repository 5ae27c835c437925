// SPDX-License-Identifier: Apache-2.0
// The lock against a real ZooKeeper: grants and tokens, exclusion and FIFO hand-off, try,
// timeout, cancellation, already_held, loss by deletion, contenders, bad input, and the three
// call styles.
#include <zkcoord/lock.hpp>

#include <zkcoord/fenced.hpp>
#include <zkcoord/testing/four_letter.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE lock
#include <boost/test/unit_test.hpp>

#include "support/lock_fixture.hpp"
#include "support/server_watches.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <future>
#include <string>
#include <thread>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using test::acquire;
using test::tuple_future;
using test::watches_of;

namespace {

using test::lock_server;
BOOST_TEST_GLOBAL_FIXTURE(lock_server);

struct fixture {
  test::client a;
  std::string path = testing::unique_path("lock");
  session& s = *a.s;

  void create_with_parents(const std::string& node, create_options options = {}) {
    for (std::size_t slash = node.find('/', 1);; slash = node.find('/', slash + 1)) {
      const bool last = slash == std::string::npos;
      auto [ec, created] = test::get(s.async_create(
          node.substr(0, slash), "", last ? options : create_options{}, tuple_future));
      BOOST_REQUIRE(!ec || ec == zk_errc::node_exists);
      if (last) break;
    }
  }
  int children_of(const std::string& node) {
    auto stat = test::get(s.async_exists(node, asio::use_future));
    BOOST_REQUIRE(stat.has_value());
    return stat->num_children;
  }
};

std::int64_t czxid_of(session& s, const std::string& node) {
  auto stat = test::get(s.async_exists(node, asio::use_future));
  BOOST_REQUIRE(stat.has_value());
  return stat->czxid;
}

}  // namespace

BOOST_FIXTURE_TEST_CASE(acquire_and_release, fixture) {
  lock l(s, path);
  BOOST_TEST(l.path() == path);
  auto [ec, held] = acquire(l);
  BOOST_REQUIRE(!ec);
  BOOST_TEST(held.owns());
  BOOST_TEST(!held.in_doubt());
  BOOST_TEST(held.path().starts_with(path + "/_c_"));
  BOOST_TEST(held.path().find("-lock-") != std::string::npos);
  BOOST_TEST(held.session_id() == s.session_id());
  BOOST_TEST(held.node_version() == 0);
  BOOST_TEST((held.valid_until() > std::chrono::steady_clock::now()));

  auto stat = test::get(s.async_exists(held.path(), asio::use_future));
  BOOST_REQUIRE(stat.has_value());
  BOOST_TEST(held.token().value() == stat->czxid);
  BOOST_TEST(stat->ephemeral_owner == s.session_id());

  const std::string node = held.path();
  auto [release_ec] = test::get(held.async_release(tuple_future));
  BOOST_TEST(!release_ec);
  BOOST_TEST(!held.owns());
  BOOST_TEST(held.path() == node);  // still describes the grant
  BOOST_TEST((held.valid_until() == std::chrono::steady_clock::time_point::min()));
  BOOST_TEST(!test::get(s.async_exists(node, asio::use_future)).has_value());
  auto [again] = test::get(held.async_release(tuple_future));
  BOOST_TEST(again == errc::not_held);
  auto [wait_ec] = test::get(held.async_wait_lost(tuple_future));
  BOOST_TEST(wait_ec == errc::not_held);

  held_lock empty;
  BOOST_TEST(!empty.owns());
  BOOST_TEST(empty.token().value() == 0);
  auto [empty_ec] = test::get(empty.async_release(tuple_future));
  BOOST_TEST(empty_ec == errc::not_held);
}

BOOST_FIXTURE_TEST_CASE(tokens_are_czxids_and_strictly_increase, fixture) {
  lock l(s, path);
  fencing_token last;
  for (int i = 0; i < 5; ++i) {
    auto [ec, held] = acquire(l);
    BOOST_REQUIRE(!ec);
    BOOST_TEST(held.token().value() == czxid_of(s, held.path()));
    BOOST_TEST((held.token() > last));
    last = held.token();
  }  // each handle releases in its destructor
  BOOST_TEST(test::eventually([&] { return test::contenders_of(s, path).empty(); }));
}

BOOST_FIXTURE_TEST_CASE(call_styles, fixture) {
  lock l(s, path);
  // Callback.
  std::promise<std::tuple<error_code, held_lock>> done;
  l.async_acquire([&](error_code ec, held_lock h) { done.set_value({ec, std::move(h)}); });
  auto [ec1, h1] = test::get(done.get_future());
  BOOST_TEST(!ec1);
  BOOST_TEST(h1.owns());
  test::get(h1.async_release(asio::use_future));

  // use_future: errors become exceptions.
  held_lock h2 = test::get(l.async_acquire(asio::use_future));
  BOOST_TEST(h2.owns());
  BOOST_CHECK_THROW(test::get(l.async_acquire(asio::use_future)), system_error);  // already_held
  test::get(h2.async_release(asio::use_future));

  // use_awaitable.
  auto f = asio::co_spawn(
      a.io.executor(),
      [&]() -> asio::awaitable<fencing_token> {
        held_lock h = co_await l.async_acquire(asio::use_awaitable);
        co_await h.async_release(asio::use_awaitable);
        co_return h.token();
      },
      asio::use_future);
  BOOST_TEST((test::get(f) > h2.token()));
}

BOOST_FIXTURE_TEST_CASE(exclusion_fifo_and_handoff, fixture) {
  test::client b, c;
  lock la(s, path), lb(*b.s, path), lc(*c.s, path);
  auto [ea, ha] = acquire(la);
  BOOST_REQUIRE(!ea);
  auto fb = lb.async_acquire(tuple_future);
  BOOST_REQUIRE(test::contenders_reach(s, path, 2));
  auto fc = lc.async_acquire(tuple_future);
  BOOST_REQUIRE(test::contenders_reach(s, path, 3));
  BOOST_TEST((fb.wait_for(200ms) == std::future_status::timeout));
  BOOST_TEST((fc.wait_for(0ms) == std::future_status::timeout));

  auto released = std::chrono::steady_clock::now();
  test::get(ha.async_release(asio::use_future));
  auto [eb, hb] = test::get(fb);
  const double handoff = test::seconds_since(released);
  BOOST_REQUIRE(!eb);
  BOOST_TEST(handoff < 3.0, "hand-off took " << handoff << " s");
  BOOST_TEST((hb.token() > ha.token()));
  BOOST_TEST((fc.wait_for(200ms) == std::future_status::timeout));  // C stays behind B

  test::get(hb.async_release(asio::use_future));
  auto [ec, hc] = test::get(fc);
  BOOST_REQUIRE(!ec);
  BOOST_TEST((hc.token() > hb.token()));
}

BOOST_FIXTURE_TEST_CASE(many_locks_on_one_session, fixture) {
  // Pending and held locks multiplexed on one session, no thread each.
  constexpr int n = 50;
  std::vector<std::unique_ptr<lock>> locks;
  std::vector<std::future<test::acquire_result>> results;
  for (int i = 0; i < n; ++i) {
    locks.push_back(std::make_unique<lock>(s, path));
    results.push_back(locks.back()->async_acquire(tuple_future));
  }
  // Every waiter has listed and sent the read that watches its predecessor.
  BOOST_REQUIRE(test::eventually([&] { return s.sent_requests().gets >= n - 1; }));
  const request_counts queued = s.sent_requests();
  fencing_token last;
  for (int granted = 0; granted < n; ++granted) {
    // Exactly one ready at a time: find it, release it.
    int ready = -1;
    BOOST_REQUIRE(test::eventually([&] {
      for (int i = 0; i < n; ++i)
        if (results[i].valid() && results[i].wait_for(0ms) == std::future_status::ready)
          return (ready = i), true;
      return false;
    }));
    auto [ec, held] = results[ready].get();
    BOOST_REQUIRE(!ec);
    BOOST_TEST((held.token() > last));
    last = held.token();
    for (int i = 0; i < n; ++i)
      if (i != ready && results[i].valid())
        BOOST_TEST((results[i].wait_for(0ms) == std::future_status::timeout));
    test::get(held.async_release(asio::use_future));
  }
  // The session saw every node ahead of each waiter go (its own releases), so the hand-offs
  // need no listing (docs/lock.md): re-listing on every wake-up, as before, took n - 1. A few
  // may still list (a count that cannot be trusted lists, safely); most must not.
  const request_counts drained = s.sent_requests();
  BOOST_TEST_MESSAGE("listings while draining " << n << ": " << drained.listings - queued.listings);
  BOOST_TEST(drained.listings - queued.listings < n / 2u);
  BOOST_TEST(drained.removes - queued.removes == std::uint64_t{n});
}

BOOST_FIXTURE_TEST_CASE(a_sessions_waiters_hand_off_in_order_among_other_sessions, fixture) {
  // Waiters of one session are granted from the session's deletion count when it saw every
  // node ahead of them go (docs/lock.md); contenders of other sessions and waiters that give
  // up in between must neither be skipped nor let two hold at once.
  test::client b, c;
  struct contender {
    std::string name;
    std::unique_ptr<lock> l;
    std::future<test::acquire_result> result;
  };
  std::vector<contender> queue;
  auto enqueue = [&](const std::string& name, session& on) {
    queue.push_back({name, std::make_unique<lock>(on, path), {}});
    queue.back().result = queue.back().l->async_acquire(tuple_future);
    BOOST_REQUIRE(test::contenders_reach(s, path, queue.size()));
  };
  enqueue("holder on b", *b.s);
  for (int i = 0; i < 10; ++i) {
    enqueue("w" + std::to_string(i), s);
    if (i == 2) enqueue("x on c", *c.s);
    if (i == 6) enqueue("y on b", *b.s);
  }
  // w4 and w5 give up: their nodes go by their own session's deletes.
  for (auto& q : queue) {
    if (q.name == "w4" || q.name == "w5") {
      q.l.reset();
      auto [ec, never] = test::get(q.result);
      BOOST_TEST((ec == asio::error::operation_aborted), q.name);
    }
  }
  std::vector<std::string> order;
  fencing_token last;
  for (;;) {
    int ready = -1, waiting = 0;
    BOOST_REQUIRE(test::eventually([&] {
      waiting = 0;
      for (int i = 0; i < static_cast<int>(queue.size()); ++i) {
        if (!queue[i].result.valid()) continue;
        ++waiting;
        if (queue[i].result.wait_for(0ms) == std::future_status::ready) ready = i;
      }
      return waiting == 0 || ready >= 0;
    }));
    if (waiting == 0) break;
    auto [ec, held] = queue[ready].result.get();
    BOOST_REQUIRE_MESSAGE(!ec, queue[ready].name << ": " << ec.message());
    BOOST_TEST((held.token() > last));
    last = held.token();
    order.push_back(queue[ready].name);
    // Nobody else holds while it does (a grant takes well under this in every run).
    std::this_thread::sleep_for(50ms);
    for (auto& q : queue)
      if (q.result.valid())
        BOOST_TEST((q.result.wait_for(0ms) == std::future_status::timeout), q.name << " too");
    test::get(held.async_release(asio::use_future));
  }
  const std::vector<std::string> expected{"holder on b", "w0",     "w1", "w2", "x on c", "w3",
                                          "w6",          "y on b", "w7", "w8", "w9"};
  BOOST_TEST(order == expected, boost::test_tools::per_element());
  BOOST_TEST(test::contenders_reach(s, path, 0));
}

BOOST_FIXTURE_TEST_CASE(try_acquire_busy_deletes_its_node, fixture) {
  test::client b;
  lock la(s, path), lb(*b.s, path);
  auto [ea, ha] = acquire(la);
  BOOST_REQUIRE(!ea);
  auto [eb, hb] = test::get(lb.async_try_acquire(tuple_future));
  BOOST_TEST(eb == errc::busy);
  BOOST_TEST(!hb.owns());
  BOOST_TEST(test::contenders_reach(s, path, 1));
  test::get(ha.async_release(asio::use_future));
  auto [eb2, hb2] = test::get(lb.async_try_acquire(tuple_future));
  BOOST_TEST(!eb2);
  BOOST_TEST(hb2.owns());
}

BOOST_FIXTURE_TEST_CASE(acquire_timeout, fixture) {
  test::client b;
  lock la(s, path), lb(*b.s, path);
  auto [ea, ha] = acquire(la);
  BOOST_REQUIRE(!ea);
  const auto start = std::chrono::steady_clock::now();
  auto [eb, hb] = test::get(lb.async_acquire(300ms, tuple_future));
  const double took = test::seconds_since(start);
  BOOST_TEST(eb == errc::timeout);
  BOOST_TEST(took >= 0.3);
  BOOST_TEST(took <= 2.5, "timeout returned after " << took << " s");
  BOOST_TEST(test::contenders_reach(s, path, 1));
  // A timeout long enough succeeds.
  auto fb = lb.async_acquire(5s, tuple_future);
  BOOST_REQUIRE(test::contenders_reach(s, path, 2));
  test::get(ha.async_release(asio::use_future));
  auto [eb2, hb2] = test::get(fb);
  BOOST_TEST(!eb2);
}

BOOST_FIXTURE_TEST_CASE(cancel_while_waiting, fixture) {
  test::client b;
  lock la(s, path), lb(*b.s, path);
  auto [ea, ha] = acquire(la);
  BOOST_REQUIRE(!ea);
  asio::cancellation_signal cancel;
  auto fb = lb.async_acquire(asio::bind_cancellation_slot(cancel.slot(), tuple_future));
  BOOST_REQUIRE(test::contenders_reach(s, path, 2));
  BOOST_TEST(test::eventually(
      [&] { return watches_of(b.s->session_id()).find(ha.path()) != std::string::npos; }));
  const auto start = std::chrono::steady_clock::now();
  // Emitted on the io thread, as Asio expects of cancellation signals.
  asio::post(b.io.executor(), [&] { cancel.emit(asio::cancellation_type::terminal); });
  auto [eb, hb] = test::get(fb);
  BOOST_TEST(test::seconds_since(start) < 2.0);  // liveness bound, generous under load
  BOOST_TEST(eb == asio::error::operation_aborted);
  BOOST_TEST(test::contenders_reach(s, path, 1));
  // The watch on the predecessor is gone from the server too (not only from the client).
  BOOST_TEST(test::eventually(
      [&] { return watches_of(b.s->session_id()).find(ha.path()) == std::string::npos; }, 2s));
}

BOOST_FIXTURE_TEST_CASE(destroying_the_lock_aborts_its_acquire, fixture) {
  test::client b;
  lock la(s, path);
  auto [ea, ha] = acquire(la);
  BOOST_REQUIRE(!ea);
  auto lb = std::make_unique<lock>(*b.s, path);
  auto fb = lb->async_acquire(tuple_future);
  BOOST_REQUIRE(test::contenders_reach(s, path, 2));
  lb.reset();
  auto [eb, hb] = test::get(fb);
  BOOST_TEST(eb == asio::error::operation_aborted);
  BOOST_TEST(test::contenders_reach(s, path, 1));
}

BOOST_FIXTURE_TEST_CASE(already_held, fixture) {
  test::client b;
  lock la(s, path), lb(*b.s, path);
  auto [ea, ha] = acquire(la);
  BOOST_REQUIRE(!ea);
  auto fb = lb.async_acquire(tuple_future);
  BOOST_REQUIRE(test::contenders_reach(s, path, 2));
  auto [pending_ec, none] = test::get(lb.async_acquire(tuple_future));
  BOOST_TEST(pending_ec == errc::already_held);
  auto [held_ec, none2] = test::get(la.async_try_acquire(tuple_future));
  BOOST_TEST(held_ec == errc::already_held);
  BOOST_TEST(test::contenders_of(s, path).size() == 2u);  // nothing was created for them
  test::get(ha.async_release(asio::use_future));
  auto [eb, hb] = test::get(fb);
  BOOST_REQUIRE(!eb);
  // Released: the lock object may acquire again.
  auto fa = la.async_acquire(tuple_future);
  hb = held_lock();  // destroying the handle releases
  auto [ea2, ha2] = test::get(fa);
  BOOST_TEST(!ea2);
}

BOOST_FIXTURE_TEST_CASE(lost_when_our_node_is_deleted_by_someone_else, fixture) {
  test::client other;
  lock l(s, path);
  auto [ec, held] = acquire(l);
  BOOST_REQUIRE(!ec);
  auto lost = held.async_wait_lost(tuple_future);
  BOOST_TEST((lost.wait_for(100ms) == std::future_status::timeout));
  test::get(other.s->async_remove(held.path(), any_version, asio::use_future));
  auto [lost_ec] = test::get(lost);
  BOOST_TEST(lost_ec == errc::lock_lost);
  BOOST_TEST(!held.owns());
  auto [later] = test::get(held.async_wait_lost(tuple_future));
  BOOST_TEST(later == errc::lock_lost);
  auto [release_ec] = test::get(held.async_release(tuple_future));
  BOOST_TEST(release_ec == errc::lock_lost);
  // The lock object is free again.
  auto [ec2, held2] = acquire(l);
  BOOST_TEST(!ec2);
}

// A third client (an operator, a buggy peer) deletes a waiter's node, then the holder
// releases: the waiter must not be granted on a node that no longer exists (its hand-off
// takes no listing); it fails with lock_lost, leaving no node and no watch behind.
BOOST_FIXTURE_TEST_CASE(a_waiter_whose_node_someone_deletes_is_never_granted, fixture) {
  test::client b;
  lock la(s, path), lb(*b.s, path);
  auto [ea, ha] = acquire(la);
  BOOST_REQUIRE(!ea);
  auto fb = lb.async_acquire(tuple_future);
  BOOST_REQUIRE(test::contenders_reach(s, path, 2));
  const auto queue = test::contenders_of(s, path);
  const std::string waiter_node = path + "/" + queue.back().node;
  BOOST_REQUIRE(waiter_node != ha.path());
  // The waiter watches its predecessor: it is waiting for the hand-off.
  BOOST_REQUIRE(test::eventually(
      [&] { return watches_of(b.s->session_id()).find(ha.path()) != std::string::npos; }));
  {
    test::client third;  // a session of its own
    test::get(third.s->async_remove(waiter_node, any_version, asio::use_future));
  }
  test::get(ha.async_release(asio::use_future));
  BOOST_REQUIRE((fb.wait_for(10s) == std::future_status::ready));
  auto [eb, hb] = test::get(fb);
  BOOST_TEST(eb == errc::lock_lost);
  BOOST_TEST(!hb.owns());
  // Nothing leaked: no node, no watch of the waiter's session on the server.
  BOOST_TEST(test::contenders_reach(s, path, 0));
  BOOST_TEST(test::eventually(
                 [&] {
                   const auto left = watches_of(b.s->session_id());
                   return left.find(path) == std::string::npos;
                 },
                 2s),
             "watches left: " << watches_of(b.s->session_id()));
  // The lock object may acquire again, and is granted.
  auto [eb2, hb2] = acquire(lb);
  BOOST_TEST(!eb2);
  BOOST_TEST(hb2.owns());
}

BOOST_FIXTURE_TEST_CASE(wait_lost_is_cancellable_and_aborted_by_the_handle, fixture) {
  lock l(s, path);
  auto [ec, held] = acquire(l);
  BOOST_REQUIRE(!ec);
  asio::cancellation_signal cancel;
  auto w1 = held.async_wait_lost(asio::bind_cancellation_slot(cancel.slot(), tuple_future));
  asio::post(a.io.executor(), [&] { cancel.emit(asio::cancellation_type::terminal); });
  BOOST_TEST(std::get<0>(test::get(w1)) == asio::error::operation_aborted);
  BOOST_TEST(held.owns());
  auto w2 = held.async_wait_lost(tuple_future);
  held = held_lock();
  BOOST_TEST(std::get<0>(test::get(w2)) == asio::error::operation_aborted);
  BOOST_TEST(test::eventually([&] { return test::contenders_of(s, path).empty(); }));
}

BOOST_FIXTURE_TEST_CASE(contenders_holder_then_waiters_with_data, fixture) {
  test::client b;
  lock la(s, path, {.app_id = "alpha"}), lb(*b.s, path, {.app_id = "beta;=%"});
  BOOST_TEST(test::contenders_of(s, path).empty());  // no such path yet
  auto [ea, ha] = acquire(la);
  BOOST_REQUIRE(!ea);
  auto fb = lb.async_acquire(tuple_future);
  BOOST_REQUIRE(test::contenders_reach(s, path, 2));
  // A node that is not a contender is left out.
  test::get(s.async_create(path + "/not-a-lock", "", {}, asio::use_future));
  std::this_thread::sleep_for(20ms);
  const auto list = test::contenders_of(s, path);
  BOOST_REQUIRE(list.size() == 2u);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  BOOST_TEST(list[0].holder);
  BOOST_TEST(!list[1].holder);
  BOOST_TEST(list[0].node == ha.path().substr(path.size() + 1));
  BOOST_TEST(list[0].token == ha.token());
  BOOST_TEST(list[0].session_id == s.session_id());
  BOOST_TEST(list[1].session_id == b.s->session_id());
  BOOST_TEST((list[1].token > list[0].token));
  BOOST_TEST(list[0].app_id == "alpha");
  BOOST_TEST(list[1].app_id == "beta;=%");
  BOOST_TEST(list[0].host == std::string(host));
  BOOST_TEST(list[0].pid == static_cast<int>(getpid()));
  BOOST_TEST(list[0].age.count() >= 20);
  BOOST_TEST((list[0].age >= list[1].age));
  auto [bad, none] = test::get(async_contenders(s, "no/slash", tuple_future));
  BOOST_TEST(bad == errc::bad_path);
  test::get(s.async_remove(path + "/not-a-lock", any_version, asio::use_future));
}

BOOST_FIXTURE_TEST_CASE(fenced_writes_commit_only_while_held, fixture) {
  test::client other;
  lock l(s, path);
  auto [ec, held] = acquire(l);
  BOOST_REQUIRE(!ec);
  const std::string data = path + "/data", made = path + "/made";
  test::get(s.async_create(data, "0", {}, asio::use_future));

  auto stat = test::get(async_fenced_set(held, data, "1", any_version, asio::use_future));
  BOOST_TEST(stat.version == 1);
  auto created = test::get(async_fenced_create(held, made, "x", {}, asio::use_future));
  BOOST_TEST(created.path == made);
  auto results = test::get(
      async_fenced_multi(held, {op::set{data, "2", 1}, op::check{data, 2}}, asio::use_future));
  BOOST_TEST(results.size() == 2u);  // the fence's own check is not reported
  test::get(async_fenced_remove(held, made, any_version, asio::use_future));

  // Someone else deletes our node. Keep our io thread busy meanwhile, so that this process
  // has not noticed the loss yet when it writes: the server's check must refuse the write.
  std::promise<void> unblock;
  asio::post(a.io.executor(), [f = unblock.get_future().share()] { f.wait(); });
  test::get(other.s->async_remove(held.path(), any_version, asio::use_future));
  BOOST_TEST(held.owns());  // believed held: exactly the case fencing is for
  auto stale =
      async_fenced_multi(held, {op::create{made, "stale"}, op::set{data, "stale"}}, tuple_future);
  unblock.set_value();
  auto [stale_ec, stale_results] = test::get(stale);
  BOOST_TEST(stale_ec == errc::lock_lost);
  BOOST_TEST(stale_results.size() == 2u);
  // Atomic: neither op was applied.
  BOOST_TEST(!test::get(s.async_exists(made, asio::use_future)).has_value());
  BOOST_TEST(test::get(s.async_get(data, asio::use_future)).data == "2");

  auto [lost_ec] = test::get(held.async_wait_lost(tuple_future));
  BOOST_TEST(lost_ec == errc::lock_lost);
  auto [not_held_ec, none] =
      test::get(async_fenced_set(held, data, "late", any_version, tuple_future));
  BOOST_TEST(not_held_ec == errc::not_held);  // known lost: nothing is sent
  held_lock empty;
  auto [empty_ec, none2] =
      test::get(async_fenced_set(empty, data, "late", any_version, tuple_future));
  BOOST_TEST(empty_ec == errc::not_held);
  BOOST_TEST(test::get(s.async_get(data, asio::use_future)).data == "2");
}

BOOST_FIXTURE_TEST_CASE(bad_lock_paths_are_refused, fixture) {
  const std::vector<std::string> bad = {
      "", "//", "/.", "/a/./", "/a/", "a", std::string("/a\0b", 4)};
  for (const auto& p : bad) {
    BOOST_TEST_CONTEXT("lock path \"" << p << "\"") {
      lock l(s, p);
      auto [ec, held] = acquire(l);
      BOOST_TEST(ec == errc::bad_path);
      BOOST_TEST((ec == condition::permanent));
      BOOST_TEST(!held.owns());
    }
  }
  BOOST_TEST(!test::get(s.async_exists("/a", asio::use_future)).has_value());
  // Node data over ZooKeeper's limit is refused too, before anything is sent.
  lock big(s, path, {.app_id = std::string(1024 * 1024, 'x')});
  auto [ec, held] = acquire(big);
  BOOST_TEST(ec == errc::data_too_large);
  BOOST_TEST(!test::get(s.async_exists(path, asio::use_future)).has_value());
}

BOOST_FIXTURE_TEST_CASE(parent_acl_without_create_or_read, fixture) {
  const std::string no_create = path + "/no-create", no_read = path + "/no-read";
  create_with_parents(no_create,
                      {create_mode::persistent,
                       {{perms::write | perms::remove | perms::admin, "world", "anyone"}}});
  create_with_parents(
      no_read,
      {create_mode::persistent,
       {{perms::create | perms::write | perms::remove | perms::admin, "world", "anyone"}}});
  for (const auto& p : {no_create, no_read}) {
    BOOST_TEST_CONTEXT(p) {
      lock l(s, p);
      const auto start = std::chrono::steady_clock::now();
      auto [ec, held] = acquire(l);
      BOOST_TEST(ec == zk_errc::no_auth);
      BOOST_TEST((ec == condition::permanent));
      BOOST_TEST(test::seconds_since(start) < 3.0);  // no retry loop (liveness bound)
      // No partial node: without READ our node was created, then deleted again.
      BOOST_TEST(test::eventually([&] { return children_of(p) == 0; }));
    }
  }
}

BOOST_FIXTURE_TEST_CASE(ephemeral_parent, fixture) {
  const std::string eph = path + "/eph";
  create_with_parents(eph, {create_mode::ephemeral});
  for (const auto& p : {eph, eph + "/below"}) {
    BOOST_TEST_CONTEXT(p) {
      lock l(s, p);
      auto [ec, held] = acquire(l);
      BOOST_TEST(ec == zk_errc::no_children_for_ephemerals);
      BOOST_TEST((ec == condition::permanent));
    }
  }
  BOOST_TEST(children_of(eph) == 0);
}

BOOST_FIXTURE_TEST_CASE(acquire_before_connect_and_after_close, fixture) {
  session idle(a.io.executor(), {.connect = test::lock_cluster()->connect_string()});
  lock never(idle, path);
  BOOST_TEST(std::get<0>(acquire(never)) == errc::not_connected);
  lock l(s, path);
  s.close();
  BOOST_TEST(std::get<0>(acquire(l)) == errc::closed);
}
