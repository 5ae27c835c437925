// The end-of-run checks of the ensemble fault tests (rows 6, 16, 18): what the fence and the
// lock must have guaranteed whatever faults hit the ensemble during a lock_contention run.
#pragma once

#include <zkcoord/session.hpp>

#include "support/io_thread.hpp"
#include "support/lock_contention.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>
#include <boost/test/unit_test.hpp>

#include <string>

namespace zkcoord::test {

/// No stale write accepted, no lost update, tokens strictly increasing, and two holders at once
/// only where a session expiry excuses it (a holder cut off from the quorum still believes).
inline void check_fenced_run(const lock_contention& run, const fence_store& store) {
  BOOST_TEST(run.tokens_strictly_increase());
  BOOST_TEST(store.stale_accepted() == 0u);
  BOOST_TEST(store.read("counter") == store.accepted_writes("counter"));  // no lost update
  bool expired = false;
  for (const auto& f : run.failures()) expired = expired || f.ec == condition::session_expired;
  // Without an expiry nothing can excuse two holders at once.
  if (!expired) BOOST_TEST(run.overlaps() == 0);
}

/// No lock node is left under `lock_path` once every contender has ended.
inline void check_no_node_left(boost::asio::any_io_executor ex, const std::string& connect,
                               const std::string& lock_path) {
  session observer(std::move(ex), {.connect = connect});
  get(observer.async_connect(boost::asio::use_future));
  auto [ec, left] = get(observer.async_children(lock_path, tuple_future));
  BOOST_TEST((ec == zk_errc::no_node || left.names.empty()), left.names.size() << " nodes left");
}

}  // namespace zkcoord::test
