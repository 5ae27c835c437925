// SPDX-License-Identifier: Apache-2.0
// The read-write lock objects: one contender each on one path, with the read or write grant
// policy and the holder description as node data (the lock's own acquire start).
#include "lock/lock_acquire.hpp"
#include "recipe/contender_slot.hpp"

#include <zkcoord/rw_lock.hpp>

namespace zkcoord {
namespace detail {
namespace {

grant_policy policy_of(rw_side side) noexcept {
  return side == rw_side::read ? grant_policy::read_lock() : grant_policy::write_lock();
}

}  // namespace

rw_lock_half::rw_lock_half(session& s, std::string lock_path, lock_options options, rw_side side)
    : contender_handle(std::make_shared<contender_slot>(s, std::move(lock_path))),
      options_(std::move(options)),
      side_(side) {}

void rw_lock_half::start_acquire(std::shared_ptr<contender_slot> state, const lock_options& options,
                                 rw_side side, acquire_request request,
                                 completion<held_lock> handler) {
  start_lock_acquire(state, side == rw_side::read ? "read lock" : "write lock", policy_of(side),
                     options, request, std::move(handler));
}

}  // namespace detail

read_lock::read_lock(session& s, std::string lock_path, lock_options options)
    : rw_lock_half(s, std::move(lock_path), std::move(options), detail::rw_side::read) {}

write_lock::write_lock(session& s, std::string lock_path, lock_options options)
    : rw_lock_half(s, std::move(lock_path), std::move(options), detail::rw_side::write) {}

read_write_lock::read_write_lock(session& s, std::string lock_path, lock_options options)
    : read_(s, lock_path, options), write_(s, std::move(lock_path), std::move(options)) {}

}  // namespace zkcoord
