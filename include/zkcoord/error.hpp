// SPDX-License-Identifier: Apache-2.0
// Error codes of zkcoord: ZooKeeper's own result codes (category "zookeeper", the C client's
// values kept as they are), the library's own errors (category "zkcoord") and the conditions
// callers test against (`ec == zkcoord::condition::connection_loss`).
#pragma once

#include <zkcoord/export.hpp>

#include <boost/system/error_code.hpp>
#include <boost/system/system_error.hpp>

#include <iosfwd>
#include <type_traits>

namespace zkcoord {

using error_code = boost::system::error_code;
using system_error = boost::system::system_error;

/// ZooKeeper's result codes, with the C client's numeric values.
enum class zk_errc : int {
  system_error = -1,           ///< unexpected failure inside the client
  runtime_inconsistency = -2,  ///< in a multi: this op was rolled back because another failed
  data_inconsistency = -3,     ///< the server found its data inconsistent
  connection_loss = -4,        ///< lost contact with the server; outcome unknown
  marshalling_error = -5,      ///< request or reply could not be (de)serialised
  unimplemented = -6,          ///< the server does not implement the operation
  operation_timeout = -7,      ///< no reply in time; outcome unknown
  bad_arguments = -8,          ///< the client rejected an argument
  invalid_state = -9,          ///< the handle is in a state that forbids the call
  new_config_no_quorum = -13,  ///< reconfiguration would lose quorum
  reconfig_in_progress = -14,  ///< another reconfiguration is running
  ssl_connection_error = -15,  ///< TLS handshake failed
  api_error = -100,            ///< generic API error
  no_node = -101,              ///< the node does not exist
  no_auth = -102,              ///< the ACL forbids the operation for this session
  bad_version = -103,          ///< the version given does not match the node's
  no_children_for_ephemerals = -108,        ///< ephemeral nodes cannot have children
  node_exists = -110,                       ///< the node already exists
  not_empty = -111,                         ///< the node has children
  session_expired = -112,                   ///< the session is gone, with its ephemeral nodes
  invalid_callback = -113,                  ///< the client was given an invalid callback
  invalid_acl = -114,                       ///< the ACL is malformed
  auth_failed = -115,                       ///< authentication was refused
  closing = -116,                           ///< the handle is being closed
  nothing = -117,                           ///< no server answered (internal to the client)
  session_moved = -118,                     ///< the session moved to another server
  not_read_only = -119,                     ///< a read-only server got a write
  ephemeral_on_local_session = -120,        ///< ephemeral create on a local session
  no_watcher = -121,                        ///< no such watch to remove
  reconfig_disabled = -123,                 ///< reconfiguration is disabled on the server
  session_closed_require_sasl_auth = -124,  ///< the server requires SASL
  throttled = -127,                         ///< the server throttled the request
};

/// zkcoord's own errors.
enum class errc : int {
  lock_lost = 1,       ///< the lock was lost (session expired, node deleted, session closed)
  not_held,            ///< the held_lock is empty or already released
  already_held,        ///< this lock object already holds or is acquiring the lock
  timeout,             ///< the operation's own deadline passed
  bad_path,            ///< the path is not a valid ZooKeeper path
  bad_connect_string,  ///< the connect string could not be parsed
  unreachable,         ///< no server of the connect string answered in time
  closed,              ///< the session was closed by this process
  not_connected,       ///< the session was never started (call async_connect first)
  data_too_large,      ///< node data exceeds ZooKeeper's 1 MiB limit
  busy,                ///< try-acquire found the lock held by another contender
  bad_argument,        ///< an argument is out of range (the message says which)
  unknown_host,        ///< no host name of the connect string could be resolved (DNS)
  recipe_mismatch,     ///< the path holds another recipe's nodes (e.g. latch nodes under a lock)
  already_registered,  ///< another live session holds a member node under this id
  bad_counter_data,    ///< a counter's node holds another number of bytes than 4 or 8
  /// a TTL node was refused: the server runs without -Dzookeeper.extendedTypesEnabled=true
  ttl_nodes_disabled,
};

/// What a caller tests an error against (`ec == condition::not_found`): the conditions group
/// ZooKeeper's codes and zkcoord's own by what the caller can do about them. One code may
/// match several (zk_errc::no_auth is both access_denied and permanent).
enum class condition : int {
  connection_loss = 1,  ///< outcome unknown: retry when reconnected (idempotent) or recover
  session_expired,      ///< the session is gone: everything bound to it is lost
  permanent,            ///< retrying the same request cannot succeed
  not_found,            ///< the node is not there (zk_errc::no_node)
  already_exists,       ///< the node or member id is taken (node_exists, already_registered)
  version_conflict,     ///< someone changed the node since the version given (bad_version)
  access_denied,        ///< the ACL or the server refused this principal (no_auth, auth_failed)
  ownership_lost,       ///< a lock, term or membership this process held is gone (lock_lost)
  timed_out,            ///< the operation's own deadline passed (errc::timeout)
  invalid_argument,     ///< a path, connect string, ACL or option is malformed: fix the call
  unavailable,          ///< no server could be reached or resolved (unreachable, unknown_host)
};

ZKCOORD_EXPORT const boost::system::error_category& zookeeper_category() noexcept;
ZKCOORD_EXPORT const boost::system::error_category& zkcoord_category() noexcept;
ZKCOORD_EXPORT const boost::system::error_category& condition_category() noexcept;

ZKCOORD_EXPORT error_code make_error_code(zk_errc e) noexcept;
ZKCOORD_EXPORT error_code make_error_code(errc e) noexcept;
ZKCOORD_EXPORT boost::system::error_condition make_error_condition(condition c) noexcept;

ZKCOORD_EXPORT std::ostream& operator<<(std::ostream& os, condition c);
ZKCOORD_EXPORT std::ostream& operator<<(std::ostream& os, zk_errc e);
ZKCOORD_EXPORT std::ostream& operator<<(std::ostream& os, errc e);

}  // namespace zkcoord

namespace boost::system {
template <>
struct is_error_code_enum<zkcoord::zk_errc> : std::true_type {};
template <>
struct is_error_code_enum<zkcoord::errc> : std::true_type {};
template <>
struct is_error_condition_enum<zkcoord::condition> : std::true_type {};
}  // namespace boost::system
