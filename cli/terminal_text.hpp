// SPDX-License-Identifier: Apache-2.0
// Text from outside (paths, node data, connect strings) made safe to print on a terminal.
#pragma once

#include <string>
#include <string_view>

namespace zkcoord::cli {

/// `text` with every control character (C0, DEL, C1) and every byte of malformed UTF-8
/// written as \xHH, so that no escape sequence reaches the terminal and a message stays on
/// one line. Valid UTF-8 otherwise passes unchanged ("/jobs/über").
std::string escape_control_bytes(std::string_view text);

}  // namespace zkcoord::cli
