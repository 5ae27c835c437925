// SPDX-License-Identifier: Apache-2.0
// The exit statuses of the zkcoord tool (documented in docs/cli.md, "Durations and exit statuses")
// and the exception that carries one, with its one-line message, up to main().
#pragma once

#include <stdexcept>
#include <string>

namespace zkcoord::cli {

/// zkcoord's own statuses follow sysexits.h where one fits, so scripts can tell "try again
/// later" (69, 75) from "fix the call" (64). `lock` otherwise exits with its command's status.
enum exit_code : int {
  ok = 0,
  cas_lost = 1,            ///< counter cas: the counter did not hold OLD; nothing was written
  usage = 64,              ///< malformed arguments (EX_USAGE)
  wrong_recipe = 65,       ///< PATH holds another recipe's nodes, e.g. a lock's (EX_DATAERR)
  unknown_host = 68,       ///< no host name of the connect string resolves (EX_NOHOST)
  unavailable = 69,        ///< ZooKeeper unreachable, or the session ended before the grant
  internal = 70,           ///< an unexpected error (EX_SOFTWARE)
  os_error = 71,           ///< fork failed, or the local ZooKeeper could not start (EX_OSERR)
  lock_timeout = 75,       ///< the lock was not granted within --timeout (EX_TEMPFAIL)
  lock_lost = 76,          ///< the lock was lost while the command ran; it was terminated
  no_permission = 77,      ///< ZooKeeper refused: ACL or authentication (EX_NOPERM)
  bad_config = 78,         ///< the connect string's chroot does not exist (EX_CONFIG)
  cannot_execute = 126,    ///< the command exists but could not be executed (as a shell)
  command_not_found = 127  ///< the command was not found (as a shell)
};

/// 128 + signal number: the command (or zkcoord, before the command ran) ended by a signal.
inline int signal_exit_status(int signal_number) {
  return 128 + signal_number;
}

/// Ends the command with `status` and `message` printed as one line on stderr.
class cli_error : public std::runtime_error {
 public:
  cli_error(int status, const std::string& message)
      : std::runtime_error(message), status_(status) {}
  int status() const noexcept { return status_; }

 private:
  int status_;
};

/// Shorthand for the most common failure: the caller got the arguments wrong.
inline cli_error usage_error(const std::string& message) {
  return {exit_code::usage, message};
}

}  // namespace zkcoord::cli
