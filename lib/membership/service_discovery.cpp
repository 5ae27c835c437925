// SPDX-License-Identifier: Apache-2.0
// Service registration over membership: paths, what can be registered, decoding a group.
#include <zkcoord/service_discovery.hpp>

namespace zkcoord {

std::string service_path(std::string_view base_path, std::string_view name) {
  std::string path(base_path);
  if (path.empty() || path.back() != '/') path += '/';
  path += name;
  return path;
}

std::string service_registration_problem(const service_instance& instance) {
  if (const std::string why = member_id_problem(instance.name); !why.empty())
    return "service name: " + why;
  if (instance.type != service_type::dynamic)
    return std::string("service type ") + to_string(instance.type) +
           ": zkcoord registers DYNAMIC (ephemeral) instances only";
  if (const auto encoded = encode_service_instance(instance); !encoded) return encoded.message();
  return {};
}

std::vector<discovered_instance> decode_service_instances(const std::vector<member_info>& members) {
  std::vector<discovered_instance> found;
  found.reserve(members.size());
  for (const auto& member : members)
    found.push_back({member, decode_service_instance(member.data)});
  return found;
}

}  // namespace zkcoord
