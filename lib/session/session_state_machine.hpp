// SPDX-License-Identifier: Apache-2.0
// Sans-I/O mapping of what the C client reports to the session's public states.
#pragma once

#include <zkcoord/types.hpp>

#include <optional>

namespace zkcoord::detail {

/// What the C client's session watcher reported.
enum class client_report {
  connected,    ///< ZOO_CONNECTED_STATE
  connecting,   ///< ZOO_CONNECTING_STATE / ZOO_ASSOCIATING_STATE: contact lost, retrying
  expired,      ///< ZOO_EXPIRED_SESSION_STATE, or the local lease deadline passed
  auth_failed,  ///< ZOO_AUTH_FAILED_STATE
};

/// The state to report after `report`, or nullopt when nothing changes. `same_session`: the
/// session id after a connect equals the one before it.
std::optional<session_state> next_session_state(session_state before, client_report report,
                                                bool same_session);

}  // namespace zkcoord::detail
