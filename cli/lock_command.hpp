// SPDX-License-Identifier: Apache-2.0
// `zkcoord lock PATH COMMAND...`: run a command while holding a fenced lock.
#pragma once

#include "command_line.hpp"

namespace zkcoord::cli {

/// Returns the exit status (the command's, or one of exit_code); throws cli_error for
/// failures that end the tool with a message.
int run_lock_command(const command_line& cl);

}  // namespace zkcoord::cli
