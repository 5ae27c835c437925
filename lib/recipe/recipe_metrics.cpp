// SPDX-License-Identifier: Apache-2.0
#include "recipe/recipe_metrics.hpp"

namespace zkcoord::detail {

recipe_kind recipe_of(node_kind kind) noexcept {
  switch (kind) {
    case node_kind::latch:
      return recipe_kind::election;
    case node_kind::read:
      return recipe_kind::read_lock;
    case node_kind::write:
      return recipe_kind::write_lock;
    case node_kind::lease:
      return recipe_kind::semaphore;
    case node_kind::lock:
      break;
  }
  return recipe_kind::lock;
}

recipe_metrics::recipe_metrics(std::shared_ptr<metrics_observer> observer, recipe_kind kind,
                               std::string path, reports what)
    : kind_(kind), path_(std::move(path)) {
  if (what == reports::all) acquires_ = observer;
  if (what != reports::none) losses_ = std::move(observer);
}

recipe_metrics::~recipe_metrics() {
  acquire_finished(make_error_code(errc::closed));
}

recipe_metrics::recipe_metrics(recipe_metrics&& o) noexcept
    : acquires_(std::move(o.acquires_)),
      losses_(std::move(o.losses_)),
      kind_(o.kind_),
      path_(std::move(o.path_)),
      started_(o.started_),
      pending_(o.pending_) {
  o.pending_ = false;
}

void recipe_metrics::acquire_started() noexcept {
  if (!acquires_) return;
  started_ = std::chrono::steady_clock::now();
  pending_ = true;
  acquires_->acquire_started(labels());
}

void recipe_metrics::acquire_finished(error_code ec) noexcept {
  if (!acquires_ || !pending_) return;
  pending_ = false;
  acquires_->acquire_finished(labels(), ec, std::chrono::steady_clock::now() - started_);
}

void recipe_metrics::lost(error_code reason) const noexcept {
  if (losses_) losses_->ownership_lost(labels(), reason);
}

}  // namespace zkcoord::detail
