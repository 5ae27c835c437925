// SPDX-License-Identifier: Apache-2.0
// How `zkcoord leader` prints an election: one line per state, for people or as JSON.
#pragma once

#include <zkcoord/election.hpp>

#include <string>
#include <vector>

namespace zkcoord::cli {

/// "leader ID (term N, session 0x.., node NAME); K participant(s)" or "no leader of PATH
/// (no participant)"; ids and names escaped (terminal_text.hpp). One line, newline included.
std::string format_leader_text(const std::string& path, const std::vector<participant>& all);
/// {"path":..,"leader":{"id","node","term","session"} or null,"participants":[{"id","node",
/// "term","session","leader"}]}, one line, newline included.
std::string format_leader_json(const std::string& path, const std::vector<participant>& all);

}  // namespace zkcoord::cli
