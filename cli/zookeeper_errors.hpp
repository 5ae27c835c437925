// SPDX-License-Identifier: Apache-2.0
// From a library error_code to the tool's exit status and one-line message.
#pragma once

#include "exit_code.hpp"

#include <zkcoord/error.hpp>

#include <string>
#include <string_view>

namespace zkcoord::cli {

/// The exit status for `ec` (e.g. unreachable -> 69, no_auth -> 77) and the message
/// "<doing>: <what went wrong>".
cli_error error_for(const error_code& ec, std::string_view doing);

/// Why a held lock was lost, from held_lock::async_wait_lost's error, for "lock P lost (...)":
/// errc::lock_lost -> "its node was deleted by another client", session_expired -> "the
/// ZooKeeper session expired", errc::closed -> "the session was closed".
std::string loss_reason(const error_code& ec);

}  // namespace zkcoord::cli
