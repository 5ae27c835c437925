// SPDX-License-Identifier: Apache-2.0
// The real-ZooKeeper harness itself: server lifecycle, fault controls, the TCP proxy,
// session expiry and the external-cluster switch.
#include <zkcoord/testing/server.hpp>

#define BOOST_TEST_MODULE zkcoord_testing_harness
#include <boost/test/unit_test.hpp>

#include <zkcoord/session.hpp>
#include <zkcoord/testing/expire_session.hpp>
#include <zkcoord/testing/four_letter.hpp>
#include <zkcoord/testing/tcp_proxy.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include <boost/asio/use_future.hpp>

#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <set>

#include "session/session_impl.hpp"
#include "support/c_client.hpp"
#include "support/io_thread.hpp"
#include "support/state_recorder.hpp"

using namespace std::chrono_literals;
namespace zt = zkcoord::testing;
using zkcoord::test::c_client;

namespace {

std::string ruok(std::uint16_t port, std::chrono::milliseconds timeout = 2000ms) {
  return zt::four_letter("127.0.0.1", port, "ruok", timeout);
}

bool process_exists(pid_t pid) {
  return ::kill(pid, 0) == 0;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(server)

BOOST_AUTO_TEST_CASE(starts_serving_on_a_free_port, *boost::unit_test::timeout(120)) {
  zt::server zk;
  BOOST_TEST(zk.port() > 0);
  BOOST_TEST(zk.connect_string() == "127.0.0.1:" + std::to_string(zk.port()));
  BOOST_TEST(zk.pid() > 0);
  BOOST_TEST(zk.is_running());
  BOOST_TEST(ruok(zk.port()) == "imok");
  BOOST_TEST(zt::server_mode("127.0.0.1", zk.port()) == "standalone");
  BOOST_TEST(zt::four_letter("127.0.0.1", zk.port(), "conf").find("tickTime=200") !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(two_servers_get_distinct_ports, *boost::unit_test::timeout(120)) {
  zt::server a;
  zt::server b;
  BOOST_TEST(a.port() != b.port());
  BOOST_TEST(ruok(a.port()) == "imok");
  BOOST_TEST(ruok(b.port()) == "imok");
}

BOOST_AUTO_TEST_CASE(stop_and_restart_keep_port_and_data, *boost::unit_test::timeout(120)) {
  zt::server zk;
  const auto port = zk.port();
  BOOST_TEST(c_client(zk.connect_string()).create("/kept", "v") == ZOK);
  zk.stop();
  BOOST_TEST(!zk.is_running());
  BOOST_TEST(zk.pid() == -1);
  BOOST_TEST(ruok(port, 500ms) == "");
  zk.restart();
  BOOST_TEST(zk.port() == port);
  BOOST_TEST(c_client(zk.connect_string()).exists("/kept") == ZOK);
}

BOOST_AUTO_TEST_CASE(kill_keeps_acknowledged_writes, *boost::unit_test::timeout(120)) {
  zt::server zk;
  BOOST_TEST(c_client(zk.connect_string()).create("/durable") == ZOK);
  const pid_t old_pid = zk.pid();
  zk.kill();
  BOOST_TEST(!process_exists(old_pid));
  zk.restart();
  BOOST_TEST(zk.pid() != old_pid);
  BOOST_TEST(c_client(zk.connect_string()).exists("/durable") == ZOK);
}

BOOST_AUTO_TEST_CASE(pause_silences_and_resume_restores, *boost::unit_test::timeout(120)) {
  zt::server zk;
  zk.pause();
  BOOST_TEST(zk.is_running());
  BOOST_TEST(ruok(zk.port(), 500ms) == "");
  zk.resume();
  BOOST_TEST(ruok(zk.port()) == "imok");
}

BOOST_AUTO_TEST_CASE(destructor_stops_the_jvm_and_removes_the_dir,
                     *boost::unit_test::timeout(120)) {
  pid_t pid = -1;
  std::filesystem::path dir;
  {
    zt::server zk;
    pid = zk.pid();
    dir = zk.directory();
    BOOST_TEST(std::filesystem::exists(dir / "zoo.cfg"));
    zk.pause();  // even a paused server is cleaned up
  }
  BOOST_TEST(!process_exists(pid));
  BOOST_TEST(!std::filesystem::exists(dir));
}

BOOST_AUTO_TEST_CASE(start_failure_throws_with_the_log, *boost::unit_test::timeout(120)) {
  zt::server_options bad;
  bad.extra_config = {{"tickTime", "not-a-number"}};
  try {
    zt::server zk(bad);
    BOOST_FAIL("a server with a broken zoo.cfg started");
  } catch (const std::runtime_error& e) {
    BOOST_TEST(std::string(e.what()).find("server.log") != std::string::npos);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(proxy)

BOOST_AUTO_TEST_CASE(forwards_blackholes_and_refuses, *boost::unit_test::timeout(120)) {
  zt::server zk;
  zt::tcp_proxy proxy("127.0.0.1", zk.port());
  BOOST_TEST(proxy.connect_string() == "127.0.0.1:" + std::to_string(proxy.port()));
  BOOST_TEST(ruok(proxy.port()) == "imok");
  proxy.blackhole(true);
  BOOST_TEST(ruok(proxy.port(), 500ms) == "");
  proxy.blackhole(false);
  BOOST_TEST(ruok(proxy.port()) == "imok");
  proxy.refuse(true);
  BOOST_TEST(ruok(proxy.port(), 500ms) == "");
  proxy.refuse(false);
  BOOST_TEST(ruok(proxy.port()) == "imok");
}

BOOST_AUTO_TEST_CASE(drop_all_resets_a_client_which_reconnects, *boost::unit_test::timeout(120)) {
  zt::server zk;
  zt::tcp_proxy proxy("127.0.0.1", zk.port());
  c_client client(proxy.connect_string());
  const auto before = proxy.connections_accepted();
  proxy.drop_all();
  // The client notices the reset and opens a new connection through the proxy.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (proxy.connections_accepted() == before && std::chrono::steady_clock::now() < deadline) {
    client.state(10ms);  // lets the client work (st: runs it on this thread)
  }
  BOOST_TEST(proxy.connections_accepted() > before);
  BOOST_TEST(client.wait_connected(10s));
  BOOST_TEST(client.create("/after-drop") == ZOK);
}

BOOST_AUTO_TEST_CASE(lost_reply_request_is_applied, *boost::unit_test::timeout(120)) {
  zt::server zk;
  zt::tcp_proxy proxy("127.0.0.1", zk.port());
  c_client client(proxy.connect_string());
  proxy.drop_next_reply_after_request();
  BOOST_TEST(client.create("/applied") == ZCONNECTIONLOSS);
  BOOST_TEST(c_client(zk.connect_string()).exists("/applied") == ZOK);
  BOOST_TEST(client.wait_connected(10s));
  BOOST_TEST(client.create("/next") == ZOK);  // one shot: later replies flow again
}

BOOST_AUTO_TEST_CASE(blackhole_stalls_a_live_session, *boost::unit_test::timeout(120)) {
  zt::server zk;
  zt::tcp_proxy proxy("127.0.0.1", zk.port());
  c_client client(proxy.connect_string(), 4000);
  proxy.blackhole(true);
  // The client hears nothing for 2/3 of the timeout and gives up on the connection.
  const auto deadline = std::chrono::steady_clock::now() + 8s;
  while (client.state() == ZOO_CONNECTED_STATE && std::chrono::steady_clock::now() < deadline) {
  }
  BOOST_TEST(client.state() != ZOO_CONNECTED_STATE);
  proxy.blackhole(false);
  BOOST_TEST(client.wait_connected(10s));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_CASE(expire_session_ends_the_session_for_real, *boost::unit_test::timeout(120)) {
  zt::server zk;
  zkcoord::test::io_thread io;
  zkcoord::session_options options;
  options.connect = zk.connect_string();
  options.session_timeout = 4s;
  options.renew_after_expiry = false;
  zkcoord::session s(io.executor(), options);
  zkcoord::test::get(s.async_connect(boost::asio::use_future));
  zkcoord::create_options ephemeral;
  ephemeral.mode = zkcoord::create_mode::ephemeral;
  zkcoord::test::get(s.async_create("/mine", "", ephemeral, boost::asio::use_future));

  zt::expire_session(s);

  zkcoord::test::get(s.async_wait_state(zkcoord::session_state::expired, boost::asio::use_future));
  BOOST_TEST(c_client(zk.connect_string()).exists("/mine") == ZNONODE);
}

// expire_session points the session's handle away from its server first and waits until the
// session reports suspended. The C client drops that connection without the session event it
// sends for every other loss; the session reports it itself.
BOOST_AUTO_TEST_CASE(a_handle_pointed_away_from_its_server_reports_suspended,
                     *boost::unit_test::timeout(120)) {
  zt::server zk;
  zkcoord::test::io_thread io;
  zkcoord::session_options options;
  options.connect = zk.connect_string();
  options.session_timeout = 6s;
  zkcoord::session s(io.executor(), options);
  zkcoord::test::get(s.async_connect(boost::asio::use_future));
  zkcoord::test::state_recorder states(s);

  BOOST_TEST(zkcoord::detail::replace_servers(s, "127.0.0.2:1"));  // nothing listens there
  BOOST_TEST(states.wait_for(zkcoord::session_state::suspended, 5000ms).has_value());
  BOOST_TEST(zkcoord::detail::replace_servers(s, zk.connect_string()));
  BOOST_TEST(states.wait_for(zkcoord::session_state::reconnected, 10000ms).has_value());
  BOOST_TEST((s.state() == zkcoord::session_state::reconnected));
}

BOOST_AUTO_TEST_SUITE(cluster)

BOOST_AUTO_TEST_CASE(starts_a_server_unless_told_otherwise, *boost::unit_test::timeout(120)) {
  ::unsetenv("ZKCOORD_TEST_CONNECT");
  zt::test_cluster cluster;
  BOOST_TEST(!cluster.external());
  BOOST_TEST(ruok(cluster.local_server().port()) == "imok");
  BOOST_TEST(cluster.connect_string() == cluster.local_server().connect_string());
}

BOOST_AUTO_TEST_CASE(external_connect_starts_nothing_and_refuses_faults) {
  ::setenv("ZKCOORD_TEST_CONNECT", "127.0.0.1:1", 1);
  zt::test_cluster cluster;
  ::unsetenv("ZKCOORD_TEST_CONNECT");
  BOOST_TEST(cluster.external());
  BOOST_TEST(cluster.connect_string() == "127.0.0.1:1");
  BOOST_CHECK_THROW(cluster.pause(), std::runtime_error);
  BOOST_CHECK_THROW(cluster.kill(), std::runtime_error);
  BOOST_CHECK_THROW(cluster.restart(), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(unique_paths_do_not_collide) {
  std::set<std::string> paths;
  for (int i = 0; i < 1000; ++i) paths.insert(zt::unique_path("lock"));
  BOOST_TEST(paths.size() == 1000u);
  BOOST_TEST(paths.begin()->rfind("/zkcoord-test/lock-", 0) == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
