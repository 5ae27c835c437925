// SPDX-License-Identifier: Apache-2.0
// Internal to zkcoord: what every contender object (lock, read and write lock, election,
// semaphore) repeats. Not part of the API; may change in any release.
#pragma once

#include <zkcoord/export.hpp>

#include <memory>
#include <string>

namespace zkcoord::detail {

class contender_slot;
class semaphore_state;

/// Ends the acquire the state has pending, if any (it completes with operation_aborted).
ZKCOORD_EXPORT void abort_pending(contender_slot& state) noexcept;
ZKCOORD_EXPORT void abort_pending(semaphore_state& state) noexcept;
/// The state's path; "" for none (a moved-from object).
ZKCOORD_EXPORT const std::string& path_of(const contender_slot* state) noexcept;
ZKCOORD_EXPORT const std::string& path_of(const semaphore_state* state) noexcept;

/// Owns the shared state of a contender object's acquires: destroying the object, or assigning
/// another over it, aborts its pending acquire; what an acquire produced stays valid. Move-only.
template <class State>
class contender_handle {
 public:
  contender_handle(const contender_handle&) = delete;
  contender_handle& operator=(const contender_handle&) = delete;

  const std::string& path() const noexcept { return path_of(state_.get()); }

 protected:
  explicit contender_handle(std::shared_ptr<State> state) noexcept : state_(std::move(state)) {}
  ~contender_handle() {
    if (state_) abort_pending(*state_);
  }
  contender_handle(contender_handle&&) noexcept = default;
  contender_handle& operator=(contender_handle&& other) noexcept {
    if (this != &other) {
      if (state_) abort_pending(*state_);
      state_ = std::move(other.state_);
    }
    return *this;
  }

  std::shared_ptr<State> state_;
};

}  // namespace zkcoord::detail
