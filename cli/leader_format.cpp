// SPDX-License-Identifier: Apache-2.0
#include "leader_format.hpp"

#include "json.hpp"
#include "locks_format.hpp"
#include "terminal_text.hpp"

#include <algorithm>

namespace zkcoord::cli {
namespace {

const participant* leader_of(const std::vector<participant>& all) {
  const auto it = std::find_if(all.begin(), all.end(), [](auto& p) { return p.leader; });
  return it == all.end() ? nullptr : &*it;
}

std::string json_of(const participant& p, bool with_leader_flag) {
  std::string out = "{\"id\":" + json_string(p.id) + ",\"node\":" + json_string(p.node) +
                    ",\"term\":" + std::to_string(p.term.value()) +
                    ",\"session\":" + json_string(hex_session(p.session_id));
  if (with_leader_flag) out += std::string(",\"leader\":") + (p.leader ? "true" : "false");
  return out + "}";
}

}  // namespace

std::string format_leader_text(const std::string& path, const std::vector<participant>& all) {
  const participant* leader = leader_of(all);
  if (!leader) return "no leader of " + escape_control_bytes(path) + " (no participant)\n";
  return "leader " + escape_control_bytes(leader->id) + " (term " +
         std::to_string(leader->term.value()) + ", session " + hex_session(leader->session_id) +
         ", node " + escape_control_bytes(leader->node) + "); " + std::to_string(all.size()) +
         " participant" + (all.size() == 1 ? "" : "s") + "\n";
}

std::string format_leader_json(const std::string& path, const std::vector<participant>& all) {
  const participant* leader = leader_of(all);
  std::string out = "{\"path\":" + json_string(path) +
                    ",\"leader\":" + (leader ? json_of(*leader, false) : "null") +
                    ",\"participants\":[";
  for (std::size_t i = 0; i < all.size(); ++i) {
    if (i) out += ',';
    out += json_of(all[i], true);
  }
  return out + "]}\n";
}

}  // namespace zkcoord::cli
