// SPDX-License-Identifier: Apache-2.0
// docs/counters.md's program: a distributed_atomic_long counted up with the default token in a
// coroutine, its result tested, and a shared_count's versioned set.
// Prints one line per step; exit status 1 on any unexpected result.
//   zkcoord_snippet_counters CONNECT
#include <zkcoord/counter.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio.hpp>

#include <iostream>

#include "run_on_session.hpp"

namespace asio = boost::asio;

// [snippet:atomic]
asio::awaitable<void> count_a_visit(zkcoord::session& zk) {
  // Curator's DistributedAtomicLong layout: 8 big-endian bytes at /stats/visits.
  zkcoord::distributed_atomic_long visits(zk, "/stats/visits",
                                          {.max_tries = 20, .lock_path = "/stats/visits-lock"});
  zkcoord::atomic_result<std::int64_t> added = co_await visits.async_increment();
  if (!added.succeeded)  // other writers won every try, under the lock too: nothing written
    std::cout << "not counted: still " << added.pre_value << "\n";
  else
    std::cout << "visits: " << added.pre_value << " -> " << added.post_value << "\n";
}
// [end snippet]

// [snippet:shared]
asio::awaitable<void> raise_the_limit(zkcoord::session& zk) {
  // Curator's SharedCount layout: 4 big-endian bytes, created with the seed 10 if missing.
  zkcoord::shared_count limit(zk, "/config/limit", 10);
  zkcoord::versioned_count seen = co_await limit.async_get();
  zkcoord::count_set_result set = co_await limit.async_try_set(seen, seen.value + 1);
  if (set.succeeded)
    std::cout << "limit raised to " << set.current.value << "\n";
  else  // someone changed it since we read it: their value stands
    std::cout << "limit changed meanwhile, now " << set.current.value << "\n";
}
// [end snippet]

int main(int argc, char** argv) {
  return snippet::run_on_session(argc, argv, "zkcoord_snippet_counters CONNECT",
                                 [](zkcoord::session& zk) -> asio::awaitable<void> {
                                   co_await count_a_visit(zk);
                                   co_await raise_the_limit(zk);
                                 });
}
