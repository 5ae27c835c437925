// SPDX-License-Identifier: Apache-2.0
// A group view's knowledge of its group: see group_members.hpp.
#include "membership/group_members.hpp"

#include <set>

namespace zkcoord::detail {

group_members::listing_change group_members::on_listing(const std::vector<std::string>& children) {
  listing_change change;
  const std::set<std::string> now(children.begin(), children.end());
  for (auto it = children_.begin(); it != children_.end();) {
    if (now.count(it->first) != 0) {
      ++it;
      continue;
    }
    change.removed.push_back(it->first);
    it = children_.erase(it);
  }
  for (const auto& name : now) {
    if (children_.emplace(name, std::nullopt).second) change.added.push_back(name);
  }
  return change;
}

void group_members::on_read(const std::string& name, const node_data& node) {
  const auto it = children_.find(name);
  if (it == children_.end()) return;
  it->second = member_info{.id = name,
                           .data = node.data,
                           .session_id = node.stat.ephemeral_owner,
                           .czxid = node.stat.czxid,
                           .ctime_ms = node.stat.ctime};
}

void group_members::on_gone(const std::string& name) {
  children_.erase(name);
}

void group_members::clear() {
  children_.clear();
}

bool group_members::listed(const std::string& name) const {
  return children_.count(name) != 0;
}

std::vector<member_info> group_members::snapshot() const {
  std::vector<member_info> out;
  for (const auto& [name, info] : children_)
    if (info) out.push_back(*info);
  return out;
}

}  // namespace zkcoord::detail
