// SPDX-License-Identifier: Apache-2.0
#include "locks_command.hpp"

#include "chroot_check.hpp"
#include "exit_code.hpp"
#include "locks_format.hpp"
#include "zookeeper_errors.hpp"
#include "zookeeper_session.hpp"

#include <zkcoord/lock.hpp>
#include <zkcoord/path.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <exception>
#include <iostream>
#include <optional>
#include <set>

namespace asio = boost::asio;

namespace zkcoord::cli {
namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

// Depth-first, one path at a time: a listing tool need not be fast, and sequential requests
// keep the load on the ensemble small. Lock nodes are ephemeral (no children), so only the
// other children are descended into.
asio::awaitable<void> collect(session& zk, std::string path, std::vector<lock_listing>& out) {
  auto [ec, contenders] = co_await async_contenders(zk, path, use_tuple);
  if (ec == zk_errc::no_node) co_return;  // vanished while we walked
  if (ec) throw error_for(ec, "cannot list the contenders of " + path);
  std::set<std::string> lock_nodes;
  for (const auto& c : contenders) lock_nodes.insert(c.node);
  if (!contenders.empty()) out.push_back({path, std::move(contenders)});

  auto [cec, children] = co_await zk.async_children(path, use_tuple);
  if (cec == zk_errc::no_node) co_return;
  if (cec) throw error_for(cec, "cannot list the children of " + path);
  std::sort(children.names.begin(), children.names.end());
  for (const auto& name : children.names) {
    std::string child = join_path(path, name);
    // Lock nodes are leaves; /zookeeper is the server's own (quotas, config).
    if (lock_nodes.count(name) || child == "/zookeeper") continue;
    co_await collect(zk, std::move(child), out);
  }
}

asio::awaitable<void> list_locks(session& zk, const command_line& cl,
                                 std::vector<lock_listing>& out) {
  auto [ec] = co_await zk.async_connect(use_tuple);
  if (ec) throw error_for(ec, "cannot connect to " + cl.global.connect);
  // Through a missing chroot every path is missing: "no locks" would hide the mistake.
  auto [root_ec, root] = co_await zk.async_exists("/", use_tuple);
  if (auto e = chroot_error(root_ec, root, cl.global.connect)) throw *e;
  co_await collect(zk, cl.path, out);
}

}  // namespace

int run_locks_command(const command_line& cl) {
  asio::io_context io;
  session zk(io.get_executor(), make_session_options(cl.global, make_logger(cl.global.verbose)));
  std::vector<lock_listing> locks;
  std::exception_ptr failure;
  asio::co_spawn(io, list_locks(zk, cl, locks), [&](std::exception_ptr e) {
    failure = e;
    zk.close();
  });
  io.run();
  if (failure) std::rethrow_exception(failure);
  std::cout << (cl.json ? format_locks_json(locks) : format_locks_text(locks)) << std::flush;
  if (locks.empty() && !cl.json) report("no locks at or under " + cl.path);
  return exit_code::ok;
}

}  // namespace zkcoord::cli
