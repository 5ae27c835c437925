// SPDX-License-Identifier: Apache-2.0
// The lock holder of test-matrix row 2, as its own process so that the test can SIGSTOP it:
// connects, acquires the lock, writes once through the shared file fence store, prints its
// token, then blocks reading stdin. On the line "write" (sent while it is stopped, so it reads
// it at once when resumed) it writes with its old token at once, without checking anything,
// and reports the store's answer and when its held_lock reported the loss.
//   usage: lock_holder_child CONNECT LOCK_PATH STORE_DIR SESSION_TIMEOUT_MS
// Output lines: "held token=<t> timeout_ms=<T>", "write=accepted|rejected owns=<0|1>
// at_ns=<steady ns>", "lost_ns=<steady ns> reason=<message>" or "lost=none".
#include <zkcoord/lock.hpp>

#include "support/file_fence_store.hpp"
#include "support/io_thread.hpp"

#include <boost/asio/use_future.hpp>

#include <chrono>
#include <cstdio>
#include <future>
#include <iostream>
#include <memory>
#include <string>

using namespace zkcoord;
namespace asio = boost::asio;

namespace {
long long steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: %s CONNECT LOCK_PATH STORE_DIR SESSION_TIMEOUT_MS\n", argv[0]);
    return 2;
  }
  test::io_thread io;
  session s(io.executor(),
            {.connect = argv[1], .session_timeout = std::chrono::milliseconds(std::stoi(argv[4]))});
  test::file_fence_store store(argv[3]);
  s.async_connect(asio::use_future).get();
  lock l(s, argv[2], {.app_id = "paused-holder"});
  held_lock held = l.async_acquire(asio::use_future).get();
  const std::int64_t token = held.token().value();

  auto lost = std::make_shared<std::promise<std::pair<long long, std::string>>>();
  held.async_wait_lost([lost](error_code ec) { lost->set_value({steady_ns(), ec.message()}); });
  store.write(token, store.read(token, "child") + 1, "child");
  std::cout << "held token=" << token << " timeout_ms=" << s.negotiated_timeout().count()
            << std::endl;

  std::string line;
  if (!std::getline(std::cin, line) || line != "write") return 3;
  // At once, no check: the pause could fall between any check and the write anyway.
  const bool owns = held.owns();
  const long long at = steady_ns();
  const bool accepted = store.write(token, 1000, "child-after-resume");
  std::cout << "write=" << (accepted ? "accepted" : "rejected") << " owns=" << owns
            << " at_ns=" << at << std::endl;
  auto lost_future = lost->get_future();
  if (lost_future.wait_for(std::chrono::seconds(10)) == std::future_status::ready) {
    auto [when, reason] = lost_future.get();
    std::cout << "lost_ns=" << when << " reason=" << reason << std::endl;
  } else {
    std::cout << "lost=none" << std::endl;
  }
  return 0;
}
