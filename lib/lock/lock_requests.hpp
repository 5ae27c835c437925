// The ZooKeeper requests of the lock driver and of async_contenders, each sent only while the
// session is still the one it is pinned to: a request must never go out on a session started
// after expiry (it would, e.g., create an ephemeral node owned by the wrong session).
#pragma once

#include "session/session_impl.hpp"

#include <zkcoord/ops.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace zkcoord::detail {

/// The session a request belongs to: 0 accepts whatever session is current.
using session_pin = std::int64_t;

/// Whether `impl` is live on `pin` now: same session id, and connected, reconnected or
/// suspended (a suspended session may still be alive; its requests wait or fail with
/// connection loss).
bool session_is(const session_impl& impl, session_pin pin) noexcept;

// Each completes on the session's io executor; a request refused because the session is no
// longer `pin` completes with session_expired (errc::closed once the session was closed).

/// create2: the created path and its Stat.
void pinned_create(session_impl& impl, session_pin pin, const std::string& path,
                   const std::string& data, create_mode mode, completion<created_node> handler);
/// getChildren2.
void pinned_children(session_impl& impl, session_pin pin, const std::string& path,
                     completion<child_list> handler);
/// sync: makes the server catch up with the leader before the next request is answered.
void pinned_sync(session_impl& impl, session_pin pin, const std::string& path,
                 void_completion handler);
/// exists: the Stat, or nullopt when the node is absent.
void pinned_exists(session_impl& impl, session_pin pin, const std::string& path,
                   completion<std::optional<node_stat>> handler);
/// getData, arming `w` (if given) for the node's next change or deletion.
void pinned_get(session_impl& impl, session_pin pin, const std::string& path, watch* w,
                completion<node_data> handler);
/// delete with any version.
void pinned_remove(session_impl& impl, session_pin pin, const std::string& path,
                   void_completion handler);

}  // namespace zkcoord::detail
