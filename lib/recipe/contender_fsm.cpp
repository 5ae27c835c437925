// SPDX-License-Identifier: Apache-2.0
// The lock state machine's transitions. Each handler first drops results it no longer expects
// (by tag and state), so any interleaving of results and events is safe.
#include "recipe/contender_fsm.hpp"

#include "recipe/node_name.hpp"

#include <zkcoord/path.hpp>
#include "recipe/contender_queue.hpp"

#include <boost/asio/error.hpp>

#include <algorithm>
#include <cassert>
#include <utility>

namespace zkcoord::detail {

using namespace contender_action;

namespace {

// The request may or may not have been applied: connection loss or operation timeout.
bool outcome_unknown(const error_code& ec) {
  return ec == condition::connection_loss;
}

bool ends_session(const error_code& ec) {
  return ec == condition::session_expired || ec == errc::closed || ec == zk_errc::closing;
}

// The session's end as reported to the caller: expiry or our own close.
error_code session_end_reason(const error_code& ec) {
  return ec == condition::session_expired ? make_error_code(zk_errc::session_expired)
                                          : make_error_code(errc::closed);
}

}  // namespace

contender_fsm::contender_fsm(contender_config config) : config_(std::move(config)) {}

contender_actions contender_fsm::start() {
  assert(state_ == state::idle);
  acquire_pending_ = true;
  send_create();
  return std::exchange(out_, {});
}

contender_actions contender_fsm::resume(const contender_event_t& event) {
  if (state_ == state::idle) return {};
  std::visit([this](const auto& e) { on(e); }, event);
  return std::exchange(out_, {});
}

// ---- results ---------------------------------------------------------------------------------

void contender_fsm::on(const contender_event::node_created& e) {
  if (state_ != state::creating || e.tag != expected_tag_) return;
  const auto list_tag = std::exchange(pipelined_list_tag_, 0);
  if (!e.ec) {
    own_path_ = e.path;
    own_stat_ = e.stat;
    if (abandoned_) return start_delete(false);
    state_ = state::listing;
    // The pipelined listing answers after the create, so it already shows our node.
    if (list_tag != 0) {
      expected_tag_ = list_tag;
    } else {
      send_list(false);
    }
    return;
  }
  if (outcome_unknown(e.ec)) return send_find_own_node(true);
  if (ends_session(e.ec)) return end_session(e.ec);
  if (e.ec == zk_errc::no_node) {
    // The lock path (or an ancestor) is missing, e.g. its container was garbage-collected.
    if (abandoned_) return finish();
    if (create_attempts_ >= max_create_attempts) return fail(e.ec);
    return send_create_parents(false);
  }
  fail(e.ec);  // permanent (no_auth, no_children_for_ephemerals, ...): nothing was created
}

void contender_fsm::on(const contender_event::parents_created& e) {
  if (state_ != state::creating_parents || e.tag != expected_tag_) return;
  if (!e.ec || e.ec == zk_errc::node_exists) return abandoned_ ? finish() : send_create();
  if (outcome_unknown(e.ec)) return send_create_parents(true);
  if (ends_session(e.ec)) return end_session(e.ec);
  fail(e.ec);
}

void contender_fsm::on(const contender_event::children_listed& e) {
  if (state_ == state::creating && e.tag == pipelined_list_tag_ && e.tag != 0) {
    // Delivered before the create's reply: we cannot tell whether it includes our node.
    pipelined_list_tag_ = 0;
    return;
  }
  if (e.tag != expected_tag_) return;
  if (state_ == state::listing || state_ == state::watching_children) return on_listing(e);
  if (state_ == state::finding_own_node) return on_recovery_listing(e);
}

void contender_fsm::on_listing(const contender_event::children_listed& e) {
  if (!e.ec) {
    static const contender_queue nothing_listed{std::vector<std::string>{}};
    return decide(e.children ? *e.children : nothing_listed, e.deletions_seen);
  }
  if (outcome_unknown(e.ec)) return send_list(true);
  if (ends_session(e.ec)) return end_session(e.ec);
  // The parent is gone, so our node (its child) is gone too.
  if (e.ec == zk_errc::no_node) return own_node_vanished();
  fail_and_delete(e.ec);
}

void contender_fsm::decide(const contender_queue& queue,
                           std::optional<std::uint64_t> deletions_seen) {
  using outcome = grant_policy::verdict::outcome;
  auto verdict = config_.policy.decide(queue, node_name_of(own_path_));
  switch (verdict.result) {
    case outcome::not_listed:
      return own_node_vanished();
    case outcome::recipe_mismatch:
      return fail_and_delete(make_error_code(errc::recipe_mismatch));
    case outcome::granted:
      return grant();
    case outcome::wait:
    case outcome::wait_for_change:
      break;
  }
  if (config_.mode == wait_mode::try_once) {
    complete_acquire(make_error_code(errc::busy));
    return start_delete(false);
  }
  if (verdict.result == outcome::wait_for_change) {
    // A listing from our own watched request: its watch is armed and covers exactly this list.
    if (state_ == state::watching_children) return;
    return send_watch_children(false);
  }
  state_ = state::watching_predecessor;
  others_ahead_ = verdict.others_ahead;
  view_trusted_ = !queue.straddles_overflow();
  deletions_at_listing_ = deletions_seen;
  // Our own node first (pipelined, no round trip of its own): its read's reply then reaches
  // us before any event of the blocker's watch.
  if (own_watch_tag_ == 0) send_own_watch();
  send_watch(join_path(config_.lock_path, verdict.blocker), false);
}

void contender_fsm::on_recovery_listing(const contender_event::children_listed& e) {
  if (!e.ec) {
    candidates_.clear();
    if (!e.children) return check_next_candidate(false);
    for (const auto& node : e.children->nodes()) {
      if (has_protected_prefix(node.name, config_.node_prefix)) candidates_.push_back(node.name);
    }
    return check_next_candidate(false);
  }
  if (outcome_unknown(e.ec)) return send_find_own_node(true);
  if (ends_session(e.ec)) return end_session(e.ec);
  // No parent, so no node of ours: the lost create was not applied (or is gone with it).
  if (e.ec == zk_errc::no_node) return abandoned_ ? finish() : create_again(e.ec);
  // We cannot look: a node of ours may stay behind until the session ends.
  fail(e.ec);
}

void contender_fsm::on(const contender_event::node_read& e) {
  if (own_watch_tag_ != 0 && e.tag == own_watch_tag_) return on_own_watch_read(e);
  if (e.tag != expected_tag_) return;
  if (state_ == state::checking_candidate) return on_candidate_read(e);
  if (state_ == state::watching_predecessor) return on_predecessor_read(e);
  if (state_ == state::held) return on_own_node_read(e);
}

void contender_fsm::on_candidate_read(const contender_event::node_read& e) {
  const bool absent = e.ec == zk_errc::no_node || (!e.ec && !e.stat);
  if (!e.ec && e.stat && e.stat->ephemeral_owner == config_.session_id) {
    // Ours: adopt it (only this session can own a node with this attempt's prefix).
    own_path_ = join_path(config_.lock_path, candidates_.front());
    own_stat_ = *e.stat;
    candidates_.clear();
    if (abandoned_) return start_delete(false);
    state_ = state::listing;
    return send_list(false);
  }
  if (absent || !e.ec) {
    // Gone, or owned by another session (an expired one of ours): never adopt it.
    candidates_.erase(candidates_.begin());
    return check_next_candidate(false);
  }
  if (outcome_unknown(e.ec)) return check_next_candidate(true);
  if (ends_session(e.ec)) return end_session(e.ec);
  fail(e.ec);
}

void contender_fsm::on_predecessor_read(const contender_event::node_read& e) {
  const bool gone = e.ec == zk_errc::no_node || (!e.ec && !e.stat);
  if (gone) return send_list(false);  // vanished between our listing and the watch
  if (!e.ec) return;                  // watch armed: wait for it
  if (outcome_unknown(e.ec)) return send_list(true);
  if (ends_session(e.ec)) return end_session(e.ec);
  fail_and_delete(e.ec);
}

void contender_fsm::on_own_node_read(const contender_event::node_read& e) {
  if (!e.ec && e.stat && e.stat->ephemeral_owner == config_.session_id) {
    if (in_doubt_) {
      in_doubt_ = false;
      out_.push_back(set_in_doubt{false});
    }
    return;
  }
  if (e.ec == zk_errc::no_node || !e.ec) return lose(make_error_code(errc::lock_lost));
  if (outcome_unknown(e.ec)) return send_watch(own_path_, true);
  if (ends_session(e.ec)) return end_session(e.ec);
  // A permanent error reading our own node (e.g. an ACL without READ for us): the lock is
  // still ours; only the early notice of its deletion is missing. Session events still count.
  watch_tag_ = 0;
}

void contender_fsm::on_own_watch_read(const contender_event::node_read& e) {
  if (!e.ec && e.stat && e.stat->ephemeral_owner == config_.session_id) {
    own_node_confirmed_ = true;
    return;
  }
  // Deleted by someone else while we wait (or, impossibly, another session's): never a grant.
  if (e.ec == zk_errc::no_node || !e.ec) return own_node_vanished();
  if (ends_session(e.ec)) return end_session(e.ec);
  // Unknown outcome: armed again after the next listing (the reconnect lists again).
  if (outcome_unknown(e.ec)) return forget_own_watch();
  // A permanent error (no READ on our node): no proof that our node is there, so each
  // wake-up of this wait lists.
  own_node_confirmed_ = false;
}

void contender_fsm::on_own_watch_fired(const contender_event::watch_fired& e) {
  own_watch_tag_ = 0;
  own_node_confirmed_ = false;
  if (e.deleted) return own_node_vanished();
  send_own_watch();  // its data was set: still ours, watch it again
}

void contender_fsm::on(const contender_event::watch_fired& e) {
  if (own_watch_tag_ != 0 && e.tag == own_watch_tag_) return on_own_watch_fired(e);
  if (watch_tag_ == 0 || e.tag != watch_tag_) return;
  watch_tag_ = 0;  // one-shot: consumed, nothing to drop
  if (state_ == state::watching_predecessor) {
    // Our blocker is gone. Sequence numbers come from the parent's counter, which only grows
    // while our node exists, so no node can have appeared ahead of ours since our last
    // listing: if every node of it that blocked us is gone, the listing's verdict without
    // them is the policy's verdict now, and a listing would only repeat it (one round trip
    // per hand-off saved). We know they are gone when the blocker was the only one, or when
    // the session saw as many of them deleted as there were (every_node_ahead_seen_deleted).
    // A change that is not a deletion, a listing we no longer trust (a session event since:
    // our node or our view may be stale) or nodes ahead not known to be gone need a listing.
    // Our own node must still be there too: someone else may have deleted it while we waited.
    // Its watch was armed (and its read found it) before this event: a deletion of our node
    // came before the blocker's (the server sends a session's watch events in zxid order), so
    // we saw it already, or the session did (own_node_seen_deleted) if the executor ran the
    // two events out of order.
    const bool own_node_there = own_node_confirmed_ && !e.own_node_seen_deleted;
    if (e.deleted && view_trusted_ && own_node_there &&
        (others_ahead_ == 0 || every_node_ahead_seen_deleted(e)))
      return grant();
    return send_list(false);
  }
  if (state_ == state::watching_children) return send_watch_children(false);
  if (state_ == state::held) return send_watch(own_path_, false);
}

bool contender_fsm::every_node_ahead_seen_deleted(const contender_event::watch_fired& e) const {
  // Only where every node ahead of ours blocks us (the exclusive rule: lock, write lock,
  // election): the count does not tell a reader's blockers (writers) from readers ahead.
  if (config_.policy.kind() != grant_policy::rule::exclusive) return false;
  if (!deletions_at_listing_ || !e.deletions_seen) return false;
  // The count since the listing only holds nodes of that listing ahead of ours (see
  // recipe/deletion_log.hpp): the blocker and the others_ahead_ others. Fewer: some may still
  // be there. (More cannot happen; if it did, listing is the safe answer.)
  return *e.deletions_seen >= *deletions_at_listing_ &&
         *e.deletions_seen - *deletions_at_listing_ == others_ahead_ + 1;
}

void contender_fsm::on(const contender_event::node_deleted& e) {
  if (state_ != state::deleting || e.tag != expected_tag_) return;
  if (!e.ec) return finish_delete({});
  if (e.ec == zk_errc::no_node) {
    return finish_delete(release_pending_ ? make_error_code(errc::lock_lost) : error_code{});
  }
  if (outcome_unknown(e.ec)) return start_delete(true);  // guaranteed delete
  if (ends_session(e.ec)) return end_session(e.ec);
  finish_delete(e.ec);  // permanent: the node stays until the session ends
}

// ---- session and caller events --------------------------------------------------------------

void contender_fsm::on(const contender_event::session_changed& e) {
  // After any session event our node or the view of the queue may be stale (a reconnect
  // may hide a lost reply or an expiry): the next wake-up lists again.
  view_trusted_ = false;
  switch (e.state) {
    case session_state::expired:
      return end_session(make_error_code(zk_errc::session_expired));
    case session_state::closed:
      return end_session(make_error_code(errc::closed));
    case session_state::connected:
      // A new session: ours ended even if its expiry was not reported to us.
      return end_session(make_error_code(zk_errc::session_expired));
    case session_state::suspended:
      if (state_ == state::held && !in_doubt_) {
        in_doubt_ = true;
        out_.push_back(set_in_doubt{true});
      }
      return;
    case session_state::reconnected:
      return on_reconnected();
    case session_state::connecting:
      return;
  }
}

void contender_fsm::on_reconnected() {
  // A reconnect is not a grant: verify our node (and, waiting, our place) before anything.
  if (state_ == state::held) return send_watch(own_path_, false);
  if (state_ == state::watching_predecessor) {
    forget_own_watch();  // armed again after the listing, confirmed by a fresh read
    return send_list(false);
  }
  if (state_ == state::watching_children) return send_watch_children(false);
  // Other states have a request outstanding; it either answers or fails and is retried.
}

void contender_fsm::on(const contender_event::abort_requested& e) {
  if (!acquire_pending_) return;
  complete_acquire(e.reason);
  if (state_ == state::listing || state_ == state::watching_predecessor ||
      state_ == state::watching_children) {
    start_delete(false);
  }
  // While creating or recovering, the clean-up waits until we know whether our node exists.
}

void contender_fsm::on(const contender_event::release_requested&) {
  if (state_ == state::held) {
    release_pending_ = true;
    return start_delete(false);
  }
  if (state_ == state::deleting && release_pending_) return;  // one release at a time
  out_.push_back(complete_release{make_error_code(lost_ ? errc::lock_lost : errc::not_held)});
}

// ---- requests ------------------------------------------------------------------------------

void contender_fsm::send_create() {
  ++create_attempts_;
  state_ = state::creating;
  expected_tag_ = new_tag();
  out_.push_back(create_node{{expected_tag_, false},
                             join_path(config_.lock_path, config_.node_prefix),
                             config_.node_data});
  // Pipelined: the server answers a session's requests in order, so this listing is taken
  // after our create and costs no extra round trip.
  pipelined_list_tag_ = new_tag();
  out_.push_back(list_children{{pipelined_list_tag_, false}, config_.lock_path, false});
}

void contender_fsm::create_again(error_code why) {
  if (create_attempts_ >= max_create_attempts) return fail(why);
  send_create();
}

void contender_fsm::send_create_parents(bool after_reconnect) {
  state_ = state::creating_parents;
  expected_tag_ = new_tag();
  out_.push_back(create_parents{{expected_tag_, after_reconnect}, config_.lock_path});
}

void contender_fsm::send_find_own_node(bool after_reconnect) {
  state_ = state::finding_own_node;
  expected_tag_ = new_tag();
  out_.push_back(list_children{{expected_tag_, after_reconnect}, config_.lock_path, true});
}

void contender_fsm::check_next_candidate(bool after_reconnect) {
  if (candidates_.empty()) {
    if (abandoned_) return finish();
    return create_again(make_error_code(zk_errc::connection_loss));
  }
  state_ = state::checking_candidate;
  expected_tag_ = new_tag();
  out_.push_back(read_node{{expected_tag_, after_reconnect},
                           join_path(config_.lock_path, candidates_.front())});
}

void contender_fsm::send_list(bool after_reconnect) {
  forget_watch();
  state_ = state::listing;
  expected_tag_ = new_tag();
  out_.push_back(list_children{{expected_tag_, after_reconnect}, config_.lock_path, false});
}

void contender_fsm::send_watch(const std::string& path, bool after_reconnect) {
  forget_watch();
  expected_tag_ = new_tag();
  watch_tag_ = expected_tag_;
  out_.push_back(watch_node{{expected_tag_, after_reconnect}, path});
}

void contender_fsm::send_own_watch() {
  own_watch_tag_ = new_tag();
  own_node_confirmed_ = false;
  out_.push_back(watch_own_node{{own_watch_tag_, false}, own_path_});
}

void contender_fsm::send_watch_children(bool after_reconnect) {
  forget_watch();
  state_ = state::watching_children;
  expected_tag_ = new_tag();
  watch_tag_ = expected_tag_;
  out_.push_back(watch_children{{expected_tag_, after_reconnect}, config_.lock_path});
}

void contender_fsm::start_delete(bool after_reconnect) {
  // Held, the watch we rely on is our own node's. Our delete fires it (the server sends a
  // session the events of a change before the change's reply), so it is dropped once we are
  // done rather than removed from the server first: one request less before every release.
  if (state_ == state::held && watch_tag_ != 0) parting_watch_tag_ = std::exchange(watch_tag_, 0);
  forget_watch();
  forget_own_watch();
  state_ = state::deleting;
  expected_tag_ = new_tag();
  out_.push_back(delete_node{{expected_tag_, after_reconnect}, own_path_});
}

// ---- outcomes ------------------------------------------------------------------------------

void contender_fsm::grant() {
  state_ = state::held;
  acquire_pending_ = false;
  out_.push_back(contender_action::complete_acquire{{}, node_grant{own_path_, own_stat_}});
  if (own_watch_tag_ != 0 && own_node_confirmed_) {
    // The wait's watch on our own node goes on: it reports the node's loss while held (no
    // request of the grant's own).
    forget_watch();
    watch_tag_ = expected_tag_ = std::exchange(own_watch_tag_, 0);
    own_node_confirmed_ = false;
    return;
  }
  forget_own_watch();
  // Watch our own node so that its deletion by someone else is reported as lost at once.
  send_watch(own_path_, false);
}

void contender_fsm::complete_acquire(error_code ec) {
  if (!acquire_pending_) return;
  acquire_pending_ = false;
  abandoned_ = true;
  out_.push_back(contender_action::complete_acquire{ec, std::nullopt});
}

void contender_fsm::fail(error_code ec) {
  complete_acquire(ec);
  finish();
}

void contender_fsm::fail_and_delete(error_code ec) {
  complete_acquire(ec);
  start_delete(false);
}

void contender_fsm::own_node_vanished() {
  // Deleted by someone else while we waited. Not re-created: the caller decides.
  own_path_.clear();
  fail(make_error_code(errc::lock_lost));
}

void contender_fsm::lose(error_code reason) {
  lost_ = true;
  own_path_.clear();
  out_.push_back(report_lost{reason});
  finish();
}

void contender_fsm::end_session(error_code ec) {
  if (state_ == state::done) return;
  const error_code reason = session_end_reason(ec);
  // Every ephemeral node of the session is gone with it: nothing to delete.
  complete_acquire(reason);
  if (state_ == state::held) {
    lost_ = true;
    out_.push_back(report_lost{reason});
  }
  if (std::exchange(release_pending_, false)) out_.push_back(complete_release{reason});
  own_path_.clear();
  finish();
}

void contender_fsm::finish_delete(error_code ec) {
  if (std::exchange(release_pending_, false)) out_.push_back(complete_release{ec});
  own_path_.clear();
  finish();
}

void contender_fsm::finish() {
  forget_watch();
  if (parting_watch_tag_ != 0) out_.push_back(drop_watch{std::exchange(parting_watch_tag_, 0)});
  forget_own_watch();
  state_ = state::done;
  out_.push_back(finished{});
}

void contender_fsm::forget_watch() {
  if (watch_tag_ != 0) out_.push_back(drop_watch{std::exchange(watch_tag_, 0)});
}

void contender_fsm::forget_own_watch() {
  own_node_confirmed_ = false;
  if (own_watch_tag_ != 0) out_.push_back(drop_watch{std::exchange(own_watch_tag_, 0)});
}

const char* to_string(contender_fsm::state s) noexcept {
  switch (s) {
    case contender_fsm::state::idle:
      return "idle";
    case contender_fsm::state::creating:
      return "creating";
    case contender_fsm::state::creating_parents:
      return "creating_parents";
    case contender_fsm::state::finding_own_node:
      return "finding_own_node";
    case contender_fsm::state::checking_candidate:
      return "checking_candidate";
    case contender_fsm::state::listing:
      return "listing";
    case contender_fsm::state::watching_predecessor:
      return "watching_predecessor";
    case contender_fsm::state::watching_children:
      return "watching_children";
    case contender_fsm::state::held:
      return "held";
    case contender_fsm::state::deleting:
      return "deleting";
    case contender_fsm::state::done:
      return "done";
  }
  return "unknown";
}

}  // namespace zkcoord::detail
