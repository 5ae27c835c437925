// SPDX-License-Identifier: Apache-2.0
// How the harness starts a ZooKeeper server (standalone or as an ensemble member).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace zkcoord::testing {

struct server_options {
  /// ZooKeeper's tickTime: heartbeats, and session timeouts are clamped to multiples of it.
  std::chrono::milliseconds tick_time{200};
  /// Sessions may negotiate a timeout in [min_session_timeout, max_session_timeout].
  std::chrono::milliseconds min_session_timeout{400};
  std::chrono::milliseconds max_session_timeout{20000};
  /// false writes forceSync=no: faster writes, no fsync (data may be lost on kill).
  bool force_sync = true;
  /// How long start/restart wait for the server to serve before failing.
  std::chrono::milliseconds start_timeout{60000};
  /// How long stop() waits after SIGTERM before it sends SIGKILL.
  std::chrono::milliseconds stop_timeout{10000};
  /// znode.container.checkIntervalMs: how often empty container nodes are deleted
  /// (ZooKeeper's default, 60 s, when unset).
  std::optional<std::chrono::milliseconds> container_check_interval;
  /// Start the JVM with -Dzookeeper.extendedTypesEnabled=true: TTL nodes (create_mode::
  /// persistent_with_ttl) are allowed. false: the server refuses them (errc::ttl_nodes_disabled).
  bool extended_types = true;
  /// Extra zoo.cfg lines (key, value), appended after the harness's own.
  std::vector<std::pair<std::string, std::string>> extra_config;
  /// Extra JVM flags, placed before the main class.
  std::vector<std::string> extra_jvm_flags;
  /// The java executable (searched in PATH when it has no '/').
  std::string java = "java";
  /// Java class path; empty: $ZKCOORD_TEST_ZK_CLASSPATH, else the Debian package's layout
  /// (/etc/zookeeper/conf, /usr/share/java/zookeeper.jar, slf4j-log4j12, log4j-1.2).
  std::string classpath;
  /// log4j level of the server log (server.log in the server's directory).
  std::string log_level = "INFO";
};

struct ensemble_options {
  std::size_t size = 3;
  server_options server;
  /// initLimit / syncLimit in ticks: how long a follower may take to sync / may lag.
  int init_limit = 50;
  int sync_limit = 10;
};

}  // namespace zkcoord::testing
