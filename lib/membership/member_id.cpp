// SPDX-License-Identifier: Apache-2.0
// Member id checks: the id is the name of the member's node, one path component.
#include <zkcoord/membership.hpp>
#include <zkcoord/path.hpp>

namespace zkcoord {

std::string member_id_problem(std::string_view id) {
  if (id.empty()) return "member id is empty";
  if (id == "." || id == "..") return "member id \"" + std::string(id) + "\" is a relative name";
  if (id.size() > max_member_id_size) {
    return "member id is " + std::to_string(id.size()) + " bytes, longer than " +
           std::to_string(max_member_id_size);
  }
  if (const auto at = id.find('/'); at != std::string_view::npos)
    return "member id holds '/' at offset " + std::to_string(at);
  if (const auto at = id.find('\0'); at != std::string_view::npos)
    return "member id holds a NUL byte at offset " + std::to_string(at);
  // The rest is ZooKeeper's: control characters, malformed UTF-8 and the ranges it refuses.
  std::string as_path = "/";
  as_path += id;
  std::string why = path_problem(as_path);
  if (!why.empty()) why = "member id refused by ZooKeeper's path rules: " + why;
  return why;
}

}  // namespace zkcoord
