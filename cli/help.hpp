// SPDX-License-Identifier: Apache-2.0
// The --help text of each command.
#pragma once

#include "command_line.hpp"

#include <string_view>

namespace zkcoord::cli {

/// The help of `kind` (command_kind::none: the overview).
std::string_view help_text(command_kind kind);

/// The options shared by the ZooKeeper-facing commands, appended to their help.
std::string_view global_options_help();

}  // namespace zkcoord::cli
