// SPDX-License-Identifier: Apache-2.0
// ZooKeeper in containers for tests (Testcontainers-style): one server or an N-node ensemble,
// with the faults the process harness cannot make, such as cutting a server off from the
// quorum while its clients still reach it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace zkcoord::testing {

struct container_options {
  /// Members; 1 is a standalone server.
  std::size_t size = 3;
  /// Any image configured by the official image's variables (ZOO_MY_ID, ZOO_SERVERS, ...).
  /// Empty: $ZKCOORD_ZK_IMAGE, else "zkcoord/zookeeper:3.8" (scripts/docker-images).
  std::string image = {};
  /// The docker CLI (searched in PATH when it has no '/').
  std::string docker = "docker";
  std::chrono::milliseconds tick_time{200};
  /// initLimit / syncLimit in ticks. An isolated member stops serving after about
  /// sync_limit * tick_time.
  int init_limit = 50;
  int sync_limit = 10;
  std::chrono::milliseconds min_session_timeout{400};
  std::chrono::milliseconds max_session_timeout{20000};
  /// Extra zoo.cfg lines (key, value); values must not contain whitespace (ZOO_CFG_EXTRA).
  std::vector<std::pair<std::string, std::string>> extra_config = {};
  /// How long the constructor and restart() wait for every member to serve.
  std::chrono::milliseconds start_timeout{180000};
};

/// The constructor removes what crashed earlier runs left behind (containers and networks
/// labelled zkcoord.testing whose creating process is gone), creates two networks — a client
/// network, on which each member's client port is published on 127.0.0.1 at a port chosen free
/// and fixed for the ensemble's life, and a quorum network on which members reach each other
/// as zkN-q — starts every member and returns once each serves and one leads. It throws
/// std::runtime_error, with the members' logs, when that fails. The destructor removes the
/// containers and both networks; it prints the members' logs to stderr when it runs during
/// stack unwinding or when $ZKCOORD_CONTAINER_LOGS is "always".
/// Members are indexed 0..size()-1 (container zk<i+1>). Not thread-safe.
class container_ensemble {
 public:
  explicit container_ensemble(container_options options = {});
  ~container_ensemble();
  container_ensemble(const container_ensemble&) = delete;
  container_ensemble& operator=(const container_ensemble&) = delete;

  /// "127.0.0.1:P1,127.0.0.1:P2,..." (every member, also stopped or isolated ones).
  std::string connect_string() const;
  /// "127.0.0.1:Pi": a client that must stay on member i (e.g. on the minority side).
  std::string member_connect_string(std::size_t i) const;
  std::uint16_t client_port(std::size_t i) const;
  std::size_t size() const noexcept;
  const std::string& image() const noexcept;
  const std::string& container_id(std::size_t i) const;
  const std::string& client_network() const noexcept;
  const std::string& quorum_network() const noexcept;

  /// Member i's `srvr` mode ("leader", "follower", "standalone"), "" when it does not serve.
  std::string mode(std::size_t i) const;
  bool is_serving(std::size_t i) const;
  /// The only member reporting leader; nullopt when none or several do.
  std::optional<std::size_t> leader() const;
  /// Waits until a member other than `not_this` (if given) leads and every member that is
  /// running, unpaused and not isolated serves; throws std::runtime_error after `timeout`.
  std::size_t wait_for_leader(std::chrono::milliseconds timeout,
                              std::optional<std::size_t> not_this = std::nullopt) const;

  /// docker pause / unpause (cgroup freezer): connections are accepted, nothing answers.
  void pause(std::size_t i);
  void unpause(std::size_t i);
  /// docker kill (SIGKILL to the server).
  void kill(std::size_t i);
  /// docker start after kill: same data, ports and networks. With wait_serving, returns once
  /// it serves (which needs a quorum); otherwise once its container runs.
  void restart(std::size_t i, bool wait_serving = true);
  /// Disconnects member i from the quorum network: its clients still reach it on the client
  /// network, the other members do not. heal() reconnects it under its alias.
  void isolate(std::size_t i);
  void heal(std::size_t i);

  /// `docker logs` of member i (stdout and stderr), or of every member with headers.
  std::string logs(std::size_t i) const;
  void print_logs(std::ostream& out) const;

 private:
  struct member {
    std::string name;
    std::string alias;
    std::string id;
    std::uint16_t port = 0;
    bool paused = false;
    bool killed = false;
    bool isolated = false;
  };
  void create_networks();
  void create_member(std::size_t i);
  void start_member(std::size_t i);
  void wait_all_serve(std::chrono::milliseconds timeout) const;
  void remove_all() noexcept;
  const member& at(std::size_t i) const;
  std::string docker(std::vector<std::string> args) const;
  [[noreturn]] void fail(const std::string& what) const;

  container_options options_;
  std::string run_;  // unique per ensemble: names and the zkcoord.testing.run label
  std::string client_network_;
  std::string quorum_network_;
  std::vector<member> members_;
};

}  // namespace zkcoord::testing
