// SPDX-License-Identifier: Apache-2.0
#include "common/worker_fleet.hpp"

#include <stdexcept>

namespace examples {

worker_fleet::worker_fleet(std::filesystem::path log_dir,
                           std::function<std::string(std::size_t)> name)
    : log_dir_(std::move(log_dir)), name_(std::move(name)) {}

std::size_t worker_fleet::spawn(const std::vector<std::string>& argv) {
  const std::size_t index = workers_.size();
  workers_.push_back(std::make_unique<child_process>(argv, log_dir_ / (name_(index) + ".log")));
  return index;
}

void worker_fleet::wait_ready(
    std::chrono::milliseconds timeout,
    const std::function<void(std::size_t, const std::string&)>& on_ready) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::size_t ready = 0;
  while (ready < workers_.size()) {
    if (std::chrono::steady_clock::now() > deadline) {
      throw std::runtime_error("workers did not get ready in time (logs in " + log_dir_.string() +
                               ")");
    }
    for (auto& [index, line] : poll(std::chrono::milliseconds(50))) {
      if (!line.starts_with("ready")) continue;
      ++ready;
      if (on_ready) on_ready(index, line);
    }
    for (std::size_t i = 0; i < workers_.size(); ++i) {
      if (workers_[i]->poll_exit()) {
        throw std::runtime_error(name_(i) + " exited before the start (log in " +
                                 log_dir_.string() + ")");
      }
    }
  }
}

void worker_fleet::send_all(const std::string& line) {
  for (auto& worker : workers_) worker->send_line(line);
}

std::vector<worker_fleet::event> worker_fleet::poll(std::chrono::milliseconds timeout) {
  std::vector<child_process*> children;
  for (auto& worker : workers_) children.push_back(worker.get());
  return poll_lines(children, timeout);
}

bool worker_fleet::all_exited() {
  bool all = true;
  for (auto& worker : workers_) {
    // Drained too: a worker's last lines may still wait in its pipe after it exited.
    all = worker->poll_exit().has_value() && worker->output_fd() < 0 && all;
  }
  return all;
}

std::vector<std::size_t> worker_fleet::failed() {
  std::vector<std::size_t> indexes;
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    const auto status = workers_[i]->poll_exit();
    if (status && *status != 0) indexes.push_back(i);
  }
  return indexes;
}

}  // namespace examples
