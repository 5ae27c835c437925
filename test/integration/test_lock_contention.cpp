// SPDX-License-Identifier: Apache-2.0
// Test-matrix row 1: 20 clients, each with its own session, contend on one lock for 30 s; the
// critical section reads, sleeps 0-20 ms and writes through the fence. No lost update, no
// stale or rejected write, tokens strictly increase, every client gets the lock, nothing is
// left behind, and no session ever owns two nodes of the lock. The handoff p99 is reported.
#include <zkcoord/lock.hpp>

#include <zkcoord/testing/test_cluster.hpp>

#include "support/fence_store.hpp"
#include "support/io_thread.hpp"
#include "support/lock_contention.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE lock_contention
#include <boost/test/unit_test.hpp>

#include <map>
#include <thread>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;

namespace {

// Most nodes one session owned at once under `path`, sampled until `stop` is set.
std::size_t sample_nodes_per_session(session& observer, const std::string& path,
                                     const std::atomic<bool>& stop) {
  std::size_t most = 0;
  while (!stop) {
    auto [ec, contenders] = test::get(async_contenders(observer, path, test::tuple_future));
    if (!ec) {
      std::map<std::int64_t, std::size_t> per_session;
      for (const auto& c : contenders) most = std::max(most, ++per_session[c.session_id]);
    }
    std::this_thread::sleep_for(250ms);
  }
  return most;
}

}  // namespace

BOOST_AUTO_TEST_CASE(twenty_clients_thirty_seconds_one_lock) {
  testing::test_cluster cluster;
  test::io_thread io;
  test::io_thread observer_io;
  test::fence_store store;
  const std::string path = testing::unique_path("contention");
  test::lock_contention run(io.executor(), store,
                            {.connect = cluster.connect_string(),
                             .lock_path = path,
                             .clients = 20,
                             .session_timeout = 10s,
                             .max_critical_section = 20ms});
  session observer(observer_io.executor(), {.connect = cluster.connect_string()});
  test::get(observer.async_connect(asio::use_future));

  run.start();
  std::atomic<bool> stop_sampling{false};
  auto sampled = std::async(
      std::launch::async, [&] { return sample_nodes_per_session(observer, path, stop_sampling); });
  std::this_thread::sleep_for(30s);
  BOOST_REQUIRE_MESSAGE(run.stop(60s), "a client loop did not finish");
  stop_sampling = true;
  const std::size_t most_nodes_per_session = sampled.get();

  // Every cycle released: nothing may be left while the sessions still live.
  auto [list_ec, left] = test::get(async_contenders(observer, path, test::tuple_future));
  BOOST_TEST(!list_ec);
  BOOST_TEST(left.size() == 0u);
  run.close_all();
  auto [after_ec, after_close] = test::get(observer.async_children(path, test::tuple_future));
  BOOST_TEST((after_ec == zk_errc::no_node || after_close.names.empty()));

  const auto grants = run.grants();
  for (const auto& f : run.failures()) BOOST_ERROR("client " << f.client << ": " << f.what);
  BOOST_TEST(grants.size() > 100u);
  BOOST_TEST(store.read("counter") == static_cast<std::int64_t>(grants.size()));  // no lost update
  BOOST_TEST(store.accepted_writes("counter") == static_cast<std::int64_t>(grants.size()));
  BOOST_TEST(store.rejected() == 0u);
  BOOST_TEST(store.stale_accepted() == 0u);
  BOOST_TEST(run.overlaps() == 0);
  BOOST_TEST(run.tokens_strictly_increase());
  BOOST_TEST(most_nodes_per_session <= 1u);
  const auto per_client = run.acquisitions_per_client();
  for (std::size_t i = 0; i < per_client.size(); ++i)
    BOOST_TEST(per_client[i] > 0, "client " << i << " acquired " << per_client[i] << " times");

  const auto handoffs = run.handoffs();
  BOOST_TEST_MESSAGE("grants=" << grants.size() << " rate=" << grants.size() / 30.0
                               << "/s handoff p50=" << test::quantile_ms(handoffs, 0.5)
                               << "ms p99=" << test::quantile_ms(handoffs, 0.99)
                               << "ms max=" << test::quantile_ms(handoffs, 1.0) << "ms");
}
