// SPDX-License-Identifier: Apache-2.0
// `zkcoord server`: a throwaway local ZooKeeper for demos and scripts.
#pragma once

#include "command_line.hpp"

namespace zkcoord::cli {

/// Runs until SIGINT/SIGTERM/SIGHUP (or stdin EOF with --until-eof); returns 0 after a clean
/// stop. Throws cli_error(os_error) when the server cannot start.
int run_server_command(const command_line& cl);

/// The harness logs its progress on "zkcoord.testing" (info on stderr by default); registered
/// first here so that only -v shows it. For every command that starts a local ZooKeeper.
void quiet_harness_log(bool verbose);

}  // namespace zkcoord::cli
