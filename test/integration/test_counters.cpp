// SPDX-License-Identifier: Apache-2.0
// The counters against a real server: shared_count's seed, get and versioned try_set, its cache
// that moves forward by mzxid (a re-created node at version 0 is newer, CURATOR-329/688) and is
// read again after a reconnect and after an expiry (CURATOR-311); distributed_atomic_long and
// _int summing concurrent increments from several sessions, optimistic and promoted to a lock;
// compare-and-set; data of the wrong length and bad paths giving typed errors; nothing left
// behind on the lock path.
#include <zkcoord/counter.hpp>
#include <zkcoord/path.hpp>
#include <zkcoord/testing/expire_session.hpp>
#include <zkcoord/testing/tcp_proxy.hpp>

#define BOOST_TEST_MODULE counters
#include <boost/test/unit_test.hpp>

#include "support/lock_fixture.hpp"

#include <atomic>
#include <mutex>
#include <thread>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using test::tuple_future;

namespace {

using test::lock_server;
BOOST_TEST_GLOBAL_FIXTURE(lock_server);

std::string raw_data(session& s, const std::string& path) {
  auto [ec, got] = test::get(s.async_get(path, tuple_future));
  BOOST_REQUIRE_MESSAGE(!ec, "get " << path << ": " << ec.message());
  return got.data;
}

void write_raw(session& s, const std::string& path, const std::string& data) {
  auto [ec, stat] = test::get(s.async_set(path, data, any_version, tuple_future));
  if (ec == zk_errc::no_node) {
    // Its parent too, when this test runs alone (the recipes create theirs as containers).
    auto [pe, parent] = test::get(s.async_create(parent_path(path), "", {}, tuple_future));
    BOOST_REQUIRE_MESSAGE(!pe || pe == zk_errc::node_exists, "create parent: " << pe.message());
    auto [ce, made] = test::get(s.async_create(path, data, {}, tuple_future));
    BOOST_REQUIRE_MESSAGE(!ce, "create " << path << ": " << ce.message());
    return;
  }
  BOOST_REQUIRE_MESSAGE(!ec, "set " << path << ": " << ec.message());
}

bool exists(session& s, const std::string& path) {
  auto [ec, stat] = test::get(s.async_exists(path, tuple_future));
  BOOST_REQUIRE_MESSAGE(!ec, "exists " << path << ": " << ec.message());
  return stat.has_value();
}

std::size_t children_of(session& s, const std::string& path) {
  auto [ec, list] = test::get(s.async_children(path, tuple_future));
  if (ec == zk_errc::no_node) return 0;
  BOOST_REQUIRE_MESSAGE(!ec, "children of " << path << ": " << ec.message());
  return list.names.size();
}

// Each of `sessions` clients adds 1 `per_client` times, on its own thread; returns how many
// additions reported success. Errors, and successes whose values do not add up, are counted
// on the threads and asserted here (Boost.Test is not thread-safe).
template <class Counter>
int increment_concurrently(const std::string& path, int sessions, int per_client,
                           atomic_counter_options options) {
  std::vector<std::unique_ptr<test::client>> clients;
  for (int i = 0; i < sessions; ++i) clients.push_back(std::make_unique<test::client>());
  std::atomic<int> succeeded{0}, errors{0}, inconsistent{0};
  std::mutex first_error_mutex;
  std::string first_error;
  std::vector<std::thread> threads;
  for (int i = 0; i < sessions; ++i) {
    threads.emplace_back([&, i] {
      Counter counter(*clients[i]->s, path, options);
      for (int n = 0; n < per_client; ++n) {
        auto [ec, r] = test::get(counter.async_increment(tuple_future));
        if (ec) {
          ++errors;
          std::lock_guard lock(first_error_mutex);
          if (first_error.empty()) first_error = ec.message();
        } else if (r.succeeded) {
          ++succeeded;
          if (r.post_value != r.pre_value + 1) ++inconsistent;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  BOOST_TEST(errors.load() == 0, "first error: " << first_error);
  BOOST_TEST(inconsistent.load() == 0);
  return succeeded.load();
}

}  // namespace

BOOST_AUTO_TEST_CASE(shared_count_is_created_with_its_seed_as_four_big_endian_bytes) {
  const std::string path = "/counters/seeded/count";
  test::client a, b;
  shared_count first(*a.s, path, 258);
  BOOST_TEST(!first.current());
  auto [ec, v] = test::get(first.async_get(tuple_future));
  BOOST_TEST_REQUIRE(!ec, ec.message());
  BOOST_TEST(v.value == 258);
  BOOST_TEST(v.version == 0);
  BOOST_TEST(raw_data(*b.s, path) == std::string("\0\0\x01\x02", 4));
  // A second count with another seed reads the value there at version 0, never its own seed
  // (CURATOR-329).
  shared_count second(*b.s, path, 999);
  auto [ec2, v2] = test::get(second.async_get(tuple_future));
  BOOST_TEST_REQUIRE(!ec2, ec2.message());
  BOOST_TEST(v2.value == 258);
  BOOST_TEST(v2.version == 0);
  BOOST_TEST((second.current() == v2));
}

BOOST_AUTO_TEST_CASE(try_set_with_a_stale_version_fails_and_reports_the_winner) {
  const std::string path = "/counters/stale";
  test::client a, b;
  shared_count mine(*a.s, path, 0), theirs(*b.s, path, 0);
  auto [e1, seen] = test::get(mine.async_get(tuple_future));
  BOOST_TEST_REQUIRE(!e1, e1.message());
  auto [e2, their_seen] = test::get(theirs.async_get(tuple_future));
  BOOST_TEST_REQUIRE(!e2);
  auto [e3, won] = test::get(theirs.async_try_set(their_seen, 5, tuple_future));
  BOOST_TEST_REQUIRE(!e3, e3.message());
  BOOST_TEST(won.succeeded);
  BOOST_TEST(won.current.value == 5);
  BOOST_TEST(won.current.version == 1);

  auto [e4, lost] = test::get(mine.async_try_set(seen, 7, tuple_future));
  BOOST_TEST_REQUIRE(!e4, e4.message());  // a lost race is an outcome, not an error
  BOOST_TEST(!lost.succeeded);
  BOOST_TEST(lost.current.value == 5);
  BOOST_TEST(mine.current()->value == 5);
  BOOST_TEST(raw_data(*b.s, path) == std::string("\0\0\0\x05", 4));

  // With the fresh version it goes through.
  auto [e5, retried] = test::get(mine.async_try_set(lost.current, 7, tuple_future));
  BOOST_TEST_REQUIRE(!e5);
  BOOST_TEST(retried.succeeded);
  BOOST_TEST(mine.current()->value == 7);
}

BOOST_AUTO_TEST_CASE(a_recreated_node_at_version_zero_is_newer_by_mzxid) {
  // The version goes back to 0 when the node is deleted and created again; only mzxid tells
  // that the new value is the newer one (CURATOR-688's rule, CURATOR-329's version 0).
  const std::string path = "/counters/recreated";
  test::client a, b;
  shared_count count(*a.s, path, 1);
  auto [e1, v1] = test::get(count.async_get(tuple_future));
  BOOST_TEST_REQUIRE(!e1);
  for (int i = 2; i <= 4; ++i) {
    auto [e, r] = test::get(count.async_try_set(*count.current(), i, tuple_future));
    BOOST_TEST_REQUIRE(!e);
    BOOST_TEST_REQUIRE(r.succeeded);
  }
  BOOST_TEST(count.current()->version == 3);
  auto [re] = test::get(b.s->async_remove(path, any_version, tuple_future));
  BOOST_TEST_REQUIRE(!re);
  write_raw(*b.s, path, std::string("\0\0\0\x2a", 4));
  auto [e2, v2] = test::get(count.async_get(tuple_future));
  BOOST_TEST_REQUIRE(!e2);
  BOOST_TEST(v2.value == 42);
  BOOST_TEST(v2.version == 0);
  BOOST_TEST(v2.mzxid > v1.mzxid);
  BOOST_TEST(count.current()->value == 42);
}

BOOST_AUTO_TEST_CASE(the_value_is_read_again_after_a_reconnect) {
  const std::string path = "/counters/reconnect";
  auto& cluster = *test::lock_cluster();
  testing::tcp_proxy proxy("127.0.0.1", cluster.local_server().port());
  test::client a(4000ms, proxy.connect_string()), b;
  shared_count count(*a.s, path, 10), other(*b.s, path, 10);
  auto [e1, v1] = test::get(count.async_get(tuple_future));
  BOOST_TEST_REQUIRE(!e1);
  auto [e2, w] = test::get(other.async_try_set(v1, 11, tuple_future));
  BOOST_TEST_REQUIRE(!e2);
  BOOST_TEST_REQUIRE(w.succeeded);
  BOOST_TEST(count.current()->value == 10);  // nothing told it yet
  proxy.drop_all();                          // same session, new connection (CURATOR-311)
  BOOST_TEST(test::eventually([&] { return count.current()->value == 11; }, 15000ms));
  BOOST_TEST(count.current()->version == 1);
}

BOOST_AUTO_TEST_CASE(the_value_is_read_again_on_a_new_session_after_expiry) {
  const std::string path = "/counters/expiry";
  test::client a(2000ms), b;
  shared_count count(*a.s, path, 20), other(*b.s, path, 20);
  auto [e1, v1] = test::get(count.async_get(tuple_future));
  BOOST_TEST_REQUIRE(!e1);
  auto [e2, w] = test::get(other.async_try_set(v1, 21, tuple_future));
  BOOST_TEST_REQUIRE(!e2);
  BOOST_TEST_REQUIRE(w.succeeded);
  const std::int64_t old_session = a.s->session_id();
  testing::expire_session(*a.s);
  BOOST_TEST(test::eventually(
      [&] { return a.s->session_id() != old_session && count.current()->value == 21; }, 20000ms));
}

BOOST_AUTO_TEST_CASE(atomic_long_is_eight_bytes_and_a_missing_node_reads_as_zero) {
  const std::string path = "/counters/long";
  test::client a, b;
  distributed_atomic_long counter(*a.s, path);
  auto [e0, r0] = test::get(counter.async_get(tuple_future));
  BOOST_TEST_REQUIRE(!e0, e0.message());
  BOOST_TEST(r0.succeeded);
  BOOST_TEST(r0.post_value == 0);
  BOOST_TEST(!exists(*b.s, path));  // a read creates nothing

  auto [e1, r1] = test::get(counter.async_add(300, tuple_future));
  BOOST_TEST_REQUIRE(!e1, e1.message());
  BOOST_TEST(r1.succeeded);
  BOOST_TEST(r1.pre_value == 0);
  BOOST_TEST(r1.post_value == 300);
  BOOST_TEST(raw_data(*b.s, path) == std::string("\0\0\0\0\0\0\x01\x2c", 8));

  // Curator writes an empty node's value as 0 too.
  write_raw(*b.s, path, "");
  auto [e2, r2] = test::get(counter.async_decrement(tuple_future));
  BOOST_TEST_REQUIRE(!e2);
  BOOST_TEST(r2.pre_value == 0);
  BOOST_TEST(r2.post_value == -1);
  BOOST_TEST(raw_data(*b.s, path) == std::string(8, '\xff'));
}

BOOST_AUTO_TEST_CASE(compare_and_set_applies_only_on_the_expected_value) {
  const std::string path = "/counters/cas";
  test::client a;
  distributed_atomic_int counter(*a.s, path);
  auto [e1, miss] = test::get(counter.async_compare_and_set(5, 6, tuple_future));
  BOOST_TEST_REQUIRE(!e1, e1.message());
  BOOST_TEST(!miss.succeeded);
  BOOST_TEST(miss.pre_value == 0);
  auto [e2, hit] = test::get(counter.async_compare_and_set(0, 6, tuple_future));
  BOOST_TEST_REQUIRE(!e2);
  BOOST_TEST(hit.succeeded);
  BOOST_TEST(hit.post_value == 6);
  auto [e3, set] = test::get(counter.async_try_set(-9, tuple_future));
  BOOST_TEST_REQUIRE(!e3);
  BOOST_TEST(set.succeeded);
  BOOST_TEST(raw_data(*a.s, path) == std::string("\xff\xff\xff\xf7", 4));
}

BOOST_AUTO_TEST_CASE(concurrent_optimistic_increments_sum_correctly) {
  const std::string path = "/counters/optimistic";
  const int sessions = 4, per_client = 25;
  const int ok = increment_concurrently<distributed_atomic_long>(
      path, sessions, per_client, {.max_tries = 1000, .retry_delay = 2ms});
  BOOST_TEST(ok == sessions * per_client);
  test::client observer;
  distributed_atomic_long counter(*observer.s, path);
  auto [ec, r] = test::get(counter.async_get(tuple_future));
  BOOST_TEST_REQUIRE(!ec);
  BOOST_TEST(r.post_value == sessions * per_client);
}

BOOST_AUTO_TEST_CASE(concurrent_promoted_increments_sum_correctly_and_leave_no_lock_node) {
  const std::string path = "/counters/promoted", lock_path = "/counters/promoted-lock";
  const int sessions = 4, per_client = 20;
  // One optimistic try: every lost race goes to the lock.
  const int ok = increment_concurrently<distributed_atomic_int>(
      path, sessions, per_client, {.max_tries = 1, .lock_path = lock_path});
  test::client observer;
  distributed_atomic_int counter(*observer.s, path);
  auto [ec, r] = test::get(counter.async_get(tuple_future));
  BOOST_TEST_REQUIRE(!ec);
  // A failed addition wrote nothing: the value is exactly the successes.
  BOOST_TEST(r.post_value == ok);
  BOOST_TEST(ok > 0);
  BOOST_TEST(children_of(*observer.s, lock_path) == 0u);
}

BOOST_AUTO_TEST_CASE(all_increments_succeed_under_the_lock_with_enough_tries) {
  const std::string path = "/counters/promoted-all", lock_path = "/counters/promoted-all-lock";
  const int sessions = 4, per_client = 15;
  // One optimistic try: every lost race goes to the lock. Inside it only another writer's
  // optimistic try can get in between, and each failed try there means one of the other
  // increments landed; there are fewer of those than sessions * per_client, so that many
  // tries inside the lock cannot run out, whatever the timing.
  const int ok = increment_concurrently<distributed_atomic_long>(
      path, sessions, per_client,
      {.max_tries = 1,
       .lock_path = lock_path,
       .lock_max_tries = static_cast<std::uint32_t>(sessions * per_client)});
  BOOST_TEST(ok == sessions * per_client);
  test::client observer;
  distributed_atomic_long counter(*observer.s, path);
  auto [ec, r] = test::get(counter.async_get(tuple_future));
  BOOST_TEST_REQUIRE(!ec);
  BOOST_TEST(r.post_value == ok);
  BOOST_TEST(children_of(*observer.s, lock_path) == 0u);
}

BOOST_AUTO_TEST_CASE(data_of_the_wrong_length_gives_the_typed_error) {
  const std::string path = "/counters/garbage";
  test::client a;
  write_raw(*a.s, path, "abc");
  shared_count count(*a.s, path, 0);
  auto [e1, v] = test::get(count.async_get(tuple_future));
  BOOST_TEST(e1 == errc::bad_counter_data);
  BOOST_TEST(e1 == condition::permanent);
  distributed_atomic_long counter(*a.s, path);
  auto [e2, r] = test::get(counter.async_increment(tuple_future));
  BOOST_TEST(e2 == errc::bad_counter_data);
  BOOST_TEST(!r.succeeded);
  BOOST_TEST(raw_data(*a.s, path) == "abc");  // never overwritten

  // An int's four bytes are not a long's eight.
  write_raw(*a.s, path, std::string("\0\0\0\x01", 4));
  auto [e3, r3] = test::get(counter.async_get(tuple_future));
  BOOST_TEST(e3 == errc::bad_counter_data);
  distributed_atomic_int as_int(*a.s, path);
  auto [e4, r4] = test::get(as_int.async_get(tuple_future));
  BOOST_TEST_REQUIRE(!e4);
  BOOST_TEST(r4.post_value == 1);
}

BOOST_AUTO_TEST_CASE(bad_paths_give_bad_path_and_create_nothing) {
  test::client a;
  for (const std::string path : {"relative", "/trailing/", "/double//slash", ""}) {
    BOOST_TEST_CONTEXT(path) {
      shared_count count(*a.s, path, 1);
      auto [e1, v] = test::get(count.async_get(tuple_future));
      BOOST_TEST(e1 == errc::bad_path);
      auto [e2, w] = test::get(count.async_try_set({}, 2, tuple_future));
      BOOST_TEST(e2 == errc::bad_path);
      distributed_atomic_long counter(*a.s, path);
      auto [e3, r] = test::get(counter.async_increment(tuple_future));
      BOOST_TEST(e3 == errc::bad_path);
      BOOST_TEST(!r.succeeded);
    }
  }
}
