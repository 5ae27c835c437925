// SPDX-License-Identifier: Apache-2.0
// Creating a recipe's parent path as CONTAINER nodes, and removing the ones a failed attempt
// created: what every recipe driver (contenders, members) needs before its first node.
#pragma once

#include "session/session_requests.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace spdlog {
class logger;
}

namespace zkcoord::detail {

/// Called once with the first error other than node_exists, in path order (later creates fail
/// with no_node once an ancestor failed), and the paths this call created, outermost first.
using parents_done = std::function<void(error_code, std::vector<std::string> created)>;

/// Creates `path` and each missing ancestor ("/a", "/a/b", ... "/a/b/c") as CONTAINER nodes,
/// pipelined on `pin`; node_exists counts as success. The server removes a container once its
/// last child is gone.
void request_container_parents(session_impl& impl, session_pin pin, const std::string& path,
                               parents_done done);

/// Removes `created` (as request_container_parents reported them) deepest first, each only if
/// empty: a container that never had a child is never removed by the server, and a node that
/// has one (someone else enqueued meanwhile) stays with its ancestors. Best effort: failures
/// are logged at debug level, naming `what` ("a failed acquire").
void remove_container_parents(session_impl& impl, session_pin pin,
                              const std::vector<std::string>& created,
                              std::shared_ptr<spdlog::logger> logger, const char* what);

}  // namespace zkcoord::detail
