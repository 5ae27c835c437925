// SPDX-License-Identifier: Apache-2.0
// Leader election: participants queue as ephemeral-sequential children of the election path
// (Apache Curator's LeaderLatch layout, `_c_<uuid>-latch-<seq>` with the participant id as node
// data, so Curator LeaderLatch clients take part in the same election), the first leads, and the
// leader gets a leadership handle whose term token is the czxid of its node. Observers list the
// participants and follow the changes without contending.
#pragma once

#include <zkcoord/detail/contender_handle.hpp>
#include <zkcoord/detail/queries.hpp>
#include <zkcoord/detail/session_access.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/export.hpp>
#include <zkcoord/ownership.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/types.hpp>

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/async_result.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace zkcoord {

namespace detail {
class contender_slot;
class election_observer_state;
}  // namespace detail

/// One leadership term (the one ownership handle every recipe returns; see ownership.hpp).
/// token() is the TERM token: the czxid of our latch node, larger than the token of every
/// earlier leader of this election path. It fences writes exactly as a lock token does
/// (fenced.hpp, or pass it to the storage you protect). async_wait_lost reports the end of the
/// term (errc::lock_lost: our node was deleted; session_expired; closed). async_release
/// relinquishes: our node is deleted, the next participant is elected, and the session stays.
using leadership = ownership;

/// The longest participant id accepted, in bytes (the id is node data and shows in every
/// listing; a sane bound far below ZooKeeper's 1 MiB node limit).
inline constexpr std::size_t max_participant_id_size = 1024;

/// One participant of an election at `election_path` on one session. Not re-entrant: while a
/// campaign of this object is pending, or the leadership it produced still leads, another
/// campaign completes with errc::already_held. To rejoin after relinquishing or losing a
/// term, campaign again: the new node joins at the tail of the queue, with a new (higher)
/// term token if it is elected.
///
/// A campaign creates our node and waits behind the immediate predecessor only. Whenever a
/// campaign does not end in leadership (error, timeout, cancellation, destruction of this
/// object), our node is deleted: retried after reconnect until it succeeds or the session
/// ends. If the session expires while waiting, the campaign fails with session_expired; it is
/// never re-queued on the next session (campaign again on it).
///
/// Errors of async_campaign: errc::bad_argument (participant id too long, or holding a NUL
/// byte or '/'; logged with the reason), errc::bad_path, errc::recipe_mismatch (the path holds
/// nodes of another recipe, e.g. a lock's: nobody can be elected there), errc::already_held,
/// errc::timeout, operation_aborted (cancelled, or this object destroyed),
/// zk_errc::session_expired, errc::closed, errc::lock_lost (our node was deleted by someone
/// else while we waited), errc::not_connected, and ZooKeeper's permanent errors (e.g.
/// zk_errc::no_auth). No node is left behind by a failed campaign.
///
/// Cancellation (per-operation, any type): the campaign completes promptly with
/// operation_aborted; our node is deleted in the background.
class ZKCOORD_EXPORT election : private detail::contender_handle<detail::contender_slot> {
 public:
  /// Missing parents of `election_path` are created as CONTAINER nodes (the server removes
  /// them once empty). `participant_id` is written as our node's data, as Curator's LeaderLatch
  /// does (UTF-8; "" is allowed and gives empty data). Throws nothing; a bad path or id is
  /// reported by the campaign.
  election(session& s, std::string election_path, std::string participant_id);
  /// Destroying it or assigning over it aborts a pending campaign (operation_aborted). A leadership
  /// it produced stays valid.
  election(election&&) noexcept = default;
  election& operator=(election&&) noexcept = default;

  using contender_handle::path;
  const std::string& participant_id() const noexcept;

  /// Waits until elected. Signature: void(error_code, leadership).
  template <detail::token_not_duration Token = boost::asio::deferred_t>
  auto async_campaign(Token&& token = {}) {
    return initiate_campaign(detail::acquire_request{}, token);
  }
  /// Waits at most `timeout` (errc::timeout after it; our node is deleted).
  /// Signature: void(error_code, leadership).
  template <class Token = boost::asio::deferred_t>
  auto async_campaign(std::chrono::steady_clock::duration timeout, Token&& token = {}) {
    return initiate_campaign(detail::acquire_request{.try_once = false, .timeout = timeout}, token);
  }

 private:
  template <class Token>
  auto initiate_campaign(detail::acquire_request request, Token& token) {
    return boost::asio::async_initiate<Token, void(error_code, leadership)>(
        [](auto handler, std::shared_ptr<detail::contender_slot> state, std::string id,
           detail::acquire_request req) {
          start_campaign(std::move(state), id, req,
                         detail::completion<leadership>(std::move(handler)));
        },
        token, state_, id_, request);
  }
  static void start_campaign(std::shared_ptr<detail::contender_slot> state,
                             const std::string& participant_id, detail::acquire_request request,
                             detail::completion<leadership> handler);

  std::string id_;
};

/// One participant of an election, as async_participants and election_observer report it.
struct participant {
  std::string id;               ///< the node data: the participant id (Curator: its LeaderLatch id)
  std::string node;             ///< the child's name (without the election path)
  fencing_token term;           ///< its czxid: the term token it has or will get when elected
  std::int64_t session_id = 0;  ///< its ephemeralOwner
  bool leader = false;          ///< the first participant in sequence order (Curator getLeader)
  friend bool operator==(const participant&, const participant&) = default;
};

/// The participants of the election at `election_path` in sequence order, the leader first
/// and marked (empty if the path does not exist). This is ZooKeeper's order, the one Curator's
/// getParticipants/getLeader report: just after a leader leaves, the new first may not know
/// yet that it leads. Children that are not latch nodes are ignored if they are not recipe
/// nodes at all; nodes of another recipe (a lock's) fail the call with errc::recipe_mismatch.
/// Nodes that vanish while being read are left out. Errors: errc::bad_path,
/// errc::recipe_mismatch, session and permanent errors. Does not contend.
/// Signature: void(error_code, std::vector<participant>).
template <class Token = boost::asio::deferred_t>
auto async_participants(session& s, std::string election_path, Token&& token = {}) {
  return boost::asio::async_initiate<Token, void(error_code, std::vector<participant>)>(
      [](auto handler, std::shared_ptr<detail::session_impl> impl, std::string path) {
        detail::start_participants(
            impl, std::move(path),
            detail::completion<std::vector<participant>>(std::move(handler)));
      },
      token, detail::session_access::impl(s), std::move(election_path));
}

/// Follows the participants of the election at `election_path` without contending. The first
/// async_wait_change completes at once with the current participants; each later one completes
/// once they differ from the list the previous call returned (a node joined or left, so a new
/// leader shows as a new first). The watch that covers a read is armed by that read and stays
/// armed between two calls, so no change is missed between two waits; changes that cancel out
/// before the next read (a node that came and went) are not reported. A missing path is an
/// empty list, and its creation is noticed. After a connection loss or a session expiry the
/// observer reads again once the session is back (on a new session if it was renewed).
///
/// Errors: errc::bad_path, errc::recipe_mismatch (as async_participants), errc::already_held (a
/// wait of this observer is pending), errc::closed, operation_aborted (cancelled, or the observer
/// destroyed), permanent errors (e.g. zk_errc::no_auth). After an error the next call reads
/// afresh and completes at once. Signature: void(error_code, std::vector<participant>).
class ZKCOORD_EXPORT election_observer {
 public:
  election_observer(session& s, std::string election_path);
  /// Aborts a pending wait (operation_aborted) and removes the watches.
  ~election_observer();
  election_observer(election_observer&&) noexcept;
  election_observer& operator=(election_observer&&) noexcept;
  election_observer(const election_observer&) = delete;
  election_observer& operator=(const election_observer&) = delete;

  const std::string& path() const noexcept;

  /// Signature: void(error_code, std::vector<participant>). Cancellable (operation_aborted).
  template <class Token = boost::asio::deferred_t>
  auto async_wait_change(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code, std::vector<participant>)>(
        [](auto handler, std::shared_ptr<detail::election_observer_state> state) {
          start_wait_change(std::move(state),
                            detail::completion<std::vector<participant>>(std::move(handler)));
        },
        token, state_);
  }

 private:
  static void start_wait_change(std::shared_ptr<detail::election_observer_state> state,
                                detail::completion<std::vector<participant>> handler);

  std::shared_ptr<detail::election_observer_state> state_;
};

}  // namespace zkcoord
