// SPDX-License-Identifier: Apache-2.0
// The semaphore object: its state, and starting acquires on it.
#include "semaphore/semaphore_acquire.hpp"
#include "semaphore/semaphore_state.hpp"

#include <zkcoord/semaphore.hpp>

#include <boost/asio/system_executor.hpp>

namespace zkcoord {

semaphore::semaphore(session& s, std::string path, std::uint32_t max_leases, lock_options options)
    : contender_handle(std::make_shared<detail::semaphore_state>(s, std::move(path), max_leases,
                                                                 std::move(options))) {}

std::uint32_t semaphore::max_leases() const noexcept {
  return state_ ? state_->max_leases() : 0;
}

void semaphore::start_acquire(std::shared_ptr<detail::semaphore_state> state,
                              detail::acquire_request request, detail::completion<lease> handler) {
  if (!state) {
    // A moved-from object.
    return detail::complete_via(detail::handler_executor(boost::asio::system_executor()),
                                std::move(handler), make_error_code(errc::bad_argument), lease());
  }
  detail::semaphore_acquire::start(state, request, std::move(handler));
}

}  // namespace zkcoord

namespace zkcoord::detail {

void abort_pending(semaphore_state& state) noexcept {
  state.abort_pending();
}

const std::string& path_of(const semaphore_state* state) noexcept {
  static const std::string none;
  return state ? state->path() : none;
}

}  // namespace zkcoord::detail
