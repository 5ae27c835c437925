// SPDX-License-Identifier: Apache-2.0
// The session's requests on the wire, each one C client call: the public operations
// (session_ops.cpp) validate their arguments and send through these, and so do the recipes.
// A request may be pinned to one session: it then goes out only while the session is still
// that one (checked under the handle lock, so it cannot slip onto a handle that replaced an
// expired one: it would, e.g., create an ephemeral node owned by the wrong session).
#pragma once

#include "session/session_impl.hpp"

#include <zkcoord/ops.hpp>
#include <zkcoord/types.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace zkcoord::detail {

/// The session a request belongs to; any_session sends on whatever handle is current.
using session_pin = std::int64_t;
inline constexpr session_pin any_session = 0;

/// Whether `impl` is live on `pin` now: same session id, and connected, reconnected or
/// suspended (a suspended session may still be alive; its requests wait or fail with
/// connection loss). Always true for any_session.
bool session_is(const session_impl& impl, session_pin pin) noexcept;

// Each completes on the session's executor; a pinned request refused because the session is
// no longer `pin` completes with session_expired (errc::closed once the session was closed).
// Arguments are not validated here: the callers have done so.

/// create2 with `acl_entries` (the session's default ACL when empty).
void request_create(session_impl& impl, session_pin pin, const std::string& path,
                    const std::string& data, create_mode mode, const acl& acl_entries,
                    completion<created_node> handler);
/// As request_create, for the *_with_ttl modes with `ttl_ms` (validated by the caller): the
/// server's ZUNIMPLEMENTED (TTL nodes disabled) is reported as errc::ttl_nodes_disabled.
void request_create_ttl(session_impl& impl, session_pin pin, const std::string& path,
                        const std::string& data, create_mode mode, std::int64_t ttl_ms,
                        const acl& acl_entries, completion<created_node> handler);
/// getData, arming `w` (if given) for the node's next change or deletion.
void request_get(session_impl& impl, session_pin pin, const std::string& path, watch* w,
                 completion<node_data> handler);
void request_set(session_impl& impl, session_pin pin, const std::string& path,
                 const std::string& data, std::int32_t version, completion<node_stat> handler);
/// exists: the Stat, or nullopt when the node is absent; arms `w` if given.
void request_exists(session_impl& impl, session_pin pin, const std::string& path, watch* w,
                    completion<std::optional<node_stat>> handler);
/// getChildren2, arming `w` (if given) for the next change of the children.
void request_children(session_impl& impl, session_pin pin, const std::string& path, watch* w,
                      completion<child_list> handler);
/// A listing stamped, on the C client's thread, with the session's deletion_proofs() when its
/// reply arrived: every deletion proof numbered up to `deletion_proofs` came before it.
struct stamped_listing {
  child_list list;
  std::uint64_t deletion_proofs = 0;
};
/// getChildren2 without a watch, its reply stamped.
void request_stamped_children(session_impl& impl, session_pin pin, const std::string& path,
                              completion<stamped_listing> handler);
void request_remove(session_impl& impl, session_pin pin, const std::string& path,
                    std::int32_t version, void_completion handler);
/// sync: makes the server catch up with the leader before the next request is answered.
void request_sync(session_impl& impl, session_pin pin, const std::string& path,
                  void_completion handler);

}  // namespace zkcoord::detail
