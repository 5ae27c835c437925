// SPDX-License-Identifier: Apache-2.0
// Recipe-node naming.
#include "recipe/node_name.hpp"

#include "recipe/sequence.hpp"

#include <boost/uuid/uuid.hpp>
#include <boost/uuid/uuid_generators.hpp>
#include <boost/uuid/uuid_io.hpp>

namespace zkcoord::detail {

std::string protected_node_prefix(std::string_view uuid, node_kind kind) {
  std::string prefix = "_c_";
  prefix += uuid;
  prefix += '-';
  prefix += marker_of(kind);
  return prefix;
}

std::string new_protected_node_prefix(node_kind kind) {
  // Not thread_local-cached: an acquire is a network round trip, seeding is negligible.
  boost::uuids::random_generator generate;
  return protected_node_prefix(boost::uuids::to_string(generate()), kind);
}

bool has_protected_prefix(std::string_view child_name, std::string_view prefix) {
  return !prefix.empty() && child_name.starts_with(prefix);
}

std::string_view node_name_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace zkcoord::detail
