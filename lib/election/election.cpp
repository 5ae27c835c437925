// SPDX-License-Identifier: Apache-2.0
// The election participant: one contender on one path, with the election grant policy and the
// participant id as node data (Curator's LeaderLatch layout).
#include "election/participant_id.hpp"
#include "recipe/contender_slot.hpp"

#include <boost/asio/system_executor.hpp>

#include <spdlog/spdlog.h>

#include <zkcoord/election.hpp>

namespace zkcoord {

election::election(session& s, std::string election_path, std::string participant_id)
    : contender_handle(std::make_shared<detail::contender_slot>(s, std::move(election_path))),
      id_(std::move(participant_id)) {}

const std::string& election::participant_id() const noexcept {
  return id_;
}

void election::start_campaign(std::shared_ptr<detail::contender_slot> state,
                              const std::string& participant_id, detail::acquire_request request,
                              detail::completion<leadership> handler) {
  const auto refuse = [&](const detail::handler_executor& ex) {
    detail::complete_via(ex, std::move(handler), make_error_code(errc::bad_argument), leadership());
  };
  if (!state) return refuse(detail::handler_executor(boost::asio::system_executor()));
  if (const std::string why = detail::participant_id_problem(participant_id); !why.empty()) {
    // Refused before any request: no node is created. The session's logger says why.
    auto impl = state->live_session();
    if (!impl) return refuse(detail::handler_executor(boost::asio::system_executor()));
    impl->logger()->warn("election {}: {}", state->path(), why);
    return refuse(impl->tracked_executor());
  }
  state->start(
      "election", request, detail::grant_policy::election(),
      [&participant_id](std::int64_t) { return participant_id; }, std::move(handler));
}

}  // namespace zkcoord
