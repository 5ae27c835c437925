// SPDX-License-Identifier: Apache-2.0
// Builds against zkcoord as a user's program does (CMake or pkg-config).
//   consumer            checks error conditions and path validation, no server needed
//   consumer CONNECT    also takes a lock on /zkcoord-consumer and prints its fencing token
#include <zkcoord/error.hpp>
#include <zkcoord/lock.hpp>
#include <zkcoord/path.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <exception>
#include <iostream>
#include <string>

namespace asio = boost::asio;
using namespace std::chrono_literals;

asio::awaitable<void> take_lock(zkcoord::session& zk) {
  co_await zk.async_connect(asio::use_awaitable);
  zkcoord::lock lock(zk, "/zkcoord-consumer/lock");
  zkcoord::held_lock held = co_await lock.async_acquire(30s, asio::use_awaitable);
  std::cout << "token " << held.token().value() << " node " << held.path() << "\n";
  co_await held.async_release(asio::use_awaitable);
}

int main(int argc, char** argv) {
  const bool ok =
      !zkcoord::path_problem("/a/").empty() &&
      make_error_code(zkcoord::zk_errc::operation_timeout) == zkcoord::condition::connection_loss &&
      make_error_code(zkcoord::zk_errc::no_node) == zkcoord::condition::not_found &&
      zkcoord::testing::unique_path("consumer").find("consumer") != std::string::npos;
  std::cout << (ok ? "consumer ok" : "consumer broken") << "\n";
  if (!ok || argc < 2) return ok ? 0 : 1;

  asio::io_context io;
  zkcoord::session zk(io.get_executor(), {.connect = argv[1], .session_timeout = 10s});
  int status = 0;
  asio::co_spawn(io, take_lock(zk), [&](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const std::exception& e) {
      std::cerr << "consumer: " << e.what() << "\n";
      status = 1;
    }
    zk.close();
  });
  io.run();
  return status;
}
