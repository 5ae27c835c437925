// SPDX-License-Identifier: Apache-2.0
#include "common/session_runner.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <exception>
#include <iostream>

namespace examples {
namespace asio = boost::asio;

namespace {

asio::awaitable<int> connect_and_run(zkcoord::session& zk, const session_body& body) {
  co_await zk.async_connect(asio::use_awaitable);
  co_return co_await body(zk);
}

}  // namespace

int run_with_session(zkcoord::session_options options, session_body body) {
  asio::io_context io;
  zkcoord::session zk(io.get_executor(), std::move(options));
  int status = 1;
  bool done = false;
  asio::co_spawn(io, connect_and_run(zk, body), [&](std::exception_ptr error, int result) {
    done = true;
    status = result;
    if (error) {
      status = 1;
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << std::endl;
      }
    }
  });
  while (!done && io.run_one() > 0) {
  }
  zk.close();
  // Whatever the session still has in flight completes with `closed`; then run() returns
  // (a held or lost lock is not pending work).
  io.run();
  return status;
}

}  // namespace examples
