// SPDX-License-Identifier: Apache-2.0
// Samples an ownership's valid_until() on its own thread, as an application that checks its
// lease before each step would: what the holder *believed* at each moment, so a test can take
// the latest deadline it was told after a cut and compare it with the majority's re-grant.
#pragma once

#include <zkcoord/ownership.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace zkcoord::test {

class lease_sampler {
 public:
  using steady = std::chrono::steady_clock;
  struct sample {
    steady::time_point at;           ///< when it was read
    steady::time_point valid_until;  ///< what it said (min() once released, lost or expired)
  };

  /// Starts sampling `held` (which must outlive the sampler or its stop()) every `every`.
  explicit lease_sampler(const ownership& held,
                         std::chrono::milliseconds every = std::chrono::milliseconds(10))
      : held_(held), every_(every), thread_([this] { run(); }) {}
  ~lease_sampler() { stop(); }
  lease_sampler(const lease_sampler&) = delete;
  lease_sampler& operator=(const lease_sampler&) = delete;

  /// Stops and joins (idempotent).
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

  /// The latest deadline read at or after `from`; nullopt when no sample since then held one.
  std::optional<steady::time_point> max_from(steady::time_point from) const {
    std::lock_guard lock(mutex_);
    std::optional<steady::time_point> best;
    for (const auto& s : samples_)
      if (s.at >= from && s.valid_until != steady::time_point::min())
        best = best ? std::max(*best, s.valid_until) : s.valid_until;
    return best;
  }
  /// The last sample read before `to`, if any.
  std::optional<sample> last_before(steady::time_point to) const {
    std::lock_guard lock(mutex_);
    std::optional<sample> last;
    for (const auto& s : samples_)
      if (s.at < to) last = s;
    return last;
  }

 private:
  void run() {
    while (!stop_) {
      const auto at = steady::now();
      const auto valid_until = held_.valid_until();
      {
        std::lock_guard lock(mutex_);
        samples_.push_back({at, valid_until});
      }
      std::this_thread::sleep_for(every_);
    }
  }

  const ownership& held_;
  const std::chrono::milliseconds every_;
  mutable std::mutex mutex_;
  std::vector<sample> samples_;
  std::atomic<bool> stop_{false};
  std::thread thread_;  // last: starts once everything it uses is constructed
};

}  // namespace zkcoord::test
