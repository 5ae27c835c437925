// SPDX-License-Identifier: Apache-2.0
// What a group view knows of a group, with no I/O: the children of the latest listing, the
// members read among them, and the difference a new listing makes. The view's driver
// (group_tracker) reads what this says to read and publishes snapshot() once nothing is
// outstanding.
#pragma once

#include <zkcoord/membership.hpp>
#include <zkcoord/ops.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace zkcoord::detail {

class group_members {
 public:
  struct listing_change {
    std::vector<std::string> added;    ///< listed now, not before: read them (with a watch)
    std::vector<std::string> removed;  ///< listed before, not now: forget them and their watch
    friend bool operator==(const listing_change&, const listing_change&) = default;
  };

  /// A new listing of the group's children replaces the previous one.
  listing_change on_listing(const std::vector<std::string>& children);
  /// A listed child was read. Ignored for a child that is no longer listed.
  void on_read(const std::string& name, const node_data& node);
  /// A listed child was found gone when read: it leaves the members (the next listing, which
  /// its deletion causes, agrees).
  void on_gone(const std::string& name);
  /// The group is missing, or a new session reads it from scratch.
  void clear();

  bool listed(const std::string& name) const;
  /// The members read so far, sorted by id. Children listed but not read yet are left out.
  std::vector<member_info> snapshot() const;

 private:
  std::map<std::string, std::optional<member_info>> children_;
};

}  // namespace zkcoord::detail
