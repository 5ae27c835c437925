// Quickstart: one session, a node, a watch and a fenced-style multi, against $ZKCOORD_CONNECT
// or a throwaway local ZooKeeper started for the run.
#include <zkcoord/session.hpp>
#include <zkcoord/testing/server.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdlib>
#include <iostream>
#include <memory>

namespace asio = boost::asio;
using namespace std::chrono_literals;

asio::awaitable<void> tour(zkcoord::session& zk) {
  co_await zk.async_connect(asio::use_awaitable);
  std::cout << "connected: session 0x" << std::hex << zk.session_id() << std::dec << "\n";
  auto node = co_await zk.async_create("/quickstart", "v1", {zkcoord::create_mode::ephemeral},
                                       asio::use_awaitable);
  std::cout << "created " << node.path << " czxid=" << zkcoord::fencing_token(node.stat.czxid)
            << "\n";
  zkcoord::watch changed;
  auto data = co_await zk.async_get(node.path, changed, asio::use_awaitable);
  co_await zk.async_set(node.path, "v2", data.stat.version, asio::use_awaitable);
  auto event = co_await changed.async_wait(asio::use_awaitable);
  std::cout << "watch fired: " << event.type << " " << event.path << "\n";
  std::vector<zkcoord::multi_op> ops{zkcoord::op::check{node.path, data.stat.version + 1},
                                     zkcoord::op::set{node.path, "v3"}};
  auto results = co_await zk.async_multi(std::move(ops), asio::use_awaitable);
  std::cout << "multi committed; version now " << results[1].stat.version << "\n";
}

int main() {
  std::unique_ptr<zkcoord::testing::server> local;
  std::string connect = std::getenv("ZKCOORD_CONNECT") ? std::getenv("ZKCOORD_CONNECT") : "";
  if (connect.empty()) {
    local = std::make_unique<zkcoord::testing::server>();
    connect = local->connect_string();
    std::cout << "started a local ZooKeeper at " << connect << "\n";
  }
  asio::io_context io;
  zkcoord::session zk(io.get_executor(), {.connect = connect, .session_timeout = 10s});
  int status = 0;
  asio::co_spawn(io, tour(zk), [&](std::exception_ptr e) {
    if (e) {
      try {
        std::rethrow_exception(e);
      } catch (const std::exception& ex) {
        std::cerr << "error: " << ex.what() << "\n";
        status = 1;
      }
    }
    zk.close();
  });
  io.run();
  return status;
}
