// SPDX-License-Identifier: Apache-2.0
#include "zookeeper_errors.hpp"

#include <string>

namespace zkcoord::cli {

cli_error error_for(const error_code& ec, std::string_view doing) {
  std::string message = std::string(doing) + ": " + ec.message();
  // ZooKeeper's digest scheme takes any password at connect time: a wrong one is a different
  // identity, refused only here, by an ACL.
  if (ec == zk_errc::no_auth)
    message +=
        " (the ACL does not grant this client's identity: check ZKCOORD_AUTH or "
        "--auth-file; with digest, a wrong password is a different identity)";
  if (ec == errc::bad_connect_string || ec == errc::bad_path || ec == errc::bad_argument)
    return {exit_code::usage, message};
  if (ec == errc::unknown_host) return {exit_code::unknown_host, message};
  if (ec == errc::recipe_mismatch || ec == errc::bad_counter_data)
    return {exit_code::wrong_recipe, message};
  // The id frees once the session holding it ends: try again later (EX_TEMPFAIL).
  if (ec == errc::timeout || ec == errc::busy || ec == errc::already_registered)
    return {exit_code::lock_timeout, message};
  if (ec == errc::lock_lost) return {exit_code::lock_lost, message};
  if (ec == zk_errc::no_auth || ec == zk_errc::auth_failed || ec == zk_errc::invalid_acl)
    return {exit_code::no_permission, message};
  if (ec == errc::unreachable || ec == errc::closed || ec == errc::not_connected ||
      ec == condition::connection_loss || ec == condition::session_expired)
    return {exit_code::unavailable, message};
  return {exit_code::internal, message};
}

std::string loss_reason(const error_code& ec) {
  if (ec == errc::lock_lost) return "its node was deleted by another client";
  if (ec == condition::session_expired) return "the ZooKeeper session expired";
  if (ec == errc::closed) return "the session was closed";
  return ec.message();
}

}  // namespace zkcoord::cli
