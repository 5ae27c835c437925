// SPDX-License-Identifier: Apache-2.0
// `zkcoord barrier PATH --members N [--timeout D] [--] COMMAND [ARGS...]`: enter the double
// barrier at PATH, run COMMAND, leave it together with the other members.
#pragma once

#include "command_line.hpp"

namespace zkcoord::cli {

/// Returns COMMAND's exit status (128+N if killed by signal N); throws cli_error on failure
/// (75 when the barrier is not entered, or not left, within --timeout).
int run_barrier_command(const command_line& cl);

}  // namespace zkcoord::cli
