// SPDX-License-Identifier: Apache-2.0
// The decision logic of one group member, with no I/O: fed events, it returns the actions a
// driver performs (the contender_fsm's style). It creates our ephemeral node, decides from the
// replies whether to adopt a node (ours: a create whose reply was lost), wait for one (left by
// an earlier session of ours that the server has not expired yet), refuse (another live
// session's: already_registered) or create again (deleted, or gone with an expired session),
// keeps the data in place, and deletes our node on leave or abort, only ever once it has been
// read to be ours.
#pragma once

#include "membership/member_fsm_io.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace zkcoord::detail {

struct member_config {
  std::string node_path;        ///< "<group path>/<id>"
  std::string data;             ///< the node's data at the join (update generation 0)
  std::int64_t session_id = 0;  ///< the session of the join
  /// The session starts a new session after expiry: the member re-registers on it. Without
  /// renewal an expiry ends the member (session_expired).
  bool renews_after_expiry = true;
};

/// Guarantees, whatever the order of results and events:
/// - the join completes exactly once; with a member only once our node exists;
/// - a node is adopted, waited for or deleted only after a read of its ephemeralOwner: ours
///   (adopt, delete), one of our earlier sessions (wait until it is gone), anyone else's
///   (never touched: already_registered);
/// - once the join is aborted or the member leaves, a node of ours that exists or may exist is
///   deleted (retried after reconnect until it succeeds or the session ends);
/// - every new node after the first is reported as a re-registration, with its cause;
/// - requests go out pinned to the session they were decided for.
class member_fsm {
 public:
  enum class state {
    idle,              ///< start() not called yet
    creating,          ///< create sent
    creating_parents,  ///< create failed with no_node: making the container parents
    checking,          ///< reading the owner of the node at our path (exists, lost reply)
    registered,        ///< our node exists; our watch on it is armed or being re-armed
    awaiting_release,  ///< a node of an earlier session of ours is there: waiting for it to go
    awaiting_session,  ///< our session expired: waiting for the next one
    deleting,          ///< leave or abort: checking the node is ours, deleting it
    done,              ///< finished; no node of ours is left
  };

  /// Creates before giving up (a client deleting the empty group in a loop races our parents).
  static constexpr int max_create_attempts = 100;
  /// Earlier sessions remembered: a node of one of them is waited for, not refused.
  static constexpr std::size_t max_earlier_sessions = 8;

  explicit member_fsm(member_config config);

  member_actions start();
  member_actions resume(const member_event_t& event);

  state current_state() const noexcept { return state_; }
  bool join_pending() const noexcept { return join_pending_; }
  /// True once the member is leaving, its join aborted or it ended: it never registers again.
  bool removing() const noexcept { return removing_; }
  /// The session we act on now.
  std::int64_t session_id() const noexcept { return session_; }
  /// The latest registration (number 0 before the first).
  const registration& current() const noexcept { return current_; }
  const member_config& config() const noexcept { return config_; }

 private:
  void on(const member_event::created& e);
  void on(const member_event::parents_created& e);
  void on(const member_event::node_read& e);
  void on(const member_event::watch_fired& e);
  void on(const member_event::data_set& e);
  void on(const member_event::node_deleted& e);
  void on(const member_event::session_changed& e);
  void on(const member_event::data_requested& e);
  void on(const member_event::leave_requested& e);
  void on(const member_event::abort_requested& e);

  void on_check(const member_event::node_read& e);
  void on_own_read(const member_event::node_read& e);
  void on_release_read(const member_event::node_read& e);
  void on_delete_check(const member_event::node_read& e);
  void decide_existing(const node_stat& stat);
  void adopt(const node_stat& stat);
  void registered(const node_stat& stat, std::uint64_t written);
  void session_expired();
  void new_session(std::int64_t id);
  void session_closed();

  void send_create(bool after_reconnect);
  void send_read(bool watch, bool after_reconnect);
  void send_set();
  void start_delete(bool after_reconnect);
  void retry_create(error_code why, bool after_reconnect);

  bool was_ours(std::int64_t owner) const;
  void fail(error_code ec, bool own_node_exists);
  void finish_leave(error_code ec);
  void finish();
  void forget_watch();
  std::uint64_t new_tag() noexcept { return ++last_tag_; }

  member_config config_;
  state state_ = state::idle;
  member_actions out_;

  std::int64_t session_ = 0;
  bool session_live_ = true;  ///< false from an expiry until the next session is known
  std::vector<std::int64_t> earlier_sessions_;

  std::uint64_t last_tag_ = 0;
  std::uint64_t expected_tag_ = 0;  ///< the result that drives the current state
  std::uint64_t watch_tag_ = 0;     ///< the watch we rely on (0: none)
  std::uint64_t set_tag_ = 0;       ///< the setData in flight (0: none)

  node_stat own_;  ///< our node's Stat while registered
  registration current_;
  registration_cause next_cause_ = registration_cause::joined;
  int create_attempts_ = 0;

  std::uint64_t data_generation_ = 0;     ///< of config_.data
  std::uint64_t written_generation_ = 0;  ///< the data our node is known to hold
  std::uint64_t create_generation_ = 0;   ///< the data of the create in flight
  std::uint64_t set_generation_ = 0;      ///< the data of the setData in flight

  bool join_pending_ = false;
  bool removing_ = false;       ///< aborted or leaving: delete our node, never register again
  bool leave_pending_ = false;  ///< the caller waits for complete_leave
};

const char* to_string(member_fsm::state s) noexcept;

}  // namespace zkcoord::detail
