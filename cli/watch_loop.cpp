// SPDX-License-Identifier: Apache-2.0
#include "watch_loop.hpp"

#include "chroot_check.hpp"
#include "exit_code.hpp"
#include "zookeeper_errors.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <signal.h>

#include <chrono>
#include <exception>

namespace asio = boost::asio;

namespace zkcoord::cli {
namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
// How long a signal waits for the watch to end after the session is closed.
constexpr std::chrono::seconds close_bound{5};

asio::awaitable<void> show(session& zk, const command_line& cl, const make_show_next& make) {
  auto [ec] = co_await zk.async_connect(use_tuple);
  if (ec) throw error_for(ec, "cannot connect to " + cl.global.connect);
  // Through a missing chroot every path is missing: an empty listing would hide the mistake.
  auto [root_ec, root] = co_await zk.async_exists("/", use_tuple);
  if (auto e = chroot_error(root_ec, root, cl.global.connect)) throw *e;
  show_next next = make(zk);
  do {
    co_await next();
  } while (cl.watch);
}

}  // namespace

int run_watch_loop(const command_line& cl, session_options options, const make_show_next& make) {
  asio::io_context io;
  session zk(io.get_executor(), std::move(options));
  std::exception_ptr failure;
  bool interrupted = false;
  asio::signal_set stop(io, SIGINT, SIGTERM, SIGHUP);
  asio::steady_timer give_up(io);
  stop.async_wait([&](error_code ec, int) {
    if (ec) return;
    interrupted = true;  // --watch ends here, with status 0
    // Closing ends the watch with an error (ignored below) and the loop runs out of work once
    // the coroutine and what it holds are gone. Stopping the loop at once would leave them
    // alive: a coroutine waiting on the session holds the session that holds its wait.
    zk.close();
    give_up.expires_after(close_bound);
    give_up.async_wait([&](error_code timer_ec) {
      if (!timer_ec) io.stop();
    });
  });
  asio::co_spawn(io, show(zk, cl, make), [&](std::exception_ptr e) {
    failure = e;
    stop.cancel();
    give_up.cancel();
    zk.close();
  });
  io.run();
  if (failure && !interrupted) std::rethrow_exception(failure);
  return exit_code::ok;
}

}  // namespace zkcoord::cli
