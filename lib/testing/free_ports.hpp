// SPDX-License-Identifier: Apache-2.0
// Picks currently free TCP ports on 127.0.0.1. Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace zkcoord::testing::detail {

/// `count` distinct ports that could be bound on 127.0.0.1 just now. They are drawn at random
/// below the kernel's ephemeral range (32768+), so outgoing connections never take one while a
/// server is down for a restart. Another process may still bind one before we do: callers
/// retry on "Address already in use".
std::vector<std::uint16_t> pick_free_ports(std::size_t count);

/// A listening TCP socket on 127.0.0.1:port (SO_REUSEADDR), or -1 with errno set.
int listen_on_loopback(std::uint16_t port);

}  // namespace zkcoord::testing::detail
