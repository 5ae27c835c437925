// SPDX-License-Identifier: Apache-2.0
// The acquire start every lock of the lock family shares.
#include "lock/lock_acquire.hpp"

#include "recipe/holder_data.hpp"

#include <boost/asio/system_executor.hpp>

namespace zkcoord::detail {

void start_lock_acquire(const std::shared_ptr<contender_slot>& state, const char* what,
                        grant_policy policy, const lock_options& options,
                        const acquire_request& request, completion<ownership> handler) {
  if (!state) {
    return complete_via(handler_executor(boost::asio::system_executor()), std::move(handler),
                        make_error_code(errc::bad_argument), ownership());
  }
  state->start(
      what, request, policy,
      [&options](std::int64_t session_id) {
        return encode_holder_data(this_process_holder(options.app_id, session_id));
      },
      std::move(handler));
}

}  // namespace zkcoord::detail
