// SPDX-License-Identifier: Apache-2.0
#include <zkcoord/testing/container_ensemble.hpp>

#include <zkcoord/testing/four_letter.hpp>

#include <unistd.h>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "testing/command_runner.hpp"
#include "testing/container_labels.hpp"
#include "testing/free_ports.hpp"
#include "testing/harness_log.hpp"

namespace zkcoord::testing {
namespace {

using namespace std::chrono_literals;
using steady = std::chrono::steady_clock;

constexpr auto docker_timeout = 120s;
constexpr auto probe_timeout = 1000ms;

std::string default_image() {
  const char* image = std::getenv("ZKCOORD_ZK_IMAGE");
  return image && *image ? image : "zkcoord/zookeeper:3.8";
}

std::string unique_run_name() {
  std::random_device random;
  std::ostringstream name;
  name << "zkcoord-" << ::getpid() << "-" << std::hex << (random() & 0xffffff);
  return name.str();
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

bool serving_mode(const std::string& mode) {
  return mode == "leader" || mode == "follower" || mode == "standalone";
}

// A published port that another process took between our pick and `docker start`.
bool port_taken(const std::string& docker_error) {
  return docker_error.find("address already in use") != std::string::npos ||
         docker_error.find("port is already allocated") != std::string::npos;
}

}  // namespace

container_ensemble::container_ensemble(container_options options)
    : options_(std::move(options)), run_(unique_run_name()) {
  if (options_.size == 0) throw std::invalid_argument("container_ensemble: size must be >= 1");
  if (options_.image.empty()) options_.image = default_image();
  detail::remove_stale_containers(options_.docker);
  try {
    create_networks();
    members_.resize(options_.size);
    for (std::size_t i = 0; i < members_.size(); ++i) create_member(i);
    for (std::size_t i = 0; i < members_.size(); ++i) start_member(i);
    wait_for_leader(options_.start_timeout);
  } catch (...) {
    remove_all();
    throw;
  }
  detail::harness_log().info("zkcoord::testing: {} containers of {} serve at {}", options_.size,
                             options_.image, connect_string());
}

container_ensemble::~container_ensemble() {
  const char* always = std::getenv("ZKCOORD_CONTAINER_LOGS");
  if (std::uncaught_exceptions() > 0 || (always && std::string(always) == "always")) {
    print_logs(std::cerr);
  }
  remove_all();
}

std::string container_ensemble::docker(std::vector<std::string> args) const {
  args.insert(args.begin(), options_.docker);
  const auto result = detail::run_command(args, docker_timeout);
  if (!result.ok()) {
    throw std::runtime_error("zkcoord::testing: " + detail::describe_command(args) +
                             " failed (exit " + std::to_string(result.exit_code) +
                             "): " + trimmed(result.err));
  }
  return trimmed(result.out);
}

void container_ensemble::create_networks() {
  const std::string owner = std::string(detail::owner_label) + "=" + detail::owner_label_value();
  client_network_ = docker({"network", "create", "--label", owner, run_ + "-client"});
  // Internal: the quorum network carries only the members' traffic to each other.
  quorum_network_ = docker({"network", "create", "--internal", "--label", owner, run_ + "-quorum"});
}

void container_ensemble::create_member(std::size_t i) {
  member& m = members_[i];
  const std::string id = std::to_string(i + 1);
  m.name = run_ + "-zk" + id;
  m.alias = "zk" + id + "-q";
  m.port = detail::pick_free_ports(1).front();

  std::string servers;
  for (std::size_t j = 0; j < options_.size; ++j) {
    if (!servers.empty()) servers += ' ';
    servers +=
        "server." + std::to_string(j + 1) + "=zk" + std::to_string(j + 1) + "-q:2888:3888;2181";
  }
  // quorumListenOnAllIPs: a member reconnected by heal() may get another address on the
  // quorum network; its peers find it again through the alias.
  std::string extra = "minSessionTimeout=" + std::to_string(options_.min_session_timeout.count()) +
                      " maxSessionTimeout=" + std::to_string(options_.max_session_timeout.count()) +
                      " quorumListenOnAllIPs=true";
  for (const auto& [key, value] : options_.extra_config) extra += " " + key + "=" + value;

  // SERVER_JVMFLAGS: TTL nodes, on the official image too (ours sets it already).
  m.id = docker({"create",
                 "--name",
                 m.name,
                 "--hostname",
                 "zk" + id,
                 "--label",
                 std::string(detail::owner_label) + "=" + detail::owner_label_value(),
                 "--network",
                 client_network_,
                 "--publish",
                 "127.0.0.1:" + std::to_string(m.port) + ":2181",
                 "--no-healthcheck",
                 "--env",
                 "ZOO_MY_ID=" + id,
                 "--env",
                 "ZOO_SERVERS=" + servers,
                 "--env",
                 "ZOO_TICK_TIME=" + std::to_string(options_.tick_time.count()),
                 "--env",
                 "ZOO_INIT_LIMIT=" + std::to_string(options_.init_limit),
                 "--env",
                 "ZOO_SYNC_LIMIT=" + std::to_string(options_.sync_limit),
                 "--env",
                 std::string("ZOO_STANDALONE_ENABLED=") + (options_.size == 1 ? "true" : "false"),
                 "--env",
                 "ZOO_ADMINSERVER_ENABLED=false",
                 "--env",
                 "ZOO_4LW_COMMANDS_WHITELIST=*",
                 "--env",
                 "ZOO_CFG_EXTRA=" + extra,
                 "--env",
                 "SERVER_JVMFLAGS=-Dzookeeper.extendedTypesEnabled=true",
                 options_.image});
  docker({"network", "connect", "--alias", m.alias, quorum_network_, m.id});
}

void container_ensemble::start_member(std::size_t i) {
  for (int attempt = 1;; ++attempt) {
    try {
      docker({"start", members_[i].id});
      return;
    } catch (const std::runtime_error& e) {
      if (!port_taken(e.what()) || attempt == 5) throw;
      detail::harness_log().info("zkcoord::testing: port {} was taken, another one for zk{}",
                                 members_[i].port, i + 1);
      docker({"rm", "--force", "--volumes", members_[i].id});
      create_member(i);
    }
  }
}

const container_ensemble::member& container_ensemble::at(std::size_t i) const {
  return members_.at(i);
}

std::string container_ensemble::connect_string() const {
  std::string text;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (i) text += ',';
    text += member_connect_string(i);
  }
  return text;
}

std::string container_ensemble::member_connect_string(std::size_t i) const {
  return "127.0.0.1:" + std::to_string(at(i).port);
}

std::uint16_t container_ensemble::client_port(std::size_t i) const {
  return at(i).port;
}
std::size_t container_ensemble::size() const noexcept {
  return members_.size();
}
const std::string& container_ensemble::image() const noexcept {
  return options_.image;
}
const std::string& container_ensemble::container_id(std::size_t i) const {
  return at(i).id;
}
const std::string& container_ensemble::client_network() const noexcept {
  return client_network_;
}
const std::string& container_ensemble::quorum_network() const noexcept {
  return quorum_network_;
}

std::string container_ensemble::mode(std::size_t i) const {
  return server_mode("127.0.0.1", at(i).port, probe_timeout);
}

bool container_ensemble::is_serving(std::size_t i) const {
  return serving_mode(mode(i));
}

std::optional<std::size_t> container_ensemble::leader() const {
  std::optional<std::size_t> found;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (at(i).paused || at(i).killed) continue;
    const std::string m = mode(i);
    if (m != "leader" && m != "standalone") continue;
    if (found) return std::nullopt;
    found = i;
  }
  return found;
}

std::size_t container_ensemble::wait_for_leader(std::chrono::milliseconds timeout,
                                                std::optional<std::size_t> not_this) const {
  const auto deadline = steady::now() + timeout;
  for (;;) {
    const auto lead = leader();
    bool all_serve = true;
    for (std::size_t i = 0; i < members_.size() && all_serve; ++i) {
      const member& m = at(i);
      if (!m.paused && !m.killed && !m.isolated) all_serve = is_serving(i);
    }
    if (lead && lead != not_this && all_serve) return *lead;
    if (steady::now() >= deadline) fail("no leader elected, or not every member serves");
    std::this_thread::sleep_for(100ms);
  }
}

void container_ensemble::pause(std::size_t i) {
  docker({"pause", at(i).id});
  members_[i].paused = true;
}

void container_ensemble::unpause(std::size_t i) {
  docker({"unpause", at(i).id});
  members_[i].paused = false;
}

void container_ensemble::kill(std::size_t i) {
  if (at(i).paused) unpause(i);
  docker({"kill", at(i).id});
  docker({"wait", at(i).id});  // returns once the container has stopped
  members_[i].killed = true;
}

void container_ensemble::restart(std::size_t i, bool wait_serving) {
  docker({"start", at(i).id});
  members_[i].killed = false;
  if (!wait_serving) return;
  const auto deadline = steady::now() + options_.start_timeout;
  while (!is_serving(i)) {
    if (steady::now() >= deadline)
      fail("zk" + std::to_string(i + 1) + " does not serve after restart");
    std::this_thread::sleep_for(100ms);
  }
}

void container_ensemble::isolate(std::size_t i) {
  docker({"network", "disconnect", quorum_network_, at(i).id});
  members_[i].isolated = true;
}

void container_ensemble::heal(std::size_t i) {
  docker({"network", "connect", "--alias", at(i).alias, quorum_network_, at(i).id});
  members_[i].isolated = false;
}

std::string container_ensemble::logs(std::size_t i) const {
  const std::vector<std::string> argv{options_.docker, "logs", at(i).id};
  const auto result = detail::run_command(argv, docker_timeout);
  return result.out + result.err;
}

void container_ensemble::print_logs(std::ostream& out) const {
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (at(i).id.empty()) continue;
    out << "----- docker logs " << at(i).name << " (zk" << i + 1 << ", 127.0.0.1:" << at(i).port
        << ") -----\n"
        << logs(i) << "----- end of " << at(i).name << " -----\n";
  }
  out.flush();
}

void container_ensemble::fail(const std::string& what) const {
  std::ostringstream text;
  text << "zkcoord::testing::container_ensemble: " << what << "\n";
  print_logs(text);
  throw std::runtime_error(text.str());
}

void container_ensemble::remove_all() noexcept {
  auto quietly = [this](std::vector<std::string> args) {
    try {
      docker(std::move(args));
    } catch (const std::exception& e) {
      detail::harness_log().warn("{}", e.what());
    }
  };
  std::vector<std::string> rm{"rm", "--force", "--volumes"};
  for (const member& m : members_) {
    if (m.id.empty()) continue;
    if (m.paused) quietly({"unpause", m.id});
    rm.push_back(m.id);
  }
  if (rm.size() > 3) quietly(rm);
  for (const std::string* net : {&client_network_, &quorum_network_}) {
    if (!net->empty()) quietly({"network", "rm", *net});
  }
  members_.clear();
  client_network_.clear();
  quorum_network_.clear();
}

}  // namespace zkcoord::testing
