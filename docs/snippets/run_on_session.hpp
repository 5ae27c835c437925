// SPDX-License-Identifier: Apache-2.0
// The main() of the docs' example programs: a session to the connect string in argv[1], one
// coroutine run on it, the session closed. Exit status 64 when argv[1] is missing, 1 when the
// coroutine throws (the message on stderr), 0 otherwise.
#pragma once

#include <zkcoord/session.hpp>

#include <boost/asio.hpp>

#include <exception>
#include <functional>
#include <iostream>

namespace snippet {

inline int run_on_session(int argc, char** argv, const char* usage,
                          std::function<boost::asio::awaitable<void>(zkcoord::session&)> body) {
  if (argc < 2) {
    std::cerr << "usage: " << usage << "\n";
    return 64;
  }
  boost::asio::io_context io;
  zkcoord::session zk(io.get_executor(), {.connect = argv[1]});
  int status = 0;
  boost::asio::co_spawn(
      io,
      [&]() -> boost::asio::awaitable<void> {
        co_await zk.async_connect();
        co_await body(zk);
      },
      [&](std::exception_ptr e) {
        if (e) {
          try {
            std::rethrow_exception(e);
          } catch (const std::exception& x) {
            std::cerr << "error: " << x.what() << "\n";
          }
          status = 1;
        }
        zk.close();
      });
  io.run();
  return status;
}

}  // namespace snippet
