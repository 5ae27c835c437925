// SPDX-License-Identifier: Apache-2.0
#include "session_state_machine.hpp"

namespace zkcoord::detail {

std::optional<session_state> next_session_state(session_state before, client_report report,
                                                bool same_session) {
  const bool in_contact =
      before == session_state::connected || before == session_state::reconnected;
  switch (report) {
    case client_report::connected:
      if (before == session_state::closed) return std::nullopt;
      if (in_contact && same_session) return std::nullopt;  // a repeated report
      if (before == session_state::suspended && same_session) return session_state::reconnected;
      return session_state::connected;
    case client_report::connecting:
      if (in_contact) return session_state::suspended;
      return std::nullopt;
    case client_report::expired:
      if (before == session_state::expired || before == session_state::closed) return std::nullopt;
      return session_state::expired;
    case client_report::auth_failed:
      if (before == session_state::closed) return std::nullopt;
      return session_state::closed;
  }
  return std::nullopt;
}

}  // namespace zkcoord::detail
