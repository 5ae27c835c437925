// SPDX-License-Identifier: Apache-2.0
// `zkcoord members PATH [--watch] [--json]`: who is registered in the group at PATH.
#pragma once

#include "command_line.hpp"

namespace zkcoord::cli {

/// Prints the members (and, with --watch, every change until SIGINT, SIGTERM or SIGHUP, then
/// returns 0); throws cli_error on failure.
int run_members_command(const command_line& cl);

}  // namespace zkcoord::cli
