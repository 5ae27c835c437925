// SPDX-License-Identifier: Apache-2.0
// `zkcoord register PATH ID COMMAND...`: keep a group membership while a command runs.
#pragma once

#include "command_line.hpp"

namespace zkcoord::cli {

/// Returns the exit status (the command's, or one of exit_code); throws cli_error for
/// failures that end the tool with a message.
int run_register_command(const command_line& cl);

}  // namespace zkcoord::cli
