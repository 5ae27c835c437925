// SPDX-License-Identifier: Apache-2.0
// `zkcoord locks [PATH]`: the holders and waiters of every lock at and under PATH.
#pragma once

#include "command_line.hpp"

namespace zkcoord::cli {

/// Prints the listing on stdout and returns 0; throws cli_error on failure.
int run_locks_command(const command_line& cl);

}  // namespace zkcoord::cli
