// SPDX-License-Identifier: Apache-2.0
// async_participants: one listing of the election path, described in sequence order.
#include "election/participant_list.hpp"
#include "recipe/node_listing.hpp"

#include <zkcoord/election.hpp>
#include <zkcoord/path.hpp>

#include <spdlog/spdlog.h>

namespace zkcoord::detail {

void start_participants(const std::shared_ptr<session_impl>& session, std::string election_path,
                        completion<std::vector<participant>> handler) {
  const handler_executor executor = session->tracked_executor();
  if (const std::string why = path_problem(election_path); !why.empty()) {
    session->logger()->warn("participants: election path refused: {}", why);
    return complete_via(executor, std::move(handler), make_error_code(errc::bad_path),
                        std::vector<participant>{});
  }
  list_recipe_nodes(session, election_path, nullptr,
                    [executor, session = std::weak_ptr<session_impl>(session), path = election_path,
                     h = std::move(handler)](error_code ec, node_listing listing) mutable {
                      std::vector<participant> out;
                      if (!ec) ec = make_participants(listing.children, listing.read, out);
                      if (ec == errc::recipe_mismatch) {
                        if (auto impl = session.lock())
                          impl->logger()->warn("participants: {} holds nodes of another recipe",
                                               path);
                      }
                      // Through complete_via: the caller's handler runs on its own executor.
                      complete_via(executor, std::move(h), ec, std::move(out));
                    });
}

}  // namespace zkcoord::detail
