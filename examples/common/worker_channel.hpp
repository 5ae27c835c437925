// SPDX-License-Identifier: Apache-2.0
// The worker side of the orchestrator's pipes: events go out as lines on stdout, commands
// ("start", "go") come in as lines on stdin.
#pragma once

#include <string>
#include <string_view>

namespace examples {

/// Writes one event line to stdout and flushes it (the orchestrator reacts to it at once).
void emit(std::string_view event);

/// Blocks until the orchestrator sends a line; "" when stdin is closed.
std::string await_command();

}  // namespace examples
