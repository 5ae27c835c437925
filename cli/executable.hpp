// SPDX-License-Identifier: Apache-2.0
// Finding COMMAND before anything else happens: `zkcoord lock` resolves it on PATH and checks
// that it can be executed before it connects, so a typo costs no grant.
#pragma once

#include <string>

namespace zkcoord::cli {

/// The file `name` runs, as execvp would find it (PATH searched when `name` has no '/').
/// Throws cli_error: command_not_found (127) for an empty name or nothing found,
/// cannot_execute (126) for a directory or a file without execute permission.
std::string find_executable(const std::string& name);

}  // namespace zkcoord::cli
