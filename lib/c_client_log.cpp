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

ZooLogLevel c_level_for(spdlog::level::level_enum level) {
  // Mirrors level_of's demotion.
  if (level <= spdlog::level::trace) return ZOO_LOG_LEVEL_INFO;
  if (level <= spdlog::level::debug) return ZOO_LOG_LEVEL_WARN;
  return ZOO_LOG_LEVEL_ERROR;
}

}  // namespace

void route_c_client_log_to(const std::shared_ptr<spdlog::logger>& logger) {
  std::lock_guard lock(sink_mutex());
  sink() = logger;
  zoo_set_debug_level(c_level_for(logger->level()));
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
