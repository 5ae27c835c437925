// SPDX-License-Identifier: Apache-2.0
// Connect strings taken apart (sans-I/O): the one parser behind connect_string_problem
// (include/zkcoord/path.hpp) and the session's name resolution (session/resolve_hosts.hpp).
#pragma once

#include <boost/asio/ip/address.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zkcoord::detail {

/// One "host:port" entry of a connect string; `host` without IPv6 brackets.
struct host_port {
  std::string host;
  std::uint16_t port = 0;
  bool operator==(const host_port&) const = default;
};

/// A connect string taken apart: its hosts in the order given, and its chroot ("" or "/a/b").
struct connect_parts {
  std::vector<host_port> hosts;
  std::string chroot;
};

/// Parses "host:port[,host:port...][/chroot]" into `out`; returns why it cannot ("" when it
/// can). An IPv6 literal is written "[::1]:2181", or as the C client reads it, "::1:2181" (the
/// last colon starts the port). Whitespace before a host is skipped, as the C client does. The
/// chroot is checked by connect_string_problem (include/zkcoord/path.hpp), not here.
std::string parse_connect_string(std::string_view connect, connect_parts& out);

/// The address when `host` is a numeric IPv4 or IPv6 address (a name needs the resolver).
std::optional<boost::asio::ip::address> numeric_host(std::string_view host);

}  // namespace zkcoord::detail
