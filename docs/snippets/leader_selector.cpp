// SPDX-License-Identifier: Apache-2.0
// docs/leader_selector.md's program: a leader_selector whose handler runs each term in a
// coroutine, stopping when its work is done or the term's lost signal fires, whichever is first.
//   zkcoord_snippet_leader_selector CONNECT
#include <zkcoord/leader_selector.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>

#include <iostream>

#include "run_on_session.hpp"

namespace asio = boost::asio;

// [snippet:term]
// One term: work until done or until the term is lost, whichever comes first. The term ends
// when `term` is destroyed (here: when the coroutine returns); the next participant leads.
asio::awaitable<void> lead(zkcoord::leader_term term) {
  std::cout << "leading, term token " << term.token() << "\n";
  using namespace asio::experimental::awaitable_operators;
  asio::steady_timer work(co_await asio::this_coro::executor, std::chrono::seconds(2));
  auto first = co_await (work.async_wait(asio::as_tuple(asio::use_awaitable)) ||
                         term.async_wait_lost(asio::as_tuple(asio::use_awaitable)));
  if (first.index() == 1)  // lock_lost, session_expired, connection_loss (suspended), ...
    std::cout << "term lost: " << std::get<0>(std::get<1>(first)).message() << "\n";
  else
    std::cout << "work done, letting go\n";
}
// [end snippet]

// [snippet:selector]
asio::awaitable<void> take_turns(zkcoord::session& zk) {
  // Each term runs in its own coroutine; the handler returns at once.
  auto on_term = [&zk](zkcoord::leader_term term) {
    asio::co_spawn(zk.get_executor(), lead(std::move(term)), asio::detached);
  };
  // Curator's LeaderSelector layout: "_c_<uuid>-lock-<seq>" nodes holding "worker-1".
  // Without auto-requeue: one term, then async_run completes.
  zkcoord::leader_selector selector(zk, "/jobs/leader", "worker-1", on_term,
                                    {.auto_requeue = false});
  co_await selector.async_run();
}
// [end snippet]

int main(int argc, char** argv) {
  return snippet::run_on_session(argc, argv, "zkcoord_snippet_leader_selector CONNECT",
                                 [](zkcoord::session& zk) { return take_turns(zk); });
}
