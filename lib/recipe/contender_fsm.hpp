// SPDX-License-Identifier: Apache-2.0
// The decision logic of one contender of any queue recipe (lock, read or write lock, election),
// from creating our node to deleting it, with no I/O: fed events, it returns the actions a
// driver performs (Boost.Redis run_fsm style; Curator's LockInternals). Who holds and which
// node a waiter watches is the grant_policy's; everything else (lost replies, recovery of our
// node, guaranteed delete, loss and doubt) is common to every recipe. One machine = one
// contender node = one acquire attempt.
#pragma once

#include "recipe/contender_fsm_io.hpp"
#include "recipe/grant_policy.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zkcoord::detail {

enum class wait_mode {
  wait,      ///< queue behind the current holder until granted, aborted or failed
  try_once,  ///< granted only if nobody is ahead; otherwise errc::busy and our node deleted
};

struct contender_config {
  std::string lock_path;    ///< the recipe's parent node, e.g. "/locks/orders"
  std::string node_prefix;  ///< this attempt's protected_node_prefix(), with the policy's marker
  std::string node_data;    ///< encode_holder_data() of this process
  std::int64_t session_id = 0;  ///< the session the attempt is bound to, never another
  wait_mode mode = wait_mode::wait;
  grant_policy policy = grant_policy::exclusive_lock();
};

/// Guarantees, whatever the order of results and events:
/// - the acquire completes exactly once; never with a grant after the session ended;
/// - at most one node of ours exists: a create whose reply was lost is looked up (by prefix,
///   after a sync, and ephemeralOwner == our session) and adopted before creating again;
/// - once the acquire fails or is aborted, a node of ours that exists (or may exist) is
///   deleted, the delete retried after reconnects until it succeeds or the session ends;
/// - a wake-up is a grant only when our last listing proves it: the watched node was deleted,
///   nothing else of that listing blocked us (nodes ahead of ours can only leave, never
///   appear), our own node is known to be still there (a waiter also watches its own node:
///   someone else may delete it), and no session event came since; any other wake-up lists
///   again; a waiting node deleted by someone else fails the acquire with errc::lock_lost;
/// - a path holding nodes of another recipe fails the acquire (errc::recipe_mismatch);
/// - the machine never acts on behalf of a later session: session end finishes it.
class contender_fsm {
 public:
  enum class state {
    idle,                  ///< start() not called yet
    creating,              ///< create2 (and the getChildren pipelined behind it) sent
    creating_parents,      ///< create failed with no_node: making the container parents
    finding_own_node,      ///< create reply lost: sync + list to look for our node
    checking_candidate,    ///< reading ephemeralOwner of a child with our prefix
    listing,               ///< our node exists: getChildren to find our place
    watching_predecessor,  ///< waiting for the node the policy named (exclusive: just ahead)
    watching_children,     ///< waiting for the path's children to change (semaphore lease)
    held,                  ///< granted; watching our own node to notice its loss
    deleting,              ///< deleting our node (release, abort or failure)
    done,                  ///< finished; no node of ours is left or the session is gone
  };

  /// Attempts to create our node before giving up (parent re-creation races, lost replies).
  /// Generous: a client that deletes the empty lock path in a loop wins the race between our
  /// parents' creation and our create most of the time when the machine is loaded (10 were
  /// used up in 2 of 45 acquires of integration_lock_faults on a busy 2-core machine), and
  /// each attempt costs only two round trips.
  static constexpr int max_create_attempts = 100;

  explicit contender_fsm(contender_config config);

  /// Begins the acquire: creates our node with a getChildren pipelined behind it.
  contender_actions start();
  /// Feeds one event; returns what to do now (possibly nothing).
  contender_actions resume(const contender_event_t& event);

  state current_state() const noexcept { return state_; }
  /// True until the acquire has been completed (granted, failed or aborted).
  bool acquire_pending() const noexcept { return acquire_pending_; }
  /// True while held and contact with the server is lost (the session may still be alive).
  bool in_doubt() const noexcept { return in_doubt_; }
  /// Our node's full path once known to exist (empty before, and after it was found gone).
  const std::string& own_node() const noexcept { return own_path_; }
  const contender_config& config() const noexcept { return config_; }

 private:
  void on(const contender_event::node_created& e);
  void on(const contender_event::parents_created& e);
  void on(const contender_event::children_listed& e);
  void on(const contender_event::node_read& e);
  void on(const contender_event::watch_fired& e);
  void on(const contender_event::node_deleted& e);
  void on(const contender_event::session_changed& e);
  void on(const contender_event::abort_requested& e);
  void on(const contender_event::release_requested& e);

  void on_listing(const contender_event::children_listed& e);
  void on_recovery_listing(const contender_event::children_listed& e);
  void on_predecessor_read(const contender_event::node_read& e);
  void on_own_node_read(const contender_event::node_read& e);
  void on_own_watch_read(const contender_event::node_read& e);
  void on_own_watch_fired(const contender_event::watch_fired& e);
  void on_candidate_read(const contender_event::node_read& e);
  void on_reconnected();
  void decide(const contender_queue& queue, std::optional<std::uint64_t> deletions_seen);
  bool every_node_ahead_seen_deleted(const contender_event::watch_fired& e) const;

  void send_create();
  void create_again(error_code why);
  void send_create_parents(bool after_reconnect);
  void send_find_own_node(bool after_reconnect);
  void check_next_candidate(bool after_reconnect);
  void send_list(bool after_reconnect);
  void send_watch(const std::string& path, bool after_reconnect);
  void send_watch_children(bool after_reconnect);
  void send_own_watch();
  void start_delete(bool after_reconnect);

  void grant();
  void complete_acquire(error_code ec);
  void fail(error_code ec);
  void fail_and_delete(error_code ec);
  void own_node_vanished();
  void lose(error_code reason);
  void end_session(error_code reason);
  void finish_delete(error_code ec);
  void finish();
  void forget_watch();
  void forget_own_watch();
  std::uint64_t new_tag() noexcept { return ++last_tag_; }

  contender_config config_;
  state state_ = state::idle;
  contender_actions out_;

  std::uint64_t last_tag_ = 0;
  std::uint64_t expected_tag_ = 0;        ///< the result that drives the current state
  std::uint64_t pipelined_list_tag_ = 0;  ///< the getChildren sent behind the create
  std::uint64_t watch_tag_ = 0;           ///< the watch we rely on (0: none)
  /// Releasing: the held node's watch, which our delete fires; dropped once we are done.
  std::uint64_t parting_watch_tag_ = 0;
  /// While waiting behind a blocker: the watch on our own node (0: none), and whether its read
  /// found our node (ours). The hand-off without a listing needs both, and no event of it since.
  std::uint64_t own_watch_tag_ = 0;
  bool own_node_confirmed_ = false;

  std::string own_path_;
  node_stat own_stat_;
  std::vector<std::string> candidates_;  ///< recovery: our-prefix children not yet checked
  int create_attempts_ = 0;

  bool acquire_pending_ = false;
  bool abandoned_ = false;  ///< the acquire failed or was aborted: clean up, never grant
  bool release_pending_ = false;
  bool in_doubt_ = false;
  bool lost_ = false;
  // The hand-off without a listing (docs/lock.md): while we wait behind `blocker`, how many
  // other nodes of our last listing block us, and whether that listing may still be trusted
  // (no session event since, no sequence overflow in it).
  std::size_t others_ahead_ = 0;
  bool view_trusted_ = false;
  // The session's count of deletions ahead of our node when that listing was handed to us.
  std::optional<std::uint64_t> deletions_at_listing_;
};

const char* to_string(contender_fsm::state s) noexcept;

}  // namespace zkcoord::detail
