// SPDX-License-Identifier: Apache-2.0
// `zkcoord leader PATH [--watch] [--json]`: who leads the election at PATH, without taking part.
#pragma once

#include "command_line.hpp"

namespace zkcoord::cli {

/// Prints the leader (and, with --watch, every change of the participants until SIGINT,
/// SIGTERM or SIGHUP, then returns 0); throws cli_error on failure.
int run_leader_command(const command_line& cl);

}  // namespace zkcoord::cli
