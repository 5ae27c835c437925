// SPDX-License-Identifier: Apache-2.0
// What a semaphore object owns: its two contender slots (the internal lock under PATH/locks,
// the lease under PATH/leases), its N, and the acquire in progress.
#pragma once

#include "recipe/contender_slot.hpp"

#include <zkcoord/lock.hpp>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

namespace zkcoord::detail {

class semaphore_acquire;

class semaphore_state {
 public:
  semaphore_state(const session& s, std::string path, std::uint32_t max_leases,
                  lock_options options);

  const std::string& path() const noexcept { return path_; }
  std::uint32_t max_leases() const noexcept { return max_leases_; }
  const lock_options& options() const noexcept { return options_; }
  contender_slot& guard() noexcept { return guard_; }
  contender_slot& leases() noexcept { return leases_; }

  /// Records `acquire` as the one in progress, unless one is (false: errc::already_held).
  bool begin(const std::shared_ptr<semaphore_acquire>& acquire);
  /// Aborts the acquire in progress, if any (the object is going away): operation_aborted.
  void abort_pending();

 private:
  const std::string path_;
  const std::uint32_t max_leases_;
  const lock_options options_;
  contender_slot guard_;
  contender_slot leases_;
  std::mutex mutex_;
  std::weak_ptr<semaphore_acquire> current_;
};

}  // namespace zkcoord::detail
