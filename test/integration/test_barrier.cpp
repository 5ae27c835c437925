// SPDX-License-Identifier: Apache-2.0
// The barriers against a real server: a barrier set, waited on and removed, and a wait that
// times out; a double barrier whose members on separate sessions enter together and leave
// together, an enter that times out (our node deleted), a member whose session expires, bad
// input, and Curator GH-1290 (a wake-up with too few members does not let enter return).
#include <zkcoord/barrier.hpp>
#include <zkcoord/testing/expire_session.hpp>

#define BOOST_TEST_MODULE barrier
#include <boost/test/unit_test.hpp>

#include "support/lock_fixture.hpp"

#include <future>
#include <memory>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
using test::tuple_future;

namespace {

using test::lock_server;
BOOST_TEST_GLOBAL_FIXTURE(lock_server);

using void_result = std::tuple<error_code>;

bool ready(std::future<void_result>& f) {
  return f.wait_for(0ms) == std::future_status::ready;
}

error_code outcome(std::future<void_result>& f, std::chrono::milliseconds bound = 20s) {
  BOOST_REQUIRE_MESSAGE(f.wait_for(bound) == std::future_status::ready,
                        "no outcome within " << bound.count() << " ms");
  return std::get<0>(f.get());
}

std::vector<std::string> children_of(session& s, const std::string& path) {
  auto [ec, list] = test::get(s.async_children(path, tuple_future));
  if (ec == zk_errc::no_node) return {};
  BOOST_REQUIRE_MESSAGE(!ec, "children of " << path << ": " << ec.message());
  return list.names;
}

bool exists(session& s, const std::string& path) {
  auto [ec, stat] = test::get(s.async_exists(path, tuple_future));
  BOOST_REQUIRE_MESSAGE(!ec, "exists " << path << ": " << ec.message());
  return stat.has_value();
}

struct member {
  explicit member(const std::string& path, std::uint32_t n) : b(*c.s, path, n) {}
  test::client c;
  double_barrier b;
};

std::vector<std::unique_ptr<member>> members(const std::string& path, std::uint32_t n,
                                             std::size_t count) {
  std::vector<std::unique_ptr<member>> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(std::make_unique<member>(path, n));
  return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(barrier_holds_while_set_and_releases_every_waiter_when_removed) {
  test::client setter, w1, w2;
  barrier b(*setter.s, "/barriers/simple/gate");
  BOOST_TEST_REQUIRE(!std::get<0>(test::get(b.async_set_barrier(tuple_future))));
  BOOST_TEST(exists(*setter.s, "/barriers/simple/gate"));
  // Setting it again is fine.
  BOOST_TEST(!std::get<0>(test::get(b.async_set_barrier(tuple_future))));

  barrier b1(*w1.s, "/barriers/simple/gate"), b2(*w2.s, "/barriers/simple/gate");
  auto f1 = b1.async_wait_on_barrier(tuple_future);
  auto f2 = b2.async_wait_on_barrier(tuple_future);
  std::this_thread::sleep_for(300ms);
  BOOST_TEST(!ready(f1));
  BOOST_TEST(!ready(f2));
  // An unrelated change to the node wakes the waiters, who look again and keep waiting.
  BOOST_TEST_REQUIRE(
      !std::get<0>(test::get(setter.s->async_set("/barriers/simple/gate", "x", -1, tuple_future))));
  std::this_thread::sleep_for(300ms);
  BOOST_TEST(!ready(f1));
  BOOST_TEST(!ready(f2));

  BOOST_TEST_REQUIRE(!std::get<0>(test::get(b.async_remove_barrier(tuple_future))));
  BOOST_TEST(!outcome(f1));
  BOOST_TEST(!outcome(f2));
  // A barrier that is not set: a wait completes at once, and removing it again is fine.
  BOOST_TEST(!std::get<0>(test::get(b1.async_wait_on_barrier(tuple_future))));
  BOOST_TEST(!std::get<0>(test::get(b.async_remove_barrier(tuple_future))));
}

BOOST_AUTO_TEST_CASE(a_wait_on_a_set_barrier_times_out) {
  test::client c;
  barrier b(*c.s, "/barriers/timeout");
  BOOST_TEST_REQUIRE(!std::get<0>(test::get(b.async_set_barrier(tuple_future))));
  const auto start = std::chrono::steady_clock::now();
  auto [ec] = test::get(b.async_wait_on_barrier(300ms, tuple_future));
  BOOST_TEST((ec == errc::timeout), ec.message());
  BOOST_TEST((ec == condition::timed_out));
  BOOST_TEST(test::seconds_since(start) < 10.0);  // generous liveness bound
  // A zero timeout does not loop either.
  auto [ec0] = test::get(b.async_wait_on_barrier(0ms, tuple_future));
  BOOST_TEST((ec0 == errc::timeout));
  BOOST_TEST(exists(*c.s, "/barriers/timeout"));  // the wait changed nothing
  BOOST_TEST(!std::get<0>(test::get(b.async_remove_barrier(tuple_future))));
}

BOOST_AUTO_TEST_CASE(members_on_separate_sessions_enter_together_and_leave_together) {
  const std::string path = "/barriers/double/basic";
  test::client observer;
  auto ms = members(path, 4, 4);
  std::vector<std::future<void_result>> entering;
  for (std::size_t i = 0; i < 3; ++i) entering.push_back(ms[i]->b.async_enter(tuple_future));
  BOOST_TEST(test::eventually([&] { return children_of(*observer.s, path).size() == 3; }));
  std::this_thread::sleep_for(200ms);
  for (auto& f : entering) BOOST_TEST(!ready(f));  // three of four: nobody enters
  BOOST_TEST(!exists(*observer.s, path + "/ready"));

  entering.push_back(ms[3]->b.async_enter(tuple_future));
  for (auto& f : entering) BOOST_TEST(!outcome(f));
  BOOST_TEST(exists(*observer.s, path + "/ready"));
  BOOST_TEST(children_of(*observer.s, path).size() == 5u);  // four members and `ready`
  // Our member name is Curator's UUID form (36 characters with dashes).
  BOOST_TEST(ms[0]->b.node_name().size() == 36u);

  // Leave: three leave, and none completes while the fourth is still in.
  std::vector<std::future<void_result>> leaving;
  for (std::size_t i = 0; i < 3; ++i) leaving.push_back(ms[i]->b.async_leave(tuple_future));
  std::this_thread::sleep_for(300ms);
  std::size_t left_early = 0;
  for (auto& f : leaving) left_early += ready(f) ? 1 : 0;
  // A member other than the lowest may finish once only the lowest is left; with one member
  // still in, nobody has.
  BOOST_TEST(left_early == 0u);
  leaving.push_back(ms[3]->b.async_leave(tuple_future));
  for (auto& f : leaving) BOOST_TEST(!outcome(f));
  BOOST_TEST(children_of(*observer.s, path).empty());  // no member node, no `ready`

  // The same objects enter again for a second round.
  entering.clear();
  for (auto& m : ms) entering.push_back(m->b.async_enter(tuple_future));
  for (auto& f : entering) BOOST_TEST(!outcome(f));
  leaving.clear();
  for (auto& m : ms) leaving.push_back(m->b.async_leave(tuple_future));
  for (auto& f : leaving) BOOST_TEST(!outcome(f));
  BOOST_TEST(children_of(*observer.s, path).empty());
}

BOOST_AUTO_TEST_CASE(an_enter_that_times_out_deletes_our_node) {
  const std::string path = "/barriers/double/timeout";
  test::client observer;
  auto ms = members(path, 3, 2);
  auto waiting = ms[0]->b.async_enter(tuple_future);
  const auto start = std::chrono::steady_clock::now();
  auto [ec] = test::get(ms[1]->b.async_enter(500ms, tuple_future));
  BOOST_TEST((ec == errc::timeout), ec.message());
  BOOST_TEST(test::seconds_since(start) < 10.0);
  // Only the untimed member's node is left: the timed-out one is not counted by anyone.
  const auto kids = children_of(*observer.s, path);
  BOOST_TEST_REQUIRE(kids.size() == 1u);
  BOOST_TEST(kids.front() == ms[0]->b.node_name());
  BOOST_TEST(!ready(waiting));

  // A leave that times out deletes our node too; then enter works again (a fresh round).
  member third(path, 3);
  auto t = third.b.async_enter(tuple_future);
  auto again = ms[1]->b.async_enter(tuple_future);
  BOOST_TEST(!outcome(waiting));
  BOOST_TEST(!outcome(t));
  BOOST_TEST(!outcome(again));
  auto [lec] = test::get(ms[0]->b.async_leave(300ms, tuple_future));
  BOOST_TEST((lec == errc::timeout || !lec), lec.message());  // the lowest may have to wait
  // Leaving without having entered is refused.
  auto [nec] = test::get(ms[0]->b.async_leave(tuple_future));
  BOOST_TEST((nec == errc::not_held), nec.message());
  auto l1 = ms[1]->b.async_leave(tuple_future);
  auto l2 = third.b.async_leave(tuple_future);
  BOOST_TEST(!outcome(l1));
  BOOST_TEST(!outcome(l2));
  BOOST_TEST(children_of(*observer.s, path).empty());
}

BOOST_AUTO_TEST_CASE(a_member_whose_session_expires_is_not_counted) {
  const std::string path = "/barriers/double/expiry";
  test::client observer;
  auto ms = members(path, 3, 2);
  auto f0 = ms[0]->b.async_enter(tuple_future);
  auto f1 = ms[1]->b.async_enter(tuple_future);
  BOOST_TEST_REQUIRE(test::eventually([&] { return children_of(*observer.s, path).size() == 2; }));
  testing::expire_session(*ms[1]->c.s, 3000ms);
  // Its enter ends with the session, and its node went with it.
  const error_code ec1 = outcome(f1);
  BOOST_TEST((ec1 == condition::session_expired), ec1.message());
  BOOST_TEST(test::eventually([&] { return children_of(*observer.s, path).size() == 1; }));
  BOOST_TEST(!ready(f0));
  // Two new members make three: everyone left in enters.
  member a(path, 3), b(path, 3);
  auto fa = a.b.async_enter(tuple_future);
  auto fb = b.b.async_enter(tuple_future);
  BOOST_TEST(!outcome(f0));
  BOOST_TEST(!outcome(fa));
  BOOST_TEST(!outcome(fb));
  auto l0 = ms[0]->b.async_leave(tuple_future);
  auto la = a.b.async_leave(tuple_future);
  auto lb = b.b.async_leave(tuple_future);
  BOOST_TEST(!outcome(l0));
  BOOST_TEST(!outcome(la));
  BOOST_TEST(!outcome(lb));
  BOOST_TEST(children_of(*observer.s, path).empty());
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused_with_a_typed_error_and_no_node) {
  test::client c;
  barrier bad(*c.s, "no-slash");
  auto [e1] = test::get(bad.async_set_barrier(tuple_future));
  BOOST_TEST((e1 == errc::bad_path));
  BOOST_TEST((e1 == condition::invalid_argument));
  auto [e2] = test::get(bad.async_wait_on_barrier(1s, tuple_future));
  BOOST_TEST((e2 == errc::bad_path));
  double_barrier dbad(*c.s, "/trailing/", 2);
  auto [e3] = test::get(dbad.async_enter(tuple_future));
  BOOST_TEST((e3 == errc::bad_path));
  double_barrier zero(*c.s, "/barriers/double/zero", 0);
  auto [e4] = test::get(zero.async_enter(tuple_future));
  BOOST_TEST((e4 == errc::bad_argument));
  BOOST_TEST(!exists(*c.s, "/barriers/double/zero"));
  // Two enters of one object at once: the second is refused.
  double_barrier one(*c.s, "/barriers/double/twice", 2);
  auto first = one.async_enter(tuple_future);
  auto [e5] = test::get(one.async_enter(tuple_future));
  BOOST_TEST((e5 == errc::already_held));
  auto [e6] = test::get(one.async_leave(tuple_future));
  BOOST_TEST((e6 == errc::already_held));  // busy entering
  test::client other;
  double_barrier two(*other.s, "/barriers/double/twice", 2);
  BOOST_TEST(!std::get<0>(test::get(two.async_enter(tuple_future))));
  BOOST_TEST(!outcome(first));
  auto lo = one.async_leave(tuple_future);
  BOOST_TEST(!std::get<0>(test::get(two.async_leave(tuple_future))));
  BOOST_TEST(!outcome(lo));
}

BOOST_AUTO_TEST_CASE(a_wake_up_with_too_few_members_does_not_let_enter_return) {
  // Curator GH-1290: enter returned after any notification. Here `ready` is created and
  // deleted in one transaction: the watch fires, the member counts again, finds 2 of 3, and
  // keeps waiting, with a timeout too (Curator's timed path was the one affected).
  const std::string path = "/barriers/double/gh1290";
  test::client admin;
  auto ms = members(path, 3, 2);
  auto untimed = ms[0]->b.async_enter(tuple_future);
  auto timed = ms[1]->b.async_enter(60s, tuple_future);
  BOOST_TEST_REQUIRE(test::eventually([&] { return children_of(*admin.s, path).size() == 2; }));
  std::this_thread::sleep_for(200ms);  // both are waiting on `ready`
  for (int i = 0; i < 3; ++i) {
    auto [ec, results] = test::get(admin.s->async_multi(
        {op::create{path + "/ready", "", {}}, op::remove{path + "/ready", -1}}, tuple_future));
    BOOST_TEST_REQUIRE(!ec, ec.message());
    std::this_thread::sleep_for(300ms);
    BOOST_TEST(!ready(untimed));
    BOOST_TEST(!ready(timed));
  }
  member third(path, 3);
  auto t = third.b.async_enter(tuple_future);
  BOOST_TEST(!outcome(untimed));
  BOOST_TEST(!outcome(timed));
  BOOST_TEST(!outcome(t));
}
