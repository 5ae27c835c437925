// SPDX-License-Identifier: Apache-2.0
// Interoperability of the double barrier: Apache Curator DistributedDoubleBarrier members
// (Java, test/interop/CuratorDoubleBarrier.java, compiled here at test time against Debian's
// jars) and zkcoord members share ONE barrier path. Asserted, for two rounds: while only the
// Curator members and some zkcoord members are in, nobody enters; once the last zkcoord member
// comes, every member, Curator's and ours, enters; on leave nobody leaves while a member is
// still in, then everyone leaves, and nothing is left under the path. Missing java, javac or
// the Curator jars FAILS the test (scripts/install-deps installs them).
// The same with a kazoo DoubleBarrier member (test/interop/kazoo_double_barrier.py: kazoo names
// its node uuid4().hex and deletes `ready` at the start of its leave, docs/barriers.md):
// missing python3 or kazoo FAILS that test.
#include <zkcoord/barrier.hpp>

#include <zkcoord/testing/test_cluster.hpp>

#include "support/io_thread.hpp"
#include "support/piped_child.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE barrier_interop
#include <boost/test/unit_test.hpp>

#include "support/curator_java.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <memory>
#include <set>
#include <thread>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {

const fs::path sources = ZKCOORD_INTEROP_SOURCES;
const fs::path work = ZKCOORD_INTEROP_WORK;

using void_result = std::tuple<error_code>;

bool ready(std::future<void_result>& f) {
  return f.wait_for(0ms) == std::future_status::ready;
}

error_code outcome(std::future<void_result>& f) {
  BOOST_REQUIRE_MESSAGE(f.wait_for(60s) == std::future_status::ready, "no outcome in 60 s");
  return std::get<0>(f.get());
}

// Reads `count` lines "WORD I" from the Curator program; fails on anything else.
void expect_all(test::piped_child& curators, const std::string& word, int count) {
  std::set<std::string> seen;
  while (static_cast<int>(seen.size()) < count) {
    const auto line = curators.read_line(60s);
    BOOST_REQUIRE_MESSAGE(line.has_value(), "no '" << word << "' from the Curator members");
    BOOST_TEST_MESSAGE("curator: " << *line);
    BOOST_REQUIRE_MESSAGE(line->rfind(word + " ", 0) == 0, "unexpected: " << *line);
    seen.insert(*line);
  }
}

/// `count` zkcoord members of the barrier at `path`, each on its own session, and an observer
/// session that lists the path.
struct our_members {
  our_members(const std::string& connect, const std::string& path, std::uint32_t members,
              int count) {
    for (int i = 0; i <= count; ++i) {  // the members', then the observer's
      sessions.push_back(
          std::make_unique<session>(io.executor(), session_options{.connect = connect}));
      test::get(sessions.back()->async_connect(asio::use_future));
    }
    for (int i = 0; i < count; ++i)
      barriers.push_back(std::make_unique<double_barrier>(*sessions[i], path, members));
  }
  session& observer() { return *sessions.back(); }

  test::io_thread io;
  std::vector<std::unique_ptr<session>> sessions;
  std::vector<std::unique_ptr<double_barrier>> barriers;
};

std::vector<std::string> children_of(session& s, const std::string& path) {
  auto [ec, list] = test::get(s.async_children(path, test::tuple_future));
  if (ec == zk_errc::no_node) return {};
  BOOST_REQUIRE_MESSAGE(!ec, "children of " << path << ": " << ec.message());
  return list.names;
}

}  // namespace

BOOST_AUTO_TEST_CASE(zkcoord_and_curator_members_enter_and_leave_one_double_barrier) {
  constexpr int curator_count = 2, zkcoord_count = 3;
  constexpr std::uint32_t members = curator_count + zkcoord_count;
  test::compile_curator_program(sources / "CuratorDoubleBarrier.java", work / "classes");
  testing::test_cluster cluster;
  const std::string path = testing::unique_path("double-barrier-interop");

  test::piped_child curators(std::vector<std::string>{
      "java", "-cp", test::curator_classpath(work / "classes"), "CuratorDoubleBarrier",
      cluster.connect_string(), path, std::to_string(members), std::to_string(curator_count)});
  const auto hello = curators.read_line(60s);
  BOOST_REQUIRE_MESSAGE(hello == std::optional<std::string>("ready"),
                        "the Curator program did not start");

  our_members zk(cluster.connect_string(), path, members, zkcoord_count);
  session& observer = zk.observer();
  auto& ours = zk.barriers;

  for (int round = 0; round < 2; ++round) {
    BOOST_TEST_CONTEXT("round " << round) {
      // Curator's members and all but one of ours: one short, so nobody enters.
      curators.write_line("enter");
      std::vector<std::future<void_result>> entering;
      for (int i = 0; i + 1 < zkcoord_count; ++i)
        entering.push_back(ours[i]->async_enter(test::tuple_future));
      const auto deadline = std::chrono::steady_clock::now() + 30s;
      while (children_of(observer, path).size() < members - 1 &&
             std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(20ms);
      BOOST_TEST_REQUIRE(children_of(observer, path).size() == members - 1);
      const auto early = curators.read_line(500ms);
      BOOST_TEST(!early.has_value(), "a Curator member entered early: " << early.value_or(""));
      for (auto& f : entering) BOOST_TEST(!ready(f));

      // The last member: everyone enters.
      entering.push_back(ours.back()->async_enter(test::tuple_future));
      for (auto& f : entering) BOOST_TEST(!outcome(f));
      expect_all(curators, "entered", curator_count);

      // Curator's members leave first, then ours but one: nobody is out while one is in.
      curators.write_line("leave");
      std::vector<std::future<void_result>> leaving;
      for (int i = 0; i + 1 < zkcoord_count; ++i)
        leaving.push_back(ours[i]->async_leave(test::tuple_future));
      std::this_thread::sleep_for(500ms);
      // The lowest member waits for the others, and every other waits for the lowest: with one
      // of ours still in, at most the members other than the lowest can have finished only
      // once nothing but the lowest is left, which cannot be yet.
      const auto left_early = curators.read_line(10ms);
      BOOST_TEST(!left_early.has_value(), "left early: " << left_early.value_or(""));
      for (auto& f : leaving) BOOST_TEST(!ready(f));
      leaving.push_back(ours.back()->async_leave(test::tuple_future));
      for (auto& f : leaving) BOOST_TEST(!outcome(f));
      expect_all(curators, "left", curator_count);
      BOOST_TEST(children_of(observer, path).empty());  // no member node, no `ready`
    }
  }
  curators.write_line("quit");
  BOOST_TEST(curators.wait_exit(30s).value_or(-1) == 0);
}

BOOST_AUTO_TEST_CASE(zkcoord_and_kazoo_members_enter_and_leave_one_double_barrier) {
  const char* python = "/usr/bin/python3";
  BOOST_REQUIRE_MESSAGE(
      std::system((std::string(python) + " -c 'import kazoo' 2>/dev/null").c_str()) == 0,
      "python3-kazoo is missing: run scripts/install-deps");
  constexpr int zkcoord_count = 2;
  constexpr std::uint32_t members = zkcoord_count + 1;
  testing::test_cluster cluster;
  const std::string path = testing::unique_path("double-barrier-kazoo");

  test::piped_child kazoo(
      std::vector<std::string>{python, (sources / "kazoo_double_barrier.py").string(),
                               cluster.connect_string(), path, std::to_string(members)});
  const auto hello = kazoo.read_line(60s);
  BOOST_REQUIRE_MESSAGE(hello == std::optional<std::string>("ready"),
                        "the kazoo program did not start: " << hello.value_or("(nothing)"));

  our_members zk(cluster.connect_string(), path, members, zkcoord_count);
  session& observer = zk.observer();
  auto& ours = zk.barriers;

  for (int round = 0; round < 2; ++round) {
    BOOST_TEST_CONTEXT("round " << round) {
      // kazoo's member and one of ours: one short, so nobody enters.
      kazoo.write_line("enter");
      auto first = ours[0]->async_enter(test::tuple_future);
      const auto deadline = std::chrono::steady_clock::now() + 30s;
      while (children_of(observer, path).size() < members - 1 &&
             std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(20ms);
      const auto in = children_of(observer, path);
      BOOST_TEST_REQUIRE(in.size() == members - 1);
      // kazoo's member node is there under its own name form (32 hex digits, no dashes).
      BOOST_TEST(std::count_if(in.begin(), in.end(), [](const std::string& n) {
                   return n.size() == 32 && n.find('-') == std::string::npos;
                 }) == 1);
      const auto early = kazoo.read_line(500ms);
      BOOST_TEST(!early.has_value(), "the kazoo member entered early: " << early.value_or(""));
      BOOST_TEST(!ready(first));

      // The last member: everyone enters.
      auto second = ours[1]->async_enter(test::tuple_future);
      BOOST_TEST(!outcome(first));
      BOOST_TEST(!outcome(second));
      const auto entered = kazoo.read_line(60s);
      BOOST_TEST_REQUIRE(entered.value_or("").rfind("entered ", 0) == 0,
                         "kazoo: " << entered.value_or("(nothing)"));

      // kazoo leaves first (deleting `ready` as it starts), then one of ours: nobody is out
      // while the other is still in.
      kazoo.write_line("leave");
      auto leaving = ours[0]->async_leave(test::tuple_future);
      const auto left_early = kazoo.read_line(500ms);
      BOOST_TEST(!left_early.has_value(), "kazoo left early: " << left_early.value_or(""));
      BOOST_TEST(!ready(leaving));
      auto last = ours[1]->async_leave(test::tuple_future);
      BOOST_TEST(!outcome(leaving));
      BOOST_TEST(!outcome(last));
      const auto left = kazoo.read_line(60s);
      BOOST_TEST_REQUIRE(left.value_or("").rfind("left ", 0) == 0,
                         "kazoo: " << left.value_or("(nothing)"));
      BOOST_TEST(children_of(observer, path).empty());  // no member node, no `ready`
    }
  }
  kazoo.write_line("quit");
  BOOST_TEST(kazoo.wait_exit(30s).value_or(-1) == 0);
}
