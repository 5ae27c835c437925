#include "zookeeper_errors.hpp"

#include <string>

namespace zkcoord::cli {

cli_error error_for(const error_code& ec, std::string_view doing) {
  std::string message = std::string(doing) + ": " + ec.message();
  if (ec == errc::bad_connect_string || ec == errc::bad_path || ec == errc::bad_argument)
    return {exit_code::usage, message};
  if (ec == errc::unknown_host) return {exit_code::unknown_host, message};
  if (ec == errc::timeout || ec == errc::busy) return {exit_code::lock_timeout, message};
  if (ec == errc::lock_lost) return {exit_code::lock_lost, message};
  if (ec == zk_errc::no_auth || ec == zk_errc::auth_failed || ec == zk_errc::invalid_acl)
    return {exit_code::no_permission, message};
  if (ec == errc::unreachable || ec == errc::closed || ec == errc::not_connected ||
      ec == condition::connection_loss || ec == condition::session_expired)
    return {exit_code::unavailable, message};
  return {exit_code::internal, message};
}

}  // namespace zkcoord::cli
