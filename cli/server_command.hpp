// SPDX-License-Identifier: Apache-2.0
// `zkcoord server`: a throwaway local ZooKeeper for demos and scripts.
#pragma once

#include "command_line.hpp"

namespace zkcoord::cli {

/// Runs until SIGINT/SIGTERM/SIGHUP (or stdin EOF with --until-eof); returns 0 after a clean
/// stop. Throws cli_error(os_error) when the server cannot start.
int run_server_command(const command_line& cl);

}  // namespace zkcoord::cli
