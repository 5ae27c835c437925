// SPDX-License-Identifier: Apache-2.0
#include <zkcoord/testing/ensemble.hpp>

#include <stdexcept>

#include <zkcoord/testing/four_letter.hpp>

#include "testing/free_ports.hpp"
#include "testing/harness_log.hpp"
#include "testing/temp_dir.hpp"
#include "testing/zk_instance.hpp"

namespace zkcoord::testing {
namespace {

constexpr int start_attempts = 3;  // a port picked as free may be taken before the JVM binds it

bool serving(const std::string& mode) {
  return mode == "leader" || mode == "follower";
}

std::string logs_of(const std::vector<std::unique_ptr<detail::zk_instance>>& members) {
  std::string text;
  for (const auto& m : members) text += m->log_tail(50);
  return text;
}

// Client, quorum and election ports for every member, and the "server.N=" lines naming them.
std::vector<std::string> assign_ports(std::vector<std::unique_ptr<detail::zk_instance>>& members) {
  const auto ports = detail::pick_free_ports(3 * members.size());
  std::vector<std::string> lines;
  for (std::size_t i = 0; i < members.size(); ++i) {
    lines.push_back("server." + std::to_string(i + 1) + "=127.0.0.1:" +
                    std::to_string(ports[3 * i + 1]) + ":" + std::to_string(ports[3 * i + 2]));
  }
  for (std::size_t i = 0; i < members.size(); ++i) members[i]->configure(ports[3 * i], lines);
  return lines;
}

}  // namespace

ensemble::ensemble(ensemble_options options)
    : options_(std::move(options)), dir_(std::make_unique<detail::temp_dir>("zkcoord-ens-")) {
  if (options_.size == 0) throw std::invalid_argument("zkcoord::testing::ensemble: size 0");
  options_.server.extra_config.insert(options_.server.extra_config.begin(),
                                      {{"initLimit", std::to_string(options_.init_limit)},
                                       {"syncLimit", std::to_string(options_.sync_limit)}});
  for (std::size_t i = 0; i < options_.size; ++i) {
    members_.push_back(std::make_unique<detail::zk_instance>(
        dir_->path() / ("member" + std::to_string(i)), options_.server, static_cast<int>(i + 1)));
  }
  const auto began = std::chrono::steady_clock::now();
  for (int attempt = 1;; ++attempt) {
    assign_ports(members_);
    for (auto& m : members_) m->start();
    if (detail::poll_until(
            options_.server.start_timeout, [&] { return leader() && all_running_serve(); },
            [&] { return any_exited(); })) {
      break;
    }
    bool bind_failed = false;
    for (auto& m : members_) bind_failed = m->bind_failed() || bind_failed;
    for (auto& m : members_) m->kill();
    if (attempt < start_attempts && bind_failed) {
      detail::harness_log().warn("an ensemble port was taken; retrying with others");
      continue;
    }
    const std::string message =
        "zkcoord::testing::ensemble: no serving quorum with a leader\n" + logs_of(members_);
    detail::harness_log().error("{}", message);
    throw std::runtime_error(message);
  }
  detail::harness_log().info("ZooKeeper ensemble {} serving, leader {}, after {} ms",
                             connect_string(), *leader(),
                             std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::steady_clock::now() - began)
                                 .count());
}

ensemble::~ensemble() {
  for (auto& m : members_) m->kill();  // all at once: no member waits for a quorum to leave
}

detail::zk_instance& ensemble::member(std::size_t i) const {
  if (i >= members_.size()) {
    throw std::out_of_range("zkcoord::testing::ensemble: no member " + std::to_string(i));
  }
  return *members_[i];
}

std::string ensemble::connect_string() const {
  std::string text;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (i > 0) text += ',';
    text += member_connect_string(i);
  }
  return text;
}

std::string ensemble::member_connect_string(std::size_t i) const {
  return "127.0.0.1:" + std::to_string(member(i).client_port());
}

std::uint16_t ensemble::client_port(std::size_t i) const {
  return member(i).client_port();
}

std::size_t ensemble::size() const noexcept {
  return members_.size();
}

pid_t ensemble::pid(std::size_t i) const {
  return member(i).pid();
}

const std::filesystem::path& ensemble::directory() const noexcept {
  return dir_->path();
}

std::optional<std::size_t> ensemble::leader() const {
  std::optional<std::size_t> found;
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (members_[i]->running() && !members_[i]->paused() && members_[i]->mode() == "leader") {
      // A resumed old leader may still say "leader" until it notices it lost its followers.
      if (found) return std::nullopt;
      found = i;
    }
  }
  return found;
}

std::size_t ensemble::wait_for_leader(std::chrono::milliseconds timeout,
                                      std::optional<std::size_t> not_this) const {
  std::optional<std::size_t> found;
  const bool ok = detail::poll_until(
      timeout,
      [&] {
        found = leader();
        return found && found != not_this && all_running_serve();
      },
      [] { return false; });
  if (!ok) {
    throw std::runtime_error("zkcoord::testing::ensemble: no new leader within " +
                             std::to_string(timeout.count()) + " ms\n" + logs_of(members_));
  }
  return *found;
}

bool ensemble::is_running(std::size_t i) {
  return member(i).running();
}

bool ensemble::is_serving(std::size_t i) const {
  return serving(member(i).mode());
}

bool ensemble::all_running_serve() const {
  for (std::size_t i = 0; i < members_.size(); ++i) {
    if (members_[i]->running() && !members_[i]->paused() && !is_serving(i)) return false;
  }
  return true;
}

bool ensemble::any_exited() {
  for (auto& m : members_) {
    if (!m->running()) return true;
  }
  return false;
}

void ensemble::stop(std::size_t i) {
  member(i).stop();
}

void ensemble::kill(std::size_t i) {
  member(i).kill();
}

void ensemble::pause(std::size_t i) {
  member(i).pause();
}

void ensemble::resume(std::size_t i) {
  member(i).resume();
}

void ensemble::restart(std::size_t i, bool wait_serving) {
  auto& m = member(i);
  m.stop();
  m.start();
  const bool ok = detail::poll_until(
      options_.server.start_timeout,
      [&] {
        return wait_serving ? is_serving(i)
                            : four_letter("127.0.0.1", m.client_port(), "ruok") == "imok";
      },
      [&] { return !m.running(); });
  if (!ok) {
    const std::string message = "zkcoord::testing::ensemble: member " + std::to_string(i) +
                                " did not " + (wait_serving ? "serve" : "start") +
                                " after restart\n" + m.log_tail(50);
    detail::harness_log().error("{}", message);
    throw std::runtime_error(message);
  }
}

}  // namespace zkcoord::testing
