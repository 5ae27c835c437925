// SPDX-License-Identifier: Apache-2.0
// Durations on the command line: "500ms", "5s", "2m", "1h".
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace zkcoord::cli {

/// A non-negative integer followed by a unit (ms, s, m, h); nullopt when malformed. A unit
/// is required: a bare "5" is ambiguous between tools (seconds for etcdctl, ms elsewhere).
std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);

/// parse_duration, or a usage error naming the option.
std::chrono::milliseconds parse_duration_option(std::string_view option, std::string_view text);

/// "1.5s", "250ms", "3m20s": for humans, not for parsing back.
std::string format_duration(std::chrono::milliseconds d);

}  // namespace zkcoord::cli
