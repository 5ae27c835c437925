// SPDX-License-Identifier: Apache-2.0
// The names of the metrics observer's labels (zkcoord/metrics.hpp).
#include <zkcoord/metrics.hpp>

namespace zkcoord {

const char* to_string(recipe_kind k) noexcept {
  switch (k) {
    case recipe_kind::lock:
      return "lock";
    case recipe_kind::read_lock:
      return "read_lock";
    case recipe_kind::write_lock:
      return "write_lock";
    case recipe_kind::semaphore:
      return "semaphore";
    case recipe_kind::election:
      return "election";
    case recipe_kind::membership:
      return "membership";
  }
  return "unknown";
}

const char* to_string(request_type t) noexcept {
  switch (t) {
    case request_type::create:
      return "create";
    case request_type::remove:
      return "remove";
    case request_type::set:
      return "set";
    case request_type::get:
      return "get";
    case request_type::exists:
      return "exists";
    case request_type::children:
      return "children";
    case request_type::multi:
      return "multi";
    case request_type::sync:
      return "sync";
    case request_type::lease_renewal:
      return "lease_renewal";
  }
  return "unknown";
}

}  // namespace zkcoord
