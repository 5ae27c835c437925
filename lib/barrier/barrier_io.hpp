// SPDX-License-Identifier: Apache-2.0
// The barriers' I/O as coroutines on the session's executor: the session's operations as
// awaitables returning (error_code, value), creating missing parents as CONTAINER nodes, and
// waiting for a one-shot watch with an optional deadline. Internal to lib/barrier.
#pragma once

#include "session/session_impl.hpp"

#include <zkcoord/detail/session_access.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

namespace zkcoord::detail::barrier_io {

using impl_ptr = std::shared_ptr<session_impl>;
using deadline = std::optional<std::chrono::steady_clock::time_point>;
inline constexpr auto tuple_awaitable = boost::asio::as_tuple(boost::asio::use_awaitable);

/// create(path); with `parents`, a no_node reply creates the missing parents as CONTAINER
/// nodes and tries again. node_exists is returned as it is.
boost::asio::awaitable<error_code> create(impl_ptr impl, std::string path, create_mode mode,
                                          bool parents);
/// exists(path), arming `w` when given.
boost::asio::awaitable<std::tuple<error_code, std::optional<node_stat>>> exists(impl_ptr impl,
                                                                                std::string path,
                                                                                watch* w);
/// The children's names (no_node is returned as it is).
boost::asio::awaitable<std::tuple<error_code, std::vector<std::string>>> children(impl_ptr impl,
                                                                                  std::string path);
/// remove(path, any version); no_node counts as success.
boost::asio::awaitable<error_code> remove(impl_ptr impl, std::string path);

/// The outcome of waiting for a watch: the watch's error (session_expired, closed) or the
/// event; errc::timeout when `until` passed first.
boost::asio::awaitable<error_code> wait_for(watch& w, deadline until);

/// Whether `until` has passed.
bool passed(const deadline& until);

}  // namespace zkcoord::detail::barrier_io
