// SPDX-License-Identifier: Apache-2.0
// The worker processes of one example run, as the orchestrator sees them: spawn them, wait
// until each says "ready", start them together, read their event lines, reap them.
#pragma once

#include "common/child_process.hpp"

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace examples {

class worker_fleet {
 public:
  using event = std::pair<std::size_t, std::string>;  ///< (worker index, line)

  /// Worker i's stderr goes to `log_dir`/<name(i)>.log.
  worker_fleet(std::filesystem::path log_dir, std::function<std::string(std::size_t)> name);

  std::size_t spawn(const std::vector<std::string>& argv);
  std::size_t size() const noexcept { return workers_.size(); }
  child_process& at(std::size_t index) { return *workers_.at(index); }
  std::string name(std::size_t index) const { return name_(index); }

  /// Waits until every worker printed a line starting with "ready" (passed to `on_ready`).
  /// Throws std::runtime_error if one exits first or `timeout` passes.
  void wait_ready(std::chrono::milliseconds timeout,
                  const std::function<void(std::size_t, const std::string&)>& on_ready = {});
  void send_all(const std::string& line);
  /// Event lines that arrived within `timeout`.
  std::vector<event> poll(std::chrono::milliseconds timeout);
  /// True once every worker exited and its output was read to the end.
  bool all_exited();
  /// Indexes of workers that exited with a non-zero status (killed ones included).
  std::vector<std::size_t> failed();

 private:
  std::filesystem::path log_dir_;
  std::function<std::string(std::size_t)> name_;
  std::vector<std::unique_ptr<child_process>> workers_;
};

}  // namespace examples
