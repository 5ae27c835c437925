// SPDX-License-Identifier: Apache-2.0
// A real ZooKeeper ensemble on 127.0.0.1 for tests: N JVMs with their own ports and data dirs.
#pragma once

#include <zkcoord/testing/server_options.hpp>

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace zkcoord::testing {

namespace detail {
class temp_dir;
class zk_instance;
}  // namespace detail

/// Starts all members at once in the constructor and returns when every member serves and
/// one is the leader; throws std::runtime_error (with the members' log tails) otherwise.
/// Members are indexed 0..size()-1. The destructor stops every JVM and removes the temp dir.
/// Not thread-safe: call its members from one thread at a time.
class ensemble {
 public:
  explicit ensemble(ensemble_options options = {});
  ~ensemble();
  ensemble(const ensemble&) = delete;
  ensemble& operator=(const ensemble&) = delete;

  /// "127.0.0.1:P1,127.0.0.1:P2,..." (all members, also stopped ones).
  std::string connect_string() const;
  std::string member_connect_string(std::size_t i) const;
  std::uint16_t client_port(std::size_t i) const;
  std::size_t size() const noexcept;
  pid_t pid(std::size_t i) const;
  const std::filesystem::path& directory() const noexcept;

  /// Index of the member whose `srvr` reports "Mode: leader"; nullopt when none does (no
  /// quorum) or several do (a resumed old leader has not noticed yet).
  std::optional<std::size_t> leader() const;
  /// Waits until some member other than `not_this` (if given) leads and all running, unpaused
  /// members serve; throws std::runtime_error after `timeout`.
  std::size_t wait_for_leader(std::chrono::milliseconds timeout,
                              std::optional<std::size_t> not_this = std::nullopt) const;
  /// True while member i's JVM exists (also when paused).
  bool is_running(std::size_t i);
  /// True when member i answers `srvr` as leader or follower.
  bool is_serving(std::size_t i) const;

  void stop(std::size_t i);
  void kill(std::size_t i);
  void pause(std::size_t i);
  void resume(std::size_t i);
  /// Starts member i again (same ports and data). With wait_serving, returns once it serves,
  /// which needs a quorum of running members; otherwise once it answers ruok.
  void restart(std::size_t i, bool wait_serving = true);

 private:
  detail::zk_instance& member(std::size_t i) const;
  bool all_running_serve() const;
  bool any_exited();

  ensemble_options options_;
  std::unique_ptr<detail::temp_dir> dir_;  // declared first: removed after the JVMs stopped
  std::vector<std::unique_ptr<detail::zk_instance>> members_;
};

}  // namespace zkcoord::testing
