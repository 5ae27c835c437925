// SPDX-License-Identifier: Apache-2.0
// The session and logger of one ZooKeeper-facing command, from the global options.
#pragma once

#include "command_line.hpp"

#include <zkcoord/session.hpp>

#include <memory>
#include <string_view>

namespace spdlog {
class logger;
}

namespace zkcoord::cli {

/// The library's log on stderr with -v (debug and up); silent otherwise, so that a failure
/// costs the one line the tool prints itself (report()), not the C client's reconnect chatter.
std::shared_ptr<spdlog::logger> make_logger(bool verbose);

/// The session options the global options ask for. One session, no renewal after expiry:
/// the tool's work is bound to its first session.
/// Prints "zkcoord: <message>" on stderr: what the user must see, with or without -v.
void report(std::string_view message);

session_options make_session_options(const global_options& global,
                                     std::shared_ptr<spdlog::logger> logger);

}  // namespace zkcoord::cli
