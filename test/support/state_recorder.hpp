// SPDX-License-Identifier: Apache-2.0
// Records a session's state events so tests can assert the sequence and wait for one.
#pragma once

#include <zkcoord/session.hpp>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <vector>

namespace zkcoord::test {

class state_recorder {
 public:
  explicit state_recorder(session& s)
      : sub_(s.subscribe([this](session_state st) {
          std::lock_guard lock(mutex_);
          seen_.push_back({st, std::chrono::steady_clock::now()});
          cv_.notify_all();
        })) {}

  /// Waits until `st` has been seen (after position `from`); returns when, or nullopt.
  std::optional<std::chrono::steady_clock::time_point> wait_for(session_state st,
                                                                std::chrono::milliseconds bound,
                                                                std::size_t from = 0) {
    std::unique_lock lock(mutex_);
    std::optional<std::chrono::steady_clock::time_point> at;
    cv_.wait_for(lock, bound, [&] {
      for (std::size_t i = from; i < seen_.size(); ++i)
        if (seen_[i].first == st) return (at = seen_[i].second), true;
      return false;
    });
    return at;
  }
  /// Position of the first `st` seen at or after `from` (events after it start at +1).
  std::optional<std::size_t> position_of(session_state st, std::size_t from = 0) {
    std::lock_guard lock(mutex_);
    for (std::size_t i = from; i < seen_.size(); ++i)
      if (seen_[i].first == st) return i;
    return std::nullopt;
  }
  std::vector<session_state> states() {
    std::lock_guard lock(mutex_);
    std::vector<session_state> out;
    for (auto& [st, when] : seen_) out.push_back(st);
    return out;
  }
  std::size_t size() {
    std::lock_guard lock(mutex_);
    return seen_.size();
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  std::vector<std::pair<session_state, std::chrono::steady_clock::time_point>> seen_;
  state_subscription sub_;
};

}  // namespace zkcoord::test
