// SPDX-License-Identifier: Apache-2.0
// Shared pieces of the lock's integration tests: connected sessions on their own io threads
// against one server per test file, and small blocking helpers.
#pragma once

#include <zkcoord/lock.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include "support/io_thread.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace zkcoord::test {

/// The file's server, set by a global fixture of the test file.
inline testing::test_cluster*& lock_cluster() {
  static testing::test_cluster* cluster = nullptr;
  return cluster;
}

/// The global fixture of a lock test file: one server (or $ZKCOORD_TEST_CONNECT) for the file.
struct lock_server {
  lock_server() { lock_cluster() = &cluster; }
  testing::test_cluster cluster;
};

/// One connected session with its own io thread (a separate client, as far as ZooKeeper is
/// concerned).
struct client {
  explicit client(std::chrono::milliseconds timeout = std::chrono::milliseconds(4000),
                  std::string connect = {}) {
    session_options o;
    o.connect = connect.empty() ? lock_cluster()->connect_string() : std::move(connect);
    o.session_timeout = timeout;
    s = std::make_unique<session>(io.executor(), o);
    get(s->async_connect(boost::asio::use_future));
  }
  io_thread io;
  std::unique_ptr<session> s;
};

using acquire_result = std::tuple<error_code, held_lock>;

/// Blocks until the acquire completes.
inline acquire_result acquire(lock& l) {
  return get(l.async_acquire(tuple_future));
}

/// The lock nodes under `lock_path` in grant order (empty when the path is gone).
inline std::vector<contender> contenders_of(session& s, const std::string& lock_path) {
  auto [ec, list] = get(async_contenders(s, lock_path, tuple_future));
  BOOST_REQUIRE_MESSAGE(!ec, "async_contenders: " << ec.message());
  return std::move(list);
}

/// Polls `pred` every 10 ms until it holds or `bound` passed; returns whether it held.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds bound = std::chrono::milliseconds(5000)) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

/// Waits until `count` contenders are queued on `lock_path`.
inline bool contenders_reach(session& s, const std::string& lock_path, std::size_t count) {
  return eventually([&] { return contenders_of(s, lock_path).size() == count; });
}

inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace zkcoord::test
