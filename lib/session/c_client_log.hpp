// SPDX-License-Identifier: Apache-2.0
// Routes the ZooKeeper C client's log lines into an spdlog logger.
#pragma once

#include <zkcoord/export.hpp>

#include <memory>

namespace spdlog {
class logger;
}

namespace zkcoord::detail {

/// The C client's log callback has no context, so its lines go to one process-wide logger:
/// the one of the most recently started session.
void route_c_client_log_to(const std::shared_ptr<spdlog::logger>& logger);

/// The callback to hand to zookeeper_init2 (exported for zkcoord::testing).
ZKCOORD_EXPORT void c_client_log_line(const char* message);

/// The logger used when session_options::logger is empty: "zkcoord", warnings and up.
std::shared_ptr<spdlog::logger> default_logger();

}  // namespace zkcoord::detail
