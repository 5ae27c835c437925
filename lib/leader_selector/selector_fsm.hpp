// SPDX-License-Identifier: Apache-2.0
// The leader selector's decisions without I/O: when to queue (create our lock node), when to
// call the handler, when to release, when a run ends, and what close() does in each phase.
// lib/leader_selector/leader_selector.cpp carries them out. Each rule that keeps a Curator
// LeaderSelector bug away is one branch here, unit-tested in test/unit/test_selector_fsm.cpp.
#pragma once

#include <zkcoord/error.hpp>

#include <optional>

namespace zkcoord::detail {

enum class selector_phase {
  idle,             ///< no run active: no node of ours
  queued,           ///< an acquire is pending: our node waits in the queue
  waiting_session,  ///< auto-requeue after a session problem: queue once the session is back
  leading,          ///< the handler holds the term
  releasing,        ///< our node is being deleted (the term ended or the selector closed)
};

/// What to do after an event. Several may be set; the driver performs them in this order.
struct selector_actions {
  std::optional<error_code> refuse_run;    ///< complete the new async_run at once with this
  bool enqueue = false;                    ///< start an acquire: a new node at the tail
  bool abort_wait = false;                 ///< abort the pending acquire (deletes OUR node only)
  bool start_handler = false;              ///< call the handler with the term
  bool signal_lost = false;                ///< fire the term's lost signal (operation_aborted)
  bool release_term = false;               ///< delete the node of the term we hold
  bool retry_later = false;                ///< queue once the session is usable again
  std::optional<error_code> complete_run;  ///< the active run ends with this
};

class selector_fsm {
 public:
  explicit selector_fsm(bool auto_requeue) noexcept : auto_requeue_(auto_requeue) {}

  /// async_run was called.
  selector_actions on_run();
  /// The pending acquire granted the lock.
  selector_actions on_granted();
  /// The pending acquire ended without a grant.
  selector_actions on_acquire_failed(error_code ec);
  /// The handler let go of the term.
  selector_actions on_term_ended();
  /// The term's node is deleted (or gone with the session).
  selector_actions on_released();
  /// The session is usable again (after waiting_session).
  selector_actions on_session_ready();
  /// close(): the selector stops for good.
  selector_actions on_close();

  selector_phase phase() const noexcept { return phase_; }
  bool closed() const noexcept { return closed_; }

 private:
  selector_actions end_run(error_code ec);

  const bool auto_requeue_;
  selector_phase phase_ = selector_phase::idle;
  bool closed_ = false;
};

/// Whether an acquire that failed with `ec` is queued again under auto-requeue (the session was
/// lost or is being replaced, or our node was deleted) rather than ending the run.
bool requeue_after(error_code ec) noexcept;

}  // namespace zkcoord::detail
