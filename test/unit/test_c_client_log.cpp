// SPDX-License-Identifier: Apache-2.0
// The C client's log level is a process-wide variable that every handle's threads read without
// a lock: zkcoord sets it once, before its first handle, and never again (a later write raced
// with running handles; ThreadSanitizer, scripts/sanitize tsan). Loggers filter on their own.
#define BOOST_TEST_MODULE c_client_log
#include <boost/test/unit_test.hpp>

#include "session/c_client_log.hpp"

#include <zookeeper/zookeeper.h>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

// The C client's level (declared in zookeeper_log.h, whose include of "zookeeper.h" only
// resolves with include/zookeeper on the path).
extern "C" ZOOAPI ZooLogLevel logLevel;

namespace {
std::shared_ptr<spdlog::logger> logger_at(spdlog::level::level_enum level,
                                          std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink) {
  auto logger = std::make_shared<spdlog::logger>("c_client_log_test", std::move(sink));
  logger->set_level(level);
  return logger;
}
}  // namespace

BOOST_AUTO_TEST_CASE(c_level_is_set_once_whatever_the_loggers_levels) {
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(16);
  zkcoord::detail::route_c_client_log_to(logger_at(spdlog::level::warn, sink));
  BOOST_TEST(logLevel == ZOO_LOG_LEVEL_INFO);
  zkcoord::detail::route_c_client_log_to(logger_at(spdlog::level::trace, sink));
  BOOST_TEST(logLevel == ZOO_LOG_LEVEL_INFO);
  zkcoord::detail::route_c_client_log_to(logger_at(spdlog::level::err, sink));
  BOOST_TEST(logLevel == ZOO_LOG_LEVEL_INFO);
}

BOOST_AUTO_TEST_CASE(the_current_logger_filters_c_client_lines) {
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(16);
  zkcoord::detail::route_c_client_log_to(logger_at(spdlog::level::warn, sink));
  // An INFO line is demoted to trace, an ERROR line to info: a warn logger keeps neither.
  zkcoord::detail::c_client_log_line("ZOO_INFO@log_env@1250: Client environment");
  zkcoord::detail::c_client_log_line("ZOO_ERROR@handle_socket_error_msg@2: refused");
  BOOST_TEST(sink->last_formatted().empty());
  zkcoord::detail::route_c_client_log_to(logger_at(spdlog::level::trace, sink));
  zkcoord::detail::c_client_log_line("ZOO_INFO@log_env@1250: Client environment");
  BOOST_TEST(sink->last_formatted().size() == 1u);
}
