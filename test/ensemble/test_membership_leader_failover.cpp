// SPDX-License-Identifier: Apache-2.0
// Group membership while the ZooKeeper leader of a 3-node ensemble is killed (test-matrix row
// 6): 50 members on 5 sessions join and leave in a loop across the fault; views on two other
// sessions must converge to the truth (the server's listing, and the members the test holds),
// with no leave missed: every member that left is gone from every view.
#include <zkcoord/membership.hpp>

#include <zkcoord/path.hpp>
#include <zkcoord/testing/ensemble.hpp>

#define BOOST_TEST_MODULE membership_leader_failover
#include <boost/test/unit_test.hpp>

#include "support/io_thread.hpp"
#include "support/leader_faults.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#include <atomic>
#include <future>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
using test::tuple_future;

namespace {

constexpr auto timeout = 8000ms;
constexpr int member_count = 50;

std::unique_ptr<session> connect(test::io_thread& io, const std::string& where) {
  session_options o;
  o.connect = where;
  o.session_timeout = timeout;
  auto s = std::make_unique<session>(io.executor(), o);
  test::get(s->async_connect(boost::asio::use_future), std::chrono::seconds(60));
  return s;
}

std::set<std::string> ids(const std::vector<member_info>& members) {
  std::set<std::string> out;
  for (const auto& m : members) out.insert(m.id);
  return out;
}

BOOST_AUTO_TEST_CASE(views_converge_and_miss_no_leave_across_a_leader_kill) {
  testing::ensemble zk;
  test::io_thread io;
  const std::string group = "/members/failover";
  std::vector<std::unique_ptr<session>> sessions;
  for (int i = 0; i < 5; ++i) sessions.push_back(connect(io, zk.connect_string()));
  auto admin = connect(io, zk.connect_string());
  auto viewer_a = connect(io, zk.connect_string());
  auto viewer_b = connect(io, zk.member_connect_string(0));
  group_view view_a(*viewer_a, group);
  group_view view_b(*viewer_b, group);

  // One churn thread: join or leave a random member, one operation at a time.
  std::map<int, membership> held;
  std::atomic<bool> stop{false};
  std::atomic<int> joins{0}, leaves{0}, failures{0};
  std::thread churn([&] {
    std::mt19937 random(7);
    while (!stop) {
      const int k = static_cast<int>(random() % member_count);
      auto& s = *sessions[k % sessions.size()];
      if (held.count(k) == 0) {
        auto [ec, m] = test::get(async_join(s, group, "m" + std::to_string(k),
                                            "data-" + std::to_string(k), tuple_future),
                                 std::chrono::seconds(60));
        if (ec) {
          ++failures;
          BOOST_TEST_MESSAGE("join m" << k << ": " << ec.message());
        } else {
          held.emplace(k, std::move(m));
          ++joins;
        }
      } else {
        auto [ec] = test::get(held.at(k).async_leave(tuple_future), std::chrono::seconds(60));
        if (ec) BOOST_TEST_MESSAGE("leave m" << k << ": " << ec.message());
        held.erase(k);
        ++leaves;
      }
    }
  });
  std::this_thread::sleep_for(5s);
  const std::size_t leader = zk.wait_for_leader(30s);
  BOOST_TEST_MESSAGE("killing leader " << leader << " after " << joins << " joins");
  test::kill_leader(zk, leader);
  test::restart_leader(zk, leader);
  std::this_thread::sleep_for(5s);
  stop = true;
  churn.join();
  BOOST_TEST_MESSAGE(joins << " joins, " << leaves << " leaves, " << failures << " failed joins; "
                           << held.size() << " members held");
  BOOST_TEST(joins > 50);
  BOOST_TEST(leaves > 25);

  // The truth: what the test holds, which must be what the server lists.
  std::set<std::string> expected;
  for (const auto& [k, m] : held) {
    BOOST_TEST(m.active(), "m" << k << " ended");
    expected.insert("m" + std::to_string(k));
  }
  const auto listed_on_server = [&] {
    // The admin's server may be a follower still applying the churn's last writes (the other
    // sessions' writes are not ordered before this read): sync it with the leader first.
    auto [sync_ec] = test::get(admin->async_sync(group, tuple_future));
    BOOST_REQUIRE_MESSAGE(!sync_ec, "sync: " << sync_ec.message());
    auto [ec, list] = test::get(admin->async_children(group, tuple_future));
    BOOST_REQUIRE_MESSAGE(!ec || ec == zk_errc::no_node, "children: " << ec.message());
    return std::set<std::string>(list.names.begin(), list.names.end());
  };
  const auto converges = [&](group_view& view, const char* name) {
    std::set<std::string> seen;
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    auto pending = view.async_wait_change(tuple_future);
    while (std::chrono::steady_clock::now() < deadline) {
      if (pending.wait_for(100ms) != std::future_status::ready) {
        if (seen == expected) return true;  // settled on the truth, nothing more to report
        continue;
      }
      auto [ec, list] = pending.get();
      if (ec) BOOST_TEST_MESSAGE(name << ": " << ec.message());
      if (!ec) seen = ids(list);
      pending = view.async_wait_change(tuple_future);
    }
    BOOST_TEST_MESSAGE(name << " sees " << seen.size() << ", truth " << expected.size());
    return false;
  };
  BOOST_TEST((listed_on_server() == expected));
  BOOST_TEST(converges(view_a, "view a"));
  BOOST_TEST(converges(view_b, "view b"));

  // Everyone leaves: no leave is missed by either view.
  for (auto& [k, m] : held) BOOST_TEST(!std::get<0>(test::get(m.async_leave(tuple_future))));
  held.clear();
  expected.clear();
  BOOST_TEST(converges(view_a, "view a"));
  BOOST_TEST(converges(view_b, "view b"));
  BOOST_TEST(listed_on_server().empty());
}

}  // namespace
