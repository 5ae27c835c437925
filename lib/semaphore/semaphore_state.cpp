// SPDX-License-Identifier: Apache-2.0
// The semaphore object's slots and its one acquire in progress.
#include "semaphore/semaphore_state.hpp"

#include "semaphore/semaphore_acquire.hpp"

#include <zkcoord/path.hpp>

#include <boost/asio/error.hpp>

namespace zkcoord::detail {

semaphore_state::semaphore_state(const session& s, std::string path, std::uint32_t max_leases,
                                 lock_options options)
    : path_(std::move(path)),
      max_leases_(max_leases),
      options_(std::move(options)),
      // The semaphore reports its acquires as a whole (semaphore_acquire), its leases' losses.
      guard_(s, join_path(path_, "locks"), recipe_metrics::reports::none),
      leases_(s, join_path(path_, "leases"), recipe_metrics::reports::losses_only, path_) {}

bool semaphore_state::begin(const std::shared_ptr<semaphore_acquire>& acquire) {
  std::lock_guard lock(mutex_);
  if (auto current = current_.lock(); current && current->pending()) return false;
  current_ = acquire;
  return true;
}

void semaphore_state::abort_pending() {
  std::shared_ptr<semaphore_acquire> current;
  {
    std::lock_guard lock(mutex_);
    current = current_.lock();
  }
  if (current) current->abort(make_error_code(boost::asio::error::operation_aborted));
}

}  // namespace zkcoord::detail
