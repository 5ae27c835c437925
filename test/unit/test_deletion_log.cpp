// SPDX-License-Identifier: Apache-2.0
// The session's count of deletions under the lock paths its waiters count on
// (recipe/deletion_log.hpp): what is counted, what is not, and what memory it keeps.
#include "recipe/deletion_log.hpp"

#define BOOST_TEST_MODULE deletion_log
#include <boost/test/unit_test.hpp>

#include "contender_fsm_test_support.hpp"
#include "recipe/node_name.hpp"

#include <zkcoord/path.hpp>

using namespace zkcoord::detail;
using zkcoord::detail::testing::sequence_suffix;

namespace {

constexpr std::int64_t session = 0x1000;
constexpr std::int64_t other_session = 0x2000;
const std::string path = "/locks/l";

std::string node(std::int32_t seq, const std::string& p = path) {
  return zkcoord::join_path(p, protected_node_prefix("abcd") + sequence_suffix(seq));
}

struct log_fixture {
  std::shared_ptr<deletion_log> log = deletion_log::make();
  std::uint64_t told = 0;  // the session's proof numbers (session_impl::deletion_proofs)
  void deleted(std::int32_t seq, std::int64_t s = session) {
    log->node_deleted(s, node(seq), ++told);
  }
  void told_other(std::int64_t s, const std::string& p) { log->node_deleted(s, p, ++told); }
};

}  // namespace

BOOST_FIXTURE_TEST_CASE(counts_each_deletion_below_our_node_once, log_fixture) {
  deletion_log::interest w;
  BOOST_TEST(log->register_listing(w, session, path, 1, 10, std::nullopt).value() == 0u);
  deleted(3);
  deleted(3);  // two watches on the node: one deletion
  deleted(1);
  deleted(12);  // behind us: not ahead, never counted for us
  BOOST_TEST(log->deleted_ahead(w, 10) == 2u);
  BOOST_TEST(log->deleted_ahead(w, 3) == 1u);
}

BOOST_FIXTURE_TEST_CASE(counts_only_what_was_seen_while_registered, log_fixture) {
  deleted(2);  // nobody counts on the path yet: not kept
  deletion_log::interest w;
  BOOST_TEST(log->register_listing(w, session, path, 3, 10, std::nullopt).value() == 0u);
  deleted(4);
  BOOST_TEST(log->deleted_ahead(w, 10) == 1u);
  w.reset();
  BOOST_TEST(!w);
  deleted(5);  // the last registration went: the path is forgotten
  deletion_log::interest again;
  BOOST_TEST(log->register_listing(again, session, path, 6, 10, std::nullopt).value() == 0u);
}

BOOST_FIXTURE_TEST_CASE(other_sessions_paths_and_names_are_not_counted, log_fixture) {
  deletion_log::interest w;
  BOOST_REQUIRE(log->register_listing(w, session, path, 1, 10, std::nullopt));
  deleted(2, other_session);
  told_other(session, node(3, "/locks/other"));
  told_other(session, path + "/not-a-contender");
  told_other(session, path + "/config-0000000004");  // a sequence, but no recipe marker
  told_other(session, "/");
  told_other(session, "");
  BOOST_TEST(log->deleted_ahead(w, 10) == 0u);
}

BOOST_FIXTURE_TEST_CASE(the_snapshot_is_what_was_seen_before_the_listing, log_fixture) {
  deletion_log::interest first, second;
  BOOST_REQUIRE(log->register_listing(first, session, path, 1, 10, std::nullopt));
  deleted(1);
  deleted(2);
  // A second waiter of the session processes a listing now (lowest 3): what it counts is the
  // range of its listing, 3 up to its own node, where nothing is gone yet.
  BOOST_TEST(log->register_listing(second, session, path, 3, 11, std::nullopt).value() == 0u);
  deleted(3);
  BOOST_TEST(log->deleted_ahead(second, 11) == 1u);
  BOOST_TEST(log->deleted_ahead(first, 10) == 3u);
}

BOOST_FIXTURE_TEST_CASE(a_new_listing_replaces_the_registration_and_keeps_the_count, log_fixture) {
  deletion_log::interest w;
  BOOST_REQUIRE(log->register_listing(w, session, path, 1, 10, std::nullopt));
  deleted(1);
  BOOST_TEST(log->register_listing(w, session, path, 2, 10, std::nullopt).value() == 0u);
  deleted(2);
  BOOST_TEST(log->deleted_ahead(w, 10) == 1u);
}

BOOST_FIXTURE_TEST_CASE(numbers_below_a_listing_are_not_counted_and_dropped_below_all,
                        log_fixture) {
  deletion_log::interest low, high;
  BOOST_REQUIRE(log->register_listing(low, session, path, 1, 10, std::nullopt));
  BOOST_REQUIRE(log->register_listing(high, session, path, 5, 20, std::nullopt));
  deleted(1);
  deleted(2);
  deleted(6);
  BOOST_TEST(log->deleted_ahead(high, 20) == 1u);  // 1 and 2 are below its listing
  BOOST_TEST(log->deleted_ahead(low, 10) == 3u);
  low.reset();  // the floor rises to 5: 1 and 2 are dropped
  BOOST_TEST(log->deleted_ahead(high, 20) == 1u);
  deleted(2);  // told again (a second watch): below the floor, ignored
  deleted(1);
  BOOST_TEST(log->deleted_ahead(high, 20) == 1u);
}

BOOST_FIXTURE_TEST_CASE(a_listing_reaching_below_the_floor_cannot_count, log_fixture) {
  deletion_log::interest high, late;
  BOOST_REQUIRE(log->register_listing(high, session, path, 5, 20, std::nullopt));
  // A listing taken earlier, handed over late, still shows node 3: the log may have folded
  // or ignored its deletion, so that waiter lists as before.
  BOOST_TEST(!log->register_listing(late, session, path, 3, 8, std::nullopt).has_value());
  BOOST_TEST(!late);
  BOOST_TEST(static_cast<bool>(high));
}

BOOST_FIXTURE_TEST_CASE(a_long_queue_is_counted_exactly_as_it_drains, log_fixture) {
  // 10,000 waiters of one session, each behind the one before (the pending-lock benchmark):
  // every hand-off must see exactly the nodes of its listing gone.
  constexpr int n = 10000;
  std::vector<deletion_log::interest> waiters(n);
  for (int i = 1; i < n; ++i)
    BOOST_REQUIRE(log->register_listing(waiters[i], session, path, 0, i, std::nullopt));
  for (int i = 0; i + 1 < n; ++i) {
    deleted(i);  // the holder's own delete
    deleted(i);  // and the next waiter's watch on it
    if (log->deleted_ahead(waiters[i + 1], i + 1) != static_cast<std::uint64_t>(i + 1)) {
      BOOST_FAIL("waiter " << i + 1 << " counts " << log->deleted_ahead(waiters[i + 1], i + 1));
    }
    waiters[i + 1].reset();  // granted
  }
}

BOOST_FIXTURE_TEST_CASE(moving_an_interest_keeps_one_registration, log_fixture) {
  deletion_log::interest a;
  BOOST_REQUIRE(log->register_listing(a, session, path, 1, 10, std::nullopt));
  deletion_log::interest b = std::move(a);
  BOOST_TEST(!a);
  BOOST_TEST(static_cast<bool>(b));
  deleted(2);
  BOOST_TEST(log->deleted_ahead(b, 10) == 1u);
  a = std::move(b);
  b.reset();  // empty: unregisters nothing
  deleted(3);
  BOOST_TEST(log->deleted_ahead(a, 10) == 2u);
}

BOOST_AUTO_TEST_CASE(an_interest_outliving_its_log_is_harmless) {
  deletion_log::interest w;
  {
    auto log = deletion_log::make();
    BOOST_REQUIRE(log->register_listing(w, session, path, 1, 10, std::nullopt));
  }
  w.reset();
  BOOST_TEST(!w);
}

BOOST_FIXTURE_TEST_CASE(a_stamped_listing_counts_only_what_came_before_its_reply, log_fixture) {
  deletion_log::interest first, second;
  BOOST_REQUIRE(log->register_listing(first, session, path, 1, 20, std::nullopt));
  deleted(1);
  const std::uint64_t stamp = told;  // the second waiter's listing reply arrives (shows 2, 3)
  deleted(2);                        // deleted after that reply, before the waiter processed it
  BOOST_TEST(log->register_listing(second, session, path, 2, 10, stamp).value() == 0u);
  deleted(3);
  // Both nodes of its listing ahead of it are known gone: 2 - 0.
  BOOST_TEST(log->deleted_ahead(second, 10) == 2u);
}

BOOST_FIXTURE_TEST_CASE(a_stamp_older_than_the_kept_window_cannot_count, log_fixture) {
  deletion_log::interest first, late;
  BOOST_REQUIRE(log->register_listing(first, session, path, 0, 100000, std::nullopt));
  const std::uint64_t stamp = told;
  for (int i = 0; i < 5000; ++i) deleted(i);
  BOOST_TEST(!log->register_listing(late, session, path, 0, 99999, stamp).has_value());
  BOOST_TEST(log->register_listing(late, session, path, 0, 99999, told).value() == 5000u);
}

BOOST_FIXTURE_TEST_CASE(a_deletion_between_the_stamp_and_the_registration_is_counted_when_opened,
                        log_fixture) {
  // The waiter opened its interest before it created its node (handoff_count::start); its
  // listing reply (showing 1 and 2 ahead of it) is stamped, then the holder's node 1 goes
  // before the waiter processes the reply (thousands of waiters work through one listing).
  deletion_log::interest w;
  log->open(w, session, path);
  BOOST_TEST(static_cast<bool>(w));
  const std::uint64_t stamp = told;
  deleted(1);
  BOOST_TEST(log->register_listing(w, session, path, 1, 10, stamp).value() == 0u);
  deleted(2);
  // Both nodes of its listing ahead of it are known gone: the blocker 2 and the other, 1.
  BOOST_TEST(log->deleted_ahead(w, 10) == 2u);
}

BOOST_FIXTURE_TEST_CASE(a_path_kept_only_after_the_stamp_cannot_count, log_fixture) {
  // Without an open interest, node 1's deletion came before anyone kept the path: a count
  // from this listing would stay one short forever, so it gives none (the waiter lists).
  deletion_log::interest w;
  const std::uint64_t stamp = told;
  deleted(1);
  BOOST_TEST(!log->register_listing(w, session, path, 1, 10, stamp).has_value());
  BOOST_TEST(!w);
  // A listing stamped after everything told so far counts.
  BOOST_TEST(log->register_listing(w, session, path, 2, 10, told).value() == 0u);
}

BOOST_FIXTURE_TEST_CASE(an_open_interest_keeps_the_path_until_it_goes, log_fixture) {
  deletion_log::interest opened, w;
  log->open(opened, session, path);
  deleted(1);
  deleted(2);
  // Another waiter's unstamped listing (lowest 3) registers: what was kept since the path
  // was opened is below its lowest, outside what it counts.
  BOOST_TEST(log->register_listing(w, session, path, 3, 10, std::nullopt).value() == 0u);
  opened.reset();  // the first one got the lock: numbers below 3 are dropped
  deleted(3);
  BOOST_TEST(log->deleted_ahead(w, 10) == 1u);
  w.reset();
  // Nobody keeps the path now: a later listing stamped before a deletion cannot count.
  const std::uint64_t stamp = told;
  deleted(4);
  deletion_log::interest late;
  BOOST_TEST(!log->register_listing(late, session, path, 4, 10, stamp).has_value());
}

BOOST_FIXTURE_TEST_CASE(a_number_wrapped_past_2_31_is_behind_and_never_counted, log_fixture) {
  // A node created after the parent's counter wrapped has a negative number: it sorts below
  // ours numerically but is behind us. Only the range of the listing is counted.
  deletion_log::interest opened, w;
  log->open(opened, session, path);
  BOOST_TEST(log->register_listing(w, session, path, 2147483640, 2147483642, told).value() == 0u);
  deleted(-2147483644);
  deleted(2147483641);
  BOOST_TEST(log->deleted_ahead(w, 2147483642) == 1u);
}
