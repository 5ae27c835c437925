// SPDX-License-Identifier: Apache-2.0
// Test-matrix row 2 with real processes: the holder (lock_holder_child) is SIGSTOPped for
// 2.5 x its session timeout T. This process's contender gets the lock within T + 1 s, and not
// while the stopped holder's node exists (a third session, reading after the grant, finds it
// gone; it also watches the node and reports when it saw the deletion), and writes with the
// new token. The holder is resumed and at once writes with its old token: it still
// believed it held the lock (its write arrives after the successor's), and the fence rejects
// it. Its held_lock reports the loss right after the resume.
#include <zkcoord/lock.hpp>

#include <zkcoord/testing/test_cluster.hpp>

#include "support/file_fence_store.hpp"
#include "support/holder_child.hpp"
#include "support/io_thread.hpp"
#include "support/piped_child.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE lock_paused_holder
#include <boost/test/unit_test.hpp>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <future>
#include <random>
#include <sstream>
#include <thread>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using steady = std::chrono::steady_clock;
using test::field;

namespace {

long long ns(steady::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}
std::ptrdiff_t index_of(const std::vector<std::string>& lines, const std::string& prefix) {
  auto it = std::find_if(lines.begin(), lines.end(),
                         [&](const std::string& l) { return l.rfind(prefix, 0) == 0; });
  return it == lines.end() ? -1 : it - lines.begin();
}

}  // namespace

BOOST_AUTO_TEST_CASE(paused_holder_write_is_rejected_by_the_fence) {
  testing::test_cluster cluster;
  test::temp_dir dir("zkcoord-row2");
  test::file_fence_store store(dir.path);
  const std::string path = testing::unique_path("paused-holder");
  test::piped_child child(
      {ZKCOORD_LOCK_HOLDER_CHILD, cluster.connect_string(), path, dir.path.string(), "2000"});
  const auto held_line = child.read_line(30s);
  BOOST_REQUIRE_MESSAGE(held_line.has_value(), "the child did not report holding the lock");
  const std::int64_t old_token = std::stoll(field(*held_line, "token"));
  const auto child_timeout = std::chrono::milliseconds(std::stoll(field(*held_line, "timeout_ms")));
  BOOST_TEST_MESSAGE("child holds token " << old_token << ", T=" << child_timeout.count() << "ms");

  test::io_thread io;
  session s(io.executor(), {.connect = cluster.connect_string(), .session_timeout = 10s});
  test::get(s.async_connect(asio::use_future));
  // The third session: finds the child's node (the only one yet) and watches it.
  session observer(io.executor(), {.connect = cluster.connect_string(), .session_timeout = 10s});
  test::get(observer.async_connect(asio::use_future));
  auto [list_ec, listed] = test::get(observer.async_children(path, test::tuple_future));
  BOOST_REQUIRE(!list_ec);
  BOOST_REQUIRE(listed.names.size() == 1u);
  const std::string child_node = path + "/" + listed.names.front();
  std::promise<steady::time_point> deletion_seen;  // before the watch, which may complete it
  watch child_node_watch;
  auto [exists_ec, child_stat] =
      test::get(observer.async_exists(child_node, child_node_watch, test::tuple_future));
  BOOST_REQUIRE(!exists_ec);
  BOOST_REQUIRE(child_stat.has_value());
  child_node_watch.async_wait([&deletion_seen](error_code ec, watch_event e) {
    if (!ec && e.type == watch_event_type::deleted)
      deletion_seen.set_value(steady::now());
    else
      deletion_seen.set_value(steady::time_point{});
  });
  lock contender(s, path, {.app_id = "successor"});
  auto granted = contender.async_acquire(test::tuple_future);
  BOOST_REQUIRE(granted.wait_for(500ms) == std::future_status::timeout);  // the child holds it

  const auto paused_at = steady::now();
  child.signal(SIGSTOP);
  BOOST_REQUIRE(granted.wait_for(child_timeout * 3) == std::future_status::ready);
  const auto granted_at = steady::now();
  auto [ec, held] = granted.get();
  BOOST_REQUIRE(!ec);
  BOOST_TEST(held.token().value() > old_token);
  BOOST_TEST_MESSAGE("successor granted " << (granted_at - paused_at) / 1ms << " ms after SIGSTOP");
  BOOST_TEST((granted_at - paused_at <= child_timeout + 1s),
             "successor after " << (granted_at - paused_at) / 1ms << "ms");
  // No grant while the stopped holder's node exists: read after the grant (and after a sync,
  // should the cluster be an ensemble), the node must be gone already.
  BOOST_TEST(!std::get<0>(test::get(observer.async_sync(path, test::tuple_future))));
  auto [after_ec, after_stat] = test::get(observer.async_exists(child_node, test::tuple_future));
  BOOST_TEST(!after_ec);
  BOOST_TEST(!after_stat.has_value(),
             "granted while the stopped holder's node " << child_node << " still existed");
  auto deletion = deletion_seen.get_future();
  BOOST_REQUIRE(deletion.wait_for(10s) == std::future_status::ready);
  const auto deleted_seen_at = deletion.get();
  BOOST_TEST((deleted_seen_at != steady::time_point{}), "the watch saw no deletion");
  BOOST_TEST_MESSAGE("third session saw the holder's node deleted "
                     << (granted_at - deleted_seen_at) / 1us
                     << " us before this thread saw the grant (negative: after)");
  BOOST_TEST(store.write(held.token().value(), store.read(held.token().value(), "successor") + 1,
                         "successor"));

  std::this_thread::sleep_until(paused_at + child_timeout * 5 / 2);
  child.write_line("write");  // waits in the pipe: read at once when resumed
  const auto resumed_at = steady::now();
  child.signal(SIGCONT);
  const auto write_line = child.read_line(20s);
  const auto lost_line = child.read_line(20s);
  BOOST_REQUIRE(write_line.has_value());
  BOOST_REQUIRE(lost_line.has_value());
  BOOST_TEST_MESSAGE("child: " << *write_line << " / " << *lost_line);
  BOOST_TEST(child.wait_exit(10s).value_or(-1) == 0);

  // The fence did the work: the stale write came after the successor's and was rejected.
  BOOST_TEST(field(*write_line, "write") == "rejected");
  const auto log = store.log_lines();
  const auto successor_write = index_of(log, "accept " + std::to_string(held.token().value()));
  const auto stale_write = index_of(log, "reject " + std::to_string(old_token));
  BOOST_TEST(successor_write >= 0);
  BOOST_TEST(stale_write > successor_write);
  const auto state = store.snapshot();
  BOOST_TEST(state.highest == held.token().value());
  BOOST_TEST(state.value == 2);  // child's first write, then the successor's
  BOOST_TEST(state.rejected == 1);
  BOOST_TEST_MESSAGE("client-side belief at the stale write: owns=" << field(*write_line, "owns"));

  // The child's held_lock reported the loss promptly after the resume (target <= 100 ms).
  BOOST_REQUIRE(lost_line->rfind("lost_ns=", 0) == 0);
  const double lost_after_ms =
      static_cast<double>(std::stoll(field(*lost_line, "lost_ns")) - ns(resumed_at)) / 1e6;
  BOOST_TEST_MESSAGE("lost reported " << lost_after_ms << " ms after SIGCONT ("
                                      << lost_line->substr(lost_line->find("reason=")) << ")");
  BOOST_TEST(lost_after_ms <= 1000.0);

  auto [release_ec] = test::get(held.async_release(test::tuple_future));
  BOOST_TEST(!release_ec);
}
