// SPDX-License-Identifier: Apache-2.0
// What `zkcoord lock` says about itself in its lock node, which any client allowed to read the
// node sees: the command's name, never its arguments (they often carry secrets).
#pragma once

#include "command_line.hpp"

#include <string>

namespace zkcoord::cli {

/// The lock node's app id: --describe TEXT when given (TEXT as is), else
/// "zkcoord lock: NAME" with NAME the last component of COMMAND's argv[0]
/// ("/usr/bin/pg_dump --password=x" -> "zkcoord lock: pg_dump").
std::string holder_description(const command_line& cl);

}  // namespace zkcoord::cli
