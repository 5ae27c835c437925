// SPDX-License-Identifier: Apache-2.0
#include "locks_command.hpp"

#include "exit_code.hpp"
#include "locks_format.hpp"
#include "watch_loop.hpp"
#include "zookeeper_errors.hpp"
#include "zookeeper_session.hpp"

#include <zkcoord/lock.hpp>
#include <zkcoord/path.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <algorithm>
#include <iostream>
#include <list>
#include <memory>
#include <optional>
#include <set>

namespace asio = boost::asio;

namespace zkcoord::cli {
namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

// --watch: one watch per path walked, each armed before the reads it covers, so that any
// change of the tree after the walk began fires one of them. A children watch fires when a
// child (a lock node, a subtree) comes or goes and when the path itself is deleted; an exists
// watch on a missing path fires when it is created.
struct tree_watches {
  std::list<watch> armed;  // a list: each stays where the session was told it is
  bool changed = false;    // something changed between two reads of the walk itself
};

// Whether `path` (missing) is still missing, with a watch on its creation.
asio::awaitable<void> watch_creation(session& zk, const std::string& path, tree_watches& w) {
  auto [ec, stat] = co_await zk.async_exists(path, w.armed.emplace_back(), use_tuple);
  if (ec) throw error_for(ec, "cannot watch " + path);
  if (stat) w.changed = true;
}

// Depth-first, one path at a time: a listing tool need not be fast, and sequential requests
// keep the load on the ensemble small. Lock nodes are ephemeral (no children), so only the
// other children are descended into.
asio::awaitable<void> collect(session& zk, std::string path, std::vector<lock_listing>& out,
                              tree_watches* watches) {
  if (watches) {
    auto [wec, ignored] =
        co_await zk.async_children(path, watches->armed.emplace_back(), use_tuple);
    if (wec == zk_errc::no_node) {
      watches->armed.pop_back();  // a read that failed armed nothing
      co_await watch_creation(zk, path, *watches);
      co_return;
    }
    if (wec) throw error_for(wec, "cannot watch the children of " + path);
  }
  auto [ec, contenders] = co_await async_contenders(zk, path, use_tuple);
  if (ec == zk_errc::no_node) co_return;  // vanished while we walked (a watch saw it)
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
    co_await collect(zk, std::move(child), out, watches);
  }
}

// Until one of the watches fires (or the session ends: the next walk then fails and says so).
asio::awaitable<void> wait_any(tree_watches& w) {
  if (w.changed) co_return;
  auto wake = std::make_shared<asio::steady_timer>(co_await asio::this_coro::executor,
                                                   asio::steady_timer::time_point::max());
  for (auto& one : w.armed) {
    if (!one.armed()) continue;  // its read failed: there is nothing to wait for
    one.async_wait([wake](error_code ec, const watch_event&) {
      if (ec != asio::error::operation_aborted) wake->cancel();
    });
  }
  co_await wake->async_wait(use_tuple);
}

void print(const command_line& cl, const std::vector<lock_listing>& locks) {
  if (cl.json) {
    std::cout << format_locks_json(locks);
  } else if (cl.watch) {
    // Each listing ends with a line of its own, so a reader sees where the next begins.
    std::cout << (locks.empty() ? "no locks at or under " + cl.path + "\n"
                                : format_locks_text(locks))
              << "--\n";
  } else {
    std::cout << format_locks_text(locks);
    if (locks.empty()) report("no locks at or under " + cl.path);
  }
  std::cout << std::flush;
}

show_next show_locks(session& zk, const command_line& cl) {
  // The watches of the listing last shown; the next call waits for one of them to fire.
  auto last = std::make_shared<std::optional<tree_watches>>();
  return [&zk, &cl, last]() -> asio::awaitable<void> {
    if (*last) co_await wait_any(**last);
    tree_watches fresh;
    std::vector<lock_listing> locks;
    co_await collect(zk, cl.path, locks, cl.watch ? &fresh : nullptr);
    // Destroying the old watches removes them from the client.
    *last = std::move(fresh);
    print(cl, locks);
  };
}

}  // namespace

int run_locks_command(const command_line& cl) {
  return run_watch_loop(cl, make_session_options(cl.global, make_logger(cl.global.verbose)),
                        [&cl](session& zk) { return show_locks(zk, cl); });
}

}  // namespace zkcoord::cli
