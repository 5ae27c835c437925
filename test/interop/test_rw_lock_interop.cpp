// SPDX-License-Identifier: Apache-2.0
// Interoperability of the read-write lock: Apache Curator InterProcessReadWriteLock programs
// (Java, test/interop/CuratorReadWrite.java, compiled here at test time against Debian's jars)
// and zkcoord read_write_locks take the read or the write lock on ONE path for some seconds,
// marking every critical section in a shared cross-process occupancy store. Asserted: no
// writer was ever inside with anyone else and no reader with a writer, readers did share,
// across the two implementations too, every contender read and wrote, no node left behind.
// Missing java, javac or the Curator jars FAILS the test (scripts/install-deps installs them).
#include <zkcoord/rw_lock.hpp>

#include <zkcoord/testing/test_cluster.hpp>

#include "support/io_thread.hpp"
#include "support/piped_child.hpp"
#include "support/rw_occupancy_store.hpp"
#include "support/rw_workload.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE rw_lock_interop
#include <boost/test/unit_test.hpp>

#include "support/curator_java.hpp"
#include "testing/temp_dir.hpp"

#include <unistd.h>

#include <filesystem>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {

const fs::path sources = ZKCOORD_INTEROP_SOURCES;
const fs::path work = ZKCOORD_INTEROP_WORK;

// "NAME reads=R writes=W" -> {R, W}, or {-1, -1}.
std::pair<long, long> reported(const std::string& line) {
  const auto r = line.find("reads="), w = line.find("writes=");
  if (r == std::string::npos || w == std::string::npos) return {-1, -1};
  return {std::stol(line.substr(r + 6)), std::stol(line.substr(w + 7))};
}

}  // namespace

BOOST_AUTO_TEST_CASE(zkcoord_and_curator_readers_and_writers_on_one_path) {
  constexpr int curator_count = 2, zkcoord_count = 3;
  constexpr auto duration = 12s;
  test::compile_curator_program(sources / "CuratorReadWrite.java", work / "classes");
  testing::test_cluster cluster;
  testing::detail::temp_dir dir("zkcoord-rw-interop-");
  test::rw_occupancy_store store(dir.path());
  const std::string path = testing::unique_path("rw-interop");

  std::vector<std::unique_ptr<test::piped_child>> curators;
  for (int i = 0; i < curator_count; ++i)
    curators.push_back(std::make_unique<test::piped_child>(std::vector<std::string>{
        "java", "-cp", test::curator_classpath(work / "classes"), "CuratorReadWrite",
        cluster.connect_string(), path, dir.path().string(), std::to_string(duration.count()),
        "curator-" + std::to_string(i)}));

  test::io_thread io;
  std::vector<std::unique_ptr<session>> sessions;
  std::vector<test::rw_cycles> cycles(zkcoord_count);
  std::vector<std::future<void>> done;
  // The JVMs take a second or two to start: run a little longer, so the two overlap.
  const auto deadline = std::chrono::steady_clock::now() + duration + 2s;
  for (int i = 0; i < zkcoord_count; ++i) {
    sessions.push_back(std::make_unique<session>(
        io.executor(), session_options{.connect = cluster.connect_string()}));
    test::get(sessions.back()->async_connect(asio::use_future));
    const std::string who = "zkcoord-" + std::to_string(i);
    done.push_back(asio::co_spawn(
        io.executor(),
        test::rw_contender(
            *sessions.back(), path, who, static_cast<unsigned>(std::hash<std::string>{}(who)),
            [deadline] { return std::chrono::steady_clock::now() < deadline; },
            [&store, who](bool write, const held_lock&) { store.enter(write, who); },
            [&store, who](bool write) { store.exit(write, who); }, cycles[i]),
        asio::use_future));
  }

  long reads = 0, writes = 0;
  for (int i = 0; i < curator_count; ++i) {
    BOOST_TEST_CONTEXT("curator-" << i) {
      const auto line = curators[i]->read_line(duration + 90s);
      BOOST_REQUIRE_MESSAGE(line.has_value(), "no result from curator-" << i);
      BOOST_TEST_MESSAGE(*line);
      const auto [r, w] = reported(*line);
      BOOST_TEST(r > 0);
      BOOST_TEST(w > 0);
      BOOST_TEST(curators[i]->wait_exit(30s).value_or(-1) == 0);
      reads += std::max(0L, r), writes += std::max(0L, w);
    }
  }
  for (int i = 0; i < zkcoord_count; ++i) {
    test::get(done[i], duration + 90s);
    BOOST_TEST_CONTEXT("zkcoord-" << i) {
      BOOST_TEST(cycles[i].error.empty(), cycles[i].error);
      BOOST_TEST(cycles[i].reads > 0);
      BOOST_TEST(cycles[i].writes > 0);
    }
    BOOST_TEST_MESSAGE("zkcoord-" << i << " reads=" << cycles[i].reads
                                  << " writes=" << cycles[i].writes);
    reads += cycles[i].reads, writes += cycles[i].writes;
  }

  const auto state = store.snapshot();
  BOOST_TEST_MESSAGE("max readers inside " << state.max_readers << ", mixed shares "
                                           << state.mixed_shares);
  BOOST_TEST(state.violations == 0);   // never a writer with anyone else inside
  BOOST_TEST(state.max_readers >= 2);  // readers shared
  BOOST_TEST(state.mixed_shares > 0);  // a Curator and a zkcoord reader at once
  BOOST_TEST(state.reads == reads);
  BOOST_TEST(state.writes == writes);
  BOOST_TEST(state.zkcoord_readers + state.curator_readers + state.writers == 0);
  auto [ec, left] = test::get(sessions[0]->async_children(path, test::tuple_future));
  BOOST_TEST((ec == zk_errc::no_node || left.names.empty()));
}
