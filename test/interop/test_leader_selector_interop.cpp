// SPDX-License-Identifier: Apache-2.0
// Interoperability: an Apache Curator LeaderSelector with autoRequeue (Java,
// test/interop/CuratorSelector.java, the Debian Curator jars) and a zkcoord leader_selector with
// auto-requeue take turns on ONE path. Each leader creates an EPHEMERAL "holder" node beside the
// path while it leads and deletes it when it lets go: a create that finds it already there is an
// overlap (two leaders at once), detected by ZooKeeper itself, with no clocks involved. The
// holder's czxid orders the terms of both clients on one scale: they must alternate. While each
// side leads, both sides' getLeader / async_leader name it. Missing java, javac or the Curator
// jars FAIL the test.
#include <zkcoord/leader_selector.hpp>

#include <zkcoord/testing/test_cluster.hpp>

#include "support/io_thread.hpp"
#include "support/piped_child.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE leader_selector_interop
#include <boost/test/unit_test.hpp>

#include "support/curator_java.hpp"
#include "support/holder_child.hpp"

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>
#include <sstream>
#include <thread>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace fs = std::filesystem;
using test::field;
using test::tuple_future;

namespace {

const fs::path sources = ZKCOORD_INTEROP_SOURCES;
const fs::path work = ZKCOORD_INTEROP_WORK;

class curator_selector {
 public:
  curator_selector(const std::string& connect, const std::string& path, const std::string& id,
                   const std::string& holder)
      : child_({"java", "-cp", test::curator_classpath(work / "classes"), "CuratorSelector",
                connect, path, id, holder}) {
    next_with("ready");
  }
  ~curator_selector() {
    child_.write_line("quit");
    BOOST_TEST(child_.wait_exit(30s).value_or(-1) == 0);
  }
  void send(const std::string& command) { child_.write_line(command); }
  std::string ask(const std::string& command, const std::string& answer) {
    child_.write_line(command);
    return next_with(answer);
  }
  /// The next line starting with `prefix` (an "overlap" or "error" line fails the test).
  std::string next_with(const std::string& prefix) {
    for (;;) {
      const auto line = child_.read_line(60s);
      BOOST_REQUIRE_MESSAGE(line.has_value(),
                            "Curator said nothing (waiting for " << prefix << ")");
      BOOST_TEST_MESSAGE("curator: " << *line);
      BOOST_REQUIRE_MESSAGE(line->rfind("error", 0) != 0, "Curator: " << *line);
      BOOST_REQUIRE_MESSAGE(*line != "overlap", "Curator found the holder node taken");
      if (line->rfind("lead ", 0) == 0) ++leads;
      if (line->rfind(prefix, 0) == 0) return *line;
    }
  }
  int leads = 0;

 private:
  test::piped_child child_;
};

// Polls `pred` every 20 ms for at most 10 s.
template <class Pred>
bool eventually(Pred pred) {
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(20ms);
  }
  return true;
}

// The zkcoord side's terms, handed from the handler to the test thread.
struct term_queue {
  leader_selector::handler_type handler() {
    return [this](leader_term t) {
      std::lock_guard lock(mutex);
      terms.push_back(std::move(t));
      cv.notify_all();
    };
  }
  leader_term next() {
    std::unique_lock lock(mutex);
    BOOST_REQUIRE_MESSAGE(cv.wait_for(lock, 30s, [&] { return !terms.empty(); }),
                          "zkcoord never led");
    leader_term t = std::move(terms.front());
    terms.pop_front();
    return t;
  }
  bool empty() {
    std::lock_guard lock(mutex);
    return terms.empty();
  }
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<leader_term> terms;
};

}  // namespace

BOOST_AUTO_TEST_CASE(curator_leader_selector_and_zkcoord_take_turns_on_one_path) {
  test::compile_curator_program(sources / "CuratorSelector.java", work / "classes");
  testing::test_cluster cluster;
  const std::string path = testing::unique_path("selector-interop");
  const std::string holder = path + "-holder";
  test::io_thread io;
  session s(io.executor(), session_options{.connect = cluster.connect_string()});
  test::get(s.async_connect(asio::use_future));

  // Curator first, alone: it leads.
  curator_selector curator(cluster.connect_string(), path, "curator-0", holder);
  std::string line = curator.next_with("lead ");
  BOOST_TEST(field(line, "leader") == "curator-0");
  std::int64_t last_holder = std::stoll(field(line, "holder"));

  term_queue queue;
  leader_selector zk(s, path, "zkcoord-1", queue.handler(),
                     leader_selector_options{.auto_requeue = true});
  auto run = zk.async_run(tuple_future);
  const auto listed_count = [&] {
    auto [ec, list] = test::get(zk.async_participants(tuple_future));
    BOOST_REQUIRE_MESSAGE(!ec, ec.message());
    return list.size();
  };
  BOOST_REQUIRE(eventually([&] { return listed_count() == 2; }));

  std::vector<std::string> order{"curator-0"};  // leaders in holder-czxid order
  std::int64_t last_token = 0;
  for (int round = 0; round < 3; ++round) {
    BOOST_TEST_CONTEXT("round " << round) {
      // Curator leads: both sides name it; zkcoord waits.
      auto [ec, leader] = test::get(zk.async_leader(tuple_future));
      BOOST_TEST(!ec);
      BOOST_TEST(leader.id == "curator-0");
      const std::string view = curator.ask("query", "state ");
      BOOST_TEST(field(view, "has") == "true");
      BOOST_TEST(field(view, "leader") == "curator-0");
      BOOST_TEST(field(view, "ids") == "curator-0,zkcoord-1");
      BOOST_TEST(queue.empty(), "zkcoord leads while Curator does");

      // Curator lets go: zkcoord leads, Curator queues again behind it.
      curator.ask("release", "released");
      leader_term term = queue.next();
      BOOST_TEST(term.token().value() > last_token);
      last_token = term.token().value();
      auto [cec, made] = test::get(s.async_create(
          holder, "zkcoord-1", create_options{.mode = create_mode::ephemeral}, tuple_future));
      BOOST_REQUIRE_MESSAGE(!cec, "zkcoord found the holder node taken: " << cec.message());
      BOOST_TEST(made.stat.czxid > last_holder);
      last_holder = made.stat.czxid;
      order.push_back("zkcoord-1");
      auto [lec, zk_leader] = test::get(zk.async_leader(tuple_future));
      BOOST_TEST(!lec);
      BOOST_TEST(zk_leader.id == "zkcoord-1");
      // Curator's view, once its requeued node is listed.
      std::string curator_view;
      for (int i = 0; i < 200; ++i) {
        curator_view = curator.ask("query", "state ");
        if (field(curator_view, "ids") == "zkcoord-1,curator-0") break;
        std::this_thread::sleep_for(20ms);
      }
      BOOST_TEST(field(curator_view, "ids") == "zkcoord-1,curator-0");
      BOOST_TEST(field(curator_view, "leader") == "zkcoord-1");
      BOOST_TEST(field(curator_view, "has") == "false");
      BOOST_TEST(curator.leads == round + 1, "Curator led while zkcoord did");

      // zkcoord lets go: Curator leads again.
      BOOST_REQUIRE(!std::get<0>(test::get(s.async_remove(holder, -1, tuple_future))));
      term.finish();
      line = curator.next_with("lead ");
      BOOST_TEST(field(line, "leader") == "curator-0");
      const std::int64_t curator_holder = std::stoll(field(line, "holder"));
      BOOST_TEST(curator_holder > last_holder);
      last_holder = curator_holder;
      order.push_back("curator-0");
      BOOST_REQUIRE(eventually([&] { return listed_count() == 2; }));
    }
  }
  // Leadership alternated: no leader followed itself.
  for (std::size_t i = 1; i < order.size(); ++i) BOOST_TEST(order[i] != order[i - 1]);

  zk.close();
  BOOST_TEST(std::get<0>(test::get(run)) == asio::error::operation_aborted);
  curator.send("release");
  curator.next_with("released");
}
