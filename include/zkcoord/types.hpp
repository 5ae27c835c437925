// SPDX-License-Identifier: Apache-2.0
// Value types shared by the session and the recipes: zxids, fencing tokens, node stats,
// create modes, ACLs, session states and watch events.
#pragma once

#include <zkcoord/export.hpp>

#include <compare>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace zkcoord {

/// A ZooKeeper transaction id: high 32 bits = leader epoch, low 32 bits = counter.
using zxid = std::int64_t;

/// The fencing token of a lock grant: the czxid of the winning lock node. It grows with every
/// grant, across leader fail-over and re-creation of the lock's parent, and is never reset.
class ZKCOORD_EXPORT fencing_token {
 public:
  constexpr fencing_token() = default;
  constexpr explicit fencing_token(zxid value) : value_(value) {}

  constexpr zxid value() const noexcept { return value_; }
  /// The ZooKeeper leader epoch in which the grant's node was created.
  constexpr std::uint32_t epoch() const noexcept {
    return static_cast<std::uint32_t>(static_cast<std::uint64_t>(value_) >> 32);
  }
  /// The transaction counter within the epoch.
  constexpr std::uint32_t counter() const noexcept {
    return static_cast<std::uint32_t>(static_cast<std::uint64_t>(value_) & 0xffffffffu);
  }
  constexpr explicit operator bool() const noexcept { return value_ != 0; }
  friend constexpr auto operator<=>(fencing_token, fencing_token) = default;

  /// The decimal value, as every zkcoord tool prints tokens, with its epoch and counter:
  /// "8589934625 (epoch 2, counter 33)".
  std::string to_string() const;

 private:
  zxid value_ = 0;
};
ZKCOORD_EXPORT std::ostream& operator<<(std::ostream& os, fencing_token t);

/// ZooKeeper's Stat of a node.
struct node_stat {
  zxid czxid = 0;                    ///< zxid of the create
  zxid mzxid = 0;                    ///< zxid of the last data change
  zxid pzxid = 0;                    ///< zxid of the last child change
  std::int64_t ctime = 0;            ///< creation time, ms since the epoch (server clock)
  std::int64_t mtime = 0;            ///< last modification, ms since the epoch (server clock)
  std::int32_t version = 0;          ///< data version
  std::int32_t cversion = 0;         ///< children version
  std::int32_t aversion = 0;         ///< ACL version
  std::int64_t ephemeral_owner = 0;  ///< owning session id for ephemeral nodes, else 0
  std::int32_t data_length = 0;
  std::int32_t num_children = 0;
  friend bool operator==(const node_stat&, const node_stat&) = default;
};

enum class create_mode {
  persistent,
  ephemeral,
  persistent_sequential,
  ephemeral_sequential,
  container,  ///< removed by the server once its last child is gone
  /// Persistent, removed by the server once it has had no children and no change for its ttl
  /// (create_options::ttl). Needs the server started with -Dzookeeper.extendedTypesEnabled=true
  /// (else errc::ttl_nodes_disabled).
  persistent_with_ttl,
  persistent_sequential_with_ttl,  ///< as persistent_with_ttl, with a sequence suffix
};

/// True for persistent_with_ttl and persistent_sequential_with_ttl.
constexpr bool has_ttl(create_mode m) noexcept {
  return m == create_mode::persistent_with_ttl || m == create_mode::persistent_sequential_with_ttl;
}
/// True for the modes that add a sequence suffix to the path.
constexpr bool is_sequential(create_mode m) noexcept {
  return m == create_mode::persistent_sequential || m == create_mode::ephemeral_sequential ||
         m == create_mode::persistent_sequential_with_ttl;
}

/// ACL permission bits (ZooKeeper's values).
namespace perms {
inline constexpr std::uint32_t read = 1;
inline constexpr std::uint32_t write = 2;
inline constexpr std::uint32_t create = 4;
inline constexpr std::uint32_t remove = 8;
inline constexpr std::uint32_t admin = 16;
inline constexpr std::uint32_t all = 31;
}  // namespace perms

struct acl_entry {
  std::uint32_t perms = perms::all;
  std::string scheme;  ///< "world", "auth", "digest", "ip", ...
  std::string id;      ///< "anyone", "user:base64(sha1(user:password))", ...
  friend bool operator==(const acl_entry&, const acl_entry&) = default;
};
using acl = std::vector<acl_entry>;

/// world:anyone with every permission (ZooKeeper's OPEN_ACL_UNSAFE).
ZKCOORD_EXPORT acl open_acl_unsafe();
/// Every permission for the authenticated creator only (ZooKeeper's CREATOR_ALL_ACL).
ZKCOORD_EXPORT acl creator_all_acl();
/// world:anyone may read (ZooKeeper's READ_ACL_UNSAFE).
ZKCOORD_EXPORT acl read_acl_unsafe();
/// world:anyone may read, the authenticated creator may do everything (READ_ACL_UNSAFE plus
/// CREATOR_ALL_ACL): others can list and inspect, only the creator can create children, delete
/// them, write or change the ACL. The session needs credentials (session_options::digest).
ZKCOORD_EXPORT acl world_read_creator_all_acl();
/// The digest id of user:password, as ZooKeeper computes it ("user:base64(sha1(user:pw))").
ZKCOORD_EXPORT std::string digest_id(const std::string& user, const std::string& password);

/// The life cycle of a session, as reported to listeners.
enum class session_state {
  connecting,   ///< first connection attempt in progress
  connected,    ///< a new session is established
  suspended,    ///< contact lost; the session may still be alive on the server
  reconnected,  ///< contact regained, same session (ephemeral nodes kept)
  expired,      ///< the session is gone (server-reported or lease deadline passed)
  closed,       ///< closed by this process
};
ZKCOORD_EXPORT const char* to_string(session_state s) noexcept;
ZKCOORD_EXPORT std::ostream& operator<<(std::ostream& os, session_state s);

/// What changed for a one-shot watch.
enum class watch_event_type { created, deleted, data_changed, children_changed };
ZKCOORD_EXPORT const char* to_string(watch_event_type t) noexcept;
ZKCOORD_EXPORT std::ostream& operator<<(std::ostream& os, watch_event_type t);

struct watch_event {
  watch_event_type type;
  std::string path;
};

/// The requests a session has handed to the ZooKeeper C client since it was made, by kind:
/// its callers' and its recipes', whatever their results (one the client refuses at once, on a
/// handle that just expired, too); not requests refused before (a bad path), pings, or the
/// session's own probe of a silent connection. Counted before the request is sent, so a reply
/// never comes before its count. For metrics: how many reads a workload costs (a lock hand-off
/// that needs no listing shows as none).
struct request_counts {
  std::uint64_t creates = 0;
  std::uint64_t removes = 0;
  std::uint64_t sets = 0;
  std::uint64_t gets = 0;
  std::uint64_t exists = 0;
  std::uint64_t listings = 0;  ///< getChildren
  std::uint64_t multis = 0;
  std::uint64_t syncs = 0;
  std::uint64_t lease_renewals = 0;  ///< the session's own, while its lease is wanted
};

}  // namespace zkcoord
