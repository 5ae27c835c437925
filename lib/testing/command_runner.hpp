// SPDX-License-Identifier: Apache-2.0
// Runs a command to completion and captures what it prints (argv only, no shell). Internal.
#pragma once

#include <chrono>
#include <string>
#include <vector>

namespace zkcoord::testing::detail {

struct command_result {
  /// The exit status, 128+N after signal N, -1 when it was killed for running too long.
  int exit_code = -1;
  std::string out;
  std::string err;
  bool ok() const noexcept { return exit_code == 0; }
};

/// Runs argv[0] (searched in PATH without '/') with argv, stdin from /dev/null, and returns
/// its exit status, stdout and stderr; SIGKILL after `timeout`. The child is forked on the
/// harness's spawner thread and gets SIGKILL when this process dies.
/// Throws std::runtime_error when argv[0] is not found, std::system_error when it cannot start.
command_result run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout);

/// "a b 'c d'": argv for messages (never run by a shell).
std::string describe_command(const std::vector<std::string>& argv);

}  // namespace zkcoord::testing::detail
