// SPDX-License-Identifier: Apache-2.0
#include "c_client_log.hpp"

#include <zookeeper/zookeeper.h>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstring>
#include <mutex>

namespace zkcoord::detail {
namespace {

std::mutex& sink_mutex() {
  static std::mutex m;
  return m;
}
std::shared_ptr<spdlog::logger>& sink() {
  static std::shared_ptr<spdlog::logger> logger;
  return logger;
}

spdlog::level::level_enum level_of(const char* message) {
  // The C client calls every refused connection attempt an error; zkcoord reports what matters
  // itself, so its lines are demoted one step below their own level.
  if (std::strstr(message, "ZOO_ERROR@")) return spdlog::level::info;
  if (std::strstr(message, "ZOO_WARN@")) return spdlog::level::debug;
  if (std::strstr(message, "ZOO_INFO@")) return spdlog::level::trace;
  return spdlog::level::debug;
}

}  // namespace

void route_c_client_log_to(const std::shared_ptr<spdlog::logger>& logger) {
  // The C client's level is one process-wide variable that every handle's threads read without
  // a lock, so setting it while another handle runs is a data race (ThreadSanitizer reports
  // it). It is set once, before zkcoord's first handle, to the most verbose level level_of
  // maps (INFO, to trace); each logger's own level does the filtering.
  static std::once_flag once;
  std::call_once(once, [] { zoo_set_debug_level(ZOO_LOG_LEVEL_INFO); });
  std::lock_guard lock(sink_mutex());
  sink() = logger;
}

void c_client_log_line(const char* message) {
  std::shared_ptr<spdlog::logger> logger;
  {
    std::lock_guard lock(sink_mutex());
    logger = sink();
  }
  if (logger) logger->log(level_of(message), "[C client] {}", message);
}

std::shared_ptr<spdlog::logger> default_logger() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!spdlog::get("zkcoord")) {
      auto logger = std::make_shared<spdlog::logger>(
          "zkcoord", std::make_shared<spdlog::sinks::stderr_sink_mt>());
      logger->set_level(spdlog::level::warn);
      try {
        spdlog::register_logger(logger);
      } catch (const spdlog::spdlog_ex&) {
        // registered concurrently by the application: use theirs
      }
    }
  });
  return spdlog::get("zkcoord");
}

}  // namespace zkcoord::detail
