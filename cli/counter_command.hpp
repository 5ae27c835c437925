// SPDX-License-Identifier: Apache-2.0
// `zkcoord counter PATH [get | add N | set N | cas OLD NEW] [--bytes 4|8]`: Curator's
// DistributedAtomicLong (8 bytes) or DistributedAtomicInteger (4 bytes, SharedCount's bytes).
#pragma once

#include "command_line.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace zkcoord::cli {

/// The operation after PATH (none: get). Throws cli_error(usage) on a malformed one, a number
/// that is not whole or does not fit `bytes` bytes.
counter_request parse_counter_operands(const std::vector<std::string>& words, int bytes);
/// --bytes: 4 or 8; throws cli_error(usage) otherwise.
int parse_counter_bytes(std::string_view value);
/// "-5", "-12": a negative whole number (an operand of counter, not an option).
bool is_negative_number(std::string_view arg);

/// Runs it and prints the value on stdout (get: the value; add, set, cas: the new value).
/// Returns 0; throws cli_error: exit_code::cas_lost when cas found another value than OLD
/// (nothing written; the message says which value), exit_code::lock_timeout when add or set
/// lost the race every time, exit_code::wrong_recipe when the node holds another number of
/// bytes, and the usual statuses for session errors.
int run_counter_command(const command_line& cl);

}  // namespace zkcoord::cli
