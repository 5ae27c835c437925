// SPDX-License-Identifier: Apache-2.0
// The glue between one contender machine and its session's deletion_log: registers the
// listings the machine decides on and attaches the counts to the events it decides a
// hand-off on (contender_fsm's every_node_ahead_seen_deleted). Shared by the Asio driver and
// the property test's in-memory world, so that both run the same code.
#pragma once

#include "recipe/contender_fsm.hpp"
#include "recipe/deletion_log.hpp"

#include <cstdint>
#include <memory>
#include <string>

namespace zkcoord::detail {

class handoff_count {
 public:
  /// Before the machine starts (creates its node and lists): opens its interest in the path,
  /// so that every deletion proof told after any of its listings is stamped is kept
  /// (deletion_log::open), until it holds or gives up.
  void start(const contender_fsm& fsm, deletion_log& log, std::int64_t session);
  /// `event` as the machine must get it: a listing or a deletion of the watched node with
  /// the session's count attached, where the machine's policy can use it (every node ahead
  /// blocks: the exclusive rule) and needs it (two or more nodes ahead); anything else
  /// unchanged. Call it when the event is fed, after
  /// the C client handed the reply or event on: the count can then only be higher than at
  /// that moment, which may cost a listing but never counts a node the listing did not show.
  contender_event_t attach(const contender_fsm& fsm, deletion_log& log, std::int64_t session,
                           const contender_event_t& event);
  /// After the machine was fed: the interest ends once it holds, deletes its node or is done.
  void settle(const contender_fsm& fsm) noexcept;

 private:
  deletion_log::interest interest_;
  // The machine's own node, guarded in the log (deletion_log::guard_node) from its first
  // listing until it holds or gives up: a deletion of its blocker is fed with whether the
  // session saw our node deleted (watch_fired::own_node_seen_deleted). Empty: none.
  std::string guarded_;
  std::int64_t guard_session_ = 0;
  std::weak_ptr<deletion_log> guard_log_;
  bool guard_done_ = false;  // the machine held or gave up: its node is never guarded again
  void end_guard() noexcept;

 public:
  handoff_count() = default;
  handoff_count(const handoff_count&) = delete;
  handoff_count& operator=(const handoff_count&) = delete;
  ~handoff_count() { end_guard(); }
};

}  // namespace zkcoord::detail
