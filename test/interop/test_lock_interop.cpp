// SPDX-License-Identifier: Apache-2.0
// Interoperability: zkcoord contenders, Apache Curator InterProcessMutex programs (Java) and
// kazoo Lock programs (Python) contend on ONE lock path; every critical section increments a
// counter in a shared cross-process fence store and marks its entry and exit there. Asserted:
// no two contenders ever inside at once, no lost increment, no rejected write, tokens
// strictly increase across implementations, everyone got the lock, no node left behind.
// The Java and Python programs are in test/interop/; Java is compiled here at test time.
// Missing java, javac, python3 or kazoo FAILS the test (scripts/install-deps installs them).
#include <zkcoord/lock.hpp>

#include <zkcoord/testing/test_cluster.hpp>

#include "support/file_fence_store.hpp"
#include "support/io_thread.hpp"
#include "support/piped_child.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE lock_interop
#include <boost/test/unit_test.hpp>

#include "support/curator_java.hpp"
#include "testing/temp_dir.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {

const fs::path sources = ZKCOORD_INTEROP_SOURCES;
const fs::path work = ZKCOORD_INTEROP_WORK;
const char* python = "/usr/bin/python3";

std::string java_classpath() {
  return test::curator_classpath(work / "classes");
}

// Fails the test (never skips) when a peer runtime is missing; compiles the Curator program.
void prepare_peers(bool need_java) {
  BOOST_REQUIRE_MESSAGE(
      std::system((std::string(python) + " -c 'import kazoo' 2>/dev/null").c_str()) == 0,
      "python3-kazoo is missing: run scripts/install-deps");
  if (!need_java) return;
  test::compile_curator_program(sources / "CuratorContender.java", work / "classes");
}

// One zkcoord contender: the same critical section as the Java and Python programs.
asio::awaitable<void> zkcoord_contender(session& s, std::string path, test::file_fence_store& store,
                                        std::string name, std::chrono::seconds duration,
                                        long& cycles, std::string& error) {
  constexpr auto tuple = asio::as_tuple(asio::use_awaitable);
  lock l(s, path, {.app_id = name});
  asio::steady_timer timer(co_await asio::this_coro::executor);
  std::mt19937 rng(std::hash<std::string>{}(name));
  const auto deadline = std::chrono::steady_clock::now() + duration;
  while (std::chrono::steady_clock::now() < deadline) {
    auto [ec, held] = co_await l.async_acquire(tuple);
    if (ec) {
      error = "acquire: " + ec.message();
      co_return;
    }
    const auto token = held.token().value();
    store.enter(token, name);
    const auto value = store.read(token, name);
    timer.expires_after(std::chrono::milliseconds(rng() % 11));
    co_await timer.async_wait(tuple);
    store.write(token, value + 1, name);
    store.exit(token, name);
    if (auto [release_ec] = co_await held.async_release(tuple); release_ec) {
      error = "release: " + release_ec.message();
      co_return;
    }
    ++cycles;
  }
}

long reported_cycles(const std::string& line) {
  const auto at = line.find("cycles=");
  return at == std::string::npos ? -1 : std::stol(line.substr(at + 7));
}

// Runs `zkcoord_count` zkcoord contenders in this process next to `peers` (argv prefixes to
// which the connect string, path, store, seconds and name are appended) and checks the shared
// history.
void contend(const std::vector<std::pair<std::string, std::vector<std::string>>>& peers,
             int zkcoord_count, std::chrono::seconds duration) {
  testing::test_cluster cluster;
  testing::detail::temp_dir dir("zkcoord-interop-");
  test::file_fence_store store(dir.path());
  const std::string path = testing::unique_path("interop");

  std::vector<std::unique_ptr<test::piped_child>> children;
  for (const auto& [name, argv] : peers) {
    auto full = argv;
    full.insert(full.end(), {cluster.connect_string(), path, dir.path().string(),
                             std::to_string(duration.count()), name});
    children.push_back(std::make_unique<test::piped_child>(full));
  }

  test::io_thread io;
  std::vector<std::unique_ptr<session>> sessions;
  std::vector<long> cycles(zkcoord_count, 0);
  std::vector<std::string> errors(zkcoord_count);
  std::vector<std::future<void>> done;
  for (int i = 0; i < zkcoord_count; ++i) {
    sessions.push_back(std::make_unique<session>(
        io.executor(), session_options{.connect = cluster.connect_string()}));
    test::get(sessions.back()->async_connect(asio::use_future));
  }
  for (int i = 0; i < zkcoord_count; ++i)
    done.push_back(
        asio::co_spawn(io.executor(),
                       zkcoord_contender(*sessions[i], path, store, "zkcoord-" + std::to_string(i),
                                         duration + 3s, cycles[i], errors[i]),
                       asio::use_future));

  long total = 0;
  for (std::size_t i = 0; i < children.size(); ++i) {
    const auto line = children[i]->read_line(duration + 90s);
    BOOST_TEST_CONTEXT(peers[i].first) {
      BOOST_REQUIRE_MESSAGE(line.has_value(), "no result from " << peers[i].first);
      BOOST_TEST_MESSAGE(*line);
      BOOST_TEST(reported_cycles(*line) > 0);
      BOOST_TEST(children[i]->wait_exit(30s).value_or(-1) == 0);
      total += std::max(0L, reported_cycles(*line));
    }
  }
  for (int i = 0; i < zkcoord_count; ++i) {
    test::get(done[i], duration + 90s);
    BOOST_TEST(errors[i].empty(), "zkcoord-" << i << ": " << errors[i]);
    BOOST_TEST(cycles[i] > 0, "zkcoord-" << i << " never got the lock");
    BOOST_TEST_MESSAGE("zkcoord-" << i << " cycles=" << cycles[i]);
    total += cycles[i];
  }

  const auto state = store.snapshot();
  BOOST_TEST(state.max_inside == 1);  // never two contenders inside at once
  BOOST_TEST(state.inside == 0);
  BOOST_TEST(state.rejected == 0);
  BOOST_TEST(state.accepted == total);
  BOOST_TEST(state.value == total);  // no lost increment
  std::int64_t last_token = 0;
  std::size_t entries = 0;
  for (const auto& line : store.log_lines()) {
    if (line.rfind("enter ", 0) != 0) continue;
    const auto token = std::stoll(line.substr(6));
    BOOST_TEST(token > last_token, "token went back at: " << line);
    last_token = token;
    ++entries;
  }
  BOOST_TEST(entries == static_cast<std::size_t>(total));
  auto [ec, left] = test::get(sessions[0]->async_children(path, test::tuple_future));
  BOOST_TEST((ec == zk_errc::no_node || left.names.empty()));
}

std::vector<std::string> curator(const std::string&) {
  return {"java", "-cp", java_classpath(), "CuratorContender"};
}
std::vector<std::string> kazoo(const std::string& style) {
  return {python, (sources / "kazoo_contender.py").string(), style};
}

}  // namespace

// Curator and zkcoord name nodes "<prefix>-lock-<seq>"; kazoo does too here (its Lock with
// Curator's node name), because Curator orders every child by the text after "lock-".
BOOST_AUTO_TEST_CASE(zkcoord_curator_and_kazoo_on_one_lock) {
  prepare_peers(true);
  contend({{"curator-0", curator("")},
           {"curator-1", curator("")},
           {"kazoo-0", kazoo("curator")},
           {"kazoo-1", kazoo("curator")}},
          3, 20s);
}

// kazoo's own "__lock__" nodes (extra_lock_patterns=["-lock-"] makes kazoo see ours): zkcoord
// orders both kinds.
BOOST_AUTO_TEST_CASE(zkcoord_and_kazoo_with_its_own_node_names) {
  prepare_peers(false);
  contend({{"kazoo-0", kazoo("kazoo")}, {"kazoo-1", kazoo("kazoo")}}, 3, 10s);
}
