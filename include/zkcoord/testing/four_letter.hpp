// SPDX-License-Identifier: Apache-2.0
// ZooKeeper "four letter word" admin commands (ruok, srvr, stat, mntr, ...) over plain TCP.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace zkcoord::testing {

/// Sends `command` (e.g. "ruok") to host:port and returns the whole answer ("imok"), or ""
/// when nothing answered within `timeout` (refused, paused, not yet listening).
/// The server must whitelist the command (the harness servers whitelist all of them).
std::string four_letter(const std::string& host, std::uint16_t port, const std::string& command,
                        std::chrono::milliseconds timeout = std::chrono::milliseconds(2000));

/// The value of the "Mode:" line of a `srvr` answer: "standalone", "leader", "follower",
/// "observer"; "" when the server does not answer or is not serving requests.
std::string server_mode(const std::string& host, std::uint16_t port,
                        std::chrono::milliseconds timeout = std::chrono::milliseconds(2000));

}  // namespace zkcoord::testing
