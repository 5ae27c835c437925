// SPDX-License-Identifier: Apache-2.0
// The lock object: one contender on one path, with the exclusive grant policy and the holder
// description as node data.
#include "lock/lock_acquire.hpp"
#include "recipe/contender_slot.hpp"

#include <zkcoord/lock.hpp>

namespace zkcoord {

lock::lock(session& s, std::string lock_path, lock_options options)
    : contender_handle(std::make_shared<detail::contender_slot>(s, std::move(lock_path))),
      options_(std::move(options)) {}

void lock::start_acquire(std::shared_ptr<detail::contender_slot> state, const lock_options& options,
                         detail::acquire_request request, detail::completion<held_lock> handler) {
  detail::start_lock_acquire(state, "lock", detail::grant_policy::exclusive_lock(), options,
                             request, std::move(handler));
}

}  // namespace zkcoord
