// SPDX-License-Identifier: Apache-2.0
#include "members_command.hpp"

#include "chroot_check.hpp"
#include "exit_code.hpp"
#include "members_format.hpp"
#include "zookeeper_errors.hpp"
#include "zookeeper_session.hpp"

#include <zkcoord/membership.hpp>
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

asio::awaitable<void> show_members(session& zk, const command_line& cl) {
  auto [ec] = co_await zk.async_connect(use_tuple);
  if (ec) throw error_for(ec, "cannot connect to " + cl.global.connect);
  // Through a missing chroot every path is missing: "no members" would hide the mistake.
  auto [root_ec, root] = co_await zk.async_exists("/", use_tuple);
  if (auto e = chroot_error(root_ec, root, cl.global.connect)) throw *e;
  // The view's first wait answers once the group is read; each later one with the next
  // change, its watches armed before the read they cover, so no change is missed between.
  group_view view(zk, cl.path);
  std::vector<member_info> shown;
  for (bool first = true;; first = false) {
    auto [wec, members] = co_await view.async_wait_change(use_tuple);
    if (wec) throw error_for(wec, "cannot list the members of " + cl.path);
    if (cl.json)
      std::cout << format_members_json(cl.path, members);
    else
      std::cout << (first ? format_members_text(cl.path, members)
                          : format_member_changes_text(shown, members));
    std::cout << std::flush;
    if (!cl.watch) co_return;
    shown = std::move(members);
  }
}

}  // namespace

int run_members_command(const command_line& cl) {
  asio::io_context io;
  session_options options = make_session_options(cl.global, make_logger(cl.global.verbose));
  // A watcher outlives an expiry: the view reads the group again on the next session.
  options.renew_after_expiry = cl.watch;
  session zk(io.get_executor(), std::move(options));
  std::exception_ptr failure;
  bool interrupted = false;
  asio::signal_set stop(io, SIGINT, SIGTERM, SIGHUP);
  stop.async_wait([&](error_code ec, int) {
    if (ec) return;
    interrupted = true;  // --watch ends here, with status 0
    zk.close();
    io.stop();
  });
  asio::co_spawn(io, show_members(zk, cl), [&](std::exception_ptr e) {
    failure = e;
    stop.cancel();
    zk.close();
  });
  io.run();
  if (failure && !interrupted) std::rethrow_exception(failure);
  return exit_code::ok;
}

}  // namespace zkcoord::cli
