// SPDX-License-Identifier: Apache-2.0
// Name resolution before zookeeper_init (docs/session.md, "Name resolution"): the user's connect
// string is parsed (sans-I/O, connect_string.hpp), its host names are resolved with Asio's
// resolver, and the C client is handed numeric addresses only, so its own getaddrinfo never
// waits on DNS (on libzookeeper_st it would run on the session's strand and stall every session
// of the executor).
#pragma once

#include <zkcoord/error.hpp>

#include "connect_string.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace spdlog {
class logger;
}

namespace zkcoord::detail {

/// The connect string the C client is given: "127.0.0.1:2181,::1:2181/chroot". IPv6 without
/// brackets: the C client splits host and port at the last colon and hands the host to
/// getaddrinfo, which refuses brackets.
std::string format_connect_string(const std::vector<boost::asio::ip::tcp::endpoint>& servers,
                                  std::string_view chroot);

/// `connect` with every host numeric, or an error: errc::bad_connect_string when it does not
/// parse, errc::unknown_host when none of its names resolves.
using resolved_handler = std::function<void(error_code, std::string)>;

/// Resolves the host names of `connect` with boost::asio::ip::tcp::resolver on `ex` and calls
/// `done` there with the numeric connect string. Numeric hosts never reach the resolver, so a
/// connect string without names creates no resolver and no thread; names use Asio's one
/// resolver thread per execution context. Every address of a name is a server (as the C client
/// does), in the resolver's order; hosts that do not resolve are left out with a warning.
void resolve_connect_string(const boost::asio::any_io_executor& ex, std::string_view connect,
                            std::shared_ptr<spdlog::logger> log, resolved_handler done);

}  // namespace zkcoord::detail
