// SPDX-License-Identifier: Apache-2.0
// How `zkcoord members` prints a group: a table for people (and, with --watch, a line per
// change), or a JSON line per state. Ids and data come from any client: escaped for the
// terminal (terminal_text.hpp) or as JSON strings (json.hpp).
#pragma once

#include <zkcoord/membership.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace zkcoord::cli {

/// A member's join time (member_info::ctime_ms) as UTC ISO 8601: "2026-12-01T10:00:00.123Z".
std::string format_since(std::int64_t ms_since_epoch);

/// "no members of PATH\n", or "N member(s) of PATH" and a table: ID SESSION SINCE DATA, one
/// row per member in the order given (a group_view's: by id).
std::string format_members_text(const std::string& path, const std::vector<member_info>& members);

/// For --watch: one line per difference from `before` to `after` (both sorted by id):
/// "joined ID (session S, since T): DATA", "left ID", "updated ID (session S, since T): DATA"
/// (its data changed, or its node is another one: re-registered). "" when they are equal.
std::string format_member_changes_text(const std::vector<member_info>& before,
                                       const std::vector<member_info>& after);

/// {"path":..,"members":[{"id","session","since","since_ms","czxid","data"}]}, one line,
/// newline included. Sessions as hex strings, as ZooKeeper prints them.
std::string format_members_json(const std::string& path, const std::vector<member_info>& members);

}  // namespace zkcoord::cli
