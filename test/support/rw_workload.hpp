// SPDX-License-Identifier: Apache-2.0
// One contender of a read-write lock workload: read (two cycles in three) or write, mark the
// critical section, hold it a few milliseconds, release; the integration and interop tests
// check the marks.
#pragma once

#include <zkcoord/rw_lock.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <random>
#include <string>
#include <tuple>

namespace zkcoord::test {

struct rw_cycles {
  long reads = 0, writes = 0;
  std::string error;  ///< the first failure, which ended the contender
};

/// Runs cycles on a read_write_lock of `path` named `who` (also its app id) while
/// `keep_going()`: `enter(write, held)` once granted, `exit(write)` before the release.
template <class KeepGoing, class Enter, class Exit>
boost::asio::awaitable<void> rw_contender(session& s, std::string path, std::string who,
                                          unsigned seed, KeepGoing keep_going, Enter enter,
                                          Exit exit, rw_cycles& done) {
  constexpr auto tuple = boost::asio::as_tuple(boost::asio::use_awaitable);
  read_write_lock rw(s, path, {.app_id = who});
  boost::asio::steady_timer timer(co_await boost::asio::this_coro::executor);
  std::mt19937 rng(seed);
  while (keep_going()) {
    const bool write = rng() % 3 == 0;
    // Two awaits, not one on a conditional expression: GCC 12 miscompiles that (double free).
    error_code ec;
    held_lock held;
    if (write) {
      std::tie(ec, held) = co_await rw.write().async_acquire(tuple);
    } else {
      std::tie(ec, held) = co_await rw.read().async_acquire(tuple);
    }
    if (ec) {
      done.error = who + " acquire: " + ec.message();
      co_return;
    }
    enter(write, held);
    timer.expires_after(std::chrono::milliseconds(2 + rng() % 12));
    co_await timer.async_wait(tuple);
    exit(write);
    if (auto [release_ec] = co_await held.async_release(tuple); release_ec) {
      done.error = who + " release: " + release_ec.message();
      co_return;
    }
    ++(write ? done.writes : done.reads);
  }
}

}  // namespace zkcoord::test
