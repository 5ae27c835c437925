// SPDX-License-Identifier: Apache-2.0
// docs/persistent_nodes.md's program: a node kept present with persistent_node, its data
// updated, and a TTL node that the server reaps once the process stops touching it.
// Prints one line per step; exit status 1 on any unexpected result.
//   zkcoord_snippet_persistent_nodes CONNECT
#include <zkcoord/persistent_node.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio.hpp>

#include <chrono>
#include <iostream>

#include "run_on_session.hpp"

namespace asio = boost::asio;
using namespace std::chrono_literals;

// [snippet:kept]
asio::awaitable<void> announce(zkcoord::session& zk) {
  // Curator's PersistentNode: an ephemeral node that comes back after a deletion, a reconnect
  // (with our data) and a session expiry, until `node` is closed or destroyed.
  zkcoord::persistent_node node(zk, "/workers/worker-1", "starting",
                                {.mode = zkcoord::create_mode::ephemeral});
  co_await node.async_wait_for_initial_create(10s);
  co_await node.async_set_data("ready");  // in place: the node, its czxid stay
  std::cout << "announced at " << node.actual_path() << "\n";
  co_await node.async_close();  // deletes it
}
// [end snippet]

// [snippet:ttl]
asio::awaitable<void> leave_a_trace(zkcoord::session& zk) {
  // Curator's PersistentTtlNode: /traces/job-7 (a TTL node) and its `touch` child, touched
  // every ttl / 2. The server must run with -Dzookeeper.extendedTypesEnabled=true, else this
  // throws errc::ttl_nodes_disabled.
  zkcoord::persistent_ttl_node trace(zk, "/traces/job-7", 30s, "running");
  co_await trace.async_wait_for_initial_create(10s);
  std::cout << "trace kept while we run; gone about 30-60 s after we stop\n";
}
// [end snippet]

int main(int argc, char** argv) {
  return snippet::run_on_session(argc, argv, "zkcoord_snippet_persistent_nodes CONNECT",
                                 [](zkcoord::session& zk) -> asio::awaitable<void> {
                                   co_await announce(zk);
                                   co_await leave_a_trace(zk);
                                 });
}
