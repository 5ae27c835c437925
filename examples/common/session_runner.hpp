// SPDX-License-Identifier: Apache-2.0
// Runs a worker's main coroutine on its own io_context with one connected ZooKeeper session;
// an exception becomes a message on stderr and exit status 1.
#pragma once

#include <zkcoord/session.hpp>

#include <boost/asio/awaitable.hpp>

#include <functional>

namespace examples {

using session_body = std::function<boost::asio::awaitable<int>(zkcoord::session&)>;

/// Connects, runs `body`, closes the session; returns body's result (1 on an exception).
int run_with_session(zkcoord::session_options options, session_body body);

}  // namespace examples
