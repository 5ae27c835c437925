// SPDX-License-Identifier: Apache-2.0
// The metrics observer against a real server: a session reports every request it counts in
// sent_requests(), its state changes and its lease; each recipe reports its acquires (one
// start, one end), grants and losses under its own kind and path; a semaphore reports its
// acquire as a whole, never its internal lock.
#include <zkcoord/metrics.hpp>

#include <zkcoord/election.hpp>
#include <zkcoord/lock.hpp>
#include <zkcoord/membership.hpp>
#include <zkcoord/rw_lock.hpp>
#include <zkcoord/semaphore.hpp>
#include <zkcoord/testing/expire_session.hpp>

#define BOOST_TEST_MODULE metrics_observer
#include <boost/test/unit_test.hpp>

#include "support/lock_fixture.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
using test::get;
using test::tuple_future;

namespace {

using test::lock_server;
BOOST_TEST_GLOBAL_FIXTURE(lock_server);

// What a user's observer could record: requests with atomics, the rest in lists.
struct recording_observer : metrics_observer {
  struct recipe_event {
    std::string what;  // "started", "finished", "lost"
    recipe_kind kind;
    std::string path;
    error_code ec;
  };

  void request_sent(request_type t) noexcept override {
    requests[static_cast<std::size_t>(t)].fetch_add(1, std::memory_order_relaxed);
  }
  void session_state_changed(session_state now) noexcept override {
    std::lock_guard lock(mutex);
    states.push_back(now);
  }
  void lease_renewed(std::chrono::steady_clock::duration margin) noexcept override {
    std::lock_guard lock(mutex);
    margins.push_back(margin);
  }
  void acquire_started(const recipe_labels& r) noexcept override { record("started", r, {}); }
  void acquire_finished(const recipe_labels& r, error_code ec,
                        std::chrono::steady_clock::duration waited) noexcept override {
    record("finished", r, ec);
    std::lock_guard lock(mutex);
    if (waited < std::chrono::steady_clock::duration::zero()) ++negative_waits;
  }
  void ownership_lost(const recipe_labels& r, error_code reason) noexcept override {
    record("lost", r, reason);
  }

  void record(const char* what, const recipe_labels& r, error_code ec) {
    std::lock_guard lock(mutex);
    events.push_back({what, r.kind, std::string(r.path), ec});
  }
  std::vector<recipe_event> events_snapshot() {
    std::lock_guard lock(mutex);
    return events;
  }
  std::size_t count(const std::string& what, recipe_kind kind) {
    const auto e = events_snapshot();
    return std::count_if(e.begin(), e.end(),
                         [&](const recipe_event& x) { return x.what == what && x.kind == kind; });
  }
  bool saw_state(session_state s) {
    std::lock_guard lock(mutex);
    return std::find(states.begin(), states.end(), s) != states.end();
  }

  std::array<std::atomic<std::uint64_t>, 9> requests{};
  std::mutex mutex;
  std::vector<session_state> states;
  std::vector<std::chrono::steady_clock::duration> margins;
  std::vector<recipe_event> events;
  int negative_waits = 0;
};

// A connected session reporting to its own recording observer.
struct observed_client {
  observed_client() {
    session_options o;
    o.connect = test::lock_cluster()->connect_string();
    o.session_timeout = 4000ms;
    o.metrics = observer;
    s = std::make_unique<session>(io.executor(), o);
    get(s->async_connect(boost::asio::use_future));
  }
  std::shared_ptr<recording_observer> observer = std::make_shared<recording_observer>();
  test::io_thread io;
  std::unique_ptr<session> s;
};

std::uint64_t reported(recording_observer& o, request_type t) {
  return o.requests[static_cast<std::size_t>(t)].load();
}

}  // namespace

BOOST_AUTO_TEST_CASE(requests_match_sent_requests_and_the_lease_is_reported) {
  observed_client c;
  lock l(*c.s, "/metrics/requests");
  for (int i = 0; i < 3; ++i) {
    auto [ec, held] = test::acquire(l);
    BOOST_TEST_REQUIRE(!ec, ec.message());
    BOOST_TEST(!std::get<0>(get(held.async_release(tuple_future))));
  }
  get(c.s->async_sync("/", boost::asio::use_future));
  const request_counts sent = c.s->sent_requests();
  auto& o = *c.observer;
  BOOST_TEST(reported(o, request_type::create) == sent.creates);
  BOOST_TEST(reported(o, request_type::remove) == sent.removes);
  BOOST_TEST(reported(o, request_type::set) == sent.sets);
  BOOST_TEST(reported(o, request_type::get) == sent.gets);
  BOOST_TEST(reported(o, request_type::exists) == sent.exists);
  BOOST_TEST(reported(o, request_type::children) == sent.listings);
  BOOST_TEST(reported(o, request_type::multi) == sent.multis);
  BOOST_TEST(reported(o, request_type::sync) == sent.syncs);
  BOOST_TEST(reported(o, request_type::lease_renewal) == sent.lease_renewals);
  BOOST_TEST(sent.creates >= 3u);
  BOOST_TEST(sent.syncs >= 1u);
  BOOST_TEST(o.saw_state(session_state::connecting));
  BOOST_TEST(o.saw_state(session_state::connected));
  // Each lock node's create was acknowledged by a quorum: it renewed the lease.
  std::lock_guard lock(o.mutex);
  BOOST_TEST(o.margins.size() >= 3u);
  for (auto m : o.margins) {
    BOOST_TEST(m.count() > 0);
    BOOST_TEST((m <= c.s->negotiated_timeout()));
  }
}

BOOST_AUTO_TEST_CASE(a_lock_reports_one_start_one_end_and_its_loss) {
  observed_client c;
  test::client admin;
  const std::string path = "/metrics/lock";
  lock l(*c.s, path);
  auto [ec, held] = test::acquire(l);
  BOOST_TEST_REQUIRE(!ec, ec.message());
  auto events = c.observer->events_snapshot();
  BOOST_TEST_REQUIRE(events.size() == 2u);
  BOOST_TEST(events[0].what == "started");
  BOOST_TEST(events[1].what == "finished");
  BOOST_TEST(!events[1].ec);
  for (const auto& e : events) {
    BOOST_TEST((e.kind == recipe_kind::lock));
    BOOST_TEST(e.path == path);
  }

  // A contender that cannot have it: busy for a try-acquire, timeout for a bounded wait.
  observed_client second;
  lock try_lock(*second.s, path);
  auto [busy, none] = get(try_lock.async_try_acquire(tuple_future));
  BOOST_TEST(busy == errc::busy);
  auto [late, none2] = get(try_lock.async_acquire(200ms, tuple_future));
  BOOST_TEST(late == errc::timeout);
  BOOST_TEST(second.observer->count("started", recipe_kind::lock) == 2u);
  BOOST_TEST(second.observer->count("finished", recipe_kind::lock) == 2u);

  // Someone deletes the holder's node: the loss is reported as what async_wait_lost says.
  auto lost = held.async_wait_lost(tuple_future);
  BOOST_TEST(!std::get<0>(get(admin.s->async_remove(held.path(), -1, tuple_future))));
  const auto [why] = get(lost);
  BOOST_TEST(why == errc::lock_lost);
  BOOST_TEST(test::eventually([&] { return c.observer->count("lost", recipe_kind::lock) == 1; }));
  BOOST_TEST(c.observer->events_snapshot().back().ec == errc::lock_lost);
  BOOST_TEST(c.observer->negative_waits == 0);
}

BOOST_AUTO_TEST_CASE(every_recipe_reports_under_its_own_kind) {
  observed_client c;
  auto& o = *c.observer;
  {
    read_lock r(*c.s, "/metrics/rw");
    auto [ec, held] = get(r.async_acquire(tuple_future));
    BOOST_TEST_REQUIRE(!ec, ec.message());
  }
  {
    write_lock w(*c.s, "/metrics/rw");
    auto [ec, held] = get(w.async_acquire(tuple_future));
    BOOST_TEST_REQUIRE(!ec, ec.message());
  }
  {
    election e(*c.s, "/metrics/election", "me");
    auto [ec, leader] = get(e.async_campaign(tuple_future));
    BOOST_TEST_REQUIRE(!ec, ec.message());
  }
  {
    semaphore sem(*c.s, "/metrics/semaphore", 2);
    auto [ec, held] = get(sem.async_acquire(tuple_future));
    BOOST_TEST_REQUIRE(!ec, ec.message());
  }
  for (recipe_kind k : {recipe_kind::read_lock, recipe_kind::write_lock, recipe_kind::election,
                        recipe_kind::semaphore}) {
    BOOST_TEST_CONTEXT(to_string(k)) {
      BOOST_TEST(o.count("started", k) == 1u);
      BOOST_TEST(o.count("finished", k) == 1u);
    }
  }
  // The semaphore's internal lock is not a lock of the user's, and its labels are its own path.
  BOOST_TEST(o.count("started", recipe_kind::lock) == 0u);
  for (const auto& e : o.events_snapshot()) {
    if (e.kind == recipe_kind::semaphore) BOOST_TEST(e.path == "/metrics/semaphore");
    if (e.kind == recipe_kind::election) BOOST_TEST(e.path == "/metrics/election");
  }
}

BOOST_AUTO_TEST_CASE(a_member_reports_its_join_and_each_lost_registration) {
  observed_client c;
  test::client admin;
  auto& o = *c.observer;
  auto [ec, member] = get(async_join(*c.s, "/metrics/group", "m1", "", tuple_future));
  BOOST_TEST_REQUIRE(!ec, ec.message());
  BOOST_TEST(o.count("started", recipe_kind::membership) == 1u);
  BOOST_TEST(o.count("finished", recipe_kind::membership) == 1u);
  auto again = member.async_wait_reregistered(tuple_future);
  BOOST_TEST(!std::get<0>(get(admin.s->async_remove("/metrics/group/m1", -1, tuple_future))));
  BOOST_TEST(!std::get<0>(get(again)));
  BOOST_TEST(o.count("lost", recipe_kind::membership) == 1u);
  const auto events = o.events_snapshot();
  BOOST_TEST(events.back().path == "/metrics/group");
  BOOST_TEST(events.back().ec == errc::lock_lost);
}

BOOST_AUTO_TEST_CASE(an_expiry_is_reported_with_what_it_took) {
  observed_client c;
  lock l(*c.s, "/metrics/expiry");
  auto [ec, held] = test::acquire(l);
  BOOST_TEST_REQUIRE(!ec, ec.message());
  auto lost = held.async_wait_lost(tuple_future);
  testing::expire_session(*c.s);
  const auto [why] = get(lost);
  BOOST_TEST(why == condition::session_expired);
  auto& o = *c.observer;
  BOOST_TEST(test::eventually([&] { return o.saw_state(session_state::expired); }));
  BOOST_TEST(test::eventually([&] { return o.count("lost", recipe_kind::lock) == 1; }));
  BOOST_TEST(o.events_snapshot().back().ec == condition::session_expired);
  // The session that follows is a new one: connected again.
  BOOST_TEST(test::eventually([&] {
    std::lock_guard lock(o.mutex);
    return std::count(o.states.begin(), o.states.end(), session_state::connected) == 2;
  }));
}
