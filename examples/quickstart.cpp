// SPDX-License-Identifier: Apache-2.0
// Quickstart: the program to read first. One session, a node, a watch and a multi, with every
// error reported (exit status 1). docs/getting-started.md shows the region between the snippet
// markers; test/docs runs it against a real ZooKeeper.
//   zkcoord_quickstart [CONNECT]    CONNECT: argv[1], else $ZKCOORD_CONNECT, else a throwaway
//                                   local ZooKeeper (zkcoord::testing::server) for the run
// [snippet:session_tour]
#include <zkcoord/session.hpp>
#include <zkcoord/testing/server.hpp>  // only for the throwaway local ZooKeeper

#include <boost/asio.hpp>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;

asio::awaitable<void> tour(zkcoord::session& zk) {
  co_await zk.async_connect(asio::use_awaitable);

  // Ephemeral: the node goes with the session, so the tour can run again at once.
  // create returns the new node's Stat: stat.czxid is what fencing tokens are made of.
  auto node = co_await zk.async_create("/quickstart", "v1", {zkcoord::create_mode::ephemeral},
                                       asio::use_awaitable);
  std::cout << "created " << node.path << " czxid=" << node.stat.czxid << "\n";

  // One-shot watch armed by a read; delivered once, as a completion.
  zkcoord::watch changed;
  auto data = co_await zk.async_get(node.path, changed, asio::use_awaitable);
  co_await zk.async_set(node.path, "v2", data.stat.version, asio::use_awaitable);
  auto event = co_await changed.async_wait(asio::use_awaitable);
  std::cout << "watch fired: " << event.type << " " << event.path << "\n";

  // Atomic multi: commits only if the check holds (the set above made the version 1).
  std::vector<zkcoord::multi_op> ops{zkcoord::op::check{node.path, 1},
                                     zkcoord::op::set{node.path, "v3"}};
  auto results = co_await zk.async_multi(std::move(ops), asio::use_awaitable);
  std::cout << "multi committed: version " << results[1].stat.version << "\n";
}

int main(int argc, char** argv) {
  std::unique_ptr<zkcoord::testing::server> local;
  std::string connect = argc > 1 ? argv[1] : "";
  if (connect.empty() && std::getenv("ZKCOORD_CONNECT")) connect = std::getenv("ZKCOORD_CONNECT");
  if (connect.empty()) {
    local = std::make_unique<zkcoord::testing::server>();
    connect = local->connect_string();
  }

  asio::io_context io;
  zkcoord::session zk(io.get_executor(), {.connect = connect, .session_timeout = 10s});
  auto states =
      zk.subscribe([](zkcoord::session_state s) { std::cout << "session " << s << "\n"; });
  int status = 0;
  // Not asio::detached: it would drop the exception use_awaitable throws on the first error.
  asio::co_spawn(io, tour(zk), [&](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const std::exception& e) {
      std::cerr << "quickstart: " << e.what() << "\n";
      status = 1;
    }
    zk.close();  // ends the session, so io.run() returns
  });
  io.run();
  return status;
}
// [end snippet]
