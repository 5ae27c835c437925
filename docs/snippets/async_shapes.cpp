// SPDX-License-Identifier: Apache-2.0
// docs/async.md's program: the same operations with a callback, a future and a coroutine (with
// the default completion token and with as_tuple), and errors tested against conditions.
// Prints one line per step; exit status 1 on any unexpected result.
//   zkcoord_snippet_async_shapes CONNECT
#include <zkcoord/lock.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio.hpp>

#include <future>
#include <iostream>
#include <optional>
#include <thread>

namespace asio = boost::asio;
using namespace std::chrono_literals;

// [snippet:conditions]
const char* what_to_do(zkcoord::error_code ec) {
  if (!ec) return "done";
  if (ec == zkcoord::condition::connection_loss) return "outcome unknown: check, then retry";
  if (ec == zkcoord::condition::not_found) return "the node is not there";
  if (ec == zkcoord::condition::permanent) return "fix the call: retrying cannot succeed";
  return "see ec.message()";
}
// [end snippet]

// [snippet:coroutine]
asio::awaitable<void> with_coroutines(zkcoord::session& zk) {
  // No token: the default (asio::deferred) is awaited; errors are thrown as system_error.
  zkcoord::created_node made = co_await zk.async_create("/shapes", "hello", {});
  zkcoord::node_data read = co_await zk.async_get(made.path);
  std::cout << "coroutine: read " << read.data << "\n";

  // as_tuple: the error comes back as a value instead, to be tested against a condition.
  auto [ec, data] = co_await zk.async_get("/missing", asio::as_tuple(asio::use_awaitable));
  std::cout << "coroutine: /missing: " << what_to_do(ec) << "\n";

  zkcoord::lock lock(zk, "/shapes-lock");
  zkcoord::held_lock held = co_await lock.async_acquire(5s);  // a timeout, default token
  std::cout << "coroutine: lock granted, token " << held.token().value() << "\n";
}
// [end snippet]

// [snippet:callback]
void with_a_callback(zkcoord::session& zk) {
  zk.async_exists("/shapes", [](zkcoord::error_code ec, std::optional<zkcoord::node_stat> stat) {
    if (ec)
      std::cout << "callback: " << ec.message() << "\n";
    else
      std::cout << "callback: /shapes " << (stat ? "exists" : "does not exist") << "\n";
  });
}
// [end snippet]

// [snippet:future]
void with_a_future(zkcoord::session& zk) {  // on a thread that does not run the io_context
  std::future<zkcoord::child_list> children = zk.async_children("/", asio::use_future);
  std::cout << "future: / has " << children.get().names.size() << " children\n";
}
// [end snippet]

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " CONNECT\n";
    return 2;
  }
  asio::io_context io;
  auto work = asio::make_work_guard(io);
  std::thread runner([&] { io.run(); });
  zkcoord::session zk(io.get_executor(), {.connect = argv[1]});
  int status = 0;
  try {
    zk.async_connect(asio::use_future).get();
    asio::co_spawn(io, with_coroutines(zk), asio::use_future).get();
    with_a_future(zk);
    with_a_callback(zk);
    // Replies come in order: once the sync's has, the callback above has run.
    zk.async_sync("/", asio::use_future).get();
  } catch (const std::exception& e) {
    std::cerr << "async_shapes: " << e.what() << "\n";
    status = 1;
  }
  asio::post(io, [&] {
    zk.close();
    work.reset();
  });
  runner.join();
  return status;
}
