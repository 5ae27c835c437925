// SPDX-License-Identifier: Apache-2.0
// The one loop of the listing commands (locks, leader, members): connect, check the chroot,
// show the current state, and with --watch show each change until SIGINT, SIGTERM or SIGHUP.
#pragma once

#include "command_line.hpp"

#include <zkcoord/session.hpp>

#include <boost/asio/awaitable.hpp>

#include <functional>

namespace zkcoord::cli {

/// Shows one state of what the command lists: its first call the current state, each later
/// call the next change (whose watches the previous call armed, so nothing is missed between
/// two calls). Throws cli_error on failure.
using show_next = std::function<boost::asio::awaitable<void>()>;

/// Makes the command's show_next on the connected session (it lives until the loop ends).
using make_show_next = std::function<show_next(session&)>;

/// Runs the loop on a session made with `options`: once without --watch, else until a stop
/// signal (then returns 0). Throws cli_error on failure.
int run_watch_loop(const command_line& cl, session_options options, const make_show_next& make);

}  // namespace zkcoord::cli
