// SPDX-License-Identifier: Apache-2.0
// What a session costs in threads. On libzookeeper_st (-DZKCOORD_ZK_CLIENT=st) a session has no
// thread of its own: the session's executor drives the C client (docs/session.md, "Threading
// model"). On libzookeeper_mt the C client runs an I/O thread and a completion thread per
// session, as docs/session.md says.
#include <zkcoord/session.hpp>

#include <zkcoord/testing/test_cluster.hpp>

#include "support/io_thread.hpp"

#include <boost/asio/use_future.hpp>
#include "support/tuple_future.hpp"

#define BOOST_TEST_MODULE session_threads
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <filesystem>
#include <memory>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;

namespace {

std::size_t threads_of_this_process() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task"))
    ++n;
  return n;
}

#ifdef ZKCOORD_ZK_ST
constexpr std::size_t threads_per_session = 0;
#else
constexpr std::size_t threads_per_session = 2;
#endif

}  // namespace

BOOST_AUTO_TEST_CASE(sessions_on_one_io_context_create_the_documented_threads,
                     *boost::unit_test::timeout(120)) {
  testing::test_cluster cluster;
  test::io_thread io;
  constexpr std::size_t sessions = 32;
  const std::size_t before = threads_of_this_process();
  std::vector<std::unique_ptr<session>> all;
  for (std::size_t i = 0; i < sessions; ++i) {
    session_options o;
    o.connect = cluster.connect_string();
    o.session_timeout = 10s;
    all.push_back(std::make_unique<session>(io.executor(), o));
  }
  for (auto& s : all) {
    auto connected = s->async_connect(test::tuple_future);
    BOOST_TEST_REQUIRE(!std::get<0>(test::get(connected)));
  }
  // Every session works: a request on each, all in flight at once.
  std::vector<std::future<std::tuple<error_code, std::optional<node_stat>>>> replies;
  for (auto& s : all) replies.push_back(s->async_exists("/", test::tuple_future));
  for (auto& r : replies) BOOST_TEST(!std::get<0>(test::get(r)));
  BOOST_TEST(threads_of_this_process() - before == sessions * threads_per_session);
  for (auto& s : all) s->close();
  all.clear();
}
