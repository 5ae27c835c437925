// SPDX-License-Identifier: Apache-2.0
// `zkcoord watch PATH [--depth N] [--json]`: the tree at PATH, then every change, through a
// tree cache, until SIGINT, SIGTERM or SIGHUP.
#pragma once

#include "command_line.hpp"

#include <zkcoord/cache.hpp>

#include <string>

namespace zkcoord::cli {

/// One node of the tree as first printed: "PATH [N bytes] DATA\n" (data escaped, cut at 80
/// bytes), or with json {"event":"node","path",..}.
std::string format_cache_node(const std::string& path, const cached_node& node, bool json);
/// One event: "added PATH [N bytes] DATA\n", "updated ...", "removed PATH\n", "suspended\n"...;
/// or with json {"event":"added","path",..} / {"event":"suspended"}.
std::string format_cache_event(const cache_event& event, bool json);

/// Prints the tree, then every event until a stop signal (then returns 0); throws cli_error
/// on failure.
int run_watch_command(const command_line& cl);

}  // namespace zkcoord::cli
