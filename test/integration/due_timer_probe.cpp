// SPDX-License-Identifier: Apache-2.0
// Run by integration_lock_clock_jump under libfaketime: arms an Asio timer that is already due
// and prints "fired" if its handler ran within 2 s, "stalled" if not. Shows that the preload the
// holder runs with (monotonic_timerfd.c) leaves Asio's timers on the kernel's monotonic clock.
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <iostream>

int main() {
  boost::asio::io_context io;
  bool fired = false;
  boost::asio::steady_timer due(io);
  due.expires_at(std::chrono::steady_clock::now() - std::chrono::milliseconds(1));
  due.async_wait([&](boost::system::error_code) { fired = true; });
  io.run_for(std::chrono::seconds(2));
  std::cout << (fired ? "fired" : "stalled") << std::endl;
  return 0;
}
