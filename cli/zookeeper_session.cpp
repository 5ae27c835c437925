// SPDX-License-Identifier: Apache-2.0
#include "zookeeper_session.hpp"

#include "credentials.hpp"
#include "terminal_text.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <iostream>
#include <string>

namespace zkcoord::cli {

std::shared_ptr<spdlog::logger> make_logger(bool verbose) {
  auto sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>("zkcoord", sink);
  logger->set_pattern("%H:%M:%S.%e %n %l: %v");
  logger->set_level(verbose ? spdlog::level::debug : spdlog::level::off);
  return logger;
}

void report(std::string_view message) {
  // Messages quote paths, node data and connect strings: none may steer the terminal.
  std::string line = "zkcoord: " + escape_control_bytes(message);
  line += '\n';
  std::cerr << line << std::flush;  // one write: lines of the tool and the command do not mix
}

session_options make_session_options(const global_options& global,
                                     std::shared_ptr<spdlog::logger> logger) {
  session_options options;
  options.connect = global.connect;
  options.session_timeout = global.session_timeout;
  options.connect_timeout = global.connect_timeout;
  options.digest = global.digest;
  options.default_acl = acl_entries(global.acl.value_or(acl_choice::open));
  options.renew_after_expiry = false;
  options.logger = std::move(logger);
  return options;
}

}  // namespace zkcoord::cli
