// SPDX-License-Identifier: Apache-2.0
// The metrics observer: what a session and every recipe on it report (requests, state
// changes, the lease, acquires, grants and losses), for a metrics system to count. Set one
// through session_options::metrics; zkcoord/prometheus.hpp has a Prometheus implementation.
// docs/metrics.md says what each report means.
#pragma once

#include <zkcoord/error.hpp>
#include <zkcoord/export.hpp>
#include <zkcoord/types.hpp>

#include <chrono>
#include <string_view>

namespace zkcoord {

/// The recipe a report is about (a label of low cardinality: these six values).
enum class recipe_kind {
  lock,        ///< zkcoord::lock
  read_lock,   ///< the read side of zkcoord::rw_lock
  write_lock,  ///< the write side of zkcoord::rw_lock
  semaphore,   ///< zkcoord::semaphore (one report per lease, not per internal step)
  election,    ///< zkcoord::election: acquire = becoming the leader
  membership,  ///< zkcoord::membership: acquire = the join, loss = a registration that ended
};
/// "lock", "read_lock", "write_lock", "semaphore", "election", "membership".
ZKCOORD_EXPORT const char* to_string(recipe_kind k) noexcept;

/// A request a session handed to the ZooKeeper C client (the members of request_counts).
enum class request_type { create, remove, set, get, exists, children, multi, sync, lease_renewal };
/// "create", "remove", "set", "get", "exists", "children", "multi", "sync", "lease_renewal".
ZKCOORD_EXPORT const char* to_string(request_type t) noexcept;

/// What a recipe report is about.
struct recipe_labels {
  recipe_kind kind;
  /// The recipe's path as the caller gave it (a semaphore's own path, not its internal
  /// children). Valid during the call only: copy it to keep it.
  std::string_view path;
};

/// Receives a session's reports and its recipes'. Every callback has a no-op default;
/// override those you count.
///
/// Threading: callbacks come from whatever thread the event happens on, possibly several at
/// once: the thread that starts a request or an acquire, the session's executor (state
/// changes, timers), or a ZooKeeper C client thread (replies). Each callback must be
/// thread-safe, quick and non-blocking, must not throw (they are noexcept) and must not call
/// back into zkcoord (some are made while a recipe holds its own lock). Counting with
/// atomics is what they are for.
///
/// Cost: a session without an observer pays one null-pointer check per report.
class ZKCOORD_EXPORT metrics_observer {
 public:
  virtual ~metrics_observer() = default;

  // ---- the session ----

  /// A request was handed to the C client (counted as session::sent_requests() counts it,
  /// just before it is sent). On the sending thread.
  virtual void request_sent(request_type /*type*/) noexcept {}
  /// The session's state changed to `now` (session_state: reconnected is a reconnect with
  /// the same session, expired an expiry). On the session's executor; `closed` from
  /// session::close() or the session's destructor comes on the thread that called it.
  virtual void session_state_changed(session_state /*now*/) noexcept {}
  /// A reply that a quorum acknowledged (a write, or a lease renewal) renewed the lease:
  /// `margin` is how long the lease now lasts (session::lease_deadline() minus now) without
  /// another such reply. On a C client thread.
  virtual void lease_renewed(std::chrono::steady_clock::duration /*margin*/) noexcept {}

  // ---- the recipes on the session ----

  /// An acquire (a lock's async_acquire, a campaign, a join, ...) started. Each is followed
  /// by exactly one acquire_finished. One refused before it reached ZooKeeper (bad path,
  /// already_held, a session not connected) reports nothing. On the caller's thread.
  virtual void acquire_started(const recipe_labels& /*recipe*/) noexcept {}
  /// The acquire ended: `ec` empty for a grant, else why not (errc::timeout, errc::busy for
  /// a try-acquire, operation_aborted, session_expired, ...). `waited`: since
  /// acquire_started. Any thread.
  virtual void acquire_finished(const recipe_labels& /*recipe*/, error_code /*ec*/,
                                std::chrono::steady_clock::duration /*waited*/) noexcept {}
  /// Something granted was lost without being released: `reason` is what async_wait_lost
  /// reports (lock_lost, session_expired, closed when this process closed the session), or
  /// for a member, a registration that ended and was made again or ended for good. Any
  /// thread.
  virtual void ownership_lost(const recipe_labels& /*recipe*/, error_code /*reason*/) noexcept {}
};

}  // namespace zkcoord
