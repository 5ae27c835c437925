// SPDX-License-Identifier: Apache-2.0
// The read-write lock against a real ZooKeeper: readers share, a writer excludes readers and
// writers, a reader behind a waiting writer waits for it (fairness), try, timeout, cancel,
// expiry of a waiting writer, loss by deletion, fencing with a stale write token, paths of
// another recipe, and a randomized mixed workload checked by in-process counters. Every test
// ends with no node left under its path.
#include <zkcoord/rw_lock.hpp>

#include <zkcoord/fenced.hpp>
#include <zkcoord/testing/expire_session.hpp>
#include <zkcoord/testing/four_letter.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE rw_lock
#include <boost/test/unit_test.hpp>

#include "support/lock_fixture.hpp"
#include "support/rw_workload.hpp"
#include "support/server_watches.hpp"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <regex>
#include <string>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using test::tuple_future;
using test::watches_of;

namespace {

using test::lock_server;
BOOST_TEST_GLOBAL_FIXTURE(lock_server);

using acquire_future = std::future<test::acquire_result>;

template <class Lock>
test::acquire_result acquire(Lock& l) {
  return test::get(l.async_acquire(tuple_future));
}

// A future that is still pending after `wait` (a contender that must not be granted yet).
bool still_waiting(acquire_future& f, std::chrono::milliseconds wait = 300ms) {
  return f.wait_for(wait) == std::future_status::timeout;
}

struct fixture {
  test::client a;
  std::string path = testing::unique_path("rw");
  session& s = *a.s;

  // The children of the lock path (empty when it is gone).
  std::vector<std::string> nodes() {
    auto [ec, list] = test::get(s.async_children(path, tuple_future));
    if (ec == zk_errc::no_node) return {};
    BOOST_REQUIRE_MESSAGE(!ec, "children: " << ec.message());
    return list.names;
  }
  std::size_t count(std::string_view marker) {
    const auto all = nodes();
    return static_cast<std::size_t>(std::count_if(all.begin(), all.end(), [&](const auto& n) {
      return n.find(marker) != std::string::npos;
    }));
  }
  bool nodes_reach(std::size_t n) {
    return test::eventually([&] { return nodes().size() == n; });
  }
  // Every test leaves the path as it found it: no node of ours (handles released by then).
  ~fixture() {
    BOOST_TEST(test::eventually([&] { return nodes().empty(); }), "nodes left");
  }
};

// The queue of the fairness cases: a reader holds (session a), a writer waits behind it
// (session b), and a second reader waits behind the writer (session c).
struct writer_between_readers : fixture {
  writer_between_readers() {
    auto [ec, held] = acquire(first);
    BOOST_REQUIRE(!ec);
    h1 = std::move(held);
    fw = writer.async_acquire(tuple_future);
    BOOST_REQUIRE(nodes_reach(2));
    fr = behind.async_acquire(tuple_future);
    BOOST_REQUIRE(nodes_reach(3));
  }
  test::client b, c;
  read_lock first{s, path}, behind{*c.s, path};
  write_lock writer{*b.s, path};
  held_lock h1;
  acquire_future fw, fr;
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(readers_share_on_curator_named_nodes, fixture) {
  test::client b;
  read_lock r1(s, path, {.app_id = "r1"}), r2(s, path), r3(*b.s, path);
  read_write_lock rw(*b.s, path);
  BOOST_TEST(rw.path() == path);
  std::vector<held_lock> held;
  for (auto* r : {&r1, &r2, &r3, &rw.read()}) {
    auto [ec, h] = acquire(*r);
    BOOST_REQUIRE_MESSAGE(!ec, ec.message());
    held.push_back(std::move(h));
  }
  const std::regex curator_read(
      "_c_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
      "-__READ__[0-9]{10}");
  for (const auto& h : held) {
    BOOST_TEST(h.owns());  // all four at once
    const auto name = h.path().substr(path.size() + 1);
    BOOST_TEST(std::regex_match(name, curator_read), name);
    auto stat = test::get(s.async_exists(h.path(), asio::use_future));
    BOOST_REQUIRE(stat.has_value());
    BOOST_TEST(h.token().value() == stat->czxid);
  }
  const auto data = test::get(s.async_get(held[0].path(), asio::use_future)).data;
  BOOST_TEST(data.find("app=r1") != std::string::npos, data);
  BOOST_TEST(data.find("pid=") != std::string::npos, data);
  BOOST_TEST(count("__READ__") == 4u);
}

BOOST_FIXTURE_TEST_CASE(a_writer_excludes_readers_and_writers, fixture) {
  test::client b, c;
  read_lock reader(s, path), late_reader(*c.s, path);
  write_lock writer(*b.s, path), late_writer(*c.s, path);
  BOOST_TEST(writer.path() == path);

  auto [er, hr] = acquire(reader);
  BOOST_REQUIRE(!er);
  auto fw = writer.async_acquire(tuple_future);
  BOOST_TEST(still_waiting(fw));  // a reader holds
  test::get(hr.async_release(asio::use_future));
  auto [ew, hw] = test::get(fw);
  BOOST_REQUIRE(!ew);
  BOOST_TEST(hw.path().find("-__WRIT__") != std::string::npos);
  BOOST_TEST((hw.token() > hr.token()));

  auto fr = late_reader.async_acquire(tuple_future);
  auto fw2 = late_writer.async_acquire(tuple_future);
  BOOST_REQUIRE(nodes_reach(3));
  BOOST_TEST(still_waiting(fr));        // a writer holds: neither reader
  BOOST_TEST(still_waiting(fw2, 0ms));  // nor writer
  test::get(hw.async_release(asio::use_future));
  auto [er2, hr2] = test::get(fr);  // queued before the second writer: goes first
  BOOST_REQUIRE(!er2);
  BOOST_TEST((hr2.token() > hw.token()));
  BOOST_TEST(still_waiting(fw2));
  hr2 = held_lock();
  auto [ew2, hw2] = test::get(fw2);
  BOOST_REQUIRE(!ew2);
  BOOST_TEST((hw2.token() > hr2.token()));
}

BOOST_FIXTURE_TEST_CASE(a_reader_behind_a_waiting_writer_waits_for_it, writer_between_readers) {
  // Readers share, but not past a writer that asked first.
  BOOST_TEST(still_waiting(fr, 500ms));
  const auto names = nodes();
  const auto writer_at = std::find_if(names.begin(), names.end(), [](const auto& n) {
    return n.find("__WRIT__") != std::string::npos;
  });
  BOOST_REQUIRE(writer_at != names.end());
  const std::string writer_node = *writer_at;
  // It watches the writer it waits for (the nearest writer ahead), not the reader.
  BOOST_TEST(test::eventually(
      [&] { return watches_of(c.s->session_id()).find(writer_node) != std::string::npos; }));
  BOOST_TEST(watches_of(c.s->session_id()).find(h1.path()) == std::string::npos);

  test::get(h1.async_release(asio::use_future));
  auto [ew, hw] = test::get(fw);
  BOOST_REQUIRE(!ew);
  BOOST_TEST(still_waiting(fr));  // the writer holds now
  test::get(hw.async_release(asio::use_future));
  auto [er, hr] = test::get(fr);
  BOOST_TEST(!er);
  BOOST_TEST((hr.token() > hw.token()));
}

BOOST_FIXTURE_TEST_CASE(try_acquire, fixture) {
  test::client b;
  read_lock r1(s, path), r2(*b.s, path);
  write_lock w(*b.s, path);
  auto [e1, h1] = acquire(r1);
  BOOST_REQUIRE(!e1);
  auto [etr, htr] = test::get(r2.async_try_acquire(tuple_future));  // readers share
  BOOST_TEST(!etr);
  BOOST_TEST(htr.owns());
  auto [etw, htw] = test::get(w.async_try_acquire(tuple_future));
  BOOST_TEST(etw == errc::busy);
  BOOST_TEST(!htw.owns());
  BOOST_TEST(nodes_reach(2));  // our write node was deleted
  BOOST_TEST(count("__WRIT__") == 0u);
  // Awaited releases: a handle's destructor deletes its node in the background, and h1's
  // session is not the writer's, so a try right after it could still see the reader.
  test::get(h1.async_release(asio::use_future));
  test::get(htr.async_release(asio::use_future));
  auto [ew, hw] = test::get(w.async_try_acquire(tuple_future));
  BOOST_REQUIRE(!ew);
  auto [ebusy, none] = test::get(r1.async_try_acquire(tuple_future));
  BOOST_TEST(ebusy == errc::busy);  // a writer holds
  BOOST_TEST(nodes_reach(1));
}

BOOST_FIXTURE_TEST_CASE(already_held, fixture) {
  test::client b;
  read_write_lock rw(s, path);
  write_lock other(*b.s, path);
  auto [er, hr] = acquire(rw.read());
  BOOST_REQUIRE(!er);
  auto [again, none] = acquire(rw.read());
  BOOST_TEST(again == errc::already_held);  // not re-entrant
  auto fo = other.async_acquire(tuple_future);
  BOOST_REQUIRE(nodes_reach(2));
  auto [pending, none2] = test::get(other.async_try_acquire(tuple_future));
  BOOST_TEST(pending == errc::already_held);
  BOOST_TEST(nodes().size() == 2u);  // nothing was created for them
  hr = held_lock();
  BOOST_TEST(!std::get<0>(test::get(fo)));
}

BOOST_FIXTURE_TEST_CASE(timeout_and_cancel_leave_no_node, fixture) {
  test::client b;
  write_lock holder(s, path), cancelled(*b.s, path);
  read_lock timed(*b.s, path);
  auto [eh, hh] = acquire(holder);
  BOOST_REQUIRE(!eh);

  const auto start = std::chrono::steady_clock::now();
  auto [et, ht] = test::get(timed.async_acquire(400ms, tuple_future));
  BOOST_TEST(et == errc::timeout);
  BOOST_TEST(test::seconds_since(start) >= 0.35);
  BOOST_TEST(nodes_reach(1));

  asio::cancellation_signal cancel;
  auto fc = cancelled.async_acquire(asio::bind_cancellation_slot(cancel.slot(), tuple_future));
  BOOST_REQUIRE(nodes_reach(2));
  asio::post(b.io.executor(), [&] { cancel.emit(asio::cancellation_type::terminal); });
  auto [ec, hc] = test::get(fc);
  BOOST_TEST(ec == asio::error::operation_aborted);
  BOOST_TEST(nodes_reach(1));
  BOOST_TEST(count("__WRIT__") == 1u);  // only the holder's
}

BOOST_FIXTURE_TEST_CASE(expiry_of_a_waiting_writer_lets_the_readers_behind_it_through,
                        writer_between_readers) {
  BOOST_TEST(still_waiting(fr));

  testing::expire_session(*b.s);
  auto [ew, hw] = test::get(fw);
  BOOST_TEST(ew == zk_errc::session_expired);
  // The first reader still holds; the second joins it.
  auto [er, hr] = test::get(fr);
  BOOST_TEST(!er);
  BOOST_TEST(h1.owns());
  BOOST_TEST(nodes_reach(2));
  BOOST_TEST(count("__WRIT__") == 0u);
}

BOOST_FIXTURE_TEST_CASE(a_deleted_write_node_is_lost_and_frees_the_readers, fixture) {
  test::client admin, b;
  write_lock w(s, path);
  read_lock r(*b.s, path);
  auto [ec, held] = acquire(w);
  BOOST_REQUIRE(!ec);
  auto lost = held.async_wait_lost(tuple_future);
  auto fr = r.async_acquire(tuple_future);
  BOOST_REQUIRE(nodes_reach(2));
  BOOST_TEST(still_waiting(fr, 100ms));
  BOOST_TEST((lost.wait_for(0ms) == std::future_status::timeout));
  // Someone with access to the path deletes the writer's node (an operator in zkCli).
  test::get(admin.s->async_remove(held.path(), any_version, asio::use_future));
  BOOST_TEST(std::get<0>(test::get(lost)) == errc::lock_lost);
  BOOST_TEST(!held.owns());
  BOOST_TEST(!std::get<0>(test::get(fr)));  // the reader behind it goes through
  BOOST_TEST(std::get<0>(test::get(held.async_release(tuple_future))) == errc::lock_lost);
}

BOOST_FIXTURE_TEST_CASE(a_stale_write_token_is_fenced_off_after_expiry, fixture) {
  test::client b, c;
  write_lock old_writer(*b.s, path), new_writer(*c.s, path);
  const std::string data = testing::unique_path("rw-data");
  test::get(s.async_create(data, "0", {}, asio::use_future));
  auto [e1, h1] = acquire(old_writer);
  BOOST_REQUIRE(!e1);
  test::get(async_fenced_set(h1, data, "old", any_version, asio::use_future));

  testing::expire_session(*b.s);
  auto [e2, h2] = acquire(new_writer);  // granted once the old node is gone with its session
  BOOST_REQUIRE(!e2);
  BOOST_TEST((h2.token() > h1.token()));
  auto [stale, none] = test::get(async_fenced_set(h1, data, "stale", any_version, tuple_future));
  BOOST_TEST_MESSAGE("stale write: " << stale.message());
  // The old session may not have heard of its expiry yet: while it is suspended the write's
  // outcome is unknown to it (connection loss or operation timeout). Whatever it was told, the
  // write must not have committed, which the read below shows.
  BOOST_TEST((stale == condition::ownership_lost || stale == errc::not_held ||
              stale == condition::session_expired || stale == condition::connection_loss));
  BOOST_TEST(test::get(s.async_get(data, asio::use_future)).data == "old");
  test::get(async_fenced_set(h2, data, "new", any_version, asio::use_future));
  BOOST_TEST(test::get(s.async_get(data, asio::use_future)).data == "new");
  test::get(s.async_remove(data, any_version, asio::use_future));
}

BOOST_FIXTURE_TEST_CASE(a_path_of_another_recipe_is_a_mismatch, fixture) {
  test::client b;
  {
    lock plain(s, path);
    auto [ep, hp] = acquire(plain);
    BOOST_REQUIRE(!ep);
    read_lock r(*b.s, path);
    write_lock w(*b.s, path);
    BOOST_TEST(std::get<0>(acquire(r)) == errc::recipe_mismatch);
    BOOST_TEST(std::get<0>(acquire(w)) == errc::recipe_mismatch);
    BOOST_TEST(nodes_reach(1));  // ours were deleted; the plain holder keeps its lock
    BOOST_TEST(hp.owns());
  }
  BOOST_REQUIRE(nodes_reach(0));
  read_lock r(s, path);
  auto [er, hr] = acquire(r);
  BOOST_REQUIRE(!er);
  lock plain(*b.s, path);
  BOOST_TEST(std::get<0>(acquire(plain)) == errc::recipe_mismatch);
  BOOST_TEST(nodes_reach(1));
  BOOST_TEST(hr.owns());
}

namespace {

// Who is inside the critical section, across the workload's io threads.
struct occupancy {
  std::mutex mutex;
  int readers = 0, writers = 0, max_readers = 0;
  long reads = 0, writes = 0;
  std::int64_t highest_token = 0, last_writer_token = 0;
  std::vector<std::string> violations;

  void enter(bool write, std::int64_t token, const std::string& who) {
    std::lock_guard lock(mutex);
    if (write && (readers != 0 || writers != 0))
      violations.push_back(who + " wrote with " + std::to_string(readers) + " readers and " +
                           std::to_string(writers) + " writers inside");
    if (!write && writers != 0) violations.push_back(who + " read while a writer was inside");
    // Every earlier grant was ahead of a writer; a reader comes after every earlier writer.
    if (write && token <= highest_token) violations.push_back(who + ": write token not highest");
    if (!write && token <= last_writer_token) violations.push_back(who + ": read token too low");
    highest_token = std::max(highest_token, token);
    if (write) last_writer_token = token, ++writers, ++writes;
    if (!write) max_readers = std::max(max_readers, ++readers), ++reads;
  }
  void exit(bool write) {
    std::lock_guard lock(mutex);
    --(write ? writers : readers);
  }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(a_mixed_workload_never_overlaps_a_writer, fixture) {
  constexpr int contenders = 8, cycles = 25;
  std::vector<std::unique_ptr<test::client>> clients;
  for (int i = 0; i < 4; ++i) clients.push_back(std::make_unique<test::client>());
  occupancy room;
  std::vector<test::rw_cycles> done(contenders);
  std::vector<std::future<void>> finished;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < contenders; ++i) {
    auto& c = *clients[i % clients.size()];
    const std::string who = "contender-" + std::to_string(i);
    long remaining = cycles;
    finished.push_back(asio::co_spawn(c.io.executor(),
                                      test::rw_contender(
                                          *c.s, path, who, static_cast<unsigned>(i * 7919 + 1),
                                          [remaining]() mutable { return remaining-- > 0; },
                                          [&room, who](bool write, const held_lock& h) {
                                            room.enter(write, h.token().value(), who);
                                          },
                                          [&room](bool write) { room.exit(write); }, done[i]),
                                      asio::use_future));
  }
  for (auto& f : finished) test::get(f, 120s);
  BOOST_TEST_MESSAGE("mixed workload: " << room.reads << " reads, " << room.writes
                                        << " writes, max readers inside " << room.max_readers
                                        << ", " << test::seconds_since(start) << " s");
  for (const auto& d : done) BOOST_TEST(d.error.empty(), d.error);
  for (const auto& v : room.violations) BOOST_ERROR(v);
  BOOST_TEST(room.reads + room.writes == contenders * cycles);
  BOOST_TEST(room.writes > 0);
  BOOST_TEST(room.max_readers >= 2);  // readers did share
  BOOST_TEST(room.readers == 0);
  BOOST_TEST(room.writers == 0);
}
