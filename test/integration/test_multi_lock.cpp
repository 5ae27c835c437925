// SPDX-License-Identifier: Apache-2.0
// The multi-lock against a real ZooKeeper: every lock taken in sorted order and given back,
// two callers naming the locks in opposite orders never deadlock, all or nothing within one
// timeout, a fenced write checks every lock's node, loss of any lock is reported, and bad input,
// cancellation and destruction leave no node behind.
#include <zkcoord/multi_lock.hpp>

#include <zkcoord/fenced.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE multi_lock
#include <boost/test/unit_test.hpp>

#include "support/lock_fixture.hpp"

#include <future>
#include <string>
#include <thread>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using test::tuple_future;

namespace {

using test::lock_server;
BOOST_TEST_GLOBAL_FIXTURE(lock_server);

using multi_result = std::tuple<error_code, held_multi_lock>;

multi_result acquire(multi_lock& l) {
  return test::get(l.async_acquire(tuple_future));
}

struct fixture {
  test::client a;
  session& s = *a.s;
  std::string base = testing::unique_path("multi");
  std::string x = base + "/x", y = base + "/y", z = base + "/z";

  std::size_t contenders(const std::string& path) { return test::contenders_of(s, path).size(); }
  // Every test leaves the paths as it found them: no lock node of ours.
  ~fixture() {
    for (const auto& p : {x, y, z})
      BOOST_TEST(test::eventually([&] { return contenders(p) == 0; }), "nodes left under " << p);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(takes_every_lock_in_sorted_order_and_gives_them_back, fixture) {
  multi_lock l(s, {z, x, y, x});
  BOOST_TEST((l.paths() == std::vector<std::string>{x, y, z}));  // sorted, once each
  auto [ec, held] = acquire(l);
  BOOST_REQUIRE(!ec);
  BOOST_TEST(held.owns());
  BOOST_REQUIRE_EQUAL(held.locks().size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& path = l.paths()[i];
    const auto queue = test::contenders_of(s, path);
    BOOST_REQUIRE_EQUAL(queue.size(), 1u);
    BOOST_TEST(queue.front().holder);
    BOOST_TEST(held.locks()[i].path() == path + "/" + queue.front().node);
    BOOST_TEST((held.locks()[i].token() == queue.front().token));
  }
  // The grants were made one after another, in sorted order: their tokens (czxids) rise.
  BOOST_TEST((held.locks()[0].token() < held.locks()[1].token()));
  BOOST_TEST((held.locks()[1].token() < held.locks()[2].token()));
  BOOST_TEST(!std::get<0>(test::get(held.async_release(tuple_future))));
  BOOST_TEST(!held.owns());
  for (const auto& path : l.paths()) BOOST_TEST(contenders(path) == 0u);
}

BOOST_FIXTURE_TEST_CASE(a_second_acquire_while_held_is_already_held, fixture) {
  multi_lock l(s, {x, y});
  auto [ec, held] = acquire(l);
  BOOST_REQUIRE(!ec);
  BOOST_TEST(std::get<0>(acquire(l)) == errc::already_held);
  BOOST_TEST(held.owns());  // the refused acquire took nothing away
  BOOST_TEST(contenders(x) == 1u);
  BOOST_TEST(contenders(y) == 1u);
  BOOST_TEST(!std::get<0>(test::get(held.async_release(tuple_future))));
  BOOST_TEST(std::get<0>(test::get(held.async_release(tuple_future))) == errc::not_held);
}

// Named {x, y} by one caller and {y, x} by the other: taken in the order given, each would sooner
// or later hold its first lock while waiting for the other's. Sorted, both take x first.
BOOST_FIXTURE_TEST_CASE(opposite_orders_never_deadlock, fixture) {
  test::client b, c;
  auto worker = [&](session& own, std::vector<std::string> names) {
    multi_lock l(own, std::move(names));
    int granted = 0;
    for (int i = 0; i < 25; ++i) {
      auto [ec, held] = test::get(l.async_acquire(20s, tuple_future));
      if (ec) {
        BOOST_TEST_MESSAGE("acquire " << i << ": " << ec.message());
        break;
      }
      ++granted;
      test::get(held.async_release(tuple_future));
    }
    return granted;
  };
  auto first = std::async(std::launch::async, worker, std::ref(*b.s), std::vector{x, y});
  auto second = std::async(std::launch::async, worker, std::ref(*c.s), std::vector{y, x});
  BOOST_TEST(first.get() == 25);
  BOOST_TEST(second.get() == 25);
}

BOOST_FIXTURE_TEST_CASE(all_or_nothing_within_one_timeout, fixture) {
  test::client b;
  lock other(*b.s, y);
  auto [e1, held_y] = test::acquire(other);
  BOOST_REQUIRE(!e1);
  multi_lock l(s, {x, y, z});
  auto [ec, held] = test::get(l.async_acquire(500ms, tuple_future));
  BOOST_TEST(ec == errc::timeout);
  BOOST_TEST(!held.owns());
  BOOST_TEST(held.locks().empty());
  // x was taken and given back; y still has its holder only; z was never tried.
  BOOST_TEST(test::eventually([&] { return contenders(x) == 0 && contenders(y) == 1; }));
  BOOST_TEST(contenders(z) == 0u);
  test::get(held_y.async_release(tuple_future));
  // Free now: the same object acquires.
  auto [e2, again] = test::get(l.async_acquire(5s, tuple_future));
  BOOST_REQUIRE(!e2);
  BOOST_TEST(again.locks().size() == 3u);
  test::get(again.async_release(tuple_future));
}

BOOST_FIXTURE_TEST_CASE(a_fenced_write_checks_every_lock, fixture) {
  const std::string data = testing::unique_path("multi-data");
  test::get(s.async_create(data, "0", {}, asio::use_future));
  test::client b;
  multi_lock l(*b.s, {x, y});
  auto [ec, held] = acquire(l);
  BOOST_REQUIRE(!ec);
  auto [e1, stat] = test::get(async_fenced_set(held, data, "1", any_version, tuple_future));
  BOOST_TEST(!e1);
  auto lost = held.async_wait_lost(tuple_future);
  // Someone writes to the node of the second lock: it still exists, so this process still
  // believes it holds every lock, but the server's check of that node (its version) refuses.
  test::get(s.async_set(held.locks()[1].path(), "moved", any_version, asio::use_future));
  auto [e2, none] = test::get(async_fenced_set(held, data, "2", any_version, tuple_future));
  BOOST_TEST(e2 == errc::lock_lost);
  BOOST_TEST(test::get(s.async_get(data, asio::use_future)).data == "1");
  // Someone deletes it: the multi-lock is lost, and says so.
  test::get(s.async_remove(held.locks()[1].path(), any_version, asio::use_future));
  BOOST_TEST(std::get<0>(test::get(std::move(lost))) == errc::lock_lost);
  auto [e3, gone] = test::get(async_fenced_set(held, data, "3", any_version, tuple_future));
  BOOST_TEST((e3 == errc::lock_lost || e3 == errc::not_held));
  BOOST_TEST(test::get(s.async_get(data, asio::use_future)).data == "1");
  BOOST_TEST(!held.owns());
  // The release gives back what is left and says that a lock had been lost.
  BOOST_TEST(std::get<0>(test::get(held.async_release(tuple_future))) == errc::lock_lost);
  BOOST_TEST(test::eventually([&] { return contenders(x) == 0; }));
  test::get(s.async_remove(data, any_version, asio::use_future));
}

BOOST_FIXTURE_TEST_CASE(an_empty_handle_fences_nothing, fixture) {
  held_multi_lock none;
  BOOST_TEST(!none.owns());
  auto [ec, stat] = test::get(async_fenced_set(none, x, "1", any_version, tuple_future));
  BOOST_TEST(ec == errc::not_held);
  BOOST_TEST(std::get<0>(test::get(none.async_wait_lost(tuple_future))) == errc::not_held);
}

BOOST_FIXTURE_TEST_CASE(bad_input_is_a_typed_error_and_leaves_nothing, fixture) {
  multi_lock empty(s, {});
  BOOST_TEST(std::get<0>(acquire(empty)) == errc::bad_argument);
  multi_lock bad(s, {x, base + "/bad//path"});
  BOOST_TEST(std::get<0>(acquire(bad)) == errc::bad_path);
  BOOST_TEST(test::eventually([&] { return contenders(x) == 0; }));
}

BOOST_FIXTURE_TEST_CASE(cancellation_and_destruction_give_back_what_was_taken, fixture) {
  test::client b;
  lock other(*b.s, y);
  auto [e1, held_y] = test::acquire(other);
  BOOST_REQUIRE(!e1);
  {
    multi_lock l(s, {x, y});
    asio::cancellation_signal cancel;
    auto f = l.async_acquire(asio::bind_cancellation_slot(cancel.slot(), tuple_future));
    BOOST_REQUIRE(test::eventually([&] { return contenders(y) == 2; }));  // waiting on y
    BOOST_TEST(contenders(x) == 1u);
    asio::post(s.get_executor(), [&] { cancel.emit(asio::cancellation_type::terminal); });
    BOOST_TEST(std::get<0>(test::get(std::move(f))) == asio::error::operation_aborted);
    BOOST_TEST(test::eventually([&] { return contenders(x) == 0 && contenders(y) == 1; }));
  }
  std::future<multi_result> pending;
  {
    multi_lock l(s, {x, y});
    pending = l.async_acquire(tuple_future);
    BOOST_REQUIRE(test::eventually([&] { return contenders(y) == 2; }));
  }  // destroyed while waiting
  BOOST_TEST(std::get<0>(test::get(std::move(pending))) == asio::error::operation_aborted);
  BOOST_TEST(test::eventually([&] { return contenders(x) == 0 && contenders(y) == 1; }));
  test::get(held_y.async_release(tuple_future));
}
