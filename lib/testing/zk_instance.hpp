// SPDX-License-Identifier: Apache-2.0
// One ZooKeeper JVM of the harness: its config files, process and state probes. Internal;
// `server` and `ensemble` decide ports and readiness.
#pragma once

#include <zkcoord/testing/server_options.hpp>

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "testing/child_process.hpp"

namespace zkcoord::testing::detail {

class zk_instance {
 public:
  /// `dir` is created; myid 0 means standalone (no myid file, no server.N lines).
  zk_instance(std::filesystem::path dir, server_options options, int myid);
  ~zk_instance();

  /// Writes zoo.cfg (with the ensemble's "server.N=..." lines, if any), log4j.properties and
  /// the myid file.
  void configure(std::uint16_t client_port, const std::vector<std::string>& server_lines);
  /// Spawns the JVM; does not wait for it.
  void start();

  bool running() { return process_.running(); }
  /// `srvr`'s Mode ("standalone", "leader", "follower"), "" when not serving.
  std::string mode() const;
  /// True when the log written since the last start() reports a port already in use.
  bool bind_failed() const;
  /// The last `lines` lines of the server log and of the JVM's stdout/stderr.
  std::string log_tail(std::size_t lines) const;

  void stop();
  void kill();
  void pause();
  void resume();
  /// True between pause() and resume() (or a stop/kill/start).
  bool paused() const noexcept { return paused_; }

  pid_t pid() const noexcept { return process_.pid(); }
  std::uint16_t client_port() const noexcept { return client_port_; }
  const std::filesystem::path& dir() const noexcept { return dir_; }
  const server_options& options() const noexcept { return options_; }

 private:
  std::vector<std::string> command_line() const;

  std::filesystem::path dir_;
  server_options options_;
  int myid_;
  std::uint16_t client_port_ = 0;
  std::uintmax_t log_offset_ = 0;
  bool paused_ = false;
  child_process process_;
};

}  // namespace zkcoord::testing::detail

namespace zkcoord::testing::detail {

/// Polls `ready` every 50 ms until it returns true (true) or `give_up` does / `timeout`
/// passes (false).
template <class Ready, class GiveUp>
bool poll_until(std::chrono::milliseconds timeout, Ready ready, GiveUp give_up) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    if (ready()) return true;
    if (give_up() || std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

}  // namespace zkcoord::testing::detail
