// SPDX-License-Identifier: Apache-2.0
// The metrics observer for Prometheus (library zkcoord::prometheus, built when prometheus-cpp
// is installed): it records a session's reports and its recipes' in a prometheus::Registry,
// under the names of docs/metrics.md (zkcoord_acquire_seconds, zkcoord_grants_total, ...).
#pragma once

#include <zkcoord/metrics.hpp>

#include <memory>
#include <vector>

namespace prometheus {
class Registry;
}

namespace zkcoord {

struct prometheus_options {
  /// Adds a `path` label (the recipe's path) to the recipe metrics, beside `recipe`. Each
  /// path then makes its own series, for as long as the registry lives: turn it on only
  /// when the paths are few and fixed (not one per order, user or job). Off, the recipe
  /// metrics have at most six series each, and no report takes a lock; on, each recipe
  /// report looks its series up under a mutex.
  bool path_label = false;
  /// The upper bounds (seconds) of zkcoord_acquire_seconds' buckets.
  std::vector<double> acquire_buckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                         0.25,   0.5,   1,      2.5,   5,    10,    30,   60};
};

/// An observer that records into `registry` (which it keeps alive); give it to one or more
/// sessions through session_options::metrics (their figures add up). Every series of a
/// label value known in advance (recipe kind, request kind, session state) exists from the
/// start, at zero. Throws what prometheus-cpp throws when the registry already holds a
/// metric of the same name and another type.
std::shared_ptr<metrics_observer> make_prometheus_observer(
    std::shared_ptr<prometheus::Registry> registry, prometheus_options options = {});

}  // namespace zkcoord
