// SPDX-License-Identifier: Apache-2.0
// The leader selector's decisions without a server: queueing, terms, requeue and close in every
// phase (with the Curator bugs the rules avoid: CURATOR-518, 671), and the leader lookup
// from one listing (CURATOR-358).
#include "leader_selector/selector_fsm.hpp"
#include "leader_selector/selector_listing.hpp"

#include <boost/asio/error.hpp>

#define BOOST_TEST_MODULE selector_fsm
#include <boost/test/unit_test.hpp>

using namespace zkcoord;
using namespace zkcoord::detail;

namespace {

const error_code aborted = make_error_code(boost::asio::error::operation_aborted);

// A selector that holds a term (leading), with or without auto-requeue.
selector_fsm leading(bool auto_requeue) {
  selector_fsm fsm(auto_requeue);
  BOOST_REQUIRE(fsm.on_run().enqueue);
  BOOST_REQUIRE(fsm.on_granted().start_handler);
  BOOST_REQUIRE((fsm.phase() == selector_phase::leading));
  return fsm;
}

bool creates_node(const selector_actions& a) {
  return a.enqueue;
}

node_data node(std::int64_t czxid, std::string data) {
  node_data d;
  d.data = std::move(data);
  d.stat.czxid = czxid;
  d.stat.ephemeral_owner = 7;
  return d;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_run_queues_and_a_grant_calls_the_handler) {
  selector_fsm fsm(false);
  const auto run = fsm.on_run();
  BOOST_TEST(run.enqueue);
  BOOST_TEST(!run.refuse_run);
  BOOST_TEST(fsm.on_granted().start_handler);
}

BOOST_AUTO_TEST_CASE(without_requeue_the_run_ends_after_one_term) {
  auto fsm = leading(false);
  BOOST_TEST(fsm.on_term_ended().release_term);
  const auto released = fsm.on_released();
  BOOST_TEST(!creates_node(released));
  BOOST_REQUIRE(released.complete_run);
  BOOST_TEST(!*released.complete_run);
  BOOST_TEST((fsm.phase() == selector_phase::idle));
}

BOOST_AUTO_TEST_CASE(with_requeue_the_term_is_released_before_queueing_again) {
  auto fsm = leading(true);
  const auto ended = fsm.on_term_ended();
  BOOST_TEST(ended.release_term);
  BOOST_TEST(!creates_node(ended));  // never a second node while the first is still there
  const auto released = fsm.on_released();
  BOOST_TEST(creates_node(released));
  BOOST_TEST(!released.complete_run);
  BOOST_TEST((fsm.phase() == selector_phase::queued));
}

// A run while already queued (or leading) must not create a second node of ours.
BOOST_AUTO_TEST_CASE(a_run_while_queued_or_leading_creates_no_second_node) {
  selector_fsm fsm(true);
  BOOST_REQUIRE(fsm.on_run().enqueue);
  const auto again = fsm.on_run();
  BOOST_TEST(!creates_node(again));
  BOOST_REQUIRE(again.refuse_run);
  BOOST_TEST(*again.refuse_run == errc::already_held);
  fsm.on_granted();
  const auto while_leading = fsm.on_run();
  BOOST_TEST(!creates_node(while_leading));
  BOOST_TEST(*while_leading.refuse_run == errc::already_held);
  // And while the term's node is still being deleted.
  fsm.on_term_ended();
  const auto while_releasing = fsm.on_run();
  BOOST_TEST(!creates_node(while_releasing));
  BOOST_TEST(*while_releasing.refuse_run == errc::already_held);
}

// After close nothing queues again: not the requeue that follows the term, not an explicit run,
// not a retry after a session problem.
BOOST_AUTO_TEST_CASE(no_requeue_after_close) {
  auto fsm = leading(true);
  const auto closed = fsm.on_close();
  BOOST_TEST(closed.signal_lost);
  BOOST_TEST(closed.release_term);
  BOOST_TEST(!fsm.on_term_ended().release_term);  // released once
  const auto released = fsm.on_released();
  BOOST_TEST(!creates_node(released));
  BOOST_REQUIRE(released.complete_run);
  BOOST_TEST(*released.complete_run == aborted);
  const auto run = fsm.on_run();
  BOOST_TEST(!creates_node(run));
  BOOST_REQUIRE(run.refuse_run);
  BOOST_TEST(*run.refuse_run == aborted);
}

BOOST_AUTO_TEST_CASE(no_retry_after_close_while_waiting_for_the_session) {
  selector_fsm fsm(true);
  fsm.on_run();
  BOOST_TEST(fsm.on_acquire_failed(make_error_code(zk_errc::session_expired)).retry_later);
  const auto closed = fsm.on_close();
  BOOST_REQUIRE(closed.complete_run);
  BOOST_TEST(*closed.complete_run == aborted);
  BOOST_TEST(!creates_node(fsm.on_session_ready()));
}

// CURATOR-518: with auto-requeue, a second interruption of the term that arrives while the
// requeue is under way (the term ended twice, or its end raced the loss of its node) must not
// cancel the requeue: the selector queues again exactly once and leads again.
BOOST_AUTO_TEST_CASE(curator_518_a_second_interruption_during_the_requeue_keeps_it) {
  auto fsm = leading(true);
  const auto ended = fsm.on_term_ended();
  BOOST_TEST(ended.release_term);
  // The same term ends again (finish() twice, or the lost signal) while its node is deleted.
  const auto again = fsm.on_term_ended();
  BOOST_TEST(!again.release_term);
  BOOST_TEST(!again.abort_wait);
  BOOST_TEST(!creates_node(again));
  BOOST_TEST(!again.complete_run);
  BOOST_TEST((fsm.phase() == selector_phase::releasing));
  const auto released = fsm.on_released();
  BOOST_TEST(creates_node(released));  // queued again, once
  BOOST_TEST(!released.complete_run);
  // A late interruption of the old term while the new node is being created: nothing changes.
  const auto late = fsm.on_term_ended();
  BOOST_TEST(!late.abort_wait);
  BOOST_TEST(!late.release_term);
  BOOST_TEST(!creates_node(late));
  BOOST_TEST(!late.complete_run);
  BOOST_TEST(!creates_node(fsm.on_released()));  // a duplicate release report: no second node
  BOOST_TEST((fsm.phase() == selector_phase::queued));
  // The new node of ours is deleted while it waits (by another client): queued again, once.
  const auto lost = fsm.on_acquire_failed(make_error_code(errc::lock_lost));
  BOOST_TEST(lost.retry_later);
  BOOST_TEST(!lost.complete_run);
  BOOST_TEST(!creates_node(lost));
  BOOST_TEST(creates_node(fsm.on_session_ready()));
  BOOST_TEST(!creates_node(fsm.on_session_ready()));
  BOOST_TEST(!creates_node(fsm.on_term_ended()));
  // And it leads again.
  BOOST_TEST(fsm.on_granted().start_handler);
  BOOST_TEST((fsm.phase() == selector_phase::leading));
}

// CURATOR-671: without auto-requeue, a run started right after the previous one completed (the
// term just ended) queues once and leads again, however many times in a row; the run completes
// only once the term's node is gone, so the next run is never refused as already active.
BOOST_AUTO_TEST_CASE(curator_671_a_run_right_after_a_term_queues_once_and_leads) {
  selector_fsm fsm(false);
  BOOST_REQUIRE(fsm.on_run().enqueue);
  for (int i = 0; i < 20; ++i) {
    BOOST_TEST_CONTEXT("term " << i) {
      BOOST_TEST(fsm.on_granted().start_handler);
      const auto ended = fsm.on_term_ended();
      BOOST_TEST(ended.release_term);
      BOOST_TEST(!ended.complete_run);  // not before the node is deleted
      const auto released = fsm.on_released();
      BOOST_TEST(!creates_node(released));
      BOOST_REQUIRE(released.complete_run);
      BOOST_TEST(!*released.complete_run);
      BOOST_TEST((fsm.phase() == selector_phase::idle));
      const auto run = fsm.on_run();  // the requeue, at once
      BOOST_TEST(!run.refuse_run);
      BOOST_TEST(creates_node(run));
      BOOST_TEST((fsm.phase() == selector_phase::queued));
    }
  }
}

// Closing while the handler runs must not leave the node behind: it is deleted at once, not
// when (if ever) the handler returns.
BOOST_AUTO_TEST_CASE(close_while_leading_releases_at_once) {
  auto fsm = leading(false);
  const auto closed = fsm.on_close();
  BOOST_TEST(closed.release_term);
  BOOST_TEST(closed.signal_lost);
  BOOST_TEST(!closed.complete_run);  // once the node is gone
  BOOST_TEST(*fsm.on_released().complete_run == aborted);
}

// Closing while waiting aborts our own acquire (which deletes our own node) and
// releases nothing: we never held the lock, and the holder's node is not ours to delete.
BOOST_AUTO_TEST_CASE(close_while_waiting_releases_nothing) {
  selector_fsm fsm(true);
  fsm.on_run();
  const auto closed = fsm.on_close();
  BOOST_TEST(closed.abort_wait);
  BOOST_TEST(!closed.release_term);
  BOOST_TEST(!closed.signal_lost);
  const auto failed = fsm.on_acquire_failed(aborted);
  BOOST_TEST(!failed.release_term);
  BOOST_TEST(!creates_node(failed));
  BOOST_REQUIRE(failed.complete_run);
  BOOST_TEST(*failed.complete_run == aborted);
  BOOST_TEST(!fsm.on_close().abort_wait);  // idempotent
}

BOOST_AUTO_TEST_CASE(a_grant_that_races_a_close_is_given_back_without_a_term) {
  selector_fsm fsm(true);
  fsm.on_run();
  BOOST_TEST(fsm.on_close().abort_wait);
  const auto granted = fsm.on_granted();
  BOOST_TEST(!granted.start_handler);
  BOOST_TEST(granted.release_term);
  BOOST_TEST(*fsm.on_released().complete_run == aborted);
}

BOOST_AUTO_TEST_CASE(auto_requeue_survives_session_loss_but_not_other_errors) {
  selector_fsm fsm(true);
  fsm.on_run();
  BOOST_TEST(fsm.on_acquire_failed(make_error_code(zk_errc::session_expired)).retry_later);
  BOOST_TEST(fsm.on_session_ready().enqueue);
  const auto bad = fsm.on_acquire_failed(make_error_code(errc::bad_path));
  BOOST_TEST(!bad.retry_later);
  BOOST_REQUIRE(bad.complete_run);
  BOOST_TEST(*bad.complete_run == errc::bad_path);
}

BOOST_AUTO_TEST_CASE(without_requeue_a_session_loss_ends_the_run) {
  selector_fsm fsm(false);
  fsm.on_run();
  const auto failed = fsm.on_acquire_failed(make_error_code(zk_errc::session_expired));
  BOOST_TEST(!failed.retry_later);
  BOOST_TEST(*failed.complete_run == zk_errc::session_expired);
}

// CURATOR-358: the leader read while its node is deleted is skipped, never reported as an
// empty participant; when every listed node vanished, the path is listed again.
BOOST_AUTO_TEST_CASE(curator_358_a_vanished_leader_is_skipped_not_reported_empty) {
  const std::vector<std::string> children{"_c_a-lock-0000000001", "_c_b-lock-0000000002"};
  std::map<std::string, node_data> read;
  read.emplace("_c_b-lock-0000000002", node(12, "b"));
  const auto choice = choose_leader(children, read);
  BOOST_TEST(!choice.ec);
  BOOST_TEST(!choice.relist);
  BOOST_TEST(choice.leader.id == "b");
  BOOST_TEST(choice.leader.leader);
  BOOST_TEST(choice.leader.term.value() == 12);
}

BOOST_AUTO_TEST_CASE(curator_358_all_vanished_lists_again) {
  const std::vector<std::string> children{"_c_a-lock-0000000001"};
  const auto choice = choose_leader(children, {});
  BOOST_TEST(choice.relist);
}

BOOST_AUTO_TEST_CASE(no_participant_is_not_found_and_other_recipes_mismatch) {
  BOOST_TEST(choose_leader({}, {}).ec == condition::not_found);
  BOOST_TEST(!choose_leader({}, {}).relist);
  const std::vector<std::string> latch{"_c_a-latch-0000000001"};
  std::map<std::string, node_data> read;
  read.emplace(latch[0], node(3, "x"));
  BOOST_TEST(choose_leader(latch, read).ec == errc::recipe_mismatch);
}

BOOST_AUTO_TEST_CASE(participants_in_queue_order_with_ids_from_node_data) {
  // Listed out of order, as getChildren may; kazoo's lock names count as lock nodes too.
  const std::vector<std::string> children{"_c_b-lock-0000000005", "_c_a-lock-0000000002"};
  std::map<std::string, node_data> read;
  read.emplace(children[0], node(50, "second"));
  read.emplace(children[1], node(20, "first"));
  std::vector<participant> out;
  BOOST_TEST(!make_selector_participants(children, read, out));
  BOOST_REQUIRE_EQUAL(out.size(), 2u);
  BOOST_TEST(out[0].id == "first");
  BOOST_TEST(out[0].leader);
  BOOST_TEST(out[1].id == "second");
  BOOST_TEST(!out[1].leader);
}
