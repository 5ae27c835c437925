// SPDX-License-Identifier: Apache-2.0
// The vocabulary of the lock state machine: the events it is fed (results of its requests,
// watch and session events, the caller's abort and release) and the actions it asks for.
#pragma once

#include "recipe/contender_queue.hpp"
#include "recipe/machine_io.hpp"

#include <zkcoord/error.hpp>
#include <zkcoord/types.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace zkcoord::detail {

/// Our node once it is known to exist: its path and Stat (stat.czxid is the fencing token).
struct node_grant {
  std::string path;
  node_stat stat;
  fencing_token token() const noexcept { return fencing_token(stat.czxid); }
  friend bool operator==(const node_grant&, const node_grant&) = default;
};

namespace contender_action {

/// Common part of every request. The tag comes back in the result: results and watch events
/// whose tag the machine no longer expects are stale and ignored.
struct request {
  std::uint64_t tag = 0;
  /// This request retries one whose outcome was lost: send it once the session is connected
  /// again (the driver must not spin on a dead connection).
  bool after_reconnect = false;
  friend bool operator==(const request&, const request&) = default;
};

/// create2(path_prefix, data, EPHEMERAL_SEQUENTIAL) -> contender_event::node_created.
struct create_node : request {
  std::string path_prefix;
  std::string data;
  friend bool operator==(const create_node&, const create_node&) = default;
};
/// Create the lock path's missing ancestors -> contender_event::parents_created.
using create_parents = machine_io::create_parents<request>;
/// getChildren(path), after a sync(path) if sync_first -> contender_event::children_listed.
/// sync_first is set when looking for a node whose create reply was lost: a server that is
/// behind the leader could otherwise list the children without it.
struct list_children : request {
  std::string path;
  bool sync_first = false;
  friend bool operator==(const list_children&, const list_children&) = default;
};
/// Read the node's Stat without a watch -> contender_event::node_read.
struct read_node : request {
  std::string path;
  friend bool operator==(const read_node&, const read_node&) = default;
};
/// Read the node and arm a one-shot watch on it -> contender_event::node_read, later
/// contender_event::watch_fired with the same tag. Use getData (as Curator does), not exists: a
/// node that is already gone must not leave a watch for its re-creation behind.
struct watch_node : request {
  std::string path;
  friend bool operator==(const watch_node&, const watch_node&) = default;
};
/// While waiting behind a blocker: read our own node and arm a one-shot watch on it, as
/// watch_node does (getData) -> contender_event::node_read, later contender_event::watch_fired
/// with the same tag. A second watch of the waiter, besides the one on its blocker: the
/// hand-off without a listing grants only while this watch proves our node is still there
/// (someone else may delete a waiting node). Kept while held (it then watches for the loss).
struct watch_own_node : request {
  std::string path;
  friend bool operator==(const watch_own_node&, const watch_own_node&) = default;
};
/// getChildren(path) with a one-shot child watch -> contender_event::children_listed, later
/// contender_event::watch_fired with the same tag when the children change. Never shared with
/// other waiters' listings: the watch must cover exactly the list this waiter decided on.
struct watch_children : request {
  std::string path;
  friend bool operator==(const watch_children&, const watch_children&) = default;
};
/// delete(path, any version) -> contender_event::node_deleted.
struct delete_node : request {
  std::string path;
  friend bool operator==(const delete_node&, const delete_node&) = default;
};

/// The watch armed by watch_node{tag} or watch_children{tag} is no longer wanted: remove it from
/// the client.
struct drop_watch {
  std::uint64_t tag = 0;
  friend bool operator==(const drop_watch&, const drop_watch&) = default;
};
/// Complete the caller's acquire: with a grant on success, without one on error.
struct complete_acquire {
  error_code ec;
  std::optional<node_grant> grant;
  friend bool operator==(const complete_acquire&, const complete_acquire&) = default;
};
/// The held lock became (or stopped being) in doubt: contact lost, session maybe alive.
struct set_in_doubt {
  bool in_doubt = false;
  friend bool operator==(const set_in_doubt&, const set_in_doubt&) = default;
};
/// The held lock is lost: errc::lock_lost (node deleted), session_expired or errc::closed.
struct report_lost {
  error_code reason;
  friend bool operator==(const report_lost&, const report_lost&) = default;
};
/// Complete the caller's release.
struct complete_release {
  error_code ec;
  friend bool operator==(const complete_release&, const complete_release&) = default;
};
/// Nothing more will be asked for; later events are ignored (a release gets not_held or
/// lock_lost at once).
using machine_io::finished;

}  // namespace contender_action

using contender_action_t =
    std::variant<contender_action::create_node, contender_action::create_parents,
                 contender_action::list_children, contender_action::read_node,
                 contender_action::watch_node, contender_action::watch_own_node,
                 contender_action::watch_children, contender_action::delete_node,
                 contender_action::drop_watch, contender_action::complete_acquire,
                 contender_action::set_in_doubt, contender_action::report_lost,
                 contender_action::complete_release, contender_action::finished>;
using contender_actions = std::vector<contender_action_t>;

namespace contender_event {

struct node_created {
  std::uint64_t tag = 0;
  error_code ec;
  std::string path;  ///< the full path with the sequence suffix
  node_stat stat;
};
using machine_io::parents_created;
/// A listing of the lock path, parsed once: one listing may be shared by every waiter of the
/// session on that path (see recipe/shared_listings.hpp). Null on error.
struct children_listed {
  std::uint64_t tag = 0;
  error_code ec;
  std::shared_ptr<const contender_queue> children;
  /// How many deletions of contenders ahead of our node the session had seen when the
  /// listing's reply arrived (recipe/deletion_log.hpp), or nullopt when not counted.
  std::optional<std::uint64_t> deletions_seen = std::nullopt;
  /// For the driver, which fills deletions_seen: the reply's stamp (the session's deletion
  /// proofs told before it arrived, session_impl::deletion_proofs); nullopt: not stamped.
  std::optional<std::uint64_t> deletion_stamp = std::nullopt;
};
/// Result of read_node and watch_node; stat is nullopt when the node does not exist (the
/// machine also accepts ec == no_node for that).
using machine_io::node_read;
/// The watch armed by watch_node{tag} fired (any change or deletion of the node), or the one
/// armed by watch_children{tag} (a child created or deleted).
struct watch_fired {
  std::uint64_t tag = 0;
  /// The watched node was deleted (not merely changed). Only a deletion lets a waiter decide
  /// from its last listing.
  bool deleted = false;
  /// As in children_listed, counted once the deletion that fired the watch had been seen:
  /// with the listing's count, how many nodes of the last listing the session saw deleted.
  std::optional<std::uint64_t> deletions_seen = std::nullopt;
  /// Filled by the driver on a deletion of the watched blocker: the session had proof that our
  /// own node was deleted (its watch_own_node watch fired) by the time this event was fed, even
  /// if that watch's own event has not reached the machine yet (two events handed on in order
  /// by the C client may be run out of order by a multi-threaded executor).
  bool own_node_seen_deleted = false;
};
using machine_io::node_deleted;
struct session_changed {
  session_state state;
};
/// The caller gave up the acquire: operation_aborted (cancel) or errc::timeout.
using machine_io::abort_requested;
struct release_requested {};

}  // namespace contender_event

using contender_event_t =
    std::variant<contender_event::node_created, contender_event::parents_created,
                 contender_event::children_listed, contender_event::node_read,
                 contender_event::watch_fired, contender_event::node_deleted,
                 contender_event::session_changed, contender_event::abort_requested,
                 contender_event::release_requested>;

}  // namespace zkcoord::detail
