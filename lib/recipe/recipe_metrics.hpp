// SPDX-License-Identifier: Apache-2.0
// What one recipe attempt reports to its session's metrics observer (zkcoord/metrics.hpp),
// and under which labels: acquire start and end (with the time waited) and losses. Without an
// observer each report costs one null-pointer check.
//
// Not thread-safe: its owner calls it under its own lock.
#pragma once

#include "recipe/sequence.hpp"

#include <zkcoord/metrics.hpp>

#include <chrono>
#include <memory>
#include <string>

namespace zkcoord::detail {

/// The recipe that creates nodes of `kind` (a lock node: a lock, also a semaphore's internal
/// lock; its owner says so with recipe_metrics::reports).
recipe_kind recipe_of(node_kind kind) noexcept;

class recipe_metrics {
 public:
  /// Which reports an attempt makes: a semaphore reports its acquire as a whole (not its
  /// internal lock's, nor its lease's), and the lease's losses.
  enum class reports { all, losses_only, none };

  recipe_metrics() = default;
  recipe_metrics(std::shared_ptr<metrics_observer> observer, recipe_kind kind, std::string path,
                 reports what = reports::all);
  /// An acquire still pending ends as errc::closed: its session is gone.
  ~recipe_metrics();
  recipe_metrics(const recipe_metrics&) = delete;
  recipe_metrics& operator=(const recipe_metrics&) = delete;
  recipe_metrics(recipe_metrics&& o) noexcept;
  recipe_metrics& operator=(recipe_metrics&&) = delete;

  void acquire_started() noexcept;
  /// Reports the end of the started acquire (nothing if none is pending).
  void acquire_finished(error_code ec) noexcept;
  void lost(error_code reason) const noexcept;

 private:
  recipe_labels labels() const noexcept { return {kind_, path_}; }

  std::shared_ptr<metrics_observer> acquires_;  // null: acquires are not reported
  std::shared_ptr<metrics_observer> losses_;    // null: losses are not reported
  recipe_kind kind_ = recipe_kind::lock;
  std::string path_;
  std::chrono::steady_clock::time_point started_{};
  bool pending_ = false;
};

}  // namespace zkcoord::detail
