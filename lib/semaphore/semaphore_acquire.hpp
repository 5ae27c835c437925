// SPDX-License-Identifier: Apache-2.0
// One acquire of a semaphore, in Curator's InterProcessSemaphoreV2 order: take the internal
// lock, get a lease (create it, wait while the leases path has more than N children), return
// the internal lock. Each phase is a contender attempt of the recipe engine, so both nodes get
// its guarantees (lost replies recovered, deleted whenever the acquire does not end in a
// lease); this object only sequences them and shares one deadline and one cancellation.
#pragma once

#include "recipe/recipe_metrics.hpp"
#include "semaphore/semaphore_state.hpp"

#include <zkcoord/ownership.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>

namespace zkcoord::detail {

class semaphore_acquire : public std::enable_shared_from_this<semaphore_acquire> {
 public:
  /// Starts an acquire on `state`; `handler` completes exactly once.
  static void start(const std::shared_ptr<semaphore_state>& state, const acquire_request& request,
                    completion<ownership> handler);

  /// Gives up (cancellation or the object's destruction): the phase in progress is aborted,
  /// and the acquire completes with `reason`.
  void abort(error_code reason);
  bool pending();

  semaphore_acquire(std::shared_ptr<semaphore_state> state, const acquire_request& request,
                    completion<ownership> handler, handler_executor executor);

 private:
  enum class phase { guard, lease, done };

  void start_guard();
  void on_guard(error_code ec, ownership guard);
  void complete(error_code ec, ownership lease);
  std::optional<std::chrono::steady_clock::duration> remaining() const;

  const std::shared_ptr<semaphore_state> state_;
  const acquire_request request_;
  const std::optional<std::chrono::steady_clock::time_point> deadline_;
  std::mutex mutex_;
  phase phase_ = phase::guard;
  std::optional<completion<ownership>> handler_;
  handler_executor executor_;
  ownership guard_;         ///< the internal lock, held while our lease is created and waits
  recipe_metrics metrics_;  ///< the acquire as a whole (mutex_)
};

}  // namespace zkcoord::detail
