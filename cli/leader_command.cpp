// SPDX-License-Identifier: Apache-2.0
#include "leader_command.hpp"

#include "chroot_check.hpp"
#include "exit_code.hpp"
#include "leader_format.hpp"
#include "zookeeper_errors.hpp"
#include "zookeeper_session.hpp"

#include <zkcoord/election.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <signal.h>

#include <exception>
#include <iostream>

namespace asio = boost::asio;

namespace zkcoord::cli {
namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

void print(const command_line& cl, const std::vector<participant>& all) {
  std::cout << (cl.json ? format_leader_json(cl.path, all) : format_leader_text(cl.path, all))
            << std::flush;
}

asio::awaitable<void> show_leader(session& zk, const command_line& cl) {
  auto [ec] = co_await zk.async_connect(use_tuple);
  if (ec) throw error_for(ec, "cannot connect to " + cl.global.connect);
  // Through a missing chroot every path is missing: "no leader" would hide the mistake.
  auto [root_ec, root] = co_await zk.async_exists("/", use_tuple);
  if (auto e = chroot_error(root_ec, root, cl.global.connect)) throw *e;
  if (!cl.watch) {
    auto [pec, all] = co_await async_participants(zk, cl.path, use_tuple);
    if (pec) throw error_for(pec, "cannot list the participants of " + cl.path);
    print(cl, all);
    co_return;
  }
  // The observer's first wait answers at once with the current participants; each later one
  // with the next change, armed before the read it covers, so no change is missed between.
  election_observer observer(zk, cl.path);
  for (;;) {
    auto [wec, all] = co_await observer.async_wait_change(use_tuple);
    if (wec) throw error_for(wec, "cannot watch the participants of " + cl.path);
    print(cl, all);
  }
}

}  // namespace

int run_leader_command(const command_line& cl) {
  asio::io_context io;
  session zk(io.get_executor(), make_session_options(cl.global, make_logger(cl.global.verbose)));
  std::exception_ptr failure;
  bool interrupted = false;
  asio::signal_set stop(io, SIGINT, SIGTERM, SIGHUP);
  stop.async_wait([&](error_code ec, int) {
    if (ec) return;
    interrupted = true;  // --watch ends here, with status 0
    zk.close();
    io.stop();
  });
  asio::co_spawn(io, show_leader(zk, cl), [&](std::exception_ptr e) {
    failure = e;
    stop.cancel();
    zk.close();
  });
  io.run();
  if (failure && !interrupted) std::rethrow_exception(failure);
  return exit_code::ok;
}

}  // namespace zkcoord::cli
