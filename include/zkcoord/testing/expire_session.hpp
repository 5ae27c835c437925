// SPDX-License-Identifier: Apache-2.0
// Expires a live session for real, the way ZooKeeper's own tests do it.
#pragma once

#include <chrono>

namespace zkcoord {
class session;
}

namespace zkcoord::testing {

/// Cuts `s` from its servers and waits (at most 2 s) until its state listeners were told
/// it is suspended, as a partition would tell them long before the server ends the session.
/// Then opens a second C-client handle with `s`'s session id and password, waits until it is
/// connected, and closes it: the server ends the session, so `s` sees session_expired when
/// it next reaches a server and all its ephemeral nodes are gone. Throws std::runtime_error
/// when the session has no id yet or the second handle cannot connect within `timeout`.
void expire_session(const session& s,
                    std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));

}  // namespace zkcoord::testing
