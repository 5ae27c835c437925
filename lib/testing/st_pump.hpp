// SPDX-License-Identifier: Apache-2.0
// Drives a libzookeeper_st handle on the calling thread (zookeeper_interest, poll,
// zookeeper_process) until a condition holds: the blocking helpers of the harness and of the
// tests (testing/expire_session.cpp, test/support/c_client.hpp) when zkcoord is built on the
// single-threaded C client, which has no synchronous calls. Completions and watchers run
// inside, on this thread.
#pragma once

#ifndef THREADED

#include <zookeeper/zookeeper.h>

#include <poll.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace zkcoord::testing::detail {

/// Runs the handle until `done()` or `deadline`; returns done().
template <class Done>
bool st_pump_until(zhandle_t* zh, Done&& done, std::chrono::steady_clock::time_point deadline) {
  using namespace std::chrono;
  while (!done()) {
    const auto now = steady_clock::now();
    if (now >= deadline) return false;
    int fd = -1, interest = 0;
    timeval tv{};
    const int rc = zookeeper_interest(zh, &fd, &interest, &tv);
    if (rc == ZINVALIDSTATE) {
      zookeeper_process(zh, 0);  // delivers what is left (the expiry)
      return done();
    }
    auto wait = milliseconds(tv.tv_sec * 1000 + tv.tv_usec / 1000);
    if (rc != ZOK) wait = std::max(wait, milliseconds(1));
    wait = std::min(wait, duration_cast<milliseconds>(deadline - now) + milliseconds(1));
    int events = 0;
    if (rc == ZOK && fd >= 0) {
      pollfd p{fd,
               static_cast<short>(((interest & ZOOKEEPER_READ) ? POLLIN : 0) |
                                  ((interest & ZOOKEEPER_WRITE) ? POLLOUT : 0)),
               0};
      if (::poll(&p, 1, static_cast<int>(wait.count())) > 0) {
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) events |= ZOOKEEPER_READ;
        if ((interest & ZOOKEEPER_WRITE) && (p.revents & (POLLOUT | POLLHUP | POLLERR)))
          events |= ZOOKEEPER_WRITE;
      }
    } else {
      std::this_thread::sleep_for(wait);
    }
    zookeeper_process(zh, events);
  }
  return true;
}

template <class Done>
bool st_pump_for(zhandle_t* zh, Done&& done, std::chrono::milliseconds timeout) {
  return st_pump_until(zh, std::forward<Done>(done), std::chrono::steady_clock::now() + timeout);
}

}  // namespace zkcoord::testing::detail

#endif  // !THREADED
