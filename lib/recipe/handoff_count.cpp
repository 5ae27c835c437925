// SPDX-License-Identifier: Apache-2.0
// Registering a waiter's listings with its session's deletion_log and attaching the counts.
#include "recipe/handoff_count.hpp"

#include "recipe/node_name.hpp"
#include "recipe/sequence.hpp"

namespace zkcoord::detail {

void handoff_count::start(const contender_fsm& fsm, deletion_log& log, std::int64_t session) {
  if (fsm.config().policy.kind() != grant_policy::rule::exclusive) return;
  log.open(interest_, session, fsm.config().lock_path);
}

contender_event_t handoff_count::attach(const contender_fsm& fsm, deletion_log& log,
                                        std::int64_t session, const contender_event_t& event) {
  using namespace contender_event;
  const auto* listed = std::get_if<children_listed>(&event);
  const auto* fired = std::get_if<watch_fired>(&event);
  // Our own node is guarded from the first event the machine may arm its watch on (a
  // listing), before the watch is sent: whatever the session is told of it is kept.
  if (!guard_done_ && guarded_.empty() && !fsm.own_node().empty() &&
      fsm.config().policy.kind() != grant_policy::rule::counted) {
    guarded_ = fsm.own_node();
    guard_session_ = session;
    guard_log_ = log.weak();
    log.guard_node(session, guarded_);
  }
  if (fired && fired->deleted && !guarded_.empty() &&
      log.node_told_deleted(guard_session_, guarded_)) {
    auto told = *fired;
    told.own_node_seen_deleted = true;
    return told;  // no hand-off without a listing: the count does not matter
  }
  if (fsm.config().policy.kind() != grant_policy::rule::exclusive) return event;
  if (!(listed && !listed->ec && listed->children) && !(fired && fired->deleted && interest_))
    return event;
  const auto own = parse_sequenced_name(node_name_of(fsm.own_node()));
  if (!own) return event;
  if (fired) {
    auto counted = *fired;
    counted.deletions_seen = log.deleted_ahead(interest_, own->sequence);
    return counted;
  }
  const contender_queue& queue = *listed->children;
  if (queue.empty() || queue.straddles_overflow()) return event;
  // Granted at once (nothing ahead), or one node ahead (its deletion alone decides): the count
  // is not needed for this listing (the interest stays open for a later one).
  const auto position = queue.position_of(node_name_of(fsm.own_node()));
  if (!position || *position < 2) return event;
  auto counted = *listed;
  counted.deletions_seen =
      log.register_listing(interest_, session, fsm.config().lock_path,
                           queue.nodes().front().sequence, own->sequence, listed->deletion_stamp);
  return counted;
}

void handoff_count::settle(const contender_fsm& fsm) noexcept {
  using state = contender_fsm::state;
  const auto now = fsm.current_state();
  if (now == state::held || now == state::deleting || now == state::done) {
    interest_.reset();
    guard_done_ = true;
    end_guard();
  }
}

void handoff_count::end_guard() noexcept {
  if (guarded_.empty()) return;
  if (auto log = guard_log_.lock()) log->forget_node(guard_session_, guarded_);
  guarded_.clear();
  guard_log_.reset();
}

}  // namespace zkcoord::detail
