// SPDX-License-Identifier: Apache-2.0
// async_contenders: list the lock path, read every contender's node (pipelined), and describe
// them in grant order.
#include "lock/contender_list.hpp"
#include "recipe/node_listing.hpp"

#include <zkcoord/lock.hpp>
#include <zkcoord/path.hpp>

#include <spdlog/spdlog.h>

namespace zkcoord::detail {

void start_contenders(const std::shared_ptr<session_impl>& session, std::string lock_path,
                      completion<std::vector<contender>> handler) {
  const handler_executor executor = session->tracked_executor();
  if (const std::string why = path_problem(lock_path); !why.empty()) {
    session->logger()->warn("contenders: lock path refused: {}", why);
    return complete_via(executor, std::move(handler), make_error_code(errc::bad_path),
                        std::vector<contender>{});
  }
  list_recipe_nodes(
      session, lock_path, nullptr,
      [executor, h = std::move(handler)](error_code ec, node_listing listing) mutable {
        // Through complete_via: the caller's handler runs on its own executor.
        if (ec) return complete_via(executor, std::move(h), ec, std::vector<contender>{});
        complete_via(
            executor, std::move(h), error_code{},
            make_contenders(listing.children, listing.read, std::chrono::system_clock::now()));
      });
}

}  // namespace zkcoord::detail
