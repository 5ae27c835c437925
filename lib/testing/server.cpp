// SPDX-License-Identifier: Apache-2.0
#include <zkcoord/testing/server.hpp>

#include <stdexcept>

#include "testing/free_ports.hpp"
#include "testing/harness_log.hpp"
#include "testing/temp_dir.hpp"
#include "testing/zk_instance.hpp"

namespace zkcoord::testing {
namespace {

constexpr int start_attempts = 3;  // a port picked as free may be taken before the JVM binds it

bool wait_standalone(detail::zk_instance& zk) {
  return detail::poll_until(
      zk.options().start_timeout, [&] { return zk.mode() == "standalone"; },
      [&] { return !zk.running(); });
}

[[noreturn]] void fail_start(detail::zk_instance& zk, const std::string& what) {
  const std::string message = "zkcoord::testing::server: " + what + " (client port " +
                              std::to_string(zk.client_port()) + ")\n" + zk.log_tail(50);
  detail::harness_log().error("{}", message);
  throw std::runtime_error(message);
}

}  // namespace

server::server(server_options options)
    : dir_(std::make_unique<detail::temp_dir>("zkcoord-zk-")),
      instance_(std::make_unique<detail::zk_instance>(dir_->path(), std::move(options), 0)) {
  const auto began = std::chrono::steady_clock::now();
  for (int attempt = 1;; ++attempt) {
    instance_->configure(detail::pick_free_ports(1).front(), {});
    instance_->start();
    if (wait_standalone(*instance_)) break;
    const bool exited = !instance_->running();
    instance_->kill();
    if (attempt < start_attempts && instance_->bind_failed()) {
      detail::harness_log().warn("port {} was taken; retrying with another",
                                 instance_->client_port());
      continue;
    }
    fail_start(*instance_, exited ? "ZooKeeper exited during start" : "ZooKeeper did not start");
  }
  detail::harness_log().info("ZooKeeper serving on 127.0.0.1:{} (pid {}) after {} ms",
                             instance_->client_port(), instance_->pid(),
                             std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::steady_clock::now() - began)
                                 .count());
}

server::~server() = default;

std::string server::connect_string() const {
  return "127.0.0.1:" + std::to_string(instance_->client_port());
}

std::uint16_t server::port() const noexcept {
  return instance_->client_port();
}

pid_t server::pid() const noexcept {
  return instance_->pid();
}

const std::filesystem::path& server::directory() const noexcept {
  return dir_->path();
}

void server::stop() {
  instance_->stop();
}

void server::kill() {
  instance_->kill();
}

void server::pause() {
  instance_->pause();
}

void server::resume() {
  instance_->resume();
}

void server::restart() {
  instance_->stop();
  instance_->start();
  if (!wait_standalone(*instance_)) {
    const bool exited = !instance_->running();
    instance_->kill();
    fail_start(*instance_, exited ? "ZooKeeper exited during restart"
                                  : "ZooKeeper did not serve after restart");
  }
}

bool server::is_running() {
  return instance_->running();
}

}  // namespace zkcoord::testing
