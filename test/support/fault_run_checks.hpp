// SPDX-License-Identifier: Apache-2.0
// The end-of-run checks of the ensemble fault tests (rows 6, 16, 18): what the fence and the
// lock must have guaranteed whatever faults hit the ensemble during a lock_contention run.
//
// Two holders at once (an overlap: grant L entered its critical section while grant E, granted
// earlier, was still inside) is allowed only where E's session had expired on the server, so
// that E merely still *believed* it held (a session that expired may not know it yet). What a
// test can prove about that, per overlap, without trusting the lock code it tests:
//   1. L's session found E's node gone when it asked right after L's grant. ZooKeeper answers a
//      session in order, so that read sees at least the state L's grant was decided on: a node
//      it still finds proves a double grant.
//   2. E's own release did not delete the node (it ended with lock_lost or session_expired):
//      a release that deleted it proves the node existed after L's grant.
//   3. E's session was reported expired to E's client after E's grant (server-reported, or its
//      lease deadline passed), and no later grant was made on it. With 1 and 2 the node went
//      with E's session, not by another client's delete.
// An overlap is excused only when all three hold. Not provable from the client side: that the
// server expired E's session before L's grant rather than within the one round trip between
// L's grant and its read in 1; a correct grant implies the former, and a wrong grant escapes
// only if E's session happens to expire inside that round trip.
//
// With fenced reads the fenced counter cannot show a lost update, so each critical section
// also increments an unfenced counter (read, suspend, write). A lost update there needs two
// sections inside at once, and each overlap loses at most one increment, so the counter must
// lie between (increments - excused overlaps) and increments; equality holds when nothing
// overlapped. It does not depend on the overlap bookkeeping: it is what a store without a
// fence would have suffered.
#pragma once

#include <zkcoord/session.hpp>

#include "support/io_thread.hpp"
#include "support/lock_contention.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <string>

namespace zkcoord::test {

/// Why an overlap is not excused ("" when it is), by the three conditions above.
inline std::string overlap_not_excused_because(const lock_contention& run,
                                               const lock_contention::overlap& o,
                                               const std::vector<lock_contention::grant>& grants) {
  const auto& earlier = grants[o.earlier];
  if (o.probe_ec) return "the later holder's existence read failed: " + o.probe_ec.message();
  if (o.earlier_node_existed) return "the earlier holder's node still existed after the grant";
  if (earlier.release_ec != errc::lock_lost && earlier.release_ec != zk_errc::session_expired)
    return "the earlier holder's release ended with '" + earlier.release_ec.message() +
           "' (success: it deleted its node itself)";
  const auto expiries = run.expiries_of(earlier.client);
  if (std::none_of(expiries.begin(), expiries.end(), [&](auto t) { return t > earlier.granted; }))
    return "the earlier holder's session was never reported expired";
  const bool granted_again_on_it = std::any_of(grants.begin(), grants.end(), [&](const auto& g) {
    return g.granted > earlier.granted && g.session_id == earlier.session_id;
  });
  if (granted_again_on_it) return "the earlier holder's session was granted the lock again later";
  return "";
}

/// Number of overlaps excused by an expiry of the earlier holder's session; fails the test for
/// every other overlap.
inline int check_overlaps(const lock_contention& run) {
  const auto grants = run.grants();
  int excused = 0;
  for (const auto& o : run.overlap_list()) {
    const auto& e = grants[o.earlier];
    const auto& l = grants[o.later];
    const std::string why = overlap_not_excused_because(run, o, grants);
    BOOST_TEST_MESSAGE("overlap: client " << e.client << " token " << e.token
                                          << " inside when client " << l.client << " got token "
                                          << l.token << "; "
                                          << (why.empty() ? "excused by its expiry" : why));
    BOOST_TEST(why.empty(), "double grant: client " << e.client << " (session " << std::hex
                                                    << e.session_id << std::dec << ", token "
                                                    << e.token << ") and client " << l.client
                                                    << " (token " << l.token << "): " << why);
    if (why.empty()) ++excused;
  }
  return excused;
}

/// No stale write accepted, no lost update (fenced or, beyond what excused overlaps allow,
/// unfenced), tokens strictly increasing, and two holders at once only where the earlier
/// holder's session had expired.
inline void check_fenced_run(const lock_contention& run, const fence_store& store) {
  BOOST_TEST(run.tokens_strictly_increase());
  BOOST_TEST(store.stale_accepted() == 0u);
  BOOST_TEST(store.read("counter") == store.accepted_writes("counter"));  // no lost update
  const int excused = check_overlaps(run);
  const std::int64_t increments = run.unfenced_increments();
  const std::int64_t unfenced = store.read(run.unfenced_resource());
  BOOST_TEST_MESSAGE("unfenced counter " << unfenced << " after " << increments << " increments, "
                                         << excused << " excused overlaps");
  BOOST_TEST(unfenced <= increments);
  BOOST_TEST(unfenced >= increments - excused, "unfenced counter lost " << increments - unfenced
                                                                        << " updates, " << excused
                                                                        << " excused overlaps");
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
