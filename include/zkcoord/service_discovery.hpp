// SPDX-License-Identifier: Apache-2.0
// Service registration readable by Apache Curator's x-discovery: a service instance is a member
// of the group `<base path>/<service name>` whose id is the instance id and whose data is the
// ServiceInstance JSON (service_instance.hpp). It inherits the membership guarantees: the node
// is re-created after an expiry or a deletion (each time reported), and a node of another live
// session under the same id is never deleted or adopted: errc::already_registered.
#pragma once

#include <zkcoord/export.hpp>
#include <zkcoord/membership.hpp>
#include <zkcoord/service_instance.hpp>

#include <boost/asio/post.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace zkcoord {

/// `<base_path>/<name>`: where Curator's ServiceDiscovery keeps the instances of `name`.
ZKCOORD_EXPORT std::string service_path(std::string_view base_path, std::string_view name);

/// Why `instance` cannot be registered through membership ("" if it can): its JSON does not
/// encode, its name is not a node name (member_id_problem), or its type is not DYNAMIC (zkcoord
/// keeps ephemeral nodes only: Curator makes STATIC and PERMANENT nodes persistent and
/// DYNAMIC_SEQUENTIAL ones sequential). The id is checked by the join itself.
ZKCOORD_EXPORT std::string service_registration_problem(const service_instance& instance);

/// Registers `instance` at `<base_path>/<instance.name>/<instance.id>` with its JSON as data,
/// as async_join does (same completion and errors: the member handle keeps the registration,
/// its async_set_data(encode_service_instance(...)) updates it in place). A problem named by
/// service_registration_problem completes with errc::bad_argument, without I/O.
/// Signature: void(error_code, membership).
template <class Token = boost::asio::deferred_t>
auto async_register_service(session& s, std::string base_path, const service_instance& instance,
                            Token&& token = {}) {
  std::string problem = service_registration_problem(instance);
  std::string path = service_path(base_path, instance.name);
  std::string data = problem.empty() ? *encode_service_instance(instance).value : std::string();
  return boost::asio::async_initiate<Token, void(error_code, membership)>(
      [&s](auto handler, std::string why, std::string group, std::string id, std::string json) {
        if (!why.empty()) {
          auto executor = boost::asio::get_associated_executor(handler, s.get_executor());
          boost::asio::post(executor, [h = std::move(handler)]() mutable {
            std::move(h)(make_error_code(errc::bad_argument), membership{});
          });
          return;
        }
        async_join(s, std::move(group), std::move(id), std::move(json), std::move(handler));
      },
      token, std::move(problem), std::move(path), instance.id, std::move(data));
}

/// One child of a service's group, decoded.
struct discovered_instance {
  member_info node;  ///< the node: its name (the instance id), data, session, czxid
  /// The instance its JSON holds, or why it does not decode (data someone else wrote).
  service_json_result<service_instance> instance;
};

/// The members of a service's group (a group_view on service_path(base, name), or any listing)
/// decoded one by one: a node whose data is not a ServiceInstance is reported in its own entry
/// and does not hide the others.
ZKCOORD_EXPORT std::vector<discovered_instance> decode_service_instances(
    const std::vector<member_info>& members);

}  // namespace zkcoord
