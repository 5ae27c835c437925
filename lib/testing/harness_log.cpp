// SPDX-License-Identifier: Apache-2.0
#include "testing/harness_log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace zkcoord::testing::detail {

spdlog::logger& harness_log() {
  static const std::shared_ptr<spdlog::logger> logger = [] {
    if (auto existing = spdlog::get("zkcoord.testing")) return existing;
    auto created = std::make_shared<spdlog::logger>(
        "zkcoord.testing", std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
    created->set_level(spdlog::level::info);
    return created;
  }();
  return *logger;
}

}  // namespace zkcoord::testing::detail
