// SPDX-License-Identifier: Apache-2.0
// Leader selection, callback style (Apache Curator's LeaderSelector): participants queue on the
// exclusive lock's layout (`_c_<uuid>-lock-<seq>`, the participant id as node data, so a Curator
// LeaderSelector or InterProcessMutex on the same path contends as an equal), and the one that
// holds the lock leads while its handler runs. The handler gets the term: the held lock, its
// fencing token and the signal that the term is lost. With auto-requeue the selector joins the
// queue again at the tail when the handler lets go of the term.
#pragma once

#include <zkcoord/detail/completion.hpp>
#include <zkcoord/election.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/export.hpp>
#include <zkcoord/ownership.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/types.hpp>

#include <boost/asio/async_result.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace zkcoord {

namespace detail {
class selector_state;
class term_state;
}  // namespace detail

struct leader_selector_options {
  /// Curator's autoRequeue(): when a term ends (the handler let go of it, or it was lost), join
  /// the queue again at the tail; after a session expiry, on the session that follows. Without
  /// it the selector stops after one term (async_run completes).
  bool auto_requeue = false;
};

/// One leadership term, as the selector's handler gets it. The term lasts until the handler
/// lets go of it: the leader_term (and every object it was moved into) is destroyed, or
/// finish() is called. Then the selector deletes its lock node (the next participant leads)
/// and, with auto-requeue, queues again. Move-only; the accessors may be called from any thread.
class ZKCOORD_EXPORT leader_term {
 public:
  /// An empty term: held() owns nothing, token() is 0, lost() is true.
  leader_term() noexcept = default;
  /// Ends the term (as finish()).
  ~leader_term();
  leader_term(leader_term&&) noexcept = default;
  /// Ends the term this object holds before taking over.
  leader_term& operator=(leader_term&& other) noexcept;
  leader_term(const leader_term&) = delete;
  leader_term& operator=(const leader_term&) = delete;

  /// The term token: the czxid of our lock node, larger than the token of every earlier leader
  /// (and lock holder) of this path. Pass it to what you protect, or write with fenced.hpp.
  fencing_token token() const noexcept;
  /// The held lock (fenced writes, valid_until, path). Its owns() turns false once the term is
  /// released or lost.
  const ownership& held() const noexcept;
  /// Whether the term is over or must end (the lost signal has fired, or finish() was called).
  bool lost() const noexcept;

  /// The lost signal: completes when the handler must stop, with the reason:
  /// - errc::lock_lost: our node was deleted by someone else;
  /// - zk_errc::session_expired: the session is gone (with our node);
  /// - zk_errc::connection_loss: the session was suspended (contact lost: another participant
  ///   may lead once our session expires; Curator's LeaderSelectorListenerAdapter ends
  ///   leadership on SUSPENDED too);
  /// - errc::closed: the session was closed;
  /// - operation_aborted: the selector was closed or destroyed (our node is already deleted).
  /// Completes at once if the term is already lost; with errc::not_held after finish() or on an
  /// empty term. Any number of waits may be pending. Cancellable (any type; operation_aborted).
  /// Signature: void(error_code).
  template <class Token = boost::asio::deferred_t>
  auto async_wait_lost(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [](auto handler, std::shared_ptr<detail::term_state> state) {
          start_wait_lost(std::move(state), detail::void_completion(std::move(handler)));
        },
        token, state_);
  }

  /// Ends the term now: our node is deleted (the next participant leads) and, with auto-requeue,
  /// the selector queues again. Idempotent.
  void finish() noexcept;

 private:
  friend class detail::selector_state;
  explicit leader_term(std::shared_ptr<detail::term_state> state) noexcept;
  static void start_wait_lost(std::shared_ptr<detail::term_state> state,
                              detail::void_completion handler);
  std::shared_ptr<detail::term_state> state_;
};

/// One participant of a leader selection at `path` on one session (Curator's LeaderSelector).
///
/// async_run queues (creates our lock node, waits behind the immediate predecessor only) and,
/// each time we hold the lock, calls the handler with the term on the session's executor.
/// Leadership lasts while the handler holds the term. The handler runs on the session's
/// executor: a handler that blocks blocks that executor; long work belongs in a coroutine or a
/// thread that the term is moved into.
///
/// A selector object is one participant: at most one node of it is queued or leading at any
/// time. Its rules (docs/leader_selector.md):
/// - async_run while a run is active completes with errc::already_held and creates no node
///   (requeue while queued or leading). A run started once the previous one completed (its
///   term just ended) queues once and leads again (CURATOR-671).
/// - With auto-requeue, a term ended twice, or ended while its node is lost, queues again
///   exactly once: a second interruption never cancels the requeue (CURATOR-518).
/// - After close() nothing queues again: a pending run ends, an auto-requeue does not happen,
///   and a later async_run completes with operation_aborted without creating a node.
/// - close() while waiting deletes only our own node (the pending acquire is aborted; nobody
///   else's node is touched, nothing throws); while leading it fires the lost signal and
///   deletes our node at once, without waiting for the handler (no node left behind by a
///   close during leadership, no failed release: CURATOR-337, CURATOR-468).
class ZKCOORD_EXPORT leader_selector {
 public:
  /// Called once per term, with the term. See leader_term for when the term ends.
  using handler_type = std::function<void(leader_term)>;

  /// Missing parents of `path` are created as CONTAINER nodes. `participant_id` is our node's
  /// data (Curator's setId(); UTF-8, at most max_participant_id_size bytes, no NUL or '/').
  /// Throws nothing; a bad path or id is reported by async_run.
  leader_selector(session& s, std::string path, std::string participant_id, handler_type handler,
                  leader_selector_options options = {});
  /// Closes the selector (close()).
  ~leader_selector();
  leader_selector(leader_selector&&) noexcept = default;
  /// Closes this selector before taking over the other.
  leader_selector& operator=(leader_selector&& other) noexcept;
  leader_selector(const leader_selector&) = delete;
  leader_selector& operator=(const leader_selector&) = delete;

  const std::string& path() const noexcept;
  const std::string& participant_id() const noexcept;

  /// Runs the selector (Curator's start(); again after it stopped: requeue()). Completes when
  /// it stops: success after a term without auto-requeue; operation_aborted after close() (or
  /// cancellation of this operation, which closes the selector). Errors: errc::bad_path,
  /// errc::bad_argument (participant id refused; the log says why), errc::already_held (a run
  /// is active; no node created), errc::recipe_mismatch (the path holds another recipe's
  /// nodes), errc::closed, errc::not_connected, permanent errors (zk_errc::no_auth). Without
  /// auto-requeue also the errors of a lock acquire (zk_errc::session_expired,
  /// errc::lock_lost); with it, those queue again once the session is back. No node is left
  /// behind when it completes. Signature: void(error_code).
  template <class Token = boost::asio::deferred_t>
  auto async_run(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [](auto handler, std::shared_ptr<detail::selector_state> state) {
          start_run(std::move(state), detail::void_completion(std::move(handler)));
        },
        token, state_);
  }

  /// Stops the selector: no more terms, no more queueing (see the class comment). Idempotent;
  /// throws nothing.
  void close() noexcept;

  /// The participants of this path in queue order, the leader first and marked (Curator's
  /// getParticipants). Nodes that vanish while being read are left out. Lock nodes of other
  /// clients (a Curator InterProcessMutex) are participants too, with their data as id.
  /// Errors: errc::bad_path, errc::recipe_mismatch, session and permanent errors.
  /// Signature: void(error_code, std::vector<participant>).
  template <class Token = boost::asio::deferred_t>
  auto async_participants(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code, std::vector<participant>)>(
        [](auto handler, std::shared_ptr<detail::selector_state> state) {
          start_participants(std::move(state),
                             detail::completion<std::vector<participant>>(std::move(handler)));
        },
        token, state_);
  }

  /// The leader (Curator's getLeader): the first node of the queue that still exists when read.
  /// A leader deleted between the listing and the read of its data is never reported, nor an
  /// empty id in its place: the next node is read, and if every listed node vanished the path
  /// is listed again (CURATOR-358). zk_errc::no_node (condition not_found) when nobody
  /// participates. Other errors as async_participants. Signature: void(error_code, participant).
  template <class Token = boost::asio::deferred_t>
  auto async_leader(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code, participant)>(
        [](auto handler, std::shared_ptr<detail::selector_state> state) {
          start_leader(std::move(state), detail::completion<participant>(std::move(handler)));
        },
        token, state_);
  }

 private:
  static void start_run(std::shared_ptr<detail::selector_state> state,
                        detail::void_completion handler);
  static void start_participants(std::shared_ptr<detail::selector_state> state,
                                 detail::completion<std::vector<participant>> handler);
  static void start_leader(std::shared_ptr<detail::selector_state> state,
                           detail::completion<participant> handler);

  std::shared_ptr<detail::selector_state> state_;
};

}  // namespace zkcoord
