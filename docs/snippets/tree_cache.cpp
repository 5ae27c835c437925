// SPDX-License-Identifier: Apache-2.0
// docs/cache.md's program: a tree cache of /config, read from its snapshot once whole, then
// its events taken with co_await until `count` of them came.
// Prints the tree, then one line per event.
//   zkcoord_snippet_tree_cache CONNECT [COUNT]
#include <zkcoord/cache.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio.hpp>

#include <cstdlib>
#include <iostream>

#include "run_on_session.hpp"

namespace asio = boost::asio;

// [snippet:follow]
asio::awaitable<void> follow_config(zkcoord::session& zk, int count) {
  zkcoord::tree_cache config(zk, "/config", {.max_depth = 2});
  co_await config.async_start();  // once every node below /config was read: the cache is whole
  for (const std::string& name : config.children("/config")) {
    std::optional<zkcoord::cached_node> node = config.get("/config/" + name);
    if (node)
      std::cout << name << " = " << node->data << " (version " << node->stat.version << ")\n";
  }
  for (int i = 0; i < count; ++i) {
    zkcoord::cache_event e = co_await config.async_next_event();
    std::cout << e.type << " " << e.path << "\n";  // added, updated, removed, suspended, ...
  }
}  // the cache's destructor removes its watches from the server
// [end snippet]

int main(int argc, char** argv) {
  const int count = argc > 2 ? std::atoi(argv[2]) : 0;
  return snippet::run_on_session(
      argc, argv, "zkcoord_snippet_tree_cache CONNECT [COUNT]",
      [count](zkcoord::session& zk) { return follow_config(zk, count); });
}
