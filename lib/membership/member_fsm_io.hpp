// SPDX-License-Identifier: Apache-2.0
// The vocabulary of the member state machine: the events it is fed (results of its requests,
// its watch, session changes, the caller's leave, abort and data updates) and the actions it
// asks its driver to perform.
#pragma once

#include "recipe/machine_io.hpp"

#include <zkcoord/error.hpp>
#include <zkcoord/membership.hpp>
#include <zkcoord/types.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace zkcoord::detail {

namespace member_action {

/// Common part of every request: the tag comes back in its result (results whose tag the
/// machine no longer expects are stale and ignored), and the session it must go out on.
struct request {
  std::uint64_t tag = 0;
  std::int64_t session = 0;  ///< pinned: never sent on another session
  /// Retries a request whose outcome was lost: send it once the session is connected again.
  bool after_reconnect = false;
  friend bool operator==(const request&, const request&) = default;
};
/// create2(path, data, EPHEMERAL) -> member_event::created.
struct create_node : request {
  std::string path;
  std::string data;
  friend bool operator==(const create_node&, const create_node&) = default;
};
/// Create the group path's missing ancestors -> member_event::parents_created.
using create_parents = machine_io::create_parents<request>;
/// exists(path), arming the machine's one watch on it if `watch` -> member_event::node_read,
/// later member_event::watch_fired with the same tag. An armed watch replaces the previous one.
struct read_node : request {
  std::string path;
  bool watch = false;
  friend bool operator==(const read_node&, const read_node&) = default;
};
/// setData(path, data, version) -> member_event::data_set.
struct set_data : request {
  std::string path;
  std::string data;
  std::int32_t version = 0;
  friend bool operator==(const set_data&, const set_data&) = default;
};
/// delete(path, version) -> member_event::node_deleted.
struct delete_node : request {
  std::string path;
  std::int32_t version = 0;
  friend bool operator==(const delete_node&, const delete_node&) = default;
};

/// The machine's watch is no longer wanted: remove it from the client.
struct drop_watch {
  friend bool operator==(const drop_watch&, const drop_watch&) = default;
};
/// Complete the caller's join: with the first registration on success.
struct complete_join {
  error_code ec;
  std::optional<registration> first;
  friend bool operator==(const complete_join&, const complete_join&) = default;
};
/// The member is registered again (a new node) after its previous node went.
struct report_registration {
  registration now;
  friend bool operator==(const report_registration&, const report_registration&) = default;
};
/// The data of update `generation` (and every earlier one) is in our node.
struct data_written {
  std::uint64_t generation = 0;
  friend bool operator==(const data_written&, const data_written&) = default;
};
/// The member can no longer keep a node (errc::already_registered, session_expired without
/// renewal, errc::closed, a permanent error): it has ended, with no node of ours left.
struct report_ended {
  error_code reason;
  friend bool operator==(const report_ended&, const report_ended&) = default;
};
/// Complete the caller's leave.
struct complete_leave {
  error_code ec;
  friend bool operator==(const complete_leave&, const complete_leave&) = default;
};
/// Nothing more will be asked for; later events are ignored.
using machine_io::finished;

}  // namespace member_action

using member_action_t = std::variant<
    member_action::create_node, member_action::create_parents, member_action::read_node,
    member_action::set_data, member_action::delete_node, member_action::drop_watch,
    member_action::complete_join, member_action::report_registration, member_action::data_written,
    member_action::report_ended, member_action::complete_leave, member_action::finished>;
using member_actions = std::vector<member_action_t>;

namespace member_event {

struct created {
  std::uint64_t tag = 0;
  error_code ec;
  node_stat stat;
};
using machine_io::parents_created;
/// Result of read_node: stat is nullopt when the node does not exist.
using machine_io::node_read;
/// The watch armed by read_node{tag} fired (creation, change or deletion of the node).
struct watch_fired {
  std::uint64_t tag = 0;
};
struct data_set {
  std::uint64_t tag = 0;
  error_code ec;
  node_stat stat;
};
using machine_io::node_deleted;
/// A session state change; `session_id` is the session it concerns: for `expired` the one
/// that ended (ignored unless it is the one the machine acts on), for `connected` the new one
/// (or still ours).
struct session_changed {
  session_state state;
  std::int64_t session_id = 0;
};
/// The caller wants the data of our node to be `data` (update number `generation`).
struct data_requested {
  std::string data;
  std::uint64_t generation = 0;
};
struct leave_requested {};
/// The caller gave up a pending join (operation_aborted).
using machine_io::abort_requested;

}  // namespace member_event

using member_event_t =
    std::variant<member_event::created, member_event::parents_created, member_event::node_read,
                 member_event::watch_fired, member_event::data_set, member_event::node_deleted,
                 member_event::session_changed, member_event::data_requested,
                 member_event::leave_requested, member_event::abort_requested>;

}  // namespace zkcoord::detail
